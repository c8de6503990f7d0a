//! What one run remembers for the next, so that its first snapshot need not ask the kernel
//! again for every file whether it has an ACL or a file capability: the inodes that had none,
//! each by its inode number and ctime on the worktree root's device (`guard-memo` in the local
//! tier, `.interview/`,
//! written by a run that holds the worktree's lock after its last snapshot, read by the next
//! run's first).
//!
//! Why that is enough: an ACL or a capability is set on an inode, and setting, changing or
//! removing one moves its ctime to the current time, which no process can set back. So an inode
//! whose ctime is still the one recorded — recorded only when it was already older than the
//! snapshot's start by more than any file system's timestamp granularity (`reuse.rs`) — has had
//! none set since. A file replaced by another is another inode (or, with a reused number, a new
//! ctime); a path does not matter at all, so a rename or a hard link cannot borrow a record.
//!
//! The memo is trusted only as far as the rest of the local tier: a plain file in the worktree's
//! `.interview/` (never through a link), owned by this user, writable by no one else, made for
//! this worktree (its root's device and inode in the header). Anything else, or any file that is
//! not exactly what [`Plain::save`] writes, is ignored: the snapshot then lists every file.
//! Writing it during a turn is itself a change the guard reports (it is an ignored file of the
//! local tier), and every run's write replaces it whole from its own snapshot.

use std::io::Read;
use std::os::fd::AsFd;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// The memo's name in the local tier.
pub(crate) const FILE: &str = "guard-memo";

/// The first bytes of a memo: its format, so an older or newer one is ignored, not misread.
const MAGIC: &[u8; 16] = b"interview-memo1\n";
/// Magic, the worktree root's device and inode, the number of facts.
const HEADER: usize = MAGIC.len() + 8 + 8 + 8;
/// Inode, ctime in nanoseconds.
const FACT: usize = 16;
/// Far above what a million files need: a larger file is not read.
const LIMIT: u64 = 256 << 20;

/// One inode of the worktree root's device known to have had no ACL and no file capability
/// while its ctime was this (one of another device, a mount inside the worktree, is never
/// known).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Fact {
    ino: u64,
    ctime_ns: i64,
}

impl Fact {
    /// `None` for a ctime too far from the epoch to count in nanoseconds (never recorded).
    pub(super) fn new(ino: u64, (secs, nsecs): (i64, i64)) -> Option<Fact> {
        let ctime_ns = secs.checked_mul(1_000_000_000)?.checked_add(nsecs)?;
        Some(Fact { ino, ctime_ns })
    }

    pub(super) fn ctime_ns(&self) -> i64 {
        self.ctime_ns
    }
}

/// The inodes known to have no ACL and no file capability, sorted for lookup.
#[derive(Debug, Default)]
pub(super) struct Plain {
    facts: Vec<Fact>,
}

impl Plain {
    /// From facts in any order; in linear time when they come as a few sorted runs (each walk
    /// thread sorts its own: the stable sort merges runs it finds).
    pub(super) fn from_facts(mut facts: Vec<Fact>) -> Plain {
        facts.sort();
        facts.dedup();
        Plain { facts }
    }

    /// Whether `fact` is one of them. A walk asks in path order, and a checkout makes a
    /// directory's files one after the other, so the next inode asked is most often just past
    /// the last one found: the search gallops out from there (the place of this thread's last
    /// answer, a hint only) before it halves, and stays within a few cache lines.
    pub(super) fn knows(&self, fact: &Fact) -> bool {
        thread_local! {
            static NEAR: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
        }
        let facts = &self.facts;
        let near = NEAR.with(|n| n.get()).min(facts.len().saturating_sub(1));
        let (lo, hi) = match facts.get(near) {
            None => return false,
            Some(f) if f <= fact => {
                // Forward: facts[lo] <= fact, and fact < facts[hi] (or hi is the end).
                let (mut lo, mut step) = (near, 1);
                while lo + step < facts.len() && facts[lo + step] <= *fact {
                    lo += step;
                    step *= 2;
                }
                (lo, (lo + step + 1).min(facts.len()))
            }
            Some(_) => {
                // Backward: fact < facts[hi - 1].
                let (mut hi, mut step) = (near + 1, 1);
                while hi > step && facts[hi - 1 - step] > *fact {
                    hi -= step;
                    step *= 2;
                }
                (hi.saturating_sub(step + 1), hi)
            }
        };
        let found = facts[lo..hi].binary_search(fact);
        NEAR.with(|n| n.set(lo + found.unwrap_or_else(|i| i)));
        found.is_ok()
    }

