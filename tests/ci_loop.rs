//! Issue 37: the CI loop holds over time. The life of a CI fixture with the built-in runner at a
//! real terminal, as docs/ci.md tells it: record → commit → replay identical; the code moves →
//! the replay differs → the refresh at the terminal asks nothing answered and writes exactly the
//! replay's document → record → replay identical; the item gains a question → CI stops with
//! exit 5 naming it → the terminal asks only it → record → replay identical.

use crate::util::*;

const ITEM: &str = "# 42: Export the project list to CSV\n\n\
`export_projects` writes the list by hand today. Make it write a CSV file.\n\n\
- It should be fast, even for big accounts.\n\
- Maybe also offer Excel?\n";

const CODE: &str = "pub fn other() {}\n\n/// Writes the projects.\n\
pub fn export_projects(out: &mut String) {\n    out.push_str(\"name,owner\\n\");\n}\n";

const FIXTURE: &str = "ci/answers/intent-42.json";
const DOC: &str = "docs/interviews/intent-42.md";

/// A repository with the work item and the code it names, committed.
fn project() -> TempRepo {
    let repo = TempRepo::new();
    repo.write("item.md", ITEM);
    repo.write("src/export.rs", CODE);
    commit(&repo, "the work item and its code");
    repo
}

fn commit(repo: &TempRepo, message: &str) {
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", message]);
}

/// `interview intent 42 --from item.md --runner builtin` at a terminal.
fn at_the_terminal(repo: &TempRepo) -> Pty {
    Interview::intent(repo, "42")
        .from("item.md")
        .preset("builtin")
        .at_terminal()
}

/// docs/ci.md's step 1: `interview answers intent 42 -o FIXTURE`, committed with the document.
fn record_and_commit(repo: &TempRepo) -> serde_json::Value {
    let out = repo.run(&["answers", "intent", "42", "-o", FIXTURE]);
    assert!(out.status.success(), "{}", stderr(&out));
    commit(repo, "the interview and its answers");
    serde_json::from_str(&repo.read(FIXTURE)).unwrap()
}

/// docs/ci.md's job: the replay of the committed answers into a fresh file.
fn replay(repo: &TempRepo) -> (Outcome<'_>, String) {
    let out = repo.scratch("ci-intent-42.md");
    let _ = std::fs::remove_file(&out);
    let run = Interview::intent(repo, "42")
        .from("item.md")
        .preset("builtin")
        .answers_file(repo.path().join(FIXTURE))
        .yes()
        .out(out.to_str().unwrap())
        .run();
    let doc = std::fs::read_to_string(&out).unwrap_or_default();
    (run, doc)
}

/// Write the document at the consent gate, and over the earlier one when there is one.
fn write_it(pty: &mut Pty, screen: &mut String, over_an_earlier_one: bool) {
    screen.push_str(&pty.answer("Choose A, B, C or D", "A"));
    if over_an_earlier_one {
        screen.push_str(&pty.answer("Choose A, B or C", "A"));
    }
}

