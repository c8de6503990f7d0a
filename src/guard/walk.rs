//! The worktree walk of a snapshot: the non-ignored tree in name order (tracked directories
//! entered, untracked files hashed, ignored directories fingerprinted down to every file), with
//! the tracked-file checks (`tracked.rs`) spread over the cores through one work queue.
//!
//! Content is compared as raw bytes (no filters, no fsmonitor, no config read): a repository with
//! a filter driver shows such files as modified, which is safe.

use std::collections::HashSet;
use std::fs;
use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use gix::bstr::ByteSlice;

use super::files::{self, Kind};
use super::layout;
use super::path::RepoPath;
use super::queue::{Job, Queue};
use super::status::{FileStatus, Fingerprint, State};

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
    /// Directories below the root holding a `.git` entry.
    pub nested: Vec<Vec<u8>>,
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
    let queue = Queue::new();
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
                nested: Vec::new(),
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

/// Whether `path` is `dir` or inside it (`dir` empty: the root).
fn is_within(path: &[u8], dir: &[u8]) -> bool {
    dir.is_empty() || path == dir || (path.starts_with(dir) && path.get(dir.len()) == Some(&b'/'))
}

pub(super) fn os(rel: &[u8]) -> &Path {
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
    let mut poisoned: Vec<Vec<u8>> = Vec::new();
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
        // A `.gitignore` that is not a regular file (a FIFO, or a link to one) would block gix's
        // exclude stack when it reads it: nothing at or below this directory is asked about.
        let gitignore_special = children.iter().any(|(name, ft)| {
            name == b".gitignore"
                && match ft {
                    Some(ft) if ft.is_file() => false,
                    Some(ft) if ft.is_symlink() => !fs::metadata(abs.join(".gitignore"))
                        .map(|m| m.is_file())
                        .unwrap_or(true),
                    _ => true,
                }
        });
        if gitignore_special {
            poisoned.push(dir.clone());
        }
        let dir_poisoned = poisoned.iter().any(|p| is_within(&dir, p));
        let mut ignored = |rel: &[u8], is_dir: bool| !dir_poisoned && is_ignored(rel, is_dir);
        let mut subdirs = Vec::new();
        for (name, ft) in children.into_iter().rev() {
            if name == b".git" {
                // A `.git` below the root makes this directory a repository of its own.
                if !dir.is_empty() {
                    out.nested.push(dir.clone());
                }
                continue;
            }
            let rel = join(&dir, &name);
            let abs = || root.join(os(&rel));
            let kind = match ft {
                Some(ft) => Kind::of(ft),
                None => match fs::symlink_metadata(abs()) {
                    Ok(m) => Kind::of(m.file_type()),
                    Err(_) => continue,
                },
            };
            // An excluded path that became a link is recorded like any other (never followed):
            // what the tool writes there must not lead elsewhere.
            if w.excluded(&rel) && kind != Kind::Symlink {
                continue;
            }
            let tracked = tracked_files.contains(rel.as_slice());
            if kind != Kind::Dir {
                if tracked {
                    continue;
                }
                if ignored(&rel, false) {
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
                // repository: recorded by its HEAD here, snapshotted as a repository of its own.
                out.nested.push(rel.clone());
                if tracked {
                    continue;
                }
                let head = layout::nested_head(&dot_git);
                if ignored(&rel, true) {
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
            if !tracked && ignored(&rel, true) {
                w.queue.push(Job::IgnoredDir(rel));
            } else {
                subdirs.push(rel);
            }
        }
        // Reversed so the stack pops them in name order.
        stack.extend(subdirs.into_iter().rev());
    }
}

pub(super) struct Worker<'a> {
    pub(super) input: &'a WalkInput<'a>,
    pub(super) queue: &'a Queue,
    /// The worktree root, open: stats relative to it skip walking the root's own path.
    pub(super) root_fd: &'a fs::File,
    /// `input.exclude` relative to the root.
    exclude_rel: Vec<Vec<u8>>,
}

impl Worker<'_> {
    pub(super) fn excluded(&self, rel: &[u8]) -> bool {
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
            let is_link = entry.file_type().map(|t| t.is_symlink()).unwrap_or(false);
            if self.excluded(&child) && !is_link {
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

pub(super) fn content_sha256(abs: &Path, kind: Kind) -> Option<String> {
    match kind {
        Kind::File => files::hash_file(abs, None).ok().map(|h| h.sha256),
        Kind::Symlink => fs::read_link(abs)
            .ok()
            .map(|t| files::sha256_hex(t.as_os_str().as_bytes())),
        Kind::Dir | Kind::Other => None,
    }
}

pub(super) fn push(out: &mut WalkOutput, rel: &[u8], st: FileStatus) {
    out.status.push((RepoPath::new(rel), st));
}

pub(super) fn push_error(out: &mut WalkOutput, rel: &[u8], state: State, e: &io::Error) {
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
