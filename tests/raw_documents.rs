//! Documents that read well raw (issue 28): real Markdown list items, the commits a range
//! resolved to in its title, the tool's own files never asked about as churn or untested code,
//! and a closing notice whose counts and words match what happened.

use std::os::unix::fs::PermissionsExt;

use interview::testing::reflect;

use crate::util::{Interview, TempRepo};

const SKIP_ALL: &str = r#"{ "interview_answers": 1, "gate": "n" }"#;

fn short(repo: &TempRepo, rev: &str) -> String {
    repo.git(&["rev-parse", rev]).trim()[..8].to_string()
}

#[test]
fn a_document_lists_with_list_items_not_escaped_dashes() {
    let repo = TempRepo::new();
    repo.commit_files(&["a", "b", "c"]);
    let md = Interview::reflect(&repo, "HEAD~3")
        .preset("builtin")
        .answers(SKIP_ALL)
        .yes()
        .out("-")
        .run()
        .exits(0)
        .stdout;
    assert!(md.contains("\n- `src/a.rs`: +1 −0 in 1 commit\n"), "{md}");
    assert!(!md.contains("\\- "), "{md}");
}

#[test]
fn a_moving_revision_is_titled_by_the_commits_it_resolved_to() {
    let repo = TempRepo::new();
    repo.commit_files(&["a", "b"]);
    repo.git(&["tag", "v1", "HEAD~1"]);
    let (base, head) = (short(&repo, "HEAD~2"), short(&repo, "HEAD"));
    let md = Interview::reflect(&repo, "HEAD~2")
        .preset("builtin")
        .answers(SKIP_ALL)
        .yes()
        .out("-")
        .run()
        .exits(0)
        .stdout;
    assert!(
        md.starts_with(&format!("# Reflection on {base}..{head}\n")),
        "{md}"
    );
    assert!(
        md.contains(&format!(
            "*Retrospective: Reflection on the work since {base}*"
        )),
        "{md}"
    );
    assert!(!md.contains("HEAD"), "{md}");
    // A tag does not move: it keeps its name; HEAD is still the commit it was.
    let md = Interview::reflect(&repo, "v1")
        .preset("builtin")
        .answers(SKIP_ALL)
        .yes()
        .out("-")
        .run()
        .exits(0)
        .stdout;
    assert!(
        md.starts_with(&format!("# Reflection on v1..{head}\n")),
        "{md}"
    );
}

#[test]
fn the_tools_own_files_are_neither_churn_nor_untested_code() {
    let repo = TempRepo::new();
    repo.git(&["tag", "v1"]);
    // The tool's own files, each larger than any change to code: a document, answers files
    // where the README and docs/ci.md record them, its configuration.
    repo.write("docs/interviews/reflect-v0.md", &"- a point\n".repeat(400));
    let answers = format!(
        "{{ \"interview_answers\": 1, \"answers\": {{\n{}\n  \"last\": \"x\" }} }}\n",
        (0..300)
            .map(|i| format!("  \"topic_{i}\": \"skip\","))
            .collect::<Vec<_>>()
            .join("\n")
    );
    repo.write("my-answers.json", &answers);
    repo.write("ci/answers/intent-9.json", &answers);
    repo.write("interview.toml", "max_turns = 3\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "record the interview"]);
    // Documentation and test data only: no code changed.
    repo.write("docs/guide.md", &"A guide.\n".repeat(50));
    repo.write("fixtures/items/7.json", "{ \"title\": \"x\" }\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "docs and fixtures"]);
    // The one commit that changed code and no test.
    repo.write("src/lib.rs", "pub fn answer() -> u32 {\n    43\n}\n");
    repo.git(&["commit", "-q", "-am", "change the answer"]);
    let f = reflect::gather(repo.path(), "v1").unwrap();
    for own in [
        "docs/interviews/reflect-v0.md",
        "my-answers.json",
        "ci/answers/intent-9.json",
        "interview.toml",
    ] {
        assert!(
            !f.churn.iter().any(|c| c.path == own),
            "{own}: {:?}",
            f.churn
        );
        assert!(!f.notable_churn.iter().any(|c| c.path == own), "{own}");
    }
    assert_eq!(
        f.notable_churn[0].path, "docs/guide.md",
        "{:?}",
        f.notable_churn
    );
    assert_eq!(f.tests.commits_touching_code, 1, "{:?}", f.tests);
    assert_eq!(f.tests.commits_code_without_tests, 1, "{:?}", f.tests);
    let untested: Vec<&str> = f
        .tests
        .code_without_tests
        .iter()
        .map(|c| c.subject.as_str())
        .collect();
    assert_eq!(untested, ["change the answer"]);
    // Every line is still counted, as `git log --numstat` counts it.
    assert_eq!(f.files_changed, 7);
}

/// A runner that asks two questions, then finishes with two more points left open that it
/// never asked about.
const ASKS_TWO_LEAVES_TWO: &str = r#"#!/bin/sh
if [ "$INTERVIEW_TURN" = 1 ] && [ "$INTERVIEW_FINAL" = 0 ]; then
  echo '{"receipt":"ask","version":1,"questions":[{"topic":"scope","question_text":"What is in scope?","severity":6},{"topic":"users","question_text":"Who uses it?","severity":5}]}'
else
  echo '{"receipt":"done","version":1,"title":"T","summary":"S","entries":[{"title":"The deadline","content":"Nobody said.","clarity":"open-question","sources":[]},{"title":"The budget","content":"Nobody said.","clarity":"open-question","sources":[]}]}'
fi > "$INTERVIEW_RECEIPT"
"#;

fn runner(repo: &TempRepo) -> String {
    let path = repo.scratch("asks-two-leaves-two.sh");
    std::fs::write(&path, ASKS_TWO_LEAVES_TWO).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path.display().to_string()
}

#[test]
fn the_notice_counts_the_questions_the_person_skipped() {
    let repo = TempRepo::new();
    let err = Interview::of_work_item(&repo)
        .preset(&runner(&repo))
        .answers(SKIP_ALL)
        .yes()
        .run()
        .exits(0)
        .stderr;
    assert!(
        err.contains("ℹ️  4 topic(s) remain ambiguous (2 of them skipped in the Q&A):\n"),
        "{err}"
    );
    assert!(
        err.contains("tagged clarity: open-question in the document."),
        "{err}"
    );
}

#[test]
fn after_stopping_without_writing_the_notice_tags_nothing_in_a_document() {
    let repo = TempRepo::new();
    let err = Interview::of_work_item(&repo)
        .preset(&runner(&repo))
        .answers(r#"{ "interview_answers": 1, "gate": "n", "decisions": { "consent": "C" } }"#)
        .run()
        .exits(0)
        .stderr;
    assert!(err.contains("Stopped without writing anything"), "{err}");
    assert!(err.contains("4 topic(s) remain ambiguous"), "{err}");
    assert!(!err.contains("in the document"), "{err}");
    assert!(err.contains("No document was written"), "{err}");
}
