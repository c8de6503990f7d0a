//! `reflect`: the facts of a commit range `rev..HEAD`, gathered in-process with gix (see
//! `docs/interviews.md`).
//!
//! Not for: judging the facts (the runner does) or running `git` (never).

use std::path::Path;

use crate::error::{Error, Result};

use super::{Kind, Subject};

mod blobs;
mod cache;
mod diff;
mod facts;
mod gather;
mod markdown;
mod paths;
mod range;
mod test_hook;
mod todos;
mod walk;
mod workers;

pub(crate) use super::cap;
pub use cache::FACTS_VERSION;
#[cfg(test)]
pub(crate) use facts::Gap;
pub(crate) use facts::{CommitLine, counted};
pub use facts::{FileEvent, ReflectFacts};
pub use gather::{gather, gather_cached};
pub(crate) use gather::{gather_cached_later, settle};
pub use markdown::{MARKDOWN_MAX_LINES, facts_markdown};
pub(crate) use paths::is_incidental;
pub use paths::{is_doc_path, is_test_path};
pub use walk::civil_date;

/// Gather the subject of `interview reflect <rev>`: resolve `rev` (tag, annotated or not, or any
/// revision) and collect the facts of `rev..HEAD` (through the local tier's cache when the tier
/// exists).
pub fn reflect(repo_root: &Path, rev: &str) -> Result<Subject> {
    // The cache is written meanwhile: the session waits for it before its first snapshot.
    let facts = gather_cached_later(repo_root, rev)?;
    let facts_markdown = facts_markdown(&facts);
    let facts_json = serde_json::to_value(&facts)
        .map_err(|e| Error::json(format!("cannot serialise the facts of {rev}..HEAD"), e))?;
    Ok(Subject {
        document_name: document_name(rev, &facts.base, facts.last_date.as_deref()),
        kind: Kind::Reflect,
        id: rev.to_string(),
        title: format!(
            "Reflection on the work since {}",
            range::shown_base(rev, &facts.base)
        ),
        facts_markdown,
        facts: facts_json,
    })
}

/// A revision that moves (`HEAD~20`, `main^`, `HEAD`, `@{1}`) names its document after the commit
/// it resolved to and the date of the newest commit reflected on; a tag or other plain name keeps
/// its own. `None`: the revision as typed is the name.
fn document_name(rev: &str, base: &str, last_date: Option<&str>) -> Option<String> {
    if !range::moves(rev) {
        return None;
    }
    let short: String = base.chars().take(7).collect();
    Some(match last_date {
        Some(date) => format!("{short}-{date}"),
        None => short,
    })
}

#[cfg(test)]
mod naming_tests {
    use super::document_name;

    #[test]
    fn a_moving_revision_is_named_by_its_commit_and_date() {
        let base = "3f2a1bc9d0e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4";
        assert_eq!(
            document_name("HEAD~20", base, Some("2026-12-01")).as_deref(),
            Some("3f2a1bc-2026-12-01")
        );
        assert_eq!(
            document_name("main^", base, None).as_deref(),
            Some("3f2a1bc")
        );
        assert_eq!(
            document_name("HEAD", base, None).as_deref(),
            Some("3f2a1bc")
        );
    }

    #[test]
    fn a_tag_keeps_its_name() {
        assert_eq!(document_name("v1.2.0", "3f2a1bc", Some("2026-12-01")), None);
    }
}
