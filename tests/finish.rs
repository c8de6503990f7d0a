//! The end of an interview: the change-guard policy around turns, the consent gate, overwrite
//! protection, `--clarify-into`, and settings from `interview.toml`.

use crate::util::*;

/// `intent 7` on the work item with the runner that finishes at once (the consent gate next).
fn done_at_once(repo: &TempRepo) -> Interview<'_> {
    Interview::of_work_item(repo).runner("done-at-once.sh")
}

const NO_ANSWERS: &str = r#"{ "interview_answers": 1 }"#;

#[test]
fn without_a_terminal_a_change_fails_the_run_with_exit_3() {
    let repo = TempRepo::new();
    let out = Interview::of_work_item(&repo)
        .runner("plants-hook.sh")
        .without_sandbox()
        .answers(NO_ANSWERS)
        .yes()
        .run()
        .exits(3);
    assert!(out.stderr.contains("hooks"), "{}", out.stderr);
    assert!(out.stderr.contains("pre-commit"), "{}", out.stderr);
    let st = out.state();
    assert_eq!(st["status"], "failed");
    assert!(
        st["blockers"][0]
            .as_str()
            .unwrap()
            .contains("changed the repository")
    );
    let guard = repo.session_json("turns/001/guard.json");
    assert!(
        guard["report"].to_string().contains("pre-commit"),
        "{guard}"
    );
    assert!(!repo.path().join(DOCUMENT).exists());
}

#[test]
fn on_change_warn_reports_and_continues() {
    let repo = TempRepo::new();
    let out = Interview::of_work_item(&repo)
        .runner("plants-hook.sh")
        .without_sandbox()
        .answers(NO_ANSWERS)
        .yes()
        .args(["--on-change", "warn"])
        .run()
        .exits(0);
    assert!(out.stderr.contains("pre-commit"), "{}", out.stderr);
    assert!(repo.path().join(DOCUMENT).exists());
}

/// Run the hook-planting runner at a terminal (policy `ask` by default there), answer the
/// guard's Choose prompt with `letter`; returns the repository, the prompt screen and the exit.
fn answer_the_guard(letter: &str) -> (TempRepo, String, i32) {
    let repo = TempRepo::new();
    let mut pty = Interview::of_work_item(&repo)
        .runner("plants-hook.sh")
        .without_sandbox()
        .yes()
        .at_terminal();
    let screen = pty.answer("Choose A, B or C", letter);
    let (code, rest) = pty.finish();
    (repo, format!("{screen}{rest}"), code)
}

#[test]
fn on_change_ask_offers_a_choice_and_stop_keeps_the_change_for_review() {
    let (repo, screen, code) = answer_the_guard("a");
    assert!(screen.contains("pre-commit"), "{screen}");
    assert!(
        screen.contains("A) Stop and keep the changes for review"),
        "{screen}"
    );
    assert!(screen.contains("Recommendation: A"), "{screen}");
    assert_eq!(code, 3, "{screen}");
    assert!(
        repo.path().join(".git/hooks/pre-commit").exists(),
        "the change was kept"
    );
    let st = repo.state();
    assert_eq!(st["key_decisions"][0]["id"], "guard");
    assert!(
        st["key_decisions"][0]["choice"]
            .as_str()
            .unwrap()
            .starts_with("A)")
    );
}

#[test]
fn on_change_ask_restore_puts_the_hooks_back_then_stops() {
    let (repo, screen, code) = answer_the_guard("B");
    assert_eq!(code, 3, "{screen}");
    assert!(
        !repo.path().join(".git/hooks/pre-commit").exists(),
        "the planted hook is still there"
    );
}

#[test]
fn on_change_ask_accept_continues_the_interview() {
    let (repo, screen, code) = answer_the_guard("C");
    assert_eq!(code, 0, "{screen}");
    assert!(repo.path().join(DOCUMENT).exists());
}

