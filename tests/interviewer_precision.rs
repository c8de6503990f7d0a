//! The built-in intent interviewer asks less that is wrong (issue 39, twenty-second pass): a
//! template's underlined headings are its structure, not open points; the nearest code is
//! named only when it stands out from the other candidates; and the docs are asked to change
//! only for a name few of them cite. Each on a small repository, not the real issue.

use crate::interviewer::{all_questions, assert_honest, question, repo_with, topic_list};

#[test]
fn a_templates_underlined_questions_are_not_asked_back() {
    let (repo, subject) = repo_with(
        &[("src/main.rs", "fn main() {}\n")],
        "# Dynamic settings?\n\nDo you want to request a *feature* or report a *bug*?\n\
         ------------------------------------------------------\nFeature\n\n\
         What is the current behavior?\n=============================\n\
         Settings are read once.\n\nShould a changed file be read again at once or on the \
         next run?\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let points: Vec<&str> = first
        .iter()
        .filter(|q| q.topic.starts_with("open_point_"))
        .map(|q| q.question_text.as_str())
        .collect();
    // The reporter's own question is still asked; the template's two are not.
    assert_eq!(points.len(), 1, "{points:?}");
    assert!(points[0].contains("read again"), "{points:?}");
    assert_honest(&repo, &d);
}

const SETTINGS_RS: &str = "/// Reads the default value.\npub fn default_value() -> u32 {\n    0\n}\n\n\
/// Reads the default setting.\npub fn default_setting() -> u32 {\n    0\n}\n\n\
/// Reads a setting's value.\npub fn setting_value() -> u32 {\n    0\n}\n";

#[test]
fn the_nearest_code_is_named_only_when_it_stands_out() {
    // Three definitions match the item's words about as well: naming one would be a guess.
    let item = "# The default value of a setting is ignored\n\nThe default value I give a \
                setting is not the one used.\n";
    let (repo, subject) = repo_with(&[("src/settings.rs", SETTINGS_RS)], item);
    let (first, d) = all_questions(&repo, &subject);
    assert!(
        !topic_list(&first).contains(&"nearest_code"),
        "{:?}",
        first.iter().map(|q| &q.question_text).collect::<Vec<_>>()
    );
    // Said as it is: they matched, none stood out (not "nothing matched").
    assert!(d.summary.contains("none standing out"), "{}", d.summary);
    assert_honest(&repo, &d);
    // One that matches far better than the next is named.
    let alone = "/// Reads the default value of a setting.\npub fn setting_default_value() -> u32 \
                 {\n    0\n}\n\n/// Reads the value.\npub fn value() -> u32 {\n    0\n}\n";
    let (repo, subject) = repo_with(&[("src/settings.rs", alone)], item);
    let (first, _) = all_questions(&repo, &subject);
    let near = first.iter().find(|q| q.topic == "nearest_code");
    assert!(
        near.is_some_and(|q| q.question_text.contains("`setting_default_value()`")),
        "{:?}",
        topic_list(&first)
    );
}

#[test]
fn the_docs_are_asked_to_change_only_for_a_name_few_of_them_cite() {
    let item = "# Make `pager_width` settable per project\n\nI want to set `pager_width` for \
                one project only.\n";
    let readme = ("README.md", "Set `pager_width` in the settings file.\n");
    let (repo, subject) = repo_with(&[("src/main.rs", "fn main() {}\n"), readme], item);
    let (first, _) = all_questions(&repo, &subject);
    assert!(
        topic_list(&first).contains(&"docs_update"),
        "{:?}",
        topic_list(&first)
    );
    // Cited in four documents, it is the project's common word: no page is stale for it.
    let page = "The `pager_width` setting is read at start.\n";
    let (repo, subject) = repo_with(
        &[
            ("src/main.rs", "fn main() {}\n"),
            readme,
            ("docs/a.md", page),
            ("docs/b.md", page),
            ("docs/c.md", page),
        ],
        item,
    );
    let (first, d) = all_questions(&repo, &subject);
    assert!(
        !topic_list(&first).contains(&"docs_update"),
        "{:?}",
        topic_list(&first)
    );
    assert_honest(&repo, &d);
}

/// A bug in how a value is matched, with tests that name it, a placeholder and `--version`.
const ARG_RS: &str =
    "/// The values an argument accepts.\npub fn possible_values(values: &[&str]) {}\n";
const BUG_ITEM: &str = "# `possible_values` rejects `Foo`\n\nWith `possible_values` of \
    `foo`, the value `Foo` is rejected; `--version` still works; no test catches it.\n\n```\n$ app Foo\nerror: \
    invalid value\n```\n\n## Expected behaviour\n\nAccepted.\n";

#[test]
fn the_test_asked_of_is_named_by_the_items_code_never_by_a_placeholder_or_version() {
    let files = [
        ("src/arg.rs", ARG_RS),
        ("src/main.rs", "fn main() {\n    // --version\n}\n"),
        ("tests/app.yml", "args:\n  - possible_values: [foo, bar]\n"),
        (
            "tests/settings.rs",
            "#[test]\nfn values() {\n    let _ = \"possible_values\";\n}\n",
        ),
        (
            "tests/other.rs",
            "#[test]\nfn other() {\n    let _ = (\"foo\", \"--version\");\n}\n",
        ),
    ];
    let (repo, subject) = repo_with(&files, BUG_ITEM);
    let (first, d) = all_questions(&repo, &subject);
    let test = question(&first, "regression_test");
    // tests/other.rs names two of the item's names, `foo` and `--version`: any test may.
    assert_eq!(
        test.question_text,
        "Which test should show the bug (failing now, passing after the fix)? tests/settings.rs \
         already names `possible_values`. Recommended: that file."
    );
    assert_honest(&repo, &d);
}

const FIND_README: &str = "# tool\n\nYou can find the results in the output folder.\n\n\
     ## Searching\n\nThe search will find every match, then `find` prints it.\n\n\
     ## Reference\n\n- `find`: lists the matches of a pattern\n";

#[test]
fn a_docs_line_holding_an_everyday_word_in_a_sentence_is_no_page_about_that_name() {
    let (repo, subject) = repo_with(
        &[
            (
                "src/find.rs",
                "/// Lists the matches of a pattern.\npub fn find(pattern: &str) {}\n",
            ),
            ("README.md", FIND_README),
        ],
        "# Document what `find` returns\n\nThe documentation of `find` should say what it \
         returns when nothing matches.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let all: Vec<&str> = first.iter().map(|q| q.question_text.as_str()).collect();
    assert!(all.iter().all(|q| !q.contains("README.md:3")), "{all:?}");
    assert!(
        all.iter()
            .any(|q| q.contains("README.md:7") || q.contains("README.md:11")),
        "{all:?}"
    );
    assert_honest(&repo, &d);
}

#[test]
fn a_count_is_of_the_files_read_and_a_tracked_file_an_ignore_file_lists_is_not_read() {
    // A committed script under a folder the `.gitignore` lists (a tool's `bin/`) is left out, as
    // ripgrep leaves it out: the count is what `rg -w` finds, as docs/interviews.md says, and
    // scripts/devset-check.py counts the same way.
    let (repo, subject) = repo_with(
        &[
            (".gitignore", "bin\n"),
            (
                "src/table.rs",
                "/// Draws the rows.\npub fn render_rows(rows: &[String]) -> String {\n    \
                 rows.join(\"\\n\")\n}\n",
            ),
            (
                "src/main.rs",
                "mod table;\nfn main() {\n    print!(\"{}\", table::render_rows(&[]));\n}\n",
            ),
            (
                "bin/activate-tool",
                "#!/bin/sh\nexec sh -c \"tool render_rows --all\"\n",
            ),
        ],
        "# Empty tables\n\n`render_rows()` prints nothing for an empty table; should it print \
         a header?\n",
    );
    repo.git(&["add", "-f", "bin/activate-tool"]);
    repo.git(&["commit", "-q", "-m", "the tool's script"]);
    let (_, d) = all_questions(&repo, &subject);
    let entry = d
        .entries
        .iter()
        .find(|e| e.title.contains("render_rows") && e.title.ends_with("repository"))
        .unwrap_or_else(|| panic!("{:?}", d.entries));
    assert!(
        entry.content.contains("2 lines in 2 files name it"),
        "{}",
        entry.content
    );
    assert_honest(&repo, &d);
}

#[test]
fn a_member_named_with_its_type_is_found_where_the_type_defines_it_never_nowhere() {
    let (repo, subject) = repo_with(
        &[
            (
                "src/table.py",
                "class Table:\n    \"\"\"Rows and a footer.\"\"\"\n\n    def render(self):\n        \
                 return \"\\n\".join(self.rows)\n",
            ),
            (
                "src/cli.py",
                "from table import Table\n\nprint(Table().render())\n",
            ),
        ],
        "# The last row is lost\n\nCalling `Table.render()` on a table with a footer drops the \
         last row. It should print every row.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let said: Vec<String> = first
        .iter()
        .map(|q| q.question_text.clone())
        .chain(
            d.entries
                .iter()
                .map(|e| format!("{}: {}", e.title, e.content)),
        )
        .chain([d.summary.clone()])
        .collect();
    assert!(
        !said
            .iter()
            .any(|s| s.contains("Table.render") && s.contains("nowhere")),
        "{said:#?}"
    );
    let entry = d
        .entries
        .iter()
        .find(|e| e.title.contains("Table.render") && e.title.ends_with("repository"))
        .unwrap_or_else(|| panic!("{said:#?}"));
    assert!(
        entry.content.contains("`render` in `Table`") && entry.content.contains("src/table.py:4"),
        "{}",
        entry.content
    );
    assert_honest(&repo, &d);
}
