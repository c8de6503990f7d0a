//! The documented section a usage question names: "How to specify default value …?" asked of a
//! project whose manual has a section "Default Values". A maintainer answers such a question
//! with the page that already explains it; the question names it when the title or the
//! question for help says the section's whole heading as a phrase.
//!
//! Not for: an option or a function that gives what is wished (`existing.rs`), nor the sections
//! nearest to all of the item's words (`nearest.rs`, `bank/ranked.rs`).

use std::collections::BTreeSet;

use super::existing::Existing;
use super::nearest::{Def, DefKind};
use super::words::words;

/// A heading of fewer words says too little to be named by a phrase ("Usage", "Options").
const MIN_WORDS: usize = 2;

/// The section whose heading the title or the question for help (`asked`, at line `line`; 0
/// is the title) says whole, its words in order. Of several, the longest heading; two longest
/// of different words, and none stands out. A changelog's entries document nothing.
/// The same heading in several files: the one in the file with the most sections.
pub(super) fn find(defs: &[Def], title: &str, asked: &str, line: u32) -> Option<Existing> {
    let said = [roots(title), roots(asked)];
    let says = |h: &[String]| {
        let h: Vec<&str> = h.iter().map(|w| root(w)).collect();
        let said = said
            .iter()
            .map(|s| s.iter().map(String::as_str).collect::<Vec<_>>());
        said.into_iter()
            .any(|s| s.windows(h.len()).any(|w| w == h.as_slice()))
    };
    let fits: Vec<&Def> = defs
        .iter()
        .filter(|h| h.kind == DefKind::Heading && !super::existing::changelog(&h.path))
        .filter(|h| h.name_words().len() >= MIN_WORDS && says(h.name_words()))
        .collect();
    let longest = fits.iter().map(|h| h.name_words().len()).max()?;
    let best: Vec<&&Def> = fits
        .iter()
        .filter(|h| h.name_words().len() == longest)
        .collect();
    let distinct: BTreeSet<&[String]> = best.iter().map(|h| h.name_words()).collect();
    if distinct.len() > 1 {
        return None;
    }
    // The manual rather than an article or a sub-package's README.
    let sections = |path: &str| {
        defs.iter()
            .filter(|d| d.kind == DefKind::Heading && d.path == path)
            .count()
    };
    let manual = best
        .iter()
        .copied()
        .max_by_key(|h| (sections(&h.path), std::cmp::Reverse(h.line)))?;
    Some(Existing {
        def: (*manual).clone(),
        doc: String::new(),
        documented: None,
        line,
        used: None,
    })
}

/// A word as the stemmer leaves it, less a final `e`: `values` stems to `valu`, `value` to
/// `value`, and a heading's plural is the question's singular.
fn root(word: &str) -> &str {
    word.strip_suffix('e').unwrap_or(word)
}

fn roots(text: &str) -> Vec<String> {
    words(text).iter().map(|w| root(w).to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn heading(path: &str, line: u32, name: &str) -> Def {
        Def::new(DefKind::Heading, name, path, line, "")
    }

    #[test]
    fn a_heading_said_whole_by_the_question_is_its_section() {
        let defs = [
            heading("docs/index.adoc", 10, "Default Values"),
            heading("docs/index.adoc", 40, "Default Values in Argument Groups"),
            heading("docs/index.adoc", 90, "Show Default Values"),
            heading("CHANGELOG.md", 3, "Default values"),
        ];
        let title = "How to specify default value if not in environment ?";
        let e = find(&defs, title, title, 0).expect("the section");
        assert_eq!((e.def.path.as_str(), e.def.line), ("docs/index.adoc", 10));
        // The same heading in an article of fewer sections: the manual's.
        let mut more = defs.to_vec();
        more.insert(0, heading("docs/tour.adoc", 5, "Default Values"));
        let e = find(&more, title, title, 0).expect("the section");
        assert_eq!((e.def.path.as_str(), e.def.line), ("docs/index.adoc", 10));
        // Its words scattered, or one word alone, name no section.
        assert!(find(&defs, "A value by default?", "A value by default?", 0).is_none());
        let one = [heading("README.md", 1, "Usage")];
        assert!(find(&one, "Usage of values", "Usage of values", 0).is_none());
        // Two headings of different words said equally: none stands out.
        let two = [
            heading("a.md", 1, "Default values"),
            heading("b.md", 1, "Values list"),
        ];
        let asked = "How to get the default values list?";
        assert!(find(&two, asked, asked, 0).is_none());
    }
}
