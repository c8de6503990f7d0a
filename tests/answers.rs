//! Issue 24: answers are never lost nor misplaced. Ctrl+C at the entry gate and `resume` come
//! back to that gate; a work item with no text is refused before anything starts.

use crate::util::*;

/// The built-in interviewer on a vague work item, which it asks about (`intent 7`).
fn builtin_intent(repo: &TempRepo) -> Interview<'_> {
    repo.write(
        "item.md",
        "# Export\n\nThe export should be fast, maybe CSV, details TBD.\n",
    );
    Interview::intent(repo, "7")
        .from("item.md")
        .preset("builtin")
}

/// Ctrl+C at the first gate of `interview`, at a terminal: exit 130, the round not skipped.
fn interrupted_at_the_gate(repo: &TempRepo, interview: Interview<'_>) {
    let mut pty = interview.at_terminal();
    pty.expect("N to skip entirely.");
    pty.ctrl_c();
    let (code, screen) = pty.finish();
    assert_eq!(code, 130, "{screen}");
    let state = repo.state();
    assert_eq!(state["status"], "aborted", "{state}");
    assert_eq!(state["rounds"][0]["gate_skipped"], false, "{state}");
    assert_eq!(state["final_next"], false, "{state}");
}

#[test]
fn ctrl_c_at_the_gate_then_resume_shows_that_gate_again_and_skips_nothing() {
    let repo = TempRepo::new();
    interrupted_at_the_gate(
        &repo,
        Interview::of_work_item(&repo).runner("honest.sh").yes(),
    );

    let mut pty = Interview::resume(&repo).yes().at_terminal();
    pty.answer("N to skip entirely.", "y");
    pty.answer("Where will this service run?", "2");
    pty.answer("Who uses the export?", "analysts");
    // The runner's second round still comes: the first was not skipped.
    pty.answer("N to skip entirely.", "y");
    pty.answer("Which encodings must be supported?", "utf-8");
    let (code, screen) = pty.finish();
    assert_eq!(code, 0, "{screen}");
    assert_eq!(
        repo.answers(),
        vec![
            answered("deployment_target", "vm"),
            answered("users", "analysts"),
            answered("encoding", "utf-8"),
        ]
    );
    let doc = repo.read(DOCUMENT);
    assert!(!doc.contains("skipped the questions"), "{doc}");
}

#[test]
fn ctrl_c_at_the_builtin_interviewers_gate_then_resume_asks_its_questions() {
    let repo = TempRepo::new();
    interrupted_at_the_gate(&repo, builtin_intent(&repo).yes().out("-"));

    let mut pty = Interview::resume(&repo).yes().at_terminal();
    pty.answer("N to skip entirely.", "y");
    let screen = pty.expect("Q&A Progress — Question 1 of");
    assert!(!screen.contains("skipped"), "{screen}");
    pty.ctrl_c();
    pty.finish();
    assert_eq!(repo.state()["rounds"][0]["gate_skipped"], false);
}

#[test]
fn ctrl_c_at_the_gate_of_a_reflect_interview_then_resume_asks_its_questions() {
    let repo = TempRepo::new();
    repo.commit_files(&["a", "b", "c"]);
    interrupted_at_the_gate(
        &repo,
        Interview::reflect(&repo, "HEAD~3")
            .preset("builtin")
            .yes()
            .out("-"),
    );

    let mut pty = Interview::resume(&repo).yes().at_terminal();
    pty.answer("N to skip entirely.", "y");
    pty.expect("Q&A Progress — Question 1 of");
    pty.ctrl_c();
    pty.finish();
    assert_eq!(repo.state()["rounds"][0]["gate_skipped"], false);
}

// 1. Earlier answers carried into a re-run; 5. every answer in the document.

/// The honest runner at a terminal, `--yes`: round 1 answered (`vm`, `analysts`), round 2
/// skipped at its gate; the document is written with `encoding` open.
fn first_interview_leaving_encoding_open(repo: &TempRepo) {
    let mut pty = Interview::of_work_item(repo)
        .runner("honest.sh")
        .yes()
        .at_terminal();
    pty.answer("N to skip entirely.", "y");
    pty.answer("Where will this service run?", "2");
    pty.answer("Who uses the export?", "analysts");
    pty.answer("N to skip entirely.", "n");
    let (code, screen) = pty.finish();
    assert_eq!(code, 0, "{screen}");
    let doc = repo.read(DOCUMENT);
    assert!(doc.contains("## Open questions"), "{doc}");
}

