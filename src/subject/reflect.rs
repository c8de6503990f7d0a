//! `reflect`: the facts of a commit range `rev..HEAD`, gathered in-process with gix.
//!
//! Not for: judging the facts (the runner does) or running `git` (never).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use gix::bstr::ByteSlice;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

use super::{Kind, Subject};

/// How many entries each list keeps; the counts beside them stay exact.
const TOP_FILES: usize = 20;
const MAX_SUBJECTS: usize = 200;
const MAX_LIST: usize = 50;
/// Blobs larger than this are counted as changed but not diffed line by line.
const MAX_DIFF_BYTES: usize = 8 * 1024 * 1024;
/// Lines of `facts_markdown` at most, so the brief stays small.
pub const MARKDOWN_MAX_LINES: usize = 60;

/// The structured facts of `rev..HEAD`, as serialised into `Subject.facts`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ReflectFacts {
    /// `rev..HEAD` as the person named it.
    pub range: String,
    /// Full id of the commit `rev` resolves to.
    pub base: String,
    /// Full id of HEAD.
    pub head: String,
    /// Commits in the range, merges included.
    pub commits: usize,
    pub merges: usize,
    /// `YYYY-MM-DD` (UTC) of the oldest and newest commit in the range (committer time).
    pub first_date: Option<String>,
    pub last_date: Option<String>,
    /// Authors by number of commits, most first.
    pub authors: Vec<AuthorCount>,
    /// Commit subjects, newest first, at most 200 (`commits` has the true count).
    pub subjects: Vec<CommitLine>,
    /// Lines added and deleted over all non-merge commits (merges are not diffed, as `git log`).
    pub lines_added: u64,
    pub lines_deleted: u64,
    /// Distinct paths changed by non-merge commits.
    pub files_changed: usize,
    /// Files by churn (added + deleted lines), most first, at most 20.
    pub churn: Vec<FileChurn>,
    /// Commits that revert another (`Revert "…"` subject or `This reverts commit` in the body).
    pub reverts: Vec<CommitLine>,
    /// Paths present at HEAD but not at `rev`, and the other way round (net over the range).
    pub added_files: Vec<String>,
    pub added_files_count: usize,
    pub deleted_files: Vec<String>,
    pub deleted_files_count: usize,
    pub tests: TestFacts,
    /// TODO/FIXME lines added in the range, at most 50 (`todos_count` has the true count).
    pub todos: Vec<TodoLine>,
    pub todos_count: usize,
    /// The longest pause between two consecutive commits (by committer time).
    pub longest_gap: Option<Gap>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuthorCount {
    pub name: String,
    pub email: String,
    pub commits: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommitLine {
    /// Full commit id.
    pub oid: String,
    /// `YYYY-MM-DD` (UTC, committer time).
    pub date: String,
    pub subject: String,
}

impl CommitLine {
    /// The first 8 hex digits, for text shown to a person.
    pub fn short(&self) -> &str {
        self.oid.get(..8).unwrap_or(&self.oid)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileChurn {
    pub path: String,
    pub added: u64,
    pub deleted: u64,
    /// Non-merge commits that changed the file.
    pub commits: usize,
    /// True when a side was binary (its lines are not counted, as `git log --numstat` shows `-`).
    pub binary: bool,
    /// Full id of the newest commit in the range that changed the file.
    pub last_commit: String,
    /// Whether the file exists at HEAD.
    pub at_head: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestFacts {
    /// Distinct test paths and other code paths changed in the range.
    pub test_files_touched: usize,
    pub code_files_touched: usize,
    /// Non-merge commits touching tests, touching code, and touching code but no test.
    pub commits_touching_tests: usize,
    pub commits_touching_code: usize,
    pub commits_code_without_tests: usize,
    /// The newest such commits, at most 50.
    pub code_without_tests: Vec<CommitLine>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TodoLine {
    /// The added line, trimmed and capped.
    pub text: String,
    /// The path the line was added to.
    pub path: String,
    /// Its 1-based line in the HEAD version of `path`, when the line is still there.
    pub line: Option<u32>,
    /// Full id of the commit that added it.
    pub commit: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Gap {
    pub seconds: i64,
    /// The commit before the pause and the one after it.
    pub from: CommitLine,
    pub to: CommitLine,
}

impl Gap {
    pub fn days(&self) -> f64 {
        self.seconds as f64 / 86_400.0
    }
}

/// Whether `path` is a test file by the usual conventions: `tests/`, `test/`, `spec/`,
/// `__tests__/`, `*_test.*`, `*_tests.*`, `tests.*`, `test_*.*`, `*.test.*`, `*.spec.*`, `*_spec.*`.
pub fn is_test_path(path: &str) -> bool {
    let segments: Vec<&str> = path.split('/').collect();
    let (dirs, file) = segments.split_at(segments.len().saturating_sub(1));
    if dirs
        .iter()
        .any(|d| matches!(*d, "tests" | "test" | "spec" | "__tests__"))
    {
        return true;
    }
    let Some(file) = file.first() else {
        return false;
    };
    let stem = file.split('.').next().unwrap_or("");
    let has_ext = file.contains('.');
    // `tests.rs` / `*_tests.rs`: Rust's convention for unit tests kept beside the code.
    let rust_style = stem == "tests" || stem.ends_with("_tests");
    (has_ext
        && (rust_style
            || stem.ends_with("_test")
            || stem.ends_with("_spec")
            || stem.starts_with("test_")))
        || file.contains(".test.")
        || file.contains(".spec.")
}

/// Whether `path` is documentation rather than code: neither counts as "code changed".
fn is_doc_path(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    lower.starts_with("docs/")
        || lower.starts_with("doc/")
        || [".md", ".markdown", ".txt", ".rst", ".adoc"]
            .iter()
            .any(|ext| lower.ends_with(ext))
        || lower.rsplit('/').next().is_some_and(|f| {
            matches!(
                f,
                "license" | "licence" | "changelog" | "authors" | "notice"
            )
        })
}

/// Gather the subject of `interview reflect <rev>`: resolve `rev` (tag, annotated or not, or any
/// revision) and collect the facts of `rev..HEAD`.
pub fn reflect(repo_root: &Path, rev: &str) -> Result<Subject> {
    let facts = gather(repo_root, rev)?;
    let facts_markdown = facts_markdown(&facts);
    let facts_json = serde_json::to_value(&facts)
        .map_err(|e| Error::Other(format!("cannot serialise the facts of {rev}..HEAD: {e}")))?;
    Ok(Subject {
        kind: Kind::Reflect,
        id: rev.to_string(),
        title: format!("Reflection on the work since {rev}"),
        facts_markdown,
        facts: facts_json,
    })
}

fn open(repo_root: &Path) -> Result<gix::Repository> {
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

/// Resolve `rev` to a commit, or fail naming the nearest tags.
pub fn resolve(repo: &gix::Repository, rev: &str) -> Result<gix::ObjectId> {
    let unknown = || {
        let near = nearest_tags(repo, rev);
        let hint = if near.is_empty() {
            "the repository has no tags; name a commit instead, e.g. HEAD~20".to_string()
        } else {
            format!("nearest tags: {}", near.join(", "))
        };
        Error::Subject(format!(
            "unknown tag or revision `{rev}`; {hint}. List tags with `git tag`."
        ))
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

/// Up to five tag names closest to `wanted`: by edit distance, then longest common prefix.
pub fn nearest_tags(repo: &gix::Repository, wanted: &str) -> Vec<String> {
    let Ok(platform) = repo.references() else {
        return Vec::new();
    };
    let Ok(tags) = platform.tags() else {
        return Vec::new();
    };
    let names: Vec<String> = tags
        .filter_map(|r| r.ok())
        .map(|r| r.name().shorten().to_str_lossy().into_owned())
        .collect();
    rank_nearest(wanted, &names, 5)
}

/// The `limit` names nearest to `wanted`, best first; ties broken by name.
pub fn rank_nearest(wanted: &str, names: &[String], limit: usize) -> Vec<String> {
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

fn tree_of(repo: &gix::Repository, commit: gix::ObjectId) -> Result<gix::ObjectId> {
    let commit = repo
        .find_commit(commit)
        .map_err(|e| Error::Repo(format!("cannot read commit {commit}: {e}")))?;
    commit
        .tree_id()
        .map(|t| t.detach())
        .map_err(|e| Error::Repo(format!("cannot read the tree of {}: {e}", commit.id)))
}

/// Every blob (and symlink) path of a tree with its id.
fn blob_paths(
    repo: &gix::Repository,
    tree: &gix::ObjectId,
) -> Result<BTreeMap<String, gix::ObjectId>> {
    let changes = diff_trees(repo, None, *tree, &mut Default::default())?;
    Ok(changes
        .into_iter()
        .filter_map(|c| c.new.map(|id| (c.path, id)))
        .collect())
}

/// One changed file between two trees: blob ids on each side (`None` = absent there).
struct FileChange {
    path: String,
    old: Option<gix::ObjectId>,
    new: Option<gix::ObjectId>,
}

fn diff_trees(
    repo: &gix::Repository,
    old: Option<gix::ObjectId>,
    new: gix::ObjectId,
    state: &mut gix::diff::tree::State,
) -> Result<Vec<FileChange>> {
    use gix::diff::tree::recorder::Change;
    let read = |id: gix::ObjectId| {
        repo.find_tree(id)
            .map(|t| t.data.clone())
            .map_err(|e| Error::Repo(format!("cannot read tree {id}: {e}")))
    };
    let old_data = match old {
        Some(id) => read(id)?,
        None => Vec::new(),
    };
    let new_data = read(new)?;
    let kind = repo.object_hash();
    let mut recorder = gix::diff::tree::Recorder::default();
    gix::diff::tree(
        gix::objs::TreeRefIter::from_bytes(&old_data, kind),
        gix::objs::TreeRefIter::from_bytes(&new_data, kind),
        state,
        &repo.objects,
        &mut recorder,
    )
    .map_err(|e| Error::Repo(format!("cannot diff tree {new}: {e}")))?;
    let file = |mode: gix::objs::tree::EntryMode| mode.is_blob_or_symlink();
    let mut out = Vec::new();
    for change in recorder.records {
        let (path, old, new) = match change {
            Change::Addition {
                entry_mode,
                oid,
                path,
                ..
            } => (path, None, file(entry_mode).then_some(oid)),
            Change::Deletion {
                entry_mode,
                oid,
                path,
                ..
            } => (path, file(entry_mode).then_some(oid), None),
            Change::Modification {
                previous_entry_mode,
                previous_oid,
                entry_mode,
                oid,
                path,
            } => (
                path,
                file(previous_entry_mode).then_some(previous_oid),
                file(entry_mode).then_some(oid),
            ),
        };
        if old.is_none() && new.is_none() {
            continue; // trees and submodules: their files are reported on their own
        }
        if old == new {
            continue; // a mode-only change adds or deletes no line
        }
        out.push(FileChange {
            path: path.to_str_lossy().into_owned(),
            old,
            new,
        });
    }
    Ok(out)
}

struct LineCounts {
    added: u64,
    deleted: u64,
    binary: bool,
    todo_lines: Vec<String>,
}

fn count_lines(repo: &gix::Repository, change: &FileChange) -> Result<LineCounts> {
    let load = |id: Option<gix::ObjectId>| -> Result<Vec<u8>> {
        match id {
            Some(id) => repo
                .find_blob(id)
                .map(|b| b.data.clone())
                .map_err(|e| Error::Repo(format!("cannot read blob {id} ({}): {e}", change.path))),
            None => Ok(Vec::new()),
        }
    };
    let before = load(change.old)?;
    let after = load(change.new)?;
    // Git's rule: a NUL in the first 8000 bytes makes a file binary.
    let binary = |d: &[u8]| d[..d.len().min(8000)].contains(&0);
    if binary(&before) || binary(&after) || before.len().max(after.len()) > MAX_DIFF_BYTES {
        return Ok(LineCounts {
            added: 0,
            deleted: 0,
            binary: true,
            todo_lines: Vec::new(),
        });
    }
    use gix::diff::blob::{Algorithm, Diff, InternedInput};
    let input = InternedInput::new(before.as_slice(), after.as_slice());
    let diff = Diff::compute(Algorithm::Myers, &input);
    let mut todo_lines = Vec::new();
    for hunk in diff.hunks() {
        for i in hunk.after {
            let Some(token) = input.after.get(i as usize) else {
                continue;
            };
            let line = input.interner[*token];
            if has_marker(line, b"TODO") || has_marker(line, b"FIXME") {
                todo_lines.push(line.to_str_lossy().trim().to_string());
            }
        }
    }
    Ok(LineCounts {
        added: u64::from(diff.count_additions()),
        deleted: u64::from(diff.count_removals()),
        binary: false,
        todo_lines,
    })
}

/// The 1-based number of the first line of `data` equal to `text` once trimmed.
fn line_of(data: &[u8], text: &str) -> Option<u32> {
    data.lines()
        .position(|l| l.to_str_lossy().trim() == text)
        .and_then(|i| u32::try_from(i + 1).ok())
}

/// `s` cut to at most `max` characters, with `…` when cut.
pub fn cap(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
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

/// The facts as compact Markdown for `brief.md`, at most [`MARKDOWN_MAX_LINES`] lines.
pub fn facts_markdown(f: &ReflectFacts) -> String {
    let short = |oid: &str| oid.get(..8).unwrap_or(oid).to_string();
    let mut lines: Vec<String> = Vec::new();
    lines.push(format!(
        "Range `{}` ({} → {}): {} commit(s), {} merge(s), {} → {}.",
        f.range,
        short(&f.base),
        short(&f.head),
        f.commits,
        f.merges,
        f.first_date.as_deref().unwrap_or("-"),
        f.last_date.as_deref().unwrap_or("-"),
    ));
    if f.commits == 0 {
        lines.push("No commits in the range: HEAD is at or behind the base.".into());
        return lines.join("\n") + "\n";
    }
    let authors: Vec<String> = f
        .authors
        .iter()
        .take(5)
        .map(|a| format!("{} ({})", a.name, a.commits))
        .collect();
    let more = f.authors.len().saturating_sub(5);
    lines.push(format!(
        "Authors: {}{}.",
        authors.join(", "),
        if more > 0 {
            format!(" …and {more} more")
        } else {
            String::new()
        }
    ));
    lines.push(format!(
        "Changes: {} file(s), +{} −{} lines (merges not diffed); net {} file(s) added, {} deleted.",
        f.files_changed, f.lines_added, f.lines_deleted, f.added_files_count, f.deleted_files_count
    ));
    lines.push(format!(
        "Tests: {} test file(s) and {} code file(s) touched; {} of {} code-changing commit(s) touched no test.",
        f.tests.test_files_touched,
        f.tests.code_files_touched,
        f.tests.commits_code_without_tests,
        f.tests.commits_touching_code
    ));
    if let Some(g) = &f.longest_gap {
        lines.push(format!(
            "Longest gap: {:.1} day(s), {} → {} (after {}).",
            g.days(),
            g.from.date,
            g.to.date,
            g.from.short()
        ));
    }
    let mut sections: Vec<(String, Vec<String>, usize)> = Vec::new();
    sections.push((
        "Top churn (+added −deleted, commits)".into(),
        f.churn
            .iter()
            .map(|c| {
                let lines = if c.binary {
                    "binary".to_string()
                } else {
                    format!("+{} −{}", c.added, c.deleted)
                };
                let gone = if c.at_head { "" } else { ", gone at HEAD" };
                format!("- `{}` {lines}, {} commit(s){gone}", c.path, c.commits)
            })
            .collect(),
        f.files_changed,
    ));
    sections.push((
        "Reverts".into(),
        f.reverts
            .iter()
            .map(|c| format!("- {} {} {}", c.short(), c.date, c.subject))
            .collect(),
        f.reverts.len(),
    ));
    sections.push((
        "Deleted files".into(),
        f.deleted_files.iter().map(|p| format!("- `{p}`")).collect(),
        f.deleted_files_count,
    ));
    sections.push((
        "Added TODO/FIXME".into(),
        f.todos
            .iter()
            .map(|t| match t.line {
                Some(n) => format!("- `{}:{n}` {}", t.path, t.text),
                None => format!("- `{}` (gone at HEAD) {}", t.path, t.text),
            })
            .collect(),
        f.todos_count,
    ));
    sections.push((
        "Code changed without tests".into(),
        f.tests
            .code_without_tests
            .iter()
            .map(|c| format!("- {} {}", c.short(), c.subject))
            .collect(),
        f.tests.commits_code_without_tests,
    ));
    sections.push((
        "Commits (newest first)".into(),
        f.subjects
            .iter()
            .map(|c| format!("- {} {} {}", c.short(), c.date, c.subject))
            .collect(),
        f.commits,
    ));
    // Each section gets a fair share of what is left, so no list crowds out the others.
    let per_section = [8, 5, 5, 5, 4, 10];
    for ((title, items, total), share) in sections.into_iter().zip(per_section) {
        if items.is_empty() {
            continue;
        }
        lines.push(String::new());
        lines.push(format!("{title}:"));
        let shown = items.len().min(share);
        lines.extend(items.into_iter().take(shown));
        if total > shown {
            lines.push(format!("- …and {} more", total - shown));
        }
    }
    lines.truncate(MARKDOWN_MAX_LINES);
    lines.join("\n") + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_paths_follow_the_usual_conventions() {
        for p in [
            "tests/a.rs",
            "crate/test/x.py",
            "spec/models/user_spec.rb",
            "src/io_test.go",
            "test_io.py",
            "app/io.test.ts",
            "lib/thing_spec.rb",
            "src/ask/tests.rs",
            "src/receipt/check_tests.rs",
        ] {
            assert!(is_test_path(p), "{p} is a test path");
        }
        for p in ["src/lib.rs", "src/testing.rs", "contest/x.rs", "latest.rs"] {
            assert!(!is_test_path(p), "{p} is not a test path");
        }
    }

    #[test]
    fn civil_date_matches_known_days() {
        assert_eq!(civil_date(0), "1970-01-01");
        assert_eq!(civil_date(951_782_400), "2000-02-29");
        assert_eq!(civil_date(1_700_000_000), "2023-11-14");
        assert_eq!(civil_date(-86_400), "1969-12-31");
    }

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
    fn cap_cuts_on_characters_not_bytes() {
        assert_eq!(cap("ééééé", 3), "éé…");
        assert_eq!(cap("abc", 3), "abc");
    }
}

/// True when `marker` appears in `line` as a word of its own (`TODO:`, `// FIXME(x)`), not inside
/// another word (`TODOs`, `FIXMEd`).
fn has_marker(line: &[u8], marker: &[u8]) -> bool {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    line.windows(marker.len()).enumerate().any(|(at, w)| {
        w == marker
            && (at == 0 || !word(line[at - 1]))
            && line.get(at + marker.len()).is_none_or(|&b| !word(b))
    })
}

#[cfg(test)]
mod marker_tests {
    use super::has_marker;

    #[test]
    fn a_todo_marker_is_a_word_of_its_own() {
        assert!(has_marker(b"// TODO: handle errors", b"TODO"));
        assert!(has_marker(b"# FIXME(ana) later", b"FIXME"));
        assert!(has_marker(b"TODO", b"TODO"));
        assert!(!has_marker(b"tests touched, TODOs", b"TODO"));
        assert!(!has_marker(b"MY_TODO_LIST", b"TODO"));
    }
}
