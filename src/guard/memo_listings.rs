//! The memo's second file (`memo.rs` is the first): the listings of the worktree's directories
//! as the last run read them, each with the whole stat of its directory (`guard-listings` in the
//! local tier), so that the next run's first snapshot lists again only the directories whose
//! stat moved, and `stat`s the others.
//!
//! Why that is enough: adding, removing or renaming an entry of a directory (or replacing one by
//! another kind) moves the directory's mtime and ctime, and a ctime is set to the current time,
//! which no process can set back. A listing is kept only when both times were older than its
//! snapshot's start by the settling margin, and taken over only while the directory's whole stat
//! (device, inode, times, size, mode, owner) is the same: the rule by which a snapshot takes
//! over the one before it within a run (`reuse.rs`). It says nothing of the entries' contents,
//! which every snapshot still `stat`s, nor of the directory's ACLs, which come from the first
//! file of the memo or are read.
//!
//! Trusted as the first file is, and written with it, by the same runs (`memo.rs`): anything not
//! exactly what [`save`] writes for this worktree is ignored, and every directory listed.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use super::files::Kind;
use super::memo::{self, Plain, Stamp, read_own, write_own};
use super::reuse::{Earlier, Listing, StatKey};

/// The file's name in the local tier.
pub(crate) const FILE: &str = "guard-listings";

/// Its format, so an older or newer one is ignored, not misread.
const MAGIC: &[u8; 16] = b"interview-list2\n";

/// Listings by the directory's path relative to the worktree root (`""`: the root), with the
/// directory's stat when read.
pub(super) type Listings = HashMap<Vec<u8>, (StatKey, Arc<Listing>)>;

/// Write the listings of the worktree at `root` into its local tier `tier`, replacing any.
fn save(root: &Path, tier: &Path, listings: &Listings) -> std::io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let mut dirs: Vec<_> = kept_dirs(listings, root, tier).collect();
    let root = std::fs::metadata(root)?;
    dirs.sort_unstable_by(|a, b| a.0.cmp(b.0));
    let mut out = Vec::with_capacity(64 + dirs.len() * 96);
    out.extend_from_slice(MAGIC);
    for word in [root.dev(), root.ino(), dirs.len() as u64] {
        out.extend_from_slice(&word.to_le_bytes());
    }
    for (path, (key, listing)) in dirs {
        // A path or a name too long for its length field (no file system has one) is not kept.
        let (Ok(path_len), Ok(count)) = (u32::try_from(path.len()), u32::try_from(listing.len()))
        else {
            return Ok(());
        };
        out.extend_from_slice(&path_len.to_le_bytes());
        out.extend_from_slice(path);
        put_key(&mut out, key);
        out.extend_from_slice(&count.to_le_bytes());
        for (name, kind) in listing.iter() {
            let Ok(len) = u16::try_from(name.len()) else {
                return Ok(());
            };
            out.push(kind_byte(kind));
            out.extend_from_slice(&len.to_le_bytes());
            out.extend_from_slice(name);
        }
    }
    write_own(tier, FILE, &out)
}

/// Both files of the memo as a run's first snapshot read them, kept for the run's last: a file
/// whose content would be written again unchanged, and that is still the very file read (not
/// rewritten, replaced or touched since), is left as it is.
#[derive(Debug, Default)]
pub(super) struct Kept {
    /// A digest of the ACL memo's facts (`Plain::digest`).
    plain_digest: u64,
    plain_stamp: Option<Stamp>,
    listings: Listings,
    listings_stamp: Option<Stamp>,
}

/// The memo as read, before the first snapshot takes it over: what the snapshot starts from,
/// and the stamps of the two files.
pub(super) struct Remembered {
    pub earlier: Earlier,
    stamps: (Option<Stamp>, Option<Stamp>),
}

impl Remembered {
    /// The memo of the worktree at `root` in its local tier `tier`, as this user wrote it for
    /// this worktree; what is not is empty.
    pub(super) fn load(root: &Path, tier: &Path) -> Remembered {
        let plain = read_own(root, tier, memo::FILE);
        let listings = read_own(root, tier, FILE);
        let earlier = Earlier {
            plain: (plain.as_ref())
                .and_then(|own| memo::parse(&own.bytes, own.dev, own.ino))
                .unwrap_or_default(),
            listings: (listings.as_ref())
                .and_then(|own| parse(&own.bytes, own.dev, own.ino))
                .unwrap_or_default(),
            ..Earlier::default()
        };
        Remembered {
            earlier,
            stamps: (plain.map(|own| own.stamp), listings.map(|own| own.stamp)),
        }
    }

