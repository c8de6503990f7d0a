//! The guard over what grants access or privilege beyond the mode bits, with the sandbox off:
//! a directory's default ACL, a named-user ACL that keeps the mode bits, a file capability on a
//! tracked program, the same in the git directory, and a planted `.git/commondir` — each
//! reported (exit 3) with the path named. Linux only: macOS has no file capabilities and keeps
//! its ACLs outside the extended attributes (docs/guard.md).

use std::os::unix::fs::PermissionsExt;
use std::process::Command;

use interview::testing::{memo_claim_plain, memo_says_plain};

use crate::guard::{Guarded, guard};
use crate::util::{Interview, TempRepo, prerequisite};

/// `sh -c SCRIPT` under the guard.
fn sh(repo: &TempRepo, script: &str) -> Guarded {
    guard(repo, &["sh", "-c", script], &[])
}

/// The change in `category` whose subject is exactly `subject`, with its detail.
fn detail<'g>(g: &'g Guarded, category: &str, subject: &str) -> &'g str {
    g.changes()
        .iter()
        .find(|c| c["category"] == category && c["subject"] == subject)
        .and_then(|c| c["detail"].as_str())
        .unwrap_or_else(|| panic!("no {category} change for {subject}: {:#}", g.json))
}

/// Whether `setfacl` and `setcap` are here and the file system under the repository takes ACLs
/// and capabilities (`.ci/run` installs the `acl` and `libcap2-bin` packages).
fn acl_and_capabilities(repo: &TempRepo) -> bool {
    let probe = repo.scratch("probe");
    std::fs::write(&probe, "").unwrap();
    let ok = |program: &str, args: &[&str]| {
        Command::new(program)
            .args(args)
            .arg(&probe)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    prerequisite(
        ok("setfacl", &["-m", "u:nobody:r"]) && ok("setcap", &["cap_setuid+ep"]),
        "setfacl and setcap (acl, libcap2-bin) on a file system with ACLs and capabilities",
    )
}

#[test]
fn a_default_acl_on_a_tracked_directory_is_a_change() {
    let repo = TempRepo::new();
    if !acl_and_capabilities(&repo) {
        return;
    }
    let g = sh(&repo, "setfacl -d -m u:nobody:rwx src");
    assert_eq!(g.code, 3, "{}", g.stderr);
    assert_eq!(detail(&g, "status", "src"), "default ACL set");
}

#[test]
fn a_named_user_acl_that_keeps_the_mode_bits_is_a_change() {
    let repo = TempRepo::new();
    if !acl_and_capabilities(&repo) {
        return;
    }
    let mode = || std::fs::metadata(repo.path().join("README.md")).unwrap();
    let before = std::os::unix::fs::PermissionsExt::mode(&mode().permissions());
    // The mask is set to the group bits the file already has, so `ls -l` shows nothing new.
    let group =
        ["---", "--x", "-w-", "-wx", "r--", "r-x", "rw-", "rwx"][(before >> 3 & 7) as usize];
    let g = sh(
        &repo,
        &format!("setfacl -m u:nobody:rw,m::{group} README.md"),
    );
    assert_eq!(
        std::os::unix::fs::PermissionsExt::mode(&mode().permissions()),
        before,
        "the ACL kept the mode bits"
    );
    assert_eq!(g.code, 3, "{}", g.stderr);
    assert_eq!(detail(&g, "status", "README.md"), "ACL set");
}

#[test]
fn a_file_capability_on_a_tracked_program_is_a_change() {
    let repo = TempRepo::new();
    if !acl_and_capabilities(&repo) {
        return;
    }
    repo.write("run.sh", "#!/bin/sh\necho hi\n");
    repo.git(&["update-index", "--add", "--chmod=+x", "run.sh"]);
    std::fs::set_permissions(
        repo.path().join("run.sh"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    repo.git(&["commit", "-q", "-m", "a program"]);
    let g = sh(&repo, "setcap cap_setuid+ep run.sh");
    assert_eq!(g.code, 3, "{}", g.stderr);
    assert_eq!(detail(&g, "status", "run.sh"), "file capability set");
}

/// Read before the command, in a directory below the root and at it: an ACL and a capability
/// each removed, a default ACL changed (what the first snapshot found, not only what appeared).
#[test]
fn acls_and_capabilities_there_before_the_command_and_removed_are_changes() {
    let repo = TempRepo::new();
    if !acl_and_capabilities(&repo) {
        return;
    }
    repo.write("src/run.sh", "#!/bin/sh\necho hi\n");
    repo.git(&["add", "src/run.sh"]);
    repo.git(&["commit", "-q", "-m", "a program"]);
    let set = "setfacl -m u:nobody:r src/lib.rs && setcap cap_setuid+ep src/run.sh && \
               setfacl -d -m u:nobody:rwx src && setfacl -m u:nobody:r README.md";
    assert!(
        Command::new("sh")
            .args(["-c", set])
            .current_dir(repo.path())
            .status()
            .unwrap()
            .success()
    );
    let g = sh(
        &repo,
        "setfacl -b src/lib.rs README.md && setcap -r src/run.sh && setfacl -d -m u:nobody:r src",
    );
    assert_eq!(g.code, 3, "{}", g.stderr);
    assert_eq!(detail(&g, "status", "src/lib.rs"), "ACL removed");
    assert_eq!(detail(&g, "status", "README.md"), "ACL removed");
    assert_eq!(
        detail(&g, "status", "src/run.sh"),
        "file capability removed"
    );
    assert_eq!(detail(&g, "status", "src"), "default ACL changed");
}

/// `sh -c SCRIPT` in the repository, not guarded (what happens between two runs).
fn between_runs(repo: &TempRepo, script: &str) {
    let ok = Command::new("sh")
        .args(["-c", script])
        .current_dir(repo.path())
        .status()
        .unwrap()
        .success();
    assert!(ok, "{script}");
}

/// A run keeps in the local tier which files had no ACL and no capability (the memo,
/// docs/guard.md), so the next run's first snapshot does not ask again for each. An ACL set
/// since moves the file's ctime: the memo no longer speaks for it, it is asked again, and the
/// command that removes the ACL is caught.
#[test]
fn a_file_the_last_run_remembered_without_an_acl_is_asked_again_once_its_ctime_moved() {
    let repo = TempRepo::new();
    if !acl_and_capabilities(&repo) {
        return;
    }
    // Only a ctime older than the snapshot's start by the 2 s margin is remembered.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let g = sh(&repo, "true");
    assert_eq!(g.code, 0, "{}", g.stderr);
    let (root, tier) = (repo.path(), repo.path().join(".interview"));
    let readme = root.join("README.md");
    assert!(memo_says_plain(root, &tier, &readme), "remembered");
    between_runs(&repo, "setfacl -m u:nobody:r README.md");
    assert!(!memo_says_plain(root, &tier, &readme), "its ctime moved");
    let g = sh(&repo, "setfacl -b README.md");
    assert_eq!(g.code, 3, "{}", g.stderr);
    assert_eq!(detail(&g, "status", "README.md"), "ACL removed");
}

/// The listings a run keeps say nothing of ACLs: a directory with one, its listing taken over by
/// the next run's first snapshot, still has its ACL recorded (and a command removing it is
/// caught).
#[test]
fn a_directorys_acl_is_recorded_when_its_listing_comes_from_the_last_run() {
    let repo = TempRepo::new();
    if !acl_and_capabilities(&repo) {
        return;
    }
    between_runs(&repo, "setfacl -m u:nobody:rx src");
    std::thread::sleep(std::time::Duration::from_millis(2100));
    assert_eq!(sh(&repo, "true").code, 0);
    let (root, tier) = (repo.path(), repo.path().join(".interview"));
    assert!(interview::testing::memo_lists(root, &tier, "src"));
    let g = sh(&repo, "setfacl -b src");
    assert_eq!(g.code, 3, "{}", g.stderr);
    assert_eq!(detail(&g, "status", "src"), "ACL removed");
}

/// The memo is taken at its word for an inode whose ctime is what it says (that file is not
/// asked), but only when it is the tool's own: a memo others may write, or owned by another
/// user, is not read at all.
#[test]
fn a_memo_is_believed_only_when_no_one_else_could_have_written_it() {
    let repo = TempRepo::new();
    if !acl_and_capabilities(&repo) {
        return;
    }
    between_runs(&repo, "setfacl -m u:nobody:r README.md");
    let acl_seen = || {
        let out = repo
            .cmd()
            .args(["guard", "snapshot", "--json"])
            .output()
            .unwrap();
        let snap: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        snap["permissions"]["xattrs"].get("README.md").is_some()
    };
    assert!(acl_seen(), "no memo: asked");
    let (root, tier) = (repo.path(), repo.path().join(".interview"));
    std::fs::create_dir_all(&tier).unwrap();
    memo_claim_plain(root, &tier, &[&root.join("README.md")]).unwrap();
    assert!(!acl_seen(), "the memo's word taken, the file not asked");
    let memo = tier.join("guard-memo");
    std::fs::set_permissions(&memo, std::fs::Permissions::from_mode(0o660)).unwrap();
    assert!(acl_seen(), "a memo the group may write is not read");
    std::fs::set_permissions(&memo, std::fs::Permissions::from_mode(0o600)).unwrap();
    assert!(!acl_seen());
    if nix::unistd::geteuid().is_root() {
        std::os::unix::fs::chown(&memo, Some(65534), None).unwrap();
        assert!(acl_seen(), "a memo of another user is not read");
    }
}

#[test]
fn acls_and_capabilities_in_the_git_directory_are_changes() {
    let repo = TempRepo::new();
    if !acl_and_capabilities(&repo) {
        return;
    }
    let g = sh(
        &repo,
        "setfacl -m u:nobody:r,m::r .git/config && setfacl -d -m u:nobody:rwx .git/objects && \
         setcap cap_setuid+ep .git/description",
    );
    assert_eq!(g.code, 3, "{}", g.stderr);
    assert_eq!(detail(&g, "git_metadata", "config"), "ACL set");
    assert_eq!(detail(&g, "git_metadata", "objects/"), "default ACL set");
    assert_eq!(
        detail(&g, "git_metadata", "description"),
        "file capability set"
    );
}

#[test]
fn an_interview_without_the_sandbox_reports_an_acl_and_a_capability() {
    let repo = TempRepo::new();
    if !acl_and_capabilities(&repo) {
        return;
    }
    let out = Interview::of_work_item(&repo)
        .runner("runs-script.sh")
        .without_sandbox()
        .runner_env(
            "RUNNER_SCRIPT",
            "setfacl -m u:nobody:r src/lib.rs && setcap cap_setuid+ep .git/hooks/pre-commit.sample",
        )
        .answers(r#"{ "interview_answers": 1 }"#)
        .yes()
        .run()
        .exits(3);
    let report = repo.session_json("turns/001/guard.json")["report"].to_string();
    for needle in [
        r#""detail":"ACL set","op":"~","subject":"src/lib.rs""#,
        "pre-commit.sample",
        "file capability set",
    ] {
        assert!(
            report.contains(needle),
            "{needle}: {report}\n{}",
            out.stderr
        );
    }
}

#[test]
fn a_planted_commondir_leading_nowhere_is_named() {
    let repo = TempRepo::new();
    let g = sh(&repo, "echo /nonexistent > .git/commondir");
    assert_eq!(g.code, 3, "{}", g.stderr);
    assert!(g.has("git_metadata", "repository"), "{:#}", g.json);
    assert!(detail(&g, "git_metadata", "commondir").starts_with("file "));
    assert!(
        detail(&g, "git_metadata", "common directory")
            .ends_with("→ /nonexistent (named by commondir)"),
        "{:#}",
        g.json
    );
}

#[test]
fn a_planted_commondir_leading_to_a_copy_names_the_file_not_every_file_moved() {
    let repo = TempRepo::new();
    let copy = repo.scratch("copy");
    let g = sh(
        &repo,
        &format!(
            "cp -a .git {c} && git config -f {c}/config core.fsmonitor /tmp/x && echo {c} > .git/commondir",
            c = copy.display()
        ),
    );
    assert_eq!(g.code, 3, "{}", g.stderr);
    assert!(detail(&g, "git_metadata", "commondir").starts_with("file "));
    // The git directory's own files keep their names: only what moved or was planted shows.
    let config = format!("{}/config", copy.display());
    assert!(g.has("git_metadata", &config), "{:#}", g.json);
    assert!(
        !g.has(
            "git_metadata",
            &repo.path().join(".git").display().to_string()
        ),
        "{:#}",
        g.json
    );
}
