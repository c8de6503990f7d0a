//! The built-in intent interviewer's first round always reaches a maintainer's decision (issue
//! 39, twenty-seventh pass): a real request is never left with no question — at least its
//! kind's own question, honestly worded when nothing of the repository matched; a question
//! about how to use what exists is not asked which pages to change unless it speaks of the
//! docs; and a report that something is slow keeps the performance questions (what was
//! measured, against what, on what data, with which benchmark) whatever else it reads as.
//! Each on a small repository, not a real issue.

use crate::interviewer::{
    all_questions, assert_honest, assert_not_asked, question, repo_with, topic_list,
};
use interview::testing::Question;

/// A bug report that shows what was run and what came out, but not what should happen.
const SHOWN_NOT_SAID: &str = "# Wrong colours on the second run\n\nOn the master branch I ran:\n\n```\n$ tool paint\n```\n\nThe colours come out inverted.\n";

const PARSE_RS: &str = "/// Parse the arguments of the command line.\npub fn parse(args: &[String]) -> usize {\n    args.len()\n}\n";

#[test]
fn a_report_that_shows_everything_and_matches_nothing_still_gets_a_question() {
    let (repo, subject) = repo_with(&[("src/parse.rs", PARSE_RS)], SHOWN_NOT_SAID);
    let (first, d) = all_questions(&repo, &subject);
    assert!(!first.is_empty(), "an empty first round");
    assert_honest(&repo, &d);
}

const README: &str =
    "# tool\n\n## Output\n\nThe `--color` flag sets when the output is coloured.\n";
const CLI_RS: &str = "pub fn args() -> clap::Command {\n    clap::Command::new(\"tool\")\n        .arg(clap::Arg::new(\"color\").long(\"color\").help(\"When to colour the output\"))\n}\n";

#[test]
fn a_usage_question_is_not_asked_which_pages_to_change() {
    let (repo, subject) = repo_with(
        &[("README.md", README), ("src/cli.rs", CLI_RS)],
        "# `--color` in a pipe\n\nI pipe the output into a pager and pass `--color`.\n\nHow \
         do I keep the colours with `--color` when piping?\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    assert!(
        topic_list(&first).contains(&"support"),
        "{:?}",
        topic_list(&first)
    );
    assert_not_asked(
        &first,
        &["doc_pages", "docs_update", "doc_location", "doc_callers"],
    );
    let way = question(&first, "existing_way");
    assert!(
        way.question_text
            .contains("`--color` is described at README.md:5")
            && way.question_text.contains("src/cli.rs:3"),
        "{}",
        way.question_text
    );
    assert_honest(&repo, &d);
}

const WALK_RS: &str = "/// Walk the tree and print every line that matches.\npub fn walk(root: &str) -> usize {\n    root.len()\n}\n";

