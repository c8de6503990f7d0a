//! What the intent interviewer learnt of one work item, shared by everything that asks and
//! writes from it: the item read, its kind, the names it uses with what the repository holds
//! of each, and the literals searched for beside them.
//!
//! Not for: reading it (`intent::read`) or asking from it (`questions`, `bank`).

use std::path::Path;

use crate::subject::IntentFacts;
use crate::subject::reflect::cap;

use super::item::Item;
use super::kind::Classification;
use super::names::Name;
use super::place::{is_doc, is_test};
use super::repo::RepoFacts;
use super::search::{Found, Hit, Search};

/// Literals searched for alongside the names: how this repository defines command-line flags.
pub(super) const FLAG_CONVENTIONS: &[&str] = &[
    "#[arg(",
    "#[clap(",
    ".long(",
    "add_argument(",
    "@click.option(",
    "Flags().",
    "flag.String(",
    ".option(",
];

/// Literals searched for alongside the names: where short flags are declared, to tell how many
/// letters are taken.
pub(super) const SHORT_DECLS: &[&str] = &[".short(", "short = '", "short='"];

/// Literals searched for alongside the names: how this repository declares benchmarks.
pub(super) const BENCHMARKS: &[&str] = &["[[bench]]", "criterion_group!", "#[bench]"];

/// Everything the interviewer learnt about one work item.
pub(super) struct Reading<'a> {
    pub facts: &'a IntentFacts,
    pub item: Item<'a>,
    pub class: Classification,
    /// The item's question asking for help with what exists (`shape::support_question`), with
    /// its line: a support question, asked what the person is after.
    pub support: Option<(u32, String)>,
    pub names: Vec<Located>,
    /// The repository's definitions nearest to the item's words, best first (`nearest.rs`).
    pub nearest: Vec<super::nearest::Match>,
    pub search: Search,
    pub repo: RepoFacts,
    pub worktree: &'a Path,
}

/// A name from the item with what the repository holds of it.
#[derive(Debug, Clone)]
pub(super) struct Located {
    pub name: Name,
    /// Lines naming it (any spelling searched), in path order, at most 200.
    pub hits: Vec<Hit>,
    /// What the search counted of it, over every file (not only the kept lines).
    pub count: Found,
    /// Where it is defined or declared, when a line looks like it (the first of
    /// `definitions`).
    pub definition: Option<Hit>,
    pub definitions: Vec<Hit>,
}

impl Located {
    pub(super) fn found(&self) -> bool {
        !self.hits.is_empty()
    }

    pub(super) fn in_tests(&self) -> Vec<&Hit> {
        self.hits.iter().filter(|h| is_test(&h.path)).collect()
    }

    pub(super) fn in_docs(&self) -> Vec<&Hit> {
        self.hits.iter().filter(|h| is_doc(&h.path)).collect()
    }

    /// The source-code lines that name it (tests, documentation, manifests and other files
    /// left out).
    pub(super) fn in_code(&self) -> Vec<&Hit> {
        self.count.code.iter().collect()
    }

    /// `name` as the item wrote it, in backticks for a question.
    pub(super) fn shown(&self) -> String {
        super::text::code_span(&cap(&self.name.text, 60))
    }
}

/// Whether `a` and `b` name the same package (`a-b` is `a_b`, any case).
pub(super) fn same_package(a: &str, b: &str) -> bool {
    let norm = |s: &str| s.to_lowercase().replace('-', "_");
    norm(a) == norm(b)
}
