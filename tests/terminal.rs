//! Around the questions: shell completions, the man page, `prune`, and messages that say each
//! thing once (docs/person.md, docs/sessions.md, README "Install").

use std::io::Write;
use std::process::{Command, Stdio};

use crate::util::*;

/// Feed `input` to `program args…` and return its output.
fn pipe_into(program: &str, args: &[&str], input: &[u8]) -> std::process::Output {
    let mut child = Command::new(program)
        .args(args)
        .env("MANPAGER", "cat")
        .env("PAGER", "cat")
        .env("MANWIDTH", "100")
        // The C locale, where groff knows no glyph it is not told the name of.
        .env("LC_ALL", "C")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {program}: {e}"));
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

fn have(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn bash_completions_are_valid_bash() {
    let repo = TempRepo::new();
    let out = repo.run(&["completions", "bash"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let script = stdout(&out);
    assert!(script.contains("interview"));
    for command in ["reflect", "intent", "resume", "prune", "completions", "man"] {
        assert!(
            script.contains(command),
            "no {command} in the bash completions"
        );
    }
    let check = pipe_into("bash", &["-n"], script.as_bytes());
    assert!(
        check.status.success(),
        "bash -n rejects the completions: {}",
        stderr(&check)
    );
}

#[test]
fn completions_exist_for_every_documented_shell() {
    let repo = TempRepo::new();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = repo.run(&["completions", shell]);
        assert!(out.status.success(), "{shell}: {}", stderr(&out));
        assert!(stdout(&out).contains("prune"), "{shell}: no prune");
    }
    let out = repo.run(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn the_man_page_renders_with_man() {
    if !prerequisite(have("man"), "`man` (.ci/run installs man-db)") {
        return;
    }
    let repo = TempRepo::new();
    let out = repo.run(&["man"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("\n.TH interview 1"));
    let page = pipe_into("man", &["-l", "-"], &out.stdout);
    assert!(page.status.success(), "man -l: {}", stderr(&page));
    let text = String::from_utf8_lossy(&page.stdout);
    for section in ["NAME", "SYNOPSIS", "OPTIONS", "COMMANDS"] {
        assert!(text.contains(section), "no {section} in:\n{text}");
    }
    assert!(text.contains("interview prune"), "{text}");
    assert!(text.contains("--older-than <DAYS>"), "{text}");
    assert!(
        !stderr(&page).contains("warning"),
        "roff warnings: {}",
        stderr(&page)
    );
}

#[test]
fn a_closed_pipe_is_not_an_error() {
    let repo = TempRepo::new();
    let mut child = repo
        .cmd()
        .arg("man")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
}

#[test]
fn guard_snapshot_help_is_help() {
    let repo = TempRepo::new();
    let out = repo.run(&["guard", "snapshot", "--help"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("--json"), "{}", stdout(&out));
    assert!(stdout(&out).contains("Usage: interview guard snapshot"));
    let out = repo.run(&["guard", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).contains("-- CMD"), "{}", stdout(&out));
}

#[test]
fn guard_snapshot_json_works_either_side_of_the_word() {
    let repo = TempRepo::new();
    for args in [
        ["guard", "snapshot", "--json"],
        ["guard", "--json", "snapshot"],
    ] {
        let out = repo.run(&args);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON snapshot");
        assert!(json.is_object());
    }
}

#[test]
fn guard_without_a_command_says_so_with_one_prefix() {
    let repo = TempRepo::new();
    let out = repo.run(&["guard"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.starts_with("interview: say what to run"), "{err}");
    assert_eq!(err.matches("interview:").count(), 1, "{err}");
}

#[test]
fn outside_a_repository_it_is_said_once() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(bin())
        .arg("status")
        .current_dir(dir.path())
        .env("GIT_CEILING_DIRECTORIES", dir.path().parent().unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert_eq!(err.matches("git repository").count(), 1, "{err}");
    assert!(err.contains("not inside a git repository"), "{err}");
    assert!(err.contains("-C DIR"), "{err}");
}

/// A finished session on `intent ID` (the runner finishes at once; consent by `--yes`).
fn finished_session(repo: &TempRepo, id: &str) {
    Interview::intent(repo, id)
        .work_item()
        .runner("done-at-once.sh")
        .answers(r#"{ "interview_answers": 1 }"#)
        .yes()
        .run()
        .exits(0);
}

/// A failed (so unfinished) session on `intent ID`.
fn failed_session(repo: &TempRepo, id: &str) {
    Interview::intent(repo, id)
        .work_item()
        .runner("no-receipt.sh")
        .answers(r#"{ "interview_answers": 1 }"#)
        .args(["--retries", "0"])
        .run()
        .exits(4);
}

/// Make a session's state look `days` days old.
fn age(repo: &TempRepo, id: &str, days: u64) {
    let state = repo
        .path()
        .join(".interview/sessions")
        .join(id)
        .join("state.json");
    let when = std::time::SystemTime::now() - std::time::Duration::from_secs(days * 86_400);
    filetime::set_file_mtime(&state, filetime::FileTime::from_system_time(when)).unwrap();
}

#[test]
fn prune_removes_finished_sessions_and_keeps_unfinished_ones() {
    let repo = TempRepo::new();
    finished_session(&repo, "7");
    failed_session(&repo, "8");
    let before = repo.session_ids();
    assert_eq!(before.len(), 2);
    let done = before.iter().find(|id| id.starts_with("intent-7")).unwrap();
    let failed = before.iter().find(|id| id.starts_with("intent-8")).unwrap();
    let out = repo.run(&["prune"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let said = stdout(&out);
    assert!(said.contains("Removed 1 finished session(s)"), "{said}");
    assert!(said.contains(done.as_str()), "{said}");
    assert!(!said.contains(failed.as_str()), "{said}");
    assert!(said.contains("1 unfinished"), "{said}");
    assert_eq!(repo.session_ids(), vec![failed.clone()]);
    // The unfinished one is still there to resume.
    let out = repo.run(&["status"]);
    assert!(stdout(&out).contains("failed"), "{}", stdout(&out));
}

#[test]
fn prune_older_than_and_keep_choose_which_finished_sessions_go() {
    let repo = TempRepo::new();
    for id in ["1", "2", "3"] {
        finished_session(&repo, id);
    }
    let ids = repo.session_ids();
    let by = |prefix: &str| ids.iter().find(|i| i.starts_with(prefix)).unwrap().clone();
    let (one, two, three) = (by("intent-1-"), by("intent-2-"), by("intent-3-"));
    age(&repo, &one, 40);
    age(&repo, &two, 35);
    age(&repo, &three, 1);
    let out = repo.run(&["prune", "--older-than", "30", "--keep", "2"]);
    assert!(out.status.success(), "{}", stderr(&out));
    // The two most recent are kept whatever their age; one is old enough to go.
    assert_eq!(repo.session_ids(), vec![two.clone(), three.clone()]);
    assert!(stdout(&out).contains(&one));
    let out = repo.run(&["prune", "--older-than", "30"]);
    assert_eq!(repo.session_ids(), vec![three.clone()]);
    assert!(stdout(&out).contains(&two));
    let out = repo.run(&["prune", "--older-than", "30"]);
    assert!(
        stdout(&out).contains("Nothing to prune"),
        "{}",
        stdout(&out)
    );
    assert_eq!(repo.session_ids(), vec![three]);
}

#[test]
fn prune_deletes_nothing_through_a_linked_tier() {
    let repo = TempRepo::new();
    finished_session(&repo, "7");
    // The tier moved elsewhere and `.interview` replaced by a link to it, as a hostile
    // repository could ship it.
    let elsewhere = tempfile::tempdir().unwrap();
    let target = elsewhere.path().join("tier");
    std::fs::rename(repo.path().join(".interview"), &target).unwrap();
    std::os::unix::fs::symlink(&target, repo.path().join(".interview")).unwrap();
    let out = repo.run(&["prune"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("not a plain directory"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        std::fs::read_dir(target.join("sessions")).unwrap().count(),
        1
    );
}

#[test]
fn a_failed_turn_names_its_log_and_shows_the_runners_last_stderr_lines() {
    let repo = TempRepo::new();
    let out = Interview::of_work_item(&repo)
        .runner("fails-loudly.sh")
        .answers(r#"{ "interview_answers": 1 }"#)
        .run()
        .exits(4);
    let err = &out.stderr;
    let id = repo
        .session_dir()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let log = format!(".interview/sessions/{id}/turns/001/runner.log");
    assert!(err.contains(&format!("its log: {log}\n")), "{err}");
    assert!(repo.path().join(&log).is_file());
    assert!(
        err.contains(
            "the runner failed 4 times the same way at turn 1: the runner exited with status 2: \
             python3: can't open file 'my_runner.py': [Errno 2] No such file or directory\n"
        ),
        "{err}"
    );
    // The lines before it on stderr follow; the one the reason quotes is not said twice.
    assert!(
        err.ends_with("the runner's last lines on stderr:\n    starting the runner\n"),
        "{err}"
    );
    // Said in full once, then once a line per identical failure.
    assert_eq!(
        err.matches("Turn 1 failed (attempt 1 of 4)").count(),
        1,
        "{err}"
    );
    assert_eq!(err.matches("failed again the same way").count(), 2, "{err}");
    assert!(
        !err.contains("some output on stdout"),
        "stdout is not stderr: {err}"
    );
    // One prefix for the one error (the sandbox's own line is another message).
    assert_eq!(err.matches("interview: the runner").count(), 1, "{err}");
    assert!(!err.contains("interview: interview"), "{err}");
}

#[test]
fn a_runner_that_is_not_installed_points_to_interview_runners() {
    let repo = TempRepo::new();
    let out = Interview::of_work_item(&repo)
        .preset("no-such-program-anywhere")
        .answers(r#"{ "interview_answers": 1 }"#)
        .run()
        .exits(1);
    assert!(out.stderr.contains("no such program"), "{}", out.stderr);
    assert!(out.stderr.contains("`interview runners`"), "{}", out.stderr);
    assert!(!out.stderr.contains("os error"), "{}", out.stderr);
}

#[test]
fn ctrl_c_while_the_runner_works_says_how_to_continue() {
    let repo = TempRepo::new();
    let mut pty = Interview::of_work_item(&repo)
        .runner("sleeps-then-asks.sh")
        .env("TEST_SLEEP", "30")
        .at_terminal();
    pty.expect("turn 1 of 5 · sleeps-then-asks.sh");
    pty.ctrl_c();
    let (code, rest) = pty.finish();
    assert_eq!(code, 130, "{rest}");
    let id = repo
        .session_dir()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    assert!(
        rest.contains(&format!(
            "the session is saved: continue with `interview resume {id}`"
        )),
        "{rest}"
    );
}

#[test]
fn the_write_decision_can_show_the_document_first_then_asks_again() {
    let repo = TempRepo::new();
    let mut pty = Interview::of_work_item(&repo)
        .runner("done-at-once.sh")
        .at_terminal();
    let first = pty.answer("Choose A, B, C or D: ", "d");
    assert!(
        first.contains("D) Show the document here first, then decide"),
        "{first}"
    );
    let shown = pty.answer("Choose A, B, C or D: ", "c");
    assert!(
        shown.contains("It exists."),
        "the document was not shown: {shown}"
    );
    assert!(
        shown.contains("DECISION REQUIRED"),
        "not asked again: {shown}"
    );
    let (code, rest) = pty.finish();
    assert_eq!(code, 0, "{rest}");
    assert!(
        rest.contains(
            "Stopped without writing anything: docs/interviews/intent-7.md was not written."
        ),
        "{rest}"
    );
    assert!(!repo.path().join("docs/interviews/intent-7.md").exists());
    // What is recorded for replay is the decision that counted.
    assert_eq!(repo.recorded_answers()["decisions"]["consent"], "c");
}

#[test]
fn a_replayed_show_first_is_a_clear_error_and_old_letters_keep_their_meaning() {
    let repo = TempRepo::new();
    let out = Interview::of_work_item(&repo)
        .runner("done-at-once.sh")
        .answers(r#"{ "interview_answers": 1, "decisions": { "consent": "D" } }"#)
        .run()
        .exits(2);
    assert!(out.stderr.contains("needs a person"), "{}", out.stderr);
    let repo = TempRepo::new();
    Interview::of_work_item(&repo)
        .runner("done-at-once.sh")
        .answers(r#"{ "interview_answers": 1, "decisions": { "consent": "A" } }"#)
        .run()
        .exits(0);
    assert!(repo.path().join("docs/interviews/intent-7.md").exists());
}

#[test]
fn prune_removes_nothing_while_an_interview_runs() {
    let repo = TempRepo::new();
    finished_session(&repo, "7");
    let mut pty = Interview::intent(&repo, "8")
        .work_item()
        .runner("sleeps-then-asks.sh")
        .env("TEST_SLEEP", "0")
        .at_terminal();
    pty.expect("Press Enter or type Y");
    let out = repo.run(&["prune"]);
    assert_ne!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("another interview is running"),
        "{}",
        stderr(&out)
    );
    assert_eq!(repo.session_ids().len(), 2);
    pty.ctrl_c();
    pty.finish();
    let out = repo.run(&["prune"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(repo.session_ids().len(), 1, "the aborted session stays");
}

#[test]
fn status_speaks_to_people_and_json_keeps_the_machine_names() {
    let repo = TempRepo::new();
    finished_session(&repo, "7");
    let out = repo.run(&["status"]);
    let text = stdout(&out);
    assert!(
        text.contains(" Now:     finished at turn 1 of 5\n"),
        "{text}"
    );
    assert!(
        text.contains(" Turns 2–5 not needed: the interview finished early\n"),
        "{text}"
    );
    for jargon in ["SubStep", "SKIPPED", "consent\n", "[DONE]"] {
        assert!(!text.contains(jargon), "{jargon:?} in:\n{text}");
    }
    let json: serde_json::Value =
        serde_json::from_slice(&repo.run(&["status", "--json"]).stdout).unwrap();
    assert_eq!(json["status"], "done");
    assert_eq!(json["sub_step"], "consent");
    assert_eq!(json["turns"][4]["status"], "skipped");
    let all = stdout(&repo.run(&["status", "--all"]));
    assert!(all.contains(" finished "), "{all}");
}

#[test]
fn status_of_a_session_waiting_at_a_question_names_the_question() {
    let repo = TempRepo::new();
    let mut pty = Interview::of_work_item(&repo)
        .runner("honest.sh")
        .at_terminal();
    pty.answer("N to skip entirely.", "y");
    pty.answer("Where will this service run?", "2");
    pty.expect("Who uses the export?");
    let out = repo.run(&["status"]);
    let text = stdout(&out);
    assert!(
        text.contains(" Now:     waiting for you at question 2 of 2 (turn 1)\n"),
        "{text}"
    );
    pty.ctrl_c();
    pty.finish();
}

#[test]
fn a_reflect_document_is_named_after_the_commit_not_head_tilde() {
    let repo = TempRepo::new();
    repo.write("src/lib.rs", "pub fn answer() -> u32 {\n    43\n}\n");
    repo.git(&["commit", "-q", "-am", "change the answer"]);
    let base = repo.git(&["rev-parse", "--short=7", "HEAD~1"]);
    Interview::reflect(&repo, "HEAD~1")
        .runner("done-at-once.sh")
        .answers(r#"{ "interview_answers": 1 }"#)
        .yes()
        .run()
        .exits(0);
    let names: Vec<String> = std::fs::read_dir(repo.path().join("docs/interviews"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
    let re = regex::Regex::new(&format!(
        r"^reflect-{}-\d{{4}}-\d{{2}}-\d{{2}}\.md$",
        base.trim()
    ))
    .unwrap();
    assert!(re.is_match(&names[0]), "{names:?}");
    assert!(!names[0].contains("HEAD"), "{names:?}");
}