    /// A digest of the facts, to tell whether a run found what the memo already says.
    pub(super) fn digest(&self) -> u64 {
        self.facts.iter().fold(self.facts.len() as u64, |h, f| {
            [f.ino, f.ctime_ns as u64].iter().fold(h, |h, w| {
                (h.rotate_left(5) ^ w).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95)
            })
        })
    }

    /// Write the memo for the worktree at `root` into its local tier `tier`, replacing any
    /// (never through a link: a temporary file renamed over it), readable and writable by this
    /// user only.
    pub(super) fn save(&self, root: &Path, tier: &Path) -> std::io::Result<()> {
        let root = std::fs::metadata(root)?;
        let mut bytes = Vec::with_capacity(HEADER + self.facts.len() * FACT);
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&root.dev().to_le_bytes());
        bytes.extend_from_slice(&root.ino().to_le_bytes());
        bytes.extend_from_slice(&(self.facts.len() as u64).to_le_bytes());
        for f in &self.facts {
            bytes.extend_from_slice(&f.ino.to_le_bytes());
            bytes.extend_from_slice(&f.ctime_ns.to_le_bytes());
        }
        write_own(tier, FILE, &bytes)
    }

    /// The memo of the worktree at `root` in its local tier `tier`, when there is one this
    /// user wrote for it; else nothing known.
    pub(super) fn load(root: &Path, tier: &Path) -> Plain {
        read(root, tier).unwrap_or_default()
    }
}

/// A memo file's identity and times when read: any rewrite, replacement or `touch` of it since
/// gives it another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Stamp {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl Stamp {
    fn of(m: &std::fs::Metadata) -> Stamp {
        Stamp {
            dev: m.dev(),
            ino: m.ino(),
            size: m.size(),
            mtime: (m.mtime(), m.mtime_nsec()),
            ctime: (m.ctime(), m.ctime_nsec()),
        }
    }
}

/// Whether the memo file `name` of the local tier `tier` is still the file stamped `stamp`
/// (reached without a link, as it was read).
pub(super) fn unchanged(tier: &Path, name: &str, stamp: Option<&Stamp>) -> bool {
    use nix::fcntl::{OFlag, open, openat};
    let Some(stamp) = stamp else {
        return false;
    };
    let nofollow = OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC | OFlag::O_NONBLOCK;
    let now = open(
        tier,
        OFlag::O_RDONLY | OFlag::O_DIRECTORY | nofollow,
        nix::sys::stat::Mode::empty(),
    )
    .and_then(|dir| {
        openat(
            dir.as_fd(),
            name,
            OFlag::O_RDONLY | nofollow,
            nix::sys::stat::Mode::empty(),
        )
    })
    .ok()
    .and_then(|fd| std::fs::File::from(fd).metadata().ok());
    now.is_some_and(|m| Stamp::of(&m) == *stamp)
}

/// Whether the memo of the worktree `root` in `tier` says that `file`, its inode as it is now,
/// has no ACL and no file capability (for the tests: what a run wrote).
pub fn says_plain(root: &Path, tier: &Path, file: &Path) -> bool {
    fact_of(root, file).is_some_and(|f| Plain::load(root, tier).knows(&f))
}

/// Write the memo of the worktree `root` into `tier` saying that exactly `files`, their inodes as
/// they are now, have none (for the tests: what a later run reads).
pub fn claim_plain(root: &Path, tier: &Path, files: &[&Path]) -> std::io::Result<()> {
    let facts = files.iter().filter_map(|f| fact_of(root, f)).collect();
    Plain::from_facts(facts).save(root, tier)
}

