//! The built-in intent interviewer on bug reports without a template, read as reports from
//! their structure (a crash after a shown command, a quoted message beside the command line,
//! "does nothing" with a version), and asked what a maintainer asks of one — where the message
//! is printed, the input and platform of a crash with the program's own verbose flag — never a
//! feature's questions about "the new behaviour" of an option the reporter happened to pass.

use crate::interviewer::{
    all_questions, assert_cited_lines_exist, assert_honest, kind_entry, message_question, question,
    repo_with, topic_list,
};

const CLI_RS: &str = "pub fn args() -> clap::Command {\n    clap::Command::new(\"tool\")\n        .arg(clap::Arg::new(\"indent\").long(\"indent\").help(\"Spaces per level\"))\n        .arg(clap::Arg::new(\"range\").long(\"range\").help(\"Lines to format\"))\n        .arg(clap::Arg::new(\"self\").long(\"self\").help(\"Insert or remove self\"))\n        .arg(clap::Arg::new(\"verbose\").long(\"verbose\").help(\"Print each file as it is formatted\"))\n}\n";
const RANGE_RS: &str = "pub fn range(v: &str) -> Result<(u32, u32), String> {\n    let (a, b) = v.split_once(':').ok_or_else(|| format!(\"Unsupported --range value '{v}'\"))?;\n    Ok((a.parse().unwrap_or(0), b.parse().unwrap_or(0)))\n}\n";

/// No question presumes new behaviour, or anchors on an option of the reporter's command line.
fn asks_no_feature_question(first: &[interview::testing::Question], options: &[&str]) {
    for q in first {
        assert!(
            !q.question_text.contains("new behaviour")
                && !q.question_text.contains("acceptance criteria")
                && !options.iter().any(|o| q.question_text.contains(o)),
            "a feature's question on a report: {}",
            q.question_text
        );
    }
}

#[test]
fn a_crash_after_a_shown_command_asks_the_input_with_the_verbose_flag_and_the_platform() {
    let (repo, subject) = repo_with(
        &[("src/cli.rs", CLI_RS), ("src/range.rs", RANGE_RS)],
        "# What does `Illegal instruction: 4` mean?\n\nI ran this on my project:\n\n```\ntool \
         --indent 2 .\nRunning tool...\nIllegal instruction: 4\n```\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    assert!(kind_entry(&d).contains("bug report"), "{}", kind_entry(&d));
    let steps = question(&first, "exact_steps");
    assert!(
        steps
            .question_text
            .contains("On which input does it crash (`--verbose` at src/cli.rs:6")
            && steps.question_text.contains("Which OS"),
        "{}",
        steps.question_text
    );
    // The system's words for a crash are no message of the project's to look for.
    assert!(
        !topic_list(&first).iter().any(|t| t.starts_with("message_")),
        "{:?}",
        topic_list(&first)
    );
    asks_no_feature_question(&first, &["`--indent`"]);
    assert_cited_lines_exist(&repo, &steps.question_text);
    assert_honest(&repo, &d);
}

#[test]
fn a_message_quoted_in_prose_is_placed_where_the_program_prints_it_and_not_asked_back() {
    let (repo, subject) = repo_with(
        &[("src/cli.rs", CLI_RS), ("src/range.rs", RANGE_RS)],
        "# --range rejected\n\nMy command line:\n\n```\ntool a.txt --range 1,2 --self remove\n\
         ```\n\nIt prints `error: Unsupported --range value '1,2'` and exits. What does that \
         mean?\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    assert!(kind_entry(&d).contains("bug report"), "{}", kind_entry(&d));
    let message = message_question(&first);
    assert!(
        message.question_text.contains("src/range.rs:2"),
        "{}",
        message.question_text
    );
    assert!(
        !topic_list(&first)
            .iter()
            .any(|t| t.starts_with("open_point")),
        "{:?}",
        topic_list(&first)
    );
    asks_no_feature_question(&first, &["`--self`"]);
    assert_cited_lines_exist(&repo, &message.question_text);
    assert_honest(&repo, &d);
}

#[test]
fn a_command_said_to_do_nothing_is_a_report_and_no_message() {
    let (repo, subject) = repo_with(
        &[("src/cli.rs", CLI_RS), ("src/range.rs", RANGE_RS)],
        "# tool local does nothing\n\nWhen I run `tool local 3.8` in my project nothing \
         happens: no file is written. tool 1.2 on macOS.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    assert!(kind_entry(&d).contains("bug report"), "{}", kind_entry(&d));
    let topics = topic_list(&first);
    assert!(
        !topics
            .iter()
            .any(|t| t.starts_with("message_") || *t == "expected_behaviour"),
        "{topics:?}"
    );
    asks_no_feature_question(&first, &[]);
    assert_honest(&repo, &d);
}

#[test]
fn a_report_that_quotes_its_configuration_is_asked_only_whether_another_file_sets_more() {
    let cli = CLI_RS.replace(
        "        .arg(clap::Arg::new(\"verbose\")",
        "        .arg(clap::Arg::new(\"config\").long(\"config\").help(\"The config file to read\"))\n        .arg(clap::Arg::new(\"verbose\")",
    );
    let (repo, subject) = repo_with(
        &[("src/cli.rs", &cli), ("src/range.rs", RANGE_RS)],
        "# --range is ignored\n\nWhen I run `tool a.txt --range 1:2` I get the whole file \
         formatted. My config file has:\n\n```\n--indent 4\n--self remove\n```\n\ntool 1.2 on \
         Linux.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    assert!(kind_entry(&d).contains("bug report"), "{}", kind_entry(&d));
    let steps = question(&first, "exact_steps");
    assert!(
        steps
            .question_text
            .contains("only the one quoted, or another too?")
            && !steps.question_text.contains("with what in it"),
        "{}",
        steps.question_text
    );
    asks_no_feature_question(&first, &["`--self`", "`--indent`"]);
    assert_cited_lines_exist(&repo, &steps.question_text);
    assert_honest(&repo, &d);
}

#[test]
fn a_comment_in_an_example_is_never_first_in_code_while_the_source_names_it() {
    let (repo, subject) = repo_with(
        &[
            (
                "examples/required.js",
                "// You may make an option required with `.requiredOption`.\nprogram.requiredOption('-c, --cheese <type>');\n",
            ),
            (
                "index.js",
                "Command.prototype.requiredOption = function(flags) {\n  return this;\n};\n",
            ),
        ],
        "# `requiredOption` is not enforced\n\nThe option `requiredOption` declares is not checked.\n",
    );
    let (_, d) = all_questions(&repo, &subject);
    let e = d
        .entries
        .iter()
        .find(|e| e.title == "`requiredOption` in the repository")
        .unwrap_or_else(|| panic!("{d:?}"));
    assert!(
        !e.content.contains("examples/required.js:1:"),
        "{}",
        e.content
    );
    assert!(
        e.content.contains("index.js:1") && !e.content.starts_with("First in code at examples"),
        "{}",
        e.content
    );
}
