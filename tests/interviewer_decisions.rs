//! The built-in intent interviewer on decisions the maintainers of the development set's tuning
//! half took and its first round did not reach: an exception the report shows that the API its
//! trace names documents as thrown, and a regression between two versions, asked with the
//! changes between them to the code the item is about. Each on a small repository and item of
//! the same class, not the real issue.

use crate::interviewer::{all_questions, assert_honest, question, repo_with, topic_list};

/// Fails unless no question of `qs` has a topic that starts with `prefix`.
#[track_caller]
fn asks_none(qs: &[interview::testing::Question], prefix: &str) {
    let topics = topic_list(qs);
    assert!(!topics.iter().any(|t| t.starts_with(prefix)), "{topics:?}");
}

const READER: &str = "package org.acme;\n\npublic interface Reader {\n    /**\n     * Reads a line.\n     *\n     * @throws EndOfInputException if the input has ended\n     */\n    String readLine() throws EndOfInputException;\n\n    /**\n     * @throws EndOfInputException if the input has ended\n     */\n    void close() throws EndOfInputException;\n}\n";

const TRACE: &str = "# Reader failed with org.acme.EndOfInputException\n\nVersion: 2.1.0\n\n```\norg.acme.EndOfInputException: null\n\tat org.acme.impl.ReaderImpl.readLine(ReaderImpl.java:554)\n\tat com.app.Main.run(Main.java:30)\n```\n";

#[test]
fn an_exception_the_api_its_trace_names_documents_as_thrown_is_asked_whether_it_is_intended() {
    let (repo, subject) = repo_with(
        &[
            ("src/main/java/org/acme/Reader.java", READER),
            (
                "src/main/java/org/acme/EndOfInputException.java",
                "package org.acme;\n\npublic class EndOfInputException extends RuntimeException {\n}\n",
            ),
        ],
        TRACE,
    );
    let (first, d) = all_questions(&repo, &subject);
    let q = question(&first, "documented_throw_endofinputexception");
    assert!(
        q.question_text.starts_with(
            "`readLine` is documented to throw `EndOfInputException` \
             (src/main/java/org/acme/Reader.java:7: \"if the input has ended\")."
        ),
        "{}",
        q.question_text
    );
    assert_eq!(q.recommended.as_deref(), Some("documented"));
    // `close` throws it too, but the item names no `close`: it is no second declaration.
    assert!(
        !q.question_text.contains("more declaration"),
        "{}",
        q.question_text
    );
    assert_honest(&repo, &d);
}

#[test]
fn an_exception_documented_only_on_functions_the_item_never_names_is_not_asked() {
    let other = READER.replace("readLine", "readAll");
    let (repo, subject) = repo_with(
        &[("src/main/java/org/acme/Reader.java", other.as_str())],
        TRACE,
    );
    let (first, _) = all_questions(&repo, &subject);
    asks_none(&first, "documented_throw_");
}

const TABLE_V1: &str = "def render_table(rows):\n    \"\"\"Draw the rows as a table.\"\"\"\n    width = max(len(r) for r in rows)\n    return width\n";

const TABLE_ITEM: &str = "# Table grid offset bug\n\n**Version(s) affected**: 1.1.0\n\n**Description**\nThe table `render_table` draws is offset: screenshots of one table with 1.0.0 and with 1.1.0.\n";

/// A repository tagged v1.0.0, then v1.1.0 after a commit that changed `lib/table.py` (and one
/// that changed only its README); the commit's id.
fn regressed(item: &str) -> (crate::util::TempRepo, interview::testing::Subject, String) {
    let (repo, subject) = repo_with(&[("lib/table.py", TABLE_V1), ("README.md", "# t\n")], item);
    repo.git(&["tag", "v1.0.0"]);
    repo.write("lib/table.py", &TABLE_V1.replace("len(r)", "wide(r)"));
    repo.git(&["commit", "-qam", "Count wide characters twice in a cell"]);
    let id = repo
        .git(&["rev-parse", "--short=8", "HEAD"])
        .trim()
        .to_string();
    repo.write("README.md", "# table\n");
    repo.git(&["commit", "-qam", "Say what it is"]);
    repo.git(&["tag", "v1.1.0"]);
    (repo, subject, id)
}

#[test]
fn a_regression_between_two_versions_is_asked_about_the_commits_that_changed_its_code() {
    let (repo, subject, id) = regressed(TABLE_ITEM);
    let (first, d) = all_questions(&repo, &subject);
    let q = question(&first, "regression_change");
    assert_eq!(
        q.question_text,
        format!(
            "Between v1.0.0 and v1.1.0 (line 3), lib/table.py changed in one commit: {id} \
             \"Count wide characters twice in a cell\". Is it the cause? Recommended: start \
             there, the one change to it."
        )
    );
    assert_eq!(q.recommended.as_deref(), Some(id.as_str()));
    // The item says which version was good: it is not asked again.
    assert!(
        !topic_list(&first).contains(&"first_bad_version"),
        "{:?}",
        topic_list(&first)
    );
    assert_honest(&repo, &d);
}