#[test]
fn the_life_of_a_ci_fixture_with_the_builtin_runner_at_a_terminal() {
    let repo = project();

    // Record at the terminal, commit, replay: identical.
    let mut pty = at_the_terminal(&repo);
    let mut screen = pty.answer("N to skip entirely.", "y");
    for (question, typed) in [
        ("Maybe also offer Excel?", "No Excel for now"),
        ("Follow its pattern", "1"),
        (
            "What is the measurable target",
            "Under a second for 10 000 projects",
        ),
    ] {
        screen.push_str(&pty.expect(question));
        screen.push_str(&pty.answer("> ", typed));
    }
    write_it(&mut pty, &mut screen, false);
    let (code, rest) = pty.finish();
    assert_eq!(code, 0, "{screen}{rest}");
    let first = record_and_commit(&repo);
    assert_eq!(
        first["answers"]["follow_export_projects"], "1",
        "an option number is recorded as typed: {first}"
    );
    let (run, replayed) = replay(&repo);
    assert_eq!(run.code, 0, "{}", run.screen());
    assert_eq!(replayed, repo.read(DOC), "day 1: the replay differs");

    // The code moves: the replay rightly differs; the refresh at the terminal asks nothing that
    // is answered and writes exactly the replay's document.
    repo.write("src/export.rs", &format!("//! Export.\n\n{CODE}"));
    commit(&repo, "the code moves");
    let (run, moved) = replay(&repo);
    assert_eq!(run.code, 0, "{}", run.screen());
    assert_ne!(
        moved,
        repo.read(DOC),
        "the document cites the code that moved"
    );
    let mut pty = at_the_terminal(&repo);
    let mut screen = String::new();
    write_it(&mut pty, &mut screen, true);
    let (code, rest) = pty.finish();
    screen.push_str(&rest);
    assert_eq!(code, 0, "{screen}");
    assert!(!screen.contains("Nothing is open"), "{screen}");
    assert!(!screen.contains("Q&A Progress"), "asked again:\n{screen}");
    assert_eq!(
        repo.read(DOC),
        moved,
        "the refresh is not the replay's document"
    );
    let refreshed = record_and_commit(&repo);
    assert_eq!(
        refreshed["answers"], first["answers"],
        "the carried answers are recorded as they were typed"
    );
    let (run, replayed) = replay(&repo);
    assert_eq!(run.code, 0, "{}", run.screen());
    assert_eq!(
        replayed,
        repo.read(DOC),
        "after the refresh: the replay differs"
    );

    // The item gains a question: CI stops naming it; the terminal asks only it.
    repo.write(
        "item.md",
        &format!("{ITEM}\nWho may export archived projects?\n"),
    );
    commit(&repo, "the item gains a question");
    let (run, _) = replay(&repo);
    assert_eq!(run.code, 5, "{}", run.screen());
    assert!(run.stderr.contains("open_point_2"), "{}", run.stderr);
    assert!(
        run.stderr.contains("Who may export archived projects?"),
        "{}",
        run.stderr
    );
    let mut pty = at_the_terminal(&repo);
    let mut screen = pty.answer("N to skip entirely.", "y");
    assert!(
        !screen.contains("DECISION REQUIRED"),
        "the failed replay is offered for resuming:\n{screen}"
    );
    screen.push_str(&pty.expect("Question 1 of 1"));
    screen.push_str(&pty.expect("Who may export archived projects?"));
    screen.push_str(&pty.answer("> ", "Only admins"));
    write_it(&mut pty, &mut screen, true);
    let (code, rest) = pty.finish();
    screen.push_str(&rest);
    assert_eq!(code, 0, "{screen}");
    let grown = record_and_commit(&repo);
    assert_eq!(grown["answers"]["open_point_2"], "Only admins", "{grown}");
    let (run, replayed) = replay(&repo);
    assert_eq!(run.code, 0, "{}", run.screen());
    assert!(replayed.contains("Only admins"), "{replayed}");
    assert_eq!(
        replayed,
        repo.read(DOC),
        "after the new question: the replay differs"
    );
}

