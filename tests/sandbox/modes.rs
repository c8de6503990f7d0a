//! The sandbox's settings: `interview guard --sandbox require` against the guard's hostile
//! runners, the guard's default of no sandbox, `require`, `auto` and `landlock-only` where
//! Landlock or user namespaces are missing.

use super::*;

/// The programs in fixtures/runners/hostile (written for the guard's tests), each run with
/// `interview guard --sandbox require`: none changes anything.
#[test]
fn the_guards_hostile_runners_change_nothing_under_guard_sandbox_require() {
    if no_landlock("guard --sandbox require") {
        return;
    }
    let dir = fixtures().join("runners/hostile");
    let mut scripts: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    scripts.sort();
    assert!(scripts.len() > 10, "{scripts:?}");
    for script in scripts {
        let repo = TempRepo::new();
        repo.write(".git/info/exclude", "/.interview/\n");
        let home = tempfile::tempdir().unwrap();
        let wt = home.path().join("wt");
        let before = fingerprint(&[repo.path()]);
        let out = repo
            .cmd()
            .env("WT_DIR", &wt)
            .args(["guard", "--sandbox", "require", "--", "sh"])
            .arg(&script)
            .output()
            .unwrap();
        let name = script.file_name().unwrap().to_string_lossy().into_owned();
        assert_ne!(out.status.code(), Some(3), "{name}: {}", stderr(&out));
        assert_eq!(
            before,
            fingerprint(&[repo.path()]),
            "{name}: {}",
            stderr(&out)
        );
        assert!(!wt.exists(), "{name}: a linked worktree was added");
    }
}

#[test]
fn guard_keeps_the_sandbox_off_unless_asked() {
    let repo = TempRepo::new();
    let out = repo.run(&["guard", "--", "sh", "-c", "echo more >> README.md"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    if no_landlock("guard --sandbox require") {
        return;
    }
    let repo = TempRepo::new();
    let out = repo.run(&[
        "guard",
        "--sandbox",
        "require",
        "--",
        "sh",
        "-c",
        "echo more >> README.md",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("Read-only file system") || err.contains("Permission denied"),
        "{err}"
    );
    assert_eq!(repo.read("README.md"), "# test repo\n\nline two\n");
}

#[test]
fn require_refuses_a_turn_where_landlock_is_missing() {
    let target = Target::new("tracked");
    let simulate = [("INTERVIEW_TEST_SANDBOX_NO_LANDLOCK", "1")];
    let out = target.run(
        "sandbox/tries-write.sh",
        &["--sandbox", "require"],
        &simulate,
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--sandbox require: refusing to run a turn without Landlock (simulated by INTERVIEW_TEST_SANDBOX_NO_LANDLOCK=1)"),
        "{}",
        stderr(&out)
    );
    assert!(
        !target.repo.path().join(".interview/sessions").exists() || target.attempt().is_empty(),
        "a runner ran"
    );
    // `guard --sandbox require` too.
    let out = target
        .repo
        .cmd()
        .env("INTERVIEW_TEST_SANDBOX_NO_LANDLOCK", "1")
        .args(["guard", "--sandbox", "require", "--", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    // `auto` on a machine with neither says once that only detection is left.
    let out = target.run(
        "sandbox/tries-write.sh",
        &[],
        &[
            ("INTERVIEW_TEST_SANDBOX_NO_LANDLOCK", "1"),
            ("INTERVIEW_TEST_SANDBOX_NO_NAMESPACES", "1"),
        ],
    );
    let err = stderr(&out);
    assert_eq!(err.matches("interview: sandbox: ").count(), 1, "{err}");
    assert!(
        err.contains("nothing enforced, changes are only detected"),
        "{err}"
    );
}

/// `auto` says nothing when all is enforced, one short line when something is missing (and
/// what), everything with `--verbose`; never anything with `--sandbox off`.
#[test]
fn auto_says_once_what_is_missing_and_nothing_when_all_is_enforced() {
    assert!(
        offer().landlock && offer().namespaces,
        "needs the whole sandbox"
    );
    let target = Target::new("tracked");
    let out = target.run("done-at-once.sh", &[], &[]);
    let err = stderr(&out);
    assert_eq!(err.matches("interview: sandbox: ").count(), 0, "{err}");
    let out = target.run("done-at-once.sh", &["--verbose"], &[]);
    let err = stderr(&out);
    assert_eq!(err.matches("interview: sandbox: ").count(), 1, "{err}");
    assert!(err.contains("interview: sandbox: Landlock ABI "), "{err}");
    let out = target.run(
        "done-at-once.sh",
        &[],
        &[("INTERVIEW_TEST_SANDBOX_NO_NAMESPACES", "1")],
    );
    let err = stderr(&out);
    assert_eq!(err.matches("interview: sandbox: ").count(), 1, "{err}");
    assert!(
        err.contains(
            "interview: sandbox: Landlock and seccomp only: chmod of your files and the CLI's state not protected, UDP open; see `interview runners`"
        ),
        "{err}"
    );
    let out = target.run("done-at-once.sh", &["--sandbox", "off"], &[]);
    assert!(
        !stderr(&out).contains("interview: sandbox:"),
        "{}",
        stderr(&out)
    );
}

/// Where user namespaces are missing, `require` refuses (Landlock alone cannot keep the
/// promise) and `landlock-only` accepts.
#[test]
fn require_refuses_landlock_alone_and_landlock_only_accepts_it() {
    assert!(offer().landlock, "needs Landlock");
    let target = Target::new("tracked");
    let alone = [("INTERVIEW_TEST_SANDBOX_NO_NAMESPACES", "1")];
    let out = target.run("done-at-once.sh", &["--sandbox", "require"], &alone);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--sandbox landlock-only"),
        "{}",
        stderr(&out)
    );
    let out = target.run("done-at-once.sh", &["--sandbox", "landlock-only"], &alone);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}
