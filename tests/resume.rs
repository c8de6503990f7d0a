//! State, resume and the circuit breaker: a session killed at any sub-step is picked up again
//! with no answer lost or asked twice.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::util::*;

fn answer_events(repo: &TempRepo) -> Vec<String> {
    std::fs::read_to_string(repo.session_dir().join("transcript.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["event"] == "answer")
        .map(|v| v["answer"]["question_id"].as_str().unwrap().to_string())
        .collect()
}

fn wait_for_file(path: &Path) {
    let start = Instant::now();
    while !path.exists() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "timed out waiting for {}",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Start an interview with `blocks-once.sh`, answer turn 1, and let `stop` decide where the tool
/// is killed with SIGKILL.
fn start_and_answer_turn_one(repo: &TempRepo, env: &[(&str, &str)]) -> Pty {
    repo.work_item();
    let r = runner("blocks-once.sh");
    let mut pty = Pty::spawn(
        repo,
        &["intent", "7", "--from", "item.md", "--runner", &r, "--yes"],
        env,
    );
    pty.expect("[Y]");
    pty.send_line("y");
    pty.expect("Where will this service run?");
    pty.send_line("1");
    pty.expect("Who uses the export?");
    pty.send_line("analysts");
    pty
}

/// `interview resume` at a terminal: answer whatever turn 2 asks; the interview must finish.
fn resume_to_the_end(repo: &TempRepo) -> String {
    let mut pty = Pty::spawn(repo, &["resume", "--yes"], &[]);
    let mut screen = pty.expect("[Y]");
    pty.send_line("y");
    screen.push_str(&pty.expect("Which encodings must be supported?"));
    pty.send_line("utf-8");
    let (code, rest) = pty.finish();
    screen.push_str(&rest);
    assert_eq!(code, 0, "{screen}");
    screen
}

fn assert_completed_without_loss(repo: &TempRepo, resumed_screen: &str) {
    assert!(
        !resumed_screen.contains("Where will this service run?"),
        "an answered question was asked again:\n{resumed_screen}"
    );
    let st = repo.state();
    assert_eq!(st["status"], "done");
    assert_eq!(st["rounds"][0]["answers"][0]["answer_text"], "k8s");
    assert_eq!(st["rounds"][0]["answers"][1]["answer_text"], "analysts");
    let mut answered = answer_events(repo);
    answered.sort();
    assert_eq!(answered, ["deployment_target", "encoding", "users"]);
    assert!(
        repo.read("docs/interviews/intent-7.md")
            .contains("Where it runs")
    );
}

macro_rules! killed_at {
    ($($name:ident: $pause:literal;)*) => {$(
        #[test]
        fn $name() {
            let repo = TempRepo::new();
            let mark = repo.path().join(".git/paused");
            let mark_env = mark.display().to_string();
            let pty = start_and_answer_turn_one(
                &repo,
                &[("INTERVIEW_TEST_PAUSE", $pause), ("INTERVIEW_TEST_PAUSE_MARK", &mark_env)],
            );
            wait_for_file(&mark);
            pty.kill9();
            assert_ne!(repo.state()["status"], "done");
            let screen = resume_to_the_end(&repo);
            assert_completed_without_loss(&repo, &screen);
        }
    )*};
}

killed_at! {
    sigkill_at_the_brief_then_resume_completes: "brief@2";
    sigkill_at_dispatch_then_resume_completes: "dispatch@2";
    sigkill_at_the_guard_then_resume_completes: "guard@2";
    sigkill_at_the_receipt_then_resume_completes: "receipt@2";
    sigkill_before_the_questions_then_resume_completes: "questions@2";
}

#[test]
fn sigkill_at_synthesis_then_resume_completes() {
    sigkill_at_final_step("synthesis@3");
}

#[test]
fn sigkill_at_consent_then_resume_completes() {
    sigkill_at_final_step("consent@3");
}

fn sigkill_at_final_step(pause: &str) {
    let repo = TempRepo::new();
    let mark = repo.path().join(".git/paused");
    let mark_env = mark.display().to_string();
    let mut pty = start_and_answer_turn_one(
        &repo,
        &[
            ("INTERVIEW_TEST_PAUSE", pause),
            ("INTERVIEW_TEST_PAUSE_MARK", &mark_env),
        ],
    );
    pty.expect("[Y]");
    pty.send_line("y");
    pty.expect("Which encodings must be supported?");
    pty.send_line("utf-8");
    wait_for_file(&mark);
    pty.kill9();
    // Every question was answered: resume only re-runs the last turn.
    let pty = Pty::spawn(&repo, &["resume", "--yes"], &[]);
    let (code, screen) = pty.finish();
    assert_eq!(code, 0, "{screen}");
    let st = repo.state();
    assert_eq!(st["status"], "done");
    let mut answered = answer_events(&repo);
    answered.sort();
    assert_eq!(answered, ["deployment_target", "encoding", "users"]);
    assert!(!screen.contains("Which encodings"), "{screen}");
}

#[test]
fn sigkill_while_the_runner_works_then_resume_ends_it_and_redoes_the_turn() {
    let repo = TempRepo::new();
    let block = repo.path().join(".git/block");
    let mark = repo.path().join(".git/runner-started");
    let pids = repo.path().join(".git/pids");
    std::fs::write(&block, "").unwrap();
    let (b, m, p) = (
        block.display().to_string(),
        mark.display().to_string(),
        pids.display().to_string(),
    );
    let pty = start_and_answer_turn_one(
        &repo,
        &[("TEST_BLOCK", &b), ("TEST_MARK", &m), ("TEST_PIDS", &p)],
    );
    wait_for_file(&mark);
    pty.kill9();
    let runner_pid: i32 = std::fs::read_to_string(&pids)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(
        alive(runner_pid),
        "the orphaned runner should still be there before resume"
    );
    std::fs::remove_file(&block).unwrap();
    let screen = resume_to_the_end(&repo);
    assert!(
        screen.contains("left over from the interrupted run"),
        "{screen}"
    );
    assert!(
        !alive(runner_pid),
        "resume did not end the orphaned runner {runner_pid}"
    );
    assert_completed_without_loss(&repo, &screen);
}

#[test]
fn sigkill_mid_questions_then_resume_asks_only_the_rest() {
    let repo = TempRepo::new();
    let mut pty = repo.intent_at_pty("blocks-once.sh", &["--yes"], &[]);
    pty.expect("[Y]");
    pty.send_line("y");
    pty.expect("Where will this service run?");
    pty.send_line("2");
    pty.expect("Who uses the export?");
    pty.kill9();
    assert_eq!(repo.state()["rounds"][0]["answers"][0]["answer_text"], "vm");

    let mut pty = Pty::spawn(&repo, &["resume", "--yes"], &[]);
    pty.expect("[Y]");
    pty.send_line("y");
    let screen = pty.expect("Who uses the export?");
    assert!(!screen.contains("Where will this service run?"), "{screen}");
    pty.send_line("analysts");
    pty.expect("[Y]");
    pty.send_line("y");
    pty.expect("Which encodings must be supported?");
    pty.send_line("skip");
    let (code, rest) = pty.finish();
    assert_eq!(code, 0, "{rest}");
    let st = repo.state();
    assert_eq!(st["rounds"][0]["answers"][0]["answer_text"], "vm");
    assert_eq!(st["rounds"][0]["answers"][1]["answer_text"], "analysts");
    let mut answered = answer_events(&repo);
    answered.sort();
    assert_eq!(answered, ["deployment_target", "encoding", "users"]);
}

fn fail_three_times(repo: &TempRepo) -> String {
    repo.work_item();
    let answers = repo.path().join(".git/answers.json");
    std::fs::write(&answers, r#"{ "interview_answers": 1, "answers": { "deployment_target": "1", "users": "ops", "encoding": "utf-8" } }"#).unwrap();
    let out = repo.run(&[
        "intent",
        "7",
        "--from",
        "item.md",
        "--runner",
        &runner("no-receipt.sh"),
        "--answers",
        &answers.display().to_string(),
    ]);
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    answers.display().to_string()
}

#[test]
fn the_circuit_breaker_blocks_resume_until_acknowledged() {
    let repo = TempRepo::new();
    let answers = fail_three_times(&repo);
    let honest = runner("honest.sh");
    let blocked = repo.run(&[
        "resume",
        "--answers",
        &answers,
        "--runner",
        &honest,
        "--yes",
    ]);
    assert_eq!(blocked.status.code(), Some(6), "{}", stderr(&blocked));
    let err = stderr(&blocked);
    assert!(err.contains("Auto-retry exhausted"), "{err}");
    assert!(err.contains("--ack"), "{err}");
    assert_eq!(repo.state()["status"], "failed");

    let acked = repo.run(&[
        "resume",
        "--ack",
        "--answers",
        &answers,
        "--runner",
        &honest,
        "--yes",
    ]);
    assert_eq!(acked.status.code(), Some(0), "{}", stderr(&acked));
    let st = repo.state();
    assert_eq!(st["status"], "done");
    assert_eq!(st["retry_count"], 0);
    assert!(st["blockers"].as_array().unwrap().is_empty());
    assert!(st["key_decisions"].to_string().contains("--ack"));
}

#[test]
fn a_new_interview_on_a_subject_with_an_unfinished_session_asks_first() {
    let repo = TempRepo::new();
    let answers = fail_three_times(&repo);
    let out = repo.run(&[
        "intent",
        "7",
        "--from",
        "item.md",
        "--runner",
        &runner("honest.sh"),
        "--answers",
        &answers,
        "--yes",
    ]);
    assert_eq!(out.status.code(), Some(5), "{}", stderr(&out));
    assert!(stderr(&out).contains("\"unfinished\""), "{}", stderr(&out));
}

#[test]
fn a_corrupt_state_file_is_reported_and_left_alone() {
    let repo = TempRepo::new();
    let answers = fail_three_times(&repo);
    let path = repo.session_dir().join("state.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let truncated = &text[..text.len() / 2];
    std::fs::write(&path, truncated).unwrap();
    for args in [
        &["status"][..],
        &["resume", "--ack", "--answers", &answers][..],
    ] {
        let out = repo.run(args);
        assert_ne!(out.status.code(), Some(0), "{args:?}");
        let err = stderr(&out);
        assert!(err.contains("state.json"), "{args:?}: {err}");
    }
    let status = repo.run(&["status"]);
    assert!(
        stderr(&status).contains("corrupt or truncated"),
        "{}",
        stderr(&status)
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        truncated,
        "the state file was rewritten"
    );
}

#[test]
fn a_state_file_from_a_newer_version_is_refused() {
    let repo = TempRepo::new();
    fail_three_times(&repo);
    let path = repo.session_dir().join("state.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    v["version"] = 99.into();
    std::fs::write(&path, v.to_string()).unwrap();
    let out = repo.run(&["status"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("newer"), "{}", stderr(&out));
}

#[test]
fn a_blocked_session_without_a_terminal_or_answers_exits_6_not_2() {
    let repo = TempRepo::new();
    fail_three_times(&repo);
    let out = repo.run(&["resume"]);
    assert_eq!(out.status.code(), Some(6), "{}", stderr(&out));
    assert!(stderr(&out).contains("--ack"), "{}", stderr(&out));
}

#[test]
fn abandoning_a_blocked_session_at_the_breaker_retires_it() {
    let repo = TempRepo::new();
    fail_three_times(&repo);
    let mut pty = Pty::spawn(&repo, &["resume"], &[]);
    let screen = pty.expect("Choose A, B or C");
    assert!(screen.contains("Blocker:"), "{screen}");
    assert!(screen.contains("Auto-retry exhausted"), "{screen}");
    pty.send_line("C");
    let (code, rest) = pty.finish();
    assert_eq!(code, 0, "{rest}");
    assert_eq!(repo.state()["status"], "aborted");
    let again = repo.run(&["resume"]);
    assert_eq!(again.status.code(), Some(2), "{}", stderr(&again));
    assert!(
        stderr(&again).contains("no unfinished session"),
        "{}",
        stderr(&again)
    );
}

#[test]
fn resuming_with_fewer_max_turns_makes_the_current_turn_final() {
    let repo = TempRepo::new();
    repo.work_item();
    let mark = repo.path().join(".git/paused");
    let mark_env = mark.display().to_string();
    let r = runner("honest.sh");
    let mut pty = Pty::spawn(
        &repo,
        &["intent", "7", "--from", "item.md", "--runner", &r, "--yes"],
        &[
            ("INTERVIEW_TEST_PAUSE", "brief@2"),
            ("INTERVIEW_TEST_PAUSE_MARK", &mark_env),
        ],
    );
    pty.expect("[Y]");
    pty.send_line("y");
    pty.expect("Where will this service run?");
    pty.send_line("1");
    pty.expect("Who uses the export?");
    pty.send_line("analysts");
    wait_for_file(&mark);
    pty.kill9();
    // The session stopped in turn 2; resuming with --max-turns 1 must still run turn 2, as the
    // final one (the honest runner then finishes instead of asking).
    let pty = Pty::spawn(&repo, &["resume", "--yes", "--max-turns", "1"], &[]);
    let (code, screen) = pty.finish();
    assert_eq!(code, 0, "{screen}");
    let brief: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo.session_dir().join("turns/002/brief.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(brief["final"], true);
    assert_eq!(repo.state()["status"], "done");
}
