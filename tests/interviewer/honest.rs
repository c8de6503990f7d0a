//! The documents the built-in interviewer leads to are honest: no text from the item creates
//! structure (`pulldown-cmark` reads it), the summary counts what it lists, a runner cannot confirm
//! what the item says by citing it.

use super::*;

// ---------------------------------------------------------------------------------------------
// honest documents

/// The headings of a Markdown document, as a CommonMark parser (with tables) reads them; the
/// raw HTML it finds; and the contents of its code blocks.
struct Structure {
    headings: Vec<(HeadingLevel, String)>,
    html: Vec<String>,
    code: Vec<String>,
    tables: usize,
    lists: usize,
}

fn structure(md: &str) -> Structure {
    let mut s = Structure {
        headings: Vec::new(),
        html: Vec::new(),
        code: Vec::new(),
        tables: 0,
        lists: 0,
    };
    let mut heading: Option<(HeadingLevel, String)> = None;
    let mut code: Option<String> = None;
    for event in Parser::new_ext(md, Options::ENABLE_TABLES) {
        match event {
            Event::Start(Tag::Heading { level, .. }) => heading = Some((level, String::new())),
            Event::End(TagEnd::Heading(_)) => s.headings.extend(heading.take()),
            Event::Start(Tag::CodeBlock(_)) => code = Some(String::new()),
            Event::End(TagEnd::CodeBlock) => s.code.extend(code.take()),
            Event::Start(Tag::Table(_)) => s.tables += 1,
            Event::Start(Tag::List(_)) => s.lists += 1,
            Event::Html(h) | Event::InlineHtml(h) => s.html.push(h.to_string()),
            Event::Text(t) | Event::Code(t) => {
                if let Some((_, h)) = heading.as_mut() {
                    h.push_str(&t);
                }
                if let Some(c) = code.as_mut() {
                    c.push_str(&t);
                }
            }
            _ => {}
        }
    }
    s
}

const HOSTILE: &str = "# Export\n\nA line that wants to be a heading\n---\n\nAnother one\n===\n\n\
# A heading inside the item\n\n<script>alert(1)</script>\n\n<div>\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n\
- a list item\n1. a numbered one\n> a quote\n\n    indented code stays code\n\nRepro:\n\n```sh\n\
cargo run -- --export\n# not a heading in code\n```\n\nShould the export include archived projects?\n\n\
```\nan unclosed fence\n## still code\n";

#[test]
fn no_text_from_the_item_creates_structure_and_its_code_blocks_survive() {
    let repo = TempRepo::new();
    repo.write("item.md", HOSTILE);
    let out = Interview::intent(&repo, "7")
        .from("item.md")
        .preset("builtin")
        .answers(
            r###"{ "interview_answers": 1, "gate": "y", "answers": {
                 "open_point_1": "Yes\n---\n# Not a heading <b>bold</b>",
                 "acceptance_criteria": "skip", "error_handling": "skip", "data_format": "skip",
                 "scope": "skip", "vague_fast": "skip" } }"###,
        )
        .args(["--missing", "skip"])
        .yes()
        .out("-")
        .run()
        .exits(0);
    let md = out.stdout.clone();
    let s = structure(&md);
    // Only the tool's own headings: the title, its groups, its entries, the work item.
    let groups = [
        "Confirmed",
        "Declared by the person",
        "Inferred",
        "Open questions",
        "The work item",
    ];
    for (level, text) in &s.headings {
        match level {
            HeadingLevel::H1 => assert_eq!(text, "Intent of 7: Export"),
            HeadingLevel::H2 => assert!(groups.contains(&text.as_str()), "{text}\n{md}"),
            HeadingLevel::H3 => {}
            other => panic!("a {other:?} heading {text:?} the tool did not write\n{md}"),
        }
    }
    let h1 = s
        .headings
        .iter()
        .filter(|(l, _)| *l == HeadingLevel::H1)
        .count();
    assert_eq!(h1, 1, "{md}");
    for (_, text) in &s.headings {
        assert!(
            !text.contains("heading inside") && !text.contains("wants to be"),
            "{text}"
        );
        assert!(!text.contains("Not a heading"), "{text}");
    }
    let h3 = s
        .headings
        .iter()
        .filter(|(l, _)| *l == HeadingLevel::H3)
        .count();
    let entries: usize = md.matches("\n### ").count();
    assert_eq!(h3, entries, "every H3 is one the tool wrote\n{md}");
    assert!(s.html.is_empty(), "raw HTML: {:?}\n{md}", s.html);
    assert_eq!(s.tables, 0, "{md}");
    assert_eq!(s.lists, 0, "{md}");
    // The item's code blocks, whole, and the unclosed one closed by the tool.
    assert!(
        s.code
            .iter()
            .any(|c| c == "cargo run -- --export\n# not a heading in code\n"),
        "{:?}",
        s.code
    );
    assert!(
        s.code.iter().any(|c| c == "indented code stays code\n"),
        "{:?}",
        s.code
    );
    assert!(
        s.code
            .iter()
            .any(|c| c == "an unclosed fence\n## still code\n"),
        "{:?}",
        s.code
    );
    // Every line of the item's prose is there.
    for line in [
        "A line that wants to be a heading",
        "a list item",
        "alert(1)",
    ] {
        assert!(md.contains(line), "{line} lost\n{md}");
    }
    assert!(!md.contains(".."), "{md}");
}

