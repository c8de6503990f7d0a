//! The core turn loop: runner dispatch, receipts, retries, the local tier, exit codes.

use std::time::{Duration, Instant};

use crate::util::*;

/// No answers: with no terminal either, nothing is ever asked.
const NO_ANSWERS: &str = r#"{ "interview_answers": 1, "answers": {} }"#;

#[test]
fn version_prints() {
    let repo = TempRepo::new();
    let out = repo.run(&["--version"]);
    assert!(out.status.success());
    assert!(stdout(&out).starts_with("interview "));
}

#[test]
fn a_two_round_interview_ends_in_a_document() {
    let repo = TempRepo::new();
    let mut pty = Interview::of_work_item(&repo)
        .runner("honest.sh")
        .yes()
        .at_terminal();
    pty.answer("[Y]", "y");
    pty.answer("Where will this service run?", "1");
    pty.answer("Who uses the export?", "analysts");
    pty.answer("[Y]", "");
    pty.answer("Which encodings must be supported?", "skip");
    let (code, screen) = pty.finish();
    assert_eq!(code, 0, "screen: {screen}");

    let doc = repo.read(DOCUMENT);
    assert!(doc.starts_with("# Intent of the work item"), "{doc}");
    assert!(doc.contains("README.md:1"), "{doc}");
    // The skipped question no entry covers became an open question.
    assert!(doc.contains("Which encodings must be supported?"), "{doc}");
    // The shared tier never mentions the local tier or the session.
    let session = repo.session_dir();
    let id = session.file_name().unwrap().to_str().unwrap();
    assert!(!doc.contains(".interview") && !doc.contains(id), "{doc}");

    let st = repo.state();
    assert_eq!(st["status"], "done");
    assert_eq!(st["rounds"][0]["answers"][0]["answer_text"], "k8s");
    assert_eq!(st["rounds"][0]["answers"][1]["answer_text"], "analysts");
    assert_eq!(st["rounds"][1]["answers"][0]["skipped"], true);
    for turn in ["001", "002", "003"] {
        let dir = session.join("turns").join(turn);
        assert!(dir.join("brief.md").is_file(), "{turn}/brief.md");
        assert!(dir.join("brief.json").is_file(), "{turn}/brief.json");
        assert!(
            dir.join("out/receipt.json").is_file(),
            "{turn}/out/receipt.json"
        );
        assert!(dir.join("runner.log").is_file(), "{turn}/runner.log");
    }
    assert_eq!(repo.events("answer").len(), 3);
}

#[test]
fn the_local_tier_is_excluded_from_git() {
    let repo = TempRepo::new();
    Interview::of_work_item(&repo)
        .runner("no-receipt.sh")
        .answers(NO_ANSWERS)
        .args(["--retries", "0"])
        .run()
        .exits(4);
    let exclude = repo.read(".git/info/exclude");
    assert!(exclude.lines().any(|l| l == "/.interview/"), "{exclude}");
    let status = repo.git(&["status", "--porcelain", "--untracked-files=all"]);
    assert!(!status.contains(".interview"), "{status}");
}

#[test]
fn the_brief_tells_the_rules_and_the_receipt_path() {
    let repo = TempRepo::new();
    Interview::of_work_item(&repo)
        .runner("no-receipt.sh")
        .answers(NO_ANSWERS)
        .args(["--retries", "0", "--max-turns", "1"])
        .run()
        .exits(4);
    let brief = repo.session_file("turns/001/brief.md");
    assert!(brief.contains("read-only"), "{brief}");
    assert!(brief.contains("out/receipt.json"), "{brief}");
    assert!(brief.contains("final turn"), "{brief}");
    assert!(brief.contains("Export to CSV"), "{brief}");
}

#[test]
fn a_failed_turn_is_retried_three_times_then_exits_4() {
    let repo = TempRepo::new();
    let out = Interview::of_work_item(&repo)
        .runner("no-receipt.sh")
        .answers(NO_ANSWERS)
        .run()
        .exits(4);
    assert!(
        out.screen()
            .contains("failed 4 times the same way at turn 1"),
        "{}",
        out.screen()
    );
    assert_eq!(out.events("turn_failed").len(), 4);
    let st = out.state();
    assert_eq!(st["status"], "failed");
    assert_eq!(st["retry_count"], 3);
    assert_eq!(st["retry_log"].as_array().unwrap().len(), 3);
    assert!(
        st["blockers"][0]
            .as_str()
            .unwrap()
            .contains("Auto-retry exhausted")
    );
    // The reason of the previous failure is fed into the next brief.
    let brief = repo.session_file("turns/001/brief.md");
    assert!(
        brief.contains("previous attempt at this turn failed"),
        "{brief}"
    );
    assert!(brief.contains("no receipt"), "{brief}");
}

