//! The built-in intent interviewer's sixth pass (issue 39), each on a small repository that
//! reproduces a fault class the blind judge found: a configuration question where the program
//! reads no configuration file, variables picked by name rather than by the symptom.

use crate::interviewer::{
    all_questions, assert_cited_lines_exist, assert_honest, question, repo_with,
};

/// A program whose `--config-dir` is a folder of caches, not a file the person writes, and
/// whose variables are about paging, tabs and themes.
const APP_RS: &str = "use std::env;\n\npub fn args() -> clap::Command {\n    clap::Command::new(\"tool\")\n        .arg(clap::Arg::new(\"config-dir\").long(\"config-dir\").help(\"Where the theme cache lives\"))\n        .arg(clap::Arg::new(\"paging\").long(\"paging\"))\n        .arg(clap::Arg::new(\"plain\").long(\"plain\"))\n}\n\npub fn tabs() -> Option<String> {\n    env::var(\"TOOL_TABS\").ok()\n}\n\npub fn theme() -> Option<String> {\n    env::var(\"TOOL_THEME\").ok()\n}\n\npub fn pager() -> Option<String> {\n    env::var(\"TOOL_PAGER\").or_else(|_| env::var(\"PAGER\")).ok()\n}\n\npub fn cache() -> Option<String> {\n    env::var(\"XDG_CONFIG_HOME\").ok()\n}\n";

const CARGO_TOML: &str = "[package]\nname = \"tool\"\nversion = \"0.3.0\"\n";

#[test]
fn a_paging_bug_is_asked_the_paging_variables_and_no_config_file_the_program_never_reads() {
    let (repo, subject) = repo_with(
        &[("Cargo.toml", CARGO_TOML), ("src/app.rs", APP_RS)],
        "# paging not done if PAGER='less -R'\n\nMy `PAGER` is set to 'less -R', and with it \
         paging fails.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let steps = question(&first, "exact_steps");
    let text = &steps.question_text;
    // `--config-dir` names a folder, `XDG_CONFIG_HOME` is not the program's file.
    assert!(
        !text.contains("Config file") && !text.contains("--config-dir") && !text.contains("XDG"),
        "{text}"
    );
    // The variables of the symptom (paging), not the first ones defined (tabs, theme).
    assert!(
        text.contains("`TOOL_PAGER` (src/app.rs:19)")
            && text.contains("`PAGER` (src/app.rs:19)")
            && !text.contains("TOOL_TABS")
            && !text.contains("TOOL_THEME"),
        "{text}"
    );
    assert_cited_lines_exist(&repo, text);
    assert_honest(&repo, &d);
}

#[test]
fn a_librarys_bug_names_no_configuration_and_no_variable_the_item_does_not_share_a_word_with() {
    let (repo, subject) = repo_with(
        &[(
            "src/lib.rs",
            "use std::env;\n\n/// Where a helper keeps its config.\npub fn config_path() -> Option<String> {\n    env::var(\"XDG_CONFIG_HOME\").ok()\n}\n\n/// Parses a duration.\npub fn parse(s: &str) -> u64 {\n    let _ = env::var(\"LIB_THEME\");\n    s.len() as u64\n}\n",
        )],
        "# parse returns the wrong value\n\nParsing a duration of one hour gives the wrong \
         number.\n\n## Expected behaviour\n\n3600.\n",
    );
    let (first, _) = all_questions(&repo, &subject);
    let steps = question(&first, "exact_steps");
    let text = &steps.question_text;
    assert!(
        !text.contains("Config") && !text.contains("config_path") && !text.contains("LIB_THEME"),
        "{text}"
    );
}
