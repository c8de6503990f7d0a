//! The facts of a commit range as data: what `brief.json` carries to the runner.

use serde::{Deserialize, Serialize};

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
