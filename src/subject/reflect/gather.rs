//! The facts of `rev..HEAD`: the commit walk, each non-merge commit's diff (on every core, or
//! from the local tier's cache), folded into [`ReflectFacts`].

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError, mpsc};

use crate::error::{Error, Result};

use super::cache::FactsCache;
use super::diff::{CommitFacts, tree_of};
use super::facts::{FileChurn, FileEvent, Gap, ReflectFacts, TestFacts};
use super::paths::{PathKinds, says_release};
use super::range::{open, resolve};
use super::todos;
use super::walk::{RangeCommit, authors, civil_date};
use super::workers::{Diffed, walk_and_diff};

/// How many entries each list keeps; the counts beside them stay exact.
const TOP_FILES: usize = 20;
const MAX_SUBJECTS: usize = 200;
const MAX_LIST: usize = 50;
/// Examples worth asking about, at most.
const NOTABLE: usize = 5;

#[derive(Default)]
struct ChurnAcc {
    added: u64,
    deleted: u64,
    commits: usize,
    binary: bool,
    /// Index (history order) of the newest commit that changed the file.
    last: Option<usize>,
}

/// Collect the facts of `rev..HEAD`, computing every commit's diff.
pub fn gather(repo_root: &Path, rev: &str) -> Result<ReflectFacts> {
    gather_with(repo_root, rev, FactsCache::none())
}

/// Collect the facts of `rev..HEAD` through the cache of the local tier at
/// `<worktree>/.interview/` when it exists: a range computed before is read whole, else only the
/// commits not diffed before are.
pub fn gather_cached(repo_root: &Path, rev: &str) -> Result<ReflectFacts> {
    let facts = gather_cached_later(repo_root, rev);
    settle();
    facts
}

/// [`gather_cached`], with what the cache learnt written on another thread: the facts are back
/// before it is on the disk. [`settle`] waits for it (before anything looks at the local tier:
/// the guard's first snapshot) and must be called before the process ends.
pub(crate) fn gather_cached_later(repo_root: &Path, rev: &str) -> Result<ReflectFacts> {
    gather_with(repo_root, rev, FactsCache::open(repo_root))
}

/// The cache writes [`gather_cached_later`] started and nobody has waited for yet: each says
/// when its file is in place (and then frees what it held on its own time).
static WRITES: Mutex<Vec<mpsc::Receiver<()>>> = Mutex::new(Vec::new());

/// Wait for every cache write [`gather_cached_later`] started to be in place. A write that
/// failed (or whose thread stopped) only costs the next run time.
pub(crate) fn settle() {
    let writes = std::mem::take(&mut *WRITES.lock().unwrap_or_else(PoisonError::into_inner));
    for written in writes {
        let _ = written.recv();
    }
}

fn gather_with(repo_root: &Path, rev: &str, mut cache: FactsCache) -> Result<ReflectFacts> {
    let repo = open(repo_root)?;
    let base = resolve(&repo, rev)?;
    let head = repo
        .head_id()
        .map_err(|e| Error::Repo(format!("HEAD does not point to a commit: {e}")))?
        .detach();
    let range = super::range::shown_range(rev, &base.to_string(), &head.to_string());
    let head_tree = tree_of(&repo, head)?;
    // A repository that commits a `.interview/` could ship a cache claiming any facts: the local
    // tier is only trusted when it is the machine's own.
    let tier_committed = repo
        .find_tree(head_tree)
        .ok()
        .and_then(|t| t.find_entry(".interview").map(|_| ()))
        .is_some();
    if tier_committed {
        cache.disable();
    }
    // The facts are a function of the two commits alone (`.mailmap` is read at HEAD).
    if let Some(mut facts) = cache.range(&base, &head) {
        facts.range = range;
        return Ok(facts);
    }
    let base_tree = tree_of(&repo, base)?;
    std::thread::scope(|scope| {
        // The net change between the two trees needs no commit: it is read on the other core
        // while the commits are walked.
        let net = {
            let repo = repo.clone();
            scope.spawn(move || -> Result<_> {
                Ok((
                    todos::net_diff(&repo, base_tree, head_tree)?,
                    todos::blob_paths(&repo, head_tree)?,
                ))
            })
        };
        let Diffed {
            commits,
            per_commit,
            fresh,
        } = walk_and_diff(&repo, head, base, &range, &mut cache)?;
        let (net, head_paths) = net.join().unwrap_or_else(|_| {
            Err(Error::WorkerStopped(
                "the worker comparing the base with HEAD",
            ))
        })?;
        let diffed = Arc::new((commits, per_commit));
        let folded = write_cache_later(cache, Arc::clone(&diffed), fresh, (base, head));
        let (commits, per_commit) = &*diffed;
        let answers = answers_files(&repo, head_tree, per_commit, &head_paths);
        let facts = fold(
            range,
            (base, head),
            commits,
            per_commit,
            net,
            (&head_paths, &answers),
        );
        let _ = folded.send(facts.clone());
        Ok(facts)
    })
}

