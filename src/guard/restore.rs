//! Copies of hooks, git metadata and the user's git config taken before a turn, and putting them
//! back (the "restore, then stop" answer to a guard violation).
//!
//! Layout of a copy directory: `manifest.json` and `files/<n>` (the bytes of regular files).
//!
//! Restore never follows a link: a file is only written or removed when every directory above
//! it is still the real directory it was when the copies were taken (a watched directory that
//! became a link is reported and left for the person), and nothing outside the repository is
//! ever removed (a user config file that appeared is reported, not deleted).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::fs;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::files::{self, Kind};
use super::hooks;
use super::layout::Layout;
use super::metadata::{self, UserEnv};
use super::path::RepoPath;
use super::{GuardError, GuardScope};

const MANIFEST: &str = "manifest.json";
const MANIFEST_LIMIT: u64 = 64 * 1024 * 1024;

#[derive(Debug, Serialize, Deserialize)]
struct Manifest {
    version: u32,
    items: Vec<Item>,
    /// Directories whose entries not in `items` are removed on restore (hooks, `info/`).
    watched: Vec<Watched>,
}

#[derive(Debug, Serialize, Deserialize)]
struct Item {
    /// The absolute path, hex-encoded bytes (exact even when not UTF-8).
    path_hex: String,
    /// `file`, `symlink` or `absent` (did not exist: removed on restore if it appears).
    kind: String,
    mode: u32,
    #[serde(default)]
    link_hex: Option<String>,
    /// The copy under `files/`.
    #[serde(default)]
    copy: Option<String>,
    #[serde(default)]
    sha256: Option<String>,
    /// Whether the path is inside the repository (worktree or git directories): only then may
    /// restore remove it.
    #[serde(default)]
    inside: bool,
    /// The real path of its directory when the copies were taken (hex), so a directory
    /// replaced by a link since is noticed.
    #[serde(default)]
    parent_real_hex: Option<String>,
}

#[derive(Debug, Serialize, Deserialize)]
struct Watched {
    path_hex: String,
    #[serde(default)]
    inside: bool,
    /// Its real path when the copies were taken (hex).
    #[serde(default)]
    real_hex: Option<String>,
}

/// What a restore did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct RestoreSummary {
    /// Files written back (content, mode or link target had changed, or they were deleted).
    pub restored: Vec<RepoPath>,
    /// Files that did not exist before the turn and were removed.
    pub removed: Vec<RepoPath>,
    /// Files that were already as before.
    pub unchanged: usize,
    /// Files that could not be put back, with why.
    pub failed: Vec<(RepoPath, String)>,
}

impl fmt::Display for RestoreSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "restored {} file(s), removed {} new file(s), {} unchanged",
            self.restored.len(),
            self.removed.len(),
            self.unchanged
        )?;
        for p in &self.restored {
            writeln!(f, "  ~ {p}")?;
        }
        for p in &self.removed {
            writeln!(f, "  - {p}")?;
        }
        for (p, why) in &self.failed {
            writeln!(f, "  ! {p}: {why}")?;
        }
        Ok(())
    }
}

fn hex_path(p: &Path) -> String {
    files::hex(p.as_os_str().as_bytes())
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

fn path_of(hex: &str) -> Option<PathBuf> {
    unhex(hex).map(|b| PathBuf::from(std::ffi::OsString::from_vec(b)))
}

/// The files and directories covered by restore copies.
fn targets(layout: &Layout, env: &UserEnv) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let common = &layout.common_dir;
    let mut paths: Vec<PathBuf> = metadata::git_metadata_paths(layout)
        .into_iter()
        .map(|(_, p)| p)
        .collect();
    // Candidates that may not exist yet: a runner creating one is undone by removing it.
    paths.extend([
        common.join("config.worktree"),
        layout.git_dir.join("config.worktree"),
        common.join("shallow"),
        common.join("objects/info/alternates"),
    ]);
    let meta = metadata::git_metadata(layout);
    let repo_texts = metadata::repo_config_texts(layout, &meta);
    // The system config is not the person's to restore (and usually not writable).
    let user_env = UserEnv {
        git_config_system: None,
        system_lookup: None,
        ..env.clone()
    };
    paths.extend(metadata::user_config_paths(&user_env, &repo_texts));
    if let Some(home) = &env.home {
        paths.push(home.join(".gitconfig"));
    }
    paths.extend(env.git_config_global.clone());
    paths.extend(env.xdg_git("config"));
    let user = metadata::user_config(&user_env, layout, &meta);
    let hooks_dir = hooks::hooks_dir(layout, &meta, &user, env);
    let mut watched = vec![common.join("hooks"), hooks_dir, common.join("info")];
    watched.dedup();
    for dir in &watched[..watched.len() - 1] {
        if let Ok(entries) = fs::read_dir(dir) {
            paths.extend(entries.flatten().map(|e| e.path()));
        }
    }
    let mut seen = BTreeSet::new();
    paths.retain(|p| seen.insert(p.clone()));
    (paths, watched)
}

