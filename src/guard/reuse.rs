//! What a snapshot may take over from the one before it without reading again, by git's
//! racy-stat rule: a path whose whole stat (size, mtime and ctime to the nanosecond, inode,
//! device, mode) is unchanged, and whose two times were older than the earlier snapshot's start
//! by more than any filesystem's timestamp granularity, cannot have been written since. Any
//! write, rename, link, chmod or `touch -d` sets the ctime to the current time, which no process
//! can set back (only the system clock could).
//!
//! Taken over: the parsed index (`take.rs`), directory listings (`walk.rs`) and the content
//! hashes of dirty and untracked files. Every file is still stat'ed by every snapshot.

use std::collections::HashMap;
use std::fs;
use std::os::fd::AsFd;
use std::os::unix::fs::MetadataExt;
use std::sync::Arc;

use super::files::Kind;
use super::memo::Plain;
use super::xattrs::Xattrs;

/// How much older than a snapshot's start a path's times must be to be trusted unchanged while
/// its stat is: more than the coarsest timestamp granularity of a filesystem git runs on (FAT's
/// 2 s; ext4, xfs, btrfs and tmpfs stamp from a clock a few milliseconds coarse).
const SETTLE_SECS: i64 = 2;

/// The whole stat of a path: what any change of it, or of what is at its name, changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct StatKey {
    pub size: u64,
    /// Seconds and nanoseconds.
    pub mtime: (i64, i64),
    pub ctime: (i64, i64),
    pub ino: u64,
    pub dev: u64,
    /// `st_mode`, the file type bits included.
    pub mode: u32,
    pub uid: u32,
    pub gid: u32,
}

impl StatKey {
    pub(super) fn of(meta: &fs::Metadata) -> StatKey {
        StatKey {
            size: meta.size(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
            ino: meta.ino(),
            dev: meta.dev(),
            mode: meta.mode(),
            uid: meta.uid(),
            gid: meta.gid(),
        }
    }

    // `st_dev` is an i32 and `st_mode` a u16 on macOS.
    #[allow(clippy::unnecessary_cast)]
    pub(super) fn of_stat(st: &nix::sys::stat::FileStat) -> StatKey {
        StatKey {
            size: st.st_size as u64,
            mtime: (st.st_mtime, st.st_mtime_nsec),
            ctime: (st.st_ctime, st.st_ctime_nsec),
            ino: st.st_ino,
            dev: st.st_dev as u64,
            mode: st.st_mode as u32,
            uid: st.st_uid,
            gid: st.st_gid,
        }
    }

    /// `lstat` of `name` relative to the open directory `dir`.
    pub(super) fn at(dir: impl AsFd, name: &[u8]) -> std::io::Result<StatKey> {
        nix::sys::stat::fstatat(dir, name, nix::fcntl::AtFlags::AT_SYMLINK_NOFOLLOW)
            .map(|st| StatKey::of_stat(&st))
            .map_err(std::io::Error::from)
    }

    /// `fstat` of an open file.
    pub(super) fn of_fd(fd: impl AsFd) -> std::io::Result<StatKey> {
        nix::sys::stat::fstat(fd)
            .map(|st| StatKey::of_stat(&st))
            .map_err(std::io::Error::from)
    }

    pub(super) fn kind(&self) -> Kind {
        kind_of_mode(self.mode)
    }
}

/// A file's kind from its `st_mode` (a u16 on macOS, a u32 on Linux).
#[allow(clippy::unnecessary_cast)]
pub(crate) fn kind_of_mode(mode: u32) -> Kind {
    use nix::libc;
    const FMT: u32 = libc::S_IFMT as u32;
    const REG: u32 = libc::S_IFREG as u32;
    const LNK: u32 = libc::S_IFLNK as u32;
    const DIR: u32 = libc::S_IFDIR as u32;
    match mode & FMT {
        REG => Kind::File,
        LNK => Kind::Symlink,
        DIR => Kind::Dir,
        _ => Kind::Other,
    }
}

/// When a snapshot started, by the wall clock (the one file times are stamped from).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Start(pub (i64, i64));

impl Start {
    pub(super) fn now() -> Start {
        let d = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        Start((d.as_secs() as i64, i64::from(d.subsec_nanos())))
    }

