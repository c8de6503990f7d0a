//! What a new user meets at the start and at the end of an interview (issue 40): one line that
//! says what is interviewed, in which repository, from what and by which runner; after the
//! document is written, what to do next; and a status that claims nothing that did not happen.

use crate::util::*;

const ANSWERS: &str = r#"{ "interview_answers": 1,
  "answers": { "deployment_target": "1", "users": "skip", "encoding": "utf-8" } }"#;

#[test]
fn a_terminal_is_told_what_is_interviewed_where_and_then_what_to_do_next() {
    let repo = TempRepo::new();
    let mut pty = Interview::of_work_item(&repo)
        .preset("builtin")
        .at_terminal_sized(400);
    let before = pty.expect("turn 1 of");
    let start = format!(
        "Intent of 7: Export to CSV · repository {} · work item from item.md · runner builtin",
        repo.path().display()
    );
    assert!(before.contains(&start), "no start line:\n{before}");
    let (code, end) = pty.answer_as_a_person();
    assert_eq!(code, 0, "{end}");
    assert!(
        end.contains(&format!(
            "Next: commit it (`git add {DOCUMENT} && git commit`), and record your answers for \
             CI to replay: `interview answers intent 7 -o ci/answers/intent-7.json`"
        )),
        "no next steps:\n{end}"
    );
}

#[test]
fn a_piped_run_says_neither_the_start_line_nor_the_next_steps() {
    let repo = TempRepo::new();
    let out = Interview::of_work_item(&repo)
        .runner("honest.sh")
        .answers(ANSWERS)
        .yes()
        .run()
        .exits(0);
    let screen = out.screen();
    assert!(screen.contains("Wrote"), "{screen}");
    assert!(!screen.contains("· repository "), "{screen}");
    assert!(!screen.contains("Next: commit it"), "{screen}");
}

#[test]
fn status_does_not_say_the_document_is_written_when_it_was_printed() {
    let repo = TempRepo::new();
    let out = Interview::of_work_item(&repo)
        .runner("honest.sh")
        .answers(ANSWERS)
        .yes()
        .out("-")
        .run()
        .exits(0);
    assert!(
        out.stdout.contains("Export"),
        "not printed:\n{}",
        out.stdout
    );
    let status = stdout(&repo.run(&["status"]));
    assert!(!status.contains("the document is written"), "{status}");
    assert!(status.contains("shown, not written"), "{status}");
}

#[test]
fn interview_answers_takes_out_as_every_command_does_and_keeps_o() {
    let repo = TempRepo::new();
    Interview::of_work_item(&repo)
        .runner("honest.sh")
        .answers(ANSWERS)
        .yes()
        .run()
        .exits(0);
    for flag in ["--out", "-o", "--output"] {
        let file = repo.scratch(&format!("answers{flag}.json"));
        let out = repo.run(&["answers", "intent", "7", flag, file.to_str().unwrap()]);
        assert!(out.status.success(), "{flag}: {}", stderr(&out));
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.contains("\"interview_answers\": 1"), "{flag}: {text}");
    }
    let help = stdout(&repo.run(&["answers", "--help"]));
    assert!(help.contains("-o, --out <FILE>"), "{help}");
}

#[test]
fn global_options_have_their_own_section_in_every_commands_help() {
    let repo = TempRepo::new();
    for command in ["intent", "answers", "status", "runners"] {
        let help = stdout(&repo.run(&[command, "--help"]));
        let (own, global) = help
            .split_once("Global options:")
            .unwrap_or_else(|| panic!("{command}: no global section\n{help}"));
        assert!(!own.contains("--no-bell"), "{command}: interleaved\n{help}");
        assert!(
            global.contains("--no-bell") && global.contains("-C <DIR>"),
            "{help}"
        );
    }
}

#[test]
fn interview_runners_says_how_to_install_a_missing_cli() {
    let repo = TempRepo::new();
    let empty = tempfile::tempdir().unwrap();
    let out = repo
        .cmd()
        .arg("runners")
        .env("PATH", empty.path())
        .output()
        .unwrap();
    let text = stdout(&out);
    assert!(
        text.contains("not installed (claude not found on PATH)\n         install: npm install -g @anthropic-ai/claude-code@2.1.332"),
        "{text}"
    );
    assert!(
        text.contains("install: pipx install aider-chat==0.86.2"),
        "{text}"
    );
}

#[test]
fn completions_help_gives_the_source_fallback_for_bash_without_bash_completion() {
    let repo = TempRepo::new();
    let help = stdout(&repo.run(&["completions", "--help"]));
    assert!(
        help.contains("source <(interview completions bash)"),
        "{help}"
    );
    let man = stdout(&repo.run(&["man"]));
    assert!(
        man.contains("source <(interview completions"),
        "not in the man page"
    );
}
