//! Whether a file of git's object store still holds what its name or its own checksum says.
//!
//! Objects and packs are immutable and content-addressed, and `git clone /local/path` hard-links
//! them with every local clone of the same source: a clone made or removed elsewhere moves their
//! link count and ctime and nothing else. So the git-directory part records an object file by its
//! name, size, mtime, inode and mode, not its ctime, and where the ctime moved since the snapshot
//! before, reads the file back: a loose object must still inflate to the object its name is the
//! hash of, a pack file (`.pack`, `.idx`, `.rev`, `.mtimes`, `.bitmap`, `multi-pack-index`) must
//! still end in the checksum of everything before it. Any other change of content is reported.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

/// Loose objects bigger than this are not read back: the change is reported.
const MAX_LOOSE: u64 = 256 * 1024 * 1024;

/// The two hashes git names objects by.
#[derive(Clone, Copy)]
enum Kind {
    Sha1,
    Sha256,
}

impl Kind {
    fn len(self) -> usize {
        match self {
            Kind::Sha1 => 20,
            Kind::Sha256 => 32,
        }
    }
}

enum Hasher {
    Sha1(Box<gix::hash::Hasher>),
    Sha256(sha2::Sha256),
}

impl Hasher {
    fn new(kind: Kind) -> Hasher {
        match kind {
            Kind::Sha1 => Hasher::Sha1(Box::new(gix::hash::hasher(gix::hash::Kind::Sha1))),
            Kind::Sha256 => Hasher::Sha256(sha2::Digest::new()),
        }
    }

    fn update(&mut self, bytes: &[u8]) {
        match self {
            Hasher::Sha1(h) => h.update(bytes),
            Hasher::Sha256(h) => sha2::Digest::update(h, bytes),
        }
    }

    /// The digest; `None` for a SHA-1 collision attack, which is no intact object either.
    fn finish(self) -> Option<Vec<u8>> {
        match self {
            Hasher::Sha1(h) => h.try_finalize().ok().map(|id| id.as_bytes().to_vec()),
            Hasher::Sha256(h) => Some(sha2::Digest::finalize(h).to_vec()),
        }
    }
}

/// A loose object at `path` named `name` (the fan-out directory's two hex digits and the file's
/// name): its inflated content hashes to `name`, with nothing after the zlib stream.
pub(super) fn loose_intact(path: &Path, name: &str) -> bool {
    let kind = match name.len() {
        40 => Kind::Sha1,
        64 => Kind::Sha256,
        _ => return false,
    };
    let Ok(file) = File::open(path) else {
        return false;
    };
    if !file
        .metadata()
        .is_ok_and(|m| m.is_file() && m.len() <= MAX_LOOSE)
    {
        return false;
    }
    let mut data = Vec::new();
    if file.take(MAX_LOOSE).read_to_end(&mut data).is_err() {
        return false;
    }
    let mut z = gix::zlib::Decompress::new();
    let mut out = vec![0u8; 64 * 1024];
    let mut hasher = Hasher::new(kind);
    let mut input = &data[..];
    loop {
        let (was_in, was_out) = (z.total_in(), z.total_out());
        let status = match z.decompress(input, &mut out, gix::zlib::FlushDecompress::Finish) {
            Ok(s) => s,
            Err(_) => return false,
        };
        let consumed = usize::try_from(z.total_in() - was_in).unwrap_or(usize::MAX);
        let produced = usize::try_from(z.total_out() - was_out).unwrap_or(usize::MAX);
        let (Some(rest), Some(made)) = (input.get(consumed..), out.get(..produced)) else {
            return false;
        };
        hasher.update(made);
        input = rest;
        match status {
            gix::zlib::Status::StreamEnd => break,
            _ if consumed == 0 && produced == 0 => return false,
            _ => {}
        }
    }
    input.is_empty() && hasher.finish().is_some_and(|d| hex(&d) == name)
}

/// A file that ends in the checksum of everything before it (git's pack files, indexes, reverse
/// indexes, mtimes, bitmaps and multi-pack indexes, SHA-1 or SHA-256): it still does.
pub(super) fn checksum_intact(path: &Path) -> bool {
    [Kind::Sha1, Kind::Sha256]
        .into_iter()
        .any(|kind| ends_in_its_checksum(path, kind))
}

fn ends_in_its_checksum(path: &Path, kind: Kind) -> bool {
    let Ok(file) = File::open(path) else {
        return false;
    };
    let Ok(len) = file.metadata().map(|m| m.len()) else {
        return false;
    };
    let n = kind.len() as u64;
    if len < n {
        return false;
    }
    let mut reader = BufReader::with_capacity(1024 * 1024, file);
    let mut hasher = Hasher::new(kind);
    let mut left = len - n;
    let mut buf = vec![0u8; 1024 * 1024];
    while left > 0 {
        let want = usize::try_from(left.min(buf.len() as u64)).unwrap_or(buf.len());
        let Some(chunk) = buf.get_mut(..want) else {
            return false;
        };
        if reader.read_exact(chunk).is_err() {
            return false;
        }
        hasher.update(chunk);
        left -= want as u64;
    }
    let mut trailer = vec![0u8; kind.len()];
    if reader.read_exact(&mut trailer).is_err() {
        return false;
    }
    hasher.finish().is_some_and(|d| d == trailer)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    fn git(dir: &Path, args: &[&str]) -> String {
        let out = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@x"])
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "{:?}", out);
        String::from_utf8(out.stdout).unwrap()
    }

    #[test]
    fn git_objects_and_packs_are_intact_and_an_altered_byte_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        git(d, &["init", "-q"]);
        std::fs::write(d.join("a"), "a\n").unwrap();
        git(d, &["add", "a"]);
        git(d, &["commit", "-qm", "a"]);
        let id = git(d, &["rev-parse", "HEAD"]).trim().to_string();
        let loose = d.join(".git/objects").join(&id[..2]).join(&id[2..]);
        assert!(loose_intact(&loose, &id));
        assert!(!loose_intact(&loose, &"0".repeat(40)));
        git(d, &["repack", "-adq"]);
        let packs: Vec<_> = std::fs::read_dir(d.join(".git/objects/pack"))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        assert!(packs.len() >= 2, "{packs:?}");
        for p in &packs {
            assert!(checksum_intact(p), "{}", p.display());
        }
        let pack = packs
            .iter()
            .find(|p| p.extension().is_some_and(|e| e == "pack"))
            .unwrap();
        let mut bytes = std::fs::read(pack).unwrap();
        let middle = bytes.len() / 2;
        bytes[middle] ^= 0xff;
        let copy = d.join("altered.pack");
        std::fs::write(&copy, &bytes).unwrap();
        assert!(!checksum_intact(&copy));
    }
}
