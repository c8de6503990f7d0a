//! The built-in interviewer quotes only what the documentation says: Markdown inside an HTML
//! comment (`<!-- … -->`) is neither a heading nor a sentence, and a section that only mentions
//! the report's words below a heading about something else, or a list of links, is not offered
//! as the section that answers it.

use crate::interviewer::{all_questions, repo_with, topic_list};

const MAIN_RS: &str = "fn main() {\n    let rules = load_rules();\n    run(rules);\n}\n";

const RULES: &str = "Rules are run in the order of the configuration file, and a later rule \
sees the output of an earlier one.\nA rule that rewrites indentation therefore undoes an \
earlier alignment rule.\n";

const OTHERS: &str = "## Colours\n\nSet `--color` to `never` to print without colours.\n\n\
## Output formats\n\nText, JSON or a checkstyle report.\n\n## Exit codes\n\n0 when clean, 1 \
when a rule reports.\n\n## Editor support\n\nPlugins exist for several editors.\n\n## Caching\n\n\
Results are cached per file.\n\n## Licence\n\nMIT.\n";

const ITEM: &str = "# Bug: alignment rule undone by the indentation rule\n\nWith both rules in \
the configuration file, the alignment is undone: the indentation rule rewrites it after the \
alignment rule ran.\n";

fn sections(readme: &str) -> Vec<String> {
    let (repo, subject) = repo_with(&[("src/main.rs", MAIN_RS), ("README.md", readme)], ITEM);
    let (first, _) = all_questions(&repo, &subject);
    let topics = topic_list(&first);
    first
        .iter()
        .zip(topics)
        .filter(|(_, t)| t.starts_with("documented_section_"))
        .map(|(q, _)| q.question_text.clone())
        .collect()
}

#[test]
fn a_section_inside_an_html_comment_is_never_ranked_nor_quoted() {
    // The same section, shown, is asked (the control); commented out, across lines, it is not.
    let shown = format!("# tool\n\nA linter.\n\n## Rule order\n\n{RULES}\n{OTHERS}");
    assert!(
        sections(&shown)
            .iter()
            .any(|q| q.starts_with("README.md:5, \"Rule order\", says")),
        "{:?}",
        sections(&shown)
    );
    let hidden = format!(
        "# tool\n\nA linter.\n\n<!--\n## Rule order\n\n{RULES}-->\n\n## Usage\n\nRun it.\n\n{OTHERS}"
    );
    let asked = sections(&hidden);
    assert!(
        asked
            .iter()
            .all(|q| !q.contains("Rule order") && !q.contains("rewrites")),
        "{asked:?}"
    );
}

#[test]
fn a_section_whose_heading_and_first_sentence_name_none_of_the_shared_words_is_not_asked() {
    // A shell-integration section that mentions the report's words only further down.
    let readme = format!(
        "# tool\n\nA linter.\n\n## Shell integration\n\nAdd the hook to your shell's startup \
         file.\nIt then runs on every save.\n{RULES}\n{OTHERS}"
    );
    let asked = sections(&readme);
    assert!(asked.is_empty(), "{asked:?}");
}

#[test]
fn a_list_of_links_is_never_the_quoted_sentence() {
    let readme = format!(
        "# tool\n\nA linter.\n\n## Rule order\n\n- [Indentation rule](#indentation-rule) | \
         [Alignment rule](#alignment-rule) | [Configuration file](#configuration-file)\n\n{RULES}\n{OTHERS}"
    );
    let asked = sections(&readme);
    assert!(!asked.is_empty(), "{asked:?}");
    assert!(asked.iter().all(|q| !q.contains("](#")), "{asked:?}");
}
