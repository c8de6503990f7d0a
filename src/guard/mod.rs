//! The change guard: snapshots of everything a runner could change in a repository, and their diff.
//!
//! Nothing from the repository is executed: git metadata is hashed before gix opens the
//! repository, gix is opened isolated (no user, system or environment config, no git binary),
//! and status compares raw bytes with the index itself (no filters, fsmonitor, hooks or pagers).
//!
//! Not for: deciding what to do about a change (the session applies the `--on-change` policy).

mod busy;
mod case;
mod config;
mod diff;
mod files;
mod gitdir;
mod hooks;
mod index;
mod index_file;
mod index_load;
mod layout;
mod memo;
mod memo_gits;
mod memo_listings;
mod metadata;
mod modes;
mod objects;
mod open_dir;
pub(crate) mod path;
mod queue;
mod refs;
mod report;
mod restore;
mod reuse;
mod status;
mod system_config;
mod take;
mod test_hook;
mod tracked;
mod walk;
mod walk_index;
mod walk_xattrs;
mod xattrs;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;

pub(crate) use busy::{WAIT_LIMIT as GIT_WAIT_LIMIT, wait_for_git};
pub(crate) use files::FileDigest;
pub(crate) use hooks::{Hooks, HooksDir};
pub(crate) use index::IndexEntry;
pub(crate) use index_load::with_tracked_paths;
pub(crate) use layout::Layout;
pub use memo::{claim_plain as memo_claim_plain, says_plain as memo_says_plain};
pub use memo_listings::lists as memo_lists;
pub(crate) use metadata::Worktree;
pub(crate) use modes::{Permissions, Usual};
pub(crate) use path::RepoPath;
pub(crate) use refs::RefTarget;
pub(crate) use report::{GuardReport, allowed};
pub use restore::{restore, save_restore_copies, save_restore_copies_after};
pub(crate) use status::{FileStatus, Fingerprint};
pub(crate) use system_config::files as system_config_files;
pub(crate) use system_config::prefetch as prefetch_system_config;

/// What to snapshot: a worktree, minus directories the tool itself writes during a turn.
#[derive(Debug, Clone)]
pub struct GuardScope {
    /// The worktree root.
    pub worktree: PathBuf,
    /// Absolute paths excluded from the snapshot (the current turn's local-tier directory).
    pub exclude: Vec<PathBuf>,
    /// The worktree's local tier, where a run keeps for the next which inodes had no ACL and
    /// no file capability (`memo.rs`): read by a run's first snapshot, written by
    /// [`Snapshot::remember`]. `None`: every file is asked.
    pub memo: Option<PathBuf>,
}

#[derive(Debug, thiserror::Error)]
pub enum GuardError {
    #[error("{what}: {source}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "{path} is not inside a git worktree (no .git found in it or above it); run interview inside a repository or pass -C DIR"
    )]
    NotARepository { path: PathBuf },
    #[error(
        "{path}: not a valid .git file (expected one line `gitdir: <path>`); repair or remove it"
    )]
    BadGitFile { path: PathBuf },
    #[error("cannot open the repository at {path} read-only: {message}")]
    Open { path: PathBuf, message: String },
    #[error(
        "cannot read the index {path}: {message}; run `git status` yourself to see what is wrong"
    )]
    Index { path: PathBuf, message: String },
    #[error("restore copies in {dir}: {message}")]
    Restore { dir: PathBuf, message: String },
    #[error("cannot read the repository at {path}: {message}")]
    Unreadable { path: PathBuf, message: String },
    #[error("interrupted while taking a snapshot of the repository")]
    Interrupted,
    #[error("the snapshot of the repository failed unexpectedly (a worker thread stopped)")]
    Failed,
    #[error("cannot serialise the {part} part of a snapshot: {source}")]
    Serialise {
        part: &'static str,
        #[source]
        source: serde_json::Error,
    },
}

impl From<GuardError> for crate::Error {
    fn from(e: GuardError) -> Self {
        match e {
            GuardError::Interrupted => crate::Error::SnapshotInterrupted,
            e => crate::Error::Guard(e.into()),
        }
    }
}

