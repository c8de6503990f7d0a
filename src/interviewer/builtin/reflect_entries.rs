//! The facts of a commit range as `confirmed` entries of the reflect document, each citing the
//! commits or `path:line` it comes from; files gone at HEAD are marked so.

use std::path::Path;

use crate::protocol::limits::{MAX_CONTENT_CHARS, MAX_ENTRY_TITLE_CHARS, MAX_SOURCES};
use crate::receipt::{Clarity, Entry};
use crate::subject::reflect::{CommitLine, FileEvent, ReflectFacts, cap, counted};

use super::text::{self, dedup, line_exists};

/// Items listed per entry at most; the rest is counted ("…and 3 more").
const LISTED: usize = 5;

/// The document's title and the lead of its summary.
pub(in crate::interviewer::builtin) fn title_and_lead(f: &ReflectFacts) -> (String, String) {
    let title = format!("Reflection on {}", f.range);
    if f.commits == 0 {
        return (
            title,
            format!("No commits in {}: HEAD is at or behind the base.", f.range),
        );
    }
    (
        title,
        format!(
            "{} in {} by {}, {}.",
            counted(f.commits, "commit"),
            f.range,
            counted(f.authors.len(), "author"),
            dates(f)
        ),
    )
}

/// "2026-11-02 → 2026-12-01", or "on 2026-12-01" for a range of one day.
fn dates(f: &ReflectFacts) -> String {
    match (f.first_date.as_deref(), f.last_date.as_deref()) {
        (Some(first), Some(last)) if first == last => format!("on {first}"),
        (first, last) => format!("{} → {}", first.unwrap_or("-"), last.unwrap_or("-")),
    }
}

fn commit(oid: &str) -> String {
    format!("commit:{oid}")
}

/// "\n- …and N more" when `total` exceeds what was listed.
fn more(total: usize, listed: usize) -> String {
    if total > listed {
        format!("\n- …and {} more", total - listed)
    } else {
        String::new()
    }
}

fn sources(v: Vec<String>) -> Vec<String> {
    let mut v = dedup(v);
    v.truncate(MAX_SOURCES);
    v
}