/// What the cache learnt is encoded and written on another core while the facts are folded
/// and the session starts ([`settle`] waits for it); the range's own facts follow once folded,
/// on the returned sender.
fn write_cache_later(
    mut cache: FactsCache,
    diffed: Arc<(Vec<RangeCommit>, Vec<Option<CommitFacts>>)>,
    fresh: Vec<usize>,
    (base, head): (gix::ObjectId, gix::ObjectId),
) -> mpsc::Sender<ReflectFacts> {
    let (folded, range_facts) = mpsc::channel::<ReflectFacts>();
    if !cache.enabled() {
        return folded;
    }
    let (written, in_place) = mpsc::channel::<()>();
    std::thread::spawn(move || {
        cache.parse_commits();
        let (commits, per_commit) = &*diffed;
        let encoded = cache.encode(
            fresh
                .iter()
                .filter_map(|&i| Some((&commits[i].id, per_commit[i].as_ref()?))),
        );
        cache.set_encoded(encoded);
        super::test_hook::delay_cache_write();
        // No facts: the fold did not finish, and only the commits are kept.
        if let Ok(facts) = range_facts.recv() {
            cache.put_range(&base, &head, &facts);
        }
        cache.save();
        let _ = written.send(());
    });
    WRITES
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(in_place);
    folded
}

/// The `.json` files the range changed that are answers files at HEAD (the `"interview_answers"`
/// key in their first 4 KiB), wherever they are kept: the tool's own, like its documents.
fn answers_files(
    repo: &gix::Repository,
    head_tree: gix::ObjectId,
    per_commit: &[Option<CommitFacts>],
    head_paths: &BTreeSet<String>,
) -> BTreeSet<String> {
    let candidates: BTreeSet<&str> = per_commit
        .iter()
        .flatten()
        .flat_map(|f| &f.changes)
        .map(|c| c.path.as_str())
        .filter(|p| p.ends_with(".json") && head_paths.contains(*p))
        .collect();
    let Ok(tree) = repo.find_tree(head_tree) else {
        return BTreeSet::new();
    };
    candidates
        .into_iter()
        .filter(|path| {
            let blob = tree
                .lookup_entry_by_path(path)
                .ok()
                .flatten()
                .and_then(|e| repo.find_blob(e.object_id()).ok());
            blob.is_some_and(|b| {
                let head = &b.data[..b.data.len().min(4096)];
                head.windows(ANSWERS_KEY.len()).any(|w| w == ANSWERS_KEY)
            })
        })
        .map(str::to_string)
        .collect()
}

/// The key that makes a `.json` file an answers file (docs/ci.md).
const ANSWERS_KEY: &[u8] = b"\"interview_answers\"";

