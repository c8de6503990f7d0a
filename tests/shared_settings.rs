//! What the repository's own files can aim at: its `interview.toml` only tightens, a program it
//! ships never runs as a preset, a committed local tier in any spelling is refused, and a second
//! run refused by the lock writes nothing the first run's guard could see.

use std::os::unix::fs::PermissionsExt;
use std::process::Stdio;

use crate::util::*;

const NO_ANSWERS: &str = r#"{ "interview_answers": 1 }"#;

/// Commit everything in the worktree.
fn commit(repo: &TempRepo, message: &str) {
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", message]);
}

/// An executable `claude` committed at the repository's root, that says so when it runs.
fn ship_a_claude(repo: &TempRepo) {
    let marker = repo.scratch("repo-claude-ran");
    repo.write(
        "claude",
        &format!(
            "#!/bin/sh\necho REPO-CLAUDE-RAN >&2\ntouch '{}'\nexit 1\n",
            marker.display()
        ),
    );
    let path = repo.path().join("claude");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    repo.write("interview.toml", "runner = \"claude\"\n");
    commit(repo, "a claude of our own");
}

#[test]
fn a_preset_never_starts_the_repository_s_own_program() {
    // A trailing `:` (the current directory), `.`, and a directory inside the repository.
    for path in ["/nonexistent:", ".", "/nonexistent:{repo}"] {
        for sandbox in [None, Some("off")] {
            let repo = TempRepo::new();
            ship_a_claude(&repo);
            let path = path.replace("{repo}", &repo.path().display().to_string());
            let mut run = Interview::of_work_item(&repo)
                .answers(NO_ANSWERS)
                .yes()
                .env("PATH", &path);
            if let Some(mode) = sandbox {
                run = run.args(["--sandbox", mode]);
            }
            let out = run.run();
            assert_ne!(out.code, 0, "PATH={path}: {}", out.stderr);
            assert!(
                !repo.scratch("repo-claude-ran").exists(),
                "PATH={path} sandbox={sandbox:?}: the repository's claude ran: {}",
                out.stderr
            );
            assert!(!out.stderr.contains("REPO-CLAUDE-RAN"), "{}", out.stderr);
            // `interview runners` gives the same answer.
            let listed = repo
                .cmd()
                .arg("runners")
                .env("PATH", &path)
                .output()
                .unwrap();
            assert!(
                stdout(&listed).contains("claude   not installed"),
                "PATH={path}: {}",
                stdout(&listed)
            );
        }
    }
}

#[test]
fn a_committed_local_tier_in_another_case_is_refused() {
    let repo = TempRepo::new();
    let pwned = repo.scratch("pwned");
    repo.write(
        ".Interview/config.toml",
        &format!(
            "runner = \"sh -c 'touch {}'\"\nsandbox = \"off\"\n",
            pwned.display()
        ),
    );
    commit(&repo, "a local tier, committed");
    let out = Interview::of_work_item(&repo)
        .runner("done-at-once.sh")
        .answers(NO_ANSWERS)
        .yes()
        .run()
        .exits(1);
    assert!(
        out.stderr.contains(".Interview/config.toml"),
        "{}",
        out.stderr
    );
    assert!(!pwned.exists());
}

#[test]
fn interview_toml_cannot_make_the_guard_warn_instead_of_fail() {
    let repo = TempRepo::new();
    repo.write("interview.toml", "on_change = \"warn\"\n");
    commit(&repo, "a lenient guard");
    let out = Interview::of_work_item(&repo)
        .runner("plants-hook.sh")
        .without_sandbox()
        .answers(NO_ANSWERS)
        .yes()
        .run()
        .exits(3);
    assert!(
        out.stderr
            .contains("interview.toml: on_change = \"warn\" is ignored"),
        "{}",
        out.stderr
    );
    assert!(!repo.path().join(DOCUMENT).exists());
    // The person's own flag still can.
    let repo = TempRepo::new();
    Interview::of_work_item(&repo)
        .runner("plants-hook.sh")
        .without_sandbox()
        .answers(NO_ANSWERS)
        .yes()
        .args(["--on-change", "warn"])
        .run()
        .exits(0);
}

#[test]
fn interview_toml_cannot_allow_changes_to_tracked_files() {
    let repo = TempRepo::new();
    repo.write("interview.toml", "guard_allow = [\"**\", \"build/**\"]\n");
    commit(&repo, "allow everything");
    let out = repo
        .cmd()
        .args(["guard", "--", "sh", "-c", "echo x >> README.md"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("interview.toml: guard_allow = [\"**\"] is ignored"),
        "{err}"
    );
    // A glob for untracked build output stays.
    let out = repo
        .cmd()
        .args([
            "guard",
            "--",
            "sh",
            "-c",
            "mkdir -p build && echo o > build/out.o",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn a_second_run_refused_by_the_lock_leaves_the_first_undisturbed() {
    let repo = TempRepo::new();
    let mark = repo.scratch("in-turn");
    let go = repo.scratch("go");
    let first = Interview::of_work_item(&repo)
        .runner("waits-for-go.sh")
        .without_sandbox()
        .answers(NO_ANSWERS)
        .yes()
        .runner_env("TEST_MARK", &mark)
        .runner_env("TEST_GO", &go)
        .command()
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the first run");
    wait_until(WAIT, "the first run's runner", || mark.exists());
    let second = Interview::intent(&repo, "8")
        .work_item()
        .runner("done-at-once.sh")
        .answers(NO_ANSWERS)
        .yes()
        .run()
        .exits(1);
    assert!(
        second.stderr.contains("another interview is running"),
        "{}",
        second.stderr
    );
    std::fs::write(&go, "").unwrap();
    let first = finish_within(first, WAIT, "the first run");
    assert_eq!(
        first.status.code(),
        Some(0),
        "the first run was disturbed: {}",
        stderr(&first)
    );
    assert!(repo.path().join(DOCUMENT).exists());
}