    /// Once the first snapshot is taken: what it found without ACLs, and the memo kept for the
    /// run's last snapshot.
    pub(super) fn taken(self) -> (Plain, Kept) {
        let kept = Kept {
            plain_digest: self.earlier.plain.digest(),
            plain_stamp: self.stamps.0,
            listings: self.earlier.listings,
            listings_stamp: self.stamps.1,
        };
        (self.earlier.plain, kept)
    }
}

impl Kept {
    /// Write the memo for the worktree at `root` into its local tier `tier`, from what a run's
    /// last snapshot found (`plain`) and listed (`listings`), leaving each file that would be
    /// written as it was read (`kept`: by the run's first snapshot).
    pub(super) fn save(
        kept: Option<&Kept>,
        (root, tier): (&Path, &Path),
        plain: &Plain,
        listings: &Listings,
    ) -> std::io::Result<()> {
        // A digest is enough: a fact stays true once found (`memo.rs`), so a memo left as it
        // was by a rare equal digest is only less complete.
        let same_plain = kept.is_some_and(|k| {
            k.plain_digest == plain.digest()
                && memo::unchanged(tier, memo::FILE, k.plain_stamp.as_ref())
        });
        if !same_plain {
            plain.save(root, tier)?;
        }
        let same_listings = kept.is_some_and(|k| {
            same(&k.listings, listings, (root, tier))
                && memo::unchanged(tier, FILE, k.listings_stamp.as_ref())
        });
        if !same_listings {
            save(root, tier, listings)?;
        }
        Ok(())
    }
}

/// Whether the memo of the worktree `root` in `tier` holds the listing of the directory `rel`
/// (for the tests: what the next run's first snapshot takes over while its stat holds).
pub fn lists(root: &Path, tier: &Path, rel: &str) -> bool {
    let memo = Remembered::load(root, tier);
    memo.earlier.listings.contains_key(rel.as_bytes())
}

/// Whether the memo would keep of `now` exactly what it holds (`kept`, as read): the same
/// directories, each with the same stat and the same listing.
fn same(kept: &Listings, now: &Listings, (root, tier): (&Path, &Path)) -> bool {
    let mut count = 0;
    let all_same = kept_dirs(now, root, tier).all(|(rel, (key, l))| {
        count += 1;
        kept.get(rel)
            .is_some_and(|(k_key, k)| k_key == key && (Arc::ptr_eq(k, l) || k == l))
    });
    all_same && count == kept.len()
}

/// The listings the memo keeps: not those of the local tier and below, which every run writes.
fn kept_dirs<'a>(
    listings: &'a Listings,
    root: &Path,
    tier: &Path,
) -> impl Iterator<Item = (&'a Vec<u8>, &'a (StatKey, Arc<Listing>))> {
    use std::os::unix::ffi::OsStrExt;
    let tier = tier
        .strip_prefix(root)
        .ok()
        .map(|t| t.as_os_str().as_bytes().to_vec());
    listings.iter().filter(move |(rel, _)| {
        !tier.as_ref().is_some_and(|t| {
            !t.is_empty() && rel.starts_with(t) && matches!(rel.get(t.len()), None | Some(b'/'))
        })
    })
}

fn put_key(out: &mut Vec<u8>, k: &StatKey) {
    let words = [
        k.size,
        k.mtime.0 as u64,
        k.mtime.1 as u64,
        k.ctime.0 as u64,
        k.ctime.1 as u64,
        k.ino,
        k.dev,
        u64::from(k.mode),
        u64::from(k.uid),
        u64::from(k.gid),
    ];
    for w in words {
        out.extend_from_slice(&w.to_le_bytes());
    }
}

fn kind_byte(kind: Kind) -> u8 {
    match kind {
        Kind::File => 0,
        Kind::Symlink => 1,
        Kind::Dir => 2,
        Kind::Other => 3,
    }
}

