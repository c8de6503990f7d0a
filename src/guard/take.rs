//! Taking one snapshot: the git directory and config files first (as bytes, before gix reads
//! anything), then — only if nothing there could block or redirect a read — refs, the index,
//! staged changes and the worktree walk, then each nested repository the same way.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::files::FileDigest;
use super::index_load::{self, Loaded, SHA1, load_index};
use super::layout::Layout;
use super::memo::Plain;
use super::memo_listings::Remembered;
use super::metadata::{self, UserEnv};
use super::path::RepoPath;
use super::reuse::{Earlier, Start, StatKey};
use super::status::FileStatus;
use super::{
    GuardError, GuardScope, IndexReference, NestedRepo, References, Snapshot, config, files,
    gitdir, hooks, index, index_file, modes, refs, walk,
};

/// Deepest nesting of repositories below the root that is snapshotted.
const MAX_NESTING: usize = 8;
/// Most nested repositories snapshotted in one repository.
const MAX_NESTED: usize = 256;

/// Run `work` on a thread of its own and wait for it, polling for interrupting signals: when one
/// arrives the wait ends with `Interrupted` and the thread is left behind (the process is about
/// to exit; a thread blocked in `open()` cannot be cancelled any other way).
pub(super) fn interruptible<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, GuardError> + Send + 'static,
) -> Result<T, GuardError> {
    use std::sync::mpsc::RecvTimeoutError;
    let base = crate::signals::count();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::Builder::new()
        .name("snapshot".into())
        .spawn(move || {
            let _ = tx.send(work());
        })
        .map_err(|e| GuardError::Io {
            what: "cannot start the snapshot thread".into(),
            source: e,
        })?;
    loop {
        match rx.recv_timeout(std::time::Duration::from_millis(50)) {
            Ok(result) => return result,
            Err(RecvTimeoutError::Timeout) if crate::signals::count() != base => {
                return Err(GuardError::Interrupted);
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return Err(GuardError::Failed),
        }
    }
}

/// A snapshot of the repository at `scope` (`depth` > 0 for a nested one: no user config).
pub(super) fn take(
    scope: &GuardScope,
    env: &UserEnv,
    references: References,
    depth: usize,
) -> Result<Snapshot, GuardError> {
    let start = Start::now();
    let layout = Layout::locate(&scope.worktree)?;
    // A run's first snapshot reads the last run's memo on a thread of its own while the git
    // directory and the index are read (`memo.rs`).
    let first = references.earlier.start.is_none();
    // Read before the lock was taken, when the index was (`index_load.rs`).
    let early = match &scope.memo {
        Some(tier) if depth == 0 && first => index_load::take_memo(&layout.worktree, tier),
        _ => None,
    };
    let memo = match &scope.memo {
        Some(tier) if depth == 0 && first && early.is_none() => {
            let (root, tier) = (layout.worktree.clone(), tier.clone());
            std::thread::Builder::new()
                .name("memo".into())
                .spawn(move || Remembered::load(&root, &tier))
                .ok()
        }
        _ => None,
    };
    let index_path = layout.git_dir.join("index");
    let read = read_git_dir(&layout, env, &references, depth, &index_path);
    let mut unreadable = read.record.unsafe_reason();
    let usual = references
        .usual
        .unwrap_or_else(|| modes::Usual::here(&layout.worktree));
    let mut snap = first_snapshot(
        &layout,
        usual,
        read.record.files,
        read.hooks,
        read.worktrees,
        read.user_config,
    );
    let loaded = match read.loaded {
        Ok(l) => Some(l),
        Err(e) => {
            unreadable.get_or_insert_with(|| {
                format!("cannot read the index {}: {e}", index_path.display())
            });
            None
        }
    };
    let (Some(loaded), None) = (loaded, &unreadable) else {
        snap.unreadable = unreadable;
        return Ok(snap);
    };

    // A repository gix cannot open (a planted `commondir` leading nowhere) is recorded as
    // unreadable, so the report after a turn still names what in the git directory changed.
    let repo = match open_isolated(&layout, &snap.git_metadata, &snap.user_config, env) {
        Ok(repo) => repo,
        Err(e) => {
            snap.unreadable = Some(e.to_string());
            return Ok(snap);
        }
    };
    snap.refs = refs::refs(&repo, &layout);
    let Some((parsed, reused, live_stat)) =
        parse_index(loaded, repo.object_hash(), &mut snap, &index_path)
    else {
        return Ok(snap);
    };
    let state = match &reused {
        Some(r) => &r.state,
        None => &parsed,
    };
    // A tracked file counts as clean without hashing only when its stat matches both the
    // live index and the one from before the turn (when the index file was written since),
    // so stat data forged into the index during the turn cannot hide an edit.
    let reference = references.index.clone().filter(|r| r.stat != live_stat);
    let index_mtime = match &reference {
        Some(r) => r.stat.mtime.min(live_stat.mtime),
        None => live_stat.mtime,
    };
    record_staged(&repo, state, &mut snap);
    let exclude = resolved_excludes(scope);
    // A run's first snapshot knows from the last run's memo which inodes had no ACL and no
    // capability and which directories were listed how (`memo.rs`), and leaves it to the
    // snapshot after; that one keeps what it finds, for the memo it may be asked to write.
    let remembered = early.or_else(|| memo.and_then(|h| h.join().ok()));
    let earlier = remembered
        .as_ref()
        .map_or(&*references.earlier, |r| &r.earlier);
    let input = walk::WalkInput {
        root: &layout.worktree,
        state,
        reference: reference.as_ref().map(|r| &r.state),
        index_mtime,
        exclude: &exclude,
        threads: walk_threads(),
        earlier,
        start,
        usual,
        remember: depth == 0 && scope.memo.is_some() && !first,
        dev: std::fs::metadata(&layout.worktree)
            .map_or(0, |m| std::os::unix::fs::MetadataExt::dev(&m)),
    };
    let mut walked = walk_worktree(&repo, &input);
    let plain = match remembered {
        Some(r) => {
            let (plain, kept) = r.taken();
            snap.kept = Some(std::sync::Arc::new(kept));
            plain
        }
        None => {
            snap.kept = references.kept;
            Plain::from_facts(std::mem::take(&mut walked.plain))
        }
    };
    let nested_dirs = take_walked(&mut snap, walked, (start, plain));
    snap.index_file = Some(match reused {
        Some(r) => r,
        None => std::sync::Arc::new(IndexReference {
            state: parsed,
            stat: live_stat,
            settled: start.settled(&live_stat),
            entries: Default::default(),
            digest: Default::default(),
            extensions: snap.index_extensions.clone(),
        }),
    });
    snap.nested = nested(scope, env, &layout, nested_dirs, references.nested, depth);
    Ok(snap)
}

/// What is read of a repository before gix opens it.
struct GitDirRead {
    record: gitdir::GitDirRecord,
    user_config: BTreeMap<RepoPath, FileDigest>,
    hooks: super::Hooks,
    worktrees: BTreeMap<RepoPath, super::Worktree>,
    loaded: std::io::Result<Loaded>,
}

/// Read the git directory and the config files (as bytes, before gix reads anything), while
/// the index is loaded on a thread of its own (it is opened the same safe way, and what is
/// loaded is dropped if the git directory turns out unsafe to read).
fn read_git_dir(
    layout: &Layout,
    env: &UserEnv,
    references: &References,
    depth: usize,
    index_path: &Path,
) -> GitDirRead {
    // A first snapshot takes over the index the command read before it took its lock.
    let early = (references.index.is_none() && depth == 0)
        .then(|| index_load::take(index_path))
        .flatten();
    let prior = references.index.as_ref().or(early.as_ref());
    std::thread::scope(|s| {
        let loader = std::thread::Builder::new()
            .name("index".into())
            .spawn_scoped(s, || load_index(index_path, prior));
        // Hashed before gix reads anything, so what gix could be steered by is on record.
        let record = gitdir::record(layout, references.earlier.start);
        let user_config = if depth == 0 {
            metadata::user_config(env, layout, &record.files)
        } else {
            BTreeMap::new()
        };
        let hooks = hooks::hooks(layout, &record.files, &user_config, env);
        let worktrees = metadata::worktrees(layout);
        let loaded = match loader {
            Ok(h) => h
                .join()
                .unwrap_or_else(|_| Err(std::io::Error::other("the index reader failed"))),
            Err(_) => load_index(index_path, prior),
        };
        GitDirRead {
            record,
            user_config,
            hooks,
            worktrees,
            loaded,
        }
    })
}

/// The snapshot as far as the git directory goes: what gix and the walk find is added to it.
fn first_snapshot(
    layout: &Layout,
    usual: modes::Usual,
    git_metadata: BTreeMap<String, FileDigest>,
    hooks: super::Hooks,
    worktrees: BTreeMap<RepoPath, super::Worktree>,
    user_config: BTreeMap<RepoPath, FileDigest>,
) -> Snapshot {
    Snapshot {
        worktree: RepoPath::from_path(&layout.worktree),
        common_dir: RepoPath::from_path(&layout.common_dir),
        git_dir: RepoPath::from_path(&layout.git_dir),
        unreadable: None,
        refs: BTreeMap::new(),
        index_extensions: BTreeMap::new(),
        status: BTreeMap::new(),
        permissions: modes::Permissions {
            usual,
            unusual: BTreeMap::new(),
            xattrs: BTreeMap::new(),
        },
        ignored: Vec::new(),
        hooks,
        git_metadata,
        worktrees,
        user_config,
        nested: BTreeMap::new(),
        index_file: None,
        earlier: Default::default(),
        kept: None,
    }
}

/// The index to compare with, its reference from before when taken over, and the live file's
/// stat; `None` (with `snap` made unreadable) when it cannot be parsed.
fn parse_index(
    loaded: Loaded,
    hash: gix::hash::Kind,
    snap: &mut Snapshot,
    index_path: &Path,
) -> Option<(
    gix::index::State,
    Option<std::sync::Arc<IndexReference>>,
    StatKey,
)> {
    match loaded {
        Loaded::Missing => Some((gix::index::State::new(hash), None, StatKey::default())),
        Loaded::Reused(r) => {
            snap.index_extensions = r.extensions.clone();
            let stat = r.stat;
            Some((gix::index::State::new(hash), Some(r), stat))
        }
        Loaded::Read(mut read) => {
            if hash != SHA1 {
                read.parsed = index_file::parse(&read.bytes, hash);
                read.extensions = index_file::extensions(&read.bytes.bytes, hash);
            }
            match read.parsed {
                Ok(state) => {
                    snap.index_extensions = read.extensions;
                    Some((state, None, StatKey::of(&read.bytes.meta)))
                }
                Err(message) => {
                    snap.unreadable = Some(format!(
                        "cannot read the index {}: {message}; run `git status` yourself to see what is wrong",
                        index_path.display()
                    ));
                    None
                }
            }
        }
    }
}

/// Each path staged (the index against HEAD), or why they cannot be compared.
fn record_staged(repo: &gix::Repository, state: &gix::index::State, snap: &mut Snapshot) {
    match index::staged(repo, state) {
        Ok(staged) => {
            for (path, s) in staged {
                snap.status.entry(path).or_default().staged = Some(s);
            }
        }
        Err(message) => {
            snap.status
                .entry(RepoPath::new(*b"HEAD"))
                .or_default()
                .error = Some(format!("cannot compare the index with HEAD: {message}"));
        }
    }
}

/// The scope's excluded paths with their directories resolved.
fn resolved_excludes(scope: &GuardScope) -> Vec<PathBuf> {
    scope
        .exclude
        .iter()
        // The directory is resolved, never the entry itself: an excluded file a runner turned
        // into a link is still the excluded path.
        .map(|p| match (p.parent(), p.file_name()) {
            (Some(dir), Some(name)) => std::fs::canonicalize(dir)
                .map(|d| d.join(name))
                .unwrap_or_else(|_| p.clone()),
            _ => p.clone(),
        })
        .collect()
}

/// How many threads the worktree walk uses.
fn walk_threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .clamp(2, 8)
}