/// The facts of the range from its commits, their diffs and the net change; `paths` are the
/// paths at HEAD and the answers files among them.
fn fold(
    range: String,
    (base, head): (gix::ObjectId, gix::ObjectId),
    commits: &[RangeCommit],
    per_commit: &[Option<CommitFacts>],
    net: todos::NetDiff,
    (head_paths, answers): (&BTreeSet<String>, &BTreeSet<String>),
) -> ReflectFacts {
    let mut facts = commit_facts(range, (base, head), commits);
    // Release and version-bump commits: their files and examples are not worth asking about.
    // (`is_version_bump`, with each path judged once.)
    let mut kinds = PathKinds::new(answers);
    let bumps: Vec<bool> = per_commit
        .iter()
        .zip(commits)
        .map(|(facts, c)| {
            facts.as_ref().is_some_and(|facts| {
                says_release(&c.line.subject)
                    || (!facts.changes.is_empty()
                        && facts.changes.iter().all(|ch| kinds.of(&ch.path).release))
            })
        })
        .collect();
    let churn = fold_churn(per_commit);
    facts.tests = test_facts(commits, per_commit, &bumps, &mut kinds);
    facts.lines_added = churn.values().map(|a| a.added).sum();
    facts.lines_deleted = churn.values().map(|a| a.deleted).sum();
    facts.files_changed = churn.len();
    let file_churn = |(path, a): (&String, &ChurnAcc)| FileChurn {
        path: path.clone(),
        added: a.added,
        deleted: a.deleted,
        commits: a.commits,
        binary: a.binary,
        last_commit: a
            .last
            .map(|i| commits[i].line.oid.clone())
            .unwrap_or_default(),
        at_head: head_paths.contains(path.as_str()),
    };
    // The tool's own files (its documents, answers files) are counted, never ranked.
    facts.churn = by_churn(churn.iter().collect())
        .into_iter()
        .filter(|(path, _)| !kinds.of(path).own)
        .take(TOP_FILES)
        .map(file_churn)
        .collect();
    // The files worth asking about: at HEAD, not incidental, and by the work of commits other
    // than release or version-bump commits.
    let worked = fold_churn(
        &per_commit
            .iter()
            .zip(&bumps)
            .map(|(facts, &bump)| facts.as_ref().filter(|_| !bump))
            .collect::<Vec<_>>(),
    );
    let notable: Vec<(&String, &ChurnAcc)> = worked
        .iter()
        .filter(|(path, a)| {
            head_paths.contains(path.as_str())
                && !a.binary
                && !kinds.of(path).incidental
                && !kinds.of(path).own
                && a.added + a.deleted > 0
        })
        .collect();
    facts.notable_churn = by_churn(notable)
        .into_iter()
        .take(NOTABLE)
        .filter_map(|(path, _)| churn.get_key_value(path))
        .map(file_churn)
        .collect();
    net_facts(
        &mut facts,
        todos::net_change(net, commits, per_commit),
        commits,
    );
    facts
}

/// What the commits alone say: the range, their count and dates, the authors, the subjects,
/// the longest gap and the reverts.
fn commit_facts(
    range: String,
    (base, head): (gix::ObjectId, gix::ObjectId),
    commits: &[RangeCommit],
) -> ReflectFacts {
    let first_time = commits.iter().map(|c| c.time).min();
    let last_time = commits.iter().map(|c| c.time).max();
    ReflectFacts {
        range,
        base: base.to_string(),
        head: head.to_string(),
        commits: commits.len(),
        merges: commits.iter().filter(|c| c.merge()).count(),
        first_date: first_time.map(civil_date),
        last_date: last_time.map(civil_date),
        span_seconds: last_time.zip(first_time).map_or(0, |(l, f)| l - f),
        authors: authors(commits),
        subjects: commits
            .iter()
            .take(MAX_SUBJECTS)
            .map(|c| c.line.clone())
            .collect(),
        longest_gap: longest_gap(commits),
        reverts_count: commits.iter().filter(|c| c.revert).count(),
        reverts: commits
            .iter()
            .filter(|c| c.revert)
            .take(MAX_LIST)
            .map(|c| c.line.clone())
            .collect(),
        ..ReflectFacts::default()
    }
}

/// Files ranked by lines changed, then by commits, then by path.
fn by_churn<'a>(mut files: Vec<(&'a String, &'a ChurnAcc)>) -> Vec<(&'a String, &'a ChurnAcc)> {
    files.sort_by(|(pa, a), (pb, b)| {
        (b.added + b.deleted)
            .cmp(&(a.added + a.deleted))
            .then(b.commits.cmp(&a.commits))
            .then(pa.cmp(pb))
    });
    files
}

