//! The change guard: snapshots of everything a runner could change in a repository, and their diff.
//!
//! Nothing from the repository is executed: git metadata is hashed before gix opens the
//! repository, gix is opened isolated (no user, system or environment config, no git binary),
//! and status compares raw bytes with the index itself (no filters, fsmonitor, hooks or pagers).
//!
//! Not for: deciding what to do about a change (the session applies the `--on-change` policy).

pub mod command;
mod config;
mod files;
mod index;
mod layout;
mod metadata;
pub mod path;
mod queue;
mod refs;
mod report;
mod restore;
mod status;
mod tracked;
mod walk;

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use serde::Serialize;

pub use files::{FileDigest, Kind};
pub use index::IndexEntry;
pub use layout::Layout;
pub use metadata::{Hooks, Worktree};
pub use path::RepoPath;
pub use refs::RefTarget;
pub use report::{Category, Change, GuardReport};
pub use restore::{RestoreSummary, restore, save_restore_copies};
pub use status::{FileStatus, Fingerprint, State};

/// What to snapshot: a worktree, minus directories the tool itself writes during a turn.
#[derive(Debug, Clone)]
pub struct GuardScope {
    /// The worktree root.
    pub worktree: PathBuf,
    /// Absolute paths excluded from the snapshot (the current turn's local-tier directory).
    pub exclude: Vec<PathBuf>,
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
    #[error("cannot serialise the {part} part of a snapshot: {source}")]
    Serialise {
        part: &'static str,
        #[source]
        source: serde_json::Error,
    },
}

impl From<GuardError> for crate::Error {
    fn from(e: GuardError) -> Self {
        crate::Error::Guard(e.to_string())
    }
}

/// Everything a runner could change, recorded without running anything from the repository.
#[derive(Debug, Clone, Serialize)]
pub struct Snapshot {
    pub worktree: RepoPath,
    pub refs: BTreeMap<RepoPath, RefTarget>,
    pub index: Vec<IndexEntry>,
    /// Paths that are not clean: staged, modified, deleted, type-changed, untracked.
    pub status: BTreeMap<RepoPath, FileStatus>,
    pub ignored: Vec<Fingerprint>,
    pub hooks: Hooks,
    pub git_metadata: BTreeMap<String, FileDigest>,
    pub worktrees: BTreeMap<RepoPath, Worktree>,
    pub user_config: BTreeMap<RepoPath, FileDigest>,
    /// The index as read: the stat reference for a later snapshot.
    #[serde(skip)]
    index_file: Option<std::sync::Arc<IndexReference>>,
}

/// A parsed index and the stat of its file when it was read.
#[derive(Debug)]
struct IndexReference {
    state: gix::index::State,
    /// mtime, ctime, inode and size: any write or replacement of the file changes the ctime,
    /// which no runner can set back.
    stat: IndexStat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct IndexStat {
    mtime: (i64, i64),
    ctime: (i64, i64),
    ino: u64,
    size: u64,
}

impl Snapshot {
    pub fn take(scope: &GuardScope) -> Result<Snapshot, GuardError> {
        Snapshot::take_with(scope, &metadata::UserEnv::from_process(), None)
    }

    /// A snapshot after a turn. Worktree files are checked against the stat data of the index
    /// as it was in `before`, not the live one: a runner that edits a file and then writes an
    /// index with forged stat data for it (so the file looks clean) is still caught, because
    /// every file changed since `before` is newer than that index and so is hashed.
    pub fn take_after(scope: &GuardScope, before: &Snapshot) -> Result<Snapshot, GuardError> {
        Snapshot::take_with(
            scope,
            &metadata::UserEnv::from_process(),
            before.index_file.clone(),
        )
    }