pub(in crate::interviewer::builtin) fn fact_entries(
    f: &ReflectFacts,
    worktree: &Path,
) -> Vec<Entry> {
    let mut out = Vec::new();
    if f.head.is_empty() {
        return out;
    }
    if f.commits == 0 {
        out.push(confirmed(
            "Commits in the range",
            format!("No commits in {}: HEAD is at or behind the base.", f.range),
            vec![commit(&f.head)],
        ));
        return out;
    }
    let authors: Vec<String> = f
        .authors
        .iter()
        .take(LISTED)
        .map(|a| format!("{} ({})", a.name, a.commits))
        .collect();
    let more_authors = f.authors.len().saturating_sub(LISTED);
    out.push(confirmed(
        "Commits in the range",
        format!(
            "{} in {} ({}) by {}, {}; +{} −{} lines in {}. Authors: {}{}.",
            counted(f.commits, "commit"),
            f.range,
            counted(f.merges, "merge"),
            counted(f.authors.len(), "author"),
            dates(f),
            f.lines_added,
            f.lines_deleted,
            counted(f.files_changed, "file"),
            authors.join(", "),
            if more_authors > 0 {
                format!(" …and {more_authors} more")
            } else {
                String::new()
            }
        ),
        vec![commit(&f.head)],
    ));
    if !f.churn.is_empty() {
        let listed: Vec<_> = f.churn.iter().take(LISTED).collect();
        let lines: Vec<String> = listed
            .iter()
            .map(|c| {
                let gone = if c.at_head { "" } else { " (gone at HEAD)" };
                let change = if c.binary {
                    "binary".to_string()
                } else {
                    format!("+{} −{}", c.added, c.deleted)
                };
                format!(
                    "- `{}`{gone}: {change} in {}",
                    c.path,
                    counted(c.commits, "commit")
                )
            })
            .collect();
        out.push(confirmed(
            "Where the churn was",
            lines.join("\n"),
            sources(listed.iter().map(|c| commit(&c.last_commit)).collect()),
        ));
    }
    if !f.reverts.is_empty() {
        let total = f.reverts_count.max(f.reverts.len());
        let listed: Vec<&CommitLine> = f.reverts.iter().take(LISTED).collect();
        let lines: Vec<String> = listed
            .iter()
            .map(|c| format!("- {} {}: {}", c.short(), c.date, c.subject))
            .collect();
        out.push(confirmed(
            "Reverted work",
            format!(
                "{} reverted earlier work:\n{}{}",
                counted(total, "commit"),
                lines.join("\n"),
                more(total, listed.len())
            ),
            sources(listed.iter().map(|c| commit(&c.oid)).collect()),
        ));
    }
    let t = &f.tests;
    if t.commits_touching_code > 0 {
        let mut content = format!(
            "{} and {} changed; {} of {} touched no test (a test file, or an inline test such as `#[test]`).",
            counted(t.test_files_touched, "test file"),
            counted(t.code_files_touched, "code file"),
            t.commits_code_without_tests,
            counted(t.commits_touching_code, "code-changing commit"),
        );
        let listed: Vec<&CommitLine> = t.code_without_tests.iter().take(LISTED).collect();
        for c in &listed {
            content.push_str(&format!("\n- {} {}", c.short(), c.subject));
        }
        content.push_str(&more(t.commits_code_without_tests, listed.len()));
        let mut cited: Vec<String> = listed.iter().map(|c| commit(&c.oid)).collect();
        if cited.is_empty() {
            cited.push(commit(&f.head));
        }
        out.push(confirmed("Tests and code", content, sources(cited)));
    }
    if f.added_files_count + f.deleted_files_count > 0 {
        let list = |v: &[FileEvent], total: usize| {
            let shown: Vec<String> = v
                .iter()
                .take(8)
                .map(|e| match &e.by {
                    Some(c) => format!("`{}` ({})", e.path, c.short()),
                    None => format!("`{}`", e.path),
                })
                .collect();
            let rest = total.saturating_sub(shown.len());
            let tail = if rest > 0 {
                format!(" …and {rest} more")
            } else {
                String::new()
            };
            format!("{}{tail}", shown.join(", "))
        };
        let mut content = format!(
            "{} added, {} deleted between {}.",
            counted(f.added_files_count, "file"),
            f.deleted_files_count,
            f.range.replacen("..", " and ", 1)
        );
        if f.added_files_count > 0 {
            content.push_str(&format!(
                "\nAdded: {}",
                list(&f.added_files, f.added_files_count)
            ));
        }
        if f.deleted_files_count > 0 {
            content.push_str(&format!(
                "\nDeleted (gone at HEAD): {}",
                list(&f.deleted_files, f.deleted_files_count)
            ));
        }
        let mut cited: Vec<String> = f
            .added_files
            .iter()
            .take(8)
            .chain(f.deleted_files.iter().take(8))
            .filter_map(|e| e.by.as_ref().map(|c| commit(&c.oid)))
            .collect();
        if cited.is_empty() {
            cited.push(commit(&f.head));
        }
        out.push(confirmed(
            "Files added and deleted",
            content,
            sources(cited),
        ));
    }
    if !f.todos.is_empty() {
        let total = f.todos_count.max(f.todos.len());
        let mut cited = Vec::new();
        let mut lines = Vec::new();
        for t in f.todos.iter().take(LISTED) {
            match t.line.filter(|n| line_exists(worktree, &t.path, *n)) {
                Some(n) => {
                    lines.push(format!("- `{}:{n}` {}", t.path, t.text));
                    cited.push(format!("{}:{n}", t.path));
                }
                None => {
                    lines.push(format!("- `{}` {}", t.path, t.text));
                    if !t.commit.is_empty() {
                        cited.push(commit(&t.commit));
                    }
                }
            }
        }
        if cited.is_empty() {
            cited.push(commit(&f.head));
        }
        out.push(confirmed(
            "TODO and FIXME lines new at HEAD",
            format!(
                "{} at HEAD that {} not at {}, newest first:\n{}{}",
                counted(total, "line"),
                if total == 1 { "was" } else { "were" },
                base_name(f),
                lines.join("\n"),
                more(total, lines.len())
            ),
            sources(cited),
        ));
    }
    // A pause of hours is how work goes, not a fact worth keeping.
    if let Some(gap) = f.longest_gap.as_ref().filter(|g| g.days() >= 1.0) {
        out.push(confirmed(
            "Longest pause",
            format!(
                "{} without a commit, from {} ({}) to {} ({}).",
                gap.text(),
                gap.from.date,
                gap.from.short(),
                gap.to.date,
                gap.to.short()
            ),
            dedup(vec![commit(&gap.from.oid), commit(&gap.to.oid)]),
        ));
    }
    out
}

/// A confirmed entry, its title and content cut to the receipt's limits.
pub(super) fn confirmed(title: &str, content: String, sources: Vec<String>) -> Entry {
    Entry {
        title: text::title(title, MAX_ENTRY_TITLE_CHARS),
        content: cap(&content, MAX_CONTENT_CHARS),
        clarity: Clarity::Confirmed,
        sources,
    }
}

/// The base as the range shows it: `v1.2.0` of `v1.2.0..81f8785a`.
pub(super) fn base_name(f: &ReflectFacts) -> &str {
    f.range.split("..").next().unwrap_or("the base")
}
