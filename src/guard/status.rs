//! The worktree parts of a snapshot: the status of tracked files (stat compared with the index,
//! content hashed when the stat differs or is racy), untracked files with their content hash,
//! and every ignored path down to the files inside ignored directories, with a stat fingerprint.
//!
//! Content is compared as raw bytes (no filters, no fsmonitor, no config read): a repository with
//! a filter driver shows such files as modified, which is safe. Work is spread over the cores.

use std::collections::HashSet;
use std::fs;
use std::io;
use std::ops::Range;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex};

use gix::bstr::ByteSlice;
use gix::index::entry::{Flags, Mode};
use serde::Serialize;

use super::files::{self, Kind};
use super::layout;
use super::path::RepoPath;

/// What differs for a path: in the index against HEAD (`staged`) or in the worktree against the
/// index (`worktree`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    Added,
    Modified,
    Deleted,
    TypeChanged,
    Unmerged,
    Untracked,
}

impl State {
    pub fn as_str(self) -> &'static str {
        match self {
            State::Added => "added",
            State::Modified => "modified",
            State::Deleted => "deleted",
            State::TypeChanged => "type-changed",
            State::Unmerged => "unmerged",
            State::Untracked => "untracked",
        }
    }
}

/// The status of one path that is not clean.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct FileStatus {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub staged: Option<State>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worktree: Option<State>,
    /// SHA-256 of a dirty or untracked file's content (a symlink's target).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// The HEAD commit of a submodule or nested repository.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head: Option<String>,
    /// What the path is in the worktree, when it is not a regular file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<Kind>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The stat fingerprint of one ignored path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fingerprint {
    pub path: RepoPath,
    pub kind: Kind,
    pub size: u64,
    /// Seconds and nanoseconds.
    pub mtime: (i64, i64),
    pub ctime: (i64, i64),
    pub inode: u64,
    pub mode: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link: Option<RepoPath>,
    /// The HEAD commit of an ignored nested repository (its contents are not listed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Fingerprint {
    /// `abs` is only used to read a symlink's target.
    fn from_meta(
        path: RepoPath,
        meta: &fs::Metadata,
        abs: impl FnOnce() -> PathBuf,
    ) -> Fingerprint {
        let kind = Kind::of(meta.file_type());
        // A directory's own size and times change with its entries, which are listed anyway.
        let (size, mtime, ctime) = if kind == Kind::Dir {
            (0, (0, 0), (0, 0))
        } else {
            (
                meta.size(),
                (meta.mtime(), meta.mtime_nsec()),
                (meta.ctime(), meta.ctime_nsec()),
            )
        };
        Fingerprint {
            path,
            kind,
            size,
            mtime,
            ctime,
            inode: meta.ino(),
            mode: meta.mode() & 0o7777,
            link: (kind == Kind::Symlink)
                .then(|| fs::read_link(abs()).ok().map(|t| RepoPath::from_path(&t)))
                .flatten(),
            head: None,
            error: None,
        }
    }

    fn error(path: RepoPath, e: &io::Error) -> Fingerprint {
        Fingerprint {
            path,
            kind: Kind::Other,
            size: 0,
            mtime: (0, 0),
            ctime: (0, 0),
            inode: 0,
            mode: 0,
            link: None,
            head: None,
            error: Some(e.kind().to_string()),
        }
    }

    /// The names of the fields that differ from `other`.
    pub fn changed_fields(&self, other: &Fingerprint) -> Vec<&'static str> {
        let mut v = Vec::new();
        if self.kind != other.kind {
            v.push("kind");
        }
        if self.size != other.size {
            v.push("size");
        }
        if self.mtime != other.mtime {
            v.push("mtime");
        }
        if self.ctime != other.ctime {
            v.push("ctime");
        }
        if self.inode != other.inode {
            v.push("inode");
        }
        if self.mode != other.mode {
            v.push("mode");
        }
        if self.link != other.link {
            v.push("link target");
        }
        if self.head != other.head {
            v.push("HEAD");
        }
        if self.error != other.error {
            v.push("readability");
        }
        v
    }
}

