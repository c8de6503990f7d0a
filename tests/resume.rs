//! State, resume and the circuit breaker: a session killed at any sub-step is picked up again
//! with no answer lost or asked twice.

use crate::util::*;

/// The three questions of the blocking and honest runners, sorted.
const ALL_TOPICS: [&str; 3] = ["deployment_target", "encoding", "users"];

/// Start an interview with `blocks-once.sh` (`interview` adds flags and environment first),
/// answer turn 1 at the terminal; the test then decides where the tool is killed with SIGKILL.
fn start_and_answer_turn_one(interview: Interview<'_>) -> Pty {
    let mut pty = interview
        .work_item()
        .runner("blocks-once.sh")
        .yes()
        .at_terminal();
    pty.answer("[Y]", "y");
    pty.answer("Where will this service run?", "1");
    pty.answer("Who uses the export?", "analysts");
    pty
}

/// `interview resume` at a terminal: answer whatever turn 2 asks; the interview must finish.
fn resume_to_the_end(repo: &TempRepo) -> String {
    let mut pty = Interview::resume(repo).yes().at_terminal();
    let mut screen = pty.answer("[Y]", "y");
    screen.push_str(&pty.answer("Which encodings must be supported?", "utf-8"));
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
    assert_eq!(repo.answered_topics(), ALL_TOPICS);
    assert!(repo.read(DOCUMENT).contains("Where it runs"));
}

