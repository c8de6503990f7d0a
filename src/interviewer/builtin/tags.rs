//! The project's version tags as HEAD's history holds them (gix, in-process, bounded): the
//! newest by version, the one HEAD is at, the nearest, and every release an item may name;
//! the versions' order.
//!
//! Not for: which tag names a version an item writes (`repo.rs`).

use std::collections::{HashMap, HashSet};

use gix::bstr::ByteSlice;

/// What a tag is a version of: its text before the version (`tokio-` of `tokio-1.20.0`, `` of
/// `v1.2.0` and `1.2.0`).
fn tag_family(tag: &str) -> &str {
    // A release stage before the number (`RC5`, `RC4-3`, `M13`) is the family's name.
    let stage = |p: &str| (1..=3).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_uppercase());
    let starts = |i: usize| {
        tag[i..].starts_with(|c: char| c.is_ascii_digit())
            && (i == 0 || tag[..i].ends_with(['-', '_', '@', '/', 'v']) || stage(&tag[..i]))
    };
    let at = (0..tag.len())
        .find(|&i| tag.is_char_boundary(i) && starts(i))
        .unwrap_or(tag.len());
    let family = tag[..at].trim_end_matches('v');
    // A date (`v20160726`) is a naming of its own, never a version beside `v2.5.4`.
    let digits = tag[at..].chars().take_while(char::is_ascii_digit).count();
    if digits == 8 {
        return if family.is_empty() {
            "date"
        } else {
            "date-prefixed"
        };
    }
    family
}

/// The family with the most tags; a tie goes to the bare versions, then the shorter prefix.
fn main_family(tags: &[String]) -> String {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for t in tags {
        let f = tag_family(t);
        match counts.iter_mut().find(|(x, _)| *x == f) {
            Some((_, n)) => *n += 1,
            None => counts.push((f, 1)),
        }
    }
    counts.sort_by(|a, b| {
        b.1.cmp(&a.1)
            .then(a.0.len().cmp(&b.0.len()))
            .then(a.0.cmp(b.0))
    });
    counts
        .first()
        .map(|(f, _)| f.to_string())
        .unwrap_or_default()
}

/// A tag: its name, the time of its commit, and whether HEAD descends from that commit.
struct Tagged {
    name: String,
    at: i64,
    ancestor: bool,
    /// Commits from HEAD to its commit along the shortest path (none when not walked).
    behind: Option<usize>,
    id: gix::ObjectId,
}

/// The project's version tags as HEAD's history holds them.
#[derive(Debug, Default)]
pub(super) struct Tags {
    /// Newest version first, at most 50.
    pub newest: Vec<String>,
    /// The one HEAD is at.
    pub head: Option<String>,
    /// The one nearest HEAD, as `git describe` chooses: fewest commits behind, then the highest
    /// version (`3.0.0-alpha.8` one commit behind, not `v3-snapshot-2021-01-21` 91 behind).
    pub nearest: Option<String>,
    /// Every tag of the family, HEAD's history or not.
    pub released: Vec<String>,
}

/// The project's own version tags made before HEAD (see [`Tags`]).
pub(super) fn newest_tags(repo: &gix::Repository) -> Tags {
    let time_of = |id: gix::Id<'_>| -> Option<i64> {
        let commit = id.object().ok()?.peel_to_commit().ok()?;
        commit.time().ok().map(|t| t.seconds)
    };
    let Some(head) = repo.head_id().ok() else {
        return Tags::default();
    };
    let Some(head_time) = time_of(head) else {
        return Tags::default();
    };
    let head = head.detach();
    let Ok(platform) = repo.references() else {
        return Tags::default();
    };
    let Ok(refs) = platform.tags() else {
        return Tags::default();
    };
    // Where the history is too long to walk, every tag counts as one it descends from.
    let history = history(repo, head);
    let mut at_head: Vec<String> = Vec::new();
    let mut tags: Vec<Tagged> = refs
        .filter_map(|r| r.ok())
        .take(2000)
        .filter_map(|r| {
            let name = r.name().shorten().to_str_lossy().into_owned();
            let id = r.clone().into_fully_peeled_id().ok()?;
            if head == id.detach() {
                at_head.push(name.clone());
            }
            let behind = history
                .as_ref()
                .and_then(|h| h.behind.get(&id.detach()).copied());
            let ancestor = history.is_none() || behind.is_some();
            let at = time_of(id)?;
            // Only versions that came before this checkout could have shown it.
            (at <= head_time).then_some(Tagged {
                name,
                at,
                ancestor,
                behind,
                id: id.detach(),
            })
        })
        .collect();
    newest_first(&mut tags);
    // The project's own versions: the family of tags (`v1.2.0`, `tokio-1.20.0`) with the most
    // of the latest releases, over its sub-crates' (`tokio-util-0.7.3`) and an older naming
    // (`jcommander-1.48` before `1.64`).
    let latest: Vec<String> = tags.iter().take(10).map(|t| t.name.clone()).collect();
    let family = main_family(&latest);
    tags.retain(|t| tag_family(&t.name) == family);
    // Only a tag HEAD descends from is a version of its code: a maintenance branch's
    // `v2.20.3`, tagged after `v4.0.0`, is not, nor a release tagged on a commit of its own
    // that was never merged back ("the code after" it would be false).
    let released: Vec<String> = tags.iter().take(200).map(|t| t.name.clone()).collect();
    tags.retain(|t| t.ancestor);
    // Within the family, newest is the highest version, its pre-releases below it (`RC5`
    // above `RC4-3`, `2.0.0-beta2` above `2.0.0-beta1.9`, `v4.0.0-1` below `v4.0.0`).
    tags.sort_by(|a, b| {
        version_key(&b.name)
            .cmp(&version_key(&a.name))
            .then(b.at.cmp(&a.at))
            .then_with(|| a.name.cmp(&b.name))
    });
    let nearest = history.as_ref().and_then(|h| nearest(h, head, &tags));
    let newest: Vec<String> = tags.into_iter().take(50).map(|t| t.name).collect();
    let head = newest.iter().find(|n| at_head.contains(n)).cloned();
    Tags {
        newest,
        head,
        nearest,
        released,
    }
}

