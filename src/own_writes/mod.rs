//! The one door for the tool's own writes into a repository: documents, `--clarify-into` files
//! and the local tier. A path is resolved one component at a time beneath the worktree, never
//! through a symbolic link in any component, never into a git directory, and a document never
//! gets an exec bit. `.git/info/exclude`, the one file the tool writes in git's directory, has
//! its own narrow door here ([`add_exclude_line`]).
//!
//! Not for: reading the repository (the guard and the subject do), the runner's own writes.

pub(crate) mod names;

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Component, Path, PathBuf};

use cap_fs_ext::{DirExt, FollowSymlinks, MetadataExt, OpenOptionsFollowExt, OpenOptionsSyncExt};
use cap_std::fs::{Dir, OpenOptions, OpenOptionsExt};

/// Why the tool will not write at a path: said to the person with the path.
#[derive(Debug)]
pub(crate) enum Refusal {
    /// A component is a symbolic link (never followed: the repository could aim it anywhere).
    Link(PathBuf),
    /// A component is a git directory (`.git` in any spelling, the common directory, or one
    /// that holds a repository's `HEAD`).
    GitDir(PathBuf),
    /// A component that must be a directory is a file (`README.md/x.md`).
    NotADirectory(PathBuf),
    /// The path itself is a directory.
    IsDirectory,
    /// The path is a FIFO, a socket or a device.
    NotAFile,
    /// The directory cannot take a new file (read-only, `/proc`, no permission).
    Unwritable(PathBuf, std::io::Error),
    /// Anything else the file system said.
    Io(PathBuf, std::io::Error),
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Link(p) => write!(
                f,
                "{} is a symbolic link, and the tool never writes through one",
                p.display()
            ),
            Refusal::GitDir(p) => write!(
                f,
                "{} is a git directory, where the tool never writes a document",
                p.display()
            ),
            Refusal::NotADirectory(p) => write!(f, "{} is a file, not a directory", p.display()),
            Refusal::IsDirectory => write!(f, "it is a directory; give the path of a file"),
            Refusal::NotAFile => write!(f, "it is not a regular file (a FIFO, socket or device)"),
            Refusal::Unwritable(p, e) => {
                write!(f, "no file can be written in {}: {e}", p.display())
            }
            Refusal::Io(p, e) => write!(f, "{}: {e}", p.display()),
        }
    }
}

/// Where the tool may write in one worktree.
#[derive(Debug, Clone)]
pub(crate) struct Beneath {
    worktree: PathBuf,
    /// The git common directory, as it is on the disk (`None` if it cannot be read).
    common_dir: Option<PathBuf>,
}

/// A file the tool may write: its directory, opened without following any link, and its name.
#[derive(Debug)]
pub(crate) struct Place {
    /// The whole path, as the person sees it.
    pub path: PathBuf,
    dir: Dir,
    name: OsString,
}

/// What a walk down a path's directories found.
enum Walked {
    /// Every directory is there: the last one, opened.
    Found(Dir),
    /// Some are missing (and their names are fine): the deepest one there is, opened.
    Missing(Dir, PathBuf),
}

/// What mode a written file gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// A document (or git's `info/exclude`): a new file the umask's mode, a rewritten one its
    /// own read and write bits; never an exec, setuid or sticky bit.
    Document,
}

impl Beneath {
    pub(crate) fn new(worktree: &Path, common_dir: &Path) -> Beneath {
        Beneath {
            worktree: worktree.to_path_buf(),
            common_dir: std::fs::canonicalize(common_dir).ok(),
        }
    }

    /// `path` (relative to the worktree, or absolute) as a place to write, with its missing
    /// directories made when `create`; nothing is written when not.
    pub(crate) fn place(&self, path: &Path, create: bool) -> Result<Place, Refusal> {
        let (start, shown, dirs, name) = self.split(path)?;
        let dir = match self.walk(start, shown, &dirs, create)? {
            Walked::Found(dir) => dir,
            Walked::Missing(_, at) => {
                return Err(Refusal::Io(
                    at,
                    std::io::Error::from(std::io::ErrorKind::NotFound),
                ));
            }
        };
        let place = Place {
            path: self.shown_path(path),
            dir,
            name,
        };
        place.refuse_non_file()?;
        Ok(place)
    }

    /// Whether a document can be written at `path`, checked without writing anything in the
    /// worktree: no link or git directory on the way, no file where a directory must be, the
    /// path not a directory or a FIFO.
    pub(crate) fn check(&self, path: &Path) -> Result<(), Refusal> {
        let (start, shown, dirs, name) = self.split(path)?;
        match self.walk(start, shown, &dirs, false)? {
            Walked::Found(dir) => Place {
                path: self.shown_path(path),
                dir,
                name,
            }
            .refuse_non_file(),
            Walked::Missing(..) => Ok(()),
        }
    }