macro_rules! killed_at {
    ($($name:ident: $pause:literal;)*) => {$(
        #[test]
        fn $name() {
            let repo = TempRepo::new();
            let pty = start_and_answer_turn_one(Interview::intent(&repo, "7").pause_at($pause));
            repo.wait_until_paused();
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
    let mut pty = start_and_answer_turn_one(Interview::intent(&repo, "7").pause_at(pause));
    pty.answer("[Y]", "y");
    pty.answer("Which encodings must be supported?", "utf-8");
    repo.wait_until_paused();
    pty.kill9();
    // Every question was answered: resume only re-runs the last turn.
    let pty = Interview::resume(&repo).yes().at_terminal();
    let (code, screen) = pty.finish();
    assert_eq!(code, 0, "{screen}");
    let st = repo.state();
    assert_eq!(st["status"], "done");
    assert_eq!(repo.answered_topics(), ALL_TOPICS);
    assert!(!screen.contains("Which encodings"), "{screen}");
}

#[test]
fn sigkill_while_the_runner_works_then_resume_ends_it_and_redoes_the_turn() {
    let repo = TempRepo::new();
    let block = repo.scratch("block");
    let mark = repo.scratch("runner-started");
    let pids = repo.scratch("pids");
    std::fs::write(&block, "").unwrap();
    // Without the sandbox: under it the runner dies with the tool (tests/sandbox.rs); here the
    // orphan is what resume must end.
    let pty = start_and_answer_turn_one(
        Interview::intent(&repo, "7")
            .without_sandbox()
            .runner_env("TEST_BLOCK", &block)
            .runner_env("TEST_MARK", &mark)
            .runner_env("TEST_PIDS", &pids),
    );
    wait_until(WAIT, "the runner of turn 2 to start", || mark.exists());
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
    let mut pty = Interview::of_work_item(&repo)
        .runner("blocks-once.sh")
        .yes()
        .at_terminal();
    pty.answer("[Y]", "y");
    pty.answer("Where will this service run?", "2");
    pty.expect("Who uses the export?");
    pty.kill9();
    assert_eq!(repo.state()["rounds"][0]["answers"][0]["answer_text"], "vm");

    let mut pty = Interview::resume(&repo).yes().at_terminal();
    pty.answer("[Y]", "y");
    let screen = pty.answer("Who uses the export?", "analysts");
    assert!(!screen.contains("Where will this service run?"), "{screen}");
    pty.answer("[Y]", "y");
    pty.answer("Which encodings must be supported?", "skip");
    let (code, rest) = pty.finish();
    assert_eq!(code, 0, "{rest}");
    let st = repo.state();
    assert_eq!(st["rounds"][0]["answers"][0]["answer_text"], "vm");
    assert_eq!(st["rounds"][0]["answers"][1]["answer_text"], "analysts");
    assert_eq!(repo.answered_topics(), ALL_TOPICS);
}

/// Every question answered, for the runs that fail before any is asked.
const ANSWERS: &str = r#"{ "interview_answers": 1, "answers": { "deployment_target": "1", "users": "ops", "encoding": "utf-8" } }"#;

/// Fail turn 1 four times (three retries) so the circuit breaker is open.
fn fail_three_times(repo: &TempRepo) {
    Interview::of_work_item(repo)
        .runner("no-receipt.sh")
        .answers(ANSWERS)
        .run()
        .exits(4);
}

#[test]
fn the_circuit_breaker_blocks_resume_until_acknowledged() {
    let repo = TempRepo::new();
    fail_three_times(&repo);
    let blocked = Interview::resume(&repo)
        .answers(ANSWERS)
        .runner("honest.sh")
        .yes()
        .run()
        .exits(6);
    assert!(
        blocked.stderr.contains("Auto-retry exhausted"),
        "{}",
        blocked.stderr
    );
    assert!(blocked.stderr.contains("--ack"), "{}", blocked.stderr);
    assert_eq!(repo.state()["status"], "failed");

    let acked = Interview::resume(&repo)
        .arg("--ack")
        .answers(ANSWERS)
        .runner("honest.sh")
        .yes()
        .run()
        .exits(0);
    let st = acked.state();
    assert_eq!(st["status"], "done");
    assert_eq!(st["retry_count"], 0);
    assert!(st["blockers"].as_array().unwrap().is_empty());
    assert!(st["key_decisions"].to_string().contains("--ack"));
}

#[test]
fn a_replay_on_a_subject_with_an_unfinished_session_starts_over_unless_told_to_resume() {
    let repo = TempRepo::new();
    fail_three_times(&repo);
    let before = repo.session_ids();
    let out = Interview::of_work_item(&repo)
        .runner("honest.sh")
        .answers(ANSWERS)
        .yes()
        .run()
        .exits(0);
    assert!(out.stderr.contains("\"unfinished\""), "{}", out.stderr);
    assert!(
        out.stderr.contains("a new session is started"),
        "{}",
        out.stderr
    );
    let after = repo.session_ids();
    assert_eq!(after.len(), before.len() + 1, "{after:?}");
    // The unfinished one is left as it was.
    let old = repo
        .path()
        .join(".interview/sessions")
        .join(&before[0])
        .join("state.json");
    let old: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(old).unwrap()).unwrap();
    assert_ne!(old["status"], "done");
}

#[test]
fn a_new_interview_at_a_terminal_on_a_subject_with_an_unfinished_session_asks_first() {
    let repo = TempRepo::new();
    let mut pty = Interview::of_work_item(&repo)
        .runner("honest.sh")
        .yes()
        .at_terminal();
    pty.expect("N to skip entirely.");
    pty.ctrl_c();
    assert_eq!(pty.finish().0, 130);
    let mut pty = Interview::of_work_item(&repo)
        .runner("honest.sh")
        .yes()
        .at_terminal();
    pty.expect("an unfinished session on intent 7 exists");
    pty.answer("Choose A, B or C", "C");
    let (_, screen) = pty.finish();
    assert!(!screen.contains("Where will this service run?"), "{screen}");
}

/// Issue 37: what a replay (CI) left unfinished is not offered at a terminal, whose run starts
/// afresh and says so; `interview resume` still continues it from its answers file.
#[test]
fn a_replays_leftover_is_not_offered_at_a_terminal_and_said_to_be_one() {
    let repo = TempRepo::new();
    fail_three_times(&repo);
    let leftover = repo.session_ids();
    let mut pty = Interview::of_work_item(&repo)
        .runner("honest.sh")
        .yes()
        .at_terminal();
    let screen = pty.answer("N to skip entirely.", "n");
    let (code, rest) = pty.finish();
    assert_eq!(code, 0, "{screen}{rest}");
    assert!(!screen.contains("DECISION REQUIRED"), "{screen}");
    assert!(
        screen.contains(&format!("Session {} is a replay's leftover", leftover[0])),
        "{screen}"
    );
    Interview::resume(&repo)
        .arg(&leftover[0])
        .arg("--ack")
        .answers(ANSWERS)
        .runner("honest.sh")
        .yes()
        .out("resumed.md")
        .run()
        .exits(0);
}

#[test]
fn a_corrupt_state_file_is_reported_and_left_alone() {
    let repo = TempRepo::new();
    fail_three_times(&repo);
    let path = repo.session_dir().join("state.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let truncated = &text[..text.len() / 2];
    std::fs::write(&path, truncated).unwrap();
    let status = repo.run(&["status"]);
    let resume = Interview::resume(&repo).arg("--ack").answers(ANSWERS).run();
    for (what, code, err) in [
        ("status", status.status.code(), stderr(&status)),
        ("resume --ack", Some(resume.code), resume.stderr.clone()),
    ] {
        assert_ne!(code, Some(0), "{what}");
        assert!(err.contains("state.json"), "{what}: {err}");
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
    let mut v = repo.state();
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
    let out = Interview::resume(&repo).run().exits(6);
    assert!(out.stderr.contains("--ack"), "{}", out.stderr);
}

#[test]
fn abandoning_a_blocked_session_at_the_breaker_retires_it() {
    let repo = TempRepo::new();
    fail_three_times(&repo);
    let mut pty = Interview::resume(&repo).at_terminal();
    let screen = pty.answer("Choose A, B or C", "C");
    assert!(screen.contains("Blocker:"), "{screen}");
    assert!(screen.contains("Auto-retry exhausted"), "{screen}");
    let (code, rest) = pty.finish();
    assert_eq!(code, 0, "{rest}");
    assert_eq!(repo.state()["status"], "aborted");
    let again = Interview::resume(&repo).run().exits(2);
    assert!(
        again.stderr.contains("no unfinished session"),
        "{}",
        again.stderr
    );
}

#[test]
fn resuming_with_fewer_max_turns_makes_the_current_turn_final() {
    let repo = TempRepo::new();
    let mut pty = Interview::of_work_item(&repo)
        .runner("honest.sh")
        .yes()
        .pause_at("brief@2")
        .at_terminal();
    pty.answer("[Y]", "y");
    pty.answer("Where will this service run?", "1");
    pty.answer("Who uses the export?", "analysts");
    repo.wait_until_paused();
    pty.kill9();
    // The session stopped in turn 2; resuming with --max-turns 1 must still run turn 2, as the
    // final one (the honest runner then finishes instead of asking).
    let pty = Interview::resume(&repo)
        .yes()
        .args(["--max-turns", "1"])
        .at_terminal();
    let (code, screen) = pty.finish();
    assert_eq!(code, 0, "{screen}");
    let brief = repo.session_json("turns/002/brief.json");
    assert_eq!(brief["final"], true);
    assert_eq!(repo.state()["status"], "done");
}

/// What these tests call the latest session (`TempRepo::session_dir`) is the one made last, not
/// the greatest id: two sessions begun in the same second sort by their random part.
#[test]
fn the_latest_session_is_the_one_made_last_not_the_greatest_id() {
    let repo = TempRepo::new();
    let sessions = repo.path().join(".interview/sessions");
    let (first, second) = (
        "intent-7-20260101T000000-ffffffff",
        "intent-7-20260101T000000-00000000",
    );
    std::fs::create_dir_all(sessions.join(first)).unwrap();
    // A command looks at the sessions before it runs (this one only prints the version).
    let out = repo.cmd().arg("--version").output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    std::fs::create_dir_all(sessions.join(second)).unwrap();
    assert_eq!(repo.session_dir(), sessions.join(second));
}
