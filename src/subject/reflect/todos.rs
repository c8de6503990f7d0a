//! What the range did to the tree, net (base against HEAD): the files it added and deleted, each
//! with the commit that did it, and the TODO/FIXME lines present at HEAD that were not at the
//! base, at their line at HEAD, newest first.

use std::collections::{BTreeSet, HashMap};

use super::cap;
use super::diff::{CommitFacts, blob, count_lines, diff_trees, line_count};
use super::facts::TodoLine;
use super::paths::{is_doc_path, is_incidental, is_test_path};
use super::walk::RangeCommit;
use crate::error::Result;

/// The net change: `(path, lines, index of the commit that did it)` for files, and the TODOs.
pub(super) struct NetChange {
    pub(super) added: Vec<(String, u64, Option<usize>)>,
    pub(super) deleted: Vec<(String, u64, Option<usize>)>,
    pub(super) todos: Vec<TodoLine>,
}

/// Every blob (and symlink) path of a tree.
pub(super) fn blob_paths(repo: &gix::Repository, tree: gix::ObjectId) -> Result<BTreeSet<String>> {
    let changes = diff_trees(repo, None, tree, &mut Default::default())?;
    Ok(changes.into_iter().map(|c| c.path).collect())
}

/// What the base tree and HEAD's differ by, before who did it is known: read on its own
/// thread while the commits are walked and diffed.
pub(super) struct NetDiff {
    /// `(path, lines)` of the files added and deleted.
    added: Vec<(String, u64)>,
    deleted: Vec<(String, u64)>,
    /// TODO/FIXME lines at HEAD that the base did not have there: `(path, line, text)`.
    candidates: Vec<(String, u32, String)>,
    /// TODO/FIXME texts the net change removed, with how often.
    removed: HashMap<String, usize>,
}

/// Compare the base tree with HEAD's.
pub(super) fn net_diff(
    repo: &gix::Repository,
    base_tree: gix::ObjectId,
    head_tree: gix::ObjectId,
) -> Result<NetDiff> {
    let mut net = NetDiff {
        added: Vec::new(),
        deleted: Vec::new(),
        candidates: Vec::new(),
        removed: HashMap::new(),
    };
    let blob_lines = |id: gix::ObjectId, path: &str| -> Result<u64> {
        let data = blob(repo, id, path)?;
        let binary = data[..data.len().min(8000)].contains(&0);
        Ok(if binary { 0 } else { line_count(&data) })
    };
    for change in diff_trees(repo, Some(base_tree), head_tree, &mut Default::default())? {
        match (&change.old, &change.new) {
            (None, Some((id, _))) => {
                let lines = blob_lines(*id, &change.path)?;
                net.added.push((change.path.clone(), lines));
            }
            (Some((id, _)), None) => {
                let lines = blob_lines(*id, &change.path)?;
                net.deleted.push((change.path.clone(), lines));
            }
            _ => {}
        }
        let lines = count_lines(repo, &change)?;
        for text in lines.todos_removed {
            *net.removed.entry(text).or_default() += 1;
        }
        for (line, text) in lines.todos_added {
            net.candidates.push((change.path.clone(), line, text));
        }
    }
    Ok(net)
}