/// Reads the file front to back; every read is bounds-checked.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.at.checked_add(n)?;
        let b = self.bytes.get(self.at..end)?;
        self.at = end;
        Some(b)
    }

    fn word(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    fn len(&mut self) -> Option<usize> {
        usize::try_from(self.word()?).ok()
    }

    fn count(&mut self) -> Option<usize> {
        let b = self.take(4)?;
        usize::try_from(u32::from_le_bytes(b.try_into().ok()?)).ok()
    }

    fn path(&mut self) -> Option<&'a [u8]> {
        let n = self.count()?;
        self.take(n)
    }

    fn name(&mut self) -> Option<&'a [u8]> {
        let b = self.take(2)?;
        self.take(usize::from(u16::from_le_bytes(b.try_into().ok()?)))
    }

    fn key(&mut self) -> Option<StatKey> {
        let mut w = [0u64; 10];
        for slot in &mut w {
            *slot = self.word()?;
        }
        let small = |v: u64| u32::try_from(v).ok();
        Some(StatKey {
            size: w[0],
            mtime: (w[1] as i64, w[2] as i64),
            ctime: (w[3] as i64, w[4] as i64),
            ino: w[5],
            dev: w[6],
            mode: small(w[7])?,
            uid: small(w[8])?,
            gid: small(w[9])?,
        })
    }

    fn kind(&mut self) -> Option<Kind> {
        Some(match self.take(1)?[0] {
            0 => Kind::File,
            1 => Kind::Symlink,
            2 => Kind::Dir,
            3 => Kind::Other,
            _ => return None,
        })
    }
}

