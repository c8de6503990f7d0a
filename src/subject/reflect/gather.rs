//! The walk over `rev..HEAD`: commits, authors, reverts, per-commit tree diffs, churn, tests and
//! TODOs, folded into [`ReflectFacts`].

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use gix::bstr::ByteSlice;

use crate::error::{Error, Result};

use super::cap;
use super::diff::{blob_paths, count_lines, diff_trees, line_of, tree_of};
use super::facts::{AuthorCount, CommitLine, FileChurn, Gap, ReflectFacts, TestFacts, TodoLine};
use super::paths::{is_doc_path, is_test_path};
use super::range::{open, resolve};

/// How many entries each list keeps; the counts beside them stay exact.
const TOP_FILES: usize = 20;
const MAX_SUBJECTS: usize = 200;
const MAX_LIST: usize = 50;

/// One commit of the range, decoded once.
struct RangeCommit {
    line: CommitLine,
    time: i64,
    tree: gix::ObjectId,
    first_parent: Option<gix::ObjectId>,
    merge: bool,
}

#[derive(Default)]
struct ChurnAcc {
    added: u64,
    deleted: u64,
    commits: usize,
    binary: bool,
    last_commit: String,
    last_time: i64,
}

/// Collect the facts of `rev..HEAD`.
pub fn gather(repo_root: &Path, rev: &str) -> Result<ReflectFacts> {
    let repo = open(repo_root)?;
    let base = resolve(&repo, rev)?;
    let head = repo
        .head_id()
        .map_err(|e| Error::Repo(format!("HEAD does not point to a commit: {e}")))?
        .detach();

    let walk = repo
        .rev_walk([head])
        .with_hidden([base])
        .all()
        .map_err(|e| Error::Repo(format!("cannot walk {rev}..HEAD: {e}")))?;
    let mut commits = Vec::new();
    for info in walk {
        let info = info.map_err(|e| Error::Repo(format!("cannot walk {rev}..HEAD: {e}")))?;
        let commit = info
            .object()
            .map_err(|e| Error::Repo(format!("cannot read commit {}: {e}", info.id)))?;
        commits.push(decode_commit(&commit)?);
    }
    // Newest first; the id breaks ties so the order never depends on the walk.
    commits.sort_by(|a, b| b.time.cmp(&a.time).then(b.line.oid.cmp(&a.line.oid)));

    let mut facts = ReflectFacts {
        range: format!("{rev}..HEAD"),
        base: base.to_string(),
        head: head.to_string(),
        commits: commits.len(),
        merges: commits.iter().filter(|c| c.merge).count(),
        first_date: commits.last().map(|c| c.line.date.clone()),
        last_date: commits.first().map(|c| c.line.date.clone()),
        ..ReflectFacts::default()
    };
    facts.subjects = commits
        .iter()
        .take(MAX_SUBJECTS)
        .map(|c| c.line.clone())
        .collect();
    facts.longest_gap = commits
        .windows(2)
        .map(|w| (w[0].time - w[1].time, w))
        .filter(|(s, _)| *s > 0)
        .max_by(|(a, wa), (b, wb)| a.cmp(b).then(wb[0].line.oid.cmp(&wa[0].line.oid)))
        .map(|(seconds, w)| Gap {
            seconds,
            from: w[1].line.clone(),
            to: w[0].line.clone(),
        });
    facts.authors = authors(&repo, &commits)?;
    facts.reverts = commits
        .iter()
        .filter(|c| is_revert(&repo, c))
        .take(MAX_LIST)
        .map(|c| c.line.clone())
        .collect();

    let head_tree = tree_of(&repo, head)?;
    let mut churn: BTreeMap<String, ChurnAcc> = BTreeMap::new();
    let mut tests = TestFacts::default();
    let mut test_paths = BTreeSet::new();
    let mut code_paths = BTreeSet::new();
    let mut todos: Vec<(String, String, String)> = Vec::new();
    let mut todos_count = 0;
    let mut state = gix::diff::tree::State::default();
    // Oldest first, so a TODO's "newest commit" and `last_commit` come out right.
    for c in commits.iter().rev().filter(|c| !c.merge) {
        let parent_tree = match c.first_parent {
            Some(p) => Some(tree_of(&repo, p)?),
            None => None,
        };
        let changes = diff_trees(&repo, parent_tree, c.tree, &mut state)?;
        let (mut touches_test, mut touches_code) = (false, false);
        for change in changes {
            let numbers = count_lines(&repo, &change)?;
            let acc = churn.entry(change.path.clone()).or_default();
            acc.added += numbers.added;
            acc.deleted += numbers.deleted;
            acc.commits += 1;
            acc.binary |= numbers.binary;
            acc.last_commit = c.line.oid.clone();
            acc.last_time = c.time;
            for line in numbers.todo_lines {
                todos_count += 1;
                if todos.len() < MAX_LIST * 4 {
                    todos.push((line, change.path.clone(), c.line.oid.clone()));
                }
            }
            if is_test_path(&change.path) {
                touches_test = true;
                test_paths.insert(change.path);
            } else if !is_doc_path(&change.path) {
                touches_code = true;
                code_paths.insert(change.path);
            }
        }
        tests.commits_touching_tests += usize::from(touches_test);
        tests.commits_touching_code += usize::from(touches_code);
        if touches_code && !touches_test {
            tests.commits_code_without_tests += 1;
            tests.code_without_tests.push(c.line.clone());
        }
    }
    tests.code_without_tests.reverse();
    tests.code_without_tests.truncate(MAX_LIST);
    tests.test_files_touched = test_paths.len();
    tests.code_files_touched = code_paths.len();
    facts.tests = tests;

    facts.lines_added = churn.values().map(|a| a.added).sum();
    facts.lines_deleted = churn.values().map(|a| a.deleted).sum();
    facts.files_changed = churn.len();
    let head_paths = blob_paths(&repo, &head_tree)?;
    let mut ranked: Vec<(&String, &ChurnAcc)> = churn.iter().collect();
    ranked.sort_by(|(pa, a), (pb, b)| {
        (b.added + b.deleted)
            .cmp(&(a.added + a.deleted))
            .then(b.commits.cmp(&a.commits))
            .then(pa.cmp(pb))
    });
    facts.churn = ranked
        .into_iter()
        .take(TOP_FILES)
        .map(|(path, a)| FileChurn {
            path: path.clone(),
            added: a.added,
            deleted: a.deleted,
            commits: a.commits,
            binary: a.binary,
            last_commit: a.last_commit.clone(),
            at_head: head_paths.contains_key(path),
        })
        .collect();

    // Net added and deleted files: what the range did to the tree, not every intermediate step.
    let base_tree = tree_of(&repo, base)?;
    let base_paths = blob_paths(&repo, &base_tree)?;
    let added: Vec<&String> = head_paths
        .keys()
        .filter(|p| !base_paths.contains_key(*p))
        .collect();
    let deleted: Vec<&String> = base_paths
        .keys()
        .filter(|p| !head_paths.contains_key(*p))
        .collect();
    facts.added_files_count = added.len();
    facts.deleted_files_count = deleted.len();
    facts.added_files = added.into_iter().take(MAX_LIST).cloned().collect();
    facts.deleted_files = deleted.into_iter().take(MAX_LIST).cloned().collect();

    // Newest TODOs first: they are the ones most likely still open.
    todos.reverse();
    let mut head_lines: HashMap<String, Option<Vec<u8>>> = HashMap::new();
    facts.todos = todos
        .into_iter()
        .take(MAX_LIST)
        .map(|(text, path, commit)| {
            let blob = head_lines
                .entry(path.clone())
                .or_insert_with(|| {
                    head_paths
                        .get(&path)
                        .and_then(|id| repo.find_blob(*id).ok())
                        .map(|b| b.data.clone())
                })
                .as_deref();
            let line = blob.and_then(|data| line_of(data, &text));
            TodoLine {
                text: cap(&text, 160),
                path,
                line,
                commit,
            }
        })
        .collect();
    facts.todos_count = todos_count;
    Ok(facts)
}