/// Walk the worktree with git's ignore rules (the repository's excludes, then the user's).
fn walk_worktree(repo: &gix::Repository, input: &walk::WalkInput<'_>) -> walk::WalkOutput {
    let mut excludes = repo
        .excludes(
            input.state,
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
        let rel = Path::new(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(rel));
        stack
            .at_path(rel, Some(mode))
            .map(|p| p.is_excluded())
            .unwrap_or(false)
    };
    walk::walk(input, &mut is_ignored)
}

/// Put what the walk found into `snap` (each path's status merged with what is staged) and
/// keep what the next snapshot may take over; returns the nested repositories found.
fn take_walked(
    snap: &mut Snapshot,
    walked: walk::WalkOutput,
    (start, plain): (Start, Plain),
) -> Vec<Vec<u8>> {
    for (path, st) in walked.status {
        let slot: &mut FileStatus = snap.status.entry(path).or_default();
        slot.worktree = st.worktree.or(slot.worktree);
        slot.sha256 = st.sha256.or(slot.sha256.take());
        slot.head = st.head.or(slot.head.take());
        slot.kind = st.kind.or(slot.kind);
        slot.case_of = st.case_of.or(slot.case_of.take());
        slot.error = st.error.or(slot.error.take());
    }
    snap.ignored = walked.ignored;
    snap.permissions.unusual = walked.unusual.into_iter().collect();
    snap.permissions.xattrs = walked.xattrs.into_iter().collect();
    snap.earlier = std::sync::Arc::new(Earlier {
        start: Some(start),
        xattrs: snap
            .permissions
            .xattrs
            .iter()
            .map(|(p, x)| (p.as_bytes().to_vec(), x.clone()))
            .collect(),
        listings: walked
            .listings
            .into_iter()
            .map(|(rel, key, l)| (rel, (key, l)))
            .collect(),
        hashes: walked.hashes.into_iter().collect(),
        plain,
    });
    walked.nested
}

