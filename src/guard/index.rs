//! The index part of a snapshot (entries' id, mode, stage and flags) and the staged changes:
//! the index compared with HEAD's tree, skipping subtrees the index's cache-tree proves equal.

use std::collections::{HashMap, HashSet};

use gix::bstr::ByteSlice;
use gix::index::entry::{Flags, Mode};
use serde::{Serialize, Serializer};

use super::path::RepoPath;
use super::status::State;

/// One index entry, as far as it steers content or behaviour (stat data is left out: a
/// refresh by `git status` is not a change).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IndexEntry {
    pub path: RepoPath,
    pub stage: u8,
    #[serde(serialize_with = "octal")]
    pub mode: u32,
    #[serde(serialize_with = "hex_oid")]
    pub oid: gix::ObjectId,
    #[serde(serialize_with = "flag_names")]
    pub flags: u8,
}

pub(super) const ASSUME_VALID: u8 = 1;
pub(super) const SKIP_WORKTREE: u8 = 2;
pub(super) const INTENT_TO_ADD: u8 = 4;

pub(super) fn flag_list(flags: u8) -> Vec<&'static str> {
    let mut v = Vec::new();
    if flags & ASSUME_VALID != 0 {
        v.push("assume-valid");
    }
    if flags & SKIP_WORKTREE != 0 {
        v.push("skip-worktree");
    }
    if flags & INTENT_TO_ADD != 0 {
        v.push("intent-to-add");
    }
    v
}

fn octal<S: Serializer>(mode: &u32, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format!("{mode:06o}"))
}

fn hex_oid<S: Serializer>(oid: &gix::ObjectId, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(oid)
}

fn flag_names<S: Serializer>(flags: &u8, s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(flag_list(*flags))
}

/// The index part of a snapshot, as a JSON list of its entries.
pub(super) fn serialize_part<S: Serializer>(
    part: &Option<std::sync::Arc<super::IndexReference>>,
    s: S,
) -> Result<S::Ok, S::Error> {
    s.collect_seq(part.iter().flat_map(|r| r.entries()))
}

pub(super) fn entries(state: &gix::index::State) -> Vec<IndexEntry> {
    state
        .entries()
        .iter()
        .map(|e| {
            let mut flags = 0;
            if e.flags.contains(Flags::ASSUME_VALID) {
                flags |= ASSUME_VALID;
            }
            if e.flags.contains(Flags::SKIP_WORKTREE) {
                flags |= SKIP_WORKTREE;
            }
            if e.flags.contains(Flags::INTENT_TO_ADD) {
                flags |= INTENT_TO_ADD;
            }
            IndexEntry {
                path: RepoPath::new(e.path(state).to_vec()),
                stage: e.stage_raw() as u8,
                mode: e.mode.bits(),
                oid: e.id,
                flags,
            }
        })
        .collect()
}

fn tree_mode(mode: gix::objs::tree::EntryMode) -> u32 {
    use gix::objs::tree::EntryKind;
    match mode.kind() {
        EntryKind::Tree => 0o040000,
        EntryKind::Blob => 0o100644,
        EntryKind::BlobExecutable => 0o100755,
        EntryKind::Link => 0o120000,
        EntryKind::Commit => 0o160000,
    }
}

fn kind_of(mode: u32) -> u32 {
    mode & 0o170000
}

/// Paths whose index entry differs from HEAD's tree (added, modified, deleted, type-changed,
/// unmerged). `Err` carries why HEAD's tree could not be read.
pub(super) fn staged(
    repo: &gix::Repository,
    state: &gix::index::State,
) -> Result<Vec<(RepoPath, State)>, String> {
    let (mut head, covered) = match head_tree(repo)? {
        Some(root) => head_blobs(repo, root, state)?,
        None => (HashMap::new(), HashSet::new()),
    };
    let mut out = against_head(state, &mut head, &covered);
    // What is left of HEAD is not in the index (a sparse directory entry covers its paths).
    let sparse: Vec<&[u8]> = state
        .entries()
        .iter()
        .filter(|e| e.mode == Mode::DIR)
        .map(|e| e.path(state).as_bytes())
        .collect();
    for (path, _) in head {
        let in_sparse = sparse.iter().any(|d| {
            path.starts_with(d) && (d.ends_with(b"/") || path.get(d.len()) == Some(&b'/'))
        });
        if !in_sparse {
            out.push((RepoPath::new(path), State::Deleted));
        }
    }
    Ok(out)
}

