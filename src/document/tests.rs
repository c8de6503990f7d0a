//! Unit tests of `src/document.rs`.

use super::*;

fn entry(title: &str, clarity: Clarity, sources: &[&str]) -> Entry {
    Entry {
        title: title.into(),
        content: format!("About {title}."),
        clarity,
        sources: sources.iter().map(|s| s.to_string()).collect(),
    }
}

fn done(entries: Vec<Entry>) -> Done {
    Done {
        title: "Intent of 42: export to CSV".into(),
        summary: "Summary.".into(),
        entries,
    }
}

#[test]
fn groups_come_in_clarity_order_with_open_questions_last() {
    let d = done(vec![
        entry("open one", Clarity::OpenQuestion, &[]),
        entry("said", Clarity::DeclaredByUser, &["qa:scope"]),
        entry("seen", Clarity::Confirmed, &["src/a.rs:4"]),
        entry("guessed", Clarity::Inferred, &[]),
    ]);
    let md = render(&d, Kind::Intent, "Intent of 42");
    let at = |s: &str| md.find(s).unwrap_or_else(|| panic!("{s} in {md}"));
    assert!(at("## Confirmed") < at("## Declared by the person"));
    assert!(at("## Declared by the person") < at("## Inferred"));
    assert!(at("## Inferred") < at("## Open questions"));
    assert!(md.contains("Sources: `src/a.rs:4`"));
    assert!(md.contains("Sources: answer to `scope`"));
}

#[test]
fn documents_carry_no_local_path_or_session_id() {
    let mut e = entry("x", Clarity::Inferred, &[]);
    e.content =
            "See .interview/sessions/intent-42-20250101T101010-deadbeef/brief.md and intent-42-20250101T101010-deadbeef."
                .into();
    let md = render(&done(vec![e]), Kind::Intent, "t");
    assert!(!md.contains(".interview/"), "{md}");
    assert!(!md.contains("deadbeef"), "{md}");
}

#[test]
fn entry_text_cannot_open_a_heading() {
    let mut e = entry("x", Clarity::Inferred, &[]);
    e.content = "# Not a heading\ntext".into();
    let md = render(&done(vec![e]), Kind::Reflect, "t");
    assert!(md.contains("\\# Not a heading"), "{md}");
}

#[test]
fn notice_counts_open_entries_and_says_when_qa_was_skipped() {
    let d = done(vec![
        entry("Which encodings?", Clarity::OpenQuestion, &[]),
        entry("seen", Clarity::Confirmed, &["a:1"]),
    ]);
    let written = Delivery::Written("docs/interviews/x.md".into());
    let text = open_questions_notice(&d, 1, false, &written).unwrap();
    assert!(text.starts_with("ℹ️  1 topic(s) remain ambiguous (Q&A was skipped):\n"));
    assert!(text.contains("  · Which encodings?\n"));
    assert!(open_questions_notice(&done(vec![]), 1, false, &written).is_none());
}

#[test]
fn notice_does_not_say_qa_was_skipped_when_something_was_answered() {
    let d = done(vec![
        entry("Which encodings?", Clarity::OpenQuestion, &[]),
        entry("Where it runs", Clarity::DeclaredByUser, &["qa:where"]),
    ]);
    let written = Delivery::Written("docs/interviews/x.md".into());
    let text = open_questions_notice(&d, 1, true, &written).unwrap();
    assert!(
        text.starts_with("ℹ️  1 topic(s) remain ambiguous (skipped in the Q&A):\n"),
        "{text}"
    );
    assert!(!text.contains("Q&A was skipped"), "{text}");
}

#[test]
fn notice_counts_the_skipped_topics_it_names() {
    let d = done(
        ["A", "B", "C", "D"]
            .iter()
            .map(|t| entry(t, Clarity::OpenQuestion, &[]))
            .collect(),
    );
    let written = Delivery::Written("docs/interviews/x.md".into());
    let text = open_questions_notice(&d, 2, false, &written).unwrap();
    assert!(
        text.starts_with("ℹ️  4 topic(s) remain ambiguous (2 of them skipped in the Q&A):\n"),
        "{text}"
    );
    let text = open_questions_notice(&d, 0, false, &written).unwrap();
    assert!(
        text.starts_with("ℹ️  4 topic(s) remain ambiguous:\n"),
        "{text}"
    );
}

