//! The person's side at a real pseudo-terminal: the entry gate, the question loop, Ctrl+C and
//! the Choose prompt, driving the real binary and checking what is shown and what is recorded.

use crate::util::*;

/// `intent 7` with the honest runner (2 questions in turn 1, 1 in turn 2), the change guard
/// only warning and colour off; more flags may follow.
fn interview(repo: &TempRepo) -> Interview<'_> {
    interview_in_colour(repo, "never")
}

/// [`interview`] with `--color COLOR`.
fn interview_in_colour<'r>(repo: &'r TempRepo, color: &str) -> Interview<'r> {
    Interview::of_work_item(repo).runner("honest.sh").args([
        "--on-change",
        "warn",
        "--color",
        color,
    ])
}

/// Skip the second round at its gate and stop at the consent prompt without writing.
fn skip_round_two_and_stop(mut pty: Pty) -> (i32, String) {
    pty.expect("📋 The interviewer has 1 clarifying question(s)");
    pty.answer("> ", "n");
    pty.answer("Choose A, B, C or D: ", "C");
    pty.finish()
}

/// Answer the first question, then type `second` at the second and finish the run.
fn first_round(repo: &TempRepo, first: &str, second: &str) -> (i32, String) {
    let mut pty = interview(repo).at_terminal();
    pty.answer("Press Enter or type Y to proceed, N to skip entirely.", "");
    pty.expect("Where will this service run?");
    pty.answer("> ", first);
    pty.expect("Who uses the export?");
    pty.answer("> ", second);
    skip_round_two_and_stop(pty)
}

#[test]
fn the_entry_gate_shows_the_count_and_both_choices() {
    let repo = TempRepo::new();
    let mut pty = interview(&repo).at_terminal();
    pty.expect("📋 The interviewer has 2 clarifying question(s) about your work.");
    let gate = pty.expect("Press Enter or type Y to proceed, N to skip entirely.");
    assert!(
        gate.contains("  [Y] Answer questions now  (recommended)\r\n"),
        "{gate}"
    );
    assert!(
        gate.contains("  [N] Skip Q&A and continue without answers\r\n"),
        "{gate}"
    );
    pty.ctrl_c();
    pty.finish();
}

#[test]
fn enter_at_the_gate_starts_the_loop_with_progress_options_and_hint() {
    let repo = TempRepo::new();
    let mut pty = interview(&repo).at_terminal();
    pty.answer("N to skip entirely.", "");
    pty.expect("This round has 2 point(s) needing clarification.");
    pty.expect("📋 Q&A Progress — Question 1 of 2\r\n");
    let shown = pty.expect("> ");
    assert!(shown.contains("Where will this service run?"), "{shown}");
    assert!(
        shown.contains("  1. Kubernetes  (k8s)  ← recommended\r\n"),
        "{shown}"
    );
    assert!(shown.contains("  2. One VM  (vm)\r\n"), "{shown}");
    // The hint is wider than the 80 columns of the terminal: it wraps, whole.
    let words = shown.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains("(Type your answer, a number to pick an option, \"r\" for the recommended one, \"skip\", or \"skip all\")"),
        "{shown}"
    );
    assert!(
        shown
            .lines()
            .all(|l| textwrap::core::display_width(l) <= 80),
        "{shown}"
    );
    pty.send_line("k8s");
    // From the second question on, the header carries the time estimate.
    pty.expect("📋 Q&A Progress — Question 2 of 2 · about 5 s left");
    pty.ctrl_c();
    pty.finish();
}

#[test]
fn a_number_picks_the_option_value_and_the_typed_line_is_recorded() {
    let repo = TempRepo::new();
    let (code, screen) = first_round(&repo, "2", "analysts");
    assert_eq!(code, 0, "{screen}");
    assert_eq!(
        repo.answers(),
        vec![
            answered("deployment_target", "vm"),
            answered("users", "analysts")
        ]
    );
    let file = repo.recorded_answers();
    assert_eq!(file["answers"]["deployment_target"], "2");
    assert_eq!(file["answers"]["users"], "analysts");
}

