//! What a turn leaves in the directories it could write: `out/` made harmless ([`settle`]), the
//! private TMPDIR and the state views removed ([`remove`]). Both walk by directory descriptor —
//! never by a full path, never through a link — so neither depth (past `PATH_MAX`) nor a mode
//! the runner set (a directory of mode 0111 or 0000) hides anything: a directory the runner
//! made unreadable is given `u+rwx` through its parent's descriptor before it is entered (it is
//! the runner's own, in a directory of the turn).

use std::ffi::{OsStr, OsString};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use nix::dir::Dir;
use nix::errno::Errno;
use nix::fcntl::{AT_FDCWD, AtFlags, OFlag, openat};
use nix::sys::stat::{FchmodatFlags, FileStat, Mode, fchmodat, fstat, fstatat};
use nix::unistd::{UnlinkatFlags, unlinkat};

/// Deeper than this, a directory in `out/` is removed whole rather than walked: the walk holds
/// one descriptor a level (the removal two, whatever the depth).
pub(crate) const MAX_DEPTH: usize = 256;

/// What no entry left in `out/` keeps: setuid, setgid, sticky, writable by group or others.
const STRIPPED: u32 = 0o7022;

/// What [`settle`] did that the person must hear of, paths relative to `out/`.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Settled {
    /// Removed, with what it was: device nodes, FIFOs, sockets, and a file that needed a mode
    /// change but has other links (changing it would change a file elsewhere).
    pub removed: Vec<(PathBuf, &'static str)>,
    /// Directories deeper than [`MAX_DEPTH`], removed with all they held.
    pub too_deep: Vec<PathBuf>,
    /// What could not be made harmless, and why.
    pub failed: Vec<(PathBuf, String)>,
}

