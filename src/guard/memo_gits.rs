//! What this machine's gits answered, kept for the next run (`guard-gits` in the local tier):
//! where each `git` on `PATH` reads its system config (`system_config.rs`) is a compiled-in
//! prefix, so the answer of a git binary holds as long as that very file does. Each answer is
//! kept with the git's real path and the identity of its file (device, inode, size, mtime and
//! ctime, in nanoseconds): an upgraded, rebuilt or replaced git is another file, and is asked
//! again. Only a git that is its own program is remembered: a file whose name is not `git`
//! (a version manager's shim, linked to its own binary) or that starts with `#!` (a wrapper
//! script, which may start a different git tomorrow) is asked on every run, as before.
//!
//! Trusted as far as the rest of the memo (`memo.rs`): a plain file in the worktree's
//! `.interview/`, never through a link, owned by this user and writable by no one else, made for
//! this worktree (its root's device and inode in the header), exactly as [`save`] writes it;
//! anything else is ignored and every git asked. Written with the rest of the memo, after a
//! run's last snapshot, and only when what the run found differs from what it read.

use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::memo;

/// The file's name in the local tier.
pub(super) const FILE: &str = "guard-gits";

/// The first line: the format, so an older or newer one is ignored, not misread.
const MAGIC: &str = "interview-gits1";

/// What identifies a git's file: another build, an upgrade or a replacement changes one of
/// these (a ctime no process can set back).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Identity(pub(super) [u64; 5]);

impl Identity {
    /// The identity of the file at `real` (a real path: no link is followed), when it is a git
    /// that may be remembered: a regular file named `git` that is not a script.
    pub(super) fn of_git(real: &Path) -> Option<Identity> {
        use std::io::Read;
        if real.file_name() != Some("git".as_ref()) {
            return None;
        }
        let m = std::fs::symlink_metadata(real).ok()?;
        if !m.file_type().is_file() {
            return None;
        }
        let mut head = [0u8; 2];
        std::fs::File::open(real).ok()?.read_exact(&mut head).ok()?;
        if &head == b"#!" {
            return None;
        }
        let ns = |s: i64, n: i64| {
            (s as u64)
                .wrapping_mul(1_000_000_000)
                .wrapping_add(n as u64)
        };
        Some(Identity([
            m.dev(),
            m.ino(),
            m.size(),
            ns(m.mtime(), m.mtime_nsec()),
            ns(m.ctime(), m.ctime_nsec()),
        ]))
    }
}

/// One git's answer: its real path, its file's identity, the system config file it named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Answer {
    pub git: PathBuf,
    pub id: Identity,
    pub file: PathBuf,
}

/// The answers kept for the worktree at `root` in its local tier `tier`; none when the file is
/// missing, not this user's own, or not exactly as [`save`] writes it.
pub(super) fn load(root: &Path, tier: &Path) -> Vec<Answer> {
    memo::read_own(root, tier, FILE)
        .and_then(|own| parse(&own.bytes, own.dev, own.ino))
        .unwrap_or_default()
}

/// Keep `answers` for the worktree at `root` in `tier`, unless they are what is there.
pub(super) fn save(root: &Path, tier: &Path, answers: &[Answer]) -> std::io::Result<()> {
    if load(root, tier) == answers {
        return Ok(());
    }
    let m = std::fs::metadata(root)?;
    memo::write_own(tier, FILE, format(m.dev(), m.ino(), answers).as_bytes())
}

/// The answers of a file made for the root `(dev, ino)`.
fn parse(bytes: &[u8], dev: u64, ino: u64) -> Option<Vec<Answer>> {
    let text = std::str::from_utf8(bytes).ok()?;
    let body = text.strip_suffix('\n')?;
    let mut lines = body.split('\n');
    if lines.next()? != MAGIC || lines.next()? != format!("{dev} {ino}") {
        return None;
    }
    let mut answers = Vec::new();
    for line in lines {
        let fields: Vec<&str> = line.split(' ').collect();
        let [git, d, i, size, mtime, ctime, file] = fields[..] else {
            return None;
        };
        let number = |s: &str| s.parse::<u64>().ok();
        let git = unhex(git).filter(|p| p.is_absolute())?;
        let file = unhex(file).filter(|p| p.is_absolute())?;
        let id = Identity([
            number(d)?,
            number(i)?,
            number(size)?,
            number(mtime)?,
            number(ctime)?,
        ]);
        answers.push(Answer { git, id, file });
    }
    Some(answers)
}