// Issue 24 changed this rule on purpose: a number that picks no option used to be kept as the
// answer's text, so a typo became the answer.
#[test]
fn an_out_of_range_number_is_asked_again_with_the_valid_range() {
    let repo = TempRepo::new();
    let mut pty = interview(&repo).at_terminal();
    pty.answer("Press Enter or type Y to proceed, N to skip entirely.", "");
    pty.expect("Where will this service run?");
    pty.answer("> ", "7");
    pty.expect("7 is not an option: type a number from 1 to 2, your own answer, or skip.");
    pty.expect("Where will this service run?");
    pty.answer("> ", "2");
    pty.expect("Who uses the export?");
    pty.answer("> ", "analysts");
    skip_round_two_and_stop(pty);
    assert_eq!(repo.answers()[0], answered("deployment_target", "vm"));
    assert_eq!(repo.recorded_answers()["answers"]["deployment_target"], "2");
}

#[test]
fn r_picks_the_recommended_option() {
    let repo = TempRepo::new();
    let mut pty = interview(&repo).at_terminal();
    pty.answer("Press Enter or type Y to proceed, N to skip entirely.", "");
    pty.expect("Where will this service run?");
    pty.answer("> ", "r");
    pty.expect("Who uses the export?");
    // No recommendation on an open question: said so, and asked again, never recorded.
    pty.answer("> ", "@recommended");
    pty.expect("No option is recommended for this question");
    pty.expect("Who uses the export?");
    pty.answer("> ", "analysts");
    skip_round_two_and_stop(pty);
    assert_eq!(
        repo.answers(),
        vec![
            answered("deployment_target", "k8s"),
            answered("users", "analysts")
        ]
    );
}

#[test]
fn skip_skips_only_that_question() {
    let repo = TempRepo::new();
    let (code, _) = first_round(&repo, "skip", "analysts");
    assert_eq!(code, 0);
    assert_eq!(
        repo.answers(),
        vec![skipped("deployment_target"), answered("users", "analysts")]
    );
    assert_eq!(
        repo.recorded_answers()["answers"]["deployment_target"],
        "skip"
    );
}

#[test]
fn skip_all_ends_the_round_and_the_next_turn_is_final() {
    let repo = TempRepo::new();
    let mut pty = interview(&repo).at_terminal();
    pty.answer("N to skip entirely.", "y");
    pty.expect("Question 1 of 2");
    pty.answer("> ", "skip all");
    let rest = pty.expect("Choose A, B, C or D: ");
    assert!(!rest.contains("Who uses the export?"), "{rest}");
    assert!(
        !rest.contains("clarifying question(s)"),
        "no second round: {rest}"
    );
    pty.send_line("c");
    pty.finish();
    assert_eq!(repo.answers(), vec![skipped("deployment_target")]);
    let end = &repo.events("round_end")[0];
    assert_eq!(end["outcome"]["skipped"], true);
    assert_eq!(
        end["outcome"]["skip_telemetry"]["skip_reason"],
        serde_json::Value::Null
    );
}

#[test]
fn n_at_the_gate_skips_the_round_without_asking() {
    let repo = TempRepo::new();
    let mut pty = interview(&repo).at_terminal();
    pty.answer("N to skip entirely.", "N");
    let rest = pty.expect("Choose A, B, C or D: ");
    assert!(!rest.contains("Q&A Progress"), "{rest}");
    pty.send_line("c");
    pty.finish();
    assert!(repo.answers().is_empty());
    let end = &repo.events("round_end")[0];
    assert_eq!(end["outcome"]["skipped"], true);
    assert_eq!(end["outcome"]["qa_answers"], serde_json::Value::Null);
    assert_eq!(
        end["outcome"]["skip_telemetry"]["skip_reason"],
        "user_skip_entire"
    );
    assert_eq!(repo.recorded_answers()["gate"], "N");
}

#[test]
fn anything_else_at_the_gate_is_asked_again() {
    let repo = TempRepo::new();
    let mut pty = interview(&repo).at_terminal();
    pty.answer("N to skip entirely.", "maybe");
    pty.expect("Please press Enter or type Y to answer the questions, or N to skip them.");
    pty.answer("N to skip entirely.", "y");
    pty.expect("Question 1 of 2");
    pty.ctrl_c();
    pty.finish();
}

#[test]
fn ctrl_c_at_the_gate_exits_130_and_keeps_no_answers() {
    let repo = TempRepo::new();
    let mut pty = interview(&repo).at_terminal();
    pty.expect("N to skip entirely.");
    pty.expect("> ");
    pty.ctrl_c();
    let (code, screen) = pty.finish();
    assert_eq!(code, 130, "{screen}");
    assert!(repo.answers().is_empty());
    let st = repo.state();
    assert_eq!(st["status"], "aborted");
}

