//! The git directory part of a snapshot: every file under the common directory and the
//! worktree's own git directory, except object contents, read before gix (or anything else)
//! opens the repository.
//!
//! Small files are hashed (config files kept for a by-key diff), large ones fingerprinted by stat
//! and a sample; index files are digested without their stat data; under `objects/` the layout is
//! recorded (each loose fan-out directory, each pack file by stat, each loose object by stat while
//! there are few; an object file's ctime only moves a check of its content: `objects.rs`) and
//! `objects/info/*` by content. The default hooks directory is left to the
//! hooks part. Anything that is neither a regular file, a directory nor a link to one (a FIFO,
//! socket or device) makes the repository unsafe to open: it is named, and gix is not run.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::files::{self, FileDigest, Kind};
use super::index_file as index;
use super::layout::Layout;
use super::objects;
use super::path::RepoPath;
use super::reuse::Start;
use super::xattrs::Xattrs;

/// Files in the git directory bigger than this are fingerprinted, not hashed.
const HASH_LIMIT: u64 = 1024 * 1024;
/// Loose objects are stat'ed one by one only while git's own estimate of their number (the
/// entries of `objects/17` × 256, as `git gc --auto` counts) is at most this; above it the
/// repository is due for `git gc` anyway and only the fan-out directories are fingerprinted.
const LOOSE_OBJECTS_LIMIT: usize = 16 * 1024;
/// Deepest directory level walked under the git directory.
const MAX_DEPTH: usize = 32;

/// What was found under the git directory.
#[derive(Debug, Default)]
pub(super) struct GitDirRecord {
    /// By label: the path relative to the common directory (absolute when outside it).
    pub files: BTreeMap<String, FileDigest>,
    /// Entries that would make a read block or be redirected (FIFOs, devices, sockets, links
    /// to them): when any exists, the repository is not opened.
    pub unsafe_entries: Vec<String>,
}

impl GitDirRecord {
    /// Why the repository must not be opened, if it must not.
    pub(super) fn unsafe_reason(&self) -> Option<String> {
        if self.unsafe_entries.is_empty() {
            return None;
        }
        let mut shown: Vec<&str> = self
            .unsafe_entries
            .iter()
            .take(5)
            .map(String::as_str)
            .collect();
        if self.unsafe_entries.len() > 5 {
            shown.push("…");
        }
        Some(format!(
            "the git directory holds special files (FIFO, socket, device or a link to one), so it was not read: {}",
            shown.join(", ")
        ))
    }
}

struct Walk<'a> {
    layout: &'a Layout,
    out: GitDirRecord,
    /// Inside a directory whose files are recorded by the refs part: only checked for special
    /// files, not digested here.
    check_only: bool,
    /// When the snapshot before started: an object file whose ctime moved since is read back.
    since: Option<Start>,
}

/// Record the git directories of `layout`; `since`, the start of the snapshot this one is
/// compared with (`None` for a first one).
pub(super) fn record(layout: &Layout, since: Option<Start>) -> GitDirRecord {
    let mut w = Walk {
        layout,
        out: GitDirRecord::default(),
        check_only: false,
        since,
    };
    if layout.dot_git_is_file()
        && let Some(d) = files::digest(&layout.dot_git, false)
    {
        w.file(".git".into(), &layout.dot_git, d.kind);
    }
    w.directory(".".into(), &layout.common_dir);
    w.dir(&layout.common_dir, 0);
    if !layout.git_dir.starts_with(&layout.common_dir) {
        w.directory(w.label(&layout.git_dir), &layout.git_dir);
        w.dir(&layout.git_dir, 0);
    }
    w.out
}