#[test]
fn the_summary_never_claims_fewer_open_points_than_it_lists() {
    let repo = TempRepo::new();
    repo.write("item.md", &fixture_text("intents/vague-export.md"));
    let out = Interview::intent(&repo, "7")
        .from("item.md")
        .preset("builtin")
        .answers(r#"{ "interview_answers": 1, "gate": "n" }"#)
        .yes()
        .out("-")
        .run()
        .exits(0);
    let md = out.stdout;
    let listed = md.split("## Open questions").nth(1).map_or(0, |rest| {
        rest.split("\n## ")
            .next()
            .unwrap_or("")
            .matches("\n### ")
            .count()
    });
    assert!(listed > 0, "{md}");
    let open = format!(
        "{listed} open question{}",
        if listed == 1 { "" } else { "s" }
    );
    assert!(md.contains(&format!("In this document: {open},")), "{md}");
    assert!(
        md.contains(&format!("{open}; not checked by the built-in interviewer:")),
        "{md}"
    );
    assert!(!md.contains("*Intent: Intent of"), "{md}");
    assert!(!md.contains(".."), "{md}");
}

#[test]
fn a_runner_cannot_confirm_what_the_item_says_by_citing_it() {
    let repo = TempRepo::new();
    repo.write(
        "item.md",
        "# Export\n\nThere has been a regression since 1.3.\n",
    );
    let out = Interview::intent(&repo, "7")
        .from("item.md")
        .runner("confirms-the-item.sh")
        .answers(r#"{ "interview_answers": 1 }"#)
        .yes()
        .out("-")
        .run();
    assert_ne!(out.code, 0, "{}", out.screen());
    let rejected = out.events("receipt_rejected");
    assert!(!rejected.is_empty(), "{}", out.stderr);
    assert!(
        rejected[0].to_string().contains("cites only the work item"),
        "{}",
        rejected[0]
    );
}

#[test]
fn a_feature_is_not_asked_how_it_relates_to_the_help_every_program_has() {
    let parser = "helper :: Parser (a -> a)\nhelper = abortOption ShowHelpText\n  ( long \"help\"\n  <> help \"Show this help text\" )\n";
    let (repo, subject) = repo_with(
        &[("src/Extra.hs", parser)],
        "# Help command\n\nI would like `app install help` to behave like `app install --help`.\n",
    );
    let (first, _) = all_questions(&repo, &subject);
    assert!(
        !topic_list(&first).contains(&"flag_help"),
        "{:?}",
        topic_list(&first)
    );
}

#[test]
fn a_flag_only_in_the_items_command_line_or_in_a_report_is_not_asked_about_as_related() {
    let app = "pub fn build() -> App {\n    App::new(\"app\")\n        .arg(Arg::new(\"paging\").long(\"paging\").takes_value(true))\n}\n";
    // Its own command line names `--paging`: how it ran, not what it wishes for.
    let (repo, subject) = repo_with(
        &[("src/app.rs", app)],
        "# Add a wrap mode\n\nI would like long lines wrapped. I run `app --paging never big.txt`:\n\n```\n$ app --paging never big.txt\n```\n",
    );
    let (first, _) = all_questions(&repo, &subject);
    assert!(
        !topic_list(&first).contains(&"flag_paging"),
        "{:?}",
        topic_list(&first)
    );
    // A report read as a feature: it names the flag, and a trace shows what failed.
    let (repo, subject) = repo_with(
        &[("src/app.rs", app)],
        "# Add a fallback for `--paging`\n\nWith `--paging` the pager dies:\n\n```\nthread 'main' panicked at 'broken pipe', src/app.rs:3\nstack backtrace:\n```\n",
    );
    let (first, _) = all_questions(&repo, &subject);
    assert!(
        !topic_list(&first).contains(&"flag_paging"),
        "{:?}",
        topic_list(&first)
    );
}

#[test]
fn a_flag_the_new_one_extends_is_asked_about_as_related_not_as_asked_for() {
    let app = "pub fn build() -> App {\n    App::new(\"app\")\n        .arg(Arg::new(\"exclude\").long(\"exclude\").takes_value(true))\n}\n";
    let (repo, subject) = repo_with(
        &[
            ("src/app.rs", app),
            ("CHANGELOG.md", "# 1.0\n\n- `--exclude` added\n"),
        ],
        "# Add `--exclude-regex`\n\nA regex twin of the existing `--exclude` glob option.\n",
    );
    let (first, _) = all_questions(&repo, &subject);
    let related = question(&first, "flag_exclude");
    assert!(
        related.question_text.contains("src/app.rs:3"),
        "{}",
        related.question_text
    );
    assert!(
        !topic_list(&first).contains(&"existing_exclude"),
        "{:?}",
        topic_list(&first)
    );
    // A changelog is history: not a page to update.
    for q in &first {
        assert!(
            !q.question_text.contains("CHANGELOG.md"),
            "{}",
            q.question_text
        );
    }
}
