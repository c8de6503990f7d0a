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

fn replay_42(repo: &TempRepo, answers: &Path, out: &str) -> std::process::Output {
    repo.cmd()
        .args(["intent", "42", "--from", EXAMPLE, "--answers"])
        .arg(answers)
        .args(["--yes", "--out", out])
        .output()
        .unwrap()
}

#[test]
fn the_committed_answers_fixture_replays_end_to_end_with_the_builtin_interviewer() {
    let repo = example_repo();
    let out = replay_42(
        &repo,
        &fixtures().join("answers/intent-42.json"),
        "docs/interviews/intent-42.md",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
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
    assert_eq!(
        replay_42(&repo, &answers, "first.md").status.code(),
        Some(0)
    );
    assert_eq!(
        replay_42(&repo, &answers, "second.md").status.code(),
        Some(0)
    );
    assert_eq!(repo.read("first.md"), repo.read("second.md"));
}

#[test]
fn reflect_replays_are_byte_identical_too() {
    let repo = TempRepo::new();
    for (i, name) in ["a", "b", "c"].iter().enumerate() {
        repo.write(
            &format!("src/{name}.rs"),
            &format!("pub fn {name}() -> u32 {{ {i} }}\n"),
        );
        repo.git(&["add", "-A"]);
        repo.git(&["commit", "-q", "-m", &format!("add {name}")]);
    }
    let answers = repo.path().join(".git/answers.json");
    std::fs::write(&answers, r#"{ "interview_answers": 1, "gate": "n" }"#).unwrap();
    let run = |out: &str| {
        repo.cmd()
            .args(["reflect", "HEAD~3", "--answers"])
            .arg(&answers)
            .args(["--yes", "--missing", "skip", "--out", out])
            .output()
            .unwrap()
    };
    assert_eq!(run("one.md").status.code(), Some(0));
    assert_eq!(run("two.md").status.code(), Some(0));
    assert_eq!(repo.read("one.md"), repo.read("two.md"));
}

#[test]
fn a_recorded_interactive_session_replays_to_the_identical_document() {
    let repo = example_repo();
    let mut pty = Pty::spawn(
        &repo,
        &[
            "intent", "42", "--from", EXAMPLE, "--yes", "--out", "typed.md",
        ],
        &[],
    );
    pty.expect("[Y]");
    pty.send_line("");
    for answer in [
        "Every project of the account in one file",
        "2",
        "Only admins",
        "skip",
        "Retry once, then explain",
    ] {
        pty.expect("> ");
        pty.send_line(answer);
    }
    let (code, screen) = pty.finish();
    assert_eq!(code, 0, "{screen}");

    let printed = repo.run(&["answers"]);
    assert!(printed.status.success());
    let recorded = repo.path().join(".git/recorded.json");
    std::fs::write(&recorded, &printed.stdout).unwrap();

    let out = replay_42(&repo, &recorded, "replayed.md");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(repo.read("typed.md"), repo.read("replayed.md"));
}