/// What the walk needs to know.
pub struct WalkInput<'a> {
    pub root: &'a Path,
    pub state: &'a gix::index::State,
    /// The index as it was before a turn, when it differs from `state`: a file is trusted clean
    /// by its stat only if that stat also matches this index's entry.
    pub reference: Option<&'a gix::index::State>,
    /// The index file's mtime: entries not older than it are "racy" and hashed to be sure.
    pub index_mtime: (i64, i64),
    pub exclude: &'a [PathBuf],
    pub threads: usize,
}

/// The worktree results of a walk.
#[derive(Default)]
pub struct WalkOutput {
    pub status: Vec<(RepoPath, FileStatus)>,
    pub ignored: Vec<Fingerprint>,
}

enum Job {
    Tracked(Range<usize>),
    IgnoredDir(Vec<u8>),
    Untracked(Vec<u8>, Kind),
}

/// A work queue shared by the walking thread and the helpers; `pending` counts queued and
/// running jobs so helpers know when everything is done.
struct Queue {
    inner: Mutex<QueueState>,
    ready: Condvar,
}

struct QueueState {
    jobs: Vec<Job>,
    pending: usize,
    walking: bool,
}

impl Queue {
    fn lock(&self) -> std::sync::MutexGuard<'_, QueueState> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn push(&self, job: Job) {
        let mut q = self.lock();
        q.jobs.push(job);
        q.pending += 1;
        drop(q);
        self.ready.notify_one();
    }

    fn next(&self) -> Option<Job> {
        let mut q = self.lock();
        loop {
            if let Some(job) = q.jobs.pop() {
                return Some(job);
            }
            if !q.walking && q.pending == 0 {
                return None;
            }
            q = self.ready.wait(q).unwrap_or_else(|p| p.into_inner());
        }
    }

    fn done(&self) {
        let mut q = self.lock();
        q.pending -= 1;
        let finished = q.pending == 0 && !q.walking;
        drop(q);
        if finished {
            self.ready.notify_all();
        }
    }

    fn walk_finished(&self) {
        self.lock().walking = false;
        self.ready.notify_all();
    }
}

/// Walk the worktree. `is_ignored(relative path, is_dir)` answers from the excludes; it is only
/// called from this thread (gix's exclude stack is not thread-safe).
pub fn walk(input: &WalkInput<'_>, is_ignored: &mut dyn FnMut(&[u8], bool) -> bool) -> WalkOutput {
    let state = input.state;
    let entries = state.entries();
    let mut tracked_files: HashSet<&[u8]> = HashSet::with_capacity(entries.len());
    let mut tracked_dirs: HashSet<&[u8]> = HashSet::new();
    for e in entries {
        let p = e.path(state).as_bytes();
        tracked_files.insert(p);
        let mut end = p.len();
        while let Some(i) = p[..end].iter().rposition(|b| *b == b'/') {
            if !tracked_dirs.insert(&p[..i]) {
                break;
            }
            end = i;
        }
    }
    let queue = Queue {
        inner: Mutex::new(QueueState {
            jobs: Vec::new(),
            pending: 0,
            walking: true,
        }),
        ready: Condvar::new(),
    };
    const CHUNK: usize = 2048;
    let mut start = 0;
    while start < entries.len() {
        let end = (start + CHUNK).min(entries.len());
        queue.push(Job::Tracked(start..end));
        start = end;
    }
    let root_fd = match fs::File::open(input.root) {
        Ok(f) => f,
        Err(e) => {
            return WalkOutput {
                status: vec![(
                    RepoPath::new(*b"."),
                    FileStatus {
                        error: Some(format!("cannot open the worktree: {}", e.kind())),
                        ..FileStatus::default()
                    },
                )],
                ignored: Vec::new(),
            };
        }
    };
    let exclude_rel = input
        .exclude
        .iter()
        .filter_map(|x| x.strip_prefix(input.root).ok())
        .map(|r| r.as_os_str().as_bytes().to_vec())
        .collect();
    let worker = Worker {
        input,
        queue: &queue,
        root_fd: &root_fd,
        exclude_rel,
    };
    let helpers = input.threads.saturating_sub(1).max(1);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..helpers).map(|_| s.spawn(|| worker.run())).collect();
        let mut out = WalkOutput::default();
        walk_tree(&worker, &tracked_files, &tracked_dirs, is_ignored, &mut out);
        queue.walk_finished();
        let mine = worker.run();
        out.status.extend(mine.status);
        out.ignored.extend(mine.ignored);
        for h in handles {
            // A helper that panicked lost its results; report that as an unreadable worktree
            // rather than a clean one.
            match h.join() {
                Ok(o) => {
                    out.status.extend(o.status);
                    out.ignored.extend(o.ignored);
                }
                Err(_) => out.status.push((
                    RepoPath::new(*b"."),
                    FileStatus {
                        error: Some("a snapshot worker failed".into()),
                        ..FileStatus::default()
                    },
                )),
            }
        }
        out.ignored.sort_by(|a, b| a.path.cmp(&b.path));
        out
    })
}

