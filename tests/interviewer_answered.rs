//! The built-in intent interviewer never asks a report what it already answers, read from its
//! structure: the version it ran when that is HEAD's own, what should happen when it compares a
//! broken version with an older one; the document says where the item states it. And a report
//! whose behaviour a documentation section describes is asked of that section, found by all the
//! item's words (not only by a name it spells), before whether it reproduces on HEAD.

use crate::interviewer::{
    all_questions, assert_cited_lines_exist, question, repo_with, topic_list,
};

const MAIN_RS: &str = "fn main() {\n    let rules = load_rules();\n    run(rules);\n}\n";

fn tag(repo: &crate::util::TempRepo, tag: &str) {
    repo.write("CHANGELOG.md", &format!("# {tag}\n"));
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", tag]);
    repo.git(&["tag", tag]);
}

/// The content of the document's entry titled `title`.
fn entry(d: &interview::testing::Done, title: &str) -> String {
    d.entries
        .iter()
        .find(|e| e.title == title)
        .map(|e| e.content.clone())
        .unwrap_or_else(|| {
            panic!(
                "no entry {title}: {:?}",
                d.entries.iter().map(|e| &e.title).collect::<Vec<_>>()
            )
        })
}

#[test]
fn a_report_of_the_version_head_is_tagged_is_not_asked_whether_it_reproduces_on_head() {
    let (repo, subject) = repo_with(
        &[("src/main.rs", MAIN_RS)],
        "# Bug: the list is empty\n\nThe list comes out empty.\n\nTested with 1.1.0 and 1.2.0, the same \
         in both.\n",
    );
    tag(&repo, "v1.1.0");
    tag(&repo, "v1.2.0");
    let (first, d) = all_questions(&repo, &subject);
    assert!(
        !topic_list(&first).contains(&"reproduces_on_head"),
        "{:?}",
        topic_list(&first)
    );
    let said = entry(&d, "Version, stated by the item");
    assert!(
        said.contains("Version: 1.2.0, stated at line 5") && said.contains("HEAD is tagged v1.2.0"),
        "{said}"
    );
}

#[test]
fn a_report_of_an_older_version_is_still_asked_whether_it_reproduces_on_head() {
    let (repo, subject) = repo_with(
        &[("src/main.rs", MAIN_RS)],
        "# Bug: the list is empty\n\nThe list comes out empty.\n\nTested with 1.1.0.\n",
    );
    tag(&repo, "v1.1.0");
    tag(&repo, "v1.2.0");
    let (first, d) = all_questions(&repo, &subject);
    question(&first, "reproduces_on_head");
    assert!(
        !d.entries
            .iter()
            .any(|e| e.title == "Version, stated by the item")
    );
}

#[test]
fn a_report_comparing_two_versions_is_not_asked_what_should_happen_instead() {
    let item = "# Table grid offset bug\n\n**Tool version(s) affected**: 1.2.0\n\nThe table has \
                an offset with the newest release: the same table drawn\nwith tool 1.1.0 and with \
                tool 1.2.0.\n";
    let (repo, subject) = repo_with(&[("src/main.rs", MAIN_RS)], item);
    tag(&repo, "v1.1.0");
    tag(&repo, "v1.2.0");
    repo.write("src/main.rs", &format!("{MAIN_RS}// after\n"));
    repo.git(&["commit", "-qam", "after"]);
    let (first, d) = all_questions(&repo, &subject);
    assert!(
        !topic_list(&first).contains(&"expected_behaviour"),
        "{:?}",
        topic_list(&first)
    );
    let said = entry(&d, "Expected behaviour, stated by the item");
    assert!(
        said.contains("as in 1.1.0 (line 6)") && said.contains("with 1.2.0 (line 3)"),
        "{said}"
    );
}

const README: &str = "# tool\n\nA linter.\n\n## Installation\n\nRun `make install`.\n\n\
## Rule order\n\nRules are run in the order of the configuration file, and a later rule sees the \
output of an earlier one.\nA rule that rewrites indentation therefore undoes an earlier \
alignment rule.\n\n## Colours\n\nSet `--color` to `never` to print without colours.\n\n## Output formats\n\n\
Text, JSON or a checkstyle report.\n\n## Exit codes\n\n0 when clean, 1 when a rule reports.\n\n\
## Editor support\n\nPlugins exist for several editors.\n\n## Ignoring files\n\nList them in \
`.toolignore`.\n\n## Caching\n\nResults are cached per file.\n\n## Licence\n\nMIT.\n";

#[test]
fn a_report_is_asked_of_the_documentation_section_its_words_match_before_reproducing_it() {
    let (repo, subject) = repo_with(
        &[("src/main.rs", MAIN_RS), ("README.md", README)],
        "# Bug: alignment rule undone by the indentation rule\n\nWith both rules in the configuration \
         file, the alignment is undone: the indentation rule rewrites it after the alignment \
         rule ran.\n",
    );
    tag(&repo, "v1.0.0");
    repo.write("src/main.rs", &format!("{MAIN_RS}// after\n"));
    repo.git(&["commit", "-qam", "after"]);
    let (first, _) = all_questions(&repo, &subject);
    let topics = topic_list(&first);
    let at = topics
        .iter()
        .position(|t| *t == "documented_section_rule_order")
        .unwrap_or_else(|| panic!("no ranked section: {topics:?}"));
    let q = &first[at];
    assert!(
        q.question_text.starts_with(
            "README.md:9, \"Rule order\", says (line 12): \"A rule that rewrites indentation"
        ),
        "{}",
        q.question_text
    );
    assert_cited_lines_exist(&repo, &q.question_text);
    // The quotation is the section's line, verbatim (cut with "…" at most).
    let quote = q.question_text.split("(line 12): \"").nth(1).unwrap();
    let quote = quote.split('"').next().unwrap().trim_end_matches('…');
    assert!(README.lines().nth(11).unwrap().contains(quote), "{quote}");
    // Whether it reproduces comes after what the documentation says.
    if let Some(head) = topics.iter().position(|t| *t == "reproduces_on_head") {
        assert!(head > at, "{topics:?}");
    }
}

#[test]
fn a_weak_match_of_the_documentation_asks_no_section() {
    let (repo, subject) = repo_with(
        &[("src/main.rs", MAIN_RS), ("README.md", README)],
        "# Bug: crash on an empty file\n\nThe program crashes when the input file is empty.\n",
    );
    let (first, _) = all_questions(&repo, &subject);
    assert!(
        !topic_list(&first)
            .iter()
            .any(|t| t.starts_with("documented_section_")),
        "{:?}",
        topic_list(&first)
    );
}
