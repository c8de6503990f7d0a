//! The check of one tracked file against the index: `lstat` relative to an open directory,
//! compared with the entry's stat data (and the stat data of the index from before a turn); the
//! content is hashed as a git blob only when the stat differs or is racy.

use std::fs;
use std::io;
use std::os::fd::AsFd;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use gix::bstr::ByteSlice;
use gix::index::entry::Mode;

use super::files::content_sha256;
use super::files::{self, Kind};
use super::layout;
use super::open_dir::{OpenDir, is_name};
use super::path::RepoPath;
use super::status::{FileStatus, State};
use super::walk::{WalkOutput, Worker, os, push, push_error};

/// What the tracked-file check needs from `lstat`.
struct Stat {
    kind: Kind,
    perm: u32,
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
    ino: u64,
    dev: u64,
    uid: u32,
    gid: u32,
}

/// `lstat` of a path relative to the open root directory.
// `st_mode` is a u16 and `st_dev` an i32 on macOS.
#[allow(clippy::unnecessary_cast)]
fn stat_at(dir: impl std::os::fd::AsFd, rel: &[u8]) -> io::Result<Stat> {
    let st = nix::sys::stat::fstatat(dir, rel, nix::fcntl::AtFlags::AT_SYMLINK_NOFOLLOW)
        .map_err(io::Error::from)?;
    let mode = st.st_mode as u32;
    let kind = super::reuse::kind_of_mode(mode);
    Ok(Stat {
        kind,
        perm: mode & 0o7777,
        size: st.st_size as u64,
        mtime: (st.st_mtime, st.st_mtime_nsec),
        ctime: (st.st_ctime, st.st_ctime_nsec),
        ino: st.st_ino,
        dev: st.st_dev as u64,
        uid: st.st_uid,
        gid: st.st_gid,
    })
}