fn join(dir: &[u8], name: &[u8]) -> Vec<u8> {
    let mut p = Vec::with_capacity(dir.len() + 1 + name.len());
    if !dir.is_empty() {
        p.extend_from_slice(dir);
        p.push(b'/');
    }
    p.extend_from_slice(name);
    p
}

fn os(rel: &[u8]) -> &Path {
    Path::new(std::ffi::OsStr::from_bytes(rel))
}

/// The non-ignored part of the tree, depth first in name order (what gix's exclude stack is
/// fastest at): tracked directories are entered, untracked files queued for hashing, ignored
/// directories queued for fingerprinting.
fn walk_tree(
    w: &Worker<'_>,
    tracked_files: &HashSet<&[u8]>,
    tracked_dirs: &HashSet<&[u8]>,
    is_ignored: &mut dyn FnMut(&[u8], bool) -> bool,
    out: &mut WalkOutput,
) {
    let root = w.input.root;
    let mut stack: Vec<Vec<u8>> = vec![Vec::new()];
    while let Some(dir) = stack.pop() {
        let abs = root.join(os(&dir));
        let read = match fs::read_dir(&abs) {
            Ok(r) => r,
            Err(e) => {
                out.status.push((
                    RepoPath::new(if dir.is_empty() { b".".to_vec() } else { dir }),
                    FileStatus {
                        worktree: Some(State::Untracked),
                        kind: Some(Kind::Dir),
                        error: Some(e.kind().to_string()),
                        ..FileStatus::default()
                    },
                ));
                continue;
            }
        };
        let mut children: Vec<(Vec<u8>, Option<fs::FileType>)> = read
            .filter_map(Result::ok)
            .map(|e| (e.file_name().as_bytes().to_vec(), e.file_type().ok()))
            .collect();
        children.sort_by(|a, b| b.0.cmp(&a.0));
        let mut subdirs = Vec::new();
        for (name, ft) in children.into_iter().rev() {
            if name == b".git" {
                continue;
            }
            let rel = join(&dir, &name);
            if w.excluded(&rel) {
                continue;
            }
            let abs = || root.join(os(&rel));
            let kind = match ft {
                Some(ft) => Kind::of(ft),
                None => match fs::symlink_metadata(abs()) {
                    Ok(m) => Kind::of(m.file_type()),
                    Err(_) => continue,
                },
            };
            let tracked = tracked_files.contains(rel.as_slice());
            if kind != Kind::Dir {
                if tracked {
                    continue;
                }
                if is_ignored(&rel, false) {
                    out.ignored.push(match fs::symlink_metadata(abs()) {
                        Ok(m) => Fingerprint::from_meta(RepoPath::new(rel.clone()), &m, abs),
                        Err(e) => Fingerprint::error(RepoPath::new(rel), &e),
                    });
                } else {
                    w.queue.push(Job::Untracked(rel, kind));
                }
                continue;
            }
            if tracked_dirs.contains(rel.as_slice()) {
                subdirs.push(rel);
                continue;
            }
            let dot_git = abs().join(".git");
            if fs::symlink_metadata(&dot_git).is_ok() {
                // A submodule (tracked: its gitlink is checked with the index) or a nested
                // repository: recorded by its HEAD, never entered.
                if tracked {
                    continue;
                }
                let head = layout::nested_head(&dot_git);
                if is_ignored(&rel, true) {
                    let mut fp = match fs::symlink_metadata(abs()) {
                        Ok(m) => Fingerprint::from_meta(RepoPath::new(rel.clone()), &m, abs),
                        Err(e) => Fingerprint::error(RepoPath::new(rel), &e),
                    };
                    fp.head = head;
                    out.ignored.push(fp);
                } else {
                    out.status.push((
                        RepoPath::new(rel),
                        FileStatus {
                            worktree: Some(State::Untracked),
                            kind: Some(Kind::Dir),
                            head,
                            ..FileStatus::default()
                        },
                    ));
                }
                continue;
            }
            if !tracked && is_ignored(&rel, true) {
                w.queue.push(Job::IgnoredDir(rel));
            } else {
                subdirs.push(rel);
            }
        }
        // Reversed so the stack pops them in name order.
        stack.extend(subdirs.into_iter().rev());
    }
}