    /// Whether the directory that would hold `path` (or its deepest existing ancestor) takes a
    /// new file: one is made there and removed at once. Only once the worktree's lock is held.
    pub(crate) fn probe(&self, path: &Path) -> Result<(), Refusal> {
        let (start, shown, dirs, _) = self.split(path)?;
        let (dir, at) = match self.walk(start, shown.clone(), &dirs, false)? {
            Walked::Found(dir) => (dir, dirs.iter().fold(shown, |p, d| p.join(d))),
            Walked::Missing(dir, at) => (dir, at.parent().map(Path::to_path_buf).unwrap_or(at)),
        };
        let name = temp_name("probe");
        let mut options = OpenOptions::new();
        options
            .write(true)
            .create_new(true)
            .follow(FollowSymlinks::No);
        match dir.open_with(&name, &options) {
            Ok(_) => {
                let _ = dir.remove_file(&name);
                Ok(())
            }
            Err(e) => Err(Refusal::Unwritable(at, e)),
        }
    }

    fn shown_path(&self, path: &Path) -> PathBuf {
        if path.is_absolute() {
            path.to_path_buf()
        } else {
            self.worktree.join(path)
        }
    }

    /// Where the walk starts (opened), that place's path, the directories below it, and the
    /// file's name. A path inside the worktree starts at the worktree; one outside it (only the
    /// person's own `--out`, as an interview.toml path is always relative) starts at the deepest
    /// directory of it that exists, whose own links are the person's to have made.
    fn split(&self, path: &Path) -> Result<(Dir, PathBuf, Vec<OsString>, OsString), Refusal> {
        let full = lexical(&self.shown_path(path));
        let name = match full.file_name() {
            Some(n) => n.to_os_string(),
            None => return Err(Refusal::IsDirectory),
        };
        let parent = full.parent().unwrap_or(Path::new("/"));
        if let Ok(rel) = parent.strip_prefix(&self.worktree) {
            let dirs = rel.iter().map(OsStr::to_os_string).collect();
            return Ok((self.open_worktree()?, self.worktree.clone(), dirs, name));
        }
        // A path that reaches the worktree through the person's own link (`~/src/repo`, a
        // link to it): from the first directory inside the worktree on, no link is followed.
        let mut prefix = PathBuf::new();
        let components: Vec<Component> = parent.components().collect();
        for (i, c) in components.iter().enumerate() {
            prefix.push(c);
            let Ok(real) = std::fs::canonicalize(&prefix) else {
                break;
            };
            if let Ok(rel) = real.strip_prefix(&self.worktree) {
                let dirs = rel
                    .iter()
                    .map(OsStr::to_os_string)
                    .chain(
                        components[i + 1..]
                            .iter()
                            .map(|c| c.as_os_str().to_os_string()),
                    )
                    .collect();
                return Ok((self.open_worktree()?, self.worktree.clone(), dirs, name));
            }
        }
        // Outside: the deepest existing ancestor, resolved as the person's system has it.
        let mut existing = parent.to_path_buf();
        let mut below: Vec<OsString> = Vec::new();
        while std::fs::symlink_metadata(&existing).is_err() {
            match (existing.file_name(), existing.parent()) {
                (Some(n), Some(p)) => {
                    below.insert(0, n.to_os_string());
                    existing = p.to_path_buf();
                }
                _ => break,
            }
        }
        let real =
            std::fs::canonicalize(&existing).map_err(|e| Refusal::Io(existing.clone(), e))?;
        if let Some(git) = real
            .ancestors()
            .find(|a| a.file_name().is_some_and(names::is_git_dir_name))
        {
            return Err(Refusal::GitDir(git.to_path_buf()));
        }
        if let Some(common) = &self.common_dir
            && real.starts_with(common)
        {
            return Err(Refusal::GitDir(common.clone()));
        }
        let dir =
            Dir::open_ambient_dir(&real, cap_std::ambient_authority()).map_err(|e| {
                match e.raw_os_error() {
                    Some(nix::libc::ENOTDIR) => Refusal::NotADirectory(existing.clone()),
                    _ => Refusal::Io(existing.clone(), e),
                }
            })?;
        if self.is_git_dir(&dir) {
            return Err(Refusal::GitDir(existing));
        }
        Ok((dir, existing, below, name))
    }

    fn open_worktree(&self) -> Result<Dir, Refusal> {
        Dir::open_ambient_dir(&self.worktree, cap_std::ambient_authority())
            .map_err(|e| Refusal::Io(self.worktree.clone(), e))
    }