/// Everything a runner could change, recorded without running anything from the repository.
#[derive(Debug, Clone, Serialize)]
pub struct Snapshot {
    pub worktree: RepoPath,
    /// The common git directory, as `.git/commondir` (if any) names it: the git metadata part's
    /// labels are relative to it.
    #[serde(skip)]
    common_dir: RepoPath,
    /// The worktree's own git directory (the common one unless `commondir` names another).
    #[serde(skip)]
    git_dir: RepoPath,
    /// Why the repository itself was not read (special files in its git directory, an index
    /// that cannot be parsed): then refs, index, status and ignored are empty.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unreadable: Option<String>,
    pub refs: BTreeMap<RepoPath, RefTarget>,
    /// The index as read (shared with the snapshot before when the file is unchanged, see
    /// `reuse.rs`): its entries are the `index` part ([`Snapshot::index`]), and its stat data
    /// the reference for a later snapshot.
    #[serde(rename = "index", serialize_with = "index::serialize_part")]
    index_file: Option<Arc<IndexReference>>,
    /// SHA-256 of each index extension that counts (`TREE`, `REUC`, `link`, `sdir`, …).
    pub index_extensions: BTreeMap<String, String>,
    /// Paths that are not clean: staged, modified, deleted, type-changed, untracked.
    pub status: BTreeMap<RepoPath, FileStatus>,
    /// Tracked and untracked files and directories of the worktree whose permission bits or
    /// owner are not what a checkout gives them here (`modes.rs`).
    pub permissions: Permissions,
    pub ignored: Vec<Fingerprint>,
    pub hooks: Hooks,
    /// Everything under the git directory but object contents, by path relative to it.
    pub git_metadata: BTreeMap<String, FileDigest>,
    pub worktrees: BTreeMap<RepoPath, Worktree>,
    /// Git config outside the repository: the user's, the system's, and every file any config
    /// includes (`include.path`, `includeIf.*.path`).
    pub user_config: BTreeMap<RepoPath, FileDigest>,
    /// Repositories below the root (a `.git` entry in a subdirectory: submodule, nested
    /// repository, a `.git` file pointing elsewhere), each snapshotted the same way.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub nested: BTreeMap<RepoPath, NestedRepo>,
    /// What a later snapshot may take over without reading again (`reuse.rs`).
    #[serde(skip)]
    earlier: Arc<reuse::Earlier>,
    /// The memo as the run's first snapshot read it (`memo_listings.rs`).
    #[serde(skip)]
    kept: Option<Arc<memo_listings::Kept>>,
}

/// A repository below the root: its `.git` entry and its snapshot.
#[derive(Debug, Clone, Serialize)]
pub struct NestedRepo {
    /// The `.git` entry itself: directory, `gitdir:` file (its content) or link (its target).
    pub dot_git: Option<FileDigest>,
    /// The git directory it leads to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub git_dir: Option<RepoPath>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<Box<Snapshot>>,
    /// Why it could not be snapshotted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A parsed index and the stat of its file when it was read, with what was made of it.
#[derive(Debug)]
struct IndexReference {
    state: gix::index::State,
    /// The whole stat: any write or replacement of the file changes the ctime, which no runner
    /// can set back.
    stat: reuse::StatKey,
    /// Whether the file's times were settled when it was read (`reuse.rs`): then a later
    /// snapshot that finds the same stat takes this over instead of reading it again.
    settled: bool,
    /// The entries as the snapshot records them, made when first asked for.
    entries: std::sync::OnceLock<Vec<IndexEntry>>,
    /// The SHA-256 of the index part (entries and extensions), worked out when first asked for.
    digest: std::sync::OnceLock<String>,
    extensions: BTreeMap<String, String>,
}

impl IndexReference {
    fn entries(&self) -> &[IndexEntry] {
        self.entries.get_or_init(|| index::entries(&self.state))
    }
}

/// What a snapshot and its nested repositories leave for the next snapshot: the stat
/// references, and what may be taken over.
#[derive(Debug, Clone, Default)]
struct References {
    index: Option<Arc<IndexReference>>,
    /// The baseline of the permissions part, kept so both snapshots record against the same.
    usual: Option<Usual>,
    earlier: Arc<reuse::Earlier>,
    kept: Option<Arc<memo_listings::Kept>>,
    nested: BTreeMap<RepoPath, References>,
}

impl References {
    fn of(s: &Snapshot) -> References {
        References {
            index: s.index_file.clone(),
            usual: Some(s.permissions.usual),
            earlier: s.earlier.clone(),
            kept: s.kept.clone(),
            nested: s
                .nested
                .iter()
                .filter_map(|(p, n)| Some((p.clone(), References::of(n.snapshot.as_ref()?))))
                .collect(),
        }
    }
}

impl Snapshot {
    /// The index part: every entry's path, stage, mode, object id and flags.
    pub fn index(&self) -> &[IndexEntry] {
        self.index_file.as_ref().map_or(&[], |r| r.entries())
    }

    /// How many entries the index part has, without making them.
    pub fn index_len(&self) -> usize {
        self.index_file
            .as_ref()
            .map_or(0, |r| r.state.entries().len())
    }

    /// Whether the index part is the very one of `other` (taken over, so equal).
    fn same_index(&self, other: &Snapshot) -> bool {
        match (&self.index_file, &other.index_file) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }

