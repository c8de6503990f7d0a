//! What a snapshot records about worktree paths: the state of a path that is not clean, and
//! the stat fingerprint of an ignored path. The walk that fills them is `walk.rs`.

use std::io;

use serde::Serialize;

use super::files::Kind;
use super::path::RepoPath;

/// What differs for a path: in the index against HEAD (`staged`) or in the worktree against the
/// index (`worktree`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    Added,
    Modified,
    Deleted,
    TypeChanged,
    Unmerged,
    Untracked,
}

impl State {
    pub fn as_str(self) -> &'static str {
        match self {
            State::Added => "added",
            State::Modified => "modified",
            State::Deleted => "deleted",
            State::TypeChanged => "type-changed",
            State::Unmerged => "unmerged",
            State::Untracked => "untracked",
        }
    }
}

/// The status of one path that is not clean.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct FileStatus {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub staged: Option<State>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worktree: Option<State>,
    /// SHA-256 of a dirty or untracked file's content (a symlink's target).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// The HEAD commit of a submodule or nested repository.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head: Option<String>,
    /// The tracked path this untracked one differs from only in case: a case-only rename
    /// (on a case-insensitive file system the tracked name still opens the same file).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub case_of: Option<RepoPath>,
    /// What the path is in the worktree, when it is not a regular file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<Kind>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The stat fingerprint of one ignored path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fingerprint {
    pub path: RepoPath,
    pub kind: Kind,
    pub size: u64,
    /// Seconds and nanoseconds.
    pub mtime: (i64, i64),
    pub ctime: (i64, i64),
    pub inode: u64,
    pub mode: u32,
    /// Owner and group: a directory's times are not kept, so its `chown` shows here.
    pub uid: u32,
    pub gid: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link: Option<RepoPath>,
    /// The HEAD commit of an ignored nested repository (its contents are not listed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Fingerprint {
    /// From a whole stat; `link` is a symlink's target.
    pub(super) fn from_key(
        path: RepoPath,
        key: &super::reuse::StatKey,
        link: Option<RepoPath>,
    ) -> Fingerprint {
        let kind = key.kind();
        // A directory's own size and times change with its entries, which are listed anyway.
        let (size, mtime, ctime) = if kind == Kind::Dir {
            (0, (0, 0), (0, 0))
        } else {
            (key.size, key.mtime, key.ctime)
        };
        Fingerprint {
            path,
            kind,
            size,
            mtime,
            ctime,
            inode: key.ino,
            mode: key.mode & 0o7777,
            uid: key.uid,
            gid: key.gid,
            link,
            head: None,
            error: None,
        }
    }

    pub(super) fn error(path: RepoPath, e: &io::Error) -> Fingerprint {
        Fingerprint {
            path,
            kind: Kind::Other,
            size: 0,
            mtime: (0, 0),
            ctime: (0, 0),
            inode: 0,
            mode: 0,
            uid: 0,
            gid: 0,
            link: None,
            head: None,
            error: Some(e.kind().to_string()),
        }
    }

    /// The names of the fields that differ from `other`.
    pub fn changed_fields(&self, other: &Fingerprint) -> Vec<&'static str> {
        let mut v = Vec::new();
        if self.kind != other.kind {
            v.push("kind");
        }
        if self.size != other.size {
            v.push("size");
        }
        if self.mtime != other.mtime {
            v.push("mtime");
        }
        if self.ctime != other.ctime {
            v.push("ctime");
        }
        if self.inode != other.inode {
            v.push("inode");
        }
        if self.mode != other.mode {
            v.push("mode");
        }
        if (self.uid, self.gid) != (other.uid, other.gid) {
            v.push("owner");
        }
        if self.link != other.link {
            v.push("link target");
        }
        if self.head != other.head {
            v.push("HEAD");
        }
        if self.error != other.error {
            v.push("readability");
        }
        v
    }
}