/// Whether `path` lies inside the repository: its worktree or its git directories.
fn inside(layout: &Layout, path: &Path) -> bool {
    [&layout.worktree, &layout.git_dir, &layout.common_dir]
        .iter()
        .any(|root| path.starts_with(root))
}

/// The real path of `path`'s directory, hex-encoded.
fn parent_real(path: &Path) -> Option<String> {
    fs::canonicalize(path.parent()?).ok().map(|p| hex_path(&p))
}

/// Why writing or removing `path` now could reach somewhere else: its directory does not
/// resolve to the same real directory as when the copies were taken (`recorded`; without one,
/// to itself), because a directory above it became a link or is gone.
fn redirected(path: &Path, recorded: Option<&str>) -> Option<String> {
    let parent = path.parent()?;
    let expected = recorded
        .and_then(path_of)
        .unwrap_or_else(|| parent.to_path_buf());
    match fs::canonicalize(parent) {
        Ok(real) if real == expected => None,
        Ok(real) => Some(format!(
            "{} now leads to {} (a link); left for you",
            parent.display(),
            real.display()
        )),
        Err(e) => Some(format!("{}: {e}; left for you", parent.display())),
    }
}

/// Copy hooks, git metadata and user git config into `dir` (created if needed).
pub fn save_restore_copies(scope: &GuardScope, dir: &Path) -> Result<(), GuardError> {
    save_restore_copies_after(scope, dir, None)
}

/// [`save_restore_copies`], linking a copy the turn before made in `earlier` (its restore
/// directory) where that copy, read again without following a link, still holds the very
/// bytes: a name costs less than a new file (on ext4 without a journal, far less), and nothing
/// else differs. A copy changed since is caught when it is restored, which checks each copy's
/// SHA-256 against the manifest.
pub fn save_restore_copies_after(
    scope: &GuardScope,
    dir: &Path,
    earlier: Option<&Path>,
) -> Result<(), GuardError> {
    let layout = Layout::locate(&scope.worktree)?;
    let env = UserEnv::from_process(&layout.worktree);
    let err = |message: String| GuardError::Restore {
        dir: dir.to_path_buf(),
        message,
    };
    let files_dir = dir.join("files");
    fs::create_dir_all(&files_dir).map_err(|e| err(format!("cannot create it: {e}")))?;
    let (paths, watched) = targets(&layout, &env);
    let earlier = earlier.map(earlier_copies).unwrap_or_default();
    let mut items = Vec::new();
    for (n, path) in paths.iter().enumerate() {
        let mut item = Item {
            path_hex: hex_path(path),
            kind: "absent".into(),
            mode: 0,
            link_hex: None,
            copy: None,
            sha256: None,
            inside: inside(&layout, path),
            parent_real_hex: parent_real(path),
        };
        if let Some(d) = files::digest(path, false) {
            item.mode = d.mode;
            match d.kind {
                Kind::File => {
                    let bytes = files::read_small(path, 64 * 1024 * 1024)
                        .map_err(|e| err(format!("cannot copy {}: {e}", path.display())))?;
                    let name = format!("{n}");
                    let sha256 = files::sha256_hex(&bytes);
                    let same = earlier
                        .get(&item.path_hex)
                        .filter(|(_, s)| *s == sha256)
                        .map(|(copy, _)| copy.as_path());
                    link_or_write(same, &files_dir.join(&name), &bytes).map_err(|e| {
                        err(format!("cannot write the copy of {}: {e}", path.display()))
                    })?;
                    item.kind = "file".into();
                    item.copy = Some(name);
                    item.sha256 = Some(sha256);
                }
                Kind::Symlink => {
                    item.kind = "symlink".into();
                    item.link_hex = d.link.as_ref().map(|l| files::hex(l.as_bytes()));
                }
                // Directories and special files are not restored; they are left to the person.
                Kind::Dir | Kind::Other => continue,
            }
        }
        items.push(item);
    }
    let manifest = Manifest {
        version: 1,
        items,
        watched: watched
            .iter()
            .map(|p| Watched {
                path_hex: hex_path(p),
                inside: inside(&layout, p),
                real_hex: fs::canonicalize(p).ok().map(|r| hex_path(&r)),
            })
            .collect(),
    };
    let json = serde_json::to_vec_pretty(&manifest).map_err(|e| err(e.to_string()))?;
    write_copy(&dir.join(MANIFEST), &json).map_err(|e| err(format!("cannot write {MANIFEST}: {e}")))
}

