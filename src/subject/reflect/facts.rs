//! The facts of a commit range as data: what `brief.json` carries to the runner.

use serde::{Deserialize, Serialize};

/// The structured facts of `rev..HEAD`, as serialised into `Subject.facts`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ReflectFacts {
    /// `rev..HEAD` with the commits it resolved to where they move: a tag as named, a revision
    /// such as `HEAD~20` and HEAD itself as short commit ids (`v1.2.0..81f8785a`).
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
    /// Seconds between the oldest and the newest commit (committer time).
    #[serde(default)]
    pub span_seconds: i64,
    /// Authors by number of commits, most first; one entry per person (`.mailmap` at HEAD
    /// applied, then merged by name).
    pub authors: Vec<AuthorCount>,
    /// Commit subjects in history order, newest first (a commit before its parents), at most
    /// 200 (`commits` has the true count).
    pub subjects: Vec<CommitLine>,
    /// Lines added and deleted over all non-merge commits (merges are not diffed, as `git log`).
    pub lines_added: u64,
    pub lines_deleted: u64,
    /// Distinct paths changed by non-merge commits.
    pub files_changed: usize,
    /// Files by churn (added + deleted lines), most first, at most 20.
    pub churn: Vec<FileChurn>,
    /// The same ranking without lockfiles, generated or vendored files and files gone at HEAD:
    /// the files a person would talk about, at most 5.
    #[serde(default)]
    pub notable_churn: Vec<FileChurn>,
    /// Commits that revert another (a subject starting with "revert", any case, or `This
    /// reverts commit` in the body), newest first, at most 50 (`reverts_count` is exact).
    pub reverts: Vec<CommitLine>,
    #[serde(default)]
    pub reverts_count: usize,
    /// Paths present at HEAD but not at `rev`, and the other way round (net over the range), each
    /// with the commit that added or deleted it, at most 50 each (the counts are exact).
    pub added_files: Vec<FileEvent>,
    pub added_files_count: usize,
    pub deleted_files: Vec<FileEvent>,
    pub deleted_files_count: usize,
    pub tests: TestFacts,
    /// TODO/FIXME lines present at HEAD that were not at the base (net: a moved line adds
    /// none), newest first, at most 50 (`todos_count` is exact).
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
    /// Non-merge commits touching tests, touching code, and touching code but no test — none of
    /// them a release or version bump ([`TestFacts::release_commits`]).
    pub commits_touching_tests: usize,
    pub commits_touching_code: usize,
    pub commits_code_without_tests: usize,
    /// The newest such commits, at most 50.
    pub code_without_tests: Vec<CommitLine>,
    /// Such commits by lines of code changed, most first, without release/version-bump commits:
    /// the examples worth asking about, at most 5.
    #[serde(default)]
    pub notable_untested: Vec<CommitLine>,
    /// Release and version-bump commits ("Release 1.2.0", "Bump clap from 4.1.0 to 4.2.0", or
    /// only manifests, lockfiles and changelogs changed): left out of the counts above.
    #[serde(default)]
    pub release_commits: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TodoLine {
    /// The line, trimmed and capped.
    pub text: String,
    /// Its path at HEAD.
    pub path: String,
    /// Its 1-based line in the HEAD version of `path`.
    pub line: Option<u32>,
    /// Full id of the newest commit of the range that added the line (without removing it
    /// elsewhere), when one did; empty when it came in through a merge.
    pub commit: String,
}

/// A file the range added or deleted (net), with the commit that did it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEvent {
    pub path: String,
    /// Its lines at HEAD (added) or at the base (deleted); 0 for a binary file.
    pub lines: u64,
    /// The newest non-merge commit of the range that added (or deleted) the path.
    pub by: Option<CommitLine>,
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

    /// The pause as a person reads it (see [`duration_text`]).
    pub fn text(&self) -> String {
        duration_text(self.seconds)
    }
}

/// `n` and the noun, singular for one: "1 commit", "3 commits" (`noun` takes an `s`).
pub(crate) fn counted(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// A duration as one document writes every duration: "less than an hour", "5 hours", "1 day",
/// "2.5 days" (one decimal under ten days, dropped when it is .0), "87 days".
pub(super) fn duration_text(seconds: i64) -> String {
    let seconds = seconds.max(0);
    if seconds < 3_600 {
        return "less than an hour".into();
    }
    if seconds < 86_400 {
        let hours = seconds / 3_600;
        return format!("{hours} hour{}", if hours == 1 { "" } else { "s" });
    }
    let days = seconds as f64 / 86_400.0;
    let shown = if days < 10.0 {
        format!("{:.1}", days)
    } else {
        format!("{:.0}", days)
    };
    let shown = shown.strip_suffix(".0").unwrap_or(&shown).to_string();
    format!("{shown} day{}", if shown == "1" { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    use super::duration_text;

    #[test]
    fn durations_read_the_same_everywhere() {
        assert_eq!(duration_text(0), "less than an hour");
        assert_eq!(duration_text(3 * 3_600), "3 hours");
        assert_eq!(duration_text(3_600), "1 hour");
        assert_eq!(duration_text(86_400), "1 day");
        assert_eq!(duration_text(86_400 * 5 / 2), "2.5 days");
        assert_eq!(duration_text(86_400 * 175 / 2), "88 days");
        assert_eq!(duration_text(86_400 * 30), "30 days");
    }
}