    /// Whether a path with this stat, read after this start, may be taken over by a later
    /// snapshot when its stat is the same then: both its times are older than the start by more
    /// than [`SETTLE_SECS`], so any later change gives it a newer ctime.
    pub(super) fn settled(&self, key: &StatKey) -> bool {
        self.settled_times(key.mtime, key.ctime)
    }

    /// [`Start::settled`] for a path's mtime and ctime (seconds, nanoseconds).
    pub(super) fn settled_times(&self, mtime: (i64, i64), ctime: (i64, i64)) -> bool {
        let limit = (self.0.0 - SETTLE_SECS, self.0.1);
        mtime < limit && ctime < limit
    }

    /// [`Start::settled`] for a ctime alone, in nanoseconds since the epoch (what an ACL or a
    /// capability set moves).
    pub(super) fn settled_ctime_ns(&self, ctime_ns: i64) -> bool {
        let limit = (self.0.0 - SETTLE_SECS)
            .saturating_mul(1_000_000_000)
            .saturating_add(self.0.1);
        ctime_ns < limit
    }
}

/// The sorted names and kinds of one directory, as read.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Listing {
    names: Vec<u8>,
    /// Start and end of each name in `names`, and its kind, sorted by name.
    spans: Vec<(u32, u32, Kind)>,
}

impl Listing {
    /// Read the open directory `dir`: every entry but `.` and `..`, sorted by name. An entry
    /// whose type the directory does not tell is `lstat`'ed. With `keep`, the directory is
    /// returned still open.
    pub(super) fn read(
        dir: std::os::fd::OwnedFd,
        keep: bool,
    ) -> std::io::Result<(Listing, Option<std::os::fd::OwnedFd>)> {
        let mut names = Vec::new();
        let mut spans = Vec::new();
        let mut unknown = Vec::new();
        entries(&dir, |name, kind| {
            if name == b"." || name == b".." {
                return;
            }
            if kind.is_none() {
                unknown.push(spans.len());
            }
            let start = names.len() as u32;
            names.extend_from_slice(name);
            spans.push((start, names.len() as u32, kind.unwrap_or(Kind::Other)));
        })?;
        for i in unknown {
            let (a, b, _) = spans[i];
            match StatKey::at(&dir, &names[a as usize..b as usize]) {
                Ok(k) => spans[i].2 = k.kind(),
                // Gone since it was listed.
                Err(_) => spans[i].1 = u32::MAX,
            }
        }
        spans.retain(|s| s.1 != u32::MAX);
        spans.sort_unstable_by(|a, b| {
            names[a.0 as usize..a.1 as usize].cmp(&names[b.0 as usize..b.1 as usize])
        });
        Ok((Listing { names, spans }, keep.then_some(dir)))
    }

    /// A listing from names and kinds as a memo kept them (`memo_listings.rs`): only when it is
    /// one [`Listing::read`] could have made — every name a single component (not empty, no
    /// `/` or NUL, not `.` or `..`), in strictly increasing order.
    pub(super) fn from_entries(entries: &[(&[u8], Kind)]) -> Option<Listing> {
        // Sized once: a memo holds a listing for every directory of the worktree.
        let mut names = Vec::with_capacity(entries.iter().map(|(n, _)| n.len()).sum());
        let mut spans: Vec<(u32, u32, Kind)> = Vec::with_capacity(entries.len());
        for &(name, kind) in entries {
            let single = !name.is_empty()
                && name != b"."
                && name != b".."
                && !name.iter().any(|b| *b == b'/' || *b == 0);
            let after = spans
                .last()
                .is_none_or(|&(a, b, _)| &names[a as usize..b as usize] < name);
            if !single || !after {
                return None;
            }
            let start = u32::try_from(names.len()).ok()?;
            names.extend_from_slice(name);
            spans.push((start, u32::try_from(names.len()).ok()?, kind));
        }
        Some(Listing { names, spans })
    }

    pub(super) fn len(&self) -> usize {
        self.spans.len()
    }

