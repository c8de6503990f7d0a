//! The workspace id of a repository: the first 12 hex digits of the SHA-256 of the root commit
//! HEAD's first-parent chain ends in (stable across clones, reveals no path).
//!
//! Finding the root decodes every commit on that chain (some 20 ms for 10,000 commits, on every
//! command), so the local tier keeps the answer in `.interview/root-commit` (`<commit> <root>`):
//! a later run walks back from HEAD only until it meets that commit. The file is read without
//! following a link or blocking, and only trusted for a commit on HEAD's chain and a root that
//! is a commit without parents; anything else is walked again. Only a run that holds the
//! worktree's lock writes the note ([`note_root`]): a run refused by the lock writes nothing.

use std::io::{Read, Write};
use std::path::Path;

use cap_fs_ext::{DirExt, FollowSymlinks, OpenOptionsFollowExt, OpenOptionsSyncExt};
use cap_std::fs::{Dir, OpenOptions};
use sha2::{Digest, Sha256};

const FILE: &str = "root-commit";

/// The workspace id (of the worktree path when there is no commit yet). Reads the note, never
/// writes it.
pub(super) fn workspace_id(repo: &gix::Repository, worktree: &Path) -> String {
    let tier = tier_dir(worktree);
    let seed = root_commit(repo, tier.as_ref(), false)
        .map(|id| id.to_string())
        .unwrap_or_else(|| worktree.display().to_string());
    let digest = Sha256::digest(seed.as_bytes());
    digest[..6].iter().map(|b| format!("{b:02x}")).collect()
}

/// Note HEAD's root commit in the local tier for the next run (with the worktree's lock held).
pub(super) fn note_root(worktree: &Path) {
    let Ok(repo) = gix::open_opts(worktree, gix::open::Options::isolated()) else {
        return;
    };
    root_commit(&repo, tier_dir(worktree).as_ref(), true);
}

fn root_commit(repo: &gix::Repository, tier: Option<&Dir>, note: bool) -> Option<gix::ObjectId> {
    let tier_to_note = tier.filter(|_| note);
    let head = repo.head_commit().ok()?.id;
    let known = tier.and_then(read).filter(|(_, root)| is_root(repo, *root));
    let mut at = head;
    loop {
        if let Some((commit, root)) = known
            && commit == at
        {
            if commit != head {
                remember(tier_to_note, head, root);
            }
            return Some(root);
        }
        let commit = repo.find_commit(at).ok()?;
        match commit.parent_ids().next() {
            Some(parent) => at = parent.detach(),
            None => {
                remember(tier_to_note, head, at);
                return Some(at);
            }
        }
    }
}

fn is_root(repo: &gix::Repository, id: gix::ObjectId) -> bool {
    repo.find_commit(id)
        .is_ok_and(|c| c.parent_ids().next().is_none())
}

/// `.interview/` when it exists as a real directory (it is never made here).
fn tier_dir(worktree: &Path) -> Option<Dir> {
    Dir::open_ambient_dir(worktree, cap_std::ambient_authority())
        .ok()?
        .open_dir_nofollow(crate::session::tier::TIER_DIR)
        .ok()
}

fn read(tier: &Dir) -> Option<(gix::ObjectId, gix::ObjectId)> {
    let mut options = OpenOptions::new();
    options.read(true).follow(FollowSymlinks::No).nonblock(true);
    let file = tier.open_with(FILE, &options).ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut text = String::new();
    file.take(256).read_to_string(&mut text).ok()?;
    let (commit, root) = text.trim().split_once(' ')?;
    Some((
        gix::ObjectId::from_hex(commit.as_bytes()).ok()?,
        gix::ObjectId::from_hex(root.as_bytes()).ok()?,
    ))
}

