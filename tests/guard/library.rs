//! The guard's library API the turn loop uses: the current turn's directory excluded, restore,
//! the index's stat cache not trusted across a turn, the object store, git's own gc.

use super::*;

#[test]
fn the_current_turn_directory_is_excluded_and_the_rest_of_the_tier_watched() {
    use interview::testing::{GuardScope, Snapshot};
    let repo = repo_with_ignored();
    let turn = repo.path().join(".interview/sessions/mine/turns/001");
    std::fs::create_dir_all(&turn).unwrap();
    let scope = GuardScope {
        worktree: repo.path().to_path_buf(),
        exclude: vec![turn.clone()],
        memo: None,
    };
    let before = Snapshot::take(&scope).unwrap();
    std::fs::write(turn.join("receipt.json"), "{}").unwrap();
    std::fs::create_dir_all(turn.join("out")).unwrap();
    let after = Snapshot::take(&scope).unwrap();
    assert!(before.diff(&after).is_empty(), "{}", before.diff(&after));
    std::fs::write(
        repo.path()
            .join(".interview/sessions/other-session/state.json"),
        "{\"tampered\":true}",
    )
    .unwrap();
    let later = Snapshot::take(&scope).unwrap();
    let report = after.diff(&later);
    assert!(
        report.to_string().contains("other-session/state.json"),
        "{report}"
    );
}

#[test]
fn restore_puts_hooks_and_config_back_and_removes_planted_hooks() {
    use interview::testing::{GuardScope, Snapshot, restore, save_restore_copies};
    let repo = TempRepo::new();
    let copies = tempfile::tempdir().unwrap();
    let scope = GuardScope {
        worktree: repo.path().to_path_buf(),
        exclude: vec![],
        memo: None,
    };
    let config_before = std::fs::read(repo.path().join(".git/config")).unwrap();
    save_restore_copies(&scope, copies.path()).unwrap();
    let before = Snapshot::take(&scope).unwrap();
    for script in [
        "writes_hook",
        "sets_fsmonitor",
        "adds_filter",
        "hides_untracked",
    ] {
        let ok = std::process::Command::new("sh")
            .arg(hostile(script))
            .current_dir(repo.path())
            .env("HOME", repo.home())
            .status()
            .unwrap()
            .success();
        assert!(ok, "{script}");
    }
    std::fs::remove_file(repo.path().join("sneaky.txt")).unwrap();
    assert!(!before.diff(&Snapshot::take(&scope).unwrap()).is_empty());
    let summary = restore(&scope, copies.path()).unwrap();
    assert!(summary.failed.is_empty(), "{summary}");
    assert_eq!(
        std::fs::read(repo.path().join(".git/config")).unwrap(),
        config_before
    );
    assert!(!repo.path().join(".git/hooks/pre-commit").exists());
    let report = before.diff(&Snapshot::take(&scope).unwrap());
    assert!(report.is_empty(), "after restore: {report}");
}

/// Edit a tracked file, date its mtime back (so it is not "racy" against a new index), then write
/// an index whose entry keeps the old object id but carries the edited file's stat data: a stat
/// check against the live index finds the file clean.
fn forge_index_for(repo: &TempRepo, rel: &str, new_content: &str) {
    repo.write(rel, new_content);
    let an_hour_ago = filetime::FileTime::from_unix_time(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs() as i64
            - 3600,
        0,
    );
    filetime::set_file_mtime(repo.path().join(rel), an_hour_ago).unwrap();
    let index_path = repo.path().join(".git/index");
    let mut index = gix::index::File::at(
        &index_path,
        gix::hash::Kind::Sha1,
        false,
        gix::index::decode::Options::default(),
    )
    .unwrap();
    let meta = gix::index::fs::Metadata::from_path_no_follow(&repo.path().join(rel)).unwrap();
    let stat = gix::index::entry::Stat::from_fs(&meta).unwrap();
    let pos = index
        .entry_index_by_path(rel.into())
        .expect("the file is tracked");
    index.entries_mut()[pos].stat = stat;
    index.write(gix::index::write::Options::default()).unwrap();
}

