//! The built-in intent interviewer against the ways it was found to misread real issues
//! (issue 26's findings), each on a small repository and item that reproduces it: the kind read
//! from real templates, flags found by their declarations over several lines, never a test line
//! as a definition, short flags looked up, dependency candidates that are packages, counts that
//! are right and equal to what the document lists, and no boilerplate where something concrete
//! was found.

use interview::testing::{Clarity, Done, Question};

use crate::interviewer::{
    END_USER, all_questions, assert_honest, assert_kind, kind_entry, option_values, question,
    repo_with, topic_list,
};

fn every_topic(first: &[Question], d: &Done) -> Vec<String> {
    first
        .iter()
        .map(|q| q.topic.clone())
        .chain(d.entries.iter().map(|e| e.title.clone()))
        .collect()
}

fn no_end_user_questions(first: &[Question], d: &Done) {
    let every = every_topic(first, d);
    for boilerplate in END_USER {
        assert!(
            !every.iter().any(|t| t == boilerplate),
            "{boilerplate} asked: {every:?}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// 1. the kind

const MAIN_RS: &str = "fn main() {\n    app::run();\n}\n";

#[test]
fn a_bug_written_in_a_common_template_with_a_bracketed_title_is_a_bug_report() {
    let (repo, subject) = repo_with(
        &[("src/main.rs", MAIN_RS)],
        "# [tool error]: the list is cut at 80 columns\n\n\
         **What steps will reproduce the bug?** Run the list command in a wide terminal.\n\n\
         **What did you expect to happen instead?** The whole line.\n\n\
         **Does it happen in a fresh project?** Yes.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    assert_kind(&d, "Read as a bug report");
    assert!(
        topic_list(&first).contains(&"reproduces_on_head"),
        "{:?}",
        topic_list(&first)
    );
    no_end_user_questions(&first, &d);
}

#[test]
fn a_stack_trace_and_version_fields_make_a_bug_report() {
    let (repo, subject) = repo_with(
        &[(
            "app/loader.py",
            "def load(path):\n    return open(path).read()\n",
        )],
        "# Loading a config with a BOM\n\nOS: Ubuntu 22.04\nPython version: 3.11\n\n\
         ```\nTraceback (most recent call last):\n  File \"app/loader.py\", line 2, in load\n\
         UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff\n```\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    assert_kind(&d, "Read as a bug report");
    no_end_user_questions(&first, &d);
}

const PATHS_RS: &str = "//! Paths.\n\n/// The old way: split by hand.\npub fn legacy_split(p: &str) -> Vec<&str> {\n    p.split('/').collect()\n}\n\n\
/// The new way.\npub fn split_path(p: &str) -> Vec<&str> {\n    p.split('/').filter(|s| !s.is_empty()).collect()\n}\n";

#[test]
fn use_x_in_place_of_y_is_a_refactor_and_the_removed_pattern_is_never_recommended() {
    let (repo, subject) = repo_with(
        &[
            ("src/paths.rs", PATHS_RS),
            (
                "src/walk.rs",
                "use crate::paths::legacy_split;\n\npub fn walk(p: &str) -> usize {\n    legacy_split(p).len()\n}\n",
            ),
        ],
        "# Path handling\n\nUse `split_path` in place of `legacy_split` everywhere. Then remove \
         `legacy_split` and rely on `split_path` instead.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let kind = kind_entry(&d);
    assert!(kind.starts_with("Read as a refactor"), "{kind}");
    let every = every_topic(&first, &d);
    assert!(
        !every
            .iter()
            .any(|t| t.contains("legacy_split") && t.starts_with("follow")),
        "the removed pattern offered to follow: {every:?}"
    );
    for q in &first {
        assert!(
            !(q.question_text.contains("Follow its pattern") || q.topic.starts_with("follow_")),
            "{q:?}"
        );
    }
    no_end_user_questions(&first, &d);
}

#[test]
fn strong_cues_for_two_kinds_ask_the_kind_first_and_alone() {
    let (repo, subject) = repo_with(
        &[("src/main.rs", MAIN_RS)],
        "# Add a retry to the upload\n\n## Steps to reproduce\n\n1. Upload on a bad network\n\n\
         ## Expected behavior\n\nIt retries.\n",
    );
    let (first, _) = all_questions(&repo, &subject);
    assert_eq!(topic_list(&first), ["kind"], "{first:?}");
    let kind = question(&first, "kind");
    let values = option_values(kind);
    assert!(
        values.contains(&"bug") && values.contains(&"feature"),
        "{values:?}"
    );
    assert!(kind.recommended.is_some(), "{kind:?}");
    assert!(kind.question_text.contains("Recommended"), "{kind:?}");
}

// ---------------------------------------------------------------------------------------------
// 2–4. flags by their declarations; tests never a definition; short flags

const CLI_MULTILINE: &str = r#"//! Command line.
use clap::Parser;

#[derive(Parser)]
pub struct Cli {
    /// How to print the list.
    #[arg(
        short,
        long = "format",
        value_enum,
        default_value = "text"
    )]
    pub fmt: Format,
    /// Colour.
    #[arg(
        long,
        value_name = "WHEN",
    )]
    pub color: When,
}
"#;

#[test]
fn a_flag_declared_over_several_lines_is_found_not_called_new() {
    let (repo, subject) = repo_with(
        &[("src/cli.rs", CLI_MULTILINE)],
        "# Add `--format json` to the list\n\nAdd a `--format` value for JSON. It must respect \
         `--color`.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let existing = question(&first, "existing_format");
    assert!(
        existing.question_text.contains("src/cli.rs:9"),
        "{}",
        existing.question_text
    );
    for q in &first {
        assert!(!q.question_text.contains("is new"), "{q:?}");
    }
    let color = d
        .entries
        .iter()
        .find(|e| e.title == "`--color` in the repository")
        .unwrap_or_else(|| panic!("--color: {d:?}"));
    assert!(
        color.content.starts_with("Defined at src/cli.rs:19"),
        "{}",
        color.content
    );
    assert_honest(&repo, &d);
}

const RECIPES_RS: &str = "//! Recipes.\n\npub fn run() {}\n\n#[cfg(test)]\nmod tests {\n    \
fn shell_words(s: &str) -> Vec<&str> {\n        s.split(' ').collect()\n    }\n\n    #[test]\n    \
fn test_words() {\n        assert_eq!(shell_words(\"a b\").len(), 2);\n    }\n}\n";

#[test]
fn a_line_inside_a_test_module_is_never_the_definition() {
    let (repo, subject) = repo_with(
        &[("src/recipes.rs", RECIPES_RS)],
        "# Split recipe lines with `shell_words`\n\nAdd `shell_words` so recipes can quote.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    for e in &d.entries {
        assert!(!e.content.contains("Defined at src/recipes.rs:7"), "{e:?}");
    }
    for q in &first {
        assert!(
            !q.question_text.contains("defined at src/recipes.rs:7"),
            "{q:?}"
        );
    }
}

const CLI_BUILDER: &str = r#"//! Command line, clap's builder.
use clap::{Arg, Command};

pub fn command() -> Command {
    Command::new("app")
        .arg(
            Arg::new("exclude")
                .short('X')
                .long("exclude")
                .help("Skip these paths"),
        )
}
"#;

#[test]
fn a_short_flag_the_item_names_is_looked_up() {
    let (repo, subject) = repo_with(
        &[
            ("src/cli.rs", CLI_BUILDER),
            ("scripts/ci.sh", "set -e\ncargo test -X\n"),
        ],
        "# Skip generated files\n\nAdd a way to skip generated files, like `-X` does for paths.\n",
    );
    let (_, d) = all_questions(&repo, &subject);
    let x = d
        .entries
        .iter()
        .find(|e| e.title == "`-X` in the repository")
        .unwrap_or_else(|| panic!("-X not looked up: {d:?}"));
    assert!(
        x.content.starts_with("Defined at src/cli.rs:8"),
        "{}",
        x.content
    );
    assert!(
        !x.sources.iter().any(|s| s.starts_with("scripts/")),
        "{x:?}"
    );
    assert_honest(&repo, &d);
}

// ---------------------------------------------------------------------------------------------
// 5. dependency candidates

const LOCK: &str = "version = 3\n\n[[package]]\nname = \"ansi_term\"\nversion = \"0.12.1\"\n\n\
[[package]]\nname = \"painter\"\nversion = \"0.1.0\"\ndependencies = [\n \"ansi_term\",\n \"nu-ansi-term\",\n]\n\n\
[[package]]\nname = \"nu-ansi-term\"\nversion = \"0.50.1\"\n";

#[test]
fn dependency_candidates_are_packages_never_the_project_or_plain_words() {
    let (repo, subject) = repo_with(
        &[
            (
                "Cargo.toml",
                "[package]\nname = \"painter\"\n\n[dependencies]\nansi_term = \"0.12\"\nnu-ansi-term = \"0.50\"\n",
            ),
            ("Cargo.lock", LOCK),
            (
                "src/paint.rs",
                "use ansi_term::Colour;\n\npub enum Color { Red }\n\npub struct Style;\n\npub fn red(s: &str) -> String {\n    Colour::Red.paint(s).to_string()\n}\n",
            ),
        ],
        "# Replace the unmaintained `ansi_term`\n\n`painter` prints with `ansi_term` at `info` \
         level; the `bold` and `dimmed` styles, `Color`, `Style`, `Colour`, `Paint` and \
         `Prefix` come from it. `nu-ansi-term` is a maintained fork.\n",
    );
    let (first, _) = all_questions(&repo, &subject);
    let replacement = question(&first, "replacement");
    let values = option_values(replacement);
    assert!(values.contains(&"nu_ansi_term"), "{values:?}");
    for noise in [
        "painter", "info", "bold", "dimmed", "color", "style", "paint", "prefix",
    ] {
        assert!(!values.contains(&noise), "{noise} offered: {values:?}");
    }
    assert_eq!(replacement.recommended.as_deref(), Some("nu_ansi_term"));
}

// ---------------------------------------------------------------------------------------------
// 6–8. counts and evidence

#[test]
fn line_and_file_counts_are_over_every_file() {
    let files: Vec<(String, String)> = (0..30)
        .map(|i| {
            (
                format!("src/m{i:02}.rs"),
                (0..100)
                    .map(|j| format!("pub fn f{j}() {{ frobnicate({j}); }}\n"))
                    .collect(),
            )
        })
        .collect();
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let (repo, subject) = repo_with(
        &refs,
        "# Rename `frobnicate`\n\nrefactor: `frobnicate` should be `twiddle`.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let e = d
        .entries
        .iter()
        .find(|e| e.title == "`frobnicate` in the repository")
        .unwrap_or_else(|| panic!("{d:?}"));
    assert!(
        e.content.contains("3000 lines in 30 files name it"),
        "{}",
        e.content
    );
    let uses = question(&first, "call_sites");
    assert!(
        uses.question_text.contains("3000 lines in 30 files"),
        "{}",
        uses.question_text
    );
}

#[test]
fn the_projects_own_name_and_another_crates_type_are_no_evidence() {
    let (repo, subject) = repo_with(
        &[
            (
                "Cargo.toml",
                "[package]\nname = \"painter\"\n\n[dependencies]\nyansi = \"1\"\n",
            ),
            (
                "Cargo.lock",
                "version = 3\n\n[[package]]\nname = \"yansi\"\nversion = \"1.0.0\"\n",
            ),
            ("LICENSE-MIT", "painter is MIT licensed.\n"),
            (
                "src/color.rs",
                "/// Our own colours.\npub enum Color {\n    Red,\n}\n",
            ),
            ("src/term.rs", "pub fn width() -> usize {\n    80\n}\n"),
        ],
        "# Paint the header with `yansi::Color`\n\nUse `yansi::Color` in `painter` for the \
         header.\n",
    );
    let (_, d) = all_questions(&repo, &subject);
    for e in &d.entries {
        assert!(
            !e.title.contains("`painter`"),
            "the project's own name: {e:?}"
        );
        assert!(!e.content.contains("LICENSE-MIT"), "{e:?}");
        assert!(
            !e.content.contains("src/color.rs"),
            "this project's Color is not yansi's: {e:?}"
        );
    }
    assert_honest(&repo, &d);
}

/// "It names N things …: F found (L listed, K left out), M not found": every number equals
/// what the document shows.
#[test]
fn every_count_in_the_summary_equals_what_the_document_lists() {
    let mut files: Vec<(String, String)> = (0..12)
        .map(|i| {
            (
                format!("src/part{i}.rs"),
                format!("pub fn part_{i}() {{}}\n"),
            )
        })
        .collect();
    files.push(("src/lib.rs".into(), "pub mod x;\n".into()));
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let named: Vec<String> = (0..12).map(|i| format!("`part_{i}`")).collect();
    let (repo, subject) = repo_with(
        &refs,
        &format!(
            "# refactor: merge the parts\n\n{} and `gone_one`, `gone_two` become one module.\n",
            named.join(", ")
        ),
    );
    let (_, d) = all_questions(&repo, &subject);
    let confirmed = d
        .entries
        .iter()
        .filter(|e| e.clarity == Clarity::Confirmed)
        .count();
    assert!(
        d.summary
            .contains("It names 14 things the repository could hold: 12 found ("),
        "{}",
        d.summary
    );
    assert!(
        d.summary.contains(&format!(
            "({confirmed} listed, {} left out), 2 not found",
            12 - confirmed
        )),
        "{} with {confirmed} confirmed",
        d.summary
    );
    let missing = d
        .entries
        .iter()
        .find(|e| e.title == "Named by the item, not found in the repository")
        .unwrap();
    assert!(
        missing
            .content
            .starts_with("`gone_one`, `gone_two` appear nowhere in the repository"),
        "{}",
        missing.content
    );
}

// ---------------------------------------------------------------------------------------------
// 9. boilerplate

#[test]
fn a_feature_grounded_in_the_code_gets_no_generic_acceptance_or_failure_question() {
    let (repo, subject) = repo_with(
        &[("src/cli.rs", CLI_MULTILINE)],
        "# Add `--color` to the export\n\nThe export should read the file and respect \
         `--color` like the list does.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let every = every_topic(&first, &d);
    for generic in [
        "acceptance_criteria",
        "error_handling",
        "Acceptance criteria",
        "Error handling",
    ] {
        assert!(!every.iter().any(|t| t == generic), "{generic}: {every:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// 10. the smaller ones

#[test]
fn a_vague_words_quote_holds_the_word() {
    let (repo, subject) = repo_with(
        &[],
        "# Export\n\nThe export covers the projects, the members, the invoices, the audit log, \
         the attachments, the comments, the labels, the milestones, the time entries etc. and \
         writes them to one archive.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let every: Vec<&str> = first
        .iter()
        .map(|q| q.question_text.as_str())
        .chain(d.entries.iter().map(|e| e.content.as_str()))
        .collect();
    let etc = every
        .iter()
        .find(|q| q.contains("ends a list with"))
        .unwrap_or_else(|| panic!("{every:?}"));
    let quote = etc.split_once(": \"").map(|(_, q)| q).unwrap_or("");
    assert!(quote.contains("etc."), "{etc}");
}

/// A list of examples ("something like `start`, `stop`, etc.", an "etc." alone after an example
/// block) is no list to complete (thirty-sixth pass); a list the item leaves open still is.
#[test]
fn an_etc_ending_examples_is_not_asked_for_the_complete_list() {
    for item in [
        "# Usage line\n\nThe usage reads `tool COMMAND` where `COMMAND` can be something like \
         `start`, `stop`, etc.\n",
        "# Help pages\n\nHelp should work as it does here:\n\n```\n$ tool help\n$ tool help \
         add\n```\n\netc.\n",
    ] {
        let (repo, subject) = repo_with(&[], item);
        let (first, d) = all_questions(&repo, &subject);
        assert!(
            !every_topic(&first, &d).iter().any(|t| t == "vague_etc"),
            "{item}"
        );
    }
    let (repo, subject) = repo_with(
        &[],
        "# Export\n\nThe export writes the projects, the members, etc. to one archive.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    assert!(every_topic(&first, &d).iter().any(|t| t == "vague_etc"));
}

#[test]
fn repository_lines_keep_their_backticks() {
    let (repo, subject) = repo_with(
        &[(
            "src/msg.rs",
            "pub fn usage() -> &'static str { \"run `app init` first\" }\n",
        )],
        "# docs: say when to run `usage`\n\nThe text of `usage` is unclear.\n",
    );
    let (_, d) = all_questions(&repo, &subject);
    let e = d
        .entries
        .iter()
        .find(|e| e.title == "`usage` in the repository")
        .unwrap_or_else(|| panic!("{d:?}"));
    assert!(
        e.content.contains(
            "Defined at src/msg.rs:1: ``pub fn usage() -> &'static str { \"run `app init` first\" }``."
        ),
        "{}",
        e.content
    );
    assert!(
        !e.content.contains("'app init'"),
        "a backtick became a quote: {e:?}"
    );
}

#[test]
fn version_options_keep_the_good_version_the_item_names_and_never_offer_the_bad_one() {
    let (repo, subject) = repo_with(
        &[("src/main.rs", MAIN_RS)],
        "# fix: the list is empty\n\nIt works in 1.1.0. It is broken in 1.3.0.\n",
    );
    for (i, tag) in ["v1.0.0", "v1.1.0", "v1.2.0", "v1.3.0"].iter().enumerate() {
        repo.write("CHANGELOG.md", &format!("# {i}\n"));
        repo.git(&["add", "-A"]);
        repo.git(&["commit", "-q", "-m", tag]);
        repo.git(&["tag", tag]);
    }
    let (first, _) = all_questions(&repo, &subject);
    let version = question(&first, "first_bad_version");
    let values = option_values(version);
    assert!(values.contains(&"v1_1_0"), "{values:?}");
    assert!(!values.contains(&"v1_3_0"), "{values:?}");
    assert_eq!(
        version.recommended.as_deref(),
        Some("v1_1_0"),
        "{version:?}"
    );
}

#[test]
fn the_entry_over_the_last_good_version_is_headed_so() {
    // Issue 40: "The first bad version" headed the answer to "Which version was the last good one?".
    let (repo, subject) = repo_with(
        &[("src/main.rs", MAIN_RS)],
        "# fix: the list is empty\n\nIt works in 1.1.0. It is broken in 1.3.0.\n",
    );
    for tag in ["v1.0.0", "v1.1.0", "v1.2.0", "v1.3.0"] {
        repo.write("CHANGELOG.md", &format!("# {tag}\n"));
        repo.git(&["add", "-A"]);
        repo.git(&["commit", "-q", "-m", tag]);
        repo.git(&["tag", tag]);
    }
    let (first, d) = all_questions(&repo, &subject);
    let asked = question(&first, "first_bad_version");
    assert!(
        asked.question_text.contains("the last good one"),
        "{asked:?}"
    );
    let titles: Vec<&str> = d.entries.iter().map(|e| e.title.as_str()).collect();
    assert!(titles.contains(&"The last good version"), "{titles:?}");
    assert!(!titles.contains(&"The first bad version"), "{titles:?}");
}

// ---------------------------------------------------------------------------------------------
// found on the development set (examples/devset/)

const RG_APP: &str = r#"fn flag_fixed_strings(args: &mut Vec<RGArg>) {
    let arg = RGArg::switch("fixed-strings").short("F")
        .help(SHORT);
    args.push(arg);
}
"#;

/// ripgrep 2022 (issue 2273): `--fixed-strings`, declared by the project's own builder, was
/// called new; and a flag the documentation writes is never new.
#[test]
fn a_flag_of_the_projects_own_builder_or_its_docs_is_never_new() {
    let (repo, subject) = repo_with(
        &[
            ("crates/core/app.rs", RG_APP),
            ("GUIDE.md", "Use `--no-messages` to hide errors.\n"),
        ],
        "# Add `--fixed-strings` and `--no-messages` shortcuts\n\nAdd `--fixed-strings` and \
         `--no-messages` to the config.\n",
    );
    let (first, _) = all_questions(&repo, &subject);
    for q in &first {
        assert!(!q.question_text.contains("is new"), "{q:?}");
    }
    let fixed = question(&first, "existing_fixed_strings");
    assert!(
        fixed.question_text.contains("crates/core/app.rs:2"),
        "{}",
        fixed.question_text
    );
    question(&first, "existing_no_messages");
}

/// fd (issue 1203): "takes 0.2 seconds" was read as version 0.2.
#[test]
fn a_duration_is_not_a_version() {
    let (repo, subject) = repo_with(
        &[
            ("bin/tool", "#!/bin/sh\nexec app \"$@\"\n"),
            ("src/main.rs", MAIN_RS),
        ],
        "# fix: the start is slow\n\nEach run of `tool check` takes 0.2 seconds on a large \
         machine; with one thread it takes 0.01 s.\n",
    );
    repo.git(&["tag", "v0.2.0"]);
    let (first, _) = all_questions(&repo, &subject);
    let version = question(&first, "first_bad_version");
    assert!(!version.question_text.contains("names 0.2"), "{version:?}");
}

/// fd (issues 191, 1203): a flag the item names was asked about as "the hot spot".
#[test]
fn a_flag_is_never_asked_about_as_the_hot_spot() {
    let (repo, subject) = repo_with(
        &[("src/cli.rs", CLI_MULTILINE)],
        "# `--color` makes the listing slow\n\nWith `--color` it is 8x slower than without.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    assert!(
        !every_topic(&first, &d).iter().any(|t| t == "hot_path"),
        "{:?}",
        topic_list(&first)
    );
}

#[test]
fn a_templates_feature_request_is_no_request_sent_and_asks_no_error_handling() {
    let files = [("src/main.rs", MAIN_RS)];
    // "Feature request", "request a feature": the template's words move no data.
    let (repo, subject) = repo_with(
        &files,
        "# Add a `--sort` flag to the listing\n\n**Is your feature request related to a \
         problem? Please describe.**\nThe listing is in name order only.\n\n**Describe the \
         solution you'd like**\nA `--sort size` flag that orders it by size, largest first.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let every = every_topic(&first, &d);
    assert!(
        !every
            .iter()
            .any(|t| t == "error_handling" || t == "Error handling"),
        "{every:?}"
    );
    assert_honest(&repo, &d);
    // A request the program sends is data moved: what happens when it fails is asked.
    let (repo, subject) = repo_with(
        &files,
        "# Go through a proxy\n\nEach request to the server should go through the proxy the \
         user names, so that it works behind a firewall.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let every = every_topic(&first, &d);
    assert!(
        every
            .iter()
            .any(|t| t == "error_handling" || t == "Error handling"),
        "{every:?}"
    );
    assert_honest(&repo, &d);
}

#[test]
fn an_example_of_the_project_the_item_links_is_asked_about() {
    let (repo, subject) = repo_with(
        &[
            (
                "Cargo.toml",
                "[package]\nname = \"lister\"\nversion = \"0.3.0\"\n",
            ),
            ("src/lib.rs", "//! Lists.\n\npub fn list() {}\n"),
            (
                "examples/hidden.rs",
                "//! Lists hidden entries.\nfn main() {\n    lister::list();\n}\n",
            ),
        ],
        "# Example does not compile\n\nI copied [this example](https://github.com/someone/lister/blob/master/examples/hidden.rs) \
         exactly and it fails to compile with lister 0.2.1.\n\n```\nerror: cannot find function `list`\n```\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let linked = question(&first, "linked_file");
    assert!(
        linked
            .question_text
            .contains("links examples/hidden.rs of this repository (as on `master`)"),
        "{}",
        linked.question_text
    );
    assert_honest(&repo, &d);
}

#[test]
fn a_page_of_the_projects_documentation_site_the_item_links_is_asked_about_as_its_docs_file() {
    let (repo, subject) = repo_with(
        &[
            (
                "setup.py",
                "from setuptools import setup\n\nsetup(name=\"lister\", version=\"0.3.0\")\n",
            ),
            ("lister/__init__.py", "def list_entries():\n    return []\n"),
            (
                "docs/tutorial.rst",
                "Tutorial\n========\n\n.. code-block:: python\n\n    import lister\n",
            ),
        ],
        "# Tutorial example fails\n\nThe [first example here](https://lister.readthedocs.io/en/latest/tutorial.html) \
         fails for me with lister 0.2.1. Am I missing something?\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let linked = question(&first, "linked_file");
    assert!(
        linked.question_text.contains(
            "links docs/tutorial.rst of this repository (as published at \
             `lister.readthedocs.io`)"
        ),
        "{}",
        linked.question_text
    );
    assert_honest(&repo, &d);
}
