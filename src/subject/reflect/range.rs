//! The range's ends: opening the repository, resolving the base revision, naming the nearest
//! tags when it does not resolve.

use std::path::Path;

use gix::bstr::ByteSlice;

use crate::error::{Error, Result};

pub(super) fn open(repo_root: &Path) -> Result<gix::Repository> {
    // Isolated: the repository's own config only; nothing from the environment changes reads.
    let mut repo = gix::open_opts(repo_root, gix::open::Options::isolated()).map_err(|e| {
        Error::Repo(format!(
            "cannot open the git repository at {}: {e}",
            repo_root.display()
        ))
    })?;
    // Each commit's trees and blobs are read twice (as child and as parent); a cache halves that.
    repo.object_cache_size_if_unset(64 * 1024 * 1024);
    Ok(repo)
}

/// Whether `rev` names a commit that moves as the history grows (`HEAD~20`, `main^`, `HEAD`,
/// `@{1}`), unlike a tag, a branch name kept as typed, or a commit id.
pub(super) fn moves(rev: &str) -> bool {
    rev == "HEAD" || rev.contains(['~', '^', '@', ':'])
}

/// The base of a range as a document shows it: a revision that moves as the short id of the
/// commit it resolved to (`HEAD~20` → `3f2a1bc9`), anything else as typed.
pub(super) fn shown_base(rev: &str, base: &str) -> String {
    if moves(rev) {
        short(base).to_string()
    } else {
        rev.to_string()
    }
}

/// `rev..HEAD` as a document shows it, so a committed document says which commits it is
/// about: [`shown_base`], then HEAD's short id (`v1.2.0..81f8785a`).
pub(super) fn shown_range(rev: &str, base: &str, head: &str) -> String {
    format!("{}..{}", shown_base(rev, base), short(head))
}

/// The first 8 hex digits of a commit id, as the documents show commits.
fn short(id: &str) -> &str {
    id.get(..8).unwrap_or(id)
}

/// Resolve `rev` to a commit, or fail naming the nearest tags.
pub(super) fn resolve(repo: &gix::Repository, rev: &str) -> Result<gix::ObjectId> {
    let unknown = || {
        let tags = tag_names(repo);
        // `v9.9.9` past every tag: the newest are what was meant, not the nearest in spelling.
        let (label, near) = match newest_past(rev, &tags, 5) {
            Some(newest) => ("newest tags", newest),
            None => ("nearest tags", rank_nearest(rev, &tags, 5)),
        };
        // `git tag` is worth running only when it lists more than the message does.
        let more = if tags.len() > near.len() {
            format!(" `git tag` lists all {} tags.", tags.len())
        } else {
            String::new()
        };
        let hint = if repo.is_shallow().unwrap_or(false) {
            let tags = if near.is_empty() {
                String::new()
            } else {
                format!(" ({label}: {})", near.join(", "))
            };
            format!(
                "the repository is a shallow clone, so its history may end before it{tags}; fetch more of it with `git fetch --deepen=100` (or `git fetch --unshallow`).{more}"
            )
        } else if let Some(commits) = history_length(repo).filter(|_| rev.contains('~')) {
            // `HEAD~10` past the first commit: say how far back the history goes.
            let commits = match commits {
                1 => "1 commit".to_string(),
                n => format!("{n} commits"),
            };
            format!(
                "the history has {commits}; the oldest is {}.",
                oldest(repo, usize::MAX)
            )
        } else if near.is_empty() {
            format!(
                "the repository has no tags; name a commit instead, e.g. {}.",
                oldest(repo, 20)
            )
        } else {
            format!("{label}: {}.{more}", near.join(", "))
        };
        Error::Subject(format!("unknown tag or revision `{rev}`; {hint}"))
    };
    if rev.is_empty() || rev.len() > 1024 {
        return Err(unknown());
    }
    let id = repo.rev_parse_single(rev).map_err(|_| unknown())?;
    let commit = id
        .object()
        .map_err(|_| unknown())?
        .peel_to_commit()
        .map_err(|e| {
            Error::Subject(format!(
                "`{rev}` does not name a commit ({e}); name a tag or commit"
            ))
        })?;
    Ok(commit.id)
}