fn decode_commit(commit: &gix::Commit<'_>) -> Result<RangeCommit> {
    let oid = commit.id;
    let bad = |e: &dyn std::fmt::Display| Error::Repo(format!("cannot decode commit {oid}: {e}"));
    let time = commit.time().map_err(|e| bad(&e))?.seconds;
    let message = commit.message_raw_sloppy();
    let subject = message
        .lines()
        .map(|l| l.to_str_lossy())
        .find(|l| !l.trim().is_empty())
        .map(|l| cap(l.trim(), 200))
        .unwrap_or_default();
    let parents: Vec<gix::ObjectId> = commit.parent_ids().map(|p| p.detach()).collect();
    Ok(RangeCommit {
        line: CommitLine {
            oid: oid.to_string(),
            date: civil_date(time),
            subject,
        },
        time,
        tree: commit.tree_id().map_err(|e| bad(&e))?.detach(),
        first_parent: parents.first().copied(),
        merge: parents.len() > 1,
    })
}

fn authors(repo: &gix::Repository, commits: &[RangeCommit]) -> Result<Vec<AuthorCount>> {
    let mut counts: BTreeMap<(String, String), usize> = BTreeMap::new();
    for c in commits {
        let Ok(id) = gix::ObjectId::from_hex(c.line.oid.as_bytes()) else {
            continue;
        };
        let commit = repo
            .find_commit(id)
            .map_err(|e| Error::Repo(format!("cannot read commit {id}: {e}")))?;
        let author = commit
            .author()
            .map_err(|e| Error::Repo(format!("cannot decode the author of {id}: {e}")))?
            .trim();
        let key = (
            cap(&author.name.to_str_lossy(), 100),
            cap(&author.email.to_str_lossy(), 100),
        );
        *counts.entry(key).or_default() += 1;
    }
    let mut out: Vec<AuthorCount> = counts
        .into_iter()
        .map(|((name, email), commits)| AuthorCount {
            name,
            email,
            commits,
        })
        .collect();
    out.sort_by(|a, b| b.commits.cmp(&a.commits).then(a.name.cmp(&b.name)));
    Ok(out)
}

fn is_revert(repo: &gix::Repository, c: &RangeCommit) -> bool {
    if c.line.subject.starts_with("Revert \"") {
        return true;
    }
    gix::ObjectId::from_hex(c.line.oid.as_bytes())
        .ok()
        .and_then(|id| repo.find_commit(id).ok())
        .is_some_and(|commit| {
            commit
                .message_raw_sloppy()
                .find(b"This reverts commit")
                .is_some()
        })
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
    fn civil_date_matches_known_days() {
        assert_eq!(civil_date(0), "1970-01-01");
        assert_eq!(civil_date(951_782_400), "2000-02-29");
        assert_eq!(civil_date(1_700_000_000), "2023-11-14");
        assert_eq!(civil_date(-86_400), "1969-12-31");
    }
}
