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