impl Walk<'_> {
    fn label(&self, path: &Path) -> String {
        match path.strip_prefix(&self.layout.common_dir) {
            Ok(rel) => RepoPath::from_path(rel).escaped(),
            Err(_) => RepoPath::from_path(path).escaped(),
        }
    }

    fn dir(&mut self, dir: &Path, depth: usize) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let path = entry.path();
            let Ok(ft) = entry.file_type() else {
                continue;
            };
            let kind = Kind::of(ft);
            let name = entry.file_name();
            if depth == 0 && dir == self.layout.common_dir && name.as_bytes() == b"hooks" {
                // The default hooks directory is always recorded by the hooks part.
                continue;
            }
            // HEAD, loose refs and packed-refs (peeled lines included) are the refs part.
            let top = dir == self.layout.common_dir || dir == self.layout.git_dir;
            let refs_part = top && matches!(name.as_bytes(), b"refs" | b"packed-refs" | b"HEAD");
            if kind == Kind::Dir {
                if depth >= MAX_DEPTH {
                    continue;
                }
                self.directory(self.label(&path), &path);
                if name.as_bytes() == b"objects" && fs::symlink_metadata(dir.join("HEAD")).is_ok() {
                    self.objects(&path);
                } else {
                    let outer = self.check_only;
                    self.check_only |= refs_part;
                    self.dir(&path, depth + 1);
                    self.check_only = outer;
                }
                continue;
            }
            let label = self.label(&path);
            if self.check_only || refs_part {
                let special = match kind {
                    Kind::Other => true,
                    Kind::Symlink => fs::metadata(&path).map(|m| !m.is_file()).unwrap_or(false),
                    _ => false,
                };
                if special {
                    self.out.unsafe_entries.push(label);
                }
                continue;
            }
            if path == self.layout.git_dir.join("index") {
                // The worktree's index is the index part of the snapshot.
                if kind != Kind::File {
                    self.out.unsafe_entries.push(label);
                }
                continue;
            }
            self.file(label, &path, kind);
        }
    }

    /// Record a directory by its kind, permission bits and owner, as `label/` (the common
    /// directory itself as `.`): a directory opened to other users (`chmod 777 .git/objects`)
    /// and a new empty one that changes what git does (`rr-cache/` turns rerere on,
    /// `rebase-merge/` and `sequencer/` make git believe an operation is in progress) are
    /// changes. Its entries are recorded anyway, so not its times.
    fn directory(&mut self, label: String, path: &Path) {
        let Ok(meta) = fs::symlink_metadata(path) else {
            return;
        };
        let label = if label == "." || label.ends_with('/') {
            label
        } else {
            format!("{label}/")
        };
        self.out.files.insert(
            label,
            FileDigest {
                kind: Kind::of(meta.file_type()),
                mode: meta.mode() & 0o7777,
                owner: Some((meta.uid(), meta.gid())),
                sha256: None,
                link: None,
                error: None,
                text: None,
                xattrs: Xattrs::of(path),
            },
        );
    }

    /// Digest one non-directory entry.
    fn file(&mut self, label: String, path: &Path, kind: Kind) {
        let name = path.file_name().map(|n| n.as_bytes()).unwrap_or_default();
        let is_index = name == b"index" || name.starts_with(b"sharedindex.");
        let keep_text = name == b"config" || name == b"config.worktree";
        let digest = match kind {
            Kind::File if is_index => index::file_digest(path),
            Kind::Symlink => Some(self.link(&label, path)),
            _ => files::digest_limited(path, keep_text, HASH_LIMIT),
        };
        if kind == Kind::Other {
            self.out.unsafe_entries.push(label.clone());
        }
        if let Some(d) = digest {
            self.out.files.insert(label, d);
        }
    }

    /// A link: its text, and what it points at (git follows links in its directory).
    fn link(&mut self, label: &str, path: &Path) -> FileDigest {
        let mut d = files::digest_following(path);
        if let Ok(meta) = fs::metadata(path)
            && !meta.is_file()
            && !meta.is_dir()
        {
            self.out.unsafe_entries.push(label.to_string());
        }
        d.text = None;
        d
    }

    fn objects(&mut self, objects: &Path) {
        let Ok(entries) = fs::read_dir(objects) else {
            return;
        };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        let per_object = loose_estimate(objects) <= LOOSE_OBJECTS_LIMIT;
        for entry in entries {
            let path = entry.path();
            let name = entry.file_name();
            let bytes = name.as_bytes();
            let Ok(ft) = entry.file_type() else {
                continue;
            };
            let label = self.label(&path);
            let fan_out = bytes.len() == 2 && bytes.iter().all(u8::is_ascii_hexdigit);
            if fan_out && ft.is_dir() {
                let d = fan_out_digest(
                    &path,
                    per_object.then_some(self.since),
                    &mut self.out.unsafe_entries,
                );
                if let Some(d) = d {
                    self.out.files.insert(format!("{label}/"), d);
                }
            } else if bytes == b"pack" && ft.is_dir() {
                self.directory(label, &path);
                let Ok(packs) = fs::read_dir(&path) else {
                    continue;
                };
                for pack in packs.flatten() {
                    let p = pack.path();
                    let label = self.label(&p);
                    if let Some(d) = pack_digest(&p, self.since) {
                        if d.kind != Kind::File {
                            self.out.unsafe_entries.push(label.clone());
                        }
                        self.out.files.insert(label, d);
                    }
                }
            } else if ft.is_dir() {
                // `info/` (alternates, packs, commit-graph) and anything else: by content.
                self.directory(label, &path);
                self.dir(&path, 2);
            } else {
                self.file(label, &path, Kind::of(ft));
            }
        }
        self.alternates(objects);
    }

    /// Object directories listed in `objects/info/alternates` (followed to any depth, as gix
    /// does) are read by gix too: a special file among their packs, loose fan-out directories
    /// or alternates must not block it.
    fn alternates(&mut self, objects: &Path) {
        let mut queue = vec![objects.to_path_buf()];
        let mut seen = std::collections::BTreeSet::new();
        while let Some(dir) = queue.pop() {
            let real = fs::canonicalize(&dir).unwrap_or_else(|_| dir.clone());
            if !seen.insert(real) || seen.len() > 64 {
                continue;
            }
            let list = dir.join("info/alternates");
            if dir != objects {
                for sub in ["pack", "info"] {
                    for e in fs::read_dir(dir.join(sub)).into_iter().flatten().flatten() {
                        if is_special(&e.path()) {
                            self.out
                                .unsafe_entries
                                .push(RepoPath::from_path(&e.path()).escaped());
                        }
                    }
                }
                if is_special(&list) {
                    continue;
                }
            }
            let Ok(bytes) = files::read_small(&list, 1024 * 1024) else {
                continue;
            };
            for line in bytes.split(|b| *b == b'\n') {
                let line = line.trim_ascii();
                if line.is_empty() || line.starts_with(b"#") {
                    continue;
                }
                let rel = Path::new(std::ffi::OsStr::from_bytes(line));
                // git resolves a relative entry against the directory listing it, gix against
                // the first object directory: both are checked.
                queue.push(dir.join(rel));
                queue.push(objects.join(rel));
            }
        }
    }
}

