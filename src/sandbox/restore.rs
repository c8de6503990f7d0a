//! The CLI's configuration files where its state has no throwaway view (no mount namespace:
//! Landlock alone, Seatbelt): each is read before the turn and put back after it when the turn
//! changed it, or removed when the turn made it. A hook or an MCP server planted there would run
//! at the person's next start of the CLI, a model provider's `base_url` would widen the allowed
//! hosts of the next run.
//!
//! Not for: the throwaway views (state.rs), the CLI's login (state.rs `write_back`).

use std::io::{Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// A configuration file larger than this is not read, and so cannot be put back (they are a
/// few KiB; `~/.claude.json` grows with the projects it has seen).
const CAP: u64 = 64 << 20;

/// What one configuration file was before the turn, or is after it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Found {
    Absent,
    File {
        bytes: Vec<u8>,
        mode: u32,
        owner: (u32, u32),
    },
    Link(PathBuf),
    /// Anything else (a directory, a FIFO, a file past [`CAP`]): left as it is.
    Other,
}

/// The configuration files of the CLI as they were before a turn.
#[derive(Debug, Default)]
pub(crate) struct Saved {
    files: Vec<(PathBuf, Found)>,
}

impl Saved {
    /// Read `paths` (real paths of their directories; the files need not exist), never through
    /// a link. Returns the files it cannot put back after the turn, one line each.
    pub(crate) fn take(paths: &[PathBuf]) -> (Saved, Vec<String>) {
        let mut problems = Vec::new();
        let files = paths
            .iter()
            .map(|path| {
                let found = find(path);
                if found == Found::Other {
                    problems.push(format!(
                        "{} is not a regular file of at most {} MiB: what the runner writes there outlives the turn",
                        path.display(),
                        CAP >> 20
                    ));
                }
                (path.clone(), found)
            })
            .collect();
        (Saved { files }, problems)
    }

    /// After the turn, once the runner and all it started are gone: put back each file the turn
    /// changed (its content, mode, a link in its place) and remove each it made. Returns the
    /// one line that says what was put back, if anything was.
    pub(crate) fn put_back(&self) -> Option<String> {
        let mut said = Vec::new();
        for (path, before) in &self.files {
            if *before == Found::Other {
                continue;
            }
            let now = find(path);
            if now == *before {
                continue;
            }
            let done = match before {
                Found::Absent => remove(path, &now).map(|()| "removed: not there before the turn"),
                _ => replace(path, before, &now).map(|()| "put back"),
            };
            said.push(match done {
                Ok(what) => format!("{} ({what})", path.display()),
                Err(e) => format!(
                    "{} (changed, and could not be put back: {e})",
                    path.display()
                ),
            });
        }
        (!said.is_empty()).then(|| {
            format!(
                "interview: the runner changed its CLI's configuration, which no mount namespace keeps from outliving the turn here: {}",
                said.join(", ")
            )
        })
    }
}

/// What `path` is now, read without following a link.
fn find(path: &Path) -> Found {
    let meta = match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Found::Absent,
        Err(_) => return Found::Other,
        Ok(meta) => meta,
    };
    if meta.file_type().is_symlink() {
        return std::fs::read_link(path).map_or(Found::Other, Found::Link);
    }
    if !meta.is_file() || meta.len() > CAP {
        return Found::Other;
    }
    let read = || -> std::io::Result<Found> {
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(path)?;
        let meta = file.metadata()?;
        if !meta.is_file() {
            return Ok(Found::Other);
        }
        let mut bytes = Vec::new();
        (&mut file).take(CAP + 1).read_to_end(&mut bytes)?;
        if bytes.len() as u64 > CAP {
            return Ok(Found::Other);
        }
        Ok(Found::File {
            bytes,
            mode: meta.mode() & 0o7777,
            owner: (meta.uid(), meta.gid()),
        })
    };
    read().unwrap_or(Found::Other)
}

/// Remove what the turn made at `path` (`now`): a file or a link itself, a directory with all
/// it holds (by descriptor, leftovers.rs).
fn remove(path: &Path, now: &Found) -> std::io::Result<()> {
    match now {
        Found::Other if std::fs::symlink_metadata(path)?.is_dir() => super::leftovers::remove(path),
        _ => std::fs::remove_file(path),
    }
}