struct Worker<'a> {
    input: &'a WalkInput<'a>,
    queue: &'a Queue,
    /// The worktree root, open: stats relative to it skip walking the root's own path.
    root_fd: &'a fs::File,
    /// `input.exclude` relative to the root.
    exclude_rel: Vec<Vec<u8>>,
}

/// What the tracked-file check needs from `lstat`.
struct Stat {
    kind: Kind,
    perm: u32,
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
    ino: u64,
}

/// `lstat` of a path relative to the open root directory.
fn stat_at(dir: impl std::os::fd::AsFd, rel: &[u8]) -> io::Result<Stat> {
    use nix::libc;
    let st = nix::sys::stat::fstatat(dir, rel, nix::fcntl::AtFlags::AT_SYMLINK_NOFOLLOW)
        .map_err(io::Error::from)?;
    let kind = match st.st_mode & libc::S_IFMT {
        libc::S_IFREG => Kind::File,
        libc::S_IFLNK => Kind::Symlink,
        libc::S_IFDIR => Kind::Dir,
        _ => Kind::Other,
    };
    Ok(Stat {
        kind,
        perm: st.st_mode & 0o7777,
        size: st.st_size as u64,
        mtime: (st.st_mtime, st.st_mtime_nsec),
        ctime: (st.st_ctime, st.st_ctime_nsec),
        ino: st.st_ino,
    })
}

