//! The guard never hangs and never destroys: FIFOs planted where git files belong end the run
//! within seconds with a named change, a signal during a snapshot ends it, huge files are not
//! read whole, restore leaves whatever lies behind a link alone; and `interview guard -- CMD`
//! waits for the command's background writes, lets `--allow` globs through and speaks of a
//! command.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::util::Interview;
use crate::util::{TempRepo, alive, finish_within, pids, stderr, stdout, wait_until};

/// The longest a run that must not hang may take.
const PROMPT: Duration = Duration::from_secs(10);

/// `interview guard --json [extra] -- sh -c SCRIPT`, bounded by [`PROMPT`].
fn guard_sh(repo: &TempRepo, extra: &[&str], script: &str) -> (i32, Value, String) {
    let child = repo
        .cmd()
        .args(["guard", "--json"])
        .args(extra)
        .args(["--", "sh", "-c", script])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = finish_within(child, PROMPT, script);
    let json = serde_json::from_str(&stdout(&out)).unwrap_or(Value::Null);
    (out.status.code().unwrap_or(-1), json, stderr(&out))
}

fn has(json: &Value, category: &str, subject: &str) -> bool {
    json["report"]["changes"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|c| c["category"] == category && c["subject"].as_str().unwrap_or("").contains(subject))
}

// ---- no hangs ----

macro_rules! fifo_in_place_of {
    ($($name:ident: $path:literal;)*) => {$(
        #[test]
        fn $name() {
            let repo = TempRepo::new();
            let start = Instant::now();
            let (code, json, err) =
                guard_sh(&repo, &[], concat!("rm -f ", $path, " && mkfifo ", $path));
            assert_eq!(code, 3, "{err}");
            assert!(start.elapsed() < PROMPT);
            assert!(
                has(&json, "git_metadata", "repository") || err.contains("cannot be read"),
                "{json:#} {err}"
            );
            assert!(err.contains("special file") || err.contains("not a regular file"), "{err}");
        }
    )*};
}

fifo_in_place_of! {
    a_fifo_config_does_not_hang: ".git/config";
    a_fifo_index_does_not_hang: ".git/index";
    a_fifo_head_does_not_hang: ".git/HEAD";
    a_fifo_packed_refs_does_not_hang: ".git/packed-refs";
    a_fifo_alternates_does_not_hang: ".git/objects/info/alternates";
    a_fifo_loose_ref_does_not_hang: ".git/refs/heads/main";
    a_fifo_info_exclude_does_not_hang: ".git/info/exclude";
}

#[test]
fn a_fifo_gitignore_in_the_worktree_does_not_hang() {
    let repo = TempRepo::new();
    let (code, json, err) = guard_sh(&repo, &[], "mkfifo src/.gitignore");
    assert_eq!(code, 3, "{err}");
    assert!(has(&json, "status", "src/.gitignore"), "{json:#}");
}

#[test]
fn a_fifo_dot_git_file_does_not_hang() {
    let repo = TempRepo::new();
    let moved = repo.scratch("moved-git");
    let script = format!("mv .git {} && mkfifo .git", moved.display());
    let (code, _json, err) = guard_sh(&repo, &[], &script);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("cannot be read"), "{err}");
}