/// Put `before` back at `path`: a new file (or link) beside it, never following a link, with
/// the original mode (and owner, where the tool may set it), synced, renamed over what is there.
fn replace(path: &Path, before: &Found, now: &Found) -> std::io::Result<()> {
    let (parent, name) = match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) => (parent, name),
        _ => return Err(std::io::Error::other("no parent directory")),
    };
    if !std::fs::symlink_metadata(parent)?.is_dir() {
        return Err(std::io::Error::other(format!(
            "{} is no longer a plain directory",
            parent.display()
        )));
    }
    let temp = parent.join(format!(
        ".{}.interview-{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    let _ = std::fs::remove_file(&temp);
    let made = match before {
        Found::File { bytes, mode, owner } => write_new(&temp, bytes, *mode, *owner),
        Found::Link(target) => std::os::unix::fs::symlink(target, &temp),
        Found::Absent | Found::Other => return Ok(()),
    };
    let renamed = made.and_then(|()| {
        // A rename cannot replace a directory by a file: the directory made in its place goes.
        if matches!(now, Found::Other) && std::fs::symlink_metadata(path)?.is_dir() {
            super::leftovers::remove(path)?;
        }
        std::fs::rename(&temp, path)
    });
    if renamed.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    renamed?;
    if let Ok(dir) = std::fs::File::open(parent) {
        let _ = dir.sync_all();
    }
    Ok(())
}

/// A new file at `path` (none may be there, not even a link) holding `bytes`, with `mode` and
/// `owner` (as root; otherwise it is the tool's user's, as the file it replaces was).
fn write_new(path: &Path, bytes: &[u8], mode: u32, owner: (u32, u32)) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)?;
    file.write_all(bytes)?;
    let meta = file.metadata()?;
    if (meta.uid(), meta.gid()) != owner {
        let _ = std::os::unix::fs::fchown(&file, Some(owner.0), Some(owner.1));
    }
    file.set_permissions(std::fs::Permissions::from_mode(mode))?;
    file.sync_all()
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn a_changed_file_is_put_back_with_its_mode_and_a_new_one_removed() {
        let dir = tempfile::tempdir().unwrap();
        let (config, made) = (dir.path().join("config.toml"), dir.path().join("new.json"));
        std::fs::write(&config, "model = \"x\"\n").unwrap();
        std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o640)).unwrap();
        let (saved, problems) = Saved::take(&[config.clone(), made.clone()]);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(saved.put_back(), None, "nothing changed, nothing said");
        std::fs::write(&config, "[p]\nbase_url = \"http://127.0.0.1:7778\"\n").unwrap();
        std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o666)).unwrap();
        std::fs::write(&made, "{\"hooks\":{}}").unwrap();
        let said = saved.put_back().expect("said");
        assert_eq!(std::fs::read_to_string(&config).unwrap(), "model = \"x\"\n");
        let mode = std::fs::metadata(&config).unwrap().permissions().mode();
        assert_eq!(mode & 0o7777, 0o640);
        assert!(!made.exists());
        assert_eq!(said.lines().count(), 1, "{said}");
        assert!(said.contains("config.toml (put back)"), "{said}");
        assert!(
            said.contains("new.json (removed: not there before the turn)"),
            "{said}"
        );
        let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(leftovers.len(), 1, "{leftovers:?}");
    }

    #[test]
    fn a_link_put_in_a_files_place_is_replaced_never_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let (config, victim) = (dir.path().join("settings.json"), dir.path().join("victim"));
        std::fs::write(&config, "{}").unwrap();
        std::fs::write(&victim, "keep").unwrap();
        let (saved, _) = Saved::take(std::slice::from_ref(&config));
        std::fs::remove_file(&config).unwrap();
        std::os::unix::fs::symlink(&victim, &config).unwrap();
        assert!(saved.put_back().is_some());
        assert!(!std::fs::symlink_metadata(&config).unwrap().is_symlink());
        assert_eq!(std::fs::read_to_string(&config).unwrap(), "{}");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
    }

    #[test]
    fn a_directory_made_in_a_files_place_is_removed() {
        let dir = tempfile::tempdir().unwrap();
        let (config, absent) = (dir.path().join("config.toml"), dir.path().join(".env"));
        std::fs::write(&config, "a").unwrap();
        let (saved, _) = Saved::take(&[config.clone(), absent.clone()]);
        std::fs::remove_file(&config).unwrap();
        for d in [&config, &absent] {
            std::fs::create_dir_all(d.join("deep")).unwrap();
            std::fs::write(d.join("deep/x"), "x").unwrap();
        }
        saved.put_back().expect("said");
        assert_eq!(std::fs::read_to_string(&config).unwrap(), "a");
        assert!(!absent.exists());
    }
}