/// Snapshot each repository found below the root.
fn nested(
    scope: &GuardScope,
    env: &UserEnv,
    layout: &Layout,
    mut dirs: Vec<Vec<u8>>,
    mut references: BTreeMap<RepoPath, References>,
    depth: usize,
) -> BTreeMap<RepoPath, NestedRepo> {
    dirs.sort();
    dirs.dedup();
    let mut out = BTreeMap::new();
    for rel in dirs.into_iter().take(MAX_NESTED) {
        let abs = layout
            .worktree
            .join(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(&rel));
        let key = RepoPath::new(rel);
        let dot_git = files::digest(&abs.join(".git"), false);
        let mut repo = NestedRepo {
            git_dir: Layout::locate(&abs)
                .ok()
                .map(|l| RepoPath::from_path(&l.git_dir)),
            dot_git,
            snapshot: None,
            error: None,
        };
        if depth + 1 >= MAX_NESTING {
            repo.error = Some(format!("nested more than {MAX_NESTING} deep; not read"));
        } else {
            let sub = GuardScope {
                worktree: abs,
                exclude: scope.exclude.clone(),
                memo: None,
            };
            let refs = references.remove(&key).unwrap_or_default();
            match take(&sub, env, refs, depth + 1) {
                Ok(s) => repo.snapshot = Some(Box::new(s)),
                Err(e) => repo.error = Some(e.to_string()),
            }
        }
        out.insert(key, repo);
    }
    out
}