/// The re-run at a terminal: only `encoding` is asked; the earlier document is overwritten.
fn re_run_answering_encoding(repo: &TempRepo, carried_from: &str) -> String {
    let mut pty = Interview::of_work_item(repo)
        .runner("honest.sh")
        .yes()
        .at_terminal();
    let mut screen = pty.expect(&format!("2 answer(s) carried from {carried_from}"));
    screen.push_str(&pty.answer("N to skip entirely.", "y"));
    screen.push_str(&pty.answer("Which encodings must be supported?", "utf-8"));
    screen.push_str(&pty.answer("Choose A, B or C", "A"));
    let (code, rest) = pty.finish();
    screen.push_str(&rest);
    assert_eq!(code, 0, "{screen}");
    assert!(
        !screen.contains("has 2 clarifying question(s)"),
        "round 1 was asked again:\n{screen}"
    );
    assert!(screen.contains("has 1 clarifying question(s)"), "{screen}");
    screen
}

/// Every answer, old and new, in the person's words; where the carried ones came from is the
/// session's (and the screen's), not the document's: a replay of the same answers writes it.
fn assert_every_answer_is_in(doc: &str) {
    for text in [
        "Q: Where will this service run?",
        "A: One VM (vm)",
        "Q: Who uses the export?",
        "A: analysts",
        "Q: Which encodings must be supported?",
        "A: utf-8",
    ] {
        assert!(doc.contains(text), "{text} missing:\n{doc}");
    }
    assert!(!doc.contains("Answered in an earlier interview"), "{doc}");
    assert!(!doc.contains("records the person's answer at"), "{doc}");
    assert!(!doc.contains("## Open questions"), "{doc}");
}

/// The latest session's answers, recorded as typed, replayed: the very document of `DOCUMENT`.
fn assert_the_recorded_answers_replay_to_the_document(repo: &TempRepo) {
    let printed = repo.run(&["answers", "intent", "7"]);
    assert!(printed.status.success(), "{}", stderr(&printed));
    let recorded = repo.scratch("re-run.json");
    std::fs::write(&recorded, &printed.stdout).unwrap();
    let file: serde_json::Value = serde_json::from_slice(&printed.stdout).unwrap();
    assert_eq!(
        file["answers"]["deployment_target"], "2",
        "a carried option is recorded as the number typed: {file}"
    );
    Interview::of_work_item(repo)
        .runner("honest.sh")
        .answers_file(&recorded)
        .yes()
        .out("replayed.md")
        .run()
        .exits(0);
    assert_eq!(repo.read("replayed.md"), repo.read(DOCUMENT));
}

#[test]
fn a_re_run_carries_the_earlier_answers_and_asks_only_what_is_open() {
    let repo = TempRepo::new();
    first_interview_leaving_encoding_open(&repo);
    re_run_answering_encoding(&repo, "the interview of ");
    assert_every_answer_is_in(&repo.read(DOCUMENT));
    assert_the_recorded_answers_replay_to_the_document(&repo);

    // Nothing is open now: a third run asks nothing and writes the same document again.
    let before = repo.read(DOCUMENT);
    let mut pty = Interview::of_work_item(&repo)
        .runner("honest.sh")
        .yes()
        .at_terminal();
    pty.expect("3 answer(s) carried from the interview of");
    let (code, screen) = pty.finish();
    assert_eq!(code, 0, "{screen}");
    assert!(!screen.contains("clarifying question"), "{screen}");
    assert_eq!(repo.read(DOCUMENT), before);
}

/// The one reflect document in docs/interviews/.
fn reflect_document(repo: &TempRepo) -> String {
    let dir = repo.path().join("docs/interviews");
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("reflect-"))
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
    repo.read(&format!("docs/interviews/{}", names[0]))
}

#[test]
fn a_reflect_re_run_carries_the_earlier_answers_too() {
    let repo = TempRepo::new();
    repo.commit_files(&["a", "b", "c"]);
    Interview::reflect(&repo, "HEAD~3")
        .preset("builtin")
        .answers(
            r#"{ "interview_answers": 1, "answers": { "untested_changes": "2", "went_well": "small commits" } }"#,
        )
        .args(["--missing", "skip"])
        .yes()
        .run()
        .exits(0);
    assert!(reflect_document(&repo).contains("## Open questions"));

    let mut pty = Interview::reflect(&repo, "HEAD~3")
        .preset("builtin")
        .yes()
        .at_terminal();
    let mut screen = pty.expect("2 answer(s) carried from the interview of");
    screen.push_str(&pty.answer("N to skip entirely.", "y"));
    screen.push_str(&pty.answer("What drove that?", "3"));
    screen.push_str(&pty.answer("do differently", "smaller releases"));
    screen.push_str(&pty.answer("Choose A, B or C", "A"));
    let (code, rest) = pty.finish();
    screen.push_str(&rest);
    assert_eq!(code, 0, "{screen}");
    assert!(screen.contains("has 2 clarifying question(s)"), "{screen}");
    let doc = reflect_document(&repo);
    for text in ["small commits", "smaller releases"] {
        assert!(doc.contains(text), "{text} missing:\n{doc}");
    }
    assert!(!doc.contains("Answered in an earlier interview"), "{doc}");
    assert!(!doc.contains("## Open questions"), "{doc}");
}