#[test]
fn forged_stat_data_in_the_index_does_not_hide_an_edit() {
    use interview::testing::{GuardScope, Snapshot};
    let repo = TempRepo::new();
    let scope = GuardScope {
        worktree: repo.path().to_path_buf(),
        exclude: vec![],
        memo: None,
    };
    let before = Snapshot::take(&scope).unwrap();
    forge_index_for(&repo, "src/lib.rs", "pub fn answer() -> u32 {\n    41\n}\n");
    // The index's entries (ids, modes, flags) are unchanged: only its stat cache was forged.
    let after = Snapshot::take_after(&scope, &before).unwrap();
    let report = before.diff(&after);
    assert!(
        report.to_string().contains("src/lib.rs"),
        "the edit was hidden: {report}"
    );
}

#[test]
fn replacing_a_stored_object_is_a_git_metadata_change() {
    let repo = TempRepo::new();
    let g = run_hostile(&repo, "replaces_object");
    assert_eq!(g.code, 3, "{}", g.stderr);
    assert!(g.has("git_metadata", "objects/"), "{:#}", g.json);
}

#[test]
fn repacking_the_object_store_is_a_git_metadata_change() {
    let repo = TempRepo::new();
    let g = run_hostile(&repo, "repacks");
    assert_eq!(g.code, 3, "{}", g.stderr);
    assert!(g.has("git_metadata", "objects/pack/"), "{:#}", g.json);
}

/// A `git gc --auto` that a commit started in the background, holding `gc.pid` until the test
/// says go, then writing an object (as its repacking would): a turn waits for it instead of
/// taking its writes for the runner's.
#[test]
fn a_turn_waits_for_gits_own_gc_before_its_snapshot() {
    use crate::util::{Interview, wait_until};
    use std::time::Duration;
    let repo = TempRepo::new();
    let go = repo.scratch("gc-go");
    let mut gc = std::process::Command::new("sh")
        .arg("-c")
        .arg(
            r#"echo "$$ $(hostname)" > .git/gc.pid
n=0
while [ ! -f "$GO" ] && [ "$n" -lt 600 ]; do sleep 0.05; n=$((n + 1)); done
echo "an object gc writes" | git hash-object -w --stdin >/dev/null
rm .git/gc.pid"#,
        )
        .env("GO", &go)
        .current_dir(repo.path())
        .spawn()
        .unwrap();
    let pid_file = repo.path().join(".git/gc.pid");
    wait_until(Duration::from_secs(30), "gc.pid", || pid_file.exists());
    let mut pty = Interview::of_work_item(&repo)
        .runner("done-at-once.sh")
        .without_sandbox()
        .out("-")
        .at_terminal();
    pty.expect("Waiting for git's own work on its store (git gc, pid");
    std::fs::write(&go, "").unwrap();
    let (code, screen) = pty.finish();
    assert!(gc.wait().unwrap().success());
    assert_eq!(code, 0, "{screen}");
    assert!(!screen.contains("changed the repository"), "{screen}");
}

/// A turn's restore copies that the turn before made with the same bytes are new names for
/// those files (no file made); a file changed since is copied anew; a copy of the turn before
/// that became a link is never linked to; and a restore from linked copies puts the file back.
#[test]
fn the_copies_of_a_turn_link_the_unchanged_copies_of_the_turn_before() {
    use interview::testing::{GuardScope, restore, save_restore_copies, save_restore_copies_after};
    use std::os::unix::fs::MetadataExt;
    let repo = TempRepo::new();
    let scope = GuardScope {
        worktree: repo.path().to_path_buf(),
        exclude: vec![],
        memo: None,
    };
    let dirs: Vec<_> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    // The copy in `dir` holding exactly `bytes`.
    let copy_of = |dir: &tempfile::TempDir, bytes: &[u8]| -> std::path::PathBuf {
        std::fs::read_dir(dir.path().join("files"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| std::fs::read(p).is_ok_and(|b| b == bytes))
            .unwrap_or_else(|| panic!("no copy of {}", String::from_utf8_lossy(bytes)))
    };
    let config_path = repo.path().join(".git/config");
    let config = std::fs::read(&config_path).unwrap();
    save_restore_copies(&scope, dirs[0].path()).unwrap();
    let exclude = repo.path().join(".git/info/exclude");
    std::fs::write(&exclude, "# changed since the turn before\n").unwrap();
    save_restore_copies_after(&scope, dirs[1].path(), Some(dirs[0].path())).unwrap();
    let ino = |p: std::path::PathBuf| std::fs::symlink_metadata(p).unwrap().ino();
    assert_eq!(
        ino(copy_of(&dirs[0], &config)),
        ino(copy_of(&dirs[1], &config)),
        "the unchanged config is linked"
    );
    let changed = copy_of(&dirs[1], b"# changed since the turn before\n");
    assert_eq!(
        std::fs::metadata(&changed).unwrap().nlink(),
        1,
        "copied anew"
    );

    // The first turn's copy of the config made a link to a file with the same bytes.
    let elsewhere = repo.scratch("same-bytes");
    std::fs::write(&elsewhere, &config).unwrap();
    let old = copy_of(&dirs[0], &config);
    std::fs::remove_file(&old).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &old).unwrap();
    save_restore_copies_after(&scope, dirs[2].path(), Some(dirs[0].path())).unwrap();
    let fresh = copy_of(&dirs[2], &config);
    let meta = std::fs::symlink_metadata(&fresh).unwrap();
    assert!(meta.is_file() && meta.nlink() == 1, "a copy of its own");

    std::fs::write(&config_path, "[core]\n\tfsmonitor = /tmp/x\n").unwrap();
    let summary = restore(&scope, dirs[1].path()).unwrap();
    assert!(summary.failed.is_empty(), "{summary}");
    assert_eq!(std::fs::read(&config_path).unwrap(), config);
}