/// The git metadata part `files`, taken with `taken_with` as its common directory, by labels
/// relative to `common` (each unchanged when the two are the same directory).
pub(super) fn relabel<'a>(
    files: &'a BTreeMap<String, FileDigest>,
    taken_with: &RepoPath,
    common: &RepoPath,
) -> BTreeMap<String, &'a FileDigest> {
    if taken_with == common {
        return files.iter().map(|(k, v)| (k.clone(), v)).collect();
    }
    let (from, to) = (
        format!("{}/", taken_with.escaped()),
        format!("{}/", common.escaped()),
    );
    files
        .iter()
        .map(|(k, v)| (relabelled(k, &from, &to), v))
        .collect()
}

/// One label of a record taken with the common directory `from` (escaped, with a trailing `/`),
/// relative to `to` where it lies inside it.
pub(super) fn relabelled(label: &str, from: &str, to: &str) -> String {
    // `.git` is the worktree's own `.git` file; absolute labels are outside the common dir.
    let path = match label {
        ".git" => return label.to_string(),
        "." => from.to_string(),
        _ if label.starts_with('/') => label.to_string(),
        _ => format!("{from}{label}"),
    };
    match path.strip_prefix(to) {
        Some("") => ".".to_string(),
        Some(rel) => rel.to_string(),
        None => path,
    }
}

/// A FIFO, socket or device, or a link to one (a path that `open()` could block on).
fn is_special(path: &Path) -> bool {
    match fs::metadata(path) {
        Ok(m) => !m.is_file() && !m.is_dir(),
        Err(_) => match fs::symlink_metadata(path) {
            Ok(m) => !m.is_file() && !m.is_dir() && !m.file_type().is_symlink(),
            Err(_) => false,
        },
    }
}

/// git's estimate of the number of loose objects: the entries of `objects/17`, times 256.
fn loose_estimate(objects: &Path) -> usize {
    fs::read_dir(objects.join("17"))
        .map(|r| r.count())
        .unwrap_or(0)
        .saturating_mul(256)
}