#[test]
fn notice_says_what_became_of_the_document() {
    let d = done(vec![entry("Scope", Clarity::OpenQuestion, &[])]);
    let stopped = open_questions_notice(&d, 1, false, &Delivery::NotWritten).unwrap();
    assert!(!stopped.contains("in the document"), "{stopped}");
    assert!(stopped.contains("No document was written"), "{stopped}");
    let printed = open_questions_notice(&d, 1, false, &Delivery::Printed).unwrap();
    assert!(printed.contains("in the printed document"), "{printed}");
}

#[test]
fn uncovered_skips_become_open_questions_once() {
    let mut d = done(vec![entry("said", Clarity::DeclaredByUser, &["qa:scope"])]);
    let skipped = vec![
        ("scope".to_string(), "What is out of scope?".to_string()),
        ("users".to_string(), "Who uses it?".to_string()),
    ];
    add_uncovered_skips(&mut d, &skipped);
    add_uncovered_skips(&mut d, &skipped);
    let open: Vec<_> = d
        .entries
        .iter()
        .filter(|e| e.clarity == Clarity::OpenQuestion)
        .collect();
    assert_eq!(open.len(), 1);
    assert_eq!(open[0].title, "Who uses it?");
}

#[test]
fn clarifications_are_appended_as_a_new_section() {
    let out = clarifications_section(
        "# Spec\n\nBody.\n",
        "2025-03-01",
        &[("Which format?".into(), "CSV".into())],
    );
    assert_eq!(
        out,
        "# Spec\n\nBody.\n\n## Clarifications\n\n### Session 2025-03-01\n\n- Q: Which format? → A: CSV\n"
    );
}

#[test]
fn clarifications_reuse_the_existing_heading_and_leave_the_rest_alone() {
    let existing = "# Spec\n\n## Clarifications\n\n### Session 2025-01-01\n\n- Q: a → A: b\n\n## Requirements\n\nR1.\n";
    let out = clarifications_section(existing, "2025-03-01", &[("c".into(), "d".into())]);
    assert_eq!(
        out,
        "# Spec\n\n## Clarifications\n\n### Session 2025-01-01\n\n- Q: a → A: b\n\n### Session 2025-03-01\n\n- Q: c → A: d\n\n## Requirements\n\nR1.\n"
    );
}

#[test]
fn clarifications_of_the_same_day_join_that_session() {
    let existing = "## Clarifications\n\n### Session 2025-03-01\n\n- Q: a → A: b\n";
    let out = clarifications_section(existing, "2025-03-01", &[("c".into(), "d".into())]);
    assert_eq!(
        out,
        "## Clarifications\n\n### Session 2025-03-01\n\n- Q: a → A: b\n- Q: c → A: d\n"
    );
}

#[test]
fn clarifications_write_the_questions_and_answers_as_text() {
    let out = clarifications_section(
        "# Spec\n",
        "2025-03-01",
        &[(
            "Keep <img src=x onerror=alert(1)>?\u{1b}[2J".into(),
            "![](https://example.invalid/?leak=1) \u{202E}".into(),
        )],
    );
    assert!(
            out.ends_with(
                "- Q: Keep \\<img src=x onerror=alert(1)>? → A: !\\[](`https://example.invalid/?leak=1`) \\<U+202E>\n"
            ),
            "{out}"
        );
}

#[test]
fn out_paths_are_one_safe_file_name() {
    assert_eq!(
        default_out_path(Kind::Reflect, "v1.2.0"),
        "docs/interviews/reflect-v1.2.0.md"
    );
    assert_eq!(
        default_out_path(Kind::Reflect, "HEAD~20"),
        "docs/interviews/reflect-HEAD-20.md"
    );
    assert_eq!(
        default_out_path(Kind::Intent, "../../etc/passwd"),
        "docs/interviews/intent-etc-passwd.md"
    );
    assert_eq!(
        default_out_path(Kind::Intent, "///"),
        "docs/interviews/intent-untitled.md"
    );
}