#[test]
fn ctrl_c_mid_loop_exits_130_and_keeps_the_answers_given() {
    let repo = TempRepo::new();
    let mut pty = interview(&repo).at_terminal();
    pty.answer("N to skip entirely.", "y");
    pty.expect("Question 1 of 2");
    pty.answer("> ", "1");
    pty.expect("Who uses the export?");
    pty.expect("> ");
    pty.ctrl_c();
    let (code, screen) = pty.finish();
    assert_eq!(code, 130, "{screen}");
    assert_eq!(repo.answers(), vec![answered("deployment_target", "k8s")]);
    assert_eq!(repo.recorded_answers()["answers"]["deployment_target"], "1");
    let st = repo.state();
    assert_eq!(st["status"], "aborted");
}

#[test]
fn the_choose_prompt_shows_the_box_and_takes_a_lowercase_letter() {
    let repo = TempRepo::new();
    let mut pty = interview(&repo).at_terminal();
    pty.answer("N to skip entirely.", "n");
    let before = pty.expect("Choose A, B, C or D: ");
    let rule = "══════════════════════════════════════";
    assert!(
        before.contains(&format!(
            "{rule}\r\n DECISION REQUIRED: write the document to"
        )),
        "{before}"
    );
    assert!(before.contains(" A) "), "{before}");
    assert!(before.contains(" Recommendation: A — "), "{before}");
    pty.send_line("b");
    let (code, screen) = pty.finish();
    assert_eq!(code, 0, "{screen}");
    assert!(!repo.path().join(DOCUMENT).exists());
    assert_eq!(repo.recorded_answers()["decisions"]["consent"], "b");
    let d = &repo.events("decision")[0];
    assert_eq!(d["id"], "consent");
    assert_eq!(d["choice"], "B");
}

#[test]
fn the_choose_prompt_asks_again_on_anything_else() {
    let repo = TempRepo::new();
    let mut pty = interview(&repo).at_terminal();
    pty.answer("N to skip entirely.", "n");
    pty.answer("Choose A, B, C or D: ", "z");
    pty.expect("“z” is not one of the choices: type A, B, C or D.");
    pty.answer("Choose A, B, C or D: ", "c");
    let (code, _) = pty.finish();
    assert_eq!(repo.events("decision")[0]["choice"], "C");
    assert_eq!(code, 0);
}

#[test]
fn the_bell_rings_before_a_choose_prompt_at_a_terminal() {
    let repo = TempRepo::new();
    let mut pty = interview(&repo).at_terminal();
    pty.answer("N to skip entirely.", "n");
    let before = pty.expect("DECISION REQUIRED");
    assert!(before.contains("\x07"), "{before:?}");
    pty.answer("Choose A, B, C or D: ", "c");
    pty.finish();
}

#[test]
fn no_bell_keeps_the_choose_prompt_silent() {
    let repo = TempRepo::new();
    let mut pty = interview(&repo).arg("--no-bell").at_terminal();
    pty.answer("N to skip entirely.", "n");
    let before = pty.expect("Choose A, B, C or D: ");
    assert!(!before.contains("\x07"), "{before:?}");
    pty.send_line("c");
    pty.finish();
}

#[test]
fn color_always_makes_the_progress_header_bold() {
    let repo = TempRepo::new();
    let mut pty = interview_in_colour(&repo, "always").at_terminal();
    pty.answer("N to skip entirely.", "y");
    pty.expect("\x1b[1m📋 Q&A Progress — Question 1 of 2\x1b[0m");
    pty.ctrl_c();
    pty.finish();
}

#[test]
fn no_color_keeps_auto_colour_off_at_a_terminal() {
    let repo = TempRepo::new();
    // The Pty helper sets NO_COLOR=1; `--color auto` must honour it.
    let mut pty = interview_in_colour(&repo, "auto").at_terminal();
    pty.answer("N to skip entirely.", "y");
    let shown = pty.expect("Where will this service run?");
    assert!(!shown.contains("\x1b["), "{shown:?}");
    pty.ctrl_c();
    pty.finish();
}

#[test]
fn ctrl_c_pressed_as_the_gate_appears_is_not_lost() {
    let repo = TempRepo::new();
    let mut pty = interview(&repo).at_terminal();
    // No wait for the prompt marker: the signal may land while the gate is still being drawn.
    pty.expect("📋 The interviewer has");
    pty.ctrl_c();
    let (code, screen) = pty.finish();
    assert_eq!(code, 130, "{screen}");
}

