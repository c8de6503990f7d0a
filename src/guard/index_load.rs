//! How a snapshot gets the index: taken over from the snapshot before, read now, or read once
//! for the whole command. Before it takes the worktree's lock, the tool checks that the
//! repository commits nothing of the local tier (`session/tier.rs`), which needs every tracked
//! path; the guard's first snapshot then takes that reading over when the index file's whole
//! stat is still the one read and was settled then (`reuse.rs`), instead of parsing the same
//! file again (at 100,000 files, a twentieth of a guarded no-op's time).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::IndexReference;
use super::index_file;
use super::layout::Layout;
use super::memo_listings::Remembered;
use super::reuse::{Start, StatKey};

/// What was read early: the index by the path of its file, and the memo by the worktree root
/// and local tier it was read from (`memo_listings.rs`); each taken by the first snapshot that
/// would read the same.
struct Early {
    index: Option<(PathBuf, Arc<IndexReference>)>,
    memo: Option<((PathBuf, PathBuf), Remembered)>,
}

static EARLY: Mutex<Early> = Mutex::new(Early {
    index: None,
    memo: None,
});

/// Call `f` with every path of the index of the worktree at `worktree` (a repository of the
/// object hash `hash`), read as the guard reads it, and keep the reading for the guard's first
/// snapshot, with the memo of the local tier `tier` read meanwhile on another core; `None` when
/// it is not read so (a repository of another hash than SHA-1, none found, an index that is no
/// regular file or that gix cannot parse): the caller reads it its own way.
pub(crate) fn with_tracked_paths<R>(
    worktree: &Path,
    hash: gix::hash::Kind,
    tier: &Path,
    f: impl FnOnce(&mut dyn Iterator<Item = &[u8]>) -> R,
) -> Option<R> {
    if hash != SHA1 {
        return None;
    }
    let layout = Layout::locate(worktree).ok()?;
    let (read, memo) = std::thread::scope(|s| {
        let root = &layout.worktree;
        let memo = std::thread::Builder::new()
            .name("memo".into())
            .spawn_scoped(s, || Remembered::load(root, tier));
        let read = read_early(&layout);
        (read, memo.ok().and_then(|h| h.join().ok()))
    });
    let (path, reference) = read?;
    let state = &reference.state;
    let mut paths = state.entries().iter().map(|e| &**e.path(state));
    let result = f(&mut paths);
    if let Ok(mut early) = EARLY.lock() {
        early.index = reference.settled.then_some((path, reference));
        early.memo = memo.map(|m| ((layout.worktree.clone(), tier.to_path_buf()), m));
    }
    Some(result)
}

/// The memo of the local tier `tier` of the worktree `root` read early, once, for the first
/// snapshot (the stat of each directory it lists is checked as it is taken over).
pub(super) fn take_memo(root: &Path, tier: &Path) -> Option<Remembered> {
    let mut early = EARLY.lock().ok()?;
    match early.memo.take() {
        Some((at, memo)) if at.0 == root && at.1 == tier => Some(memo),
        other => {
            early.memo = other;
            None
        }
    }
}

/// The index of the worktree at `layout` read now, with the path of its file.
fn read_early(layout: &Layout) -> Option<(PathBuf, Arc<IndexReference>)> {
    let path = layout.git_dir.join("index");
    let start = Start::now();
    let Ok(Loaded::Read(read)) = load_index(&path, None) else {
        return None;
    };
    let stat = StatKey::of(&read.bytes.meta);
    let reference = IndexReference {
        state: read.parsed.ok()?,
        stat,
        settled: start.settled(&stat),
        entries: Default::default(),
        digest: Default::default(),
        extensions: read.extensions,
    };
    Some((path, Arc::new(reference)))
}

/// The index read early from the file at `path`, once, for the first snapshot to take over
/// when the file's stat is still the one read ([`load_index`] checks).
pub(super) fn take(path: &Path) -> Option<Arc<IndexReference>> {
    take_from(&mut EARLY.lock().ok()?.index, path)
}

