//! Where a worktree's git directories are, found by reading `.git`, `commondir` and `gitdir`
//! files directly: this runs before gix (or anything else) reads the repository.

use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::GuardError;

/// The directories of one worktree.
#[derive(Debug, Clone)]
pub(crate) struct Layout {
    /// The worktree root.
    pub worktree: PathBuf,
    /// `<worktree>/.git`, a directory or (linked worktree, submodule) a `gitdir:` file.
    pub dot_git: PathBuf,
    /// The per-worktree git directory (`HEAD`, `index`).
    pub git_dir: PathBuf,
    /// The directory shared by all worktrees (`config`, `refs`, `objects`, `hooks`).
    pub common_dir: PathBuf,
}

impl Layout {
    /// Find the repository containing `start` (itself or its nearest ancestor with a `.git`).
    pub(crate) fn locate(start: &Path) -> Result<Layout, GuardError> {
        let start = fs::canonicalize(start).map_err(|e| GuardError::Io {
            what: format!("cannot open the worktree {}", start.display()),
            source: e,
        })?;
        let mut dir = start.as_path();
        loop {
            let dot_git = dir.join(".git");
            if let Ok(meta) = fs::symlink_metadata(&dot_git) {
                let git_dir = if meta.is_dir() {
                    dot_git.clone()
                } else {
                    read_gitdir_file(&dot_git)?
                };
                let common_dir = read_pointer(&git_dir.join("commondir"), &git_dir)
                    .unwrap_or_else(|| git_dir.clone());
                return Ok(Layout {
                    worktree: dir.to_path_buf(),
                    dot_git,
                    git_dir,
                    common_dir,
                });
            }
            match dir.parent() {
                Some(parent) => dir = parent,
                None => {
                    return Err(GuardError::NotARepository { path: start });
                }
            }
        }
    }

    /// Whether this worktree's `.git` is a `gitdir:` file (linked worktree or submodule).
    pub(crate) fn dot_git_is_file(&self) -> bool {
        self.dot_git != self.git_dir
    }
}

/// Read a `.git` file (`gitdir: <path>`), resolving a relative path against its directory.
fn read_gitdir_file(dot_git: &Path) -> Result<PathBuf, GuardError> {
    let base = dot_git.parent().unwrap_or(Path::new("/"));
    let bytes = super::files::read_small(dot_git, 64 * 1024).map_err(|e| GuardError::Io {
        what: format!("cannot read {}", dot_git.display()),
        source: e,
    })?;
    let text = trim_line(&bytes);
    match text.strip_prefix(b"gitdir:") {
        Some(rest) => Ok(base.join(Path::new(std::ffi::OsStr::from_bytes(trim_ascii(rest))))),
        None => Err(GuardError::BadGitFile {
            path: dot_git.to_path_buf(),
        }),
    }
}

/// Read a file holding one path (`commondir`, `gitdir`), relative to `base` when not absolute.
pub(super) fn read_pointer(file: &Path, base: &Path) -> Option<PathBuf> {
    let bytes = super::files::read_small(file, 64 * 1024).ok()?;
    let line = trim_line(&bytes);
    if line.is_empty() {
        return None;
    }
    Some(base.join(Path::new(std::ffi::OsStr::from_bytes(line))))
}

/// The HEAD commit of the repository whose `.git` (dir or file) is at `dot_git`, resolved by
/// reading files only; `None` when it cannot be resolved (unborn, uninitialised, broken).
pub(super) fn nested_head(dot_git: &Path) -> Option<String> {
    let meta = fs::symlink_metadata(dot_git).ok()?;
    let git_dir = if meta.is_dir() {
        dot_git.to_path_buf()
    } else if meta.is_file() {
        read_gitdir_file(dot_git).ok()?
    } else {
        return None;
    };
    let common = read_pointer(&git_dir.join("commondir"), &git_dir).unwrap_or(git_dir.clone());
    let mut target =
        trim_line(&super::files::read_small(&git_dir.join("HEAD"), 4096).ok()?).to_vec();
    // Follow a short chain of symbolic refs (`ref: refs/heads/main`).
    for _ in 0..5 {
        let Some(name) = target.strip_prefix(b"ref:") else {
            return is_hex_oid(&target).then(|| String::from_utf8_lossy(&target).into_owned());
        };
        let name = trim_ascii(name).to_vec();
        if name
            .split(|b| *b == b'/')
            .any(|c| c == b".." || c.is_empty())
        {
            return None;
        }
        let rel = Path::new(std::ffi::OsStr::from_bytes(&name));
        let loose = [git_dir.join(rel), common.join(rel)]
            .into_iter()
            .find_map(|p| super::files::read_small(&p, 4096).ok());
        target = match loose {
            Some(bytes) => trim_line(&bytes).to_vec(),
            None => packed_ref(&common, &name)?,
        };
    }
    None
}

fn packed_ref(common: &Path, name: &[u8]) -> Option<Vec<u8>> {
    let bytes = super::files::read_small(&common.join("packed-refs"), 64 * 1024 * 1024).ok()?;
    bytes.split(|b| *b == b'\n').find_map(|line| {
        let (oid, rest) = line.split_at(line.iter().position(|b| *b == b' ')?);
        (trim_ascii(rest) == name).then(|| oid.to_vec())
    })
}

fn is_hex_oid(s: &[u8]) -> bool {
    (s.len() == 40 || s.len() == 64) && s.iter().all(|b| b.is_ascii_hexdigit())
}

/// The first line, without its line ending.
pub(super) fn trim_line(bytes: &[u8]) -> &[u8] {
    let line = bytes.split(|b| *b == b'\n').next().unwrap_or(&[]);
    line.strip_suffix(b"\r").unwrap_or(line)
}

fn trim_ascii(bytes: &[u8]) -> &[u8] {
    bytes.trim_ascii()
}