/// What the range did to the tree, net: files added and deleted, and TODO/FIXME lines.
fn net_facts(facts: &mut ReflectFacts, net: todos::NetChange, commits: &[RangeCommit]) {
    let event = |(path, lines, by): (String, u64, Option<usize>)| FileEvent {
        path,
        lines,
        by: by.map(|i| commits[i].line.clone()),
    };
    facts.added_files_count = net.added.len();
    facts.deleted_files_count = net.deleted.len();
    facts.added_files = net.added.into_iter().take(MAX_LIST).map(event).collect();
    facts.deleted_files = net.deleted.into_iter().take(MAX_LIST).map(event).collect();
    facts.todos_count = net.todos.len();
    facts.todos = net.todos.into_iter().take(MAX_LIST).collect();
}

fn fold_churn<F: std::borrow::Borrow<CommitFacts>>(
    per_commit: &[Option<F>],
) -> BTreeMap<String, ChurnAcc> {
    let mut churn: BTreeMap<String, ChurnAcc> = BTreeMap::new();
    // Newest first: the first commit seen for a file is the newest that changed it.
    for (i, facts) in per_commit.iter().enumerate() {
        for change in facts.iter().flat_map(|f| &f.borrow().changes) {
            let acc = match churn.get_mut(&change.path) {
                Some(acc) => acc,
                None => churn.entry(change.path.clone()).or_default(),
            };
            acc.added += change.added;
            acc.deleted += change.deleted;
            acc.commits += 1;
            acc.binary |= change.binary;
            acc.last.get_or_insert(i);
        }
    }
    churn
}

fn test_facts<'a>(
    commits: &[RangeCommit],
    per_commit: &'a [Option<CommitFacts>],
    bumps: &[bool],
    kinds: &mut PathKinds<'a>,
) -> TestFacts {
    let mut tests = TestFacts::default();
    let (mut test_paths, mut code_paths) = (BTreeSet::new(), BTreeSet::new());
    let mut untested: Vec<(u64, usize)> = Vec::new();
    for (i, facts) in per_commit.iter().enumerate() {
        let Some(facts) = facts else { continue };
        // A release or version bump (its subject, or only manifests, lockfiles and
        // changelogs): no code a test could cover. Counted apart, so the document says so.
        if bumps[i] {
            tests.release_commits += 1;
            continue;
        }
        let (mut touches_test, mut touches_code, mut code_lines) = (false, false, 0);
        for change in &facts.changes {
            let kind = kinds.of(&change.path);
            if kind.test {
                touches_test = true;
                test_paths.insert(change.path.as_str());
            } else if kind.code {
                touches_code = true;
                touches_test |= change.inline_tests;
                code_paths.insert(change.path.as_str());
                if !kind.incidental {
                    code_lines += change.added + change.deleted;
                }
            }
        }
        tests.commits_touching_tests += usize::from(touches_test);
        tests.commits_touching_code += usize::from(touches_code);
        if touches_code && !touches_test {
            tests.commits_code_without_tests += 1;
            if tests.code_without_tests.len() < MAX_LIST {
                tests.code_without_tests.push(commits[i].line.clone());
            }
            if code_lines > 0 {
                untested.push((code_lines, i));
            }
        }
    }
    // Most code changed first; the newer commit on a tie.
    untested.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    tests.notable_untested = untested
        .into_iter()
        .take(NOTABLE)
        .map(|(_, i)| commits[i].line.clone())
        .collect();
    tests.test_files_touched = test_paths.len();
    tests.code_files_touched = code_paths.len();
    tests
}

/// The longest pause between two commits adjacent in time (by committer time).
fn longest_gap(commits: &[RangeCommit]) -> Option<Gap> {
    let mut by_time: Vec<&RangeCommit> = commits.iter().collect();
    by_time.sort_by(|a, b| b.time.cmp(&a.time).then(b.id.cmp(&a.id)));
    by_time
        .windows(2)
        .map(|w| (w[0].time - w[1].time, w))
        .filter(|(s, _)| *s > 0)
        .max_by(|(a, wa), (b, wb)| a.cmp(b).then(wb[0].id.cmp(&wa[0].id)))
        .map(|(seconds, w)| Gap {
            seconds,
            from: w[1].line.clone(),
            to: w[0].line.clone(),
        })
}