/// What an entry is, from `lstat`.
enum Kind {
    Dir,
    File,
    Link,
    Special(&'static str),
}

fn kind(st: &FileStat) -> Kind {
    match st.st_mode & libc::S_IFMT {
        libc::S_IFDIR => Kind::Dir,
        libc::S_IFREG => Kind::File,
        libc::S_IFLNK => Kind::Link,
        libc::S_IFIFO => Kind::Special("a FIFO"),
        libc::S_IFSOCK => Kind::Special("a socket"),
        libc::S_IFCHR => Kind::Special("a character device"),
        libc::S_IFBLK => Kind::Special("a block device"),
        _ => Kind::Special("a special file"),
    }
}

#[allow(clippy::useless_conversion)] // mode_t is u16 on macOS
fn permissions(st: &FileStat) -> u32 {
    u32::from(st.st_mode) & 0o7777
}

/// A directory's identity, to check that `..` leads back where the walk came from.
fn identity(st: &FileStat) -> (u64, u64) {
    #[allow(clippy::unnecessary_cast)] // dev_t and ino_t differ in width between platforms
    (st.st_dev as u64, st.st_ino as u64)
}

fn lstat_at(dir: BorrowedFd, name: &OsStr) -> nix::Result<FileStat> {
    fstatat(dir, name, AtFlags::AT_SYMLINK_NOFOLLOW)
}

/// Set the mode of `name` in `dir`, never through a link (the entry was just seen not to be
/// one). Where the C library cannot change a mode without following (`EOPNOTSUPP`: no
/// `fchmodat2`, no `/proc`), by its name: the runner and all it started are gone by now.
fn chmod_at(dir: BorrowedFd, name: &OsStr, mode: u32) -> nix::Result<()> {
    #[allow(clippy::unnecessary_cast)] // mode_t is u16 on macOS
    let mode = Mode::from_bits_truncate(mode as libc::mode_t);
    match fchmodat(dir, name, mode, FchmodatFlags::NoFollowSymlink) {
        Err(Errno::EOPNOTSUPP | Errno::ENOSYS) => {
            fchmodat(dir, name, mode, FchmodatFlags::FollowSymlink)
        }
        done => done,
    }
}

/// Open the directory `name` in `dir` to walk it; a link or anything else is refused.
fn open_dir(dir: BorrowedFd, name: &OsStr) -> nix::Result<OwnedFd> {
    openat(
        dir,
        name,
        OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC,
        Mode::empty(),
    )
}

/// The names in the directory open as `dir` (without `.` and `..`).
fn names(dir: BorrowedFd) -> nix::Result<Vec<OsString>> {
    let mut listing = Dir::openat(
        dir,
        ".",
        OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC,
        Mode::empty(),
    )?;
    let mut names = Vec::new();
    for entry in listing.iter() {
        let name = entry?.file_name().to_bytes().to_vec();
        if name != b"." && name != b".." {
            names.push(OsString::from(OsStr::from_bytes(&name)));
        }
    }
    Ok(names)
}

/// Make `out/` (`root`, the tool's own directory) and everything the runner left in it harmless:
/// no setuid, setgid or sticky bit and nothing writable by group or others, at any depth;
/// directories keep `u+rwx` so the walk (and the person) can enter them; device nodes, FIFOs and
/// sockets are removed. Links are left as they are, never followed: a link carries no mode of
/// its own, and whatever reads `out/` later opens only what it expects there.
pub(crate) fn settle(root: &Path) -> Settled {
    let mut settled = Settled::default();
    let Ok(st) = fstatat(AT_FDCWD, root, AtFlags::AT_SYMLINK_NOFOLLOW) else {
        return settled;
    };
    if !matches!(kind(&st), Kind::Dir) {
        return settled;
    }
    let safe = (permissions(&st) & !STRIPPED) | 0o700;
    if safe != permissions(&st) {
        let _ = chmod_at(AT_FDCWD, root.as_os_str(), safe);
    }
    let Ok(top) = open_dir(AT_FDCWD, root.as_os_str()) else {
        settled
            .failed
            .push((PathBuf::new(), "cannot be opened".into()));
        return settled;
    };
    // One level a frame: its descriptor, its name, its subdirectories not yet walked.
    struct Frame {
        dir: OwnedFd,
        name: OsString,
        subdirs: Vec<OsString>,
    }
    let rel = |stack: &[Frame], name: &OsStr| -> PathBuf {
        stack
            .iter()
            .skip(1)
            .map(|f| f.name.as_os_str())
            .chain([name])
            .collect()
    };
    let subdirs = settle_entries(top.as_fd(), &PathBuf::new(), &mut settled);
    let mut stack = vec![Frame {
        dir: top,
        name: OsString::new(),
        subdirs,
    }];
    while let Some(frame) = stack.last_mut() {
        let Some(name) = frame.subdirs.pop() else {
            stack.pop();
            continue;
        };
        let parent = stack.last().map(|f| f.dir.as_fd()).expect("a frame");
        if stack.len() > MAX_DEPTH {
            let result = remove_at(parent, &name);
            let path = rel(&stack, &name);
            match result {
                Ok(()) => settled.too_deep.push(path),
                Err(e) => settled.failed.push((path, e.desc().into())),
            }
            continue;
        }
        let opened = open_dir(parent, &name);
        let path = rel(&stack, &name);
        match opened {
            Ok(dir) => {
                let subdirs = settle_entries(dir.as_fd(), &path, &mut settled);
                stack.push(Frame { dir, name, subdirs });
            }
            Err(e) => settled.failed.push((path, e.desc().into())),
        }
    }
    settled
}

/// Settle each entry of the directory open as `dir` (at `rel` in `out/`); returns the names of
/// its subdirectories, each already given `u+rwx` so it can be entered.
fn settle_entries(dir: BorrowedFd, rel: &Path, settled: &mut Settled) -> Vec<OsString> {
    let mut subdirs = Vec::new();
    let names = match names(dir) {
        Ok(names) => names,
        Err(e) => {
            settled.failed.push((rel.to_path_buf(), e.desc().into()));
            return subdirs;
        }
    };
    for name in names {
        let Ok(st) = lstat_at(dir, &name) else {
            continue;
        };
        let mode = permissions(&st);
        let done = match kind(&st) {
            Kind::Link => Ok(()),
            Kind::Dir => {
                let safe = (mode & !STRIPPED) | 0o700;
                let done = if safe != mode {
                    chmod_at(dir, &name, safe)
                } else {
                    Ok(())
                };
                subdirs.push(name.clone());
                done
            }
            Kind::File if mode & STRIPPED == 0 => Ok(()),
            // Another link to it may be outside out/: its mode is not ours to change.
            Kind::File if st.st_nlink > 1 => {
                unlinkat(dir, name.as_os_str(), UnlinkatFlags::NoRemoveDir).map(|()| {
                    settled
                        .removed
                        .push((rel.join(&name), "a file with other links"))
                })
            }
            Kind::File => chmod_at(dir, &name, mode & !STRIPPED),
            Kind::Special(what) => unlinkat(dir, name.as_os_str(), UnlinkatFlags::NoRemoveDir)
                .map(|()| settled.removed.push((rel.join(&name), what))),
        };
        if let Err(e) = done {
            settled.failed.push((rel.join(&name), e.desc().into()));
        }
    }
    subdirs
}

/// Remove `path` (a directory of the turn: the private TMPDIR, the state views) with everything
/// in it, whatever modes were left there.
pub(crate) fn remove(path: &Path) -> std::io::Result<()> {
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(std::io::Error::other("not a directory of the turn"));
    };
    let parent = open_dir(AT_FDCWD, parent.as_os_str())?;
    match remove_at(parent.as_fd(), name) {
        Err(Errno::ENOENT) => Ok(()),
        done => Ok(done?),
    }
}