fn fact_of(root: &Path, file: &Path) -> Option<Fact> {
    let m = std::fs::symlink_metadata(file).ok()?;
    let same_device = m.dev() == std::fs::metadata(root).ok()?.dev();
    same_device.then_some(Fact::new(m.ino(), (m.ctime(), m.ctime_nsec()))?)
}

fn read(root: &Path, tier: &Path) -> Option<Plain> {
    let own = read_own(root, tier, FILE)?;
    parse(&own.bytes, own.dev, own.ino)
}

/// A memo file as read: its bytes, the worktree root's device and inode, and the file's stat.
pub(super) struct Own {
    pub bytes: Vec<u8>,
    pub dev: u64,
    pub ino: u64,
    pub stamp: Stamp,
}

/// The memo file `name` in the local tier `tier` of the worktree `root`, when this user wrote
/// it: a plain file reached without a link, owned by this user, writable by no one else, not
/// over the limit.
pub(super) fn read_own(root: &Path, tier: &Path, name: &str) -> Option<Own> {
    use nix::fcntl::{OFlag, open, openat};
    use nix::sys::stat::Mode;
    let root_meta = std::fs::metadata(root).ok()?;
    let nofollow = OFlag::O_NOFOLLOW | OFlag::O_CLOEXEC | OFlag::O_NONBLOCK;
    let tier = open(
        tier,
        OFlag::O_RDONLY | OFlag::O_DIRECTORY | nofollow,
        Mode::empty(),
    )
    .ok()?;
    let fd = openat(
        tier.as_fd(),
        name,
        OFlag::O_RDONLY | nofollow,
        Mode::empty(),
    )
    .ok()?;
    let mut file = std::fs::File::from(fd);
    let meta = file.metadata().ok()?;
    let own = meta.uid() == nix::unistd::geteuid().as_raw() && meta.mode() & 0o022 == 0;
    if !meta.file_type().is_file() || !own || meta.len() > LIMIT {
        return None;
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.read_to_end(&mut bytes).ok()?;
    Some(Own {
        bytes,
        dev: root_meta.dev(),
        ino: root_meta.ino(),
        stamp: Stamp::of(&meta),
    })
}

/// Write `bytes` as the memo file `name` of the local tier `tier`, replacing any (never through
/// a link: a temporary file renamed over it), readable and writable by this user only.
pub(super) fn write_own(tier: &Path, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    crate::atomic::write_via(
        &tier.join(name),
        bytes,
        Some(0o600),
        None,
        crate::atomic::Durability::Replaced,
    )
}

/// The facts of a memo made for the root `(dev, ino)`: exactly a header and its facts, sorted.
pub(super) fn parse(bytes: &[u8], dev: u64, ino: u64) -> Option<Plain> {
    let word = |at: usize| Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?));
    if bytes.get(..MAGIC.len())? != MAGIC
        || word(MAGIC.len())? != dev
        || word(MAGIC.len() + 8)? != ino
    {
        return None;
    }
    let count = usize::try_from(word(MAGIC.len() + 16)?).ok()?;
    if bytes.len() != HEADER.checked_add(count.checked_mul(FACT)?)? {
        return None;
    }
    let facts: Vec<Fact> = bytes[HEADER..]
        .chunks_exact(FACT)
        .map(|c| {
            let w = |i: usize| u64::from_le_bytes(c[i..i + 8].try_into().unwrap_or_default());
            Fact {
                ino: w(0),
                ctime_ns: w(8) as i64,
            }
        })
        .collect();
    facts
        .windows(2)
        .all(|w| w[0] < w[1])
        .then_some(Plain { facts })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fact(ino: u64, ctime: i64) -> Fact {
        Fact::new(ino, (ctime, 5)).unwrap()
    }

    fn tier(root: &Path) -> std::path::PathBuf {
        root.join(".interview")
    }

    fn path(root: &Path) -> std::path::PathBuf {
        tier(root).join(FILE)
    }

    fn saved(root: &Path) -> Vec<u8> {
        std::fs::create_dir_all(tier(root)).unwrap();
        let plain = Plain::from_facts(vec![fact(9, 100), fact(3, 200), fact(3, 200)]);
        plain.save(root, &tier(root)).unwrap();
        std::fs::read(path(root)).unwrap()
    }

    #[test]
    fn the_galloping_search_answers_as_a_binary_search_in_any_order_of_questions() {
        // A fixed pseudo-random sequence: facts with gaps, asked for present and absent ones,
        // in order, in reverse and jumping about.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for n in [0usize, 1, 2, 3, 7, 100, 1000] {
            let plain = Plain::from_facts((0..n).map(|i| fact(3 * i as u64, 1)).collect());
            let mut asked: Vec<u64> = (0..3 * n as u64 + 3).collect();
            asked.extend((0..3 * n as u64 + 3).rev());
            asked.extend((0..500).map(|_| next() % (3 * n as u64 + 3)));
            for ino in asked {
                let f = fact(ino, 1);
                assert_eq!(
                    plain.knows(&f),
                    plain.facts.binary_search(&f).is_ok(),
                    "n {n}, inode {ino}"
                );
            }
            assert!(!plain.knows(&fact(0, 2)), "another ctime");
        }
    }

    #[test]
    fn a_memo_reads_back_as_written_and_knows_only_the_exact_inode_and_ctime() {
        let dir = tempfile::tempdir().unwrap();
        let bytes = saved(dir.path());
        assert_eq!(
            bytes.len(),
            HEADER + 2 * FACT,
            "sorted, the duplicate dropped"
        );
        let mode = std::fs::metadata(path(dir.path())).unwrap().mode();
        assert_eq!(mode & 0o777, 0o600);
        let plain = Plain::load(dir.path(), &tier(dir.path()));
        assert!(plain.knows(&fact(3, 200)) && plain.knows(&fact(9, 100)));
        assert!(!plain.knows(&fact(9, 101)), "another ctime");
        assert!(!plain.knows(&fact(4, 200)), "another inode");
    }

    #[test]
    fn a_memo_not_exactly_as_written_for_this_worktree_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let good = saved(root);
        let meta = std::fs::metadata(root).unwrap();
        let (dev, ino) = (meta.dev(), meta.ino());
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
        longer.extend_from_slice(&[0; FACT]);
        assert!(
            parse(&longer, dev, ino).is_none(),
            "more facts than counted"
        );
        let mut unsorted = good.clone();
        let (a, b) = unsorted[HEADER..].split_at_mut(FACT);
        a.swap_with_slice(b);
        assert!(parse(&unsorted, dev, ino).is_none(), "not sorted");
        let mut other = good.clone();
        other[0] ^= 1;
        assert!(parse(&other, dev, ino).is_none(), "another format");
        assert!(parse(b"", dev, ino).is_none());
    }

    #[test]
    fn a_memo_others_may_write_or_reached_through_a_link_is_not_read() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        saved(root);
        let memo = path(root);
        let set = |mode| std::fs::set_permissions(&memo, std::fs::Permissions::from_mode(mode));
        set(0o620).unwrap();
        assert!(
            !Plain::load(root, &tier(root)).knows(&fact(3, 200)),
            "group-writable"
        );
        set(0o602).unwrap();
        assert!(
            !Plain::load(root, &tier(root)).knows(&fact(3, 200)),
            "writable by others"
        );
        set(0o600).unwrap();
        assert!(Plain::load(root, &tier(root)).knows(&fact(3, 200)));
        // The memo moved elsewhere and linked: the link is not followed.
        let elsewhere = root.join("elsewhere");
        std::fs::rename(&memo, &elsewhere).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &memo).unwrap();
        assert!(
            !Plain::load(root, &tier(root)).knows(&fact(3, 200)),
            "a link"
        );
        // The local tier itself a link to a directory holding a valid memo.
        let other = tempfile::tempdir().unwrap();
        std::fs::remove_file(&memo).unwrap();
        std::fs::rename(&elsewhere, other.path().join(FILE)).unwrap();
        std::fs::remove_dir(root.join(".interview")).unwrap();
        std::os::unix::fs::symlink(other.path(), root.join(".interview")).unwrap();
        assert!(
            !Plain::load(root, &tier(root)).knows(&fact(3, 200)),
            "the tier a link"
        );
    }
}