/// The net change of [`net_diff`], each file and TODO with the commit that did it: `commits`
/// (history order, newest first) and their diffs say who added or deleted each.
pub(super) fn net_change(
    diff: NetDiff,
    commits: &[RangeCommit],
    per_commit: &[Option<CommitFacts>],
) -> NetChange {
    let mut who = Doers::of(per_commit);
    let NetDiff {
        added,
        deleted,
        candidates,
        mut removed,
    } = diff;
    let by = |who: &HashMap<&str, usize>, (path, lines): (String, u64)| {
        let i = who.get(path.as_str()).copied();
        (path, lines, i)
    };
    let mut net = NetChange {
        added: added.into_iter().map(|f| by(&who.adder, f)).collect(),
        deleted: deleted.into_iter().map(|f| by(&who.deleter, f)).collect(),
        todos: Vec::new(),
    };
    // The files worth reading first: code before tests, docs and incidental files; the largest.
    let weight = |path: &str| (is_incidental(path), is_test_path(path) || is_doc_path(path));
    for list in [&mut net.added, &mut net.deleted] {
        list.sort_by(|a, b| {
            (weight(&a.0), std::cmp::Reverse(a.1), &a.0).cmp(&(
                weight(&b.0),
                std::cmp::Reverse(b.1),
                &b.0,
            ))
        });
    }
    let mut attributed = attribute_todos(candidates, &mut who.todo_adders);
    // A line removed elsewhere in the range's net change moved rather than appeared: the oldest
    // candidates with that text cancel against it.
    for idx in (0..attributed.len()).rev() {
        let text = &attributed[idx].3;
        if let Some(n) = removed.get_mut(text).filter(|n| **n > 0) {
            *n -= 1;
            attributed[idx].3.clear();
            attributed[idx].1.clear();
        }
    }
    net.todos = attributed
        .into_iter()
        .filter(|(_, path, _, _)| !path.is_empty())
        .map(|(by, path, line, text)| TodoLine {
            text: cap(&text, 160),
            path,
            line: Some(line),
            commit: by.map(|i| commits[i].line.oid.clone()).unwrap_or_default(),
        })
        .collect();
    net
}

/// Who did what in the range, by commit index (newest first).
struct Doers<'a> {
    /// The newest commit that added each path.
    adder: HashMap<&'a str, usize>,
    /// The newest commit that deleted each path.
    deleter: HashMap<&'a str, usize>,
    /// Every commit that added a TODO text net, with its path (and whether it was used yet).
    todo_adders: HashMap<&'a str, Vec<(usize, &'a str, bool)>>,
}

impl<'a> Doers<'a> {
    fn of(per_commit: &'a [Option<CommitFacts>]) -> Doers<'a> {
        let mut who = Doers {
            adder: HashMap::new(),
            deleter: HashMap::new(),
            todo_adders: HashMap::new(),
        };
        for (i, facts) in per_commit.iter().enumerate() {
            let Some(facts) = facts else { continue };
            for change in &facts.changes {
                match change.status {
                    'A' => who.adder.entry(change.path.as_str()).or_insert(i),
                    'D' => who.deleter.entry(change.path.as_str()).or_insert(i),
                    _ => continue,
                };
            }
            for (path, text) in &facts.todos {
                who.todo_adders
                    .entry(text.as_str())
                    .or_default()
                    .push((i, path.as_str(), false));
            }
        }
        who
    }
}

/// Who added each line: the newest commit that added this text to this path, else to any
/// path (it moved since); each adding commit is used once while others remain. Newest first;
/// the lines no commit added net (they came through a merge, or moved) last.
fn attribute_todos(
    candidates: Vec<(String, u32, String)>,
    todo_adders: &mut HashMap<&str, Vec<(usize, &str, bool)>>,
) -> Vec<(Option<usize>, String, u32, String)> {
    let mut attributed: Vec<(Option<usize>, String, u32, String)> = candidates
        .into_iter()
        .map(|(path, line, text)| {
            let chosen = todo_adders.get_mut(text.as_str()).and_then(|list| {
                let at = list
                    .iter()
                    .position(|(_, p, used)| !used && *p == path)
                    .or_else(|| list.iter().position(|(_, _, used)| !used))
                    .unwrap_or(0);
                list.get_mut(at).map(|entry| {
                    entry.2 = true;
                    entry.0
                })
            });
            (chosen, path, line, text)
        })
        .collect();
    attributed.sort_by(|a, b| {
        let key = |x: &Option<usize>| x.unwrap_or(usize::MAX);
        key(&a.0)
            .cmp(&key(&b.0))
            .then(a.1.cmp(&b.1))
            .then(a.2.cmp(&b.2))
    });
    attributed
}