    /// Down `dirs` from `dir` (at `at`), one component at a time, never through a link.
    fn walk(
        &self,
        mut dir: Dir,
        mut at: PathBuf,
        dirs: &[OsString],
        create: bool,
    ) -> Result<Walked, Refusal> {
        let mut missing: Option<(Dir, PathBuf)> = None;
        for component in dirs {
            at.push(component);
            if names::is_git_dir_name(component) {
                return Err(Refusal::GitDir(at));
            }
            if component == ".." || component == "." {
                return Err(Refusal::Io(
                    at,
                    std::io::Error::other("`.` and `..` are not followed here"),
                ));
            }
            if missing.is_some() {
                continue;
            }
            match dir.symlink_metadata(component) {
                Ok(m) if m.is_symlink() => return Err(Refusal::Link(at)),
                Ok(m) if m.is_dir() => {}
                Ok(_) => return Err(Refusal::NotADirectory(at)),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound && create => {
                    match dir.create_dir(component) {
                        Ok(()) => {}
                        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                        Err(e) => return Err(Refusal::Unwritable(at, e)),
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    missing = Some((
                        dir.try_clone().map_err(|e| Refusal::Io(at.clone(), e))?,
                        at.clone(),
                    ));
                    continue;
                }
                Err(e) => return Err(Refusal::Io(at, e)),
            }
            // A link put there since is refused by the open itself.
            dir = dir
                .open_dir_nofollow(component)
                .map_err(|e| match e.raw_os_error() {
                    Some(nix::libc::ELOOP) | Some(nix::libc::ENOTDIR) => Refusal::Link(at.clone()),
                    _ => Refusal::Io(at.clone(), e),
                })?;
            if self.is_git_dir(&dir) {
                return Err(Refusal::GitDir(at));
            }
        }
        Ok(match missing {
            Some((dir, at)) => Walked::Missing(dir, at),
            None => Walked::Found(dir),
        })
    }

    /// The common directory itself, or a directory laid out as a git directory (a `HEAD` file
    /// with `objects/` or a `commondir` file: a linked worktree's, or one under another name).
    fn is_git_dir(&self, dir: &Dir) -> bool {
        if let (Some(common), Ok(meta)) = (&self.common_dir, dir.dir_metadata())
            && std::fs::metadata(common).is_ok_and(|c| {
                std::os::unix::fs::MetadataExt::dev(&c) == meta.dev()
                    && std::os::unix::fs::MetadataExt::ino(&c) == meta.ino()
            })
        {
            return true;
        }
        let is = |name: &str, dir_wanted: bool| {
            dir.symlink_metadata(name)
                .is_ok_and(|m| if dir_wanted { m.is_dir() } else { m.is_file() })
        };
        is("HEAD", false) && (is("objects", true) || is("commondir", false))
    }
}

impl Place {
    /// Refuse a name that is there as anything but a regular file.
    fn refuse_non_file(&self) -> Result<(), Refusal> {
        match self.dir.symlink_metadata(&self.name) {
            Ok(m) if m.is_symlink() => Err(Refusal::Link(self.path.clone())),
            Ok(m) if m.is_dir() => Err(Refusal::IsDirectory),
            Ok(m) if !m.is_file() => Err(Refusal::NotAFile),
            Ok(_) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(Refusal::Io(self.path.clone(), e)),
        }
    }

    fn is_link(&self) -> bool {
        self.dir
            .symlink_metadata(&self.name)
            .is_ok_and(|m| m.is_symlink())
    }

    /// Whether something is there under the file's name.
    pub(crate) fn exists(&self) -> bool {
        self.dir.symlink_metadata(&self.name).is_ok()
    }

    /// The regular file there, at most `cap` bytes, never through a link, never blocking;
    /// `Ok(None)` when there is none.
    pub(crate) fn read(&self, cap: u64) -> std::io::Result<Option<Vec<u8>>> {
        use std::io::Read;
        let mut options = OpenOptions::new();
        options.read(true).follow(FollowSymlinks::No).nonblock(true);
        let file = match self.dir.open_with(&self.name, &options) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        if !file.metadata()?.is_file() {
            return Err(std::io::Error::other("not a regular file"));
        }
        let mut bytes = Vec::new();
        file.take(cap + 1).read_to_end(&mut bytes)?;
        if bytes.len() as u64 > cap {
            return Err(std::io::Error::other(format!("larger than {cap} bytes")));
        }
        Ok(Some(bytes))
    }

    /// Whether `other` is on the file system of this file's directory (a rename cannot cross).
    pub(crate) fn same_filesystem(&self, other: &Dir) -> bool {
        match (self.dir.dir_metadata(), other.dir_metadata()) {
            (Ok(a), Ok(b)) => a.dev() == b.dev(),
            _ => false,
        }
    }