/// Open the repository with gix, isolated: only the repository's own config is read (as data),
/// no environment, no includes, no git binary; the user's `core.excludesFile` is passed in
/// explicitly (when it is a regular file) so ignore rules match git's.
fn open_isolated(
    layout: &Layout,
    git_metadata: &BTreeMap<String, FileDigest>,
    user_config: &BTreeMap<RepoPath, FileDigest>,
    env: &UserEnv,
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
    let excludes_file = excludes_file.or_else(|| env.xdg_git("ignore"));
    let mut overrides = Vec::new();
    if let Some(p) = excludes_file.filter(gitdir::safe_to_read) {
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

#[cfg(test)]
mod tests {
    use super::*;

    const CHILD: &str = "INTERVIEW_TEST_STUCK_FIFO";
    const NAME: &str = "guard::take::tests::a_signal_ends_a_snapshot_stuck_on_a_fifo";

    /// Run in a child process of the test binary (signals reach the whole process): the child
    /// installs the tool's handlers, says so with a mark file, and blocks in `open()` of a FIFO
    /// inside `interruptible`; SIGTERM must end the wait with `Interrupted` at once.
    #[test]
    fn a_signal_ends_a_snapshot_stuck_on_a_fifo() {
        if let Some(fifo) = std::env::var_os(CHILD) {
            crate::signals::install().unwrap();
            let fifo = PathBuf::from(fifo);
            std::fs::write(fifo.with_extension("ready"), b"").unwrap();
            let result = interruptible(move || {
                let _ = std::fs::File::open(&fifo);
                Ok(())
            });
            std::process::exit(if matches!(result, Err(GuardError::Interrupted)) {
                42
            } else {
                1
            });
        }
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        let mut child = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", NAME, "--test-threads", "1"])
            .env(CHILD, &fifo)
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let start = std::time::Instant::now();
        while !fifo.with_extension("ready").exists() {
            assert!(start.elapsed().as_secs() < 30, "the child never got ready");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
        let pid = nix::unistd::Pid::from_raw(child.id() as i32);
        nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).unwrap();
        let signalled = std::time::Instant::now();
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                assert_eq!(status.code(), Some(42), "{status:?}");
                break;
            }
            if signalled.elapsed().as_secs() >= 3 {
                let _ = child.kill();
                panic!("still stuck 3 s after SIGTERM");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}
