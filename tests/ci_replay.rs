//! Replay in CI: committed answers files run whole interviews with the built-in interviewer, and
//! the same inputs give byte-identical documents.

use std::path::Path;

use crate::util::*;

const EXAMPLE: &str = "examples/intents/42-export-csv.md";

/// A repository holding the example work item, committed.
fn example_repo() -> TempRepo {
    let repo = TempRepo::new();
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(EXAMPLE)).unwrap();
    repo.write(EXAMPLE, &text);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "add the work item"]);
    repo
}

/// `intent 42 --from EXAMPLE --answers ANSWERS --yes --out OUT` with the built-in interviewer.
fn replay_42<'r>(repo: &'r TempRepo, answers: &Path, out: &str) -> Outcome<'r> {
    Interview::intent(repo, "42")
        .from(EXAMPLE)
        .answers_file(answers)
        .yes()
        .out(out)
        .run()
}

#[test]
fn the_committed_answers_fixture_replays_end_to_end_with_the_builtin_interviewer() {
    let repo = example_repo();
    replay_42(
        &repo,
        &fixtures().join("answers/intent-42.json"),
        "docs/interviews/intent-42.md",
    )
    .exits(0);
    let doc = repo.read("docs/interviews/intent-42.md");
    assert!(doc.contains("Only admins"), "{doc}");
    assert!(doc.contains("No Excel for now"), "{doc}");
    assert!(!doc.contains(".interview"), "{doc}");
    insta::assert_snapshot!(doc);
}

#[test]
fn two_replays_produce_byte_identical_documents() {
    let repo = example_repo();
    let answers = fixtures().join("answers/intent-42.json");
    replay_42(&repo, &answers, "first.md").exits(0);
    replay_42(&repo, &answers, "second.md").exits(0);
    assert_eq!(repo.read("first.md"), repo.read("second.md"));
}

/// docs/ci.md's job: the document is committed at its default place, and the replay (written to a
/// fresh path) must still come out identical to it. An interactive re-run reads that earlier
/// document and does not ask what it answered; a replay must not, or it asks other questions
/// and writes another document.
#[test]
fn a_replay_beside_the_committed_document_gives_that_document() {
    let repo = example_repo();
    let answers = fixtures().join("answers/intent-42.json");
    replay_42(&repo, &answers, "docs/interviews/intent-42.md").exits(0);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "the interview's document"]);
    let again = replay_42(&repo, &answers, "again.md").exits(0);
    assert!(
        !again.stderr.contains("never asked"),
        "the replay asked other questions: {}",
        again.stderr
    );
    assert_eq!(
        repo.read("again.md"),
        repo.read("docs/interviews/intent-42.md")
    );
}

#[test]
fn reflect_replays_are_byte_identical_too() {
    let repo = TempRepo::new();
    repo.commit_files(&["a", "b", "c"]);
    let run = |out: &str| {
        Interview::reflect(&repo, "HEAD~3")
            .answers(r#"{ "interview_answers": 1, "gate": "n" }"#)
            .yes()
            .args(["--missing", "skip"])
            .out(out)
            .run()
    };
    run("one.md").exits(0);
    run("two.md").exits(0);
    assert_eq!(repo.read("one.md"), repo.read("two.md"));
}

#[test]
fn a_recorded_interactive_session_replays_to_the_identical_document() {
    let repo = example_repo();
    let mut pty = Interview::intent(&repo, "42")
        .from(EXAMPLE)
        .yes()
        .out("typed.md")
        .at_terminal();
    // Each answer is typed once its own prompt is shown (keys typed ahead are dropped): the
    // gate's prompt line ends in "> " too.
    pty.expect("[Y]");
    pty.answer("> ", "");
    for answer in [
        "Every project of the account in one file",
        "2",
        "Only admins",
        "skip",
        "Retry once, then explain",
    ] {
        pty.answer("> ", answer);
    }
    // The topics beyond the first five come in a second round.
    pty.expect("[Y]");
    pty.answer("> ", "");
    pty.answer("> ", "1");
    pty.answer("> ", "r");
    // `r` with no recommended option is asked again, never recorded.
    pty.expect("No option is recommended");
    pty.answer("> ", "Show an error and keep the page usable");
    let (code, screen) = pty.finish();
    assert_eq!(code, 0, "{screen}");

    let printed = repo.run(&["answers"]);
    assert!(printed.status.success());
    let recorded = repo.scratch("recorded.json");
    std::fs::write(&recorded, &printed.stdout).unwrap();

    replay_42(&repo, &recorded, "replayed.md").exits(0);
    assert_eq!(repo.read("typed.md"), repo.read("replayed.md"));
}

/// A fresh clone of `repo` (what a CI job checks out), with its own scratch directory.
fn fresh_clone(repo: &TempRepo) -> TempRepo {
    let clone = TempRepo::at(
        tempfile::Builder::new()
            .prefix("interview-clone-")
            .tempdir()
            .unwrap(),
        tempfile::Builder::new()
            .prefix("interview-scratch-")
            .tempdir()
            .unwrap(),
    );
    let from = repo.path().display().to_string();
    let into = clone.path().display().to_string();
    repo.git(&["clone", "-q", &from, &into]);
    clone
}

/// README's and docs/ci.md's flow, verbatim: record, `interview answers intent 42 -o FIXTURE`,
/// commit the fixture and the document, then replay in a fresh clone. The fixture is one more
/// file of the repository (and HEAD another commit), which changes nothing the interview is
/// about: the document must come out byte for byte the same.
#[test]
fn committing_the_answers_fixture_does_not_change_the_replayed_document() {
    let repo = example_repo();
    replay_42(
        &repo,
        &fixtures().join("answers/intent-42.json"),
        "docs/interviews/intent-42.md",
    )
    .exits(0);
    let recorded = repo.run(&[
        "answers",
        "intent",
        "42",
        "-o",
        "fixtures/answers/intent-42.json",
    ]);
    assert!(recorded.status.success(), "{}", stderr(&recorded));
    // An unrelated file too: any commit may add one.
    repo.write("notes/unrelated.txt", "Nothing about the work item.\n");
    repo.write(
        "interview.toml",
        "[intent]\nglobs = [\"examples/intents/<id>*.md\"]\n",
    );
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "the answers fixture and the document"]);

    let ci = fresh_clone(&repo);
    let out = ci.scratch("intent-42.md");
    let replayed = Interview::intent(&ci, "42")
        .from(EXAMPLE)
        .answers_file(ci.path().join("fixtures/answers/intent-42.json"))
        .yes()
        .out(out.to_str().unwrap())
        .run()
        .exits(0);
    assert!(
        !replayed.stderr.contains("never asked"),
        "{}",
        replayed.stderr
    );
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        ci.read("docs/interviews/intent-42.md"),
        "the replay in a fresh clone differs from the committed document"
    );
}

