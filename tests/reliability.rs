//! Reliability: one writer per worktree, quiet ends on a closed pipe, resumes that never change
//! the result, capped inputs, atomic documents and sessions, config errors before anything is
//! asked (issue 15's findings, each with the test that failed before its fix).

use std::os::fd::OwnedFd;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::util::{Interview, TempRepo, finish_within, started_paused, stderr, stdout};

const HONEST: &str = r#"{ "interview_answers": 1, "gate": "y",
  "answers": { "deployment_target": "2", "users": "analysts", "encoding": "utf-8" } }"#;

/// A finished session in `repo` (the honest runner, replayed, `--yes`).
fn finished_session(repo: &TempRepo) {
    Interview::of_work_item(repo)
        .runner("honest.sh")
        .answers(HONEST)
        .yes()
        .run()
        .exits(0);
}

/// The write end of a pipe whose read end is already closed: writing to it fails with EPIPE.
fn closed_pipe() -> OwnedFd {
    let (read, write) = nix::unistd::pipe().expect("pipe");
    drop(read);
    write
}

/// Run `cmd` with standard output going to a closed pipe; returns the exit code and stderr.
fn run_into_closed_pipe(mut cmd: std::process::Command) -> (i32, String) {
    let out = cmd
        .stdout(Stdio::from(closed_pipe()))
        .stderr(Stdio::piped())
        .output()
        .expect("run interview");
    (out.status.code().unwrap_or(-1), stderr(&out))
}

// 1. One writer per worktree.

