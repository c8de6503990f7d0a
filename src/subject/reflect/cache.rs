//! What reflect keeps in the local tier (`.interview/cache/`): the facts of the last few ranges
//! (keyed by the commit ids of base and HEAD), so a re-run of the same range reads them whole;
//! and each commit's diff facts (keyed by commit id), so the next release's run only diffs new
//! commits. Both are keyed by the facts version too.
//!
//! The file holds two lines of JSON: a header (version, tool version, the ranges' facts) and the
//! per-commit facts, which are only parsed when a range is not known. The cache is an
//! optimisation only: a missing, unreadable, oversized or malformed file is ignored and rebuilt.
//! It is opened below the worktree without following a symbolic link at any step and without
//! blocking on a FIFO, and written atomically (a new file, then a rename; not synced).

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;

use cap_fs_ext::{DirExt, FollowSymlinks, OpenOptionsFollowExt, OpenOptionsSyncExt};
use cap_std::fs::{Dir, OpenOptions};
use serde::{Deserialize, Serialize};

use super::diff::CommitFacts;
use super::facts::ReflectFacts;

/// Bump when what a commit's facts contain, or how they are computed, changes.
pub const FACTS_VERSION: u32 = 4;
/// The facts of a whole range also depend on how they are folded: a new tool recomputes them.
const TOOL: &str = env!("CARGO_PKG_VERSION");
/// A cache file larger than this is ignored (and replaced).
const MAX_CACHE_BYTES: u64 = 512 * 1024 * 1024;
/// The ranges whose facts are kept, the most recent first.
const MAX_RANGES: usize = 4;

/// The first line of the file.
#[derive(Serialize, Deserialize)]
struct Header {
    version: u32,
    tool: String,
    ranges: Vec<RangeFacts>,
}

#[derive(Clone, Serialize, Deserialize)]
struct RangeFacts {
    base: String,
    head: String,
    facts: ReflectFacts,
}

/// The second line of the file.
#[derive(Deserialize)]
struct Commits {
    commits: HashMap<String, CommitFacts>,
}

/// The second line, written from what the cache holds.
#[derive(Serialize)]
struct CommitsRef<'a> {
    commits: &'a HashMap<String, CommitFacts>,
}

/// The cache of one run: what was read, and what this run added.
pub(super) struct FactsCache {
    dir: Option<Dir>,
    ranges: Vec<RangeFacts>,
    /// The rest of the file (the per-commit line), read and parsed on first use.
    unparsed: Option<Rest>,
    known: HashMap<String, CommitFacts>,
    /// The per-commit line to write, when this run diffed commits the cache did not know.
    encoded: Option<Vec<u8>>,
    ranges_changed: bool,
}

/// The open file after its header.
type Rest = BufReader<std::io::Take<cap_std::fs::File>>;

fn file_name() -> String {
    format!("reflect-commits-v{FACTS_VERSION}.json")
}

impl FactsCache {
    /// No cache: every commit is diffed, nothing is kept.
    pub(super) fn none() -> FactsCache {
        FactsCache {
            dir: None,
            ranges: Vec::new(),
            unparsed: None,
            known: HashMap::new(),
            encoded: None,
            ranges_changed: false,
        }
    }

    /// The cache of the local tier at `<worktree>/.interview/`, when the tier exists.
    pub(super) fn open(worktree: &Path) -> FactsCache {
        let mut cache = FactsCache::none();
        let Some(dir) = cache_dir(worktree) else {
            return cache;
        };
        if let Some((header, rest)) = read(&dir) {
            if header.tool == TOOL {
                cache.ranges = header.ranges;
            }
            cache.unparsed = Some(rest);
        }
        cache.dir = Some(dir);
        cache
    }

    /// Whether there is a cache to read and write.
    pub(super) fn enabled(&self) -> bool {
        self.dir.is_some()
    }

    /// Use no cache after all (the tier's contents are not to be trusted).
    pub(super) fn disable(&mut self) {
        *self = FactsCache::none();
    }

    /// The facts of `base..head` as an earlier run computed them.
    pub(super) fn range(&self, base: &gix::ObjectId, head: &gix::ObjectId) -> Option<ReflectFacts> {
        let (base, head) = (base.to_string(), head.to_string());
        self.ranges
            .iter()
            .find(|r| r.base == base && r.head == head)
            .map(|r| r.facts.clone())
    }

    /// Keep the facts of `base..head` (the most recent first).
    pub(super) fn put_range(
        &mut self,
        base: &gix::ObjectId,
        head: &gix::ObjectId,
        facts: &ReflectFacts,
    ) {
        if self.dir.is_none() {
            return;
        }
        let (base, head) = (base.to_string(), head.to_string());
        self.ranges.retain(|r| !(r.base == base && r.head == head));
        self.ranges.insert(
            0,
            RangeFacts {
                base,
                head,
                facts: facts.clone(),
            },
        );
        self.ranges.truncate(MAX_RANGES);
        self.ranges_changed = true;
    }

    /// Parse the per-commit facts read from the file (once). A malformed line drops them all.
    pub(super) fn parse_commits(&mut self) {
        if let Some(mut rest) = self.unparsed.take() {
            let mut bytes = Vec::new();
            let parsed = rest
                .read_to_end(&mut bytes)
                .ok()
                .and_then(|_| serde_json::from_slice::<Commits>(&bytes).ok());
            match parsed {
                Some(c) => self.known = c.commits,
                // A damaged file is rewritten whole.
                None => self.ranges_changed = true,
            }
        }
    }