#[test]
fn a_replayed_guard_decision_is_used_with_on_change_ask() {
    let repo = TempRepo::new();
    Interview::of_work_item(&repo)
        .runner("plants-hook.sh")
        .without_sandbox()
        .answers(r#"{ "interview_answers": 1, "decisions": { "guard": "C" } }"#)
        .yes()
        .args(["--on-change", "ask"])
        .run()
        .exits(0);
}

#[test]
fn the_consent_gate_asks_before_writing_and_stop_writes_nothing() {
    let repo = TempRepo::new();
    let mut pty = done_at_once(&repo).at_terminal();
    let screen = pty.answer("Choose A, B, C or D", "C");
    assert!(
        screen.contains("write the document to docs/interviews/intent-7.md?"),
        "{screen}"
    );
    let (code, rest) = pty.finish();
    assert_eq!(code, 0, "{rest}");
    assert!(!repo.path().join(DOCUMENT).exists());
}

#[test]
fn a_replay_without_yes_needs_a_recorded_consent() {
    let repo = TempRepo::new();
    let out = done_at_once(&repo).answers(NO_ANSWERS).run().exits(5);
    assert!(out.stderr.contains("\"consent\""), "{}", out.stderr);
    // The first run left an unfinished session; a replay starts over unless told to resume.
    done_at_once(&repo)
        .answers(
            r#"{ "interview_answers": 1, "decisions": { "consent": "A", "unfinished": "B" } }"#,
        )
        .run()
        .exits(0);
    assert!(repo.read(DOCUMENT).contains("The readme"));
}

#[test]
fn an_existing_document_is_never_silently_overwritten() {
    let repo = TempRepo::new();
    repo.write(DOCUMENT, "my notes\n");
    let out = done_at_once(&repo).answers(NO_ANSWERS).yes().run().exits(5);
    assert!(out.stderr.contains("\"overwrite\""), "{}", out.stderr);
    assert_eq!(repo.read(DOCUMENT), "my notes\n");
}

#[test]
fn write_beside_keeps_the_existing_document() {
    let repo = TempRepo::new();
    repo.write(DOCUMENT, "my notes\n");
    done_at_once(&repo)
        .answers(r#"{ "interview_answers": 1, "decisions": { "overwrite": "B" } }"#)
        .yes()
        .run()
        .exits(0);
    assert_eq!(repo.read(DOCUMENT), "my notes\n");
    assert!(
        repo.read("docs/interviews/intent-7-2.md")
            .contains("The readme")
    );
}

#[test]
fn overwrite_replaces_the_document_when_chosen() {
    let repo = TempRepo::new();
    repo.write(DOCUMENT, "my notes\n");
    done_at_once(&repo)
        .answers(r#"{ "interview_answers": 1, "decisions": { "overwrite": "A" } }"#)
        .yes()
        .run()
        .exits(0);
    assert!(repo.read(DOCUMENT).contains("The readme"));
}

#[test]
fn out_dash_prints_the_document_and_writes_nothing() {
    let repo = TempRepo::new();
    let out = done_at_once(&repo)
        .answers(NO_ANSWERS)
        .out("-")
        .run()
        .exits(0);
    assert!(out.stdout.contains("# Intent of 7"), "{}", out.stdout);
    assert!(!repo.path().join("docs/interviews").exists());
}

#[test]
fn clarify_into_appends_answered_questions_to_the_spec() {
    let repo = TempRepo::new();
    repo.write("spec.md", "# Spec\n\nKeep this line.\n");
    Interview::of_work_item(&repo).runner("honest.sh")
        .answers(r#"{ "interview_answers": 1, "answers": { "deployment_target": "1", "users": "skip", "encoding": "UTF-8 only" } }"#)
        .yes()
        .args(["--clarify-into", "spec.md"])
        .run()
        .exits(0);
    let spec = repo.read("spec.md");
    assert!(spec.starts_with("# Spec\n\nKeep this line.\n"), "{spec}");
    assert!(spec.contains("## Clarifications"), "{spec}");
    assert!(spec.contains("### Session "), "{spec}");
    assert!(
        spec.contains("- Q: Where will this service run? → A: k8s"),
        "{spec}"
    );
    assert!(
        spec.contains("- Q: Which encodings must be supported? → A: UTF-8 only"),
        "{spec}"
    );
    assert!(
        !spec.contains("Who uses the export?"),
        "a skipped question was added: {spec}"
    );
}

/// Every question of the honest runner answered.
const ALL_ANSWERED: &str = r#"{ "interview_answers": 1, "answers": { "deployment_target": "2", "users": "ops", "encoding": "utf-8" } }"#;

#[test]
fn clarify_into_honours_source_date_epoch() {
    let repo = TempRepo::new();
    repo.write("spec.md", "# Spec\n");
    Interview::of_work_item(&repo)
        .runner("honest.sh")
        .answers(ALL_ANSWERED)
        .yes()
        .args(["--clarify-into", "spec.md"])
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .run()
        .exits(0);
    assert!(repo.read("spec.md").contains("### Session 2023-11-14"));
}

#[test]
fn unknown_keys_in_interview_toml_name_the_file_and_key() {
    let repo = TempRepo::new();
    repo.write("interview.toml", "max_turns = 3\nmax_turn = 4\n");
    let out = done_at_once(&repo).answers(NO_ANSWERS).yes().run().exits(1);
    assert!(out.stderr.contains("interview.toml"), "{}", out.stderr);
    assert!(out.stderr.contains("max_turn"), "{}", out.stderr);
}

#[test]
fn settings_come_from_interview_toml_and_local_overrides() {
    let repo = TempRepo::new();
    let honest = runner("honest.sh");
    repo.write(
        "interview.toml",
        "runner = \"builtin\"\nintent_out = \"notes/intent-{id}.md\"\nmax_turns = 1\n",
    );
    repo.write(
        ".interview/config.toml",
        &format!("runner = \"{honest}\"\nmax_turns = 3\n"),
    );
    // No --runner: the local file's command wins over interview.toml's preset.
    Interview::of_work_item(&repo)
        .answers(ALL_ANSWERED)
        .yes()
        .run()
        .exits(0);
    // The honest runner needs three turns: the local max_turns = 3 won over the shared 1.
    assert!(
        repo.read("notes/intent-7.md")
            .contains("Intent of the work item")
    );
}

#[test]
fn interview_toml_may_name_a_preset_but_never_a_command_of_the_repository() {
    for setting in [
        "runner = \"sh plant.sh\"\n",
        "[runner]\ncommand = [\"sh\", \"plant.sh\"]\n",
    ] {
        let repo = TempRepo::new();
        repo.write(
            "plant.sh",
            "touch \"$HOME/../planted-by-the-repository\"\ntouch planted\n",
        );
        repo.write("interview.toml", setting);
        let out = Interview::of_work_item(&repo)
            .answers(ALL_ANSWERED)
            .yes()
            .run()
            .exits(1);
        assert!(out.stderr.contains("interview.toml"), "{}", out.stderr);
        assert!(out.stderr.contains("runner"), "{}", out.stderr);
        assert!(
            out.stderr.contains(".interview/config.toml"),
            "{}",
            out.stderr
        );
        assert!(
            !repo.path().join("planted").exists(),
            "the repository's command ran"
        );
    }
}

#[test]
fn two_matching_work_items_need_a_choice_which_is_recorded() {
    let repo = TempRepo::new();
    repo.write("docs/intents/7-export.md", "# Export to CSV\n\nAs CSV.\n");
    repo.write("docs/archive/7_export.md", "# Old export idea\n");
    // No --from: the trackers look for work item 7.
    Interview::intent(&repo, "7")
        .runner("done-at-once.sh")
        .yes()
        .answers(r#"{ "interview_answers": 1, "decisions": { "tracker": "A" } }"#)
        .run()
        .exits(0);
    let st = repo.state();
    assert_eq!(st["key_decisions"][0]["id"], "tracker");

    // Without a recorded choice, a replay stops and says how to settle it.
    let other = TempRepo::new();
    other.write("docs/intents/7-export.md", "# Export to CSV\n");
    other.write("docs/archive/7_export.md", "# Old export idea\n");
    let out = Interview::intent(&other, "7")
        .runner("done-at-once.sh")
        .yes()
        .answers(r#"{ "interview_answers": 1 }"#)
        .run()
        .exits(5);
    assert!(out.stderr.contains("--from"), "{}", out.stderr);
}

#[test]
fn a_runner_that_rewrites_the_restore_copies_gets_no_restore() {
    let repo = TempRepo::new();
    let config_before = std::fs::read(repo.path().join(".git/config")).unwrap();
    let mut pty = Interview::of_work_item(&repo)
        .runner("tampers-restore.sh")
        .without_sandbox()
        .yes()
        .at_terminal();
    let screen = pty.answer("Choose A, B or C", "B");
    assert!(
        screen.contains("restore/files"),
        "the tampering was not reported: {screen}"
    );
    let (code, rest) = pty.finish();
    assert_eq!(code, 3, "{rest}");
    assert!(rest.contains("nothing was restored"), "{rest}");
    assert_eq!(
        std::fs::read(repo.path().join(".git/config")).unwrap(),
        config_before
    );
}

#[test]
fn a_runner_that_edits_its_own_brief_is_caught() {
    let repo = TempRepo::new();
    let out = Interview::of_work_item(&repo)
        .runner("edits-brief.sh")
        .without_sandbox()
        .answers(NO_ANSWERS)
        .yes()
        .run()
        .exits(3);
    assert!(out.stderr.contains("brief.md"), "{}", out.stderr);
}

#[test]
fn a_replayed_letter_that_is_not_an_option_is_a_usage_error() {
    let repo = TempRepo::new();
    let out = done_at_once(&repo)
        .answers(r#"{ "interview_answers": 1, "decisions": { "consent": "D" } }"#)
        .run()
        .exits(2);
    assert!(out.stderr.contains("consent"), "{}", out.stderr);
    assert!(!repo.path().join(DOCUMENT).exists());
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
    /// Whatever the spec file holds, appending clarifications never panics and keeps every byte
    /// that was there.
    #[test]
    fn clarifications_keep_the_existing_text(
        existing in "(#{0,4} ?[a-zé]{0,6}\r?\n|```\n|## Clarifications\n|### Session 2026-11-30\n|- Q: x → A: y\n){0,12}",
        answer in "[a-z]{1,5}( [a-z]{1,5}){0,2}",
    ) {
        let qa = vec![("Which encodings?".to_string(), answer.clone())];
        let out = interview::testing::clarifications_section(&existing, "2026-11-30", &qa);
        let mut rest = out.as_str();
        for line in existing.lines() {
            let at = rest.find(line);
            proptest::prop_assert!(at.is_some(), "lost {line:?} from {existing:?}: {out:?}");
            rest = &rest[at.unwrap() + line.len()..];
        }
        let wanted = format!("- Q: Which encodings? → A: {answer}");
        proptest::prop_assert!(out.contains(&wanted), "{}", out);
    }
}

#[test]
fn a_runner_that_changes_the_repository_then_interrupts_the_tool_is_still_caught() {
    // Without the sandbox (which scopes signals) a runner can signal the tool itself: the
    // interruption must not hide what it wrote, neither now nor as a resume's starting point.
    for (policy, code) in [("ask", 3), ("fail", 3), ("warn", 130)] {
        let repo = TempRepo::new();
        let out = Interview::of_work_item(&repo)
            .runner("changes-then-interrupts.sh")
            .without_sandbox()
            .args(["--on-change", policy])
            .answers(NO_ANSWERS)
            .yes()
            .run();
        assert_eq!(out.code, code, "--on-change {policy}: {}", out.stderr);
        assert!(out.stderr.contains("README.md"), "{policy}: {}", out.stderr);
        let st = out.state();
        let status = if code == 3 { "failed" } else { "aborted" };
        assert_eq!(st["status"], status, "{policy}: {st}");
        assert_eq!(out.events("guard_violation").len(), 1, "{policy}: {st}");
    }
}
