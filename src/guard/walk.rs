//! The worktree walk of a snapshot: the non-ignored tree in name order (tracked directories
//! entered, untracked files hashed, ignored directories fingerprinted down to every file), with
//! the tracked-file checks (`tracked.rs`) spread over the cores through one work queue.
//!
//! Content is compared as raw bytes (no filters, no fsmonitor, no config read): a repository with
//! a filter driver shows such files as modified, which is safe.

use std::fs;
use std::io;
use std::ops::Range;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::files::{self, Kind};
use super::memo::Fact;
use super::modes::{Perm, Usual};
use super::path::RepoPath;
use super::queue::{Job, Queue};
use super::reuse::{Earlier, Hashed, Listing, Start, StatKey};
use super::status::{FileStatus, Fingerprint, State};
use super::walk_index::Tracked;
use super::xattrs::Xattrs;
use super::{case, layout};

/// What the walk needs to know.
pub(super) struct WalkInput<'a> {
    pub root: &'a Path,
    pub state: &'a gix::index::State,
    /// The index as it was before a turn, when it differs from `state`: a file is trusted clean
    /// by its stat only if that stat also matches this index's entry.
    pub reference: Option<&'a gix::index::State>,
    /// The index file's mtime: entries not older than it are "racy" and hashed to be sure.
    pub index_mtime: (i64, i64),
    pub exclude: &'a [PathBuf],
    pub threads: usize,
    /// What the snapshot before read, to take over where its stat proves it unchanged.
    pub earlier: &'a Earlier,
    /// When this snapshot started (what it reads may be taken over by the next one only when
    /// settled by then).
    pub start: Start,
    /// The permissions and owner a path is not recorded with (`modes.rs`).
    pub usual: Usual,
    /// Keep the inodes found without ACLs and capabilities, for the memo (`memo.rs`).
    pub remember: bool,
    /// The worktree root's device: the memo speaks only of inodes on it.
    pub dev: u64,
}

impl WalkInput<'_> {
    /// The memo's name for an inode (`None` on another device than the root's).
    pub(super) fn inode(&self, dev: u64, ino: u64, ctime: (i64, i64)) -> Option<Fact> {
        (dev == self.dev).then(|| Fact::new(ino, ctime)).flatten()
    }
}

/// The worktree results of a walk.
#[derive(Default)]
pub(super) struct WalkOutput {
    pub status: Vec<(RepoPath, FileStatus)>,
    pub ignored: Vec<Fingerprint>,
    /// Files and directories whose permissions or owner are not the usual ones.
    pub unusual: Vec<(RepoPath, Perm)>,
    /// Files and directories with ACLs or a file capability.
    pub xattrs: Vec<(RepoPath, Xattrs)>,
    /// Files and directories found (or known) without, settled (`memo.rs`).
    pub plain: Vec<Fact>,
    /// Directories below the root holding a `.git` entry.
    pub nested: Vec<Vec<u8>>,
    /// Settled directory listings and content hashes, for the next snapshot.
    pub listings: Vec<(Vec<u8>, StatKey, Arc<Listing>)>,
    pub hashes: Vec<(Vec<u8>, Hashed)>,
}

impl WalkOutput {
    fn extend(&mut self, o: WalkOutput) {
        self.status.extend(o.status);
        self.ignored.extend(o.ignored);
        self.unusual.extend(o.unusual);
        self.xattrs.extend(o.xattrs);
        self.plain.extend(o.plain);
        self.nested.extend(o.nested);
        self.listings.extend(o.listings);
        self.hashes.extend(o.hashes);
    }
}

