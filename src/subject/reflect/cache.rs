//! Each commit's diff facts, kept in the local tier (`.interview/cache/`) keyed by commit id and
//! the facts version, so a re-run (or the next release's run) only diffs new commits.
//!
//! The cache is an optimisation only: a missing, unreadable, oversized or malformed file is
//! ignored and rebuilt. It is opened below the worktree without following a symbolic link at
//! any step and without blocking on a FIFO, and written atomically (a new file, then a rename).

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::Path;

use cap_fs_ext::{DirExt, FollowSymlinks, OpenOptionsFollowExt, OpenOptionsSyncExt};
use cap_std::fs::{Dir, OpenOptions};
use serde::{Deserialize, Serialize};

use super::diff::CommitFacts;

/// Bump when what a commit's facts contain, or how they are computed, changes.
pub const FACTS_VERSION: u32 = 2;
/// A cache file larger than this is ignored (and replaced).
const MAX_CACHE_BYTES: u64 = 512 * 1024 * 1024;

#[derive(Serialize, Deserialize)]
struct CacheFile {
    version: u32,
    commits: HashMap<String, CommitFacts>,
}

/// The cache of one run: what was read, and what this run added.
pub(super) struct FactsCache {
    dir: Option<Dir>,
    known: HashMap<String, CommitFacts>,
    added: usize,
}

fn file_name() -> String {
    format!("reflect-commits-v{FACTS_VERSION}.json")
}

impl FactsCache {
    /// No cache: every commit is diffed, nothing is kept.
    pub(super) fn none() -> FactsCache {
        FactsCache {
            dir: None,
            known: HashMap::new(),
            added: 0,
        }
    }

    /// The cache of the local tier at `<worktree>/.interview/`, when the tier exists.
    pub(super) fn open(worktree: &Path) -> FactsCache {
        let mut cache = FactsCache::none();
        let Some(dir) = cache_dir(worktree) else {
            return cache;
        };
        if let Some(file) = read(&dir).filter(|f| f.version == FACTS_VERSION) {
            cache.known = file.commits;
        }
        cache.dir = Some(dir);
        cache
    }

    /// Use no cache after all (the tier's contents are not to be trusted).
    pub(super) fn disable(&mut self) {
        *self = FactsCache::none();
    }

    pub(super) fn get(&self, id: &gix::ObjectId) -> Option<CommitFacts> {
        self.known.get(&id.to_string()).cloned()
    }

    pub(super) fn put(&mut self, id: gix::ObjectId, facts: &CommitFacts) {
        if self.dir.is_some() {
            self.known.insert(id.to_string(), facts.clone());
            self.added += 1;
        }
    }

    /// Write the cache back when this run added to it. A failure only costs the next run time.
    pub(super) fn save(&self) {
        let Some(dir) = &self.dir else { return };
        if self.added == 0 {
            return;
        }
        let file = CacheFile {
            version: FACTS_VERSION,
            commits: self.known.clone(),
        };
        if let Ok(bytes) = serde_json::to_vec(&file) {
            let _ = write_atomic(dir, &file_name(), &bytes);
        }
    }
}

/// `.interview/cache/`, each step opened without following a link; `cache/` is created when
/// the tier exists.
fn cache_dir(worktree: &Path) -> Option<Dir> {
    let root = Dir::open_ambient_dir(worktree, cap_std::ambient_authority()).ok()?;
    // The local tier the session creates (and git ignores) before any subject is gathered.
    let tier = root.open_dir_nofollow(".interview").ok()?;
    match tier.create_dir("cache") {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(_) => return None,
    }
    tier.open_dir_nofollow("cache").ok()
}

fn read(dir: &Dir) -> Option<CacheFile> {
    let name = file_name();
    let meta = dir.symlink_metadata(&name).ok()?;
    if !meta.is_file() || meta.len() > MAX_CACHE_BYTES {
        return None;
    }
    let mut options = OpenOptions::new();
    options.read(true).follow(FollowSymlinks::No).nonblock(true);
    let file = dir.open_with(&name, &options).ok()?;
    let opened = file.metadata().ok()?;
    if !opened.is_file() {
        return None;
    }
    let mut bytes = Vec::new();
    file.take(MAX_CACHE_BYTES + 1)
        .read_to_end(&mut bytes)
        .ok()?;
    if bytes.len() as u64 > MAX_CACHE_BYTES {
        return None;
    }
    serde_json::from_slice(&bytes).ok()
}

fn write_atomic(dir: &Dir, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = format!(".tmp-{name}-{}", std::process::id());
    let mut options = OpenOptions::new();
    options
        .write(true)
        .create_new(true)
        .follow(FollowSymlinks::No);
    let _ = dir.remove_file(&tmp);
    let mut file = dir.open_with(&tmp, &options)?;
    let written = file.write_all(bytes).and_then(|()| file.sync_all());
    drop(file);
    match written.and_then(|()| dir.rename(&tmp, dir, name)) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = dir.remove_file(&tmp);
            Err(e)
        }
    }
}