/// Tags the nearest is chosen among: the fewest commits behind HEAD along a path, and the first
/// along its first parents.
const NEAREST_CANDIDATES: usize = 4;

/// The tag nearest HEAD as `git describe` counts: the fewest commits of HEAD's history
/// not in the tag's; then the highest version (`tags` are sorted by version). Counted
/// only for the few nearest along a path: a merge can make a tag near by a path and far by
/// what it lacks (`v3.0.0` nearer up a merged branch, yet 16 behind; `v3.0.1` 12).
fn nearest(history: &History, head: gix::ObjectId, tags: &[Tagged]) -> Option<String> {
    let mut near: Vec<&Tagged> = tags.iter().filter(|t| t.behind.is_some()).collect();
    // Stable: of those equally near, the highest version first.
    near.sort_by_key(|t| t.behind);
    near.truncate(NEAREST_CANDIDATES);
    // And the first met going back along the first parents (the line releases are made on).
    let mut line = Vec::new();
    let mut at = Some(head);
    while let Some(c) = at
        && line.len() < NEAREST_CANDIDATES
    {
        line.extend(tags.iter().filter(|t| t.id == c));
        at = history.parents.get(&c).and_then(|p| p.first()).copied();
    }
    near.extend(line);
    let commits = history.behind.len();
    near.into_iter()
        .map(|t| (commits.saturating_sub(history.count_from(t.id)), t))
        .min_by_key(|(lacks, _)| *lacks)
        .map(|(_, t)| t.name.clone())
}

/// The numbers of a version-like tag, for sorting (`v1.10.0` after `v1.9.2`).
pub(super) fn version_key(tag: &str) -> Vec<u64> {
    let numbers = |s: &str| -> Vec<u64> {
        s.split(|c: char| !c.is_ascii_digit())
            .filter(|s| !s.is_empty())
            .take(6)
            .map(|s| s.parse().unwrap_or(0))
            .collect()
    };
    // `v4.0.0-1` is a pre-release: below `v4.0.0`.
    let bare = tag.trim_start_matches(|c: char| !c.is_ascii_digit());
    let (core, pre) = bare.split_once('-').unwrap_or((bare, ""));
    let mut key = numbers(core);
    if key.is_empty() {
        return numbers(tag);
    }
    key.resize(4, 0);
    key.push(u64::from(pre.is_empty()));
    key.extend(numbers(pre));
    key
}

/// Commits walked at most to learn which tags HEAD descends from.
const MAX_HISTORY: usize = 200_000;

/// HEAD's history, walked once: each commit's parents, and how many commits it is behind HEAD
/// along the shortest path (breadth first: each reached first from its nearest child).
struct History {
    behind: HashMap<gix::ObjectId, usize>,
    parents: HashMap<gix::ObjectId, Vec<gix::ObjectId>>,
}

impl History {
    /// The commits of `id`'s history (all within HEAD's), counted in memory.
    fn count_from(&self, id: gix::ObjectId) -> usize {
        let mut seen = HashSet::from([id]);
        let mut todo = vec![id];
        while let Some(c) = todo.pop() {
            for p in self.parents.get(&c).into_iter().flatten() {
                if seen.insert(*p) {
                    todo.push(*p);
                }
            }
        }
        seen.len()
    }
}

/// HEAD's history; `None` when it is longer than [`MAX_HISTORY`] or cannot be walked.
fn history(repo: &gix::Repository, head: gix::ObjectId) -> Option<History> {
    let mut behind = HashMap::from([(head, 0)]);
    let mut parents = HashMap::new();
    let walk = repo
        .rev_walk([head])
        .sorting(gix::revision::walk::Sorting::BreadthFirst)
        .all()
        .ok()?;
    for info in walk {
        let info = info.ok()?;
        let at = behind.get(&info.id).copied().unwrap_or(0);
        let of: Vec<gix::ObjectId> = info.parent_ids().map(|p| p.detach()).collect();
        for p in &of {
            behind.entry(*p).or_insert(at + 1);
        }
        parents.insert(info.id, of);
        if behind.len() > MAX_HISTORY {
            return None;
        }
    }
    Some(History { behind, parents })
}

/// Tags newest first: by the time of their commit, never by their text (`v20160726` is older
/// than `v2.5.4`); tags of one commit by their version.
fn newest_first(tags: &mut [Tagged]) {
    tags.sort_by(|a, b| {
        b.at.cmp(&a.at)
            .then_with(|| version_key(&b.name).cmp(&version_key(&a.name)))
            .then_with(|| a.name.cmp(&b.name))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tags_of_the_main_product_are_its_versions() {
        let tags: Vec<String> = [
            "0.1.4",
            "0.1.5",
            "tokio-1.19.0",
            "tokio-1.20.0",
            "tokio-1.18.2",
            "tokio-util-0.7.3",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(main_family(&tags), "tokio-");
        assert_eq!(tag_family("v1.2.0"), "");
        assert_eq!(tag_family("tokio-util-0.7.3"), "tokio-util-");
        let fd: Vec<String> = ["v8.0.0", "v7.4.0", "v7.3.0"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(main_family(&fd), "");
    }
}