#[test]
fn versions_said_to_fail_alike_are_no_regression_to_look_into() {
    let item = TABLE_ITEM.replace(
        "screenshots of one table with 1.0.0 and with 1.1.0",
        "I see the same with both 1.0.0 and 1.1.0",
    );
    let (repo, subject, _) = regressed(&item);
    let (first, _) = all_questions(&repo, &subject);
    assert!(
        !topic_list(&first).contains(&"regression_change"),
        "{:?}",
        topic_list(&first)
    );
}

const PAGER_CODE: &str = "pub fn pager() -> String {\n    std::env::var(\"PAGER\").unwrap_or_else(|_| \"less\".into())\n}\n";

const PAGER_ITEM: &str = "# paging not done if PAGER='less -R'\n\nMy `PAGER` environment variable is set to 'less -R', and with it paging fails. Tested with \
     0.6.0.\n";

#[test]
fn a_bug_whose_subject_the_docs_cover_in_a_section_is_asked_whether_they_answer_it() {
    let readme = "# tool\n\n## Usage\n\nRun it.\n\n### Using a different pager\n\nThe pager is the one \
                  `PAGER` names. To pass arguments to it, write a small wrapper script.\n";
    let (repo, subject) = repo_with(
        &[("src/output.rs", PAGER_CODE), ("README.md", readme)],
        PAGER_ITEM,
    );
    let (first, d) = all_questions(&repo, &subject);
    let q = question(&first, "documented_section_using_a_different_pager");
    assert_eq!(
        q.question_text,
        "README.md:7, \"Using a different pager\", names `PAGER` (line 9). Does what it documents \
         answer the report, or is it a bug?"
    );
    assert_honest(&repo, &d);
}

#[test]
fn a_sample_in_a_code_block_or_a_section_off_the_subject_documents_nothing_of_it() {
    let readme = "# tool\n\n## Colours\n\nColours follow `PAGER`'s terminal.\n\n## Paging\n\n```\n$ PAGER=less tool\n```\n";
    let (repo, subject) = repo_with(
        &[("src/output.rs", PAGER_CODE), ("README.md", readme)],
        PAGER_ITEM,
    );
    let (first, _) = all_questions(&repo, &subject);
    asks_none(&first, "documented_section_");
}

#[test]
fn where_the_items_own_file_did_not_change_its_folder_is_searched_for_the_change() {
    let (repo, subject) = repo_with(
        &[
            ("lib/table.py", TABLE_V1),
            ("lib/width.py", "def wide(s):\n    return len(s)\n"),
        ],
        TABLE_ITEM,
    );
    repo.git(&["tag", "v1.0.0"]);
    repo.write("lib/width.py", "def wide(s):\n    return 2 * len(s)\n");
    repo.git(&["commit", "-qam", "Count wide characters twice"]);
    let id = repo
        .git(&["rev-parse", "--short=8", "HEAD"])
        .trim()
        .to_string();
    repo.git(&["tag", "v1.1.0"]);
    let (first, _) = all_questions(&repo, &subject);
    let q = question(&first, "regression_change");
    assert!(
        q.question_text.starts_with(&format!(
            "Between v1.0.0 and v1.1.0 (line 3), lib/ changed in one commit: {id} \"Count wide \
             characters twice\"."
        )),
        "{}",
        q.question_text
    );
}

#[test]
fn a_section_found_by_a_word_of_a_quoted_command_line_is_not_asked() {
    let app = "pub fn args() -> clap::Command {\n    clap::Command::new(\"tool\").arg(clap::Arg::new(\"pager\").long(\"pager\"))\n}\n";
    let readme = "# tool\n\n## Usage\n\nRun it.\n\n### Using a different pager\n\nThe `--pager` flag names \
                  the pager. To pass arguments to it, write a small wrapper script.\n";
    // The title is about a viewer; `--pager` is only a word of the command line it quotes, and
    // the heading shares no more than "different" with the title.
    let item = "# a different viewer is broken\n\nThe output is empty when I run `tool --pager most \
                file.txt`, a bug since 0.6.0.\n\nExpected: the file.\n";
    let (repo, subject) = repo_with(&[("src/app.rs", app), ("README.md", readme)], item);
    let (first, _) = all_questions(&repo, &subject);
    asks_none(&first, "documented_section_");
}
