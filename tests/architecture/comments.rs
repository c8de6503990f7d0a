//! Comments say the rule itself (docs/architecture.md, "Rules the layout keeps"): a comment of
//! `src/` never sends its reader to the issue tracker for the reason (`(issue 24)`), which a
//! reader of the code may not have and which does not say what the code must keep doing.

use super::{rel, root, rust_files};

/// Where `line`'s comment points at a numbered issue for its reason: `(issue 24)`,
/// `(issue 40: …)`.
fn cites_an_issue(line: &str) -> bool {
    let Some(at) = line.find("//") else {
        return false;
    };
    let comment = &line[at..];
    comment.match_indices("(issue ").any(|(i, m)| {
        comment[i + m.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit())
    })
}

#[test]
fn a_citation_of_an_issue_is_recognised_in_a_comment_only() {
    assert!(cites_an_issue("    // kept as text (issue 24)."));
    assert!(cites_an_issue(
        "/// the start line (issue 40: it ran elsewhere)."
    ));
    assert!(!cites_an_issue("    // an issue (issue tracker) is read"));
    assert!(!cites_an_issue(
        r#"    "Interview about issue 42 (issue 42 in gh)","#
    ));
}

#[test]
fn no_comment_cites_an_issue_for_its_reason() {
    let mut cited = Vec::new();
    for file in rust_files(&root().join("src")) {
        let text = std::fs::read_to_string(&file).unwrap();
        for (n, line) in text.lines().enumerate() {
            if cites_an_issue(line) {
                cited.push(format!("src/{}:{}: {}", rel(&file), n + 1, line.trim()));
            }
        }
    }
    assert!(
        cited.is_empty(),
        "comments citing an issue instead of saying the rule:\n{}",
        cited.join("\n")
    );
}
