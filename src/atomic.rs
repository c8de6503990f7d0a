//! Atomic file writes: a temporary file, then a rename, so a reader (or a killed process) never
//! sees half a file; synced to the disk when the write must survive a power loss
//! ([`Durability`]). Every state, answers, output and restored file goes through here.
//!
//! A new file gets the mode the umask gives (as any program's would); a rewritten file keeps its
//! own mode. The temporary file is made beside the target, or in a directory the caller names
//! (the local tier, so a kill never leaves one in a committed folder).

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// Whether a write is on the disk before the tool goes on: the one rule for every file the tool
/// writes (docs/architecture.md, "Durability").
///
/// Either way the file is replaced in one rename, so a reader or a killed process sees the old
/// file or the new one, whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Durability {
    /// The file's data, then its directory (the rename), are synced: a power loss right after
    /// leaves the new file. For what the person typed or decided, what a resume needs, and
    /// every file outside the local tier.
    Synced,
    /// Left to the kernel to write back (and to the next synced write in the same directory,
    /// whose directory sync covers this rename too). For what a resume redoes anyway: a turn's
    /// own files, a step inside a turn. A power loss may leave the previous file; on a file
    /// system that does not flush a file renamed over another (ext4 and btrfs do) possibly an
    /// empty one, which its reader reports as corrupt or truncated, naming it.
    Replaced,
}

impl Durability {
    /// What a session records: synced when a person types the answers; only renamed into place
    /// when they are replayed from an answers file, which still holds them (a crash is answered
    /// by replaying again). Files outside the local tier are synced either way.
    pub(crate) fn of_session(replayed: bool) -> Durability {
        if replayed {
            Durability::Replaced
        } else {
            Durability::Synced
        }
    }
}

/// Write `bytes` to `path` atomically and synced, with permission bits `mode` when given (else
/// the existing file's, else the umask's).
pub(crate) fn write_with_mode(path: &Path, bytes: &[u8], mode: Option<u32>) -> std::io::Result<()> {
    write_via(path, bytes, mode, None, Durability::Synced)
}

/// [`write_with_mode`] as `durability` says, with the temporary file made in `tmp_dir` when it
/// is on the same file system as `path` (beside `path` otherwise).
pub(crate) fn write_via(
    path: &Path,
    bytes: &[u8],
    mode: Option<u32>,
    tmp_dir: Option<&Path>,
    durability: Durability,
) -> std::io::Result<()> {
    let dir = parent_of(path);
    let mode = mode_for(path, mode);
    let tmp_in = tmp_dir.filter(|t| same_filesystem(t, dir)).unwrap_or(dir);
    let mut tmp = tempfile::Builder::new()
        .prefix(".tmp-")
        .tempfile_in(tmp_in)?;
    tmp.write_all(bytes)?;
    tmp.as_file()
        .set_permissions(std::fs::Permissions::from_mode(mode & 0o7777))?;
    if durability == Durability::Synced {
        tmp.as_file().sync_all()?;
    }
    tmp.persist(path).map_err(|e| e.error)?;
    if durability == Durability::Synced {
        sync_dir(dir);
    }
    Ok(())
}

/// Sync directory `dir`, so the renames and new names in it survive a power loss (best effort:
/// a file system that cannot sync a directory has nothing more to offer).
pub(crate) fn sync_dir(dir: &Path) {
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

/// The directory `path` is in (`.` for a bare name).
fn parent_of(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// The mode a write to `path` gives: `mode` when asked, else the mode of the regular file it
/// replaces, else a new file's (0666 less the umask).
fn mode_for(path: &Path, mode: Option<u32>) -> u32 {
    mode.unwrap_or_else(|| match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_file() => meta.permissions().mode(),
        _ => 0o666 & !crate::sys::umask(),
    })
}

fn same_filesystem(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_file_gets_the_umask_mode_and_a_rewritten_one_keeps_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let new = dir.path().join("new.md");
        write_with_mode(&new, b"x", None).unwrap();
        let mode = std::fs::metadata(&new).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o666 & !crate::sys::umask());
        let exec = dir.path().join("spec.md");
        std::fs::write(&exec, b"old").unwrap();
        std::fs::set_permissions(&exec, std::fs::Permissions::from_mode(0o755)).unwrap();
        write_with_mode(&exec, b"new", None).unwrap();
        let mode = std::fs::metadata(&exec).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o755);
    }

    #[test]
    fn the_temporary_file_can_live_in_another_directory() {
        let dir = tempfile::tempdir().unwrap();
        let tmp = dir.path().join("tier");
        std::fs::create_dir(&tmp).unwrap();
        let target = dir.path().join("docs.md");
        write_via(&target, b"doc", None, Some(&tmp), Durability::Synced).unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"doc");
        assert_eq!(std::fs::read_dir(&tmp).unwrap().count(), 0);
    }
}