/// Put back what `save_restore_copies` copied into `dir`; files that appeared since in the
/// hooks directory or `info/` are removed.
pub fn restore(scope: &GuardScope, dir: &Path) -> Result<RestoreSummary, GuardError> {
    // Locating the repository again checks the scope is still a repository.
    let _ = Layout::locate(&scope.worktree)?;
    let err = |message: String| GuardError::Restore {
        dir: dir.to_path_buf(),
        message,
    };
    let bytes = files::read_small(&dir.join(MANIFEST), MANIFEST_LIMIT)
        .map_err(|e| err(format!("cannot read {MANIFEST}: {e}")))?;
    let manifest: Manifest = serde_json::from_slice(&bytes)
        .map_err(|e| err(format!("{MANIFEST} is not a restore manifest: {e}")))?;
    let mut summary = RestoreSummary::default();
    let mut known = BTreeSet::new();
    for item in &manifest.items {
        let Some(path) = path_of(&item.path_hex) else {
            summary.failed.push((
                RepoPath::new(item.path_hex.as_bytes()),
                "bad path in manifest".into(),
            ));
            continue;
        };
        known.insert(path.clone());
        let shown = RepoPath::from_path(&path);
        match restore_item(dir, item, &path) {
            Ok(Outcome::Unchanged) => summary.unchanged += 1,
            Ok(Outcome::Restored) => summary.restored.push(shown),
            Ok(Outcome::Removed) => summary.removed.push(shown),
            Err(why) => summary.failed.push((shown, why)),
        }
    }
    for w in &manifest.watched {
        let Some(wdir) = path_of(&w.path_hex) else {
            continue;
        };
        let shown = RepoPath::from_path(&wdir);
        match fs::symlink_metadata(&wdir) {
            Ok(m) if m.is_dir() => {}
            Ok(m) if m.file_type().is_symlink() => {
                let target = fs::read_link(&wdir)
                    .map(|t| t.display().to_string())
                    .unwrap_or_default();
                summary.failed.push((
                    shown,
                    format!("this directory is now a link to {target}; nothing in it was touched, the link is left for you"),
                ));
                continue;
            }
            _ => continue,
        }
        if !w.inside {
            continue;
        }
        if let Some(why) = redirected(&wdir.join("x"), w.real_hex.as_deref()) {
            summary.failed.push((shown, why));
            continue;
        }
        let Ok(entries) = fs::read_dir(&wdir) else {
            continue;
        };
        for entry in entries.flatten() {
            let p = entry.path();
            if known.contains(&p) || entry.file_type().map(|t| t.is_dir()).unwrap_or(true) {
                continue;
            }
            match fs::remove_file(&p) {
                Ok(()) => summary.removed.push(RepoPath::from_path(&p)),
                Err(e) => summary
                    .failed
                    .push((RepoPath::from_path(&p), e.to_string())),
            }
        }
    }
    Ok(summary)
}

enum Outcome {
    Unchanged,
    Restored,
    Removed,
}

