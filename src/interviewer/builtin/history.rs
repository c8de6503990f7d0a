//! What changed between two tags in given files (gix, in-process): for a regression the item
//! reports between two versions, the commits of the later one, not of the earlier, that changed
//! a file of the code the item is about — where a maintainer looks first. Bounded: at most
//! [`MAX_WALK`] commits are walked, and only the given files' entries are compared.
//!
//! Not for: the tags themselves (`repo.rs`).

use std::path::Path;

/// Commits walked at most between two tags; beyond, nothing is said.
const MAX_WALK: usize = 2000;

/// A commit that changed one of the files asked about.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Change {
    /// Its id, abbreviated to 8 hex digits.
    pub id: String,
    /// The first line of its message.
    pub subject: String,
    /// The files asked about that it changed.
    pub paths: Vec<String>,
}

/// The commits reachable from tag `to` and not from tag `from`, merges left out, that changed
/// one of `paths` (files or folders, compared with their parent), in the order walked from `to`. None when a tag is not there or
/// the range is longer than [`MAX_WALK`].
pub(super) fn changes_between(
    worktree: &Path,
    from: &str,
    to: &str,
    paths: &[String],
) -> Option<Vec<Change>> {
    let repo = gix::open_opts(worktree, gix::open::Options::isolated()).ok()?;
    let tip = |tag: &str| -> Option<gix::ObjectId> {
        let mut r = repo.find_reference(&format!("refs/tags/{tag}")).ok()?;
        Some(r.peel_to_commit().ok()?.id)
    };
    let (from, to) = (tip(from)?, tip(to)?);
    let walk = repo.rev_walk([to]).with_hidden([from]).all().ok()?;
    // The object each path names in a commit's tree (None where it is absent).
    let entries = |id: gix::ObjectId| -> Option<Vec<Option<gix::ObjectId>>> {
        let tree = repo.find_commit(id).ok()?.tree().ok()?;
        Some(
            paths
                .iter()
                .map(|p| {
                    tree.lookup_entry_by_path(p)
                        .ok()
                        .flatten()
                        .map(|e| e.object_id())
                })
                .collect(),
        )
    };
    let mut out = Vec::new();
    for (n, info) in walk.enumerate() {
        if n >= MAX_WALK {
            return None;
        }
        let info = info.ok()?;
        let [parent] = info.parent_ids.as_slice() else {
            continue;
        };
        let (Some(after), Some(before)) = (entries(info.id), entries(*parent)) else {
            continue;
        };
        let changed: Vec<String> = paths
            .iter()
            .zip(after.iter().zip(&before))
            .filter(|(_, (a, b))| a != b)
            .map(|(p, _)| p.clone())
            .collect();
        if changed.is_empty() {
            continue;
        }
        let subject = repo
            .find_commit(info.id)
            .ok()?
            .message()
            .ok()
            .map(|m| m.summary().to_string())
            .unwrap_or_default();
        let mut id = info.id.to_string();
        id.truncate(8);
        out.push(Change {
            id,
            subject,
            paths: changed,
        });
    }
    Some(out)
}