/// Remove `name` in `parent` and everything below it: each directory is given `u+rwx` before it
/// is entered, nothing is followed through a link, and at most two descriptors are held whatever
/// the depth — the walk climbs back through `..`, checked to be the directory it came from.
fn remove_at(parent: BorrowedFd, name: &OsStr) -> nix::Result<()> {
    let st = lstat_at(parent, name)?;
    if !matches!(kind(&st), Kind::Dir) {
        return unlinkat(parent, name, UnlinkatFlags::NoRemoveDir);
    }
    // The directories from `name` down to the current one: name, identity, entries left.
    struct Level {
        name: OsString,
        id: (u64, u64),
        left: Vec<OsString>,
    }
    let enter = |at: BorrowedFd, name: &OsStr, st: &FileStat| -> nix::Result<(OwnedFd, Level)> {
        if permissions(st) & 0o700 != 0o700 {
            chmod_at(at, name, permissions(st) | 0o700)?;
        }
        let dir = open_dir(at, name)?;
        let id = identity(&fstat(&dir)?);
        let left = names(dir.as_fd())?;
        let level = Level {
            name: name.to_os_string(),
            id,
            left,
        };
        Ok((dir, level))
    };
    let (mut current, level) = enter(parent, name, &st)?;
    let mut chain = vec![level];
    while let Some(level) = chain.last_mut() {
        if let Some(entry) = level.left.pop() {
            let st = match lstat_at(current.as_fd(), &entry) {
                Err(Errno::ENOENT) => continue,
                st => st?,
            };
            if matches!(kind(&st), Kind::Dir) {
                let (dir, level) = enter(current.as_fd(), &entry, &st)?;
                chain.push(level);
                current = dir;
            } else {
                unlinkat(
                    current.as_fd(),
                    entry.as_os_str(),
                    UnlinkatFlags::NoRemoveDir,
                )?;
            }
            continue;
        }
        let done = chain.pop().expect("a level").name;
        let Some(up) = chain.last() else {
            drop(current);
            return unlinkat(parent, done.as_os_str(), UnlinkatFlags::RemoveDir);
        };
        let above = open_dir(current.as_fd(), OsStr::new(".."))?;
        if identity(&fstat(&above)?) != up.id {
            return Err(Errno::ESTALE); // moved while it was being removed
        }
        unlinkat(above.as_fd(), done.as_os_str(), UnlinkatFlags::RemoveDir)?;
        current = above;
    }
    Ok(())
}

/// [`settle`] each of the turn's writable directories (its `out/`); returns the lines to tell
/// the person.
pub(crate) fn settle_outputs(dirs: &[PathBuf]) -> Vec<String> {
    dirs.iter().flat_map(|dir| notes(&settle(dir))).collect()
}

/// The lines to tell the person after [`settle`]: one a kind of thing removed or left as it was,
/// naming at most a few paths (quoted: the runner chose them).
fn notes(settled: &Settled) -> Vec<String> {
    const SHOWN: usize = 5;
    let list = |paths: Vec<String>| -> String {
        let more = paths.len().saturating_sub(SHOWN);
        let mut shown: Vec<String> = paths.into_iter().take(SHOWN).collect();
        if more > 0 {
            shown.push(format!("and {more} more"));
        }
        shown.join(", ")
    };
    // Quoted as Rust quotes a string: every control, escape and bidi character shown escaped.
    let quoted = |p: &Path| {
        let text = p.to_string_lossy();
        let short: String = text.chars().take(60).collect();
        let cut = if short.len() < text.len() { "…" } else { "" };
        format!("{short:?}{cut}")
    };
    let mut lines = Vec::new();
    if !settled.removed.is_empty() {
        let named = settled
            .removed
            .iter()
            .map(|(p, what)| format!("{} ({what})", quoted(p)))
            .collect();
        lines.push(format!(
            "removed from out/ what the runner left there that may not stay: {}",
            list(named)
        ));
    }
    if !settled.too_deep.is_empty() {
        let named = settled.too_deep.iter().map(|p| quoted(p)).collect();
        lines.push(format!(
            "removed from out/ directories deeper than {MAX_DEPTH} levels, with all they held: {}",
            list(named)
        ));
    }
    if !settled.failed.is_empty() {
        let named = settled
            .failed
            .iter()
            .map(|(p, why)| format!("{} ({why})", quoted(p)))
            .collect();
        lines.push(format!(
            "could not make safe what the runner left in out/ (do not run it): {}",
            list(named)
        ));
    }
    lines
}