/// A replay that stops at a question the file cannot answer (exit 5) never got to ask the
/// file's other topics: no "never asked" warning may point at them first (issue 26, 10).
#[test]
fn a_replay_that_stops_early_does_not_call_the_files_topics_never_asked() {
    let repo = example_repo();
    let out = Interview::intent(&repo, "42")
        .from(EXAMPLE)
        .answers(r#"{ "interview_answers": 1, "answers": { "stale_topic": "x" } }"#)
        .yes()
        .out("doc.md")
        .run()
        .exits(5);
    assert!(!out.stderr.contains("never asked"), "{}", out.stderr);
}

/// "Some can follow later" is followed by "which?": the next round names the listed lines, and
/// a replay that leaves it unanswered lists it as open. "All of them" asks nothing more.
#[test]
fn some_can_follow_later_is_followed_by_which() {
    let repo = example_repo();
    let answers = |scope: &str| {
        format!(
            r#"{{ "interview_answers": 1, "gate": "y", "answers": {{ "open_point_1": "No Excel for now",
            "open_point_2": "Only admins", "acceptance_criteria": "one CSV file", "vague_fast": "skip",
            "vague_etc": "name, owner", "scope": "{scope}", "error_handling": "Show an error" }} }}"#
        )
    };
    let interview = |scope: &str, out: &str| {
        Interview::intent(&repo, "42")
            .from(EXAMPLE)
            .answers(&answers(scope))
            .args(["--missing", "skip"])
            .yes()
            .out(out)
            .run()
            .exits(0);
        repo.read(out)
    };
    let doc = interview("2", "later.md");
    assert!(
        doc.contains("Some of the listed things (lines 6–8) can follow later: which are in this change, and which follow?"),
        "{doc}"
    );
    assert!(!interview("1", "all.md").contains("can follow later: which"));
}

/// A list whose every line is a question of its own is asked line by line (the item's open
/// points): the scope of the list is not asked again over them.
#[test]
fn a_list_of_questions_gets_no_scope_question_over_them() {
    let repo = TempRepo::new();
    repo.write(
        "item.md",
        "# 9: Export\n\nAdd an export.\n\n- Should it be CSV?\n- Who may export archived projects?\n- Must it run at night?\n",
    );
    let out = Interview::intent(&repo, "9")
        .from("item.md")
        .answers(r#"{ "interview_answers": 1, "gate": "y", "answers": {} }"#)
        .args(["--missing", "skip"])
        .yes()
        .out("doc.md")
        .run();
    out.exits(0);
    let doc = repo.read("doc.md");
    assert!(doc.contains("Who may export archived projects?"), "{doc}");
    assert!(
        !doc.contains("All in this change, or can some follow?"),
        "{doc}"
    );
}
