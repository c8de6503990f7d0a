//! The built-in interviewer per kind of work item: a feature is asked about the flags and code it
//! names, a bug report what a maintainer asks, a refactor about its call sites, a dependency swap
//! the candidates it lists, docs and performance work their pages and benchmark.

use super::*;

// ---------------------------------------------------------------------------------------------
// feature

const CLI_RS: &str = r#"//! Command line.
use clap::Parser;

#[derive(Parser)]
pub struct Cli {
    /// When to use colour.
    #[arg(long, value_enum)]
    pub color: Color,
    /// Where the export goes.
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
}
"#;

const EXPORT_RS: &str = r#"//! Exports.
use crate::model::Project;

/// Write the projects as JSON.
pub fn export_json(projects: &[Project], out: &mut dyn std::io::Write) -> std::io::Result<()> {
    serde_json::to_writer(out, projects)?;
    Ok(())
}
"#;

#[test]
fn a_feature_is_asked_about_the_flags_and_code_it_names_with_the_convention_recommended() {
    let (repo, subject) = repo_with(
        &[
            ("src/cli.rs", CLI_RS),
            ("src/export.rs", EXPORT_RS),
            (
                "docs/cli.md",
                "# CLI\n\n`--color` picks when to use colour.\n",
            ),
        ],
        "# Add a `--format` flag to the export\n\nThe export writes JSON through `export_json`. \
         Add `--format csv` so it can write CSV too; it must respect `--color` like today.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let all: Vec<&str> = topic_list(&first);
    // The new flag follows the flags there are, recommended.
    let convention = question(&first, "new_flag_format");
    assert!(
        convention.question_text.contains("src/cli.rs:"),
        "{}",
        convention.question_text
    );
    assert_eq!(convention.recommended.as_deref(), Some("follow_convention"));
    // The existing flag it names, where it is defined.
    let color = question(&first, "flag_color");
    assert!(
        color.question_text.contains("src/cli.rs:8"),
        "{}",
        color.question_text
    );
    // The existing code it names, as the pattern to follow.
    let follow = question(&first, "follow_export_json");
    assert!(
        follow.question_text.contains("src/export.rs:5"),
        "{}",
        follow.question_text
    );
    assert_eq!(follow.recommended.as_deref(), Some("follow_pattern"));
    for q in &first {
        assert_cited_lines_exist(&repo, &q.question_text);
    }
    assert!(all.len() <= 5);
    // The repository facts are confirmed, citing code, never the item.
    assert_honest(&repo, &d);
    let confirmed: Vec<&str> = d
        .entries
        .iter()
        .filter(|e| e.clarity == Clarity::Confirmed)
        .flat_map(|e| e.sources.iter().map(String::as_str))
        .collect();
    assert!(confirmed.contains(&"src/cli.rs:8"), "{confirmed:?}");
    assert!(confirmed.contains(&"src/export.rs:5"), "{confirmed:?}");
}

// ---------------------------------------------------------------------------------------------
// bug

const CONFIG_RS: &str = r#"//! Reading the configuration file.
use std::path::Path;

pub fn load_config(path: &Path) -> Result<Config, Error> {
    let text = std::fs::read_to_string(path)?;
    toml::from_str(&text).map_err(|_| Error::new("could not parse config file"))
}
"#;

const CONFIG_TEST: &str = r#"use app::config::load_config;

#[test]
fn loads_the_example() {
    load_config("examples/app.toml".as_ref()).unwrap();
}
"#;

const BUG: &str = "# Crash when the config has a trailing comma\n\n## Steps to reproduce\n\n\
1. Put `a = [1, 2,]` in `app.toml`\n2. Run `app --config app.toml`\n\n```\n$ app --config app.toml\n\
error: could not parse config file `app.toml`\n\
thread 'main' panicked at /home/me/src/app-1.3.0/src/config.rs:6:20\n```\n\n## Expected behaviour\n\nIt loads, as it did before 1.3. No test has a trailing comma.\n";

#[test]
fn a_bug_report_is_asked_what_a_maintainer_asks_and_no_feature_boilerplate() {
    let (repo, subject) = repo_with(
        &[
            ("src/config.rs", CONFIG_RS),
            ("tests/config.rs", CONFIG_TEST),
        ],
        BUG,
    );
    repo.git(&["tag", "v1.2.0"]);
    repo.write("CHANGELOG.md", "# 1.3.0\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "1.3.0"]);
    repo.git(&["tag", "v1.3.0"]);
    let (first, d) = all_questions(&repo, &subject);
    let every: Vec<String> = first
        .iter()
        .map(|q| q.topic.clone())
        .chain(d.entries.iter().map(|e| e.title.clone()))
        .collect();
    for boilerplate in END_USER.iter().chain(&["scope"]) {
        assert!(
            !every.iter().any(|t| t == boilerplate),
            "feature question {boilerplate} asked of a bug: {every:?}"
        );
    }
    // It reports the version HEAD is tagged: whether it reproduces on HEAD is answered, and
    // the document says so.
    assert!(
        !every.iter().any(|t| t == "reproduces_on_head"),
        "{every:?}"
    );
    assert!(
        every.iter().any(|t| t == "Version, stated by the item"),
        "{every:?}"
    );
    // The version the item names is a tag; the older tags are the options.
    let version = question(&first, "first_bad_version");
    assert!(
        version.question_text.contains("v1.3.0"),
        "{}",
        version.question_text
    );
    assert!(option_values(version).contains(&"v1_2_0"), "{version:?}");
    // The test that already calls what the item names is the recommended place.
    let test = question(&first, "regression_test");
    assert!(
        test.question_text.contains("tests/config.rs"),
        "{}",
        test.question_text
    );
    assert_eq!(test.recommended.as_deref(), Some("tests_config_rs"));
    // Where the message comes from is confirmed, citing the code that produces it.
    assert_honest(&repo, &d);
    let message = d
        .entries
        .iter()
        .find(|e| e.title.contains("could not parse config file"))
        .expect("the message's place");
    assert_eq!(message.clarity, Clarity::Confirmed);
    assert!(
        message.sources.contains(&"src/config.rs:6".to_string()),
        "{message:?}"
    );
    assert!(
        d.entries
            .iter()
            .any(|e| e.content.contains("Read as a bug report")),
        "{d:?}"
    );
    // The trace's file, found under its local prefix, at the line it points at (the entry is
    // titled by the file's path; the line is in its text).
    let traced = d
        .entries
        .iter()
        .find(|e| e.title == "`src/config.rs` in the repository")
        .unwrap_or_else(|| panic!("the traced line: {d:?}"));
    assert_eq!(traced.clarity, Clarity::Confirmed);
    assert!(traced.content.contains("src/config.rs:6"), "{traced:?}");
    assert!(traced.content.contains("toml::from_str"), "{traced:?}");
}

// ---------------------------------------------------------------------------------------------
// refactor

#[test]
fn a_refactor_gets_no_end_user_questions_and_is_asked_about_its_call_sites() {
    let session = "pub struct Session {\n    pub turn: u32,\n}\n\nimpl Session {\n    pub fn new() -> Session {\n        Session { turn: 0 }\n    }\n}\n";
    let (repo, subject) = repo_with(
        &[
            ("src/session.rs", session),
            (
                "src/run.rs",
                "use crate::session::Session;\n\npub fn run() {\n    let s = Session::new();\n    drop(s);\n}\n",
            ),
            (
                "src/status.rs",
                "use crate::session::Session;\n\npub fn show(s: &Session) -> u32 {\n    s.turn\n}\n",
            ),
            (
                "tests/session.rs",
                "#[test]\nfn starts_at_turn_zero() {\n    assert_eq!(app::Session::new().turn, 0);\n}\n",
            ),
        ],
        "# refactor: split `Session` into state and files\n\n`Session` does too much. Move the file handling out.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    for q in &first {
        assert!(
            !END_USER.contains(&q.topic.as_str()),
            "{} asked of a refactor",
            q.topic
        );
    }
    let preserved = question(&first, "behaviour_preserved");
    assert_eq!(preserved.recommended.as_deref(), Some("identical"));
    let sites = question(&first, "call_sites");
    assert!(
        sites.question_text.contains("src/run.rs:"),
        "{}",
        sites.question_text
    );
    assert_cited_lines_exist(&repo, &sites.question_text);
    let api = question(&first, "public_api");
    assert!(
        api.question_text.contains("src/session.rs:1"),
        "{}",
        api.question_text
    );
    assert_eq!(api.recommended.as_deref(), Some("keep_compatible"));
    let tests = question(&first, "tests_pin_behaviour");
    assert_eq!(tests.recommended.as_deref(), Some("tests_session_rs"));
    assert_honest(&repo, &d);
}

// ---------------------------------------------------------------------------------------------
// dependency

const LOCK: &str = "version = 3\n\n[[package]]\nname = \"ansi_term\"\nversion = \"0.12.1\"\n\n\
[[package]]\nname = \"app\"\nversion = \"0.1.0\"\ndependencies = [\n \"ansi_term\",\n \"nu-ansi-term\",\n]\n\n\
[[package]]\nname = \"nu-ansi-term\"\nversion = \"0.50.1\"\n";

#[test]
fn a_dependency_swap_offers_the_candidates_it_lists() {
    let (repo, subject) = repo_with(
        &[
            (
                "Cargo.toml",
                "[package]\nname = \"app\"\nrust-version = \"1.70\"\n\n[dependencies]\nansi_term = \"0.12\"\nnu-ansi-term = \"0.50\"\n",
            ),
            ("Cargo.lock", LOCK),
            (
                "src/paint.rs",
                "use ansi_term::Colour;\n\npub fn red(s: &str) -> String {\n    Colour::Red.paint(s).to_string()\n}\n",
            ),
            (
                "src/status.rs",
                "pub fn bold(s: &str) -> String {\n    ansi_term::Style::new().bold().paint(s).to_string()\n}\n",
            ),
        ],
        "# RUSTSEC-2021-0139: `ansi_term` is unmaintained\n\nThe crate is deprecated.\n\n## Possible alternatives\n\n\
- [anstyle](https://crates.io/crates/anstyle)\n- [nu-ansi-term](https://crates.io/crates/nu-ansi-term)\n- [yansi](https://crates.io/crates/yansi)\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let replacement = question(&first, "replacement");
    assert_eq!(
        option_values(replacement),
        ["anstyle", "nu_ansi_term", "yansi", "keep"],
        "{replacement:?}"
    );
    // One of them is in the dependency tree already: recommended, with the reason.
    assert_eq!(replacement.recommended.as_deref(), Some("nu_ansi_term"));
    assert!(replacement.question_text.contains("already in Cargo.lock"));
    let uses = question(&first, "dependency_uses");
    assert!(
        uses.question_text.contains("src/paint.rs:1"),
        "{}",
        uses.question_text
    );
    assert!(
        uses.question_text.contains("in 2 files ("),
        "{}",
        uses.question_text
    );
    for q in &first {
        assert!(
            !END_USER.contains(&q.topic.as_str()),
            "{} asked of a swap",
            q.topic
        );
    }
    let all: Vec<String> = d.entries.iter().map(|e| e.content.clone()).collect();
    assert!(
        all.iter().any(|c| c.contains("Cargo.toml:3")),
        "the minimum Rust version is cited: {all:?}"
    );
    assert_honest(&repo, &d);
}

// ---------------------------------------------------------------------------------------------
// docs and performance

#[test]
fn a_docs_change_is_asked_which_pages_hold_what_it_names() {
    let (repo, subject) = repo_with(
        &[
            ("README.md", "# app\n\nRun `app --config FILE`.\n"),
            (
                "docs/config.md",
                "# Configuration\n\n`--config` names the file.\n",
            ),
            ("src/cli.rs", CLI_RS),
        ],
        "# docs: explain what `--config` accepts\n\nThe documentation never says which keys the file may hold.\n",
    );
    let (first, _) = all_questions(&repo, &subject);
    let pages = question(&first, "doc_pages");
    assert!(
        pages.question_text.contains("README.md:3"),
        "{}",
        pages.question_text
    );
    assert!(
        pages.question_text.contains("docs/config.md:3"),
        "{}",
        pages.question_text
    );
    assert_eq!(pages.recommended.as_deref(), Some("all"));
}

#[test]
fn performance_work_is_asked_for_a_target_and_offered_the_existing_benchmark() {
    let (repo, subject) = repo_with(
        &[
            (
                "Cargo.toml",
                "[package]\nname = \"app\"\n\n[[bench]]\nname = \"walk\"\nharness = false\n",
            ),
            (
                "src/walk.rs",
                "pub fn walk_tree(root: &str) -> usize {\n    root.len()\n}\n",
            ),
        ],
        "# `status` is slow on big repositories\n\n`walk_tree` seems to be the hot spot.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let target = question(&first, "perf_target");
    assert!(target.options.is_some());
    let bench = question(&first, "benchmark");
    assert!(
        bench.question_text.contains("Cargo.toml:4"),
        "{}",
        bench.question_text
    );
    assert_eq!(bench.recommended.as_deref(), Some("existing_bench"));
    let topics: Vec<&str> = topic_list(&first);
    assert!(!topics.contains(&"vague_fast"), "{topics:?}");
    assert!(
        d.summary.contains("actual timings (nothing is measured)"),
        "{}",
        d.summary
    );
}

#[test]
fn fast_said_of_a_persons_task_is_no_performance_target() {
    let round = |item: &str| {
        let (repo, subject) = repo_with(
            &[(
                "src/lib.rs",
                "pub fn rules() -> Vec<String> {\n    vec![]\n}\n",
            )],
            item,
        );
        topic_list(&all_questions(&repo, &subject).0)
            .into_iter()
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    // The reader's effort: "fast and easy to find the rule" asks no timing of the program.
    let task = round(
        "# Group the rules by category\n\nPlease list the rules by category, so it would be fast \
         and easy to find the rule you need.\n",
    );
    assert!(!task.iter().any(|t| t == "vague_fast"), "{task:?}");
    // The program's own speed, said without a number: the target is asked.
    let own = round(
        "# Group the rules by category\n\nPlease list the rules by category. The listing should \
         stay fast.\n",
    );
    assert!(own.iter().any(|t| t == "vague_fast"), "{own:?}");
}
