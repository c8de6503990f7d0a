//! `interview status`: the status summary box for each state, and its stable `--json` form.

use crate::util::*;

/// Snapshot `$text` with what differs between runs filtered out: the session id, the temporary
/// repository's path, ISO 8601 UTC times and the runner's durations become `<session>`, `<repo>`,
/// `<time>` and `<duration>`.
macro_rules! assert_status_snapshot {
    ($repo:expr, $text:expr) => {{
        let id = $repo.session_dir().file_name().unwrap().to_str().unwrap().to_string();
        let (id, path) = (
            regex::escape(&id),
            regex::escape(&$repo.path().display().to_string()),
        );
        insta::with_settings!({filters => [
            (id.as_str(), "<session>"),
            (path.as_str(), "<repo>"),
            (r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z", "<time>"),
            (r"\(\d+\.\d s\)", "(<duration>)"),
            (r#""duration_ms": \d+"#, r#""duration_ms": "<duration>""#),
        ]}, {
            insta::assert_snapshot!($text);
        });
    }};
}

/// `intent 7` on the work item with fixture runner `runner_name`, replaying `ANSWERS` with
/// `--yes`, without a terminal.
fn replay<'r>(repo: &'r TempRepo, runner_name: &str) -> Outcome<'r> {
    Interview::of_work_item(repo)
        .runner(runner_name)
        .answers(ANSWERS)
        .yes()
        .run()
}

const ANSWERS: &str = r#"{ "interview_answers": 1,
  "answers": { "deployment_target": "1", "users": "skip", "encoding": "utf-8" } }"#;

#[test]
fn status_of_a_done_session() {
    let repo = TempRepo::new();
    replay(&repo, "honest.sh").exits(0);
    let status = repo.run(&["status"]);
    assert!(status.status.success());
    assert_status_snapshot!(repo, stdout(&status));
}

#[test]
fn status_of_a_failed_session() {
    let repo = TempRepo::new();
    replay(&repo, "no-receipt.sh").exits(4);
    let status = repo.run(&["status"]);
    assert_status_snapshot!(repo, stdout(&status));
}

#[test]
fn status_of_a_session_aborted_mid_questions() {
    let repo = TempRepo::new();
    let mut pty = Interview::of_work_item(&repo)
        .runner("honest.sh")
        .at_terminal();
    pty.answer("[Y]", "y");
    pty.answer("Where will this service run?", "2");
    pty.expect("Who uses the export?");
    pty.ctrl_c();
    let (code, _) = pty.finish();
    assert_eq!(code, 130);
    let status = repo.run(&["status"]);
    assert_status_snapshot!(repo, stdout(&status));
}

#[test]
fn status_of_a_session_killed_while_waiting_for_the_person() {
    let repo = TempRepo::new();
    let mut pty = Interview::of_work_item(&repo)
        .runner("honest.sh")
        .at_terminal();
    pty.answer("[Y]", "y");
    pty.expect("Where will this service run?");
    pty.kill9();
    let status = repo.run(&["status"]);
    assert_status_snapshot!(repo, stdout(&status));
}

#[test]
fn status_json_is_stable() {
    let repo = TempRepo::new();
    replay(&repo, "honest.sh").exits(0);
    let status = repo.run(&["status", "--json"]);
    let text = stdout(&status);
    let v: serde_json::Value = serde_json::from_str(&text).expect("status --json is JSON");
    assert_eq!(v["status_version"], 1);
    assert_status_snapshot!(repo, text);
}

#[test]
fn status_all_lists_every_session() {
    let repo = TempRepo::new();
    replay(&repo, "honest.sh").exits(0);
    let out = repo.run(&["status", "--all"]);
    let text = stdout(&out);
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.contains("finished"), "{text}");
}

#[test]
fn answers_prints_the_latest_sessions_answers_ready_to_replay() {
    let repo = TempRepo::new();
    replay(&repo, "honest.sh").exits(0);
    let printed = repo.run(&["answers"]);
    assert!(printed.status.success());
    let v: serde_json::Value = serde_json::from_str(&stdout(&printed)).unwrap();
    assert_eq!(v["interview_answers"], 1);
    assert_eq!(v["answers"]["deployment_target"], "1");
    assert_eq!(v["answers"]["users"], "skip");
}

#[test]
fn status_of_a_session_killed_while_the_runner_was_dispatched() {
    let repo = TempRepo::new();
    let pty = Interview::of_work_item(&repo)
        .runner("honest.sh")
        .pause_at("dispatch@1")
        .at_terminal();
    repo.wait_until_paused();
    pty.kill9();
    let status = repo.run(&["status"]);
    assert_status_snapshot!(repo, stdout(&status));
}

#[test]
fn status_without_sessions_is_no_error_and_says_how_to_start() {
    let repo = TempRepo::new();
    let out = repo.run(&["status"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("No interview sessions here yet"),
        "{}",
        stdout(&out)
    );
    assert!(
        stdout(&out).contains("interview intent ID"),
        "{}",
        stdout(&out)
    );
}

/// `--json` too: no session is an empty list (as `--all --json` prints), not a usage error.
#[test]
fn status_json_without_sessions_is_an_empty_list() {
    let repo = TempRepo::new();
    for args in [&["status", "--json"][..], &["status", "--all", "--json"]] {
        let out = repo.run(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        assert_eq!(v, serde_json::json!([]), "{args:?}");
    }
}

#[test]
fn a_turn_that_failed_once_is_counted_right() {
    let repo = TempRepo::new();
    Interview::of_work_item(&repo)
        .runner("no-receipt.sh")
        .answers(r#"{ "interview_answers": 1 }"#)
        .args(["--retries", "0"])
        .run()
        .exits(4);
    let status = stdout(&repo.run(&["status"]));
    assert!(status.contains("turn 1 failed 1 time;"), "{status}");
    assert!(!status.contains("1 times"), "{status}");
}

#[test]
fn answers_to_a_file_says_where_it_wrote_them() {
    let repo = TempRepo::new();
    replay(&repo, "honest.sh").exits(0);
    let file = repo.scratch("my-answers.json");
    let out = repo.run(&["answers", "-o", file.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!("to {}", file.display())),
        "{}",
        stderr(&out)
    );
    assert!(
        std::fs::read_to_string(&file)
            .unwrap()
            .contains("interview_answers")
    );
}