    /// Write `bytes` here atomically and synced: made afresh as a temporary file (named
    /// `tmp_name`, else a fresh name) in `tmp_dir` when that is on the same file system (else
    /// beside the file), never through a link, then renamed into place after `before_rename`.
    pub(crate) fn write(
        &self,
        bytes: &[u8],
        mode: Mode,
        (tmp_dir, tmp_name): (Option<&Dir>, Option<&str>),
        before_rename: impl FnOnce(),
    ) -> std::io::Result<()> {
        let tmp_dir = tmp_dir
            .filter(|d| self.same_filesystem(d))
            .unwrap_or(&self.dir);
        let tmp_name = tmp_name.map_or_else(|| temp_name("write"), str::to_string);
        let mode = self.mode(mode);
        // What an earlier, killed write left under this very name is not kept.
        if tmp_dir
            .symlink_metadata(&tmp_name)
            .is_ok_and(|m| !m.is_dir())
        {
            tmp_dir.remove_file(&tmp_name)?;
        }
        let written = (|| {
            let mut options = OpenOptions::new();
            options
                .write(true)
                .create_new(true)
                .follow(FollowSymlinks::No)
                .mode(0o600);
            let mut file = tmp_dir.open_with(&tmp_name, &options)?.into_std();
            file.write_all(bytes)?;
            file.set_permissions(std::fs::Permissions::from_mode(mode))?;
            file.sync_all()?;
            before_rename();
            tmp_dir.rename(&tmp_name, &self.dir, &self.name)
        })();
        if written.is_err() {
            let _ = tmp_dir.remove_file(&tmp_name);
        }
        written?;
        if let Ok(d) = self.dir.try_clone() {
            let _ = d.into_std_file().sync_all();
        }
        Ok(())
    }

    /// The mode the file gets, as [`Mode`] says.
    fn mode(&self, mode: Mode) -> u32 {
        let existing = self
            .dir
            .symlink_metadata(&self.name)
            .ok()
            .filter(|m| m.is_file())
            .map(|m| cap_std::fs::PermissionsExt::mode(&m.permissions()));
        match (mode, existing) {
            (Mode::Document, Some(m)) => m & 0o666,
            (Mode::Document, None) => 0o666 & !crate::sys::umask(),
        }
    }
}

/// A temporary name no other run uses: `.tmp-interview-<what>-<pid>-<nanos>`.
fn temp_name(what: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!(".tmp-interview-{what}-{}-{nanos}", std::process::id())
}

/// `path` with `.` and `..` resolved by their names alone (no link is looked at).
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Add `line` (with `comment` above it) to `<common dir>/info/exclude` unless `covered` says a
/// line there already covers it: the one write of the tool in git's directory. `info/` and
/// `exclude` are never followed as links (a link there is refused, naming it).
pub(crate) fn add_exclude_line(
    common_dir: &Path,
    comment: &str,
    line: &str,
    covered: impl Fn(&str) -> bool,
) -> Result<(), Refusal> {
    let git = Dir::open_ambient_dir(common_dir, cap_std::ambient_authority())
        .map_err(|e| Refusal::Io(common_dir.to_path_buf(), e))?;
    let info_path = common_dir.join("info");
    match git.symlink_metadata("info") {
        Ok(m) if m.is_symlink() => return Err(Refusal::Link(info_path)),
        Ok(m) if !m.is_dir() => return Err(Refusal::NotADirectory(info_path)),
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => match git.create_dir("info") {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(Refusal::Unwritable(info_path, e)),
        },
        Err(e) => return Err(Refusal::Io(info_path, e)),
    }
    let info = git
        .open_dir_nofollow("info")
        .map_err(|_| Refusal::Link(info_path.clone()))?;
    let place = Place {
        path: info_path.join("exclude"),
        dir: info,
        name: OsString::from("exclude"),
    };
    if place.is_link() {
        // Read where the person's own link leads: enough when it already has the line.
        let linked = crate::input::read_regular(&place.path, 1 << 20, crate::input::Links::Follow)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default();
        return match linked.lines().any(|l| covered(l.trim())) {
            true => Ok(()),
            false => Err(Refusal::Link(place.path)),
        };
    }
    place.refuse_non_file()?;
    let existing = place
        .read(1 << 20)
        .map_err(|e| Refusal::Io(place.path.clone(), e))?
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    if existing.lines().any(|l| covered(l.trim())) {
        return Ok(());
    }
    let mut text = existing;
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(comment);
    text.push('\n');
    text.push_str(line);
    text.push('\n');
    place
        .write(text.as_bytes(), Mode::Document, (None, None), || {})
        .map_err(|e| Refusal::Io(place.path.clone(), e))
}

#[cfg(test)]
mod tests;