#[test]
fn after_exhausted_retries_a_person_chooses_and_stop_keeps_the_session_failed() {
    let repo = TempRepo::new();
    let mut pty = Interview::of_work_item(&repo)
        .runner("no-receipt.sh")
        .at_terminal();
    let screen = pty.answer("Choose A, B or C", "B");
    assert!(screen.contains("DECISION REQUIRED"), "{screen}");
    assert!(screen.contains("A) Retry with a fresh brief"), "{screen}");
    assert!(screen.contains("Recommendation: A"), "{screen}");
    let (code, rest) = pty.finish();
    assert_eq!(code, 4, "{rest}");
    let st = repo.state();
    assert_eq!(st["status"], "failed");
    assert_eq!(st["key_decisions"][0]["id"], "runner_failed");
    assert_eq!(repo.events("turn_failed").len(), 4);
}

#[test]
fn retrying_afresh_after_escalation_runs_the_turn_four_more_times() {
    let repo = TempRepo::new();
    let mut pty = Interview::of_work_item(&repo)
        .runner("no-receipt.sh")
        .args(["--retries", "1"])
        .at_terminal();
    pty.answer("Choose A, B or C", "A");
    pty.answer("Choose A, B or C", "C");
    let (code, rest) = pty.finish();
    assert_eq!(code, 4, "{rest}");
    assert_eq!(repo.events("turn_failed").len(), 4);
    assert_eq!(repo.state()["status"], "aborted");
}

macro_rules! misbehaving {
    ($($name:ident: $script:literal => $fragment:literal;)*) => {$(
        #[test]
        fn $name() {
            let repo = TempRepo::new();
            let out = Interview::of_work_item(&repo).runner($script)
                .answers(NO_ANSWERS)
                .args(["--retries", "1"])
                .run()
                .exits(4);
            let screen = out.screen();
            assert!(
                screen.to_lowercase().contains(&$fragment.to_lowercase()),
                "expected {:?} in:\n{screen}",
                $fragment
            );
            assert_eq!(out.events("turn_failed").len(), 2);
            assert!(!repo.path().join(DOCUMENT).exists());
        }
    )*};
}

misbehaving! {
    bad_json_is_a_named_error: "bad-json.sh" => "json";
    a_missing_receipt_is_a_named_error: "no-receipt.sh" => "no receipt";
    a_non_zero_exit_fails_the_turn: "exit-nonzero.sh" => "exited with status 3";
    an_unknown_field_is_named_with_its_path: "unknown-field.sh" => "$.questions[0].colour";
    a_bad_topic_is_named_with_its_path: "bad-topic.sh" => "$.questions[0].topic";
    six_questions_are_too_many: "too-many-questions.sh" => "$.questions";
    recommended_must_be_an_option_value: "bad-recommended.sh" => "$.questions[0].recommended";
    a_confirmed_entry_must_cite_an_existing_line: "confirmed-missing-path.sh" => "$.entries[0].sources";
    an_oversized_receipt_is_refused: "oversized.sh" => "256";
    a_symlinked_receipt_is_never_followed: "symlink-receipt.sh" => "symbolic link";
}

/// A receipt that is a FIFO (reading it would block forever) is refused, named, without
/// blocking. Under the sandbox the runner cannot even make one (Landlock makes no FIFO); the
/// refusal is what holds without it.
#[test]
fn a_fifo_receipt_is_refused_without_blocking() {
    for (args, fragment) in [
        // Without the sandbox it is made, then removed from out/ and named before it is read.
        (&["--sandbox", "off"][..], "\"receipt.json\" (a fifo)"),
        (&[][..], "mkfifo"),
    ] {
        let repo = TempRepo::new();
        let out = Interview::of_work_item(&repo)
            .runner("fifo-receipt.sh")
            .answers(NO_ANSWERS)
            .args(["--retries", "1"])
            .args(args.iter().copied())
            .run()
            .exits(4);
        let screen = out.screen();
        assert!(
            screen.to_lowercase().contains(fragment),
            "{args:?}: expected {fragment:?} in:\n{screen}"
        );
        assert_eq!(out.events("turn_failed").len(), 2);
        assert!(!repo.path().join(DOCUMENT).exists());
    }
}

#[test]
fn a_hard_linked_receipt_is_refused() {
    // Under the sandbox the link cannot even be made (Landlock refuses a link across
    // directories); without it, the receipt reader refuses the link.
    let repo = TempRepo::new();
    Interview::of_work_item(&repo)
        .runner("hardlink-receipt.sh")
        .answers(NO_ANSWERS)
        .args(["--retries", "1"])
        .run()
        .exits(4);
    let repo = TempRepo::new();
    let out = Interview::of_work_item(&repo)
        .runner("hardlink-receipt.sh")
        .without_sandbox()
        .answers(NO_ANSWERS)
        .args(["--retries", "1"])
        .run()
        .exits(4);
    assert!(
        out.screen().to_lowercase().contains("link"),
        "{}",
        out.screen()
    );
    assert_eq!(out.events("turn_failed").len(), 2);
    assert!(!repo.path().join("docs/interviews/intent-7.md").exists());
}

