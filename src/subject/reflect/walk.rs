//! The commits of `rev..HEAD` in history order, each decoded once: id, dates, subject, author
//! (through `.mailmap`), parents, tree, and whether it reverts another commit.

use std::collections::{BTreeMap, BinaryHeap, HashMap};

use gix::bstr::ByteSlice;

use crate::error::{Error, Result};

use super::cap;
use super::facts::{AuthorCount, CommitLine};

/// One commit of the range.
pub(super) struct RangeCommit {
    pub(super) id: gix::ObjectId,
    pub(super) line: CommitLine,
    /// Committer time, seconds since the epoch.
    pub(super) time: i64,
    pub(super) tree: gix::ObjectId,
    pub(super) parents: Vec<gix::ObjectId>,
    /// The author as `.mailmap` maps them: name and e-mail.
    pub(super) author: (String, String),
    pub(super) revert: bool,
}

impl RangeCommit {
    pub(super) fn merge(&self) -> bool {
        self.parents.len() > 1
    }
}

/// Reads and decodes the range's commits: through an object cache large enough for some
/// 100,000 commits, so a commit decoded ahead of gix's walk (see `workers.rs`) is not inflated
/// again when the walk paints the boundary between `head` and `base`, nor when it yields it.
pub(super) struct Walker {
    repo: gix::Repository,
    mailmap: gix::mailmap::Snapshot,
}

impl Walker {
    pub(super) fn new(repo: &gix::Repository, head: gix::ObjectId) -> Walker {
        let mut repo = repo.clone();
        repo.object_cache_size(Some(32 * 1024 * 1024));
        let mailmap = mailmap_at(&repo, head);
        Walker { repo, mailmap }
    }

    /// One commit, read and decoded.
    pub(super) fn decode(&self, id: gix::ObjectId) -> Result<RangeCommit> {
        let object = self
            .repo
            .find_object(id)
            .map_err(|e| Error::Repo(format!("cannot read commit {id}: {e}")))?;
        decode(id, &object.data, self.repo.object_hash(), &self.mailmap)
    }

    /// The commits reachable from `head` and not from `base`: each id handed to `commit` as the
    /// walk reaches it, which gives the commit (decoded then, or earlier); then all of them
    /// newest first in history order.
    ///
    /// History order: a commit always comes before its parents; among commits ready at the same
    /// point, the newer committer time first, then the larger id (git's `--date-order`, made
    /// deterministic).
    pub(super) fn commits(
        &self,
        head: gix::ObjectId,
        base: gix::ObjectId,
        range: &str,
        mut commit: impl FnMut(gix::ObjectId) -> Result<RangeCommit>,
    ) -> Result<Vec<RangeCommit>> {
        let walk = self
            .repo
            .rev_walk([head])
            .with_hidden([base])
            .all()
            .map_err(|e| Error::Repo(format!("cannot walk {range}: {e}")))?;
        let mut found = Vec::new();
        for info in walk {
            let info = info.map_err(|e| Error::Repo(format!("cannot walk {range}: {e}")))?;
            found.push(commit(info.id)?);
        }
        let order = history_order(&found);
        let mut slots: Vec<Option<RangeCommit>> = found.into_iter().map(Some).collect();
        Ok(order.iter().filter_map(|&i| slots[i].take()).collect())
    }
}

fn decode(
    id: gix::ObjectId,
    data: &[u8],
    hash: gix::hash::Kind,
    mailmap: &gix::mailmap::Snapshot,
) -> Result<RangeCommit> {
    let bad = |e: &dyn std::fmt::Display| Error::Repo(format!("cannot decode commit {id}: {e}"));
    let commit = gix::objs::CommitRef::from_bytes(data, hash).map_err(|e| bad(&e))?;
    let time = commit.time().map_err(|e| bad(&e))?.seconds;
    let author = commit.author().map_err(|e| bad(&e))?;
    let (name, email) = match mailmap.try_resolve_ref(author) {
        Some(mapped) => (
            mapped.name.unwrap_or(author.name),
            mapped.email.unwrap_or(author.email),
        ),
        None => (author.name, author.email),
    };
    let message = commit.message;
    let subject = message
        .lines()
        .map(|l| l.to_str_lossy())
        .find(|l| !l.trim().is_empty())
        .map(|l| cap(l.trim(), 200))
        .unwrap_or_default();
    let revert = is_revert_subject(&subject) || message.find(b"This reverts commit").is_some();
    Ok(RangeCommit {
        id,
        line: CommitLine {
            oid: id.to_string(),
            date: civil_date(time),
            subject,
        },
        time,
        tree: commit.tree(),
        parents: commit.parents().collect(),
        author: (
            cap(name.to_str_lossy().trim(), 100),
            cap(email.to_str_lossy().trim(), 100),
        ),
        revert,
    })
}