    fn take_with(
        scope: &GuardScope,
        env: &metadata::UserEnv,
        reference: Option<std::sync::Arc<IndexReference>>,
    ) -> Result<Snapshot, GuardError> {
        let layout = Layout::locate(&scope.worktree)?;
        // Hashed before gix reads anything, so what gix could be steered by is on record.
        let mut git_metadata = metadata::git_metadata(&layout);
        git_metadata.extend(metadata::object_store(&layout));
        let user_config = metadata::user_config(env);
        let hooks_dir = metadata::hooks_dir(&layout, &git_metadata, &user_config, env);
        let hooks = metadata::hooks(&hooks_dir);
        let worktrees = metadata::worktrees(&layout);

        let repo = open_isolated(&layout, &git_metadata, &user_config, env)?;
        let refs = refs::refs(&repo, &layout);

        let index_path = layout.git_dir.join("index");
        let live_stat = index_stat(&index_path);
        let index_file = match live_stat {
            Some(_) => gix::index::File::at(
                &index_path,
                repo.object_hash(),
                // The trailing checksum guards against disk corruption, not against a runner
                // (which could rewrite it); skipping it saves hashing the whole index.
                true,
                gix::index::decode::Options::default(),
            )
            .map_err(|e| GuardError::Index {
                path: index_path.clone(),
                message: e.to_string(),
            })?,
            None => gix::index::File::from_state(
                gix::index::State::new(repo.object_hash()),
                index_path.clone(),
            ),
        };
        let live_stat = live_stat.unwrap_or_default();
        let state: &gix::index::State = &index_file;
        // A tracked file counts as clean without hashing only when its stat matches both the
        // live index and the one from before the turn (when the index file was written since),
        // so stat data forged into the index during the turn cannot hide an edit.
        let reference = reference.filter(|r| r.stat != live_stat);
        let index_mtime = match &reference {
            Some(r) => r.stat.mtime.min(live_stat.mtime),
            None => live_stat.mtime,
        };

        let mut status: BTreeMap<RepoPath, FileStatus> = BTreeMap::new();
        match index::staged(&repo, state) {
            Ok(staged) => {
                for (path, s) in staged {
                    status.entry(path).or_default().staged = Some(s);
                }
            }
            Err(message) => {
                status.entry(RepoPath::new(*b"HEAD")).or_default().error =
                    Some(format!("cannot compare the index with HEAD: {message}"));
            }
        }

        let exclude: Vec<PathBuf> = scope
            .exclude
            .iter()
            .map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.clone()))
            .collect();
        let threads = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(2)
            .clamp(2, 8);
        let input = walk::WalkInput {
            root: &layout.worktree,
            state,
            reference: reference.as_ref().map(|r| &r.state),
            index_mtime,
            exclude: &exclude,
            threads,
        };
        let mut excludes = repo
            .excludes(
                state,
                None,
                gix::worktree::stack::state::ignore::Source::WorktreeThenIdMappingIfNotSkipped,
            )
            .ok();
        let mut is_ignored = |rel: &[u8], is_dir: bool| -> bool {
            let Some(stack) = excludes.as_mut() else {
                return false;
            };
            let mode = if is_dir {
                gix::index::entry::Mode::DIR
            } else {
                gix::index::entry::Mode::FILE
            };
            let rel = std::path::Path::new(
                <std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(rel),
            );
            stack
                .at_path(rel, Some(mode))
                .map(|p| p.is_excluded())
                .unwrap_or(false)
        };
        // The index part is built while the worktree is walked.
        let (index, walked) = std::thread::scope(|s| {
            let entries = s.spawn(|| index::entries(state));
            let walked = walk::walk(&input, &mut is_ignored);
            (entries.join(), walked)
        });
        let index = index.map_err(|_| GuardError::Index {
            path: index_path.clone(),
            message: "listing its entries failed".into(),
        })?;
        for (path, st) in walked.status {
            let slot = status.entry(path).or_default();
            slot.worktree = st.worktree.or(slot.worktree);
            slot.sha256 = st.sha256.or(slot.sha256.take());
            slot.head = st.head.or(slot.head.take());
            slot.kind = st.kind.or(slot.kind);
            slot.error = st.error.or(slot.error.take());
        }

        Ok(Snapshot {
            worktree: RepoPath::from_path(&layout.worktree),
            refs,
            index,
            status,
            ignored: walked.ignored,
            hooks,
            git_metadata,
            worktrees,
            user_config,
            index_file: Some(std::sync::Arc::new(IndexReference {
                state: index_file.into(),
                stat: live_stat,
            })),
        })
    }

    /// The categorised difference from `self` (before) to `after`.
    pub fn diff(&self, after: &Snapshot) -> GuardReport {
        report::diff(self, after)
    }

    /// A SHA-256 of each part, for a compact record (`guard.json`).
    pub fn digests(&self) -> Result<BTreeMap<&'static str, String>, GuardError> {
        fn h<T: Serialize>(
            part: &'static str,
            v: &T,
        ) -> Result<(&'static str, String), GuardError> {
            let bytes =
                serde_json::to_vec(v).map_err(|source| GuardError::Serialise { part, source })?;
            Ok((part, files::sha256_hex(&bytes)))
        }
        Ok(BTreeMap::from([
            h("refs", &self.refs)?,
            h("index", &self.index)?,
            h("status", &self.status)?,
            h("ignored", &self.ignored)?,
            h("hooks", &self.hooks)?,
            h("git_metadata", &self.git_metadata)?,
            h("worktrees", &self.worktrees)?,
            h("user_config", &self.user_config)?,
        ]))
    }
}

/// Open the repository with gix, isolated: only the repository's own config is read (as data),
/// no environment, no git binary; the user's `core.excludesFile` is passed in explicitly so
/// ignore rules match git's.
fn open_isolated(
    layout: &Layout,
    git_metadata: &BTreeMap<String, FileDigest>,
    user_config: &BTreeMap<RepoPath, FileDigest>,
    env: &metadata::UserEnv,
) -> Result<gix::Repository, GuardError> {
    let mut excludes_file: Option<PathBuf> = None;
    let user_texts = user_config
        .iter()
        .filter_map(|(p, d)| Some((p.as_path().parent()?.to_path_buf(), d.text.clone()?)));
    let local_texts = ["config", "config.worktree"]
        .into_iter()
        .filter_map(|l| Some((layout.worktree.clone(), git_metadata.get(l)?.text.clone()?)));
    for (base, text) in user_texts.chain(local_texts) {
        if let Some(v) =
            config::keys(&text).and_then(|k| config::last_value(&k, "core.excludesfile"))
        {
            excludes_file = env.expand(&v, &base);
        }
    }
    let excludes_file = excludes_file.or_else(|| {
        let xdg = env
            .xdg_config_home
            .clone()
            .or_else(|| env.home.as_ref().map(|h| h.join(".config")))?;
        Some(xdg.join("git/ignore"))
    });
    let mut overrides = Vec::new();
    if let Some(p) = excludes_file {
        let mut o = b"core.excludesFile=".to_vec();
        o.extend_from_slice(std::os::unix::ffi::OsStrExt::as_bytes(p.as_os_str()));
        overrides.push(gix::bstr::BString::from(o));
    }
    let opts = gix::open::Options::isolated().config_overrides(overrides);
    gix::open_opts(&layout.worktree, opts).map_err(|e| GuardError::Open {
        path: layout.worktree.clone(),
        message: e.to_string(),
    })
}

/// The stat of the index file, `None` when there is none.
fn index_stat(path: &Path) -> Option<IndexStat> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    Some(IndexStat {
        mtime: (meta.mtime(), meta.mtime_nsec()),
        ctime: (meta.ctime(), meta.ctime_nsec()),
        ino: meta.ino(),
        size: meta.size(),
    })
}
