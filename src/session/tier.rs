//! The local tier: `.interview/` at the worktree root, never committed, and atomic writes.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

pub(crate) use crate::atomic::Durability;

use crate::error::{Error, Result};

pub(crate) const TIER_DIR: &str = ".interview";
const EXCLUDE_LINE: &str = "/.interview/";

/// The local tier of one worktree.
#[derive(Debug, Clone)]
pub(crate) struct LocalTier {
    pub root: PathBuf,
}

impl LocalTier {
    /// Make `.interview/` itself if needed (the one thing written before the worktree's lock is
    /// held: the lock lives in it), refusing one that is a link or not a directory.
    pub(crate) fn make_root(worktree: &Path) -> Result<PathBuf> {
        let root = worktree.join(TIER_DIR);
        plain_dir(&root)?;
        Ok(root)
    }

    /// Create the rest of `.interview/` if needed and make sure git ignores it (before any
    /// snapshot). Only with the worktree's lock held: a run refused by it writes nothing.
    ///
    /// Each of `.interview/`, its `sessions/` and its `tmp/` must be a plain directory: one that is
    /// a link (a repository can commit `.interview` as one) is refused, for everything the tool
    /// writes or removes there would land where the link points.
    pub(crate) fn open(worktree: &Path, common_dir: &Path) -> Result<LocalTier> {
        let root = worktree.join(TIER_DIR);
        for dir in [root.clone(), root.join("sessions"), root.join(TMP_DIR)] {
            plain_dir(&dir)?;
        }
        exclude(common_dir)?;
        Ok(LocalTier { root })
    }

    pub(crate) fn sessions(&self) -> PathBuf {
        self.root.join("sessions")
    }
}

/// Make `dir` unless it is there; refuse it when it is a link or not a directory.
fn plain_dir(dir: &Path) -> Result<()> {
    match std::fs::symlink_metadata(dir) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(m) => Err(Error::State(format!(
            "{} is {}, not a directory; the local tier must be a plain directory of this worktree (remove it and run again)",
            dir.display(),
            if m.file_type().is_symlink() {
                "a symbolic link"
            } else {
                "a file"
            }
        ))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => match std::fs::create_dir(dir) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => plain_dir(dir),
            Err(e) => Err(Error::io(format!("cannot create {}", dir.display()), e)),
        },
        Err(e) => Err(Error::io(format!("cannot read {}", dir.display()), e)),
    }
}

/// Add `/.interview/` to `<common dir>/info/exclude` unless a line there already covers it
/// (through the narrow door of [`crate::own_writes::add_exclude_line`]: no link followed).
fn exclude(common_dir: &Path) -> Result<()> {
    // Exactly as git matches it (case-sensitively, unless core.ignorecase).
    let covered = |line: &str| {
        matches!(
            line,
            "/.interview/" | "/.interview" | ".interview/" | ".interview"
        )
    };
    crate::own_writes::add_exclude_line(
        common_dir,
        "# local tier of `interview`: never committed",
        EXCLUDE_LINE,
        covered,
    )
    .map_err(|why| {
        Error::State(format!(
            "cannot add {EXCLUDE_LINE} to git's info/exclude: {why}; add it there yourself (or to .gitignore) and run again"
        ))
    })
}

/// The local tier is this machine's own: a repository that commits files in it (a session whose
/// `session.json` names a command to run as its runner, or a `config.toml` that turns the
/// sandbox off) is refused before anything there is read, run, resumed, cleaned or removed.
/// The name is compared as a case-insensitive file system would (`.Interview/` is the local
/// tier on macOS). Checked where every command that writes takes the lock, and before the local
/// config is read.
pub(crate) fn refuse_committed(worktree: &Path) -> Result<()> {
    let cannot = |e: &dyn std::fmt::Display| {
        Error::Repo(format!(
            "cannot read the index of {}: {e}",
            worktree.display()
        ))
    };
    // The repository was checked for files an open() could block on when it was found. The
    // index's checksum is not computed (a SHA-1 of the whole file, before the first snapshot):
    // it guards against a corrupt disk, not a hostile writer, and the guard does not check it
    // either.
    let opts = gix::open::Options::isolated().config_overrides(["index.skipHash=true"]);
    let git = gix::open_opts(worktree, opts).map_err(|e| cannot(&e))?;
    // Read as the guard reads it, which its first snapshot then takes over; else by gix.
    let tier = worktree.join(TIER_DIR);
    let committed =
        match crate::guard::with_tracked_paths(worktree, git.object_hash(), &tier, in_tier) {
            Some(committed) => committed,
            None => {
                let index = git.index_or_empty().map_err(|e| cannot(&e))?;
                in_tier(&mut index.entries().iter().map(|e| &**e.path(&index)))
            }
        };
    // Named: what would be used if it were not refused (a session, the local config) first.
    let used = |p: &&Vec<u8>| {
        let p = String::from_utf8_lossy(p).to_lowercase();
        p.contains("/sessions/") || p.ends_with("/config.toml")
    };
    let named = committed.iter().find(used).or(committed.first());
    match named {
        None => Ok(()),
        Some(path) => Err(Error::Repo(format!(
            "the repository commits {}, inside the local tier `.interview/`, which belongs to \
             this machine and is never committed: nothing in it is used (a session from elsewhere \
             could name any command as its runner). Remove it from the repository \
             and from this worktree (`git rm -r {}`), then run again",
            String::from_utf8_lossy(path),
            top_name(path)
        ))),
    }
}