    pub(super) fn get(&mut self, id: &gix::ObjectId) -> Option<CommitFacts> {
        self.parse_commits();
        self.known.get(&id.to_string()).cloned()
    }

    /// The per-commit line of the file: what it held and the commits this run diffed
    /// (`fresh`), encoded without copying either. `None` without a cache or anything new. Takes
    /// `&self` (after [`FactsCache::parse_commits`]), so it runs beside the fold of the facts.
    pub(super) fn encode<'a>(
        &self,
        fresh: impl Iterator<Item = (&'a gix::ObjectId, &'a CommitFacts)>,
    ) -> Option<Vec<u8>> {
        self.dir.as_ref()?;
        let mut fresh = fresh.peekable();
        fresh.peek()?;
        // The form `Commits` parses: {"commits":{"<id>":{…},…}}.
        let mut out = b"{\"commits\":{".to_vec();
        let mut first = true;
        let mut entry = |out: &mut Vec<u8>, id: &str, facts: &CommitFacts| {
            if !std::mem::take(&mut first) {
                out.push(b',');
            }
            serde_json::to_writer(&mut *out, id)
                .and_then(|()| {
                    out.push(b':');
                    serde_json::to_writer(&mut *out, facts)
                })
                .is_ok()
        };
        for (id, facts) in &self.known {
            if !entry(&mut out, id, facts) {
                return None;
            }
        }
        for (id, facts) in fresh {
            if !entry(&mut out, &id.to_string(), facts) {
                return None;
            }
        }
        out.extend_from_slice(b"}}");
        Some(out)
    }

    /// Keep the per-commit line [`FactsCache::encode`] made, for [`FactsCache::save`].
    pub(super) fn set_encoded(&mut self, encoded: Option<Vec<u8>>) {
        if encoded.is_some() {
            self.encoded = encoded;
        }
    }

    /// Write the cache back when this run added to it. A failure only costs the next run time.
    pub(super) fn save(&mut self) {
        if self.dir.is_none() || (self.encoded.is_none() && !self.ranges_changed) {
            return;
        }
        self.parse_commits();
        let header = Header {
            version: FACTS_VERSION,
            tool: TOOL.to_string(),
            ranges: std::mem::take(&mut self.ranges),
        };
        let commits = match self.encoded.take() {
            Some(line) => Ok(line),
            None => serde_json::to_vec(&CommitsRef {
                commits: &self.known,
            }),
        };
        let bytes = serde_json::to_vec(&header).and_then(|mut bytes| {
            bytes.push(b'\n');
            bytes.extend_from_slice(&commits?);
            bytes.push(b'\n');
            Ok(bytes)
        });
        if let (Some(dir), Ok(bytes)) = (&self.dir, bytes) {
            let _ = write_atomic(dir, &file_name(), &bytes);
        }
        self.ranges = header.ranges;
        self.ranges_changed = false;
    }
}

/// `.interview/cache/`, each step opened without following a link; `cache/` is created when
/// the tier exists.
fn cache_dir(worktree: &Path) -> Option<Dir> {
    let root = Dir::open_ambient_dir(worktree, cap_std::ambient_authority()).ok()?;
    // The local tier the session creates (and git ignores) before any subject is gathered.
    let tier = root.open_dir_nofollow(".interview").ok()?;
    match tier.create_dir("cache") {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(_) => return None,
    }
    tier.open_dir_nofollow("cache").ok()
}

/// The header, parsed, and the rest of the file, unread; `None` when the file is missing, too
/// large, not a regular file or its header is not this version's.
fn read(dir: &Dir) -> Option<(Header, Rest)> {
    let name = file_name();
    let meta = dir.symlink_metadata(&name).ok()?;
    if !meta.is_file() || meta.len() > MAX_CACHE_BYTES {
        return None;
    }
    let mut options = OpenOptions::new();
    options.read(true).follow(FollowSymlinks::No).nonblock(true);
    let file = dir.open_with(&name, &options).ok()?;
    let opened = file.metadata().ok()?;
    if !opened.is_file() || opened.len() > MAX_CACHE_BYTES {
        return None;
    }
    let mut rest = BufReader::new(file.take(MAX_CACHE_BYTES));
    let mut line = Vec::new();
    rest.read_until(b'\n', &mut line).ok()?;
    let header: Header = serde_json::from_slice(&line).ok()?;
    if header.version != FACTS_VERSION {
        return None;
    }
    Some((header, rest))
}

/// A new file, then a rename: a reader never sees half a file. Not synced: the cache is only an
/// optimisation, and a file a crash left short or empty fails to parse and is rebuilt, while an
/// fsync of some megabytes costs every cold run tens of milliseconds when the disk is busy.
fn write_atomic(dir: &Dir, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = format!(".tmp-{name}-{}", std::process::id());
    let mut options = OpenOptions::new();
    options
        .write(true)
        .create_new(true)
        .follow(FollowSymlinks::No);
    let _ = dir.remove_file(&tmp);
    let mut file = dir.open_with(&tmp, &options)?;
    let written = file.write_all(bytes);
    drop(file);
    match written.and_then(|()| dir.rename(&tmp, dir, name)) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = dir.remove_file(&tmp);
            Err(e)
        }
    }
}