fn restore_item(dir: &Path, item: &Item, path: &Path) -> Result<Outcome, String> {
    let now = files::digest(path, false);
    if (now.is_some() || item.kind != "absent")
        && let Some(why) = redirected(path, item.parent_real_hex.as_deref())
    {
        return Err(why);
    }
    match item.kind.as_str() {
        "absent" => match now {
            None => Ok(Outcome::Unchanged),
            Some(d) if d.kind == Kind::Dir => {
                Err("a directory appeared here; remove it yourself".into())
            }
            Some(_) if !item.inside => {
                Err("this file appeared outside the repository; remove it yourself".into())
            }
            Some(_) => fs::remove_file(path)
                .map(|_| Outcome::Removed)
                .map_err(|e| e.to_string()),
        },
        "file" => {
            if let Some(d) = &now {
                if d.kind == Kind::File && d.mode == item.mode && d.sha256 == item.sha256 {
                    return Ok(Outcome::Unchanged);
                }
                if d.kind == Kind::Dir {
                    return Err("a directory replaced this file; remove it yourself".into());
                }
            }
            let name = item.copy.as_deref().ok_or("no copy recorded")?;
            if name.contains('/') || name.contains("..") {
                return Err("bad copy name in manifest".into());
            }
            let bytes = files::read_small(&dir.join("files").join(name), 64 * 1024 * 1024)
                .map_err(|e| format!("cannot read the copy: {e}"))?;
            if item.sha256.as_deref() != Some(files::sha256_hex(&bytes).as_str()) {
                return Err("the copy does not match its recorded hash".into());
            }
            if now.as_ref().is_some_and(|d| d.kind != Kind::File) {
                fs::remove_file(path).map_err(|e| e.to_string())?;
            }
            write_restored(path, &bytes, item.mode).map_err(|e| e.to_string())?;
            Ok(Outcome::Restored)
        }
        "symlink" => {
            let target = item
                .link_hex
                .as_deref()
                .and_then(unhex)
                .ok_or("no link target recorded")?;
            let target = PathBuf::from(std::ffi::OsString::from_vec(target));
            if let Some(d) = &now {
                if d.kind == Kind::Symlink
                    && d.link.as_ref().map(|l| l.as_path()) == Some(target.as_path())
                {
                    return Ok(Outcome::Unchanged);
                }
                if d.kind == Kind::Dir {
                    return Err("a directory replaced this link; remove it yourself".into());
                }
                fs::remove_file(path).map_err(|e| e.to_string())?;
            }
            std::os::unix::fs::symlink(&target, path).map_err(|e| e.to_string())?;
            Ok(Outcome::Restored)
        }
        other => Err(format!("unknown kind {other:?} in manifest")),
    }
}

/// Write one of the copies (or their manifest) as a new file of mode 0600: what an earlier try
/// left under the name (a link, a FIFO, a hard link to a file elsewhere) is unlinked, never
/// written through. Not synced to the disk: the copies serve only this run's restore, right
/// after the turn; after a crash the turn is run again and copies are taken afresh.
/// The file copies of the restore directory `dir`, by the path they copy (hex, as in the
/// manifest): each copy's file and the SHA-256 the manifest gives it. Nothing for a directory
/// without a readable manifest.
fn earlier_copies(dir: &Path) -> BTreeMap<String, (PathBuf, String)> {
    let Ok(bytes) = files::read_small(&dir.join(MANIFEST), MANIFEST_LIMIT) else {
        return BTreeMap::new();
    };
    let Ok(manifest) = serde_json::from_slice::<Manifest>(&bytes) else {
        return BTreeMap::new();
    };
    manifest
        .items
        .into_iter()
        .filter(|i| i.kind == "file")
        .filter_map(|i| {
            let copy = dir.join("files").join(i.copy.filter(|c| is_copy_name(c))?);
            Some((i.path_hex, (copy, i.sha256?)))
        })
        .collect()
}

/// A copy's name as [`save_restore_copies`] makes it: digits only (never a path).
fn is_copy_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_digit())
}

/// A new name for `earlier` at `path` when it is a regular file (no link followed) holding
/// exactly `bytes`; else a new copy.
fn link_or_write(earlier: Option<&Path>, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(old) = earlier
        && files::read_small(old, bytes.len() as u64).is_ok_and(|b| b == bytes)
    {
        match fs::remove_file(path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        if fs::hard_link(old, path).is_ok() {
            return Ok(());
        }
    }
    write_copy(path, bytes)
}

fn write_copy(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    match fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(nix::fcntl::OFlag::O_NOFOLLOW.bits())
        .open(path)?;
    file.write_all(bytes)
}

/// Put a file back atomically with its permission bits, creating its directory if needed.
fn write_restored(path: &Path, bytes: &[u8], mode: u32) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent)?;
    }
    crate::atomic::write_with_mode(path, bytes, Some(mode))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_copy_never_writes_through_what_was_left_under_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let elsewhere = dir.path().join("elsewhere");
        fs::write(&elsewhere, "keep").unwrap();
        let hard = dir.path().join("0");
        fs::hard_link(&elsewhere, &hard).unwrap();
        write_copy(&hard, b"copy").unwrap();
        let soft = dir.path().join("1");
        std::os::unix::fs::symlink(&elsewhere, &soft).unwrap();
        write_copy(&soft, b"copy").unwrap();
        let fifo = dir.path().join("2");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        write_copy(&fifo, b"copy").unwrap();
        assert_eq!(fs::read_to_string(&elsewhere).unwrap(), "keep");
        for name in ["0", "1", "2"] {
            let path = dir.path().join(name);
            let meta = fs::symlink_metadata(&path).unwrap();
            assert!(meta.is_file(), "{name}");
            assert_eq!(meta.permissions().mode() & 0o777, 0o600, "{name}");
            assert_eq!(fs::read_to_string(&path).unwrap(), "copy");
        }
    }
}