/// The first component of a tracked path, for a message.
fn top_name(p: &[u8]) -> String {
    let first = p.split(|b| *b == b'/').next().unwrap_or(p);
    String::from_utf8_lossy(first).into_owned()
}

/// The tracked paths (in index order) inside the local tier, by a name a case-insensitive file
/// system would take for it.
fn in_tier(paths: &mut dyn Iterator<Item = &[u8]>) -> Vec<Vec<u8>> {
    use crate::own_writes::names::same_name;
    // Entries come sorted by path, so each top-level name is folded once, not once per entry
    // (100 000 entries are a few dozen names).
    let mut last: Option<(Vec<u8>, bool)> = None;
    paths
        .filter(|bytes| {
            let first = bytes.split(|b| *b == b'/').next().unwrap_or(bytes);
            match &last {
                Some((name, is_tier)) if name.as_slice() == first => *is_tier,
                _ => {
                    let is_tier = same_name(std::ffi::OsStr::new(&top_name(bytes)), TIER_DIR);
                    last = Some((first.to_vec(), is_tier));
                    is_tier
                }
            }
        })
        .map(<[u8]>::to_vec)
        .collect()
}

/// The most the tool reads of one of its own files (a state, session or answers file).
pub(crate) const OWN_FILE_CAP: u64 = 32 * 1024 * 1024;

/// Read one of the tool's own files in the local tier (`state.json`, `session.json`,
/// `answers.json`): only a regular file, never through a link, never blocking on a FIFO, at most
/// [`OWN_FILE_CAP`] bytes; anything else is an error naming the file and what it is.
pub(crate) fn read_own(path: &Path) -> Result<String> {
    use crate::input::{InputError, Links, read_regular};
    let bytes = read_regular(path, OWN_FILE_CAP, Links::Refuse).map_err(|e| match e {
        InputError::Io(e) => Error::io(format!("cannot read {}", path.display()), e),
        other => Error::State(format!(
            "cannot read {}: {other}; it was left as it is",
            path.display()
        )),
    })?;
    String::from_utf8(bytes).map_err(|e| {
        Error::State(format!(
            "{} is not UTF-8 (byte {}); it was left as it is",
            path.display(),
            e.utf8_error().valid_up_to()
        ))
    })
}

/// Write a file of the local tier atomically, synced or not as `durability` says (see
/// [`Durability`]), naming the file in the error. A new one is private to its owner (answers
/// and transcripts stay on this machine).
pub(crate) fn write_atomic(path: &Path, bytes: &[u8], durability: Durability) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mode = match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_file() => meta.permissions().mode(),
        _ => 0o600,
    };
    crate::atomic::write_via(path, bytes, Some(mode), None, durability)
        .map_err(|e| Error::io(format!("cannot write {}", path.display()), e))
}

/// The local tier's directory for temporary files; emptied by every run that holds the lock.
pub(crate) const TMP_DIR: &str = "tmp";

/// A new session id: `<kind>-<slug>-<YYYYMMDDTHHMMSS>-<8 hex>`.
pub(crate) fn session_id(kind: &str, subject_id: &str) -> String {
    let now = jiff::Timestamp::now();
    let stamp = now.strftime("%Y%m%dT%H%M%S").to_string();
    let mut h = Sha256::new();
    h.update(now.as_nanosecond().to_le_bytes());
    h.update(std::process::id().to_le_bytes());
    h.update(subject_id.as_bytes());
    let hex: String = h.finalize()[..4]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("{kind}-{}-{stamp}-{hex}", slug(subject_id))
}

/// A file-name-safe form of an id: lowercase ASCII letters, digits, `.`, `_` and `-`, ≤ 40.
pub(crate) fn slug(id: &str) -> String {
    let mut s: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '_' {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    while s.contains("--") {
        s = s.replace("--", "-");
    }
    let s = s.trim_matches(|c| c == '-' || c == '.').to_string();
    let s: String = s.chars().take(40).collect();
    if s.is_empty() { "x".into() } else { s }
}