/// Whether the turn's writable directories hold more than `cap` bytes (allocated blocks, so a
/// sparse file counts as what it takes on disk) or more than [`MAX_ENTRIES`] entries; stops
/// counting as soon as either is passed. Links are not followed.
pub(crate) fn over_cap(dirs: &[PathBuf], cap: u64) -> bool {
    use std::os::unix::fs::MetadataExt;
    let mut bytes: u64 = 0;
    let mut entries: usize = 0;
    for dir in dirs {
        for entry in walkdir::WalkDir::new(dir)
            .follow_links(false)
            .into_iter()
            .flatten()
        {
            entries += 1;
            if let Ok(meta) = entry.metadata() {
                bytes = bytes.saturating_add(meta.blocks().saturating_mul(512));
            }
            if bytes > cap || entries > MAX_ENTRIES {
                return true;
            }
        }
    }
    false
}

/// The most entries a runner may leave in its writable directories.
pub(crate) const MAX_ENTRIES: usize = 100_000;

/// Remove everything in `dir` (whatever its modes), keeping `dir` itself.
pub(crate) fn empty(dir: &Path) {
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let _ = remove(&entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use nix::sys::stat::mkdirat;

    use super::*;

    fn mode(path: &Path) -> u32 {
        std::fs::symlink_metadata(path)
            .unwrap()
            .permissions()
            .mode()
            & 0o7777
    }

    fn chmod(path: &Path, mode: u32) {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    /// `levels` directories named `name` one in the other below `root`, made by descriptor (the
    /// path grows past PATH_MAX); returns the deepest, open.
    fn dig(root: &Path, name: &str, levels: usize) -> OwnedFd {
        let mut dir = open_dir(AT_FDCWD, root.as_os_str()).unwrap();
        for _ in 0..levels {
            mkdirat(dir.as_fd(), name, Mode::from_bits_truncate(0o755)).unwrap();
            dir = open_dir(dir.as_fd(), OsStr::new(name)).unwrap();
        }
        dir
    }

    /// A file with `mode` made by descriptor in `dir`.
    fn plant(dir: BorrowedFd, name: &str, mode: u32) {
        let fd = openat(
            dir,
            name,
            OFlag::O_WRONLY | OFlag::O_CREAT | OFlag::O_EXCL | OFlag::O_CLOEXEC,
            Mode::from_bits_truncate(0o600),
        )
        .unwrap();
        nix::sys::stat::fchmod(&fd, Mode::from_bits_truncate(mode as libc::mode_t)).unwrap();
    }

    fn mode_at(dir: BorrowedFd, name: &str) -> nix::Result<u32> {
        lstat_at(dir, OsStr::new(name)).map(|st| permissions(&st))
    }

    #[test]
    fn setuid_and_writable_by_others_bits_do_not_outlive_the_turn() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("sh");
        std::fs::write(&file, "x").unwrap();
        chmod(&file, 0o6777);
        chmod(dir.path(), 0o1777);
        assert_eq!(settle(dir.path()), Settled::default());
        assert_eq!(mode(&file), 0o755);
        assert_eq!(mode(dir.path()), 0o755);
    }

    #[test]
    fn a_setuid_file_deeper_than_path_max_loses_its_bit() {
        let dir = tempfile::tempdir().unwrap();
        // 40 levels of 200 bytes: 8000 bytes of path, past PATH_MAX (4096).
        let deep = dig(dir.path(), &"d".repeat(200), 40);
        plant(deep.as_fd(), "sh", 0o4755);
        assert_eq!(settle(dir.path()), Settled::default());
        assert_eq!(mode_at(deep.as_fd(), "sh").unwrap(), 0o755);
    }

    #[test]
    fn a_setuid_file_behind_a_directory_of_mode_0111_or_0000_loses_its_bit() {
        let dir = tempfile::tempdir().unwrap();
        for (name, hidden) in [("search-only", 0o111), ("closed", 0o000)] {
            let inner = dir.path().join(name).join("inner");
            std::fs::create_dir_all(&inner).unwrap();
            std::fs::write(inner.join("sh"), "x").unwrap();
            chmod(&inner.join("sh"), 0o4755);
            chmod(&inner, hidden);
            chmod(&dir.path().join(name), hidden);
        }
        assert_eq!(settle(dir.path()), Settled::default());
        for name in ["search-only", "closed"] {
            let inner = dir.path().join(name).join("inner");
            assert_eq!(mode(&inner.join("sh")), 0o755, "{name}");
            assert_eq!(mode(&inner) & 0o700, 0o700, "{name}: not entered");
        }
    }

    #[test]
    fn fifos_sockets_and_devices_are_removed_and_named() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        nix::unistd::mkfifo(&dir.path().join("sub/pipe"), Mode::S_IRWXU).unwrap();
        let _socket = std::os::unix::net::UnixListener::bind(dir.path().join("sock")).unwrap();
        let settled = settle(dir.path());
        let mut removed = settled.removed.clone();
        removed.sort();
        assert_eq!(
            removed,
            [
                (PathBuf::from("sock"), "a socket"),
                (PathBuf::from("sub/pipe"), "a FIFO"),
            ]
        );
        assert!(!dir.path().join("sock").exists() && !dir.path().join("sub/pipe").exists());
        let notes = notes(&settled);
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains("\"sub/pipe\" (a FIFO)"), "{notes:?}");
    }

    #[test]
    fn links_are_never_followed_nor_a_file_with_another_link_changed() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let victim = outside.path().join("victim");
        std::fs::write(&victim, "x").unwrap();
        chmod(&victim, 0o4777);
        let out = dir.path().join("out");
        std::fs::create_dir(&out).unwrap();
        std::os::unix::fs::symlink(&victim, out.join("link")).unwrap();
        std::os::unix::fs::symlink(outside.path(), out.join("dir-link")).unwrap();
        std::fs::hard_link(&victim, out.join("hard")).unwrap();
        let settled = settle(&out);
        assert_eq!(mode(&victim), 0o4777, "changed through a link");
        assert!(out.join("link").symlink_metadata().is_ok());
        assert!(!out.join("hard").exists());
        assert_eq!(
            settled.removed,
            [(PathBuf::from("hard"), "a file with other links")]
        );
    }

    #[test]
    fn a_tree_deeper_than_the_walk_goes_is_removed_whole_and_named() {
        let dir = tempfile::tempdir().unwrap();
        let deep = dig(dir.path(), "d", MAX_DEPTH + 5);
        plant(deep.as_fd(), "sh", 0o4755);
        let settled = settle(dir.path());
        let top = std::iter::repeat_n("d", MAX_DEPTH + 1).collect::<PathBuf>();
        assert_eq!(settled.too_deep, std::slice::from_ref(&top));
        assert!(!dir.path().join(&top).exists());
        assert!(dir.path().join(top.parent().unwrap()).is_dir());
        assert!(notes(&settled)[0].contains("deeper than 256 levels"));
    }

    #[test]
    fn a_temporary_directory_goes_whatever_modes_and_depth_were_left() {
        let base = tempfile::tempdir().unwrap();
        let tmp = base.path().join("interview-turn-x");
        std::fs::create_dir_all(tmp.join("ro/inner")).unwrap();
        std::fs::write(tmp.join("ro/inner/file"), "x").unwrap();
        std::fs::create_dir_all(tmp.join("closed/inner")).unwrap();
        let deep = dig(&tmp, &"d".repeat(200), 40);
        plant(deep.as_fd(), "file", 0o000);
        drop(deep);
        chmod(&tmp.join("ro/inner"), 0o555);
        chmod(&tmp.join("ro"), 0o555);
        chmod(&tmp.join("closed/inner"), 0o000);
        chmod(&tmp.join("closed"), 0o000);
        remove(&tmp).unwrap();
        assert!(!tmp.exists());
        assert_eq!(std::fs::read_dir(base.path()).unwrap().count(), 0);
    }
}