#[test]
fn an_alternates_chain_ending_in_a_fifo_does_not_hang() {
    let repo = TempRepo::new();
    let stores = tempfile::tempdir().unwrap();
    let mut prev = repo.path().join(".git/objects");
    for i in 0..7 {
        let next = stores.path().join(format!("o{i}"));
        std::fs::create_dir_all(next.join("info")).unwrap();
        std::fs::create_dir_all(prev.join("info")).unwrap();
        std::fs::write(
            prev.join("info/alternates"),
            format!("{}\n", next.display()),
        )
        .unwrap();
        prev = next;
    }
    let fifo = prev.join("info/alternates");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let child = repo
        .cmd()
        .args(["guard", "snapshot"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = finish_within(child, PROMPT, "guard snapshot");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("special file"), "{}", stderr(&out));
}

#[test]
fn a_huge_sparse_untracked_file_is_not_read_whole() {
    let repo = TempRepo::new();
    let huge = repo.path().join("huge.bin");
    let ok = Command::new("truncate")
        .args(["-s", "15T"])
        .arg(&huge)
        .status()
        .unwrap()
        .success();
    assert!(ok, "truncate -s 15T");
    let (code, json, err) = guard_sh(&repo, &[], "true");
    assert_eq!(code, 0, "{json:#} {err}");
    let (code, json, err) = guard_sh(
        &repo,
        &[],
        "printf x | dd of=huge.bin bs=1 seek=1000 conv=notrunc 2>/dev/null",
    );
    assert_eq!(code, 3, "{err}");
    assert!(has(&json, "status", "huge.bin"), "{json:#}");
}

// ---- restore ----

#[test]
fn restore_never_follows_a_linked_info_directory_outside_the_repository() {
    use interview::testing::{GuardScope, restore, save_restore_copies};
    let repo = TempRepo::new();
    let copies = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    for name in ["precious.txt", "notes.md"] {
        std::fs::write(outside.path().join(name), "keep me\n").unwrap();
    }
    let scope = GuardScope {
        worktree: repo.path().to_path_buf(),
        exclude: vec![],
        memo: None,
    };
    save_restore_copies(&scope, copies.path()).unwrap();
    let info = repo.path().join(".git/info");
    std::fs::remove_dir_all(&info).unwrap();
    std::os::unix::fs::symlink(outside.path(), &info).unwrap();
    let summary = restore(&scope, copies.path()).unwrap();
    for name in ["precious.txt", "notes.md"] {
        assert_eq!(
            std::fs::read_to_string(outside.path().join(name)).unwrap(),
            "keep me\n",
            "{name} outside the repository survives: {summary}"
        );
    }
    assert!(
        !outside.path().join("exclude").exists(),
        "nothing written through the link"
    );
    assert!(
        std::fs::symlink_metadata(&info)
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link is left for the person"
    );
    assert!(
        summary
            .failed
            .iter()
            .any(|(p, why)| p.to_string().ends_with(".git/info") && why.contains("link")),
        "the link is reported: {summary}"
    );
}

#[test]
fn restore_in_a_turn_leaves_a_linked_directory_and_a_new_user_config_to_the_person() {
    let repo = TempRepo::new();
    // The local tier stays ignored when `.git/info/exclude` is swapped away.
    repo.write(".gitignore", "/.interview/\n");
    repo.git(&["add", ".gitignore"]);
    repo.git(&["commit", "-q", "-m", "ignore the local tier"]);
    let outside = tempfile::tempdir().unwrap();
    for name in ["precious.txt", "exclude"] {
        std::fs::write(outside.path().join(name), "keep me\n").unwrap();
    }
    let out = Interview::intent(&repo, "7")
        .work_item()
        .runner("links-info-outside.sh")
        .without_sandbox()
        .answers(r#"{ "interview_answers": 1, "decisions": { "guard": "B" } }"#)
        .yes()
        .args(["--on-change", "ask"])
        .runner_env("OUTSIDE_DIR", outside.path())
        .run()
        .exits(3);
    for name in ["precious.txt", "exclude"] {
        assert_eq!(
            std::fs::read_to_string(outside.path().join(name)).unwrap(),
            "keep me\n",
            "{name} behind the link survives: {}",
            out.screen()
        );
    }
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 2);
    let info = repo.path().join(".git/info");
    assert!(
        std::fs::symlink_metadata(&info)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(repo.home().join(".gitconfig").exists(), "{}", out.screen());
    assert!(out.screen().contains("link"), "{}", out.screen());
}

#[test]
fn a_nested_repository_planted_in_a_turn_stops_the_interview() {
    let repo = TempRepo::new();
    let evil = TempRepo::new();
    evil.git(&["config", "core.fsmonitor", "/tmp/evil-fsmonitor"]);
    let out = Interview::intent(&repo, "7")
        .work_item()
        .runner("plants-nested-git.sh")
        .without_sandbox()
        .answers(r#"{ "interview_answers": 1 }"#)
        .yes()
        .runner_env("EVIL_GIT_DIR", evil.path().join(".git"))
        .run()
        .exits(3);
    assert!(
        out.screen().contains("nested repositories"),
        "{}",
        out.screen()
    );
    assert!(out.screen().contains("+ src"), "{}", out.screen());
}

// ---- interview guard -- CMD ----

#[test]
fn a_background_write_after_the_command_exits_is_caught() {
    let repo = TempRepo::new();
    // The background job writes once the command is gone (the guard has reaped it), and then
    // 0.3 s later: the lateness is what is tested, the wait for the exit makes it sure.
    let (code, json, err) = guard_sh(
        &repo,
        &[],
        "p=$$; (while kill -0 $p 2>/dev/null; do sleep 0.01; done; sleep 0.3; echo late > late.txt) & exit 0",
    );
    assert_eq!(code, 3, "{err}");
    assert!(has(&json, "status", "late.txt"), "{json:#}");
}

#[test]
fn a_descendant_that_left_the_group_is_ended_before_the_second_snapshot() {
    let repo = TempRepo::new();
    let mark = repo.scratch("escaped");
    let noted = repo.scratch("escaped.pid");
    // The descendant notes its pid and would write 30 s later; the command exits once the pid
    // is noted, so the descendant surely runs when the guard looks for what is left.
    let script = format!(
        "setsid sh -c 'echo $$ > {noted}; sleep 30; echo late > late.txt; touch {mark}' \
           </dev/null >/dev/null 2>&1 &
         while [ ! -s {noted} ]; do sleep 0.01; done; exit 0",
        noted = noted.display(),
        mark = mark.display()
    );
    let (code, json, err) = guard_sh(&repo, &[], &script);
    let escaped = *pids(&noted).first().expect("the descendant noted its pid");
    let left = alive(escaped);
    if left {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(escaped),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
    assert!(!left, "the escaped descendant {escaped} is still running");
    assert!(!mark.exists(), "the escaped descendant was ended");
    assert!(!repo.path().join("late.txt").exists());
    assert_eq!(code, 0, "{json:#} {err}");
}

#[test]
fn allowed_build_output_is_not_a_change_and_the_rest_still_is() {
    let repo = TempRepo::new();
    repo.write(".gitignore", "target/\n");
    repo.git(&["add", ".gitignore"]);
    repo.git(&["commit", "-q", "-m", "ignore target"]);
    let build = "mkdir -p target/debug && echo bin > target/debug/app && echo gen > generated.txt";
    let (code, json, err) = guard_sh(
        &repo,
        &["--allow", "target/**", "--allow", "generated.txt"],
        build,
    );
    assert_eq!(code, 0, "{json:#} {err}");
    let (code, json, err) = guard_sh(
        &repo,
        &["--allow", "target/**"],
        "echo x > target/y && echo z >> README.md",
    );
    assert_eq!(code, 3, "{err}");
    assert!(has(&json, "status", "README.md"), "{json:#}");
    assert!(!has(&json, "ignored", "target"), "{json:#}");
}

#[test]
fn an_allow_glob_never_hides_git_metadata() {
    let repo = TempRepo::new();
    let (code, json, err) = guard_sh(
        &repo,
        &["--allow", "**"],
        "git config core.fsmonitor /tmp/evil",
    );
    assert_eq!(code, 3, "{err}");
    assert!(has(&json, "git_metadata", "config"), "{json:#}");
}

#[test]
fn guard_allow_in_the_config_is_honoured() {
    let repo = TempRepo::new();
    repo.write(".gitignore", "build/\n");
    repo.write("interview.toml", "guard_allow = [\"build/**\"]\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "config"]);
    let (code, json, err) = guard_sh(&repo, &[], "mkdir -p build && echo o > build/out.o");
    assert_eq!(code, 0, "{json:#} {err}");
}

#[test]
fn the_report_speaks_of_the_command() {
    let repo = TempRepo::new();
    let out = repo
        .cmd()
        .args(["guard", "--", "sh", "-c", "echo x >> README.md"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let err = stderr(&out);
    assert!(err.contains("the command changed the repository"), "{err}");
    assert!(
        !err.contains("runner") && !err.contains("the interview"),
        "{err}"
    );
}

// ---- merges, sparse checkouts ----

#[test]
fn an_edit_of_a_conflicted_file_during_a_merge_is_caught() {
    let repo = TempRepo::new();
    repo.git(&["checkout", "-q", "-b", "other"]);
    repo.write("README.md", "other side\n");
    repo.git(&["commit", "-q", "-am", "other"]);
    repo.git(&["checkout", "-q", "main"]);
    repo.write("README.md", "main side\n");
    repo.git(&["commit", "-q", "-am", "main"]);
    let merge = Command::new("git")
        .args(["merge", "-q", "other"])
        .current_dir(repo.path())
        .env("HOME", repo.home())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(!merge.status.success(), "a conflict");
    let (code, json, err) = guard_sh(&repo, &[], "echo resolved-by-command > README.md");
    assert_eq!(code, 3, "{err}");
    assert!(has(&json, "status", "README.md"), "{json:#}");
}

#[test]
fn deleting_a_skip_worktree_file_is_caught() {
    let repo = TempRepo::new();
    repo.git(&["update-index", "--skip-worktree", "README.md"]);
    let (code, json, err) = guard_sh(&repo, &[], "rm README.md");
    assert_eq!(code, 3, "{err}");
    assert!(has(&json, "status", "README.md"), "{json:#}");
}

// ---- no false alarms ----

#[test]
fn touching_and_same_bytes_rewrites_and_empty_directories_are_not_a_change() {
    let repo = TempRepo::new();
    repo.write(".gitignore", "target/\n");
    repo.write("target/x", "x\n");
    repo.git(&["add", ".gitignore"]);
    repo.git(&["commit", "-q", "-m", "ignore"]);
    repo.git(&["status"]);
    let script = "touch README.md src/lib.rs && cat README.md > r && cat r > README.md && rm r \
                  && mkdir empty-dir && git status >/dev/null && git diff && git log >/dev/null \
                  && git show >/dev/null";
    let (code, json, err) = guard_sh(&repo, &[], script);
    assert_eq!(code, 0, "{json:#} {err}");
    assert!(Path::new(&repo.path().join("empty-dir")).is_dir());
}

// ---- runner.pid ----

#[test]
fn a_runner_pid_file_turned_into_a_fifo_does_not_hang_the_retry() {
    let repo = TempRepo::new();
    let start = Instant::now();
    let out = Interview::intent(&repo, "7")
        .work_item()
        .runner("swaps-pid-file.sh")
        .without_sandbox()
        .answers(r#"{ "interview_answers": 1 }"#)
        .yes()
        .args(["--retries", "1"])
        .runner_env("PID_SWAP", "fifo")
        .run()
        .exits(4);
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "{}",
        out.screen()
    );
}

#[test]
fn a_runner_pid_file_turned_into_a_link_is_never_written_through() {
    let repo = TempRepo::new();
    let target = repo.scratch("outside-target");
    std::fs::write(&target, "precious\n").unwrap();
    Interview::intent(&repo, "7")
        .work_item()
        .runner("swaps-pid-file.sh")
        .without_sandbox()
        .answers(r#"{ "interview_answers": 1 }"#)
        .yes()
        // Warned about, not stopped at: the retry runs and writes its pid file again.
        .args(["--retries", "1", "--on-change", "warn"])
        .runner_env("PID_SWAP", "link")
        .runner_env("PID_TARGET", &target)
        .run()
        .exits(4);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "precious\n");
}

// ---- a signal during a snapshot ----

/// Start `cmd` with the snapshot test hook holding the `nth` snapshot of the process still,
/// wait until it is held, send `signal`, and return how the tool ended (bounded by [`PROMPT`]).
fn signal_during_snapshot(
    repo: &TempRepo,
    mut cmd: Command,
    nth: usize,
    signal: nix::sys::signal::Signal,
) -> Output {
    let mark = repo.scratch("snapshot-paused");
    let child = cmd
        .env("INTERVIEW_TEST_SNAPSHOT_PAUSE", nth.to_string())
        .env("INTERVIEW_TEST_SNAPSHOT_PAUSE_MARK", &mark)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    crate::util::wait_until(crate::util::WAIT, "the snapshot to be held", || {
        mark.exists()
    });
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    nix::sys::signal::kill(pid, signal).unwrap();
    finish_within(child, PROMPT, "the tool after a signal during a snapshot")
}

#[test]
fn a_signal_during_guard_snapshot_exits_130() {
    let repo = TempRepo::new();
    let mut cmd = repo.cmd();
    cmd.args(["guard", "snapshot"]);
    let out = signal_during_snapshot(&repo, cmd, 1, nix::sys::signal::Signal::SIGTERM);
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("interrupted while taking a snapshot"),
        "{}",
        stderr(&out)
    );
}

/// An interview whose first turn's snapshots are what the signal lands in.
fn interview_turn(repo: &TempRepo) -> Command {
    Interview::intent(repo, "7")
        .work_item()
        .runner("honest.sh")
        .without_sandbox()
        .answers(r#"{ "interview_answers": 1 }"#)
        .yes()
        .command()
}

#[test]
fn a_signal_during_the_snapshot_before_a_turn_aborts_the_session_with_130() {
    let repo = TempRepo::new();
    let out = signal_during_snapshot(
        &repo,
        interview_turn(&repo),
        1,
        nix::sys::signal::Signal::SIGINT,
    );
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    let st = repo.state();
    assert_eq!(st["status"], "aborted", "{st:#}");
    assert!(
        repo.events("turn_end").is_empty(),
        "the runner must not have run"
    );
}

#[test]
fn a_signal_during_the_snapshot_after_a_turn_aborts_the_session_with_130() {
    let repo = TempRepo::new();
    let out = signal_during_snapshot(
        &repo,
        interview_turn(&repo),
        2,
        nix::sys::signal::Signal::SIGHUP,
    );
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    let st = repo.state();
    assert_eq!(st["status"], "aborted", "{st:#}");
    assert!(
        st.to_string().contains("not compared"),
        "the note must say the turn was not checked: {st:#}"
    );
}

// ---- what the second snapshot takes over from the first ----

/// Wait until every time (mtime and ctime) of every path of the repository, `.git` included,
/// is more than 2 s old (the guard's settling margin, `src/guard/reuse.rs`). A ctime cannot be
/// set back (only the clock could), so this is a wait for the clock, not for an event; it ends
/// as soon as the newest time is old enough.
fn wait_until_settled(repo: &TempRepo) {
    use std::os::unix::fs::MetadataExt;
    fn newest(path: &Path) -> (i64, i64) {
        let meta = std::fs::symlink_metadata(path).unwrap();
        let mut max = (meta.mtime(), meta.mtime_nsec()).max((meta.ctime(), meta.ctime_nsec()));
        if meta.is_dir() {
            for entry in std::fs::read_dir(path).unwrap() {
                max = max.max(newest(&entry.unwrap().path()));
            }
        }
        max
    }
    let (secs, nanos) = newest(repo.path());
    let settled = std::time::UNIX_EPOCH
        + Duration::new(secs as u64, nanos as u32)
        + Duration::from_millis(2_050);
    wait_until(Duration::from_secs(30), "the repository to settle", || {
        std::time::SystemTime::now() > settled
    });
}

/// The second snapshot takes over the index, directory listings and content hashes whose whole
/// stat is unchanged and was settled (over 2 s old) at the first: an attacker who rewrites each
/// in place, keeping its size and setting its mtime back (`touch -r`), is still caught, since
/// the ctime moved.
#[test]
fn rewrites_that_keep_size_and_restore_mtime_are_caught_after_settling() {
    let repo = TempRepo::new();
    repo.write("untracked.txt", "good!\n");
    repo.write("README.md", "dirty one\n");
    repo.git(&["status"]);
    // Everything must be settled when the first snapshot is taken, so that it is taken over.
    wait_until_settled(&repo);
    let s = repo.scratch("").display().to_string();
    let script = format!(
        "set -e
         touch -r untracked.txt {s}/r1; printf 'evil!\\n' > untracked.txt; touch -r {s}/r1 untracked.txt
         touch -r README.md {s}/r2; printf 'dirty two\\n' > README.md; touch -r {s}/r2 README.md
         touch -r src {s}/r3; echo planted > src/planted.rs; touch -r {s}/r3 src
         touch -r .git/index {s}/r4; cp .git/index {s}/idx
         GIT_INDEX_FILE={s}/idx git update-index --assume-unchanged src/lib.rs
         cat {s}/idx > .git/index; touch -r {s}/r4 .git/index"
    );
    let (code, json, err) = guard_sh(&repo, &[], &script);
    assert_eq!(code, 3, "{json:#} {err}");
    for (category, subject) in [
        ("status", "untracked.txt"),
        ("status", "README.md"),
        ("status", "src/planted.rs"),
        ("index", "src/lib.rs"),
    ] {
        assert!(
            has(&json, category, subject),
            "{category} {subject} not reported: {json:#}"
        );
    }
}

/// And with nothing touched, the same settled repository is no change (what is taken over
/// matches what is read).
#[test]
fn a_settled_repository_left_alone_is_no_change() {
    let repo = TempRepo::new();
    repo.write("untracked.txt", "good!\n");
    repo.write("README.md", "dirty one\n");
    repo.write(".gitignore", "target/\n");
    repo.write("target/debug/x.o", "x\n");
    repo.git(&["status"]);
    wait_until_settled(&repo);
    let (code, json, err) = guard_sh(&repo, &[], "git status >/dev/null");
    assert_eq!(code, 0, "{json:#} {err}");
}
