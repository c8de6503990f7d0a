//! Permission bits and owners of worktree paths: every tracked file, untracked file and
//! directory the walk already stats is checked against what a checkout gives it here (`0666` or
//! `0777` less the umask, the worktree root's owner), and recorded only when it differs. So a
//! `chmod 666`, a setuid bit, a directory opened to everyone or a `chown` is a change, while the
//! record stays a handful of paths.
//!
//! Not for: ignored paths (their fingerprint holds the whole stat) or the git directory
//! (`gitdir.rs` records each of its files and directories with mode and owner).

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Serialize, Serializer};

use super::path::RepoPath;
use super::xattrs::Xattrs;

/// What a path checked out or created here gets: the baseline unusual paths are recorded against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Usual {
    #[serde(serialize_with = "octal")]
    pub file: u32,
    #[serde(serialize_with = "octal")]
    pub exec: u32,
    #[serde(serialize_with = "octal")]
    pub dir: u32,
    pub uid: u32,
    pub gid: u32,
}

/// The permission bits (setuid, setgid and sticky included) and owner of one path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Perm {
    #[serde(serialize_with = "octal")]
    pub mode: u32,
    pub uid: u32,
    pub gid: u32,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub dir: bool,
}

/// The worktree paths whose permissions or owner are not the usual ones.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Permissions {
    pub usual: Usual,
    pub unusual: BTreeMap<RepoPath, Perm>,
    /// The same paths' ACLs and file capability (`xattrs.rs`), for those that have any.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub xattrs: BTreeMap<RepoPath, Xattrs>,
}

fn octal<S: Serializer>(mode: &u32, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format!("{mode:04o}"))
}

impl Usual {
    /// For a worktree at `root`: this process's umask, the root's owner.
    pub fn here(root: &Path) -> Usual {
        use std::os::unix::fs::MetadataExt;
        let (uid, gid) = std::fs::symlink_metadata(root)
            .map(|m| (m.uid(), m.gid()))
            .unwrap_or_default();
        Usual::with(crate::sys::umask(), uid, gid)
    }

    pub fn with(umask: u32, uid: u32, gid: u32) -> Usual {
        Usual {
            file: 0o666 & !umask,
            exec: 0o777 & !umask,
            dir: 0o777 & !umask,
            uid,
            gid,
        }
    }

    /// The usual permission bits of a directory, or of a file with (or without) an exec bit.
    pub fn mode_for(&self, mode: u32, dir: bool) -> u32 {
        if dir {
            self.dir
        } else if mode & 0o100 != 0 {
            self.exec
        } else {
            self.file
        }
    }

    /// What to record for a path of this `st_mode` and owner: nothing when it is the usual.
    pub fn check(&self, st_mode: u32, uid: u32, gid: u32, dir: bool) -> Option<Perm> {
        let mode = st_mode & 0o7777;
        let usual = mode == self.mode_for(mode, dir) && uid == self.uid && gid == self.gid;
        (!usual).then_some(Perm {
            mode,
            uid,
            gid,
            dir,
        })
    }

    /// What a path that is not recorded has, given what the other snapshot recorded for it.
    pub fn assumed(&self, other: &Perm) -> Perm {
        Perm {
            mode: self.mode_for(other.mode, other.dir),
            uid: self.uid,
            gid: self.gid,
            dir: other.dir,
        }
    }
}

impl Perm {
    /// `permissions 0644 → 0666, owner 0:0 → 1000:1000`, naming only what differs.
    pub fn describe_change(&self, to: &Perm) -> String {
        let mut parts = Vec::new();
        if self.mode != to.mode {
            parts.push(format!("permissions {:04o} → {:04o}", self.mode, to.mode));
        }
        if (self.uid, self.gid) != (to.uid, to.gid) {
            parts.push(format!(
                "owner {}:{} → {}:{}",
                self.uid, self.gid, to.uid, to.gid
            ));
        }
        parts.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_usual_modes_follow_the_umask_and_anything_else_is_recorded() {
        let u = Usual::with(0o022, 1000, 1000);
        assert_eq!(u.check(0o100644, 1000, 1000, false), None);
        assert_eq!(u.check(0o100755, 1000, 1000, false), None);
        assert_eq!(u.check(0o040755, 1000, 1000, true), None);
        for (mode, dir) in [
            (0o100666, false),
            (0o104755, false),
            (0o102755, false),
            (0o100700, false),
            (0o040777, true),
            (0o041755, true),
        ] {
            let p = u.check(mode, 1000, 1000, dir).expect("recorded");
            assert_eq!(p.mode, mode & 0o7777);
        }
        assert!(u.check(0o100644, 0, 1000, false).is_some());
        assert!(u.check(0o100644, 1000, 0, false).is_some());
        let group = Usual::with(0o002, 1, 1);
        assert_eq!(group.check(0o100664, 1, 1, false), None);
        assert!(group.check(0o100644, 1, 1, false).is_some());
    }

    #[test]
    fn a_change_names_what_differs() {
        let u = Usual::with(0o022, 0, 0);
        let odd = u.check(0o100666, 0, 0, false).unwrap();
        assert_eq!(
            u.assumed(&odd).describe_change(&odd),
            "permissions 0644 → 0666"
        );
        let chowned = u.check(0o040755, 1000, 100, true).unwrap();
        assert_eq!(
            u.assumed(&chowned).describe_change(&chowned),
            "owner 0:0 → 1000:100"
        );
    }
}
