//! Index files read as bytes: opened safely (regular file, no link, non-blocking), parsed by gix
//! from memory, and digested without their stat data.
//!
//! What a read-only `git status` may rewrite is left out of every digest: each entry's stat data
//! (ctime, mtime, dev, ino, uid, gid, size) and the untracked-cache (`UNTR`) and fsmonitor
//! (`FSMN`) extensions, plus the two that only index the file's own layout (`EOIE`, `IEOT`).
//! Everything else counts: each entry's mode, id, flags and path, and every other extension
//! (cache-tree `TREE`, resolve-undo `REUC`, split index `link`, sparse `sdir`, unknown ones).

use std::collections::BTreeMap;
use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use sha2::{Digest, Sha256};

use super::files::{self, FileDigest, Kind};

/// The biggest index file read (git's own limit on entries makes real ones far smaller).
const INDEX_LIMIT: u64 = 2 * 1024 * 1024 * 1024;

/// Extensions a read-only git command may rewrite, or that only describe the file's layout.
const VOLATILE: [&[u8; 4]; 4] = [b"UNTR", b"FSMN", b"EOIE", b"IEOT"];

/// An index file's bytes and the stat of the file they were read from.
pub(super) struct IndexBytes {
    pub bytes: Vec<u8>,
    pub meta: std::fs::Metadata,
}

/// Read an index file; `Ok(None)` when there is none.
pub(super) fn read(path: &Path) -> std::io::Result<Option<IndexBytes>> {
    match open(path)? {
        Some((file, meta)) => read_open(file, meta).map(Some),
        None => Ok(None),
    }
}

/// Open an index file (a regular file, no link, non-blocking) and `fstat` it; `Ok(None)` when
/// there is none.
pub(super) fn open(path: &Path) -> std::io::Result<Option<(std::fs::File, std::fs::Metadata)>> {
    let file = match files::open_regular(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let meta = file.metadata()?;
    Ok(Some((file, meta)))
}

/// Read an index file opened by [`open`].
pub(super) fn read_open(
    file: std::fs::File,
    meta: std::fs::Metadata,
) -> std::io::Result<IndexBytes> {
    let mut bytes = Vec::with_capacity(meta.len().min(INDEX_LIMIT) as usize);
    file.take(INDEX_LIMIT + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > INDEX_LIMIT {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "index file larger than 2 GiB",
        ));
    }
    Ok(IndexBytes { bytes, meta })
}

/// Parse index bytes with gix (no checksum check: it guards against disk corruption, not a
/// runner, which could rewrite it).
pub(super) fn parse(ib: &IndexBytes, hash: gix::hash::Kind) -> Result<gix::index::State, String> {
    gix::index::State::from_bytes(
        &ib.bytes,
        filetime::FileTime::from_unix_time(ib.meta.mtime(), ib.meta.mtime_nsec() as u32),
        hash,
        gix::index::decode::Options::default(),
    )
    .map(|(state, _)| state)
    .map_err(|e| e.to_string())
}

/// The parts of an index file that count: entries without stat data, and extensions.
struct Parts<'a> {
    header: &'a [u8],
    /// Each entry without its stat fields.
    entries: Vec<[&'a [u8]; 2]>,
    extensions: Vec<(&'a [u8], &'a [u8])>,
}