/// A session's first turn links the restore copies of the latest turn of the session before it
/// that still hold the same bytes (no file made for them), copies anew what changed since, and
/// never looks through a session or turn directory that is a link.
#[test]
fn a_first_turn_links_the_unchanged_copies_of_the_session_before() {
    use crate::util::Interview;
    use std::os::unix::fs::MetadataExt;
    let repo = TempRepo::new();
    let interview = || {
        Interview::of_work_item(&repo)
            .runner("honest.sh")
            .answers(
                r#"{ "interview_answers": 1, "gate": "y", "answers": { "deployment_target": "2", "users": "analysts", "encoding": "utf-8" } }"#,
            )
            .yes()
            .run()
            .exits(0);
        repo.session_dir()
    };
    // The copy in a turn's restore directory holding exactly `bytes`.
    let copy_of = |turn: &std::path::Path, bytes: &[u8]| -> Option<std::path::PathBuf> {
        std::fs::read_dir(turn.join("restore/files"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| std::fs::read(p).is_ok_and(|b| b == bytes))
    };
    let ino = |p: std::path::PathBuf| std::fs::symlink_metadata(p).unwrap().ino();
    let config = std::fs::read(repo.path().join(".git/config")).unwrap();
    let exclude = repo.path().join(".git/info/exclude");

    let first = interview();
    let was = std::fs::read(&exclude).unwrap();
    let last_turn = first.join(format!(
        "turns/{:03}",
        repo.state()["turn"].as_u64().unwrap()
    ));
    let mut more = was.clone();
    more.extend_from_slice(b"# changed between the sessions\n");
    std::fs::write(&exclude, &more).unwrap();
    let second = interview().join("turns/001");
    assert_ne!(second.parent(), last_turn.parent());
    assert_eq!(
        ino(copy_of(&last_turn, &config).unwrap()),
        ino(copy_of(&second, &config).unwrap()),
        "the unchanged config is linked"
    );
    assert_ne!(
        ino(copy_of(&second, &more).unwrap()),
        ino(copy_of(&last_turn, &was).unwrap()),
        "the changed exclude is copied anew"
    );

    // The sessions directory holding only a link to a session with copies: nothing is linked.
    let sessions = repo.path().join(".interview/sessions");
    let aside = repo.scratch("sessions-aside");
    std::fs::rename(&sessions, &aside).unwrap();
    std::fs::create_dir(&sessions).unwrap();
    let session = aside.join(
        second
            .parent()
            .unwrap()
            .parent()
            .unwrap()
            .file_name()
            .unwrap(),
    );
    std::os::unix::fs::symlink(&session, sessions.join("intent-7-20260101T000000-00000000"))
        .unwrap();
    let second = session.join("turns/001");
    let before = std::fs::metadata(copy_of(&second, &config).unwrap())
        .unwrap()
        .nlink();
    let third = interview().join("turns/001");
    assert_ne!(
        ino(copy_of(&second, &config).unwrap()),
        ino(copy_of(&third, &config).unwrap()),
        "a session behind a link is not looked in"
    );
    assert_eq!(
        std::fs::metadata(copy_of(&second, &config).unwrap())
            .unwrap()
            .nlink(),
        before
    );
}
