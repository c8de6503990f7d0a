//! Replaying recorded answers (`--answers FILE`) without a terminal, as CI does.

use crate::util::*;

/// `intent 7` on the work item with the honest runner.
fn honest(repo: &TempRepo) -> Interview<'_> {
    Interview::of_work_item(repo).runner("honest.sh")
}

/// `intent 7` with the honest runner and stdin closed, replaying the answers fixture `name`.
fn replay<'r>(repo: &'r TempRepo, name: &str) -> Interview<'r> {
    honest(repo).answers_file(answers_fixture(name))
}

#[test]
fn an_answers_file_replays_the_interview_without_a_terminal() {
    let repo = TempRepo::new();
    let out = replay(&repo, "honest.json").run().exits(0);
    assert_eq!(
        out.answers(),
        vec![
            answered("deployment_target", "vm"),
            answered("users", "analysts"),
            skipped("encoding"),
        ]
    );
    assert!(repo.path().join(DOCUMENT).is_file());
}

#[test]
fn replayed_prompts_print_nothing_to_wait_on() {
    let repo = TempRepo::new();
    let out = replay(&repo, "honest.json").run();
    let screen = &out.stdout;
    assert!(!screen.contains("Press Enter or type Y"), "{screen}");
    assert!(!screen.contains("Choose A, B"), "{screen}");
}

#[test]
fn a_replayed_gate_n_skips_the_round() {
    let repo = TempRepo::new();
    let out = replay(&repo, "skip-gate.json").run().exits(0);
    assert!(out.answers().is_empty());
    let end = out.events("round_end").into_iter().next().expect("a round");
    assert_eq!(
        end["outcome"]["skip_telemetry"]["skip_reason"],
        "user_skip_entire"
    );
}

#[test]
fn a_missing_answer_exits_5_naming_the_topic_question_and_line_to_add() {
    let repo = TempRepo::new();
    let out = replay(&repo, "honest-missing.json").run().exits(5);
    let err = &out.stderr;
    assert!(err.contains("`users`"), "{err}");
    assert!(err.contains("Who uses the export?"), "{err}");
    assert!(err.contains("\"users\": "), "{err}");
    assert!(err.contains("--missing skip"), "{err}");
    // What was replayed before the gap is kept.
    assert_eq!(out.answers(), vec![answered("deployment_target", "k8s")]);
}

#[test]
fn missing_skip_skips_questions_the_file_does_not_answer() {
    let repo = TempRepo::new();
    let out = replay(&repo, "honest-missing.json")
        .args(["--missing", "skip"])
        .run()
        .exits(0);
    assert_eq!(
        out.answers(),
        vec![
            answered("deployment_target", "k8s"),
            skipped("users"),
            skipped("encoding"),
        ]
    );
    // The log names what to record, so the file can be completed.
    assert!(
        out.stderr
            .contains("skipped 2 question(s) the answers file has no answer for (--missing skip): users, encoding"),
        "{}",
        out.stderr
    );
}

#[test]
fn answers_for_topics_never_asked_are_warned_about() {
    let repo = TempRepo::new();
    let out = replay(&repo, "honest-stale.json").run().exits(0);
    assert!(out.stderr.contains("old_topic"), "{}", out.stderr);
}

#[test]
fn a_missing_decision_exits_5_naming_it() {
    let repo = TempRepo::new();
    let out = replay(&repo, "no-decisions.json").run().exits(5);
    assert!(out.stderr.contains("consent"), "{}", out.stderr);
}

#[test]
fn a_malformed_answers_file_exits_2_naming_file_and_json_path() {
    let repo = TempRepo::new();
    let file = answers_fixture("bad-type.json");
    let out = honest(&repo).answers_file(&file).run().exits(2);
    let err = &out.stderr;
    assert!(err.contains(&format!("{file}: $.answers.users: ")), "{err}");
}

#[test]
fn a_replayed_number_that_picks_no_option_exits_2_naming_the_topic_and_the_file() {
    let repo = TempRepo::new();
    let file = repo.scratch("typo.json");
    std::fs::write(
        &file,
        r#"{ "interview_answers": 1, "answers": { "deployment_target": "7", "users": "ops" } }"#,
    )
    .unwrap();
    let out = honest(&repo).answers_file(&file).yes().run().exits(2);
    let err = &out.stderr;
    assert!(err.contains(&file.display().to_string()), "{err}");
    assert!(err.contains("`deployment_target` with \"7\""), "{err}");
    assert!(err.contains("a number from 1 to 2"), "{err}");
    // Never recorded as an answer.
    assert!(out.answers().is_empty(), "{:?}", out.answers());
}

#[test]
fn a_recorded_session_replays_to_the_same_answers() {
    // Record: a person answers at a terminal.
    let typed = TempRepo::new();
    let mut pty = honest(&typed).args(["--on-change", "warn"]).at_terminal();
    for (prompt, line) in [
        ("N to skip entirely.", ""),
        ("Where will this service run?", "2"),
        ("Who uses the export?", "  analysts "),
        ("N to skip entirely.", "y"),
        ("Which encodings must be supported?", "s"),
    ] {
        pty.expect(prompt);
        pty.answer("> ", line);
    }
    pty.answer("Choose A, B, C or D: ", "a");
    let (code, screen) = pty.finish();
    assert_eq!(code, 0, "{screen}");
    let recorded = typed.session_file("answers.json");
    assert!(
        recorded.contains("\"deployment_target\": \"2\""),
        "{recorded}"
    );

    // Replay it in a fresh clone-like repository, as CI would.
    let ci = TempRepo::new();
    ci.write("ci/answers.json", &recorded);
    let out = honest(&ci)
        .answers_file(ci.path().join("ci/answers.json"))
        .run()
        .exits(0);
    assert_eq!(out.answers(), typed.answers());
}

#[test]
fn replayed_rounds_are_marked_replayed_in_the_telemetry() {
    let repo = TempRepo::new();
    replay(&repo, "honest.json").run().exits(0);
    let rounds = repo.telemetry();
    assert_eq!(rounds.len(), 2);
    assert!(rounds.iter().all(|r| r["replayed"] == true), "{rounds:?}");
}