impl Worker<'_> {
    fn excluded(&self, rel: &[u8]) -> bool {
        self.exclude_rel.iter().any(|x| x.as_slice() == rel)
    }

    fn run(&self) -> WalkOutput {
        let mut out = WalkOutput::default();
        // The directory of the last tracked entry, open: entries come sorted by path, so one
        // open per directory makes every stat a single-component lookup.
        let mut dir: Option<(Vec<u8>, Option<OwnedFd>)> = None;
        while let Some(job) = self.queue.next() {
            match job {
                Job::Tracked(range) => {
                    for i in range {
                        self.tracked(i, &mut dir, &mut out);
                    }
                }
                Job::IgnoredDir(rel) => self.ignored_dir(rel, &mut out),
                Job::Untracked(rel, kind) => self.untracked(rel, kind, &mut out),
            }
            self.queue.done();
        }
        out
    }

    /// Check one tracked entry: stat against the index, content only when the stat differs.
    fn tracked(
        &self,
        i: usize,
        dir: &mut Option<(Vec<u8>, Option<OwnedFd>)>,
        out: &mut WalkOutput,
    ) {
        let state = self.input.state;
        let Some(e) = state.entries().get(i) else {
            return;
        };
        if e.stage_raw() != 0 || e.mode == Mode::DIR {
            return;
        }
        let rel = e.path(state).as_bytes();
        if self.excluded(rel) {
            return;
        }
        let abs = || self.input.root.join(os(rel));
        let skip_worktree = e.flags.contains(Flags::SKIP_WORKTREE);
        let meta = match rel.iter().rposition(|b| *b == b'/') {
            None => stat_at(self.root_fd, rel),
            Some(i) => {
                let (parent, name) = (&rel[..i], &rel[i + 1..]);
                if dir.as_ref().map(|(d, _)| d.as_slice()) != Some(parent) {
                    use nix::fcntl::OFlag;
                    let flags =
                        OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
                    let fd = nix::fcntl::openat(
                        self.root_fd,
                        parent,
                        flags,
                        nix::sys::stat::Mode::empty(),
                    )
                    .ok();
                    *dir = Some((parent.to_vec(), fd));
                }
                match dir.as_ref().and_then(|(_, fd)| fd.as_ref()) {
                    Some(fd) => stat_at(fd, name),
                    // A leading directory is gone or is no directory (a symlink put in its
                    // place): the file is deleted, as git sees it.
                    None => Err(io::Error::from(io::ErrorKind::NotFound)),
                }
            }
        };
        let meta = match meta {
            Ok(m) => m,
            Err(e) => {
                // A sparse checkout leaves skip-worktree files out of the worktree on purpose.
                if !skip_worktree {
                    let error = (e.kind() != io::ErrorKind::NotFound
                        && e.raw_os_error() != Some(20))
                    .then(|| e.kind().to_string());
                    push(
                        out,
                        rel,
                        FileStatus {
                            worktree: Some(State::Deleted),
                            error,
                            ..FileStatus::default()
                        },
                    );
                }
                return;
            }
        };
        let kind = meta.kind;
        if e.mode == Mode::COMMIT {
            match kind {
                Kind::Dir => {
                    let head = layout::nested_head(&abs().join(".git"));
                    if let Some(h) =
                        head.filter(|h| gix::ObjectId::from_hex(h.as_bytes()).ok() != Some(e.id))
                    {
                        push(
                            out,
                            rel,
                            FileStatus {
                                worktree: Some(State::Modified),
                                head: Some(h),
                                kind: Some(Kind::Dir),
                                ..FileStatus::default()
                            },
                        );
                    }
                }
                _ => self.dirty(rel, &abs(), kind, State::TypeChanged, out),
            }
            return;
        }
        let expected = if e.mode == Mode::SYMLINK {
            Kind::Symlink
        } else {
            Kind::File
        };
        if kind != expected {
            self.dirty(rel, &abs(), kind, State::TypeChanged, out);
            return;
        }
        let exec_ok = kind == Kind::Symlink
            || ((meta.perm & 0o100 != 0) == (e.mode == Mode::FILE_EXECUTABLE));
        let st = &e.stat;
        let time_eq = |secs: u32, nsecs: u32, (m_s, m_ns): (i64, i64)| {
            secs == m_s as u32 && (nsecs == 0 || nsecs == m_ns as u32)
        };
        let matches = |st: &gix::index::entry::Stat| {
            time_eq(st.mtime.secs, st.mtime.nsecs, meta.mtime)
                && time_eq(st.ctime.secs, st.ctime.nsecs, meta.ctime)
                && st.ino == meta.ino as u32
                && st.size == meta.size as u32
        };
        let reference_same = match self.input.reference {
            None => true,
            Some(r) => r
                .entry_by_path(e.path(state))
                .is_some_and(|re| matches(&re.stat)),
        };
        let stat_same = matches(st) && reference_same;
        let racy = (i64::from(st.mtime.secs), i64::from(st.mtime.nsecs)) >= self.input.index_mtime;
        if stat_same && !racy && exec_ok {
            return;
        }
        let kind_hash = state.object_hash();
        let (sha256, blob) = if kind == Kind::Symlink {
            match fs::read_link(abs()) {
                Ok(t) => {
                    let b = t.as_os_str().as_bytes();
                    (files::sha256_hex(b), files::blob_of_bytes(kind_hash, b))
                }
                Err(err) => return push_error(out, rel, State::Modified, &err),
            }
        } else {
            match files::hash_file(&abs(), Some(kind_hash)) {
                Ok(h) => (h.sha256, h.blob),
                Err(err) => return push_error(out, rel, State::Modified, &err),
            }
        };
        if blob.as_ref() == Some(&e.id) && exec_ok {
            return;
        }
        push(
            out,
            rel,
            FileStatus {
                worktree: Some(State::Modified),
                sha256: Some(sha256),
                ..FileStatus::default()
            },
        );
    }

    /// Record a tracked path whose type changed, with its content hash when it has content.
    fn dirty(&self, rel: &[u8], abs: &Path, kind: Kind, state: State, out: &mut WalkOutput) {
        let sha256 = content_sha256(abs, kind);
        push(
            out,
            rel,
            FileStatus {
                worktree: Some(state),
                sha256,
                kind: (kind != Kind::File).then_some(kind),
                ..FileStatus::default()
            },
        );
    }

    fn untracked(&self, rel: Vec<u8>, kind: Kind, out: &mut WalkOutput) {
        let abs = self.input.root.join(os(&rel));
        let mut st = FileStatus {
            worktree: Some(State::Untracked),
            kind: (kind != Kind::File).then_some(kind),
            ..FileStatus::default()
        };
        match kind {
            Kind::File => match files::hash_file(&abs, None) {
                Ok(h) => st.sha256 = Some(h.sha256),
                Err(e) => st.error = Some(e.kind().to_string()),
            },
            Kind::Symlink => match fs::read_link(&abs) {
                Ok(t) => st.sha256 = Some(files::sha256_hex(t.as_os_str().as_bytes())),
                Err(e) => st.error = Some(e.kind().to_string()),
            },
            Kind::Dir | Kind::Other => {}
        }
        out.status.push((RepoPath::new(rel), st));
    }

    /// Fingerprint an ignored directory and queue its subdirectories.
    fn ignored_dir(&self, rel: Vec<u8>, out: &mut WalkOutput) {
        let abs = self.input.root.join(os(&rel));
        let meta = match fs::symlink_metadata(&abs) {
            Ok(m) => m,
            Err(e) => {
                out.ignored.push(Fingerprint::error(RepoPath::new(rel), &e));
                return;
            }
        };
        let mut fp = Fingerprint::from_meta(RepoPath::new(rel.clone()), &meta, || abs.clone());
        let read = match fs::read_dir(&abs) {
            Ok(r) => r,
            Err(e) => {
                fp.error = Some(e.kind().to_string());
                out.ignored.push(fp);
                return;
            }
        };
        out.ignored.push(fp);
        for entry in read.filter_map(Result::ok) {
            let child = join(&rel, entry.file_name().as_bytes());
            if self.excluded(&child) {
                continue;
            }
            match entry.metadata() {
                Ok(m) if m.is_dir() => self.queue.push(Job::IgnoredDir(child)),
                Ok(m) => out
                    .ignored
                    .push(Fingerprint::from_meta(RepoPath::new(child), &m, || {
                        abs.join(entry.file_name())
                    })),
                Err(e) => out
                    .ignored
                    .push(Fingerprint::error(RepoPath::new(child), &e)),
            }
        }
    }
}

fn content_sha256(abs: &Path, kind: Kind) -> Option<String> {
    match kind {
        Kind::File => files::hash_file(abs, None).ok().map(|h| h.sha256),
        Kind::Symlink => fs::read_link(abs)
            .ok()
            .map(|t| files::sha256_hex(t.as_os_str().as_bytes())),
        Kind::Dir | Kind::Other => None,
    }
}

fn push(out: &mut WalkOutput, rel: &[u8], st: FileStatus) {
    out.status.push((RepoPath::new(rel), st));
}

fn push_error(out: &mut WalkOutput, rel: &[u8], state: State, e: &io::Error) {
    push(
        out,
        rel,
        FileStatus {
            worktree: Some(state),
            error: Some(e.kind().to_string()),
            ..FileStatus::default()
        },
    );
}