#[test]
fn without_the_earlier_session_the_answers_are_read_back_from_the_tools_document() {
    let repo = TempRepo::new();
    first_interview_leaving_encoding_open(&repo);
    std::fs::remove_dir_all(repo.path().join(".interview/sessions")).unwrap();
    re_run_answering_encoding(&repo, "docs/interviews/intent-7.md as it was on ");
    assert_every_answer_is_in(&repo.read(DOCUMENT));
    assert_the_recorded_answers_replay_to_the_document(&repo);
}

#[test]
fn a_runner_that_drops_the_answers_still_gives_a_document_with_them() {
    // The honest runner's final receipt cites no answer at all.
    let repo = TempRepo::new();
    Interview::of_work_item(&repo)
        .runner("honest.sh")
        .answers_file(answers_fixture("honest.json"))
        .yes()
        .run()
        .exits(0);
    let doc = repo.read(DOCUMENT);
    for text in [
        "Q: Where will this service run?",
        "A: One VM (vm)",
        "Q: Who uses the export?",
        "A: analysts",
        "Sources: answer to `users`",
    ] {
        assert!(doc.contains(text), "{text} missing:\n{doc}");
    }
    assert!(!doc.contains("Answered in an earlier interview"), "{doc}");
}

#[test]
fn a_replay_carries_nothing_from_an_earlier_interview() {
    let repo = TempRepo::new();
    first_interview_leaving_encoding_open(&repo);
    let out = Interview::of_work_item(&repo)
        .runner("honest.sh")
        .answers(r#"{ "interview_answers": 1, "gate": "n", "decisions": { "overwrite": "A" } }"#)
        .yes()
        .run()
        .exits(0);
    assert!(!out.screen().contains("carried"), "{}", out.screen());
    let doc = repo.read(DOCUMENT);
    assert!(!doc.contains("A: analysts"), "{doc}");
}

// 7. A failure no retry can fix.

#[test]
fn a_prompt_too_long_is_not_retried_and_a_replay_exits_4_saying_it_once() {
    let repo = TempRepo::new();
    let out = Interview::of_work_item(&repo)
        .runner("prompt-too-long.sh")
        .answers(r#"{ "interview_answers": 1 }"#)
        .yes()
        .run()
        .exits(4);
    assert_eq!(out.events("turn_failed").len(), 1, "{}", out.stderr);
    let err = &out.stderr;
    assert!(err.contains("failed 1 time at turn 1"), "{err}");
    assert!(err.contains("a retry cannot fix"), "{err}");
    assert_eq!(err.matches("prompt is too long").count(), 1, "{err}");
}

#[test]
fn a_prompt_too_long_goes_straight_to_the_persons_decision() {
    let repo = TempRepo::new();
    let mut pty = Interview::of_work_item(&repo)
        .runner("prompt-too-long.sh")
        .yes()
        .at_terminal();
    let screen = pty.expect("Choose A, B or C");
    assert_eq!(screen.matches("prompt is too long").count(), 1, "{screen}");
    assert!(!screen.contains("attempt 2"), "{screen}");
    assert!(
        screen.contains("the runner failed 1 time at turn 1; what now?"),
        "{screen}"
    );
    assert!(screen.contains("Recommendation: B"), "{screen}");
    pty.send_line("B");
    let (code, rest) = pty.finish();
    assert_eq!(code, 4, "{rest}");
    assert_eq!(repo.events("turn_failed").len(), 1);
}

// 4. Sessions that cannot go on.

#[test]
fn a_session_whose_runner_cannot_start_is_closed_and_prune_removes_it() {
    let repo = TempRepo::new();
    Interview::of_work_item(&repo)
        .preset("no-such-program-anywhere")
        .answers(r#"{ "interview_answers": 1 }"#)
        .run()
        .exits(1);
    let state = repo.state();
    assert_eq!(state["status"], "failed", "{state}");
    assert!(state["closed"].is_string(), "{state}");
    let all = stdout(&repo.run(&["status", "--all"]));
    assert!(all.contains("closed"), "{all}");
    assert!(!all.contains("in progress"), "{all}");
    // Not offered for resuming.
    let resume = repo.run(&["resume", "--yes"]);
    assert_eq!(resume.status.code(), Some(2), "{}", stderr(&resume));
    let pruned = stdout(&repo.run(&["prune"]));
    assert!(pruned.contains("(closed)"), "{pruned}");
    assert!(repo.session_ids().is_empty());
}

#[test]
fn a_resume_called_without_a_terminal_does_not_close_the_session() {
    let repo = TempRepo::new();
    interrupted_at_the_gate(
        &repo,
        Interview::of_work_item(&repo).runner("honest.sh").yes(),
    );
    Interview::resume(&repo).yes().run().exits(2);
    let state = repo.state();
    assert!(state["closed"].is_null(), "{state}");
    assert_ne!(state["status"], "done", "{state}");
    let mut pty = Interview::resume(&repo).yes().at_terminal();
    pty.expect("N to skip entirely.");
    pty.ctrl_c();
    pty.finish();
}

#[test]
fn prune_unfinished_removes_sessions_without_an_answer_and_keeps_those_with_one() {
    let repo = TempRepo::new();
    // Stopped at the gate: nothing typed.
    let mut pty = Interview::of_work_item(&repo)
        .runner("honest.sh")
        .yes()
        .at_terminal();
    pty.expect("N to skip entirely.");
    pty.ctrl_c();
    pty.finish();
    let empty = repo.session_ids();
    // Stopped with one answer given.
    let mut pty = Interview::intent(&repo, "8")
        .work_item()
        .runner("honest.sh")
        .yes()
        .at_terminal();
    pty.answer("N to skip entirely.", "y");
    pty.answer("Where will this service run?", "2");
    pty.expect("Who uses the export?");
    pty.ctrl_c();
    pty.finish();
    assert_eq!(repo.session_ids().len(), 2);

    let kept = stdout(&repo.run(&["prune"]));
    assert_eq!(repo.session_ids().len(), 2, "{kept}");
    let pruned = stdout(&repo.run(&["prune", "--unfinished"]));
    assert!(pruned.contains(&empty[0]), "{pruned}");
    let left = repo.session_ids();
    assert_eq!(left.len(), 1, "{pruned}");
    assert!(left[0].starts_with("intent-8-"), "{left:?}");
}

#[test]
fn resuming_a_printed_replay_at_a_terminal_writes_the_document_instead_of_printing_it() {
    let repo = TempRepo::new();
    killed_when_paused(
        &repo,
        Interview::of_work_item(&repo)
            .runner("honest.sh")
            .answers(
                r#"{ "interview_answers": 1, "answers": { "deployment_target": "1", "users": "ops", "encoding": "utf-8" } }"#,
            )
            .yes()
            .out("-")
            .pause_at("dispatch@3"),
    );
    let pty = Interview::resume(&repo).yes().at_terminal();
    let (code, screen) = pty.finish();
    assert_eq!(code, 0, "{screen}");
    assert!(!screen.contains("## Declared by the person"), "{screen}");
    assert!(repo.read(DOCUMENT).contains("A: ops"));
}

// 9. A work item with no text.

#[test]
fn an_empty_work_item_file_is_refused_naming_it() {
    let repo = TempRepo::new();
    repo.write("empty.md", " \n\n");
    let out = Interview::intent(&repo, "7")
        .from("empty.md")
        .runner("honest.sh")
        .answers(r#"{ "interview_answers": 1 }"#)
        .yes()
        .run()
        .exits(2);
    assert!(
        out.stderr.contains("work item empty.md is empty"),
        "{}",
        out.stderr
    );
    assert!(repo.session_ids().is_empty(), "no session for nothing");
    assert!(!repo.path().join(DOCUMENT).exists());
}

#[test]
fn a_fifo_nobody_writes_to_is_refused_as_an_empty_work_item() {
    let repo = TempRepo::new();
    let fifo = repo.scratch("item.fifo");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    let out = Interview::intent(&repo, "7")
        .from(&fifo)
        .runner("honest.sh")
        .answers(r#"{ "interview_answers": 1 }"#)
        .yes()
        .run()
        .exits(2);
    let err = &out.stderr;
    assert!(err.contains(&fifo.display().to_string()), "{err}");
    assert!(err.contains("a FIFO that nothing wrote to"), "{err}");
    assert!(!repo.path().join(DOCUMENT).exists());
}

#[test]
fn a_work_item_that_cannot_be_read_is_a_usage_error_naming_it() {
    let repo = TempRepo::new();
    let out = Interview::intent(&repo, "7")
        .from("no-such-item.md")
        .runner("honest.sh")
        .answers(r#"{ "interview_answers": 1 }"#)
        .yes()
        .run()
        .exits(2);
    assert!(out.stderr.contains("no-such-item.md"), "{}", out.stderr);
}