/// docs/ci.md's job step: `--check` replays, writes nothing, and exits 0 while the committed
/// document is what the answers give; once it is not, exit 7 with a unified diff on standard
/// output and the commands that refresh it on standard error.
#[test]
fn check_compares_the_replay_with_the_committed_document_and_writes_nothing() {
    let repo = project();
    repo.write(FIXTURE, ANSWERED);
    // No committed document yet: the check says so and writes none.
    let missing = check(&repo).exits(7);
    assert!(
        missing.stderr.contains("does not exist"),
        "{}",
        missing.stderr
    );
    assert!(!repo.path().join(DOC).exists());
    Interview::intent(&repo, "42")
        .from("item.md")
        .preset("builtin")
        .answers_file(FIXTURE)
        .yes()
        .run()
        .exits(0);
    commit(&repo, "the interview and its answers");
    let same = check(&repo).exits(0);
    assert_eq!(same.stdout, "", "nothing to show when they agree");

    repo.write("src/export.rs", &format!("//! Export.\n\n{CODE}"));
    commit(&repo, "the code moves");
    let committed = repo.read(DOC);
    let differs = check(&repo).exits(7);
    assert!(
        differs
            .stdout
            .starts_with(&format!("--- a/{DOC}\n+++ b/{DOC} (replayed)\n@@ ")),
        "{}",
        differs.stdout
    );
    assert!(
        differs.stdout.contains("\n-Defined at src/export.rs:4"),
        "{}",
        differs.stdout
    );
    assert!(
        differs.stdout.contains("\n+Defined at src/export.rs:6"),
        "{}",
        differs.stdout
    );
    for line in [
        "interview intent 42 --from item.md --runner builtin\n",
        &format!("interview answers intent 42 -o {FIXTURE}\n"),
    ] {
        assert!(differs.stderr.contains(line), "{line}:\n{}", differs.stderr);
    }
    assert_eq!(repo.read(DOC), committed, "--check wrote the document");
    assert_eq!(
        repo.git(&["status", "--porcelain"]),
        "",
        "--check wrote a file"
    );
}

/// `interview intent 42 --from item.md --runner builtin --answers FIXTURE --check`.
fn check(repo: &TempRepo) -> Outcome<'_> {
    Interview::intent(repo, "42")
        .from("item.md")
        .preset("builtin")
        .answers_file(FIXTURE)
        .arg("--check")
        .run()
}

/// Issue 40: a re-run with another runner on an item whose document leaves nothing open
/// interviews as the one rule says: that runner's questions are asked (none of them was
/// answered), never "Nothing is open".
#[test]
fn a_re_run_with_another_runner_on_an_answered_item_asks_that_runners_questions() {
    let repo = project();
    repo.write(FIXTURE, ANSWERED);
    Interview::intent(&repo, "42")
        .from("item.md")
        .preset("builtin")
        .answers_file(FIXTURE)
        .yes()
        .run()
        .exits(0);
    assert!(!repo.read(DOC).contains("## Open questions"));
    let mut pty = Interview::intent(&repo, "42")
        .from("item.md")
        .runner("honest.sh")
        .yes()
        .at_terminal();
    let mut screen = pty.answer("N to skip entirely.", "n");
    screen.push_str(&pty.answer("Choose A, B or C", "C"));
    let (code, rest) = pty.finish();
    assert_eq!(code, 0, "{screen}{rest}");
    assert!(!screen.contains("Nothing is open"), "{screen}");
}

/// Every question of [`ITEM`] answered (what a person would type).
const ANSWERED: &str = r#"{ "interview_answers": 1, "answers": {
    "open_point_1": "No Excel for now", "follow_export_projects": "1",
    "vague_fast": "Under a second" } }"#;

/// A replay that stopped (exit 5) and is resumed after the code moved writes the document a
/// fresh replay of the same answers writes: its questions are cited as they are asked now, not
/// with the line numbers of the run that stopped.
#[test]
fn a_resumed_replay_writes_what_a_fresh_run_with_the_same_answers_writes() {
    let repo = project();
    let partial = r#"{ "interview_answers": 1, "answers": { "open_point_1": "No Excel for now",
        "follow_export_projects": "1" } }"#;
    Interview::intent(&repo, "42")
        .from("item.md")
        .preset("builtin")
        .answers(partial)
        .yes()
        .out("stopped.md")
        .run()
        .exits(5);
    repo.write("src/export.rs", &format!("//! Export.\n\n{CODE}"));
    commit(&repo, "the code moves");
    repo.write(FIXTURE, ANSWERED);
    Interview::resume(&repo)
        .answers_file(FIXTURE)
        .yes()
        .out("resumed.md")
        .run()
        .exits(0);
    Interview::intent(&repo, "42")
        .from("item.md")
        .preset("builtin")
        .answers_file(FIXTURE)
        .yes()
        .out("fresh.md")
        .run()
        .exits(0);
    assert!(repo.read("fresh.md").contains("src/export.rs:6"));
    assert_eq!(repo.read("resumed.md"), repo.read("fresh.md"));
}