    /// A snapshot of `scope` before a command or turn: a repository that cannot be read is an
    /// error here. An interrupting signal (SIGINT, SIGTERM, SIGHUP) that arrives while it is
    /// taken ends it with `GuardError::Interrupted` at once, even when a read is stuck (a FIFO
    /// swapped in after it was checked).
    pub fn take(scope: &GuardScope) -> Result<Snapshot, GuardError> {
        let scope = scope.clone();
        system_config::prefetch(&scope.worktree, scope.memo.as_deref());
        let snap = take::interruptible(move || {
            test_hook::pause();
            take::take(
                &scope,
                &metadata::UserEnv::from_process(&scope.worktree),
                References::default(),
                0,
            )
        })?;
        match &snap.unreadable {
            Some(why) => Err(GuardError::Unreadable {
                path: scope_path(&snap),
                message: why.clone(),
            }),
            None => Ok(snap),
        }
    }

    /// A snapshot after a turn. Worktree files are checked against the stat data of the index
    /// as it was in `before`, not the live one: a runner that edits a file and then writes an
    /// index with forged stat data for it (so the file looks clean) is still caught, because
    /// every file changed since `before` is newer than that index and so is hashed. A repository
    /// that cannot be read any more is recorded as such (a change), not an error.
    pub fn take_after(scope: &GuardScope, before: &Snapshot) -> Result<Snapshot, GuardError> {
        let scope = scope.clone();
        let references = References::of(before);
        take::interruptible(move || {
            test_hook::pause();
            let env = metadata::UserEnv::from_process(&scope.worktree);
            take::take(&scope, &env, references, 0)
        })
    }

    /// Keep in the local tier `tier` which inodes this snapshot found without an ACL or a file
    /// capability (`memo.rs`), and the directory listings it read or took over
    /// (`memo_listings.rs`), and where this machine's gits read their system config
    /// (`memo_gits.rs`), for the next run. Only after a run's last snapshot: the memo is three
    /// ignored files the guard watches like any other.
    pub fn remember(&self, tier: &Path) -> std::io::Result<()> {
        let now = &self.earlier;
        memo_listings::Kept::save(
            self.kept.as_deref(),
            (self.worktree.as_path(), tier),
            &now.plain,
            &now.listings,
        )?;
        system_config::remember(self.worktree.as_path(), tier)
    }

    /// The categorised difference from `self` (before) to `after`.
    pub fn diff(&self, after: &Snapshot) -> GuardReport {
        diff::diff(self, after)
    }

    /// A SHA-256 of each part, for a compact record (`guard.json`). The index part's is worked
    /// out once for an index shared with the snapshot before.
    pub fn digests(&self) -> Result<BTreeMap<&'static str, String>, GuardError> {
        fn h<T: Serialize>(
            part: &'static str,
            v: &T,
        ) -> Result<(&'static str, String), GuardError> {
            Ok((part, json_sha256(part, v)?))
        }
        let index = match &self.index_file {
            Some(r) => match r.digest.get() {
                Some(d) => d.clone(),
                None => {
                    let d = json_sha256("index", &(r.entries(), &r.extensions))?;
                    r.digest.get_or_init(|| d).clone()
                }
            },
            None => json_sha256("index", &(self.index(), &self.index_extensions))?,
        };
        Ok(BTreeMap::from([
            h("refs", &self.refs)?,
            ("index", index),
            h("status", &self.status)?,
            h("permissions", &self.permissions)?,
            h("ignored", &self.ignored)?,
            h("hooks", &self.hooks)?,
            h("git_metadata", &self.git_metadata)?,
            h("worktrees", &self.worktrees)?,
            h("user_config", &self.user_config)?,
            h("nested", &self.nested)?,
            h("unreadable", &self.unreadable)?,
        ]))
    }
}

/// The SHA-256 of a value's JSON, hashed as it is written (never held whole).
fn json_sha256<T: Serialize>(part: &'static str, v: &T) -> Result<String, GuardError> {
    use sha2::Digest;
    struct Hashing(sha2::Sha256);
    impl std::io::Write for Hashing {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.update(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut w = std::io::BufWriter::with_capacity(64 * 1024, Hashing(sha2::Sha256::new()));
    serde_json::to_writer(&mut w, v).map_err(|source| GuardError::Serialise { part, source })?;
    let hashing = w.into_inner().map_err(|e| GuardError::Serialise {
        part,
        source: serde_json::Error::io(e.into_error()),
    })?;
    Ok(files::hex(&hashing.0.finalize()))
}

/// Why the repository at `layout` must not be opened by gix (or anything else that reads it
/// with blocking opens), if it must not: a FIFO, socket or device (or a link to one) in its git
/// directory or object stores.
pub(crate) fn unsafe_to_open(layout: &Layout) -> Option<String> {
    gitdir::record(layout, None).unsafe_reason()
}

fn scope_path(s: &Snapshot) -> PathBuf {
    s.worktree.as_path().to_path_buf()
}