/// A run paused inside its first turn (holding the lock), killed when dropped.
struct Running(std::process::Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start_paused(repo: &TempRepo) -> Running {
    Running(started_paused(
        repo,
        Interview::of_work_item(repo)
            .yes()
            .runner("honest.sh")
            .answers(HONEST)
            .pause_at("dispatch@1"),
    ))
}

#[test]
fn a_second_interview_in_the_same_worktree_is_refused_naming_the_first() {
    let repo = TempRepo::new();
    let first = start_paused(&repo);
    let pid = first.0.id();
    let started = Instant::now();
    let second = Interview::intent(&repo, "8")
        .work_item()
        .runner("honest.sh")
        .answers(HONEST)
        .yes()
        .run();
    assert!(started.elapsed() < Duration::from_secs(10), "not prompt");
    let second = second.exits(1);
    assert!(
        second
            .stderr
            .contains("another interview is running in this worktree"),
        "{}",
        second.stderr
    );
    assert!(
        second.stderr.contains(&format!("pid {pid}")),
        "{}",
        second.stderr
    );
    assert!(second.stderr.contains("intent 7"), "{}", second.stderr);
    // Only the first session exists; nothing of the second was made.
    let sessions = std::fs::read_dir(repo.path().join(".interview/sessions"))
        .unwrap()
        .count();
    assert_eq!(sessions, 1);
}

#[test]
fn resume_and_guard_wait_for_no_running_interview() {
    let repo = TempRepo::new();
    let _first = start_paused(&repo);
    let resume = repo.run(&["resume", "--yes"]);
    assert_eq!(resume.status.code(), Some(1), "{}", stderr(&resume));
    assert!(stderr(&resume).contains("another interview is running"));
    let guard = repo.run(&["guard", "--", "true"]);
    assert_eq!(guard.status.code(), Some(1), "{}", stderr(&guard));
    assert!(stderr(&guard).contains("another interview is running"));
    // A snapshot only reads: it is not refused.
    let snap = repo.run(&["guard", "snapshot"]);
    assert_eq!(snap.status.code(), Some(0), "{}", stderr(&snap));
}

#[test]
fn status_shows_a_running_session_as_running_not_as_one_to_resume() {
    let repo = TempRepo::new();
    let first = start_paused(&repo);
    let out = repo.run(&["status", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["running"]["pid"], first.0.id());
    let action = v["action"].as_str().unwrap();
    assert!(!action.contains("interview resume"), "{action}");
    assert!(action.contains("running now"), "{action}");
    let all = stdout(&repo.run(&["status", "--all"]));
    assert!(all.contains("running"), "{all}");
    drop(first);
    // Once it is gone, the session is one to resume again.
    let v: serde_json::Value =
        serde_json::from_str(&stdout(&repo.run(&["status", "--json"]))).unwrap();
    assert!(v.get("running").is_none());
    assert!(v["action"].as_str().unwrap().contains("interview resume"));
}

// 2. A closed pipe ends the tool quietly.

#[test]
fn a_closed_standard_output_ends_every_printing_command_quietly() {
    let repo = TempRepo::new();
    finished_session(&repo);
    for args in [
        &["status"][..],
        &["status", "--json"],
        &["status", "--all"],
        &["answers"],
        &["stats", "--json"],
        &["stats"],
        &["guard", "snapshot", "--json"],
        &["guard", "snapshot"],
        &["runners"],
    ] {
        let mut cmd = repo.cmd();
        cmd.args(args);
        let (code, err) = run_into_closed_pipe(cmd);
        assert_eq!(code, 0, "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(err.is_empty(), "{args:?} printed on stderr: {err}");
    }
}

#[test]
fn a_document_printed_to_a_closed_pipe_leaves_the_session_resumable() {
    let repo = TempRepo::new();
    let (code, err) = run_into_closed_pipe(
        Interview::of_work_item(&repo)
            .runner("honest.sh")
            .answers(HONEST)
            .yes()
            .out("-")
            .command(),
    );
    assert_eq!(code, 141, "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let state = repo.state();
    assert_eq!(state["status"], "aborted", "{state}");
    // Resumed with a reader, the document is printed.
    let out = Interview::resume(&repo)
        .answers(HONEST)
        .yes()
        .run()
        .exits(0);
    assert!(
        out.stdout.contains("Intent of the work item"),
        "{}",
        out.stdout
    );
    assert_eq!(repo.state()["status"], "done");
}

#[test]
fn verbose_output_to_a_closed_standard_error_does_not_panic() {
    let repo = TempRepo::new();
    let out = Interview::of_work_item(&repo)
        .yes()
        .arg("--verbose")
        .runner("honest.sh")
        .answers(HONEST)
        .command()
        .stdout(Stdio::null())
        .stderr(Stdio::from(closed_pipe()))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(repo.state()["status"], "done");
}

// 3. `skip all` and a skipped gate are saved before they take effect, and honoured on resume.

#[test]
fn skip_all_then_kill_is_kept_on_resume() {
    let repo = TempRepo::new();
    let mut pty = Interview::of_work_item(&repo)
        .runner("honest.sh")
        .yes()
        .pause_at("answered@1")
        .at_terminal();
    pty.answer("[Y]", "y");
    pty.answer("Where will this service run?", "skip all");
    repo.wait_until_paused();
    pty.kill9();
    assert_eq!(repo.state()["rounds"][0]["skipped_all"], true);
    std::fs::remove_file(repo.pause_mark()).unwrap();
    let pty = Interview::resume(&repo).yes().at_terminal();
    let (code, screen) = pty.finish();
    assert_eq!(code, 0, "{screen}");
    // Nothing is asked again: no gate, no question, and the next turn was the final one.
    assert!(!screen.contains("[Y]"), "{screen}");
    assert!(!screen.contains("still to answer"), "{screen}");
    assert_eq!(repo.state()["status"], "done");
}

#[test]
fn a_round_skipped_at_the_gate_then_kill_is_kept_on_resume() {
    let repo = TempRepo::new();
    let mut pty = Interview::of_work_item(&repo)
        .runner("honest.sh")
        .yes()
        .pause_at("gate_skipped@1")
        .at_terminal();
    pty.answer("[Y]", "n");
    repo.wait_until_paused();
    pty.kill9();
    assert_eq!(repo.state()["rounds"][0]["gate_skipped"], true);
    let pty = Interview::resume(&repo).yes().at_terminal();
    let (code, screen) = pty.finish();
    assert_eq!(code, 0, "{screen}");
    assert!(!screen.contains("[Y]"), "{screen}");
    assert_eq!(repo.state()["status"], "done");
}

// 4. A gate shown again on resume is recorded once: what `interview answers` prints replays.

#[test]
fn a_gate_answered_again_on_resume_is_recorded_once_and_the_answers_replay() {
    let repo = TempRepo::new();
    let mut pty = Interview::of_work_item(&repo)
        .runner("honest.sh")
        .yes()
        .at_terminal();
    pty.answer("[Y]", "y");
    pty.answer("Where will this service run?", "2");
    pty.expect("Who uses the export?");
    pty.ctrl_c();
    let (code, screen) = pty.finish();
    assert_eq!(code, 130, "{screen}");

    let mut pty = Interview::resume(&repo).yes().at_terminal();
    pty.answer("[Y]", "y");
    pty.answer("Who uses the export?", "analysts");
    pty.answer("[Y]", "n");
    let (code, screen) = pty.finish();
    assert_eq!(code, 0, "{screen}");

    let printed = repo.run(&["answers"]);
    assert!(printed.status.success(), "{}", stderr(&printed));
    let answers: serde_json::Value = serde_json::from_str(&stdout(&printed)).unwrap();
    assert_eq!(answers["gate"], serde_json::json!(["y", "n"]), "{answers}");

    // Replayed in a fresh clone, it runs to the same end.
    let fresh = TempRepo::new();
    let out = Interview::of_work_item(&fresh)
        .runner("honest.sh")
        .answers(&stdout(&printed))
        .yes()
        .run()
        .exits(0);
    assert_eq!(out.state()["status"], "done");
    assert_eq!(
        fresh.read("docs/interviews/intent-7.md"),
        repo.read("docs/interviews/intent-7.md")
    );
}

// 5. Inputs of any kind are read with a cap and never block.

/// Run `interview` and wait at most `limit` for it; a run that does not end is killed and
/// fails the test.
fn run_bounded(mut cmd: std::process::Command, limit: Duration) -> std::process::Output {
    let child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start interview");
    finish_within(child, limit, "interview")
}

fn fifo(repo: &TempRepo, name: &str) -> std::path::PathBuf {
    let path = repo.scratch(name);
    nix::unistd::mkfifo(&path, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    path
}

#[test]
fn an_endless_answers_file_is_cut_at_its_cap() {
    let repo = TempRepo::new();
    let cmd = Interview::of_work_item(&repo)
        .runner("honest.sh")
        .answers_file("/dev/zero")
        .yes()
        .command();
    let out = run_bounded(cmd, Duration::from_secs(20));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("larger than"), "{}", stderr(&out));
}

#[test]
fn a_fifo_as_answers_file_or_work_item_does_not_block() {
    let repo = TempRepo::new();
    let answers = fifo(&repo, "answers.fifo");
    let cmd = Interview::of_work_item(&repo)
        .runner("honest.sh")
        .answers_file(&answers)
        .yes()
        .command();
    let out = run_bounded(cmd, Duration::from_secs(20));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));

    let item = fifo(&repo, "item.fifo");
    let cmd = Interview::intent(&repo, "7")
        .from(&item)
        .runner("honest.sh")
        .answers(HONEST)
        .yes()
        .command();
    // No writer: read as empty at once, never a wait in open().
    let out = run_bounded(cmd, Duration::from_secs(20));
    assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
}

#[test]
fn an_answers_file_with_a_byte_order_mark_replays() {
    let repo = TempRepo::new();
    Interview::of_work_item(&repo)
        .runner("honest.sh")
        .answers(&format!("\u{feff}{HONEST}"))
        .yes()
        .run()
        .exits(0);
}

// 7. No half-made session can exist, and leftovers do not block status or resume.

fn session_dirs(repo: &TempRepo) -> Vec<String> {
    match std::fs::read_dir(repo.path().join(".interview/sessions")) {
        Ok(entries) => entries
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect(),
        Err(_) => Vec::new(),
    }
}

#[test]
fn bad_settings_leave_no_session_directory() {
    let repo = TempRepo::new();
    for extra in [&["--max-turns", "0"][..], &["--turn-timeout", "0"]] {
        Interview::of_work_item(&repo)
            .runner("honest.sh")
            .answers(HONEST)
            .args(extra)
            .run()
            .exits(2);
    }
    repo.write("interview.toml", "max_turns = 0\n");
    Interview::of_work_item(&repo)
        .runner("honest.sh")
        .answers(HONEST)
        .run()
        .exits(1);
    assert_eq!(session_dirs(&repo), Vec::<String>::new());
    // No session was left: `status` says so, with exit 0 (issue 28: nothing went wrong).
    let status = repo.run(&["status"]);
    assert_eq!(status.status.code(), Some(0), "{}", stderr(&status));
    assert!(stdout(&status).contains("No interview sessions here yet"));
}

#[test]
fn leftovers_of_killed_runs_neither_block_status_nor_resume() {
    let repo = TempRepo::new();
    finished_session(&repo);
    let done = repo.session_dir();
    // A session directory without a state file, newer than any other, and one being made.
    let sessions = repo.path().join(".interview/sessions");
    std::fs::create_dir_all(sessions.join("intent-9-29990101T000000-abcd1234/turns")).unwrap();
    std::fs::create_dir_all(sessions.join(".new-intent-8-20250101T000000-abcd1234/turns")).unwrap();
    let status = repo.run(&["status", "--json"]);
    assert_eq!(status.status.code(), Some(0), "{}", stderr(&status));
    let v: serde_json::Value = serde_json::from_str(&stdout(&status)).unwrap();
    assert_eq!(
        v["session"],
        done.file_name().unwrap().to_string_lossy().as_ref()
    );
    assert!(
        stderr(&status).contains("intent-9-29990101T000000-abcd1234"),
        "the leftover is named: {}",
        stderr(&status)
    );
    let all = stdout(&repo.run(&["status", "--all"]));
    assert!(!all.contains(".new-"), "{all}");
    // The next run clears what a killed run was making.
    Interview::intent(&repo, "8")
        .work_item()
        .runner("honest.sh")
        .answers(HONEST)
        .yes()
        .run()
        .exits(0);
    assert!(!session_dirs(&repo).iter().any(|d| d.starts_with(".new-")));
}

// 9. Configuration errors exit 1 naming the file and the key, before anything is asked.

#[test]
fn config_errors_name_their_file_and_key_and_exit_1_before_anything_is_asked() {
    let repo = TempRepo::new();
    for (file, text, key) in [
        ("interview.toml", "max_turns = 0\n", "max_turns"),
        ("interview.toml", "turn_timeout = 0\n", "turn_timeout"),
        (
            ".interview/config.toml",
            "on_change = \"maybe\"\n",
            "on_change",
        ),
        ("interview.toml", "intent_out = \"\"\n", "intent_out"),
        (
            "interview.toml",
            "intent_out = \"/tmp/x.md\"\n",
            "intent_out",
        ),
    ] {
        let _ = std::fs::remove_file(repo.path().join("interview.toml"));
        let _ = std::fs::remove_file(repo.path().join(".interview/config.toml"));
        repo.write(file, text);
        let out = Interview::of_work_item(&repo)
            .runner("honest.sh")
            .answers(HONEST)
            .yes()
            .run()
            .exits(1);
        assert!(out.stderr.contains(file), "{file}: {}", out.stderr);
        assert!(out.stderr.contains(key), "{key}: {}", out.stderr);
        assert!(
            !session_dirs(&repo).iter().any(|d| d.starts_with("intent-")),
            "{key}: a session was started"
        );
    }
}

// 10. Checks in the right order.

#[test]
fn a_bad_tag_is_reported_before_the_missing_terminal() {
    let repo = TempRepo::new();
    let out = repo.run(&["reflect", "nosuchtag"]);
    assert_ne!(out.status.code(), Some(0));
    let err = stderr(&out);
    assert!(err.contains("nosuchtag"), "{err}");
    assert!(!err.contains("no terminal"), "{err}");
}

#[test]
fn an_output_path_that_is_a_directory_is_refused_before_anything_is_asked() {
    let repo = TempRepo::new();
    repo.write("docs/keep.md", "x\n");
    let out = Interview::of_work_item(&repo)
        .runner("honest.sh")
        .answers(HONEST)
        .out("docs")
        .yes()
        .run()
        .exits(2);
    assert!(out.stderr.contains("is a directory"), "{}", out.stderr);
    assert!(!session_dirs(&repo).iter().any(|d| d.starts_with("intent-")));
}

// 6. Around the document: no stray files in committed folders; a resume after the write
// finishes without asking.

#[test]
fn a_resume_after_the_document_was_written_finishes_without_asking() {
    let repo = TempRepo::new();
    Interview::of_work_item(&repo)
        .runner("honest.sh")
        .answers(HONEST)
        .yes()
        .run()
        .exits(0);
    // As if killed after the write but before the session was marked done.
    let state_path = repo.session_dir().join("state.json");
    let mut st = repo.state();
    st["status"] = "aborted".into();
    st["sub_step"] = "consent".into();
    std::fs::write(&state_path, st.to_string()).unwrap();
    let out = Interview::resume(&repo)
        .answers(HONEST)
        .yes()
        .run()
        .exits(0);
    assert!(!out.stderr.contains("overwrite"), "{}", out.stderr);
    assert_eq!(repo.state()["status"], "done");
    let stray: Vec<_> = std::fs::read_dir(repo.path().join("docs/interviews"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(stray.is_empty(), "{stray:?}");
}

// 8. Modes and links.

#[test]
fn documents_get_normal_modes_never_an_exec_bit_and_links_are_never_written_through() {
    use std::os::unix::fs::PermissionsExt;
    let repo = TempRepo::new();
    repo.write("spec.md", "# Spec\n");
    std::fs::set_permissions(
        repo.path().join("spec.md"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    repo.write("real.md", "# Real\n");
    std::os::unix::fs::symlink("real.md", repo.path().join("link.md")).unwrap();
    let clarify = |spec: &str, code: i32| {
        Interview::of_work_item(&repo)
            .runner("honest.sh")
            .answers(&HONEST.replace(
                "\"gate\": \"y\",",
                "\"gate\": \"y\", \"decisions\": { \"overwrite\": \"A\", \"unfinished\": \"B\" },",
            ))
            .arg("--clarify-into")
            .arg(spec)
            .yes()
            .run()
            .exits(code)
    };
    clarify("spec.md", 0);
    // A link, even to a file inside the repository, is refused before anything is asked.
    let refused = clarify("link.md", 2);
    assert!(
        refused.stderr.contains("symbolic link"),
        "{}",
        refused.stderr
    );
    let mode = |p: &str| {
        std::fs::metadata(repo.path().join(p))
            .unwrap()
            .permissions()
            .mode()
            & 0o7777
    };
    // The rewritten file keeps its read and write bits, never an exec bit (docs/config.md).
    assert_eq!(mode("spec.md"), 0o644);
    assert!(repo.read("spec.md").contains("## Clarifications"));
    assert!(
        std::fs::symlink_metadata(repo.path().join("link.md"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(repo.read("real.md"), "# Real\n");
    let doc_mode = mode("docs/interviews/intent-7.md");
    assert_eq!(
        doc_mode & 0o044,
        0o044,
        "{doc_mode:o}: readable by the group and others"
    );
    let exclude = std::fs::metadata(repo.path().join(".git/info/exclude")).unwrap();
    assert_eq!(exclude.permissions().mode() & 0o044, 0o044);
}