/// A subject that says it reverts: "Revert …", "revert: …", "revert(x): …", any case; not
/// "Reverting …" or "Revertible …".
pub(super) fn is_revert_subject(subject: &str) -> bool {
    let lower = subject.trim_start().to_ascii_lowercase();
    lower
        .strip_prefix("revert")
        .is_some_and(|rest| rest.chars().next().is_none_or(|c| !c.is_alphanumeric()))
}

/// `.mailmap` as committed at HEAD (never the worktree's file, which a runner could replace).
fn mailmap_at(repo: &gix::Repository, head: gix::ObjectId) -> gix::mailmap::Snapshot {
    let blob = repo
        .find_commit(head)
        .ok()
        .and_then(|c| c.tree().ok())
        .and_then(|t| t.find_entry(".mailmap").map(|e| e.object_id()))
        .and_then(|id| repo.find_blob(id).ok());
    match blob {
        Some(b) if b.data.len() <= 4 * 1024 * 1024 => gix::mailmap::Snapshot::from_bytes(&b.data),
        _ => gix::mailmap::Snapshot::default(),
    }
}

/// The walk indices of `found` in history order.
fn history_order(found: &[RangeCommit]) -> Vec<usize> {
    let index: HashMap<gix::ObjectId, usize> =
        found.iter().enumerate().map(|(i, c)| (c.id, i)).collect();
    let mut children = vec![0usize; found.len()];
    for c in found {
        for p in &c.parents {
            if let Some(&i) = index.get(p) {
                children[i] += 1;
            }
        }
    }
    let mut ready: BinaryHeap<(i64, gix::ObjectId, usize)> = found
        .iter()
        .enumerate()
        .filter(|(i, _)| children[*i] == 0)
        .map(|(i, c)| (c.time, c.id, i))
        .collect();
    let mut order = Vec::with_capacity(found.len());
    while let Some((_, _, i)) = ready.pop() {
        order.push(i);
        for p in &found[i].parents {
            if let Some(&pi) = index.get(p) {
                children[pi] -= 1;
                if children[pi] == 0 {
                    ready.push((found[pi].time, found[pi].id, pi));
                }
            }
        }
    }
    order
}

/// Authors by commits, most first: one entry per name (after `.mailmap`), shown with the e-mail
/// they used most. An author without a name is known by the e-mail alone.
pub(super) fn authors(commits: &[RangeCommit]) -> Vec<AuthorCount> {
    let mut by_name: BTreeMap<&str, BTreeMap<&str, usize>> = BTreeMap::new();
    for c in commits {
        let (name, email) = (&c.author.0, &c.author.1);
        let key = if name.is_empty() { email } else { name };
        *by_name
            .entry(key.as_str())
            .or_default()
            .entry(email.as_str())
            .or_default() += 1;
    }
    let mut out: Vec<AuthorCount> = by_name
        .into_iter()
        .map(|(name, emails)| {
            let commits = emails.values().sum();
            let email = emails
                .iter()
                .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
                .map(|(e, _)| e.to_string())
                .unwrap_or_default();
            AuthorCount {
                name: name.to_string(),
                email,
                commits,
            }
        })
        .collect();
    out.sort_by(|a, b| b.commits.cmp(&a.commits).then(a.name.cmp(&b.name)));
    out
}

/// `YYYY-MM-DD` (UTC) of a Unix time, without a calendar crate (Howard Hinnant's algorithm).
pub fn civil_date(seconds: i64) -> String {
    let days = seconds.div_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn revert_subjects_in_any_case() {
        for s in [
            "Revert \"Add x\"",
            "revert: add x",
            "revert(ui): x",
            "REVERT x",
            "Revert",
        ] {
            assert!(is_revert_subject(s), "{s}");
        }
        for s in ["Reverting is hard", "Revertible ops", "Do not revert", ""] {
            assert!(!is_revert_subject(s), "{s}");
        }
    }

    #[test]
    fn civil_date_matches_known_days() {
        assert_eq!(civil_date(0), "1970-01-01");
        assert_eq!(civil_date(951_782_400), "2000-02-29");
        assert_eq!(civil_date(1_700_000_000), "2023-11-14");
        assert_eq!(civil_date(-86_400), "1969-12-31");
    }
}