fn format(dev: u64, ino: u64, answers: &[Answer]) -> String {
    let mut out = format!("{MAGIC}\n{dev} {ino}\n");
    for a in answers {
        let [d, i, size, mtime, ctime] = a.id.0;
        out.push_str(&format!(
            "{} {d} {i} {size} {mtime} {ctime} {}\n",
            hex(&a.git),
            hex(&a.file)
        ));
    }
    out
}

/// A path as hex digits: any byte a path may hold, on one line.
fn hex(p: &Path) -> String {
    p.as_os_str()
        .as_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn unhex(s: &str) -> Option<PathBuf> {
    if s.is_empty() || !s.len().is_multiple_of(2) {
        return None;
    }
    let bytes = (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect::<Option<Vec<u8>>>()?;
    Some(PathBuf::from(std::ffi::OsStr::from_bytes(&bytes)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(git: &str, file: &str) -> Answer {
        Answer {
            git: PathBuf::from(git),
            id: Identity([1, 2, 3, 4, 5]),
            file: PathBuf::from(file),
        }
    }

    #[test]
    fn answers_read_back_as_written_for_this_worktree_only() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let tier = root.join(".interview");
        std::fs::create_dir(&tier).unwrap();
        let answers = vec![
            answer("/usr/bin/git", "/etc/gitconfig"),
            answer("/opt/a b\n/git", "/opt/a b\n/etc/gitconfig"),
        ];
        save(root, &tier, &answers).unwrap();
        assert_eq!(load(root, &tier), answers);
        // Made for another worktree: not read.
        let other = tempfile::tempdir().unwrap();
        let other_tier = other.path().join(".interview");
        std::fs::create_dir(&other_tier).unwrap();
        std::fs::copy(tier.join(FILE), other_tier.join(FILE)).unwrap();
        assert!(load(other.path(), &other_tier).is_empty());
    }

    #[test]
    fn a_file_not_exactly_as_written_is_not_read() {
        let m = |s: &str| parse(s.as_bytes(), 7, 9);
        let good = "interview-gits1\n7 9\n2f67 1 2 3 4 5 2f65\n";
        assert_eq!(
            m(good),
            Some(vec![Answer {
                git: PathBuf::from("/g"),
                id: Identity([1, 2, 3, 4, 5]),
                file: PathBuf::from("/e"),
            }])
        );
        for bad in [
            "interview-gits2\n7 9\n",
            "interview-gits1\n7 8\n",
            "interview-gits1\n7 9\n2f67 1 2 3 4 5 2f65",
            "interview-gits1\n7 9\n2f67 1 2 3 4 2f65\n",
            "interview-gits1\n7 9\n67 1 2 3 4 5 2f65\n",
            "interview-gits1\n7 9\n2f67 1 2 3 4 5 65\n",
            "interview-gits1\n7 9\n2f6 1 2 3 4 5 2f65\n",
            "interview-gits1\n7 9\n2f67 1 2 3 4 x 2f65\n",
            "interview-gits1\n7 9\n2f67 1 2 3 4 5 -\n",
        ] {
            assert_eq!(m(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn only_a_git_that_is_its_own_program_has_an_identity() {
        let dir = tempfile::tempdir().unwrap();
        let git = dir.path().join("git");
        std::fs::write(&git, b"\x7fELF...").unwrap();
        assert!(Identity::of_git(&git).is_some());
        std::fs::write(&git, b"#!/bin/sh\nexec /opt/git/bin/git \"$@\"\n").unwrap();
        assert!(Identity::of_git(&git).is_none(), "a wrapper script");
        let shim = dir.path().join("mise");
        std::fs::write(&shim, b"\x7fELF...").unwrap();
        assert!(Identity::of_git(&shim).is_none(), "not named git");
        let link = dir.path().join("sub");
        std::fs::create_dir(&link).unwrap();
        std::os::unix::fs::symlink(&git, link.join("git")).unwrap();
        assert!(Identity::of_git(&link.join("git")).is_none(), "a link");
        // Another file at the same path is another identity.
        std::fs::write(&git, b"\x7fELF...").unwrap();
        let before = Identity::of_git(&git).unwrap();
        std::fs::remove_file(&git).unwrap();
        std::fs::write(&git, b"\x7fELF.....").unwrap();
        assert_ne!(Identity::of_git(&git), Some(before));
    }
}
