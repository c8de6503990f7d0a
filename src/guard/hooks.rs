//! The hooks part of a snapshot: the default hooks directory (`<common dir>/hooks`) and the
//! effective one (`core.hooksPath`), each walked recursively and through links, every file by
//! mode and content (a linked hook by its target's).
//!
//! Both directories are always recorded, so a turn that points `core.hooksPath` elsewhere and
//! plants a hook in `.git/hooks` shows the planted hook by name, and writes to either directory
//! stay watched afterwards.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::config;
use super::files::{self, FileDigest};
use super::layout::Layout;
use super::metadata::{UserEnv, label};
use super::path::RepoPath;

/// Deepest level walked below a hooks directory, and most files recorded in one.
const MAX_DEPTH: usize = 8;
const MAX_FILES: usize = 10_000;

/// The hooks directories of a repository.
#[derive(Debug, Clone, Serialize)]
pub struct Hooks {
    /// The effective hooks directory.
    pub dir: RepoPath,
    /// Each recorded hooks directory (the default one and the effective one), by path.
    pub dirs: BTreeMap<RepoPath, HooksDir>,
}

/// One hooks directory: the entry itself (a directory, or a link to one) and every file in it.
#[derive(Debug, Clone, Serialize)]
pub struct HooksDir {
    /// The directory entry as found (`None` when absent): a link shows its target, and the
    /// target directory's mode (a world-writable target is visible).
    pub entry: Option<FileDigest>,
    /// Files by path relative to the directory, subdirectories and linked directories included.
    pub files: BTreeMap<RepoPath, FileDigest>,
}

impl Hooks {
    /// How many hook files are recorded in all directories.
    pub fn file_count(&self) -> usize {
        self.dirs.values().map(|d| d.files.len()).sum()
    }
}

/// The effective hooks directory: the last `core.hooksPath` of user, repository and worktree
/// config (in git's order), else `<common dir>/hooks`.
pub(super) fn hooks_dir(
    layout: &Layout,
    metadata: &BTreeMap<String, FileDigest>,
    user: &BTreeMap<RepoPath, FileDigest>,
    env: &UserEnv,
) -> PathBuf {
    let mut texts: Vec<&[u8]> = user
        .values()
        .filter_map(|d| d.text.as_deref().map(Vec::as_slice))
        .collect();
    for label in ["config", "config.worktree"] {
        if let Some(text) = metadata.get(label).and_then(|d| d.text.as_deref()) {
            texts.push(text);
        }
    }
    let wt_label = label(layout, &layout.git_dir.join("config.worktree"));
    if wt_label != "config.worktree"
        && let Some(text) = metadata.get(&wt_label).and_then(|d| d.text.as_deref())
    {
        texts.push(text);
    }
    let mut hooks = None;
    for text in texts {
        if let Some(v) = config::keys(text).and_then(|k| config::last_value(&k, "core.hookspath")) {
            hooks = Some(v);
        }
    }
    hooks
        .and_then(|v| env.expand(&v, &layout.worktree))
        .unwrap_or_else(|| layout.common_dir.join("hooks"))
}

/// Record the default and the effective hooks directory.
pub(super) fn hooks(
    layout: &Layout,
    metadata: &BTreeMap<String, FileDigest>,
    user: &BTreeMap<RepoPath, FileDigest>,
    env: &UserEnv,
) -> Hooks {
    let effective = hooks_dir(layout, metadata, user, env);
    let mut dirs = BTreeMap::new();
    for dir in [layout.common_dir.join("hooks"), effective.clone()] {
        let key = RepoPath::from_path(&dir);
        dirs.entry(key).or_insert_with(|| record_dir(&dir));
    }
    Hooks {
        dir: RepoPath::from_path(&effective),
        dirs,
    }
}

fn record_dir(dir: &Path) -> HooksDir {
    let entry = fs::symlink_metadata(dir)
        .ok()
        .map(|_| files::digest_following(dir));
    let mut files = BTreeMap::new();
    let mut visited = BTreeSet::new();
    walk(dir, &PathBuf::new(), 0, &mut visited, &mut files);
    HooksDir { entry, files }
}

/// Every file below `dir`, following links (git runs a linked hook, and a linked directory's
/// files are what a hook script may source); each real directory is entered once.
fn walk(
    dir: &Path,
    rel: &Path,
    depth: usize,
    visited: &mut BTreeSet<PathBuf>,
    out: &mut BTreeMap<RepoPath, FileDigest>,
) {
    let Ok(real) = fs::canonicalize(dir) else {
        return;
    };
    if depth > MAX_DEPTH || !visited.insert(real) {
        return;
    }
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        if out.len() >= MAX_FILES {
            return;
        }
        let path = entry.path();
        let child_rel = rel.join(entry.file_name());
        // `fs::metadata` follows links: a linked directory is walked like a real one.
        let is_dir = fs::metadata(&path).map(|m| m.is_dir()).unwrap_or(false);
        let is_link = entry.file_type().map(|t| t.is_symlink()).unwrap_or(false);
        if is_dir {
            if is_link {
                out.insert(
                    RepoPath::from_path(&child_rel),
                    files::digest_following(&path),
                );
            }
            walk(&path, &child_rel, depth + 1, visited, out);
            continue;
        }
        let mut d = files::digest_following(&path);
        d.text = None;
        out.insert(RepoPath::from_path(&child_rel), d);
    }
}
