//! The directory of the tracked entries being checked, kept open as the walk goes through the
//! index's sorted paths (`tracked.rs`), opened one component at a time without following a link.

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};

/// A path component that names an entry of its directory (not itself, not its parent: an index
/// can be written by anyone, and must not lead out of the worktree).
pub(super) fn is_name(c: &[u8]) -> bool {
    !c.is_empty() && c != b"." && c != b".."
}

/// The directory of the tracked entries being checked, opened one component at a time, each
/// without following a link, and kept open with the directories above it: entries come sorted
/// by path, so the next directory is opened from the one it shares the most with, and every
/// stat is a single-component lookup. A directory on the way replaced by a link (even to a
/// directory holding the same files) makes every file below it deleted, as git sees it.
#[derive(Default)]
pub(super) struct OpenDir {
    /// The path of the open directory, relative to the root.
    path: Vec<u8>,
    /// For each component of `path`: where it ends in `path`, and the directory open there
    /// (`None`: it could not be opened as a directory, nor anything below it).
    open: Vec<(usize, Option<OwnedFd>)>,
}

impl OpenDir {
    /// The directory `rel` (`""`: the root), open, when every component of it is a directory.
    pub(super) fn open<'a>(
        &'a mut self,
        root: BorrowedFd<'a>,
        rel: &[u8],
    ) -> Option<BorrowedFd<'a>> {
        if rel.is_empty() {
            return Some(root);
        }
        if self.path != rel {
            let kept = self.open.iter().take_while(|(end, _)| {
                rel.get(..*end) == self.path.get(..*end)
                    && matches!(rel.get(*end), None | Some(b'/'))
            });
            let kept = kept.count();
            self.open.truncate(kept);
            self.path.clear();
            self.path.extend_from_slice(rel);
            let mut start = self.open.last().map_or(0, |(end, _)| end + 1);
            while start <= rel.len() {
                let end = rel[start..]
                    .iter()
                    .position(|b| *b == b'/')
                    .map_or(rel.len(), |i| start + i);
                let base = match self.open.last() {
                    None => Some(root),
                    Some((_, fd)) => fd.as_ref().map(|fd| fd.as_fd()),
                };
                let fd = base.and_then(|base| open_component(base, &rel[start..end]));
                self.open.push((end, fd));
                start = end + 1;
            }
        }
        self.open
            .last()
            .and_then(|(_, fd)| fd.as_ref())
            .map(|fd| fd.as_fd())
    }
}

/// The directory `name` in `dir`, never through a link.
fn open_component(dir: BorrowedFd<'_>, name: &[u8]) -> Option<OwnedFd> {
    use nix::fcntl::OFlag;
    if !is_name(name) {
        return None;
    }
    let flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC;
    // Only ever a base for `*at` calls: on Linux opened as a path, which neither reads the
    // directory nor tells anyone watching it that it was opened, and closes for less.
    #[cfg(target_os = "linux")]
    let flags = flags | OFlag::O_PATH;
    nix::fcntl::openat(dir, name, flags, nix::sys::stat::Mode::empty()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn root_with(dirs: &[&str]) -> (tempfile::TempDir, fs::File) {
        let root = tempfile::tempdir().unwrap();
        for d in dirs {
            fs::create_dir_all(root.path().join(d)).unwrap();
        }
        let fd = fs::File::open(root.path()).unwrap();
        (root, fd)
    }

    fn ino(fd: BorrowedFd<'_>) -> u64 {
        nix::sys::stat::fstat(fd).unwrap().st_ino
    }

    #[test]
    fn each_directory_is_the_one_at_its_path_as_the_cursor_moves() {
        let (root, root_fd) = root_with(&["a/b/c", "a/d", "e"]);
        let mut dir = OpenDir::default();
        for rel in ["a/b/c", "a/b", "a/d", "a", "e", "a/b/c", ""] {
            let expected = fs::metadata(root.path().join(rel)).unwrap();
            let fd = dir.open(root_fd.as_fd(), rel.as_bytes()).expect(rel);
            assert_eq!(
                ino(fd),
                std::os::unix::fs::MetadataExt::ino(&expected),
                "{rel}"
            );
        }
        assert!(dir.open(root_fd.as_fd(), b"a/missing/c").is_none());
        assert!(dir.open(root_fd.as_fd(), b"a/b").is_some());
    }

    #[test]
    fn no_link_is_followed_and_no_component_leads_out() {
        let (root, root_fd) = root_with(&["real/inner", "sub"]);
        std::os::unix::fs::symlink("real", root.path().join("link")).unwrap();
        std::os::unix::fs::symlink("../real", root.path().join("sub/up")).unwrap();
        let mut dir = OpenDir::default();
        for rel in [
            "link",
            "link/inner",
            "sub/up/inner",
            "sub/..",
            "..",
            "sub/../real",
            "./sub",
            "sub//x",
        ] {
            assert!(dir.open(root_fd.as_fd(), rel.as_bytes()).is_none(), "{rel}");
        }
        assert!(dir.open(root_fd.as_fd(), b"real/inner").is_some());
    }
}