fn take_from(
    early: &mut Option<(PathBuf, Arc<IndexReference>)>,
    path: &Path,
) -> Option<Arc<IndexReference>> {
    match early.take() {
        Some((p, r)) if p == path => Some(r),
        other => {
            *early = other;
            None
        }
    }
}

/// The hash most repositories use, which the index is first parsed with.
pub(super) const SHA1: gix::hash::Kind = gix::hash::Kind::Sha1;

/// The worktree's index, as loaded before the repository is opened.
pub(super) enum Loaded {
    /// There is none (a repository without a commit or anything added).
    Missing,
    /// Taken over from the snapshot before: the file's whole stat is the same and was settled
    /// then (`reuse.rs`).
    Reused(std::sync::Arc<IndexReference>),
    Read(Box<ReadIndex>),
}

/// An index read now, parsed and its extensions digested as SHA-1 (again with the repository's
/// hash when that is another).
pub(super) struct ReadIndex {
    pub bytes: index_file::IndexBytes,
    pub parsed: Result<gix::index::State, String>,
    pub extensions: BTreeMap<String, String>,
}

/// Open the index safely (regular file, no link, non-blocking), `fstat` it, and take it over
/// from `prior` or read and parse it (its extensions digested on the side).
pub(super) fn load_index(
    path: &Path,
    prior: Option<&std::sync::Arc<IndexReference>>,
) -> std::io::Result<Loaded> {
    let Some((file, meta)) = index_file::open(path)? else {
        return Ok(Loaded::Missing);
    };
    let key = StatKey::of(&meta);
    if let Some(r) = prior.filter(|r| r.settled && r.stat == key) {
        return Ok(Loaded::Reused(r.clone()));
    }
    let bytes = index_file::read_open(file, meta)?;
    let digest = || index_file::extensions(&bytes.bytes, SHA1);
    let (parsed, extensions) = std::thread::scope(|s| {
        let side = std::thread::Builder::new().spawn_scoped(s, digest);
        let parsed = index_file::parse(&bytes, SHA1);
        let extensions = match side {
            Ok(h) => h.join().unwrap_or_else(|_| digest()),
            Err(_) => digest(),
        };
        (parsed, extensions)
    });
    Ok(Loaded::Read(Box::new(ReadIndex {
        bytes,
        parsed,
        extensions,
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git(dir: &Path, args: &[&str]) {
        let ok = std::process::Command::new("git")
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "-c",
                "core.hooksPath=/dev/null",
            ])
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", dir)
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    }

    /// The index read before the lock is taken over only while its file is the one read: a
    /// write since (here `git add`) makes the snapshot read it again. Taken once, and only for
    /// the same file.
    #[test]
    fn an_index_read_early_is_taken_over_only_while_its_file_is_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        git(root, &["init", "-q"]);
        std::fs::write(root.join("a.txt"), "a\n").unwrap();
        git(root, &["add", "a.txt"]);
        // Settled: the index's times older than the read's start by the 2 s margin.
        std::thread::sleep(std::time::Duration::from_millis(2100));
        let (path, early) = read_early(&Layout::locate(root).unwrap()).unwrap();
        let state = &early.state;
        let paths: Vec<&[u8]> = state.entries().iter().map(|e| &**e.path(state)).collect();
        assert_eq!(paths, [b"a.txt".as_slice()]);
        assert!(early.settled);
        assert!(matches!(
            load_index(&path, Some(&early)),
            Ok(Loaded::Reused(_))
        ));
        std::fs::write(root.join("b.txt"), "b\n").unwrap();
        git(root, &["add", "b.txt"]);
        assert!(matches!(
            load_index(&path, Some(&early)),
            Ok(Loaded::Read(_))
        ));

        let mut slot = Some((path.clone(), early));
        assert!(take_from(&mut slot, &root.join("other")).is_none());
        assert!(take_from(&mut slot, &path).is_some());
        assert!(take_from(&mut slot, &path).is_none(), "taken once");
    }
}