/// HEAD's tree; `None` on an unborn branch.
fn head_tree(repo: &gix::Repository) -> Result<Option<gix::ObjectId>, String> {
    match repo.head() {
        Ok(mut head) if !head.is_unborn() => Ok(Some(
            head.peel_to_commit()
                .map_err(|e| e.to_string())?
                .tree_id()
                .map_err(|e| e.to_string())?
                .detach(),
        )),
        Ok(_) => Ok(None),
        Err(e) => Err(e.to_string()),
    }
}

/// HEAD's blobs (by path, with their id and mode) outside of subtrees that the index's
/// cache-tree proves equal, and those subtrees.
type HeadBlobs = (HashMap<Vec<u8>, (gix::ObjectId, u32)>, HashSet<Vec<u8>>);

/// Read HEAD's tree `root`, skipping what the cache-tree of `state` proves equal.
fn head_blobs(
    repo: &gix::Repository,
    root: gix::ObjectId,
    state: &gix::index::State,
) -> Result<HeadBlobs, String> {
    let mut head = HashMap::new();
    let mut covered = HashSet::new();
    let mut stack = vec![(root, Vec::new(), state.tree())];
    while let Some((id, prefix, cache)) = stack.pop() {
        if let Some(node) = cache
            && node.num_entries.is_some()
            && node.id == id
        {
            covered.insert(prefix);
            continue;
        }
        let tree = repo.find_tree(id).map_err(|e| e.to_string())?;
        let decoded = tree.decode().map_err(|e| e.to_string())?;
        for entry in &decoded.entries {
            let mut path = prefix.clone();
            if !path.is_empty() {
                path.push(b'/');
            }
            path.extend_from_slice(entry.filename);
            if entry.mode.is_tree() {
                let child = cache.and_then(|n| {
                    n.children
                        .iter()
                        .find(|c| c.name.as_slice() == entry.filename.as_bytes())
                });
                stack.push((entry.oid.to_owned(), path, child));
            } else {
                head.insert(path, (entry.oid.to_owned(), tree_mode(entry.mode)));
            }
        }
    }
    Ok((head, covered))
}

/// Each index entry against HEAD's blob at its path (taken out of `head`): unmerged, added,
/// type-changed or modified; a path in a `covered` subtree is equal.
fn against_head(
    state: &gix::index::State,
    head: &mut HashMap<Vec<u8>, (gix::ObjectId, u32)>,
    covered: &HashSet<Vec<u8>>,
) -> Vec<(RepoPath, State)> {
    let is_covered = |path: &[u8]| {
        if covered.contains(&b""[..]) {
            return true;
        }
        path.iter()
            .enumerate()
            .filter(|(_, b)| **b == b'/')
            .any(|(i, _)| covered.contains(&path[..i]))
    };
    let mut out = Vec::new();
    let mut unmerged: HashSet<&[u8]> = HashSet::new();
    // Whether a path is covered depends on its directory alone, and the index is sorted by
    // path: one answer per directory, not one per file (a hash of each ancestor each time).
    let mut last_dir: Option<(&[u8], bool)> = None;
    for e in state.entries() {
        let path = e.path(state).as_bytes();
        if e.stage_raw() != 0 {
            if unmerged.insert(path) {
                head.remove(path);
                out.push((RepoPath::new(path), State::Unmerged));
            }
            continue;
        }
        let dir = path.rfind_byte(b'/').map_or(&path[..0], |i| &path[..i]);
        let covered_here = match last_dir {
            Some((d, c)) if d == dir => c,
            _ => {
                let c = is_covered(path);
                last_dir = Some((dir, c));
                c
            }
        };
        if e.mode == Mode::DIR || covered_here {
            continue;
        }
        let mode = e.mode.bits();
        match head.remove(path) {
            None => out.push((RepoPath::new(path), State::Added)),
            Some((id, head_mode)) if kind_of(head_mode) != kind_of(mode) => {
                let _ = id;
                out.push((RepoPath::new(path), State::TypeChanged));
            }
            Some((id, head_mode)) if id != e.id || head_mode != mode => {
                out.push((RepoPath::new(path), State::Modified));
            }
            Some(_) => {}
        }
    }
    out
}
