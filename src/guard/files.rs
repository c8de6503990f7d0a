//! Reading files a runner may have planted, safely: never following a final symlink, never
//! blocking on a FIFO or device, and hashing in bounded memory.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::Path;
use std::sync::Arc;

use serde::Serialize;
use sha2::{Digest, Sha256};

use super::path::RepoPath;
use super::xattrs::Xattrs;

/// Config files bigger than this are hashed but not kept for a by-key diff.
const KEEP_TEXT_LIMIT: u64 = 1024 * 1024;

/// Open `path` for reading only if it is a regular file (not a symlink, FIFO or device), by the
/// one door for that ([`crate::input::open_regular`]), its refusals as I/O errors.
pub(super) fn open_regular(path: &Path) -> io::Result<File> {
    use crate::input::{InputError, Links};
    crate::input::open_regular(path, Links::Refuse).map_err(|e| match e {
        InputError::Io(e) => e,
        InputError::Link => io::Error::from_raw_os_error(nix::libc::ELOOP),
        _ => io::Error::new(io::ErrorKind::InvalidInput, "not a regular file"),
    })
}

/// Read a whole regular file of at most `limit` bytes.
pub(super) fn read_small(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let file = open_regular(path)?;
    let mut bytes = Vec::new();
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(io::Error::new(io::ErrorKind::InvalidData, "file too large"));
    }
    Ok(bytes)
}

pub(super) fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

pub(super) fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// The content hashes of one regular file.
pub(super) struct ContentHash {
    pub sha256: String,
    /// The git blob id of the raw bytes (no filters), when asked for.
    pub blob: Option<gix::ObjectId>,
}

/// Files bigger than this are not read whole: their identity is their stat plus a sample.
pub(super) const HUGE_FILE: u64 = 64 * 1024 * 1024;
/// How many blocks of a huge file are sampled, and how big each is.
const SAMPLES: u64 = 16;
const SAMPLE_BLOCK: usize = 64 * 1024;

/// Hash a regular file's content in chunks: SHA-256 and, with `blob_kind`, its git blob id.
/// A file over [`HUGE_FILE`] gets a `sampled:` digest of its size, times, inode and 16 blocks
/// spread over it, and no blob id (so a huge tracked file whose stat differs counts as modified):
/// a 15 TiB sparse file costs a stat and 1 MiB of reads, not hours.
pub(super) fn hash_file(
    path: &Path,
    blob_kind: Option<gix::hash::Kind>,
) -> io::Result<ContentHash> {
    hash_file_limited(path, blob_kind, HUGE_FILE)
}

/// [`hash_file`] with another limit for whole reads.
pub(super) fn hash_file_limited(
    path: &Path,
    blob_kind: Option<gix::hash::Kind>,
    limit: u64,
) -> io::Result<ContentHash> {
    hash_open(open_regular(path)?, blob_kind, limit)
}

pub(super) fn hash_open(
    mut file: File,
    blob_kind: Option<gix::hash::Kind>,
    limit: u64,
) -> io::Result<ContentHash> {
    let meta = file.metadata()?;
    let len = meta.len();
    if len > limit {
        return sample_file(&file, &meta);
    }
    let mut sha = Sha256::new();
    let mut blob = blob_kind.map(|kind| {
        let mut h = gix::hash::hasher(kind);
        h.update(format!("blob {len}\0").as_bytes());
        h
    });
    let mut buf = vec![0u8; 64 * 1024];
    let mut total = 0u64;
    loop {
        let n = match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        total += n as u64;
        // A file growing while it is read is hashed as far as its size when opened, plus one
        // chunk: enough to know it changed, never an unbounded read.
        if total > len + buf.len() as u64 {
            break;
        }
        sha.update(&buf[..n]);
        if let Some(h) = blob.as_mut() {
            h.update(&buf[..n]);
        }
    }
    // A file that changed size while being read gets a blob id that cannot match the index.
    let blob = match blob {
        Some(h) if total == len => h.try_finalize().ok(),
        _ => None,
    };
    Ok(ContentHash {
        sha256: hex(&sha.finalize()),
        blob,
    })
}