#[test]
fn a_slow_report_in_a_bug_template_keeps_the_performance_questions() {
    let (repo, subject) = repo_with(
        &[
            ("src/walk.rs", WALK_RS),
            ("benches/walk.rs", "fn bench_walk() {}\n"),
        ],
        "# Searching is slow on a large tree\n\n## Describe the bug\n\nSearching my home folder \
         takes a long time.\n\n## Steps to reproduce\n\n```\n$ tool search ~\n```\n\n## \
         Expected behavior\n\nIt should finish quickly.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    assert_measurement_asked(&first);
    assert_honest(&repo, &d);
}

#[test]
fn a_question_how_to_go_faster_keeps_the_performance_questions() {
    let (repo, subject) = repo_with(
        &[
            ("src/walk.rs", WALK_RS),
            ("benches/walk.rs", "fn bench_walk() {}\n"),
        ],
        "# How can I make the search faster?\n\nI search my home folder with the tool.\n\nHow \
         can I make it faster?\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let topics = topic_list(&first);
    assert!(topics.contains(&"benchmark"), "{topics:?}");
    let b = question(&first, "benchmark");
    assert!(
        b.question_text.contains("benches/walk.rs"),
        "{}",
        b.question_text
    );
    assert_honest(&repo, &d);
}

#[test]
fn a_report_nearest_an_option_asks_whether_the_option_makes_it_intended() {
    let (repo, subject) = repo_with(
        &[
            (
                "README.md",
                "# tool\n\n## Output\n\n`--color` sets when the output is coloured: `auto` (the default) colours only a terminal, never a pipe.\n",
            ),
            (
                "src/cli.rs",
                "pub fn args() -> clap::Command {\n    clap::Command::new(\"tool\")\n        .arg(clap::Arg::new(\"color\").long(\"color\").default_value(\"auto\").help(\"When to colour the output: auto colours only a terminal\"))\n}\n",
            ),
            (
                "src/paint.rs",
                "pub fn paint(s: &str) -> String {\n    s.to_string()\n}\n",
            ),
        ],
        "# Color not applied when piping into a pager\n\nI run `tool paint | less` with version 1.2 and the output has no color at all, while in the terminal it is colored. Is this a bug?\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let q = question(&first, "nearest_code");
    assert!(
        q.question_text.contains("`--color` (src/cli.rs:3)")
            && q.question_text.contains("intended")
            && q.question_text.contains("default"),
        "{}",
        q.question_text
    );
    assert_honest(&repo, &d);
}

#[test]
fn a_slow_report_with_questions_of_its_own_still_asks_what_was_measured() {
    let (repo, subject) = repo_with(
        &[
            ("src/walk.rs", WALK_RS),
            ("benches/walk.rs", "fn bench_walk() {}\n"),
        ],
        "# Searching got slower on a large tree\n\n## Describe the bug\n\nSearching my home \
         folder takes a long time since I upgraded. Is the walk done twice? Does the cache \
         not help here? Could the ignore files be read for every folder?\n\n## Steps to \
         reproduce\n\n```\n$ tool search ~\n```\n\n## Expected behavior\n\nAs before.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    assert_measurement_asked(&first);
    assert_honest(&repo, &d);
}

#[test]
fn a_wish_about_performance_metrics_is_no_slowness_report() {
    let (repo, subject) = repo_with(
        &[("src/walk.rs", WALK_RS)],
        "# Add performance counters to the report\n\nAdd a section to the report that counts \
         the folders walked and the lines printed.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    assert_not_asked(&first, &["benchmark", "workload", "perf_target"]);
    assert_honest(&repo, &d);
}

#[test]
fn a_round_left_with_nothing_never_says_nothing_matched_when_a_page_did() {
    let (repo, subject) = repo_with(
        &[
            ("src/parse.rs", PARSE_RS),
            (
                "README.md",
                "# tool\n\n## Inverted colours\n\nThe colours come out inverted when the \
                 terminal asks for it.\n",
            ),
        ],
        SHOWN_NOT_SAID,
    );
    let (first, d) = all_questions(&repo, &subject);
    assert!(!first.is_empty(), "an empty first round");
    for q in &first {
        assert!(
            !q.question_text
                .contains("Nothing the repository defines matched"),
            "{}",
            q.question_text
        );
    }
    assert_honest(&repo, &d);
}

#[test]
fn a_fallback_question_does_not_ask_what_the_item_already_says() {
    // The item shows what was run: the round asks only what is still open, quoting it, and
    // never opens with the interviewer's own search report.
    let (repo, subject) = repo_with(&[("src/parse.rs", PARSE_RS)], SHOWN_NOT_SAID);
    let (first, d) = all_questions(&repo, &subject);
    assert!(!first.is_empty(), "an empty first round");
    for q in &first {
        let t = &q.question_text;
        assert!(!t.contains("Which command or part of the program"), "{t}");
        assert!(
            !t.starts_with("Nothing") && !t.starts_with("The nearest"),
            "{t}"
        );
    }
    assert!(
        first
            .iter()
            .any(|q| q.question_text.contains("`$ tool paint`")),
        "{:?}",
        first.iter().map(|q| &q.question_text).collect::<Vec<_>>()
    );
    assert_honest(&repo, &d);
    // One that also says what should happen leaves the kind's own question nothing to ask.
    let (repo, subject) = repo_with(
        &[("src/parse.rs", PARSE_RS)],
        "# Wrong colours on the second run\n\nOn the master branch I ran:\n\n```\n$ tool \
         paint\n```\n\nThe colours come out inverted. They should stay the same on every \
         run.\n",
    );
    let (first, _) = all_questions(&repo, &subject);
    for q in &first {
        let t = q.question_text.to_lowercase();
        assert!(
            !t.contains("which command or part of the program")
                && !t.contains("what should it do instead"),
            "{t}"
        );
    }
}

/// The questions of what was measured: the project's benchmark, and the workload or the target.
fn assert_measurement_asked(first: &[Question]) {
    let topics = topic_list(first);
    assert!(topics.contains(&"benchmark"), "{topics:?}");
    assert!(
        topics.contains(&"workload") || topics.contains(&"perf_target"),
        "{topics:?}"
    );
}