#[test]
fn asking_on_the_final_turn_fails_the_turn() {
    let repo = TempRepo::new();
    let out = Interview::of_work_item(&repo)
        .runner("ask-on-final.sh")
        .answers(r#"{ "interview_answers": 1, "answers": { "t1": "yes" } }"#)
        .args(["--max-turns", "2", "--retries", "0"])
        .run()
        .exits(4);
    assert!(out.screen().contains("final turn"), "{}", out.screen());
}

#[test]
fn a_runner_that_never_exits_is_stopped_at_the_timeout() {
    let repo = TempRepo::new();
    let pid_file = repo.scratch("test-pids");
    let out = Interview::of_work_item(&repo)
        .runner("never-exits.sh")
        .without_sandbox()
        .answers(NO_ANSWERS)
        .args(["--turn-timeout", "1", "--grace", "1", "--retries", "0"])
        .runner_env("TEST_PIDS", &pid_file)
        .run()
        .exits(4);
    assert!(
        out.screen().contains("did not finish within 1 s"),
        "{}",
        out.screen()
    );
    let pids = pids(&pid_file);
    assert_eq!(pids.len(), 1);
    assert!(pids.iter().all(|&p| !alive(p)), "still alive: {pids:?}");
}

#[test]
fn a_runner_ignoring_sigterm_and_its_children_are_killed() {
    let repo = TempRepo::new();
    let pid_file = repo.scratch("test-pids");
    Interview::of_work_item(&repo)
        .runner("ignores-term.sh")
        .without_sandbox()
        .answers(NO_ANSWERS)
        .args(["--turn-timeout", "1", "--grace", "1", "--retries", "0"])
        .runner_env("TEST_PIDS", &pid_file)
        .run()
        .exits(4);
    let pids = pids(&pid_file);
    assert_eq!(pids.len(), 2, "runner and child recorded: {pids:?}");
    assert!(pids.iter().all(|&p| !alive(p)), "still alive: {pids:?}");
}

#[test]
fn a_setsid_escapee_is_killed_and_reported() {
    let repo = TempRepo::new();
    let pid_file = repo.scratch("test-pids");
    let pty = Interview::of_work_item(&repo)
        .runner("setsid-daemon.sh")
        .without_sandbox()
        .out("-")
        .runner_env("TEST_PIDS", &pid_file)
        .at_terminal();
    let (code, screen) = pty.finish();
    assert_eq!(code, 0, "{screen}");
    assert!(screen.contains("escaped its process group"), "{screen}");
    let pids = pids(&pid_file);
    assert_eq!(pids.len(), 1);
    assert!(!alive(pids[0]), "the daemon {} is still alive", pids[0]);
}

#[test]
fn ctrl_c_during_a_turn_saves_the_session_as_aborted_and_exits_130() {
    let repo = TempRepo::new();
    let pid_file = repo.scratch("test-pids");
    let mark = repo.scratch("turn2-started");
    let mut pty = Interview::of_work_item(&repo)
        .runner("slow-ask.sh")
        .without_sandbox()
        .runner_env("TEST_PIDS", &pid_file)
        .runner_env("TEST_MARK", &mark)
        .at_terminal();
    pty.answer("[Y]", "y");
    pty.answer("First question?", "my first answer");
    wait_until(WAIT, "turn 2 to start", || mark.exists());
    pty.ctrl_c();
    let (code, screen) = pty.finish();
    assert_eq!(code, 130, "{screen}");
    let st = repo.state();
    assert_eq!(st["status"], "aborted");
    assert_eq!(
        st["rounds"][0]["answers"][0]["answer_text"],
        "my first answer"
    );
    let pids = pids(&pid_file);
    assert!(
        pids.iter().all(|&p| !alive(p)),
        "runner still alive: {pids:?}"
    );
}

#[test]
fn nothing_a_runner_prints_reaches_the_terminal_unsanitised() {
    let repo = TempRepo::new();
    let mut pty = Interview::of_work_item(&repo)
        .runner("escapes.sh")
        .arg("--verbose")
        .at_terminal();
    let before_gate = pty.answer("[Y]", "y");
    let shown = pty.expect("red");
    pty.ctrl_c();
    let (_, rest) = pty.finish();
    let screen = format!("{before_gate}[Y]{shown}red{rest}");
    assert!(
        !screen.contains('\u{1b}'),
        "an escape reached the terminal: {screen:?}"
    );
    assert!(
        !screen.contains('\u{202e}'),
        "a bidi control reached the terminal: {screen:?}"
    );
    assert!(screen.contains("hostile output"), "{screen:?}");
}

#[test]
fn without_a_terminal_or_answers_it_stops_at_once() {
    let repo = TempRepo::new();
    let start = Instant::now();
    let out = Interview::of_work_item(&repo)
        .runner("honest.sh")
        .run()
        .exits(2);
    assert!(out.stderr.contains("--answers"), "{}", out.stderr);
    assert!(start.elapsed() < Duration::from_secs(10));
}

#[test]
fn a_second_ctrl_c_kills_the_runner_at_once() {
    let repo = TempRepo::new();
    let pid_file = repo.scratch("test-pids");
    let terms = repo.scratch("test-terms");
    let mut pty = Interview::of_work_item(&repo)
        .runner("ignores-term.sh")
        .without_sandbox()
        .args(["--grace", "60"])
        .runner_env("TEST_PIDS", &pid_file)
        .runner_env("TEST_TERMS", &terms)
        .at_terminal();
    wait_until(WAIT, "the runner and its child to start", || {
        pids(&pid_file).len() == 2
    });
    let start = Instant::now();
    pty.ctrl_c();
    // The second Ctrl+C comes once the tool has acted on the first (the runner got SIGTERM).
    wait_until(WAIT, "the runner to be asked to stop", || terms.exists());
    pty.ctrl_c();
    let (code, screen) = pty.finish();
    assert_eq!(code, 130, "{screen}");
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "the second Ctrl+C did not cut the 60 s grace short"
    );
    let pids = pids(&pid_file);
    assert!(pids.iter().all(|&p| !alive(p)), "still alive: {pids:?}");
    assert_eq!(repo.state()["status"], "aborted");
}