/// How many commits HEAD's history holds (first parents and merges alike), up to 100,000.
fn history_length(repo: &gix::Repository) -> Option<usize> {
    let head = repo.head_id().ok()?;
    let walk = head.ancestors().all().ok()?;
    Some(walk.take(100_000).filter(|c| c.is_ok()).count())
}

/// Every tag's short name.
fn tag_names(repo: &gix::Repository) -> Vec<String> {
    let Ok(platform) = repo.references() else {
        return Vec::new();
    };
    let Ok(tags) = platform.tags() else {
        return Vec::new();
    };
    tags.filter_map(|r| r.ok())
        .map(|r| r.name().shorten().to_str_lossy().into_owned())
        .collect()
}

/// A revision `HEAD~N` that exists and reaches `commits` back at most (the first commit in a
/// shorter history).
fn oldest(repo: &gix::Repository, commits: usize) -> String {
    match history_length(repo).map(|n| n.min(commits)) {
        Some(0 | 1) | None => "HEAD".to_string(),
        Some(n) => format!("HEAD~{}", n - 1),
    }
}

/// A version in a tag's name: what comes before its first digit, and its numbers up to the
/// first part that is not one (`v1.2.0-rc1` → `("v", [1, 2, 0])`).
fn version(name: &str) -> Option<(&str, Vec<u64>)> {
    let (prefix, rest) = name.split_at(name.find(|c: char| c.is_ascii_digit())?);
    let numbers: Vec<u64> = rest
        .split(['.', '-', '_'])
        .map_while(|part| part.parse().ok())
        .collect();
    Some((prefix, numbers))
}

/// When `wanted` is a version past every tag with its prefix (`v9.9.9`, the newest tag `v1.20.0`),
/// the `limit` newest of those tags, newest first; else `None`.
fn newest_past(wanted: &str, names: &[String], limit: usize) -> Option<Vec<String>> {
    let (prefix, wanted) = version(wanted)?;
    let mut same: Vec<(Vec<u64>, &String)> = names
        .iter()
        .filter_map(|name| match version(name) {
            Some((p, numbers)) if p == prefix => Some((numbers, name)),
            _ => None,
        })
        .collect();
    if same.is_empty() || same.iter().any(|(numbers, _)| *numbers >= wanted) {
        return None;
    }
    same.sort_by(|a, b| b.cmp(a));
    Some(
        same.into_iter()
            .take(limit)
            .map(|(_, n)| n.clone())
            .collect(),
    )
}

/// The `limit` names nearest to `wanted`, best first; ties broken by name.
pub(super) fn rank_nearest(wanted: &str, names: &[String], limit: usize) -> Vec<String> {
    let wanted_chars: Vec<char> = wanted.chars().take(256).collect();
    let mut scored: Vec<(usize, usize, &String)> = names
        .iter()
        .map(|name| {
            let chars: Vec<char> = name.chars().take(256).collect();
            let prefix = wanted_chars
                .iter()
                .zip(&chars)
                .take_while(|(a, b)| a == b)
                .count();
            (
                edit_distance(&wanted_chars, &chars),
                usize::MAX - prefix,
                name,
            )
        })
        .collect();
    scored.sort();
    scored.dedup_by(|a, b| a.2 == b.2);
    scored
        .into_iter()
        .take(limit)
        .map(|(_, _, n)| n.clone())
        .collect()
}

fn edit_distance(a: &[char], b: &[char]) -> usize {
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_names_rank_by_distance_then_prefix() {
        let names: Vec<String> = ["v1.2.0", "v1.3.0", "v2.0.0", "release-1", "v1.2.1"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let near = rank_nearest("v1.2.9", &names, 3);
        assert_eq!(near, vec!["v1.2.0", "v1.2.1", "v1.3.0"]);
    }

    #[test]
    fn a_version_past_every_tag_gets_the_newest_of_its_prefix() {
        let names: Vec<String> = ["v0.9.9", "v1.10.0", "v1.9.0", "release-99", "v1.2.0-rc1"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let newest = newest_past("v9.9.9", &names, 2);
        assert_eq!(
            newest,
            Some(vec!["v1.10.0".to_string(), "v1.9.0".to_string()])
        );
        assert_eq!(newest_past("v1.3.0", &names, 2), None, "not past v1.10.0");
        assert_eq!(newest_past("main", &names, 2), None, "not a version");
    }
}