/// A telemetry file with one pre-loop skip, one unreadable line and one mid-loop skip-all.
fn telemetry_fixture(repo: &TempRepo) {
    let round = |gate: &str, skip_type: &str, answered: u32, skipped: &str, ms: u64| {
        format!(
            "{{\"event\":\"qa_round\",\"ts\":\"2026-01-01T00:00:00Z\",\"workspace_id\":\"ws\",\"replayed\":false,\"gate\":\"{gate}\",\"gate_response_time_ms\":5,\"skip_type\":\"{skip_type}\",\"questions\":2,\"answered\":{answered},\"skipped_positions\":{skipped},\"skip_all_at\":null,\"abort_at\":null,\"qa_duration_ms\":{ms}}}\n"
        )
    };
    repo.write(
        ".interview/telemetry.jsonl",
        &format!(
            "{}not json at all\n{}",
            round("user_skip_entire", "pre_loop", 0, "[]", 0),
            round("proceeded", "mid_loop_skip_all", 1, "[2]", 30_000)
        ),
    );
}

#[test]
fn stats_show_pre_loop_and_mid_loop_skips_separately() {
    let repo = TempRepo::new();
    telemetry_fixture(&repo);
    let out = repo.run(&["stats"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("skipped at the gate:       1  (50%)\n"),
        "{text}"
    );
    assert!(
        text.contains("\"skip all\" in the loop:    1  (50%)\n"),
        "{text}"
    );
}

#[test]
fn stats_report_unreadable_lines_instead_of_failing() {
    let repo = TempRepo::new();
    telemetry_fixture(&repo);
    let out = repo.run(&["stats"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stdout(&out).contains("Ignored 1 unreadable line(s) of telemetry.jsonl (line 2)"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn stats_json_prints_the_same_counts() {
    let repo = TempRepo::new();
    telemetry_fixture(&repo);
    let out = repo.run(&["stats", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("JSON");
    assert_eq!(v["pre_loop_skips"], 1);
    assert_eq!(v["mid_loop_skip_all"], 1);
    assert_eq!(v["pre_loop_skip_rate"], 0.5);
    assert_eq!(v["unreadable_lines"], 1);
}

#[test]
fn stats_without_telemetry_say_so() {
    let repo = TempRepo::new();
    let out = repo.run(&["stats"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stdout(&out).contains("No telemetry yet"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn telemetry_records_a_gate_skip_as_pre_loop_without_question_text() {
    let repo = TempRepo::new();
    let mut pty = interview(&repo).at_terminal();
    pty.answer("N to skip entirely.", "n");
    pty.answer("Choose A, B, C or D: ", "c");
    pty.finish();
    let t = repo.telemetry();
    assert_eq!(t.len(), 1, "{t:?}");
    assert_eq!(t[0]["gate"], "user_skip_entire");
    assert_eq!(t[0]["skip_type"], "pre_loop");
    assert_eq!(t[0]["qa_duration_ms"], 0);
    assert_eq!(t[0]["replayed"], false);
    let raw = std::fs::read_to_string(repo.path().join(".interview/telemetry.jsonl")).unwrap();
    assert!(
        !raw.contains("Where will") && !raw.contains("deployment_target"),
        "{raw}"
    );
}

#[test]
fn telemetry_records_skip_all_as_mid_loop_with_its_position_and_duration() {
    let repo = TempRepo::new();
    let mut pty = interview(&repo).at_terminal();
    pty.answer("N to skip entirely.", "y");
    pty.expect("Question 1 of 2");
    pty.answer("> ", "2");
    pty.expect("Question 2 of 2");
    pty.answer("> ", "skip all");
    pty.answer("Choose A, B, C or D: ", "c");
    pty.finish();
    let t = repo.telemetry();
    assert_eq!(t[0]["gate"], "proceeded");
    assert_eq!(t[0]["skip_type"], "mid_loop_skip_all");
    assert_eq!(t[0]["skip_all_at"], 2);
    assert_eq!(t[0]["answered"], 1);
    assert!(t[0]["qa_duration_ms"].as_u64().unwrap() >= 1);
}

#[test]
fn telemetry_records_ctrl_c_at_the_gate_as_user_abort() {
    let repo = TempRepo::new();
    let mut pty = interview(&repo).at_terminal();
    pty.expect("N to skip entirely.");
    pty.expect("> ");
    pty.ctrl_c();
    pty.finish();
    let t = repo.telemetry();
    assert_eq!(t[0]["gate"], "user_abort");
    assert_eq!(t[0]["skip_type"], "user_abort");
}
