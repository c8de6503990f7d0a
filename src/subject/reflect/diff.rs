//! One commit's changes: the files two trees differ in, and the lines added and deleted in each
//! (with the TODO/FIXME lines among those added).

use std::collections::BTreeMap;

use gix::bstr::ByteSlice;

use crate::error::{Error, Result};

/// Blobs larger than this are counted as changed but not diffed line by line.
const MAX_DIFF_BYTES: usize = 8 * 1024 * 1024;

pub(super) fn tree_of(repo: &gix::Repository, commit: gix::ObjectId) -> Result<gix::ObjectId> {
    let commit = repo
        .find_commit(commit)
        .map_err(|e| Error::Repo(format!("cannot read commit {commit}: {e}")))?;
    commit
        .tree_id()
        .map(|t| t.detach())
        .map_err(|e| Error::Repo(format!("cannot read the tree of {}: {e}", commit.id)))
}

/// Every blob (and symlink) path of a tree with its id.
pub(super) fn blob_paths(
    repo: &gix::Repository,
    tree: &gix::ObjectId,
) -> Result<BTreeMap<String, gix::ObjectId>> {
    let changes = diff_trees(repo, None, *tree, &mut Default::default())?;
    Ok(changes
        .into_iter()
        .filter_map(|c| c.new.map(|id| (c.path, id)))
        .collect())
}

/// One changed file between two trees: blob ids on each side (`None` = absent there).
pub(super) struct FileChange {
    pub(super) path: String,
    pub(super) old: Option<gix::ObjectId>,
    pub(super) new: Option<gix::ObjectId>,
}

pub(super) fn diff_trees(
    repo: &gix::Repository,
    old: Option<gix::ObjectId>,
    new: gix::ObjectId,
    state: &mut gix::diff::tree::State,
) -> Result<Vec<FileChange>> {
    use gix::diff::tree::recorder::Change;
    let read = |id: gix::ObjectId| {
        repo.find_tree(id)
            .map(|t| t.data.clone())
            .map_err(|e| Error::Repo(format!("cannot read tree {id}: {e}")))
    };
    let old_data = match old {
        Some(id) => read(id)?,
        None => Vec::new(),
    };
    let new_data = read(new)?;
    let kind = repo.object_hash();
    let mut recorder = gix::diff::tree::Recorder::default();
    gix::diff::tree(
        gix::objs::TreeRefIter::from_bytes(&old_data, kind),
        gix::objs::TreeRefIter::from_bytes(&new_data, kind),
        state,
        &repo.objects,
        &mut recorder,
    )
    .map_err(|e| Error::Repo(format!("cannot diff tree {new}: {e}")))?;
    let file = |mode: gix::objs::tree::EntryMode| mode.is_blob_or_symlink();
    let mut out = Vec::new();
    for change in recorder.records {
        let (path, old, new) = match change {
            Change::Addition {
                entry_mode,
                oid,
                path,
                ..
            } => (path, None, file(entry_mode).then_some(oid)),
            Change::Deletion {
                entry_mode,
                oid,
                path,
                ..
            } => (path, file(entry_mode).then_some(oid), None),
            Change::Modification {
                previous_entry_mode,
                previous_oid,
                entry_mode,
                oid,
                path,
            } => (
                path,
                file(previous_entry_mode).then_some(previous_oid),
                file(entry_mode).then_some(oid),
            ),
        };
        if old.is_none() && new.is_none() {
            continue; // trees and submodules: their files are reported on their own
        }
        if old == new {
            continue; // a mode-only change adds or deletes no line
        }
        out.push(FileChange {
            path: path.to_str_lossy().into_owned(),
            old,
            new,
        });
    }
    Ok(out)
}

pub(super) struct LineCounts {
    pub(super) added: u64,
    pub(super) deleted: u64,
    pub(super) binary: bool,
    pub(super) todo_lines: Vec<String>,
}

pub(super) fn count_lines(repo: &gix::Repository, change: &FileChange) -> Result<LineCounts> {
    let load = |id: Option<gix::ObjectId>| -> Result<Vec<u8>> {
        match id {
            Some(id) => repo
                .find_blob(id)
                .map(|b| b.data.clone())
                .map_err(|e| Error::Repo(format!("cannot read blob {id} ({}): {e}", change.path))),
            None => Ok(Vec::new()),
        }
    };
    let before = load(change.old)?;
    let after = load(change.new)?;
    // Git's rule: a NUL in the first 8000 bytes makes a file binary.
    let binary = |d: &[u8]| d[..d.len().min(8000)].contains(&0);
    if binary(&before) || binary(&after) || before.len().max(after.len()) > MAX_DIFF_BYTES {
        return Ok(LineCounts {
            added: 0,
            deleted: 0,
            binary: true,
            todo_lines: Vec::new(),
        });
    }
    use gix::diff::blob::{Algorithm, Diff, InternedInput};
    let input = InternedInput::new(before.as_slice(), after.as_slice());
    let diff = Diff::compute(Algorithm::Myers, &input);
    let mut todo_lines = Vec::new();
    for hunk in diff.hunks() {
        for i in hunk.after {
            let Some(token) = input.after.get(i as usize) else {
                continue;
            };
            let line = input.interner[*token];
            if has_marker(line, b"TODO") || has_marker(line, b"FIXME") {
                todo_lines.push(line.to_str_lossy().trim().to_string());
            }
        }
    }
    Ok(LineCounts {
        added: u64::from(diff.count_additions()),
        deleted: u64::from(diff.count_removals()),
        binary: false,
        todo_lines,
    })
}

/// The 1-based number of the first line of `data` equal to `text` once trimmed.
pub(super) fn line_of(data: &[u8], text: &str) -> Option<u32> {
    data.lines()
        .position(|l| l.to_str_lossy().trim() == text)
        .and_then(|i| u32::try_from(i + 1).ok())
}

/// True when `marker` appears in `line` as a word of its own (`TODO:`, `// FIXME(x)`), not inside
/// another word (`TODOs`, `FIXMEd`).
fn has_marker(line: &[u8], marker: &[u8]) -> bool {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    line.windows(marker.len()).enumerate().any(|(at, w)| {
        w == marker
            && (at == 0 || !word(line[at - 1]))
            && line.get(at + marker.len()).is_none_or(|&b| !word(b))
    })
}

#[cfg(test)]
mod marker_tests {
    use super::has_marker;

    #[test]
    fn a_todo_marker_is_a_word_of_its_own() {
        assert!(has_marker(b"// TODO: handle errors", b"TODO"));
        assert!(has_marker(b"# FIXME(ana) later", b"FIXME"));
        assert!(has_marker(b"TODO", b"TODO"));
        assert!(!has_marker(b"tests touched, TODOs", b"TODO"));
        assert!(!has_marker(b"MY_TODO_LIST", b"TODO"));
    }
}