/// Walk the worktree. `is_ignored(relative path, is_dir)` answers from the excludes; it is only
/// called from this thread (gix's exclude stack is not thread-safe).
pub(super) fn walk(
    input: &WalkInput<'_>,
    is_ignored: &mut dyn FnMut(&[u8], bool) -> bool,
) -> WalkOutput {
    let entries = input.state.entries();
    let tracked = Tracked::new(input.state);
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
                ..WalkOutput::default()
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
        walk_tree(&worker, &tracked, is_ignored, &mut out);
        queue.walk_finished();
        out.extend(worker.run());
        for h in handles {
            // A helper that panicked lost its results; report that as an unreadable worktree
            // rather than a clean one.
            match h.join() {
                Ok(o) => out.extend(o),
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
    tracked: &Tracked<'_>,
    is_ignored: &mut dyn FnMut(&[u8], bool) -> bool,
    out: &mut WalkOutput,
) {
    // Each directory with the positions of the index paths below it.
    let mut stack: Vec<(Vec<u8>, Range<usize>)> = vec![(Vec::new(), tracked.all())];
    let mut poisoned: Vec<Vec<u8>> = Vec::new();
    let mut rel = Vec::new();
    let mut prefix = Vec::new();
    while let Some((dir, below)) = stack.pop() {
        let listing = match dir_listing(w, &dir, out) {
            Ok(listing) => listing,
            Err(e) => {
                push_unreadable_dir(out, dir, &e);
                continue;
            }
        };
        if gitignore_special(w.input.root, &dir, &listing) {
            poisoned.push(dir.clone());
        }
        let dir_poisoned = poisoned.iter().any(|p| is_within(&dir, p));
        let mut ignored = |rel: &[u8], is_dir: bool| !dir_poisoned && is_ignored(rel, is_dir);
        let mut subdirs = Vec::new();
        // The tracked names directly in this directory, made only when an untracked name needs
        // them (`case.rs`).
        let mut names: Option<Vec<&[u8]>> = None;
        let mut case_of = |name: &[u8]| {
            let names = names.get_or_insert_with(|| {
                let prefix_len = if dir.is_empty() { 0 } else { dir.len() + 1 };
                case::tracked_names(|i| tracked.path(i), below.clone(), prefix_len)
            });
            case::renamed_from(name, names, |n| listing.contains(n)).map(RepoPath::new)
        };
        for (name, kind) in listing.iter() {
            if name == b".git" {
                // A `.git` below the root makes this directory a repository of its own.
                if !dir.is_empty() {
                    out.nested.push(dir.clone());
                }
                continue;
            }
            join_into(&mut rel, &dir, name);
            // An excluded path that became a link is recorded like any other (never followed):
            // what the tool writes there must not lead elsewhere.
            if kind != Kind::Symlink && w.excluded(&rel) {
                continue;
            }
            if kind != Kind::Dir {
                if !tracked.contains(below.clone(), &rel) {
                    untracked_file(w, (name, kind), &rel, &mut ignored, &mut case_of, out);
                }
                continue;
            }
            prefix.clear();
            prefix.extend_from_slice(&rel);
            prefix.push(b'/');
            let inside = tracked.under(below.clone(), &prefix);
            if !inside.is_empty() {
                subdirs.push((rel.clone(), inside));
                continue;
            }
            let is_tracked = tracked.contains(below.clone(), &rel);
            prefix.extend_from_slice(b".git");
            if StatKey::at(w.root_fd, &prefix).is_ok() {
                nested_repo(w, &rel, &prefix, is_tracked, &mut ignored, out);
                continue;
            }
            if !is_tracked && ignored(&rel, true) {
                w.queue.push(Job::IgnoredDir(rel.clone()));
            } else {
                if !is_tracked && let Some(tracked_as) = case_of(name) {
                    push_case_rename(out, &rel, kind, tracked_as);
                }
                subdirs.push((rel.clone(), 0..0));
            }
        }
        // Reversed so the stack pops them in name order.
        stack.extend(subdirs.into_iter().rev());
    }
}

/// The listing of the worktree directory `dir`, with its own mode, owner and extended
/// attributes recorded.
fn dir_listing(w: &Worker<'_>, dir: &[u8], out: &mut WalkOutput) -> io::Result<Arc<Listing>> {
    let (key, listing, _) = w.listing(dir, false, out)?;
    let path: &[u8] = if dir.is_empty() { b"." } else { dir };
    if let Some(p) = w.input.usual.check(key.mode, key.uid, key.gid, true) {
        out.unusual.push((RepoPath::new(path), p));
    }
    // A listing taken over from the snapshot before is a directory whose stat is what it was,
    // settled, and whose ACLs that snapshot recorded (one from the memo knows no ACLs).
    let earlier = w.input.earlier;
    let unchanged = earlier.start.is_some() && earlier.listing(dir, &key).is_some();
    let inode = w.input.inode(key.dev, key.ino, key.ctime);
    w.xattrs(
        (dir, Some((w.root_fd.as_fd(), path))),
        (unchanged, inode),
        out,
    );
    Ok(listing)
}

/// A `.gitignore` that is not a regular file (a FIFO, or a link to one) would block gix's
/// exclude stack when it reads it: nothing at or below its directory is asked about.
fn gitignore_special(root: &Path, dir: &[u8], listing: &Listing) -> bool {
    listing.iter().any(|(name, kind)| {
        name == b".gitignore"
            && match kind {
                Kind::File => false,
                Kind::Symlink => !fs::metadata(root.join(os(&join(dir, name))))
                    .map(|m| m.is_file())
                    .unwrap_or(true),
                _ => true,
            }
    })
}

/// A submodule (tracked: its gitlink is checked with the index) or a nested repository at
/// `rel` (its `.git` at `dot_git`): recorded by its HEAD here, snapshotted as a repository of
/// its own.
fn nested_repo(
    w: &Worker<'_>,
    rel: &[u8],
    dot_git: &[u8],
    is_tracked: bool,
    ignored: &mut dyn FnMut(&[u8], bool) -> bool,
    out: &mut WalkOutput,
) {
    out.nested.push(rel.to_vec());
    if is_tracked {
        return;
    }
    let head = layout::nested_head(&w.input.root.join(os(dot_git)));
    if ignored(rel, true) {
        let mut fp = w.fingerprint(w.root_fd.as_fd(), rel);
        fp.head = head;
        out.ignored.push(fp);
    } else {
        out.status.push((
            RepoPath::new(rel.to_vec()),
            FileStatus {
                worktree: Some(State::Untracked),
                kind: Some(Kind::Dir),
                head,
                ..FileStatus::default()
            },
        ));
    }
}

/// A directory that cannot be listed: recorded, with the error.
fn push_unreadable_dir(out: &mut WalkOutput, dir: Vec<u8>, e: &io::Error) {
    out.status.push((
        RepoPath::new(if dir.is_empty() { b".".to_vec() } else { dir }),
        FileStatus {
            worktree: Some(State::Untracked),
            kind: Some(Kind::Dir),
            error: Some(e.kind().to_string()),
            ..FileStatus::default()
        },
    ));
}

/// `rel` made `dir/name` (`name` at the root), reusing its buffer.
fn join_into(rel: &mut Vec<u8>, dir: &[u8], name: &[u8]) {
    rel.clear();
    if !dir.is_empty() {
        rel.extend_from_slice(dir);
        rel.push(b'/');
    }
    rel.extend_from_slice(name);
}

/// A file, link or other non-directory the index does not track: fingerprinted when ignored,
/// queued for hashing when not.
fn untracked_file(
    w: &Worker<'_>,
    (name, kind): (&[u8], Kind),
    rel: &[u8],
    ignored: &mut dyn FnMut(&[u8], bool) -> bool,
    case_of: &mut dyn FnMut(&[u8]) -> Option<RepoPath>,
    out: &mut WalkOutput,
) {
    if ignored(rel, false) {
        // Finder writes `.DS_Store` into any folder the person opens: ignored, it is not the
        // runner's change (not ignored, it is an untracked file like any).
        if !(name == b".DS_Store" && kind == Kind::File) {
            out.ignored.push(w.fingerprint(w.root_fd.as_fd(), rel));
        }
    } else {
        if let Some(tracked_as) = case_of(name) {
            push_case_rename(out, rel, kind, tracked_as);
        }
        w.queue.push(Job::Untracked(rel.to_vec(), kind));
    }
}

/// An untracked name that stands for a tracked one spelled in another case.
fn push_case_rename(out: &mut WalkOutput, rel: &[u8], kind: Kind, tracked_as: RepoPath) {
    out.status.push((
        RepoPath::new(rel),
        FileStatus {
            worktree: Some(State::Untracked),
            kind: (kind != Kind::File).then_some(kind),
            case_of: Some(tracked_as),
            ..FileStatus::default()
        },
    ));
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
        let mut dir = super::open_dir::OpenDir::default();
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
        // Sorted here, on each thread, so the sort of them all merges a few sorted runs.
        out.ignored.sort_by(|a, b| a.path.cmp(&b.path));
        out.plain.sort_unstable();
        out
    }

    fn untracked(&self, rel: Vec<u8>, kind: Kind, out: &mut WalkOutput) {
        let mut st = FileStatus {
            worktree: Some(State::Untracked),
            kind: (kind != Kind::File).then_some(kind),
            ..FileStatus::default()
        };
        match kind {
            Kind::File => match self.hash(&rel, None, out) {
                Ok((sha256, _, key)) => {
                    st.sha256 = Some(sha256);
                    if let Some(p) = self.input.usual.check(key.mode, key.uid, key.gid, false) {
                        out.unusual.push((RepoPath::new(rel.as_slice()), p));
                    }
                    self.xattrs(
                        (&rel, Some((self.root_fd.as_fd(), &rel))),
                        (false, None),
                        out,
                    );
                }
                Err(e) => st.error = Some(e.kind().to_string()),
            },
            Kind::Symlink => match fs::read_link(self.input.root.join(os(&rel))) {
                Ok(t) => st.sha256 = Some(files::sha256_hex(t.as_os_str().as_bytes())),
                Err(e) => st.error = Some(e.kind().to_string()),
            },
            Kind::Dir | Kind::Other => {}
        }
        out.status.push((RepoPath::new(rel), st));
    }

    /// The SHA-256 (and with `blob_kind` the git blob id) of the regular file at `rel`: taken
    /// over from the snapshot before when the opened file's whole stat is what it was then
    /// (`reuse.rs`), else read.
    pub(super) fn hash(
        &self,
        rel: &[u8],
        blob_kind: Option<gix::hash::Kind>,
        out: &mut WalkOutput,
    ) -> io::Result<(String, Option<gix::ObjectId>, StatKey)> {
        let file = files::open_regular(&self.input.root.join(os(rel)))?;
        let key = StatKey::of_fd(&file)?;
        if let Some(h) = self.input.earlier.hash(rel, &key, blob_kind.is_some()) {
            out.hashes.push((rel.to_vec(), h.clone()));
            return Ok((h.sha256.clone(), h.blob, key));
        }
        let h = files::hash_open(file, blob_kind, files::HUGE_FILE)?;
        if self.input.start.settled(&key) {
            let kept = Hashed {
                key,
                sha256: h.sha256.clone(),
                blob: h.blob,
            };
            out.hashes.push((rel.to_vec(), kept));
        }
        Ok((h.sha256, h.blob, key))
    }

    /// The listing of the directory `rel` (`""`: the root), opened without following a link:
    /// taken over from the snapshot before when the directory's whole stat is what it was then
    /// (no entry can have been added, removed or renamed), else read. With `need_fd` the open
    /// directory is returned too.
    fn listing(
        &self,
        rel: &[u8],
        need_fd: bool,
        out: &mut WalkOutput,
    ) -> io::Result<(StatKey, Arc<Listing>, Option<OwnedFd>)> {
        use nix::fcntl::OFlag;
        let path: &[u8] = if rel.is_empty() { b"." } else { rel };
        let earlier = self.input.earlier;
        if !need_fd && earlier.listings.contains_key(rel) {
            let key = StatKey::at(self.root_fd, path)?;
            if let Some(l) = earlier.listing(rel, &key) {
                out.listings.push((rel.to_vec(), key, l.clone()));
                return Ok((key, l, None));
            }
        }
        let flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
        let fd = nix::fcntl::openat(self.root_fd, path, flags, nix::sys::stat::Mode::empty())
            .map_err(io::Error::from)?;
        let key = StatKey::of_fd(&fd)?;
        let (listing, fd) = match earlier.listing(rel, &key) {
            Some(l) => (l, Some(fd)),
            None => {
                let (l, fd) = Listing::read(fd, need_fd)?;
                (Arc::new(l), fd)
            }
        };
        if self.input.start.settled(&key) {
            out.listings.push((rel.to_vec(), key, listing.clone()));
        }
        Ok((key, listing, fd.filter(|_| need_fd)))
    }

    /// The fingerprint of an ignored path, `lstat`'ed relative to the open directory `dir`
    /// (`name` one component, or a path relative to the root when `dir` is the root).
    fn fingerprint(&self, dir: BorrowedFd<'_>, rel_or_name: &[u8]) -> Fingerprint {
        self.fingerprint_as(dir, rel_or_name, rel_or_name)
    }

    fn fingerprint_as(&self, dir: BorrowedFd<'_>, name: &[u8], rel: &[u8]) -> Fingerprint {
        match StatKey::at(dir, name) {
            Ok(key) => {
                let link = (key.kind() == Kind::Symlink)
                    .then(|| nix::fcntl::readlinkat(dir, name).ok())
                    .flatten()
                    .map(|t| RepoPath::new(t.as_bytes().to_vec()));
                Fingerprint::from_key(RepoPath::new(rel), &key, link)
            }
            Err(e) => Fingerprint::error(RepoPath::new(rel), &e),
        }
    }

    /// Fingerprint an ignored directory and its files, and queue its subdirectories.
    fn ignored_dir(&self, rel: Vec<u8>, out: &mut WalkOutput) {
        let (listing, fd) = match self.listing(&rel, true, out) {
            Ok((key, listing, Some(fd))) => {
                out.ignored.push(Fingerprint::from_key(
                    RepoPath::new(rel.clone()),
                    &key,
                    None,
                ));
                (listing, fd)
            }
            Ok(_) => return,
            Err(e) => {
                // Not a directory any more, or not readable: what is there, and why.
                let mut fp = self.fingerprint(self.root_fd.as_fd(), &rel);
                fp.error = Some(e.kind().to_string());
                out.ignored.push(fp);
                return;
            }
        };
        for (name, kind) in listing.iter() {
            let child = join(&rel, name);
            if kind != Kind::Symlink && self.excluded(&child) {
                continue;
            }
            if kind == Kind::Dir {
                self.queue.push(Job::IgnoredDir(child));
            } else if name == b".DS_Store" && kind == Kind::File {
                // Finder's, as above.
            } else {
                out.ignored
                    .push(self.fingerprint_as(fd.as_fd(), name, &child));
            }
        }
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