/// Keep `head`'s root for the next run; a failure only costs that run the walk. Not synced:
/// a file lost in a crash is walked again.
fn remember(tier: Option<&Dir>, head: gix::ObjectId, root: gix::ObjectId) {
    let Some(tier) = tier else { return };
    let tmp = format!(".tmp-{FILE}-{}", std::process::id());
    let mut options = OpenOptions::new();
    options
        .write(true)
        .create_new(true)
        .follow(FollowSymlinks::No);
    let _ = tier.remove_file(&tmp);
    let Ok(mut file) = tier.open_with(&tmp, &options) else {
        return;
    };
    let written = file.write_all(format!("{head} {root}\n").as_bytes());
    drop(file);
    if written
        .and_then(|()| tier.rename(&tmp, tier, FILE))
        .is_err()
    {
        let _ = tier.remove_file(&tmp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    fn git(dir: &Path, args: &[&str]) -> String {
        let out = Command::new("git")
            .args(["-c", "user.name=T", "-c", "user.email=t@example.com"])
            .args([
                "-c",
                "init.defaultBranch=main",
                "-c",
                "commit.gpgsign=false",
            ])
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", dir)
            .output()
            .expect("git");
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    }

    fn commit(dir: &Path, n: usize) {
        std::fs::write(dir.join("f"), n.to_string()).unwrap();
        git(dir, &["add", "f"]);
        git(dir, &["commit", "-q", "-m", &format!("c{n}")]);
    }

    fn id_of(dir: &Path) -> String {
        let repo = gix::open_opts(dir, gix::open::Options::isolated()).unwrap();
        note_root(dir);
        workspace_id(&repo, dir)
    }

    fn expected(root: &str) -> String {
        let digest = Sha256::digest(root.as_bytes());
        digest[..6].iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn the_id_is_the_root_commit_s_with_or_without_the_tier_s_note() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        git(p, &["init", "-q"]);
        for n in 0..3 {
            commit(p, n);
        }
        let root = git(p, &["rev-list", "--max-parents=0", "HEAD"]);
        // No tier: nothing is written, the chain is walked.
        assert_eq!(id_of(p), expected(&root));
        assert!(!p.join(".interview").exists());
        std::fs::create_dir(p.join(".interview")).unwrap();
        assert_eq!(id_of(p), expected(&root));
        let note = p.join(".interview").join(FILE);
        let head = git(p, &["rev-parse", "HEAD"]);
        assert_eq!(
            std::fs::read_to_string(&note).unwrap(),
            format!("{head} {root}\n")
        );
        // Later commits walk back to the noted one, and the note moves with HEAD.
        commit(p, 3);
        assert_eq!(id_of(p), expected(&root));
        let head = git(p, &["rev-parse", "HEAD"]);
        assert_eq!(
            std::fs::read_to_string(&note).unwrap(),
            format!("{head} {root}\n")
        );
    }

    #[test]
    fn a_note_naming_no_root_or_another_history_is_not_trusted() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        git(p, &["init", "-q"]);
        for n in 0..3 {
            commit(p, n);
        }
        let root = git(p, &["rev-list", "--max-parents=0", "HEAD"]);
        let head = git(p, &["rev-parse", "HEAD"]);
        let parent = git(p, &["rev-parse", "HEAD~1"]);
        std::fs::create_dir(p.join(".interview")).unwrap();
        let note = p.join(".interview").join(FILE);
        // A "root" that has a parent.
        std::fs::write(&note, format!("{head} {parent}\n")).unwrap();
        assert_eq!(id_of(p), expected(&root));
        // A commit not on HEAD's chain, with a root of another history.
        git(p, &["checkout", "-q", "--orphan", "other"]);
        commit(p, 9);
        let other_root = git(p, &["rev-parse", "HEAD"]);
        let other = git(p, &["rev-parse", "HEAD"]);
        git(p, &["checkout", "-q", "main"]);
        std::fs::write(&note, format!("{other} {other_root}\n")).unwrap();
        assert_eq!(id_of(p), expected(&root));
        // Garbage and a link are not read.
        std::fs::write(&note, "not ids").unwrap();
        assert_eq!(id_of(p), expected(&root));
        std::fs::remove_file(&note).unwrap();
        let elsewhere = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(elsewhere.path(), format!("{head} {parent}\n")).unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), &note).unwrap();
        assert_eq!(id_of(p), expected(&root));
        assert_eq!(
            std::fs::read_to_string(elsewhere.path()).unwrap(),
            format!("{head} {parent}\n")
        );
    }
}