/// The identity of a huge file: stat data and sampled blocks (see [`hash_file`]).
fn sample_file(file: &File, meta: &fs::Metadata) -> io::Result<ContentHash> {
    use std::os::unix::fs::FileExt;
    let len = meta.len();
    let mut sha = Sha256::new();
    sha.update(
        format!(
            "size {len} mtime {}.{} ctime {}.{} ino {}\n",
            meta.mtime(),
            meta.mtime_nsec(),
            meta.ctime(),
            meta.ctime_nsec(),
            meta.ino()
        )
        .as_bytes(),
    );
    let mut buf = vec![0u8; SAMPLE_BLOCK];
    let span = len.saturating_sub(SAMPLE_BLOCK as u64);
    for i in 0..SAMPLES {
        let offset = span / (SAMPLES - 1) * i;
        let n = loop {
            match file.read_at(&mut buf, offset) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        };
        sha.update(offset.to_le_bytes());
        sha.update(&buf[..n]);
    }
    Ok(ContentHash {
        sha256: format!("sampled:{}", hex(&sha.finalize())),
        blob: None,
    })
}

/// The git blob id of a symlink (its target bytes).
pub(super) fn blob_of_bytes(kind: gix::hash::Kind, bytes: &[u8]) -> Option<gix::ObjectId> {
    gix::objs::compute_hash(kind, gix::objs::Kind::Blob, bytes).ok()
}

/// The kind of a directory entry, as recorded in snapshots.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    File,
    Symlink,
    Dir,
    /// A FIFO, socket or device: recorded, never opened.
    Other,
}

impl Kind {
    pub fn of(ft: fs::FileType) -> Kind {
        if ft.is_symlink() {
            Kind::Symlink
        } else if ft.is_dir() {
            Kind::Dir
        } else if ft.is_file() {
            Kind::File
        } else {
            Kind::Other
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::File => "file",
            Kind::Symlink => "symlink",
            Kind::Dir => "dir",
            Kind::Other => "special file",
        }
    }
}

/// The identity of one small metadata file (config, hook, pointer): what it is and what it holds.
#[derive(Debug, Clone, Serialize)]
pub struct FileDigest {
    pub kind: Kind,
    /// Permission bits (`st_mode & 0o7777`: setuid, setgid and sticky included).
    pub mode: u32,
    /// Owner and group (`st_uid`, `st_gid`): another user given a file can rewrite it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner: Option<(u32, u32)>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link: Option<RepoPath>,
    /// Why the content could not be read, when it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The bytes of a config file, kept so a change can be reported by key.
    #[serde(skip)]
    pub text: Option<Arc<Vec<u8>>>,
    /// ACLs and file capability (`xattrs.rs`), when it has any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub xattrs: Option<Xattrs>,
}

impl FileDigest {
    /// Equal in everything that is recorded (the kept text is covered by the hash).
    pub fn same(&self, other: &FileDigest) -> bool {
        self.kind == other.kind
            && self.mode == other.mode
            && self.owner == other.owner
            && self.sha256 == other.sha256
            && self.link == other.link
            && self.error == other.error
            && self.xattrs == other.xattrs
    }
}

/// Digest one file; `None` when it does not exist. With `keep_text`, a small regular file's bytes
/// are kept too.
pub(super) fn digest(path: &Path, keep_text: bool) -> Option<FileDigest> {
    digest_limited(path, keep_text, HUGE_FILE)
}