fn stat_line(meta: &fs::Metadata) -> String {
    format!(
        "{}.{} {}.{} {} {} {:o}",
        meta.mtime(),
        meta.mtime_nsec(),
        meta.ctime(),
        meta.ctime_nsec(),
        meta.ino(),
        meta.size(),
        meta.mode()
    )
}

/// An object file's stat without its ctime (a hard link to it made or removed by another local
/// clone moves only that and the link count), and `altered` when the ctime moved since `since`
/// and the content is not what its name or checksum says (`intact`).
fn object_line(meta: &fs::Metadata, since: Option<Start>, intact: impl FnOnce() -> bool) -> String {
    let mut line = format!(
        "{}.{} {} {} {:o}",
        meta.mtime(),
        meta.mtime_nsec(),
        meta.ino(),
        meta.size(),
        meta.mode()
    );
    let moved =
        since.is_some_and(|s| !s.settled_times((i64::MIN, 0), (meta.ctime(), meta.ctime_nsec())));
    if moved && !intact() {
        line.push_str(" altered");
    }
    line
}

/// A file of `objects/pack/`: a `.keep` or `.promisor` note by content; a pack, index or other
/// file that ends in its own checksum by [`object_line`] (packs are big, and git never rewrites
/// them in place).
fn pack_digest(path: &Path, since: Option<Start>) -> Option<FileDigest> {
    let meta = fs::symlink_metadata(path).ok()?;
    let name = path.file_name().map(|n| n.as_bytes()).unwrap_or_default();
    if meta.is_file() && (name.ends_with(b".keep") || name.ends_with(b".promisor")) {
        return files::digest_limited(path, false, HASH_LIMIT);
    }
    let line = object_line(&meta, since, || objects::checksum_intact(path));
    Some(FileDigest {
        kind: Kind::of(meta.file_type()),
        mode: meta.mode() & 0o7777,
        owner: Some((meta.uid(), meta.gid())),
        sha256: Some(files::sha256_hex(line.as_bytes())),
        link: None,
        error: None,
        text: None,
        xattrs: Xattrs::of(path),
    })
}

/// A loose fan-out directory: its stat (any object added, removed or replaced by a rename changes
/// it) and, with `per_object` (the start of the snapshot before, if any), each object's name and
/// [`object_line`] (an object rewritten in place changes its ctime and no longer inflates to the
/// object its name says; git writes objects once and never rewrites them).
fn fan_out_digest(
    dir: &Path,
    per_object: Option<Option<Start>>,
    special: &mut Vec<String>,
) -> Option<FileDigest> {
    let meta = fs::symlink_metadata(dir).ok()?;
    let mut line = stat_line(&meta);
    let fan = dir.file_name().map(|n| n.to_string_lossy().into_owned());
    if let (Some(since), Some(fan)) = (per_object, fan)
        && let Ok(entries) = fs::read_dir(dir)
    {
        let mut objects: Vec<(Vec<u8>, String)> = Vec::new();
        for e in entries.flatten() {
            let Ok(m) = e.metadata() else {
                continue;
            };
            if !m.is_file() {
                special.push(RepoPath::from_path(&e.path()).escaped());
            }
            let name = e.file_name();
            let id = format!("{fan}{}", name.to_string_lossy());
            let line = object_line(&m, since, || objects::loose_intact(&e.path(), &id));
            objects.push((name.as_bytes().to_vec(), line));
        }
        objects.sort();
        for (name, stat) in objects {
            line.push('\n');
            line.push_str(&String::from_utf8_lossy(&name));
            line.push(' ');
            line.push_str(&stat);
        }
    }
    Some(FileDigest {
        kind: Kind::Dir,
        mode: meta.mode() & 0o7777,
        owner: Some((meta.uid(), meta.gid())),
        sha256: Some(files::sha256_hex(line.as_bytes())),
        link: None,
        error: None,
        text: None,
        xattrs: Xattrs::of(dir),
    })
}

/// Whether `path` is a regular file that can be handed to gix (absent is fine too).
pub(super) fn safe_to_read(path: &PathBuf) -> bool {
    match fs::metadata(path) {
        Ok(m) => m.is_file(),
        Err(_) => fs::symlink_metadata(path).is_err(),
    }
}
