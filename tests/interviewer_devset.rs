//! The built-in intent interviewer against what the development set (`examples/devset/`) showed
//! the maintainers ask and it did not: short flags written together, the text an item quotes,
//! a library's documentation where a name is defined and the APIs built on it, the oldest
//! toolchain the project declares, bugs written as plain prose, timings without the workload
//! or the machine, comparisons with another command, call sites only tests have, and clap's
//! bare `short`. Each on a small repository and item of the same class, not the real issue.

use crate::interviewer::{
    all_questions, assert_honest, assert_kind, option_values, question, repo_with, topic_list,
};

const CLI: &str = "pub fn app() -> App {\n    App::new(\"grep\")\n        .arg(Arg::new(\"line-number\")\n            .long(\"line-number\")\n            .short('n'))\n        .arg(Arg::new(\"no-line-number\")\n            .long(\"no-line-number\")\n            .short('N'))\n        .arg(Arg::new(\"fixed-strings\")\n            .long(\"fixed-strings\")\n            .short('F'))\n        .arg(Arg::new(\"no-fixed-strings\")\n            .long(\"no-fixed-strings\"))\n}\n";

#[test]
fn short_flags_written_together_are_read_as_each_flag_and_the_letters_taken_are_counted() {
    let (repo, subject) = repo_with(
        &[("src/app.rs", CLI)],
        "# Add a short switch for `--no-fixed-strings`\n\nI often pass `--no-fixed-strings`; a short \
         form would help. I am thinking of `-NF`, as in \"no -F\".\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let q = question(&first, "short_flag");
    assert!(
        q.question_text.contains("`-N` (src/app.rs:8)"),
        "{}",
        q.question_text
    );
    assert!(
        q.question_text.contains("`-F` (src/app.rs:11)"),
        "{}",
        q.question_text
    );
    assert!(
        q.question_text.contains("3+ letters are taken"),
        "{}",
        q.question_text
    );
    assert_eq!(q.recommended.as_deref(), Some("long_only"));
    // `-NF` is not a name the repository lacks: it is two names it has.
    assert!(
        !d.entries
            .iter()
            .any(|e| e.content.contains("`-NF`") && e.content.contains("nowhere")),
        "{d:?}"
    );
    assert_honest(&repo, &d);
}

#[test]
fn the_text_an_item_quotes_is_found_in_every_file_that_holds_it() {
    let (repo, subject) = repo_with(
        &[
            (
                "README.md",
                "# grep\n\ngrep is a line-oriented search tool that recursively searches the current\ndirectory.\n",
            ),
            (
                "Cargo.toml",
                "[package]\nname = \"grep\"\ndescription = \"\"\"\ngrep is a line-oriented search tool that recursively searches the current\n\"\"\"\n",
            ),
        ],
        "# docs: the first line should say it searches contents\n\nToday it says:\n\n\
         > `grep` is a line-oriented search tool that recursively searches the current\n\
         > directory.\n\nIt should say that it searches the content of files.\n",
    );
    let (first, _) = all_questions(&repo, &subject);
    let q = question(&first, "quoted_text");
    assert!(
        q.question_text
            .contains("is in 2 files: Cargo.toml:4, README.md:3"),
        "{}",
        q.question_text
    );
    assert_eq!(q.recommended.as_deref(), Some("every_copy"));
}

#[test]
fn a_docs_item_is_asked_about_the_definitions_docs_and_the_apis_built_on_it() {
    let blocking = "/// Runs the closure on a thread where blocking is fine.\npub fn spawn_blocking<F>(f: F) {\n    run(f)\n}\n";
    let user =
        |name: &str| format!("pub fn {name}() {{\n    crate::task::spawn_blocking(|| ());\n}}\n");
    let (repo, subject) = repo_with(
        &[
            ("src/task.rs", blocking),
            ("src/fs.rs", &user("read")),
            ("src/stdin.rs", &user("stdin")),
            ("CHANGELOG.md", "- `spawn_blocking` added\n"),
        ],
        "# Document futures that cannot be canceled because they use spawn_blocking\n\n\
         Please document which futures cannot really be canceled, such as those built on \
         `spawn_blocking`.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let pages = question(&first, "doc_pages");
    assert!(
        pages
            .question_text
            .contains("where it is defined (src/task.rs:2)"),
        "{}",
        pages.question_text
    );
    assert!(
        !pages.question_text.contains("CHANGELOG"),
        "{}",
        pages.question_text
    );
    let callers = question(&first, "doc_callers");
    assert!(
        callers.question_text.contains("named in 3 code files"),
        "{}",
        callers.question_text
    );
    assert!(
        callers.question_text.contains("src/fs.rs:2")
            && callers.question_text.contains("src/stdin.rs:2"),
        "{}",
        callers.question_text
    );
    assert!(
        !topic_list(&first).contains(&"audience"),
        "{:?}",
        topic_list(&first)
    );
    assert_honest(&repo, &d);
}

#[test]
fn a_change_onto_a_newer_standard_api_is_asked_about_the_declared_minimum_toolchain() {
    let (repo, subject) = repo_with(
        &[
            ("go.mod", "module example.com/cli\n\ngo 1.15\n"),
            (
                "cmd_test.go",
                "package cli\n\nimport \"io/ioutil\"\n\nfunc TestOut(t *testing.T) {\n\tb, _ := ioutil.ReadAll(r)\n\tc, _ := ioutil.ReadAll(r)\n}\n",
            ),
        ],
        "# Remove deprecated `ioutil.ReadAll`\n\nReplace `ioutil.ReadAll` with `io.ReadAll`: the \
         `io/ioutil` package is deprecated since Go 1.16.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    // No package of go.mod is named: a change of the code, not of a dependency.
    assert_kind(&d, "Read as a refactor");
    let msrv = question(&first, "msrv");
    assert!(
        msrv.question_text.contains("go.mod:3 declares go 1.15"),
        "{}",
        msrv.question_text
    );
    assert!(
        msrv.question_text.contains("relies on Go 1.16"),
        "{}",
        msrv.question_text
    );
    assert_eq!(msrv.recommended.as_deref(), Some("keep_msrv"));
    // Its only uses are in tests: those are the call sites.
    let sites = question(&first, "call_sites");
    assert!(
        sites
            .question_text
            .contains("used only in tests: 2 lines in 1 file"),
        "{}",
        sites.question_text
    );
}

#[test]
fn a_workspace_members_rust_version_is_the_floor_of_a_refactor_in_it() {
    let (repo, subject) = repo_with(
        &[
            ("Cargo.toml", "[workspace]\nmembers = [\"core\"]\n"),
            (
                "core/Cargo.toml",
                "[package]\nname = \"core\"\nrust-version = \"1.56\"\n",
            ),
            (
                "core/src/once.rs",
                "pub(crate) struct OnceCell<T> {\n    value: Option<T>,\n}\n",
            ),
        ],
        "# refactor: use the standard library's OnceCell\n\nIt is stable since Rust 1.70.0. Use it in \
         place of our own in `core/src/once.rs`.\n",
    );
    let (first, _) = all_questions(&repo, &subject);
    let msrv = question(&first, "msrv");
    assert!(
        msrv.question_text
            .contains("core/Cargo.toml:3 declares rust-version = '1.56'"),
        "{}",
        msrv.question_text
    );
    assert!(
        msrv.question_text.contains("relies on Rust 1.70.0"),
        "{}",
        msrv.question_text
    );
}

#[test]
fn a_bug_written_as_plain_prose_is_a_bug_report_and_a_wish_stays_a_feature() {
    let files = [("src/bar.py", "class ProgressBar:\n    pos = 0\n")];
    let (repo, subject) = repo_with(
        &files,
        "# Progress bar should advance at end of loop\n\nThe bar moves when an element is handed \
         out, so on the last element it shows everything done while the work has only begun.\n",
    );
    let (_, d) = all_questions(&repo, &subject);
    assert_kind(&d, "Read as a bug report");
    let (repo, subject) = repo_with(
        &files,
        "# The progress bar should support a label\n\nA text beside the bar would help.\n",
    );
    let (_, d) = all_questions(&repo, &subject);
    assert_kind(&d, "Read as a feature request");
}

#[test]
fn a_timing_compared_with_another_command_asks_for_the_same_work_the_input_and_the_cores() {
    let (repo, subject) = repo_with(
        &[("src/walk.rs", "pub fn walk() {}\n")],
        "# Without pattern find is 8x faster than fd\n\nOS: Linux\n\n```\n> time find > /dev/null\n\
         find > /dev/null  0.00s user 0.06s system 97% cpu 0.065 total\n> time fd -HI > /dev/null\n\
         fd -HI > /dev/null  0.75s user 0.10s system 133% cpu 0.631 total\n```\n",
    );
    let (first, _) = all_questions(&repo, &subject);
    let topics = topic_list(&first);
    assert_eq!(
        question(&first, "comparison").recommended.as_deref(),
        Some("same_work")
    );
    let w = question(&first, "workload");
    assert!(
        w.question_text
            .contains("how large the input is or how many cores"),
        "{}",
        w.question_text
    );
    assert!(!topics.contains(&"tradeoffs"), "{topics:?}");
    // With the size and the machine given, only the comparison is left to ask.
    let (repo, subject) = repo_with(
        &[("src/walk.rs", "pub fn walk() {}\n")],
        "# fd is slower than find\n\nOn 120000 files and 16 cores, fd takes 2 seconds, find 1.\n",
    );
    let (first, _) = all_questions(&repo, &subject);
    assert!(
        !topic_list(&first).contains(&"workload"),
        "{:?}",
        topic_list(&first)
    );
}

#[test]
fn a_hyphenated_crate_is_not_found_inside_a_longer_name() {
    let (repo, subject) = repo_with(
        &[
            (
                "Cargo.toml",
                "[package]\nname = \"tree\"\n\n[dependencies]\nnu-ansi-term = \"0.46\"\n",
            ),
            ("src/lib.rs", "use nu_ansi_term::Color;\n"),
        ],
        "# `ansi-term` is unmaintained\n\nReplace it with a maintained crate.\n",
    );
    let (_, d) = all_questions(&repo, &subject);
    assert!(
        !d.entries
            .iter()
            .any(|e| e.title == "`ansi-term` in the repository"),
        "{d:?}"
    );
    assert_honest(&repo, &d);
}

#[test]
fn a_clap_bare_short_defines_the_fields_first_letter() {
    let args = "#[derive(Parser)]\npub struct Args {\n    /// Patterns to leave out.\n    #[arg(short, long)]\n    exclude: Vec<String>,\n}\n";
    let (repo, subject) = repo_with(
        &[("src/args.rs", args)],
        "# Let `-e` take a file of patterns\n\nToday `-e` takes one pattern at a time.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let e = d
        .entries
        .iter()
        .find(|e| e.title == "`-e` in the repository")
        .unwrap_or_else(|| panic!("-e not found: {d:?}"));
    assert!(
        e.content.starts_with("Defined at src/args.rs:5"),
        "{}",
        e.content
    );
    assert!(!option_values(question(&first, "existing_e")).is_empty());
    assert_honest(&repo, &d);
}

#[test]
fn a_bare_file_name_is_the_one_file_of_that_name_never_missing() {
    let (repo, subject) = repo_with(
        &[(
            "pkg/_impl.py",
            "\"\"\"The bar's rendering.\"\"\"\npos = 0\n",
        )],
        "# The bar is drawn too early\n\nI looked at `_impl.py`, but the rendering is tied to `pos`.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    assert!(
        d.entries
            .iter()
            .any(|e| e.sources.iter().any(|s| s == "pkg/_impl.py:1")),
        "{d:?}"
    );
    assert!(
        !first
            .iter()
            .any(|q| q.question_text.contains("`_impl.py`") && q.question_text.contains("nowhere")),
        "{:?}",
        topic_list(&first)
    );
    assert_honest(&repo, &d);
}

#[test]
fn a_bug_about_a_documented_api_asks_whether_its_docs_make_it_intended() {
    let task = "/// Runs `f` on a thread where blocking is fine.\n///\n/// Closures spawned this way cannot be cancelled once\n/// they start.\npub fn spawn_blocking<F>(f: F) {\n    run(f)\n}\n";
    let (repo, subject) = repo_with(
        &[("src/task.rs", task)],
        "# abort does not stop `spawn_blocking` tasks\n\n**Version**\n1.2.0\n\n**Description**\n\
         Calling abort on what `spawn_blocking` returned has no effect.\n",
    );
    let (first, _) = all_questions(&repo, &subject);
    let q = question(&first, "documented_spawn_blocking");
    assert!(
        q.question_text
            .contains("(src/task.rs:5, 4 comment lines above)"),
        "{}",
        q.question_text
    );
    // No test names it: no "which test" question that reads the same on every bug.
    assert!(
        !topic_list(&first).contains(&"regression_test"),
        "{:?}",
        topic_list(&first)
    );
}

#[test]
fn generic_questions_give_way_to_grounded_ones_and_an_existing_flag_is_recommended() {
    let (repo, subject) = repo_with(
        &[("src/app.rs", CLI)],
        "# Add a `--fixed-strings` switch\n\nLet me search for a literal string.\n",
    );
    let (first, _) = all_questions(&repo, &subject);
    let q = question(&first, "existing_fixed_strings");
    assert_eq!(q.recommended.as_deref(), Some("already_done"));
    // A dependency swap with its uses found asks about them, not the generic "same behaviour".
    let (repo, subject) = repo_with(
        &[
            (
                "Cargo.toml",
                "[package]\nname = \"tree\"\n\n[dependencies]\nansi_term = \"0.12\"\n",
            ),
            ("src/a.rs", "use ansi_term::Colour;\n"),
            ("src/b.rs", "use ansi_term::Style;\n"),
        ],
        "# `ansi_term` is unmaintained\n\nReplace it with [`yansi`](https://crates.io/crates/yansi).\n",
    );
    let (first, _) = all_questions(&repo, &subject);
    let topics = topic_list(&first);
    assert!(topics.contains(&"dependency_uses"), "{topics:?}");
    assert!(!topics.contains(&"behaviour_preserved"), "{topics:?}");
}

/// Commit everything at `date` (author and committer) and tag it `tag`.
pub(crate) fn commit_tagged_at(repo: &crate::util::TempRepo, date: &str, tag: &str) {
    repo.write("CHANGELOG.md", &format!("# {tag}\n{date}\n"));
    repo.git(&["add", "-A"]);
    let out = std::process::Command::new("git")
        .args(["commit", "-q", "-m", tag])
        .current_dir(repo.path())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_DATE", date)
        .env("GIT_COMMITTER_DATE", date)
        .output()
        .expect("git");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    repo.git(&["tag", tag]);
}

pub(crate) const REHASH_BUG: &str = "# Rehash crashes\n\n## Steps to reproduce\n\n1. Run `tool rehash`\n\n```\n$ tool rehash\n\
         error: cannot rehash: the shims directory is missing\n```\n\n## Expected behaviour\n\n\
         The shims are created.\n";
pub(crate) const REHASH: &str = "#!/bin/sh\necho rehashing\n";

#[test]
fn a_date_shaped_tag_is_no_version_beside_the_numbered_ones() {
    let (repo, subject) = repo_with(
        &[("bin/tool", REHASH), ("libexec/tool-rehash", REHASH)],
        REHASH_BUG,
    );
    commit_tagged_at(&repo, "2016-07-26T12:00:00Z", "v20160726");
    commit_tagged_at(&repo, "2020-01-01T12:00:00Z", "v1.2.0");
    commit_tagged_at(&repo, "2024-05-01T12:00:00Z", "v2.5.4");
    repo.write("README.md", "# tool\n\nafter the release\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "after v2.5.4"]);
    let (first, d) = all_questions(&repo, &subject);
    let head = question(&first, "reproduces_on_head");
    assert!(
        head.question_text.contains("the code after v2.5.4"),
        "{}",
        head.question_text
    );
    let version = question(&first, "first_bad_version");
    assert!(
        version
            .question_text
            .contains("The newest tags: v2.5.4, v1.2.0."),
        "{}",
        version.question_text
    );
    assert_honest(&repo, &d);
}

#[test]
fn a_tag_heads_history_does_not_hold_is_no_version_of_head() {
    let (repo, subject) = repo_with(
        &[("bin/tool", REHASH), ("libexec/tool-rehash", REHASH)],
        REHASH_BUG,
    );
    commit_tagged_at(&repo, "2019-01-01T12:00:00Z", "v1.0.0");
    repo.git(&["branch", "maint"]);
    commit_tagged_at(&repo, "2019-06-01T12:00:00Z", "v2.0.0");
    // A fix released on the old line after 2.0.0: HEAD does not descend from it.
    repo.git(&["checkout", "-q", "maint"]);
    commit_tagged_at(&repo, "2019-09-01T12:00:00Z", "v1.0.1");
    // 2.1.0 tagged on a release commit of its own, never merged back.
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&["checkout", "-q", "-b", "release"]);
    commit_tagged_at(&repo, "2019-10-01T12:00:00Z", "v2.1.0");
    repo.git(&["checkout", "-q", "main"]);
    repo.write("README.md", "# tool\n\nafter the release\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "after v2.1.0"]);
    let (first, d) = all_questions(&repo, &subject);
    let version = question(&first, "first_bad_version");
    // Neither the maintenance branch's v1.0.1 nor the unmerged v2.1.0: HEAD is not after them.
    assert!(
        version
            .question_text
            .contains("The newest tags: v2.0.0, v1.0.0."),
        "{}",
        version.question_text
    );
    let head = question(&first, "reproduces_on_head");
    assert!(
        head.question_text.contains("the code after v2.0.0"),
        "{}",
        head.question_text
    );
    assert_honest(&repo, &d);
    // An item that names the unmerged release as its version is not asked which one shows it.
    let named = REHASH_BUG.replace("# Rehash crashes\n", "# Rehash crashes in v2.1.0\n");
    repo.write("docs/intents/7-item.md", &named);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "the item names v2.1.0"]);
    let req = interview::testing::IntentRequest {
        id: "7",
        from: None,
        globs: None,
        github: interview::testing::GithubCli::Off,
    };
    let subject = interview::testing::intent_with(repo.path(), &req, None)
        .expect("the work item")
        .subject;
    let (first, _) = all_questions(&repo, &subject);
    assert!(
        !topic_list(&first).contains(&"first_bad_version"),
        "{:?}",
        topic_list(&first)
    );
}

#[test]
fn newest_tags_are_ordered_as_versions_a_later_release_stage_above_an_earlier_ones_respin() {
    let (repo, subject) = repo_with(
        &[("bin/tool", REHASH), ("libexec/tool-rehash", REHASH)],
        REHASH_BUG,
    );
    commit_tagged_at(&repo, "2017-08-05T12:00:00Z", "RC1");
    commit_tagged_at(&repo, "2017-08-31T12:00:00Z", "RC4");
    commit_tagged_at(&repo, "2017-09-08T12:00:00Z", "RC4-3");
    // Committed earlier than RC4-3 (a rebased history), tagged later: still the newest.
    commit_tagged_at(&repo, "2017-09-01T12:00:00Z", "RC5");
    repo.write("README.md", "# tool\n\nafter the release\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "after RC5"]);
    let (first, d) = all_questions(&repo, &subject);
    let head = question(&first, "reproduces_on_head");
    assert!(
        head.question_text.contains("the code after RC5"),
        "{}",
        head.question_text
    );
    let version = question(&first, "first_bad_version");
    assert!(
        version.question_text.contains("The newest tags: RC5, RC4"),
        "{}",
        version.question_text
    );
    assert_honest(&repo, &d);
}

#[test]
fn a_file_the_item_names_is_an_entry_titled_by_its_path_counting_what_it_says() {
    let (repo, subject) = repo_with(
        &[
            ("config/default-config.yml", "maxLineLength: 120\n"),
            (
                "src/Config.kt",
                "// Loads config/default-config.yml\nval DEFAULT = \"default-config.yml\"\n",
            ),
            ("README.md", "# tool\n\nCopy `config/default-config.yml`.\n"),
        ],
        "# All rules in one configuration file\n\nI see `config/default-config.yml` and \
         `default-config.yml`; is one file with every rule planned?\n",
    );
    let (_, d) = all_questions(&repo, &subject);
    let file = d
        .entries
        .iter()
        .find(|e| e.title.contains("config/default-config.yml") && e.title.ends_with("repository"))
        .unwrap_or_else(|| panic!("{d:?}"));
    // A name, never a `path:line` (a count of lines naming "path:1" is 0).
    assert_eq!(file.title, "`config/default-config.yml` in the repository");
    assert!(
        file.content.contains("2 lines in 2 files name it"),
        "{}",
        file.content
    );
    assert_honest(&repo, &d);
}