#[test]
fn a_rejected_receipt_lists_its_violations_in_the_transcript() {
    let repo = TempRepo::new();
    let out = Interview::of_work_item(&repo)
        .runner("bad-topic.sh")
        .answers(NO_ANSWERS)
        .args(["--retries", "0"])
        .run()
        .exits(4);
    let rejected = out.events("receipt_rejected");
    assert_eq!(rejected.len(), 1);
    assert_eq!(rejected[0]["violations"][0]["path"], "$.questions[0].topic");
}

#[test]
fn a_runner_cannot_write_to_the_persons_terminal() {
    let repo = TempRepo::new();
    let pty = Interview::of_work_item(&repo)
        .runner("writes-tty.sh")
        .out("-")
        .at_terminal();
    let (code, screen) = pty.finish();
    assert_eq!(code, 0, "{screen}");
    assert!(
        !screen.contains("TTY-WRITE"),
        "the runner wrote to the terminal: {screen:?}"
    );
    assert!(
        !screen.contains('\u{1b}'),
        "an escape reached the terminal: {screen:?}"
    );
    let log = repo.session_file("turns/001/runner.log");
    assert!(!log.contains("reached the terminal"), "{log}");
}

#[test]
fn skipping_at_the_gate_makes_the_next_turn_final() {
    let repo = TempRepo::new();
    Interview::of_work_item(&repo)
        .runner("honest.sh")
        .answers(r#"{ "interview_answers": 1, "gate": "n" }"#)
        .yes()
        .run()
        .exits(0);
    let brief = repo.session_json("turns/002/brief.json");
    assert_eq!(brief["final"], true);
    assert_eq!(brief["rounds"][0]["gate_skipped"], true);
    assert!(!repo.session_dir().join("turns/003").exists());
    // Both questions no entry covers are listed as open questions.
    let doc = repo.read(DOCUMENT);
    assert!(doc.contains("Where will this service run?"), "{doc}");
    assert!(doc.contains("Who uses the export?"), "{doc}");
}

#[test]
fn an_out_dir_swapped_for_a_symlink_is_caught_and_never_followed() {
    let repo = TempRepo::new();
    // The guard sees the swap…
    let out = Interview::of_work_item(&repo)
        .runner("swaps-out-dir.sh")
        .without_sandbox()
        .answers(NO_ANSWERS)
        .run()
        .exits(3);
    assert!(out.screen().contains("out: symlink"), "{}", out.screen());
    // …and even when changes are only warned about, the receipt behind the link is not read.
    let repo = TempRepo::new();
    let out = Interview::of_work_item(&repo)
        .runner("swaps-out-dir.sh")
        .without_sandbox()
        .answers(NO_ANSWERS)
        .args(["--on-change", "warn", "--retries", "0"])
        .run()
        .exits(4);
    assert!(out.screen().contains("/out"), "{}", out.screen());
    assert!(!repo.path().join(DOCUMENT).exists());
}