/// The listings of a file made for the root `(dev, ino)`: exactly a header and its directories,
/// in strictly increasing order of path, each path relative (no empty, `.` or `..` component),
/// each listing one a directory read could give; anything else, nothing.
fn parse(bytes: &[u8], dev: u64, ino: u64) -> Option<Listings> {
    let mut r = Reader { bytes, at: 0 };
    if r.take(MAGIC.len())? != MAGIC || r.word()? != dev || r.word()? != ino {
        return None;
    }
    let count = r.len()?;
    let mut listings = HashMap::with_capacity(count.min(bytes.len() / 96));
    let mut last: Option<&[u8]> = None;
    let mut entries: Vec<(&[u8], Kind)> = Vec::new();
    for _ in 0..count {
        let path = r.path()?;
        let relative = path.is_empty()
            || path
                .split(|b| *b == b'/')
                .all(|c| !c.is_empty() && c != b"." && c != b".." && !c.contains(&0));
        if !relative || last.is_some_and(|l| l >= path) {
            return None;
        }
        last = Some(path);
        let key = r.key()?;
        let n = r.count()?;
        entries.clear();
        entries.reserve(n.min(bytes.len() / 3));
        for _ in 0..n {
            let kind = r.kind()?;
            entries.push((r.name()?, kind));
        }
        let listing = Listing::from_entries(&entries)?;
        listings.insert(path.to_vec(), (key, Arc::new(listing)));
    }
    (r.at == bytes.len()).then_some(listings)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(ino: u64) -> StatKey {
        StatKey {
            size: 4096,
            mtime: (1_700_000_000, 5),
            ctime: (1_700_000_000, 7),
            ino,
            dev: 42,
            mode: 0o40755,
            uid: 1000,
            gid: 1000,
        }
    }

    fn listing(names: &[(&str, Kind)]) -> Arc<Listing> {
        let entries: Vec<(&[u8], Kind)> = names.iter().map(|(n, k)| (n.as_bytes(), *k)).collect();
        Arc::new(Listing::from_entries(&entries).unwrap())
    }

    fn sample() -> Listings {
        Listings::from([
            (
                b"".to_vec(),
                (
                    key(2),
                    listing(&[(".interview", Kind::Dir), ("src", Kind::Dir)]),
                ),
            ),
            (
                b"src".to_vec(),
                (
                    key(3),
                    listing(&[("a.rs", Kind::File), ("l", Kind::Symlink)]),
                ),
            ),
            (b"src/empty".to_vec(), (key(4), listing(&[]))),
            (
                b".interview".to_vec(),
                (key(5), listing(&[("lock", Kind::File)])),
            ),
            (b".interview/tmp".to_vec(), (key(6), listing(&[]))),
        ])
    }

    fn saved(root: &Path) -> Vec<u8> {
        let tier = root.join(".interview");
        std::fs::create_dir_all(&tier).unwrap();
        save(root, &tier, &sample()).unwrap();
        std::fs::read(tier.join(FILE)).unwrap()
    }

    fn root_id(root: &Path) -> (u64, u64) {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata(root).unwrap();
        (m.dev(), m.ino())
    }

    #[test]
    fn listings_read_back_as_written_but_not_the_local_tiers() {
        let dir = tempfile::tempdir().unwrap();
        let bytes = saved(dir.path());
        let (dev, ino) = root_id(dir.path());
        let back = parse(&bytes, dev, ino).unwrap();
        let mut names: Vec<_> = back
            .keys()
            .map(|k| String::from_utf8_lossy(k).into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["", "src", "src/empty"]);
        let all = sample();
        for (rel, (k, l)) in &back {
            let (k0, l0) = &all[rel];
            assert_eq!((k, &**l), (k0, &**l0));
        }
        let tier = dir.path().join(".interview");
        assert!(
            same(&back, &all, (dir.path(), &tier)),
            "the tier's own listings left out"
        );
        let mut moved = all.clone();
        moved.get_mut(b"src".as_slice()).unwrap().0.ctime.1 += 1;
        assert!(
            !same(&back, &moved, (dir.path(), &tier)),
            "a directory's stat moved"
        );
        moved.remove(b"src".as_slice());
        assert!(
            !same(&back, &moved, (dir.path(), &tier)),
            "a directory gone"
        );
    }

    #[test]
    fn listings_not_exactly_as_written_for_this_worktree_are_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let good = saved(dir.path());
        let (dev, ino) = root_id(dir.path());
        assert!(parse(&good, dev, ino).is_some());
        assert!(
            parse(&good, dev, ino + 1).is_none(),
            "made for another root"
        );
        assert!(
            parse(&good[..good.len() - 1], dev, ino).is_none(),
            "cut short"
        );
        let mut longer = good.clone();
        longer.push(0);
        assert!(
            parse(&longer, dev, ino).is_none(),
            "bytes after the last directory"
        );
        // Each of these a listing no directory read could give, or a path leading out.
        let bad: [Listings; 6] = [
            Listings::from([(b"src".to_vec(), (key(3), listing(&[("b", Kind::File)])))]),
            Listings::from([(b"../up".to_vec(), (key(3), listing(&[])))]),
            Listings::from([(b"src/./x".to_vec(), (key(3), listing(&[])))]),
            Listings::from([(b"/abs".to_vec(), (key(3), listing(&[])))]),
            Listings::from([(b"a//b".to_vec(), (key(3), listing(&[])))]),
            Listings::from([(b"src".to_vec(), (key(3), listing(&[])))]),
        ];
        let tier = dir.path().join(".interview");
        for (i, listings) in bad.iter().enumerate() {
            save(dir.path(), &tier, listings).unwrap();
            let mut bytes = std::fs::read(tier.join(FILE)).unwrap();
            match i {
                // The one name, `b`, made `/`.
                0 => {
                    let at = bytes.len() - 1;
                    bytes[at] = b'/';
                }
                5 => {
                    // A kind byte no kind has: the directory's entry count made 1, and an entry
                    // of kind 9 appended.
                    let at = bytes.len() - 4;
                    bytes[at] = 1;
                    bytes.push(9);
                    bytes.extend_from_slice(&1u16.to_le_bytes());
                    bytes.push(b'x');
                }
                _ => {}
            }
            assert!(parse(&bytes, dev, ino).is_none(), "case {i}");
        }
        let unsorted = [("b", Kind::File), ("a", Kind::File)];
        let unsorted: Vec<(&[u8], Kind)> =
            unsorted.iter().map(|(n, k)| (n.as_bytes(), *k)).collect();
        assert!(Listing::from_entries(&unsorted).is_none());
        for name in [b"".as_slice(), b".", b"..", b"a/b", b"a\0b"] {
            assert!(
                Listing::from_entries(&[(name, Kind::File)]).is_none(),
                "{name:?}"
            );
        }
    }
}
