//! `interview status`: the status summary box for each state, and its stable `--json` form.

use crate::util::*;

/// Replace what differs between runs (session id, times, temporary paths) by placeholders.
fn redact(repo: &TempRepo, text: &str) -> String {
    let id = repo
        .session_dir()
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    let mut out = text.replace(&id, "<session>");
    out = out.replace(&repo.path().display().to_string(), "<repo>");
    // ISO 8601 UTC times: YYYY-MM-DDTHH:MM:SSZ.
    let bytes: Vec<char> = out.chars().collect();
    let mut result = String::new();
    let mut i = 0;
    while i < bytes.len() {
        let window: String = bytes[i..bytes.len().min(i + 20)].iter().collect();
        if window.len() == 20 && is_iso(&window) {
            result.push_str("<time>");
            i += 20;
        } else {
            result.push(bytes[i]);
            i += 1;
        }
    }
    result
}

fn is_iso(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 20
        && b[4] == b'-'
        && b[7] == b'-'
        && b[10] == b'T'
        && b[13] == b':'
        && b[16] == b':'
        && b[19] == b'Z'
        && [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18]
            .iter()
            .all(|&i| b[i].is_ascii_digit())
}

fn replay(repo: &TempRepo, runner_name: &str, answers: &str) -> std::process::Output {
    repo.replay(runner_name, answers, &["--yes"], &[])
}

const ANSWERS: &str = r#"{ "interview_answers": 1,
  "answers": { "deployment_target": "1", "users": "skip", "encoding": "utf-8" } }"#;

#[test]
fn status_of_a_done_session() {
    let repo = TempRepo::new();
    let out = replay(&repo, "honest.sh", ANSWERS);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let status = repo.run(&["status"]);
    assert!(status.status.success());
    insta::assert_snapshot!(redact(&repo, &stdout(&status)));
}

#[test]
fn status_of_a_failed_session() {
    let repo = TempRepo::new();
    let out = replay(&repo, "no-receipt.sh", ANSWERS);
    assert_eq!(out.status.code(), Some(4));
    let status = repo.run(&["status"]);
    insta::assert_snapshot!(redact(&repo, &stdout(&status)));
}

#[test]
fn status_of_a_session_aborted_mid_questions() {
    let repo = TempRepo::new();
    let mut pty = repo.intent_at_pty("honest.sh", &[], &[]);
    pty.expect("[Y]");
    pty.send_line("y");
    pty.expect("Where will this service run?");
    pty.send_line("2");
    pty.expect("Who uses the export?");
    pty.ctrl_c();
    let (code, _) = pty.finish();
    assert_eq!(code, 130);
    let status = repo.run(&["status"]);
    insta::assert_snapshot!(redact(&repo, &stdout(&status)));
}

#[test]
fn status_of_a_session_killed_while_waiting_for_the_person() {
    let repo = TempRepo::new();
    let mut pty = repo.intent_at_pty("honest.sh", &[], &[]);
    pty.expect("[Y]");
    pty.send_line("y");
    pty.expect("Where will this service run?");
    pty.kill9();
    let status = repo.run(&["status"]);
    insta::assert_snapshot!(redact(&repo, &stdout(&status)));
}

#[test]
fn status_json_is_stable() {
    let repo = TempRepo::new();
    let out = replay(&repo, "honest.sh", ANSWERS);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let status = repo.run(&["status", "--json"]);
    let text = redact(&repo, &stdout(&status));
    let v: serde_json::Value = serde_json::from_str(&text).expect("status --json is JSON");
    assert_eq!(v["status_version"], 1);
    insta::assert_snapshot!(text);
}

#[test]
fn status_all_lists_every_session() {
    let repo = TempRepo::new();
    let out = replay(&repo, "honest.sh", ANSWERS);
    assert_eq!(out.status.code(), Some(0));
    let out = repo.run(&["status", "--all"]);
    let text = stdout(&out);
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.contains("done"), "{text}");
}

#[test]
fn answers_prints_the_latest_sessions_answers_ready_to_replay() {
    let repo = TempRepo::new();
    let out = replay(&repo, "honest.sh", ANSWERS);
    assert_eq!(out.status.code(), Some(0));
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
    repo.work_item();
    let mark = repo.path().join(".git/paused");
    let mark_env = mark.display().to_string();
    let r = runner("honest.sh");
    let pty = Pty::spawn(
        &repo,
        &["intent", "7", "--from", "item.md", "--runner", &r],
        &[
            ("INTERVIEW_TEST_PAUSE", "dispatch@1"),
            ("INTERVIEW_TEST_PAUSE_MARK", &mark_env),
        ],
    );
    let start = std::time::Instant::now();
    while !mark.exists() {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(30),
            "never paused"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    pty.kill9();
    let status = repo.run(&["status"]);
    insta::assert_snapshot!(redact(&repo, &stdout(&status)));
}
