//! The built-in intent interviewer reads a question about how to use what exists as a support
//! question layered on the kind the other cues give, never as a documentation change, and cites
//! a page to change only where its prose names the thing (issue 39, twenty-fifth pass): a
//! performance report asking how to go faster stays performance work, a usage question alone is
//! said to be one and is not asked where to document its answer, and a badge's URL holding the
//! name is no page about it. Each on a small repository, not a real issue.

use crate::interviewer::{
    all_questions, assert_honest, assert_kind, assert_not_asked, question, repo_with, topic_list,
};

const SEARCH_RS: &str = "/// Walk the tree and print every line that matches.\npub fn search(root: &str) -> usize {\n    root.len()\n}\n";

#[test]
fn a_performance_report_asking_how_to_go_faster_stays_performance_work() {
    let (repo, subject) = repo_with(
        &[("src/search.rs", SEARCH_RS)],
        "# Searching a large tree is too slow\n\nThe benchmark takes 9 s on the tree against 2 s \
         for grep, and the profile shows most of it in the walk.\n\nHow can I make it faster?\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    assert_kind(&d, "Read as a performance work");
    let q = question(&first, "support");
    assert!(
        q.question_text.contains("How can I make it faster?"),
        "{}",
        q.question_text
    );
    assert_not_asked(&first, &["doc_location", "doc_pages", "audience"]);
    assert_honest(&repo, &d);
}

#[test]
fn a_usage_question_alone_is_said_to_be_one_and_not_asked_where_to_document_it() {
    let (repo, subject) = repo_with(
        &[("src/search.rs", SEARCH_RS)],
        "# Parsing a list of values\n\nI split the value by hand after parsing it, then parse \
         every part again.\n\nIs there a more elegant way to do it?\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    assert_kind(
        &d,
        "Read as a question about how to use what exists: it asks \"Is there a more elegant \
             way",
    );
    assert!(
        !d.entries
            .iter()
            .any(|e| e.content.contains("documentation change"))
    );
    let topics = topic_list(&first);
    assert!(topics.contains(&"support"), "{topics:?}");
    assert!(!topics.contains(&"doc_location"), "{topics:?}");
    assert_honest(&repo, &d);
}

#[test]
fn a_page_to_change_names_the_thing_outside_any_url_or_badge() {
    let (repo, subject) = repo_with(
        &[
            (
                "README.md",
                "# tool\n\n[![npm](https://img.shields.io/npm/v/tabtab.svg)](https://npmjs.org/package/tabtab)\n\nA command line tool.\n",
            ),
            (
                "docs/usage.md",
                "# Usage\n\nShell completion is set up by tabtab when the tool is installed.\n",
            ),
            (
                "src/index.js",
                "const tabtab = require('x');\nmodule.exports = tabtab;\n",
            ),
        ],
        "# docs: explain how `tabtab` completion is installed\n\nThe page says little about \
         `tabtab`.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let q = question(&first, "doc_pages");
    assert!(
        q.question_text.contains("docs/usage.md:3") && !q.question_text.contains("README.md:3"),
        "{}",
        q.question_text
    );
    // A sentence that names it in passing is a mention, not its documentation.
    assert!(
        q.question_text.contains("is mentioned at"),
        "{}",
        q.question_text
    );
    assert_honest(&repo, &d);
}