impl Worker<'_> {
    /// Check one tracked entry: stat against the index, content only when the stat differs.
    pub(super) fn tracked(&self, i: usize, dir: &mut OpenDir, out: &mut WalkOutput) {
        let state = self.input.state;
        let Some(e) = state.entries().get(i) else {
            return;
        };
        if e.mode == Mode::DIR {
            return;
        }
        let rel = e.path(state).as_bytes();
        // An unmerged path (stages 1–3, no stage 0): its worktree file holds the conflict being
        // resolved, so its content is recorded (once, at the path's first stage).
        let unmerged = e.stage_raw() != 0;
        if unmerged && i > 0 && state.entries()[i - 1].path(state).as_bytes() == rel {
            return;
        }
        if self.excluded(rel) {
            return;
        }
        let meta = match self.lstat_tracked(rel, dir) {
            Ok(m) => m,
            Err(err) => return deleted(rel, &err, out),
        };
        let kind = meta.kind;
        let stat_same = self.stat_same(e, &meta);
        if kind == Kind::File {
            self.modes_and_xattrs(rel, &meta, dir, stat_same, out);
        }
        let abs = || self.input.root.join(os(rel));
        if unmerged {
            let sha256 = content_sha256(&abs(), kind);
            push(
                out,
                rel,
                FileStatus {
                    sha256,
                    kind: (kind != Kind::File).then_some(kind),
                    ..FileStatus::default()
                },
            );
            return;
        }
        if e.mode == Mode::COMMIT {
            return self.submodule(e, rel, kind, out);
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
        let racy = (i64::from(st.mtime.secs), i64::from(st.mtime.nsecs)) >= self.input.index_mtime;
        if stat_same && !racy && exec_ok {
            return;
        }
        self.compare_content(e, rel, kind, exec_ok, out);
    }

    /// `lstat` of the tracked path `rel`, relative to its parent directory (kept open in `dir`
    /// for the entries after it in the same directory).
    fn lstat_tracked(&self, rel: &[u8], dir: &mut OpenDir) -> io::Result<Stat> {
        let (parent, name) = split_parent(rel);
        match dir.open(self.root_fd.as_fd(), parent) {
            Some(fd) if is_name(name) => stat_at(fd, name),
            // A leading directory is gone or is no directory (a symlink put in its place): the
            // file is deleted, as git sees it.
            _ => Err(io::Error::from(io::ErrorKind::NotFound)),
        }
    }

    /// The file's stat matches its index entry, and the entry of the index from before the
    /// turn when there is one.
    fn stat_same(&self, e: &gix::index::Entry, meta: &Stat) -> bool {
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
                .entry_by_path(e.path(self.input.state))
                .is_some_and(|re| matches(&re.stat)),
        };
        matches(&e.stat) && reference_same
    }

    /// Any mode bit (not only the exec bit git keeps) and the owner: a file made writable for
    /// others, or setuid, is a change even with its bytes untouched; so is an ACL or a file
    /// capability, read again unless the file's stat proves none was set since the snapshot
    /// before.
    fn modes_and_xattrs(
        &self,
        rel: &[u8],
        meta: &Stat,
        dir: &mut OpenDir,
        stat_same: bool,
        out: &mut WalkOutput,
    ) {
        if let Some(p) = self.input.usual.check(meta.perm, meta.uid, meta.gid, false) {
            out.unusual.push((RepoPath::new(rel), p));
        }
        let settled =
            (self.input.earlier.start).is_some_and(|s| s.settled_times(meta.mtime, meta.ctime));
        let (parent, name) = split_parent(rel);
        let at = dir.open(self.root_fd.as_fd(), parent).map(|fd| (fd, name));
        let inode = self.input.inode(meta.dev, meta.ino, meta.ctime);
        self.xattrs((rel, at), (stat_same && settled, inode), out);
    }

    /// A submodule's entry: its checkout's HEAD against the commit the index records.
    fn submodule(&self, e: &gix::index::Entry, rel: &[u8], kind: Kind, out: &mut WalkOutput) {
        let abs = self.input.root.join(os(rel));
        if kind != Kind::Dir {
            return self.dirty(rel, &abs, kind, State::TypeChanged, out);
        }
        let head = layout::nested_head(&abs.join(".git"));
        if let Some(h) = head.filter(|h| gix::ObjectId::from_hex(h.as_bytes()).ok() != Some(e.id)) {
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

    /// Hash the file (or the link's target) as a git blob: modified when it is not the
    /// entry's object, or its exec bit differs.
    fn compare_content(
        &self,
        e: &gix::index::Entry,
        rel: &[u8],
        kind: Kind,
        exec_ok: bool,
        out: &mut WalkOutput,
    ) {
        let kind_hash = self.input.state.object_hash();
        let (sha256, blob) = if kind == Kind::Symlink {
            match fs::read_link(self.input.root.join(os(rel))) {
                Ok(t) => {
                    let b = t.as_os_str().as_bytes();
                    (files::sha256_hex(b), files::blob_of_bytes(kind_hash, b))
                }
                Err(err) => return push_error(out, rel, State::Modified, &err),
            }
        } else {
            match self.hash(rel, Some(kind_hash), out) {
                Ok((sha256, blob, _)) => (sha256, blob),
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
}

/// A tracked path that cannot be `lstat`ed: deleted, with the error when it is not "not found".
/// Recorded even for a skip-worktree entry (a sparse checkout leaves those out on purpose): then
/// it is "deleted" in both snapshots, and a skip-worktree file that existed and was deleted
/// during the turn is a change.
fn deleted(rel: &[u8], e: &io::Error, out: &mut WalkOutput) {
    let error = (e.kind() != io::ErrorKind::NotFound && e.raw_os_error() != Some(20))
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

/// `rel`'s directory (`""`: the root) and its last component.
fn split_parent(rel: &[u8]) -> (&[u8], &[u8]) {
    match rel.iter().rposition(|b| *b == b'/') {
        Some(i) => (&rel[..i], &rel[i + 1..]),
        None => (b"", rel),
    }
}