    /// The `i`-th entry in name order.
    pub(super) fn get(&self, i: usize) -> (&[u8], Kind) {
        let (a, b, k) = self.spans[i];
        (&self.names[a as usize..b as usize], k)
    }

    /// Whether an entry is named exactly `name`.
    pub(super) fn contains(&self, name: &[u8]) -> bool {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.get(mid).0.cmp(name) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Equal => return true,
                std::cmp::Ordering::Greater => hi = mid,
            }
        }
        false
    }

    pub(super) fn iter(&self) -> impl DoubleEndedIterator<Item = (&[u8], Kind)> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }
}

/// Each entry of the open directory `dir`, with its kind when the directory tells it: on Linux
/// straight from `getdents64` (one call per 32 KiB of entries, none of `fdopendir`'s extra
/// `fstat`, `fcntl` and `lseek`), elsewhere through `readdir`.
#[cfg(target_os = "linux")]
fn entries(
    dir: &std::os::fd::OwnedFd,
    mut each: impl FnMut(&[u8], Option<Kind>),
) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    thread_local! {
        static BUF: std::cell::RefCell<Vec<u8>> = std::cell::RefCell::new(vec![0u8; 32 * 1024]);
    }
    BUF.with_borrow_mut(|buf| getdents(dir.as_raw_fd(), buf, &mut each))
}