/// Like [`digest`], but files over `limit` bytes are fingerprinted (stat and a sample).
pub(super) fn digest_limited(path: &Path, keep_text: bool, limit: u64) -> Option<FileDigest> {
    let meta = match fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound || e.raw_os_error() == Some(20) => {
            return None;
        }
        Err(e) => {
            return Some(FileDigest {
                kind: Kind::Other,
                mode: 0,
                owner: None,
                sha256: None,
                link: None,
                error: Some(e.kind().to_string()),
                text: None,
                xattrs: None,
            });
        }
    };
    let kind = Kind::of(meta.file_type());
    let mut d = FileDigest {
        kind,
        mode: meta.mode() & 0o7777,
        owner: Some((meta.uid(), meta.gid())),
        sha256: None,
        link: None,
        error: None,
        text: None,
        xattrs: Xattrs::of(path),
    };
    match kind {
        Kind::Symlink => match fs::read_link(path) {
            Ok(target) => d.link = Some(RepoPath::from_path(&target)),
            Err(e) => d.error = Some(e.kind().to_string()),
        },
        Kind::File if keep_text && meta.len() <= KEEP_TEXT_LIMIT => {
            match read_small(path, KEEP_TEXT_LIMIT) {
                Ok(bytes) => {
                    d.sha256 = Some(sha256_hex(&bytes));
                    d.text = Some(Arc::new(bytes));
                }
                Err(e) => d.error = Some(e.kind().to_string()),
            }
        }
        Kind::File => match hash_file_limited(path, None, limit) {
            Ok(h) => d.sha256 = Some(h.sha256),
            Err(e) => d.error = Some(e.kind().to_string()),
        },
        Kind::Dir | Kind::Other => {}
    }
    Some(d)
}

/// Digest a path that git would follow if it is a link: a link records its text and what its
/// target holds (mode and content; a config target's bytes are kept), so a dotfile manager's
/// symlinked `~/.gitconfig` or a linked hook is compared by content, not just by where it points.
/// The target is opened non-blocking and checked to be a regular file before it is read.
pub(super) fn digest_following(path: &Path) -> FileDigest {
    let Some(mut d) = digest(path, true) else {
        return FileDigest {
            kind: Kind::Other,
            mode: 0,
            owner: None,
            sha256: None,
            link: None,
            error: Some("not found".into()),
            text: None,
            xattrs: None,
        };
    };
    if d.kind != Kind::Symlink {
        return d;
    }
    // What git runs or reads is the target: its ACLs and capability, not the link's.
    d.xattrs = Xattrs::of_target(path);
    match fs::metadata(path) {
        Ok(meta) if meta.is_file() => {
            d.mode = meta.mode() & 0o7777;
            d.owner = Some((meta.uid(), meta.gid()));
            let opened = OpenOptions::new()
                .read(true)
                .custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits())
                .open(path)
                .and_then(|f| {
                    if f.metadata()?.is_file() {
                        Ok(f)
                    } else {
                        Err(io::Error::new(
                            io::ErrorKind::InvalidInput,
                            "not a regular file",
                        ))
                    }
                });
            match opened {
                Ok(mut f) if meta.len() <= KEEP_TEXT_LIMIT => {
                    let mut bytes = Vec::new();
                    match (&mut f).take(KEEP_TEXT_LIMIT + 1).read_to_end(&mut bytes) {
                        Ok(_) => {
                            d.sha256 = Some(sha256_hex(&bytes));
                            d.text = Some(Arc::new(bytes));
                        }
                        Err(e) => d.error = Some(e.kind().to_string()),
                    }
                }
                Ok(f) => match hash_open(f, None, HUGE_FILE) {
                    Ok(h) => d.sha256 = Some(h.sha256),
                    Err(e) => d.error = Some(e.kind().to_string()),
                },
                Err(e) => d.error = Some(e.kind().to_string()),
            }
        }
        Ok(meta) if meta.is_dir() => {
            d.mode = meta.mode() & 0o7777;
            d.owner = Some((meta.uid(), meta.gid()));
        }
        Ok(_) => d.error = Some("a link to a special file".into()),
        Err(e) => d.error = Some(format!("target: {}", e.kind())),
    }
    d
}

/// The SHA-256 of what a worktree path holds: a file's content, a symlink's target; nothing for
/// a directory or a special file.
pub(super) fn content_sha256(abs: &Path, kind: Kind) -> Option<String> {
    match kind {
        Kind::File => hash_file(abs, None).ok().map(|h| h.sha256),
        Kind::Symlink => fs::read_link(abs)
            .ok()
            .map(|t| sha256_hex(std::os::unix::ffi::OsStrExt::as_bytes(t.as_os_str()))),
        Kind::Dir | Kind::Other => None,
    }
}
