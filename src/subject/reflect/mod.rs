//! `reflect`: the facts of a commit range `rev..HEAD`, gathered in-process with gix (see
//! `docs/interviews.md`).
//!
//! Not for: judging the facts (the runner does) or running `git` (never).

use std::path::Path;

use crate::error::{Error, Result};

use super::{Kind, Subject};

mod cache;
mod diff;
mod facts;
mod gather;
mod markdown;
mod paths;
mod range;
mod todos;
mod walk;

pub use super::cap;
pub use cache::FACTS_VERSION;
pub use facts::{
    AuthorCount, CommitLine, FileChurn, FileEvent, Gap, ReflectFacts, TestFacts, TodoLine, counted,
    duration_text,
};
pub use gather::{civil_date, gather, gather_cached};
pub use markdown::{MARKDOWN_MAX_LINES, facts_markdown};
pub use paths::{is_doc_path, is_incidental, is_test_path, is_version_bump};
pub use range::{nearest_tags, rank_nearest, resolve};

/// Gather the subject of `interview reflect <rev>`: resolve `rev` (tag, annotated or not, or any
/// revision) and collect the facts of `rev..HEAD` (through the local tier's cache when the tier
/// exists).
pub fn reflect(repo_root: &Path, rev: &str) -> Result<Subject> {
    let facts = gather_cached(repo_root, rev)?;
    let facts_markdown = facts_markdown(&facts);
    let facts_json = serde_json::to_value(&facts)
        .map_err(|e| Error::Other(format!("cannot serialise the facts of {rev}..HEAD: {e}")))?;
    Ok(Subject {
        kind: Kind::Reflect,
        id: rev.to_string(),
        title: format!("Reflection on the work since {rev}"),
        facts_markdown,
        facts: facts_json,
    })
}