#[cfg(target_os = "linux")]
fn getdents(
    fd: std::os::fd::RawFd,
    buf: &mut [u8],
    each: &mut impl FnMut(&[u8], Option<Kind>),
) -> std::io::Result<()> {
    loop {
        // SAFETY: getdents64 writes at most `buf.len()` bytes into `buf`, which is valid,
        // writable memory of that length for the whole call, and reads no memory of ours;
        // `fd` is the caller's open directory (a closed one would only fail with EBADF). What
        // it wrote is then parsed as plain bytes with every length checked.
        let n = unsafe {
            nix::libc::syscall(nix::libc::SYS_getdents64, fd, buf.as_mut_ptr(), buf.len())
        };
        if n < 0 {
            return Err(std::io::Error::last_os_error());
        }
        let n = (n as usize).min(buf.len());
        if n == 0 {
            return Ok(());
        }
        let bad = || std::io::Error::new(std::io::ErrorKind::InvalidData, "bad directory entry");
        let mut at = 0;
        // struct linux_dirent64: d_ino u64, d_off i64, d_reclen u16, d_type u8, d_name[].
        while at < n {
            let rec = buf.get(at..n).ok_or_else(bad)?;
            let len = usize::from(u16::from_ne_bytes([
                *rec.get(16).ok_or_else(bad)?,
                *rec.get(17).ok_or_else(bad)?,
            ]));
            let rec = rec.get(..len).filter(|r| r.len() > 19).ok_or_else(bad)?;
            let name = &rec[19..];
            let name = &name[..name.iter().position(|b| *b == 0).ok_or_else(bad)?];
            let kind = match rec[18] {
                nix::libc::DT_REG => Some(Kind::File),
                nix::libc::DT_DIR => Some(Kind::Dir),
                nix::libc::DT_LNK => Some(Kind::Symlink),
                nix::libc::DT_UNKNOWN => None,
                _ => Some(Kind::Other),
            };
            each(name, kind);
            at += len;
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn entries(
    dir: &std::os::fd::OwnedFd,
    mut each: impl FnMut(&[u8], Option<Kind>),
) -> std::io::Result<()> {
    use nix::dir::{Dir, Type};
    let mut d = Dir::from_fd(dir.try_clone()?).map_err(std::io::Error::from)?;
    for entry in d.iter() {
        let entry = entry.map_err(std::io::Error::from)?;
        let kind = match entry.file_type() {
            Some(Type::File) => Some(Kind::File),
            Some(Type::Directory) => Some(Kind::Dir),
            Some(Type::Symlink) => Some(Kind::Symlink),
            Some(_) => Some(Kind::Other),
            None => None,
        };
        each(entry.file_name().to_bytes(), kind);
    }
    Ok(())
}

/// A content hash as read, and the stat of the file it was read from.
#[derive(Debug, Clone)]
pub(super) struct Hashed {
    pub key: StatKey,
    pub sha256: String,
    pub blob: Option<gix::ObjectId>,
}

/// What one snapshot of a repository read that the next may take over (only what was settled).
#[derive(Debug, Default)]
pub(super) struct Earlier {
    /// Directory listings by path relative to the worktree root (`""`: the root), with the stat
    /// of the directory they were read from.
    pub listings: HashMap<Vec<u8>, (StatKey, Arc<Listing>)>,
    /// Content hashes of dirty and untracked files, by path.
    pub hashes: HashMap<Vec<u8>, Hashed>,
    /// When that snapshot started: a tracked file whose stat still matches its index entry, and
    /// was settled by then, has had no ACL or capability set since (setting one moves the ctime).
    pub start: Option<Start>,
    /// The worktree paths that had ACLs or a file capability then, by path as recorded.
    pub xattrs: HashMap<Vec<u8>, Xattrs>,
    /// The inodes known to have neither (`memo.rs`): from the last run's memo for a first
    /// snapshot, else what the snapshot before found or took over.
    pub plain: Plain,
}

impl Earlier {
    /// The listing of `rel` when the directory's stat is still `key`.
    pub(super) fn listing(&self, rel: &[u8], key: &StatKey) -> Option<Arc<Listing>> {
        self.listings
            .get(rel)
            .filter(|(k, _)| k == key)
            .map(|(_, l)| l.clone())
    }

    /// The hash of `rel` when the file's stat is still `key` (and it has a blob id when one is
    /// wanted).
    pub(super) fn hash(&self, rel: &[u8], key: &StatKey, want_blob: bool) -> Option<&Hashed> {
        self.hashes
            .get(rel)
            .filter(|h| h.key == *key && (h.blob.is_some() || !want_blob))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> StatKey {
        StatKey {
            size: 10,
            mtime: (1000, 5),
            ctime: (1000, 7),
            ino: 42,
            dev: 3,
            mode: 0o100644,
            uid: 1000,
            gid: 1000,
        }
    }

    #[test]
    fn only_times_older_than_the_start_by_the_margin_are_settled() {
        let start = Start((1000 + SETTLE_SECS, 8));
        assert!(start.settled(&key()), "both times 2 s and more before");
        let mut k = key();
        k.mtime = (1000, 8);
        assert!(!start.settled(&k), "mtime exactly at the limit");
        let mut k = key();
        k.ctime = (1001, 0);
        assert!(!start.settled(&k), "a recent ctime (a touch -d) is racy");
        assert!(!Start((1000, 0)).settled(&key()), "newer than the start");
    }

    #[test]
    fn any_stat_field_that_differs_refuses_the_earlier_hash() {
        let mut earlier = Earlier::default();
        earlier.hashes.insert(
            b"f".to_vec(),
            Hashed {
                key: key(),
                sha256: "x".into(),
                blob: None,
            },
        );
        assert!(earlier.hash(b"f", &key(), false).is_some());
        assert!(
            earlier.hash(b"f", &key(), true).is_none(),
            "no blob id kept"
        );
        assert!(earlier.hash(b"g", &key(), false).is_none());
        let changes: [fn(&mut StatKey); 8] = [
            |k| k.size += 1,
            |k| k.mtime.1 += 1,
            |k| k.mtime.0 += 1,
            |k| k.ctime.1 += 1,
            |k| k.ino += 1,
            |k| k.dev += 1,
            |k| k.mode |= 0o100,
            |k| k.ctime.0 -= 1,
        ];
        for (i, change) in changes.iter().enumerate() {
            let mut k = key();
            change(&mut k);
            assert!(earlier.hash(b"f", &k, false).is_none(), "change {i}");
        }
    }

    /// A repository in a temporary directory with one untracked file, and its scope and env.
    fn repo() -> (
        tempfile::TempDir,
        super::super::GuardScope,
        super::super::metadata::UserEnv,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let ok = std::process::Command::new("git")
            .args(["init", "-q"])
            .current_dir(dir.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", dir.path())
            .status()
            .unwrap()
            .success();
        assert!(ok);
        std::fs::write(dir.path().join("u.txt"), "good!\n").unwrap();
        let scope = super::super::GuardScope {
            worktree: dir.path().canonicalize().unwrap(),
            exclude: Vec::new(),
            memo: None,
        };
        let env = super::super::metadata::UserEnv {
            home: Some(dir.path().to_path_buf()),
            xdg_config_home: None,
            git_config_global: None,
            git_config_system: None,
            system_lookup: None,
        };
        (dir, scope, env)
    }

    fn take_with(
        scope: &super::super::GuardScope,
        env: &super::super::metadata::UserEnv,
        earlier: &Arc<Earlier>,
    ) -> super::super::Snapshot {
        let refs = super::super::References {
            earlier: earlier.clone(),
            ..Default::default()
        };
        super::super::take::take(scope, env, refs, 0).unwrap()
    }

    fn untracked_sha(s: &super::super::Snapshot, name: &str) -> Option<String> {
        s.status
            .get(&super::super::RepoPath::new(name.as_bytes().to_vec()))
            .and_then(|st| st.sha256.clone())
    }

    /// A forged earlier hash shows which path a snapshot took: taken over while the file's
    /// whole stat is the recorded one, read again once an in-place rewrite of the same size with
    /// its mtime set back moved only the ctime.
    #[test]
    fn a_hash_is_taken_over_only_while_the_whole_stat_is_unchanged() {
        let (dir, scope, env) = repo();
        let path = dir.path().join("u.txt");
        let meta = std::fs::symlink_metadata(&path).unwrap();
        let mut earlier = Earlier::default();
        earlier.hashes.insert(
            b"u.txt".to_vec(),
            Hashed {
                key: StatKey::of(&meta),
                sha256: "forged".into(),
                blob: None,
            },
        );
        let earlier = Arc::new(earlier);
        let s = take_with(&scope, &env, &earlier);
        assert_eq!(untracked_sha(&s, "u.txt").as_deref(), Some("forged"));
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(&path, "evil!\n").unwrap();
        let mtime = filetime::FileTime::from_last_modification_time(&meta);
        filetime::set_file_mtime(&path, mtime).unwrap();
        let s = take_with(&scope, &env, &earlier);
        assert_eq!(
            untracked_sha(&s, "u.txt"),
            Some(super::super::files::sha256_hex(b"evil!\n"))
        );
    }

    /// The same for a directory listing: a forged entry is listed while the directory's stat
    /// is the recorded one, and gone once a file created in it moved its ctime (its mtime set
    /// back), the new file listed.
    #[test]
    fn a_listing_is_taken_over_only_while_the_directory_is_unchanged() {
        let (dir, scope, env) = repo();
        let meta = std::fs::symlink_metadata(dir.path()).unwrap();
        let mut names = Vec::new();
        let mut spans = Vec::new();
        for (name, kind) in [
            (&b".git"[..], Kind::Dir),
            (b"ghost.txt", Kind::File),
            (b"u.txt", Kind::File),
        ] {
            let start = names.len() as u32;
            names.extend_from_slice(name);
            spans.push((start, names.len() as u32, kind));
        }
        let mut earlier = Earlier::default();
        earlier.listings.insert(
            Vec::new(),
            (StatKey::of(&meta), Arc::new(Listing { names, spans })),
        );
        let earlier = Arc::new(earlier);
        let ghost = super::super::RepoPath::new(b"ghost.txt".to_vec());
        let s = take_with(&scope, &env, &earlier);
        assert!(s.status.contains_key(&ghost), "{:?}", s.status);
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(dir.path().join("new.txt"), "x").unwrap();
        let mtime = filetime::FileTime::from_last_modification_time(&meta);
        filetime::set_file_mtime(dir.path(), mtime).unwrap();
        let s = take_with(&scope, &env, &earlier);
        assert!(!s.status.contains_key(&ghost), "{:?}", s.status);
        assert!(
            s.status
                .contains_key(&super::super::RepoPath::new(b"new.txt".to_vec()))
        );
    }
}