/// Split index bytes into entries and extensions (format: git's `Documentation/gitformat-index`);
/// with `keep_entries` false the entries are only skipped (no list is built).
fn split(bytes: &[u8], hash_len: usize, keep_entries: bool) -> Result<Parts<'_>, &'static str> {
    let bad = "not a valid index file";
    if bytes.len() < 12 + hash_len || &bytes[..4] != b"DIRC" {
        return Err(bad);
    }
    let version = u32::from_be_bytes(bytes[4..8].try_into().map_err(|_| bad)?);
    let count = u32::from_be_bytes(bytes[8..12].try_into().map_err(|_| bad)?) as usize;
    if !(2..=4).contains(&version) {
        return Err("unsupported index version");
    }
    let end = bytes.len() - hash_len;
    let mut at = 12;
    let mut entries = Vec::with_capacity(if keep_entries { count.min(end / 62) } else { 0 });
    for _ in 0..count {
        let start = at;
        // ctime 8, mtime 8, dev 4, ino 4 | mode 4 | uid 4, gid 4, size 4 | id | flags 2
        let fixed = 40 + hash_len + 2;
        if start + fixed > end {
            return Err(bad);
        }
        let flags = u16::from_be_bytes([bytes[start + fixed - 2], bytes[start + fixed - 1]]);
        let mut path_at = start + fixed;
        if version >= 3 && flags & 0x4000 != 0 {
            path_at += 2;
        }
        if version == 4 {
            // A varint of bytes to strip from the previous path, then a NUL-terminated suffix.
            while *bytes.get(path_at).ok_or(bad)? & 0x80 != 0 {
                path_at += 1;
            }
            path_at += 1;
        }
        let nul = bytes[path_at.min(end)..end]
            .iter()
            .position(|b| *b == 0)
            .ok_or(bad)?;
        let path_end = path_at + nul;
        at = if version == 4 {
            path_end + 1
        } else {
            // Padded with 1–8 NULs to a multiple of 8 bytes.
            start + ((path_end - start + 8) & !7)
        };
        if at > end {
            return Err(bad);
        }
        if keep_entries {
            entries.push([&bytes[start + 24..start + 28], &bytes[start + 40..path_end]]);
        }
    }
    let mut extensions = Vec::new();
    while at + 8 <= end {
        let sig = &bytes[at..at + 4];
        let size = u32::from_be_bytes(bytes[at + 4..at + 8].try_into().map_err(|_| bad)?) as usize;
        let data_end = (at + 8).checked_add(size).ok_or(bad)?;
        if data_end > end {
            return Err(bad);
        }
        extensions.push((sig, &bytes[at + 8..data_end]));
        at = data_end;
    }
    Ok(Parts {
        header: &bytes[..12],
        entries,
        extensions,
    })
}

fn counted(sig: &[u8]) -> bool {
    !VOLATILE.iter().any(|v| v.as_slice() == sig)
}

fn show_sig(sig: &[u8]) -> String {
    super::path::escape_bytes(sig)
}

/// SHA-256 of each extension that counts, by signature (`TREE`, `REUC`, …; a repeated one gets
/// `#2`, `#3`). Empty when the bytes cannot be split (gix then reports the index unreadable).
pub(super) fn extensions(bytes: &[u8], hash: gix::hash::Kind) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let Ok(parts) = split(bytes, hash.len_in_bytes(), false) else {
        return out;
    };
    for (sig, data) in parts.extensions {
        if !counted(sig) {
            continue;
        }
        let mut name = show_sig(sig);
        let mut n = 1;
        while out.contains_key(&name) {
            n += 1;
            name = format!("{}#{n}", show_sig(sig));
        }
        out.insert(name, files::sha256_hex(data));
    }
    out
}

/// A stat-free digest of an index file anywhere in a git directory (a linked worktree's, a
/// submodule's): `git status` there refreshing stat data is not a change, anything else is.
pub(super) fn file_digest(path: &Path) -> Option<FileDigest> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.is_file() {
        return files::digest(path, false);
    }
    let digest = read(path).map_err(|e| e.kind().to_string()).and_then(|ib| {
        let ib = ib.ok_or_else(|| "gone".to_string())?;
        // SHA-1 or SHA-256 ids: whichever splits the file exactly.
        let parts = split(&ib.bytes, 20, true)
            .or_else(|_| split(&ib.bytes, 32, true))
            .map_err(str::to_string)?;
        let mut sha = Sha256::new();
        sha.update(parts.header);
        for [mode, rest] in parts.entries {
            sha.update(mode);
            sha.update(rest);
        }
        for (sig, data) in parts.extensions.into_iter().filter(|(s, _)| counted(s)) {
            sha.update(sig);
            sha.update((data.len() as u64).to_le_bytes());
            sha.update(data);
        }
        Ok(files::hex(&sha.finalize()))
    });
    match digest {
        Ok(h) => Some(FileDigest {
            kind: Kind::File,
            mode: meta.mode() & 0o7777,
            owner: Some((meta.uid(), meta.gid())),
            sha256: Some(format!("index:{h}")),
            link: None,
            error: None,
            text: None,
            xattrs: super::xattrs::Xattrs::of(path),
        }),
        // Not an index git could read either: compared by its bytes.
        Err(_) => files::digest(path, false),
    }
}
