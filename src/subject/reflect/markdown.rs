//! The facts as compact Markdown for `brief.md`.

use super::facts::{FileEvent, ReflectFacts, counted};

/// Lines of `facts_markdown` at most, so the brief stays small.
pub const MARKDOWN_MAX_LINES: usize = 60;

/// The facts as compact Markdown for `brief.md`, at most [`MARKDOWN_MAX_LINES`] lines.
pub fn facts_markdown(f: &ReflectFacts) -> String {
    if f.commits == 0 {
        return format!(
            "Range `{}` ({} → {}): no commits; HEAD is at or behind the base.\n",
            f.range,
            short(&f.base),
            short(&f.head),
        );
    }
    let mut lines = summary(f);
    // Each section gets a fair share of what is left, so no list crowds out the others.
    let per_section = [5, 3, 4, 3, 5, 3, 10];
    for ((title, items, total), share) in sections(f).into_iter().zip(per_section) {
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

/// An object id as its first 8 digits.
fn short(oid: &str) -> String {
    oid.get(..8).unwrap_or(oid).to_string()
}

/// The summary lines at the top: the range, the authors, the changes, the tests, the longest
/// gap.
fn summary(f: &ReflectFacts) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    lines.push(format!(
        "Range `{}` ({} → {}): {}, {}, {} → {}.",
        f.range,
        short(&f.base),
        short(&f.head),
        counted(f.commits, "commit"),
        counted(f.merges, "merge"),
        f.first_date.as_deref().unwrap_or("-"),
        f.last_date.as_deref().unwrap_or("-"),
    ));
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
        "Changes: {}, +{} −{} lines (merges not diffed); net {} added, {} deleted.",
        counted(f.files_changed, "file"),
        f.lines_added,
        f.lines_deleted,
        counted(f.added_files_count, "file"),
        f.deleted_files_count
    ));
    lines.push(format!(
        "Tests: {} and {} touched; {} of {} touched no test.",
        counted(f.tests.test_files_touched, "test file"),
        counted(f.tests.code_files_touched, "code file"),
        f.tests.commits_code_without_tests,
        counted(f.tests.commits_touching_code, "code-changing commit"),
    ));
    if let Some(g) = &f.longest_gap {
        lines.push(format!(
            "Longest gap: {}, {} → {} (after {}).",
            g.text(),
            g.from.date,
            g.to.date,
            g.from.short()
        ));
    }
    lines
}

/// Each list section: its title, its lines, and how many there are in all.
type Section = (String, Vec<String>, usize);

/// The list sections, in the order the brief shows them.
fn sections(f: &ReflectFacts) -> Vec<Section> {
    let event = |e: &FileEvent| match &e.by {
        Some(c) => format!("- `{}` ({} {})", e.path, c.short(), c.subject),
        None => format!("- `{}`", e.path),
    };
    vec![
        churn_section(f),
        (
            "Reverts".into(),
            f.reverts
                .iter()
                .map(|c| format!("- {} {} {}", c.short(), c.date, c.subject))
                .collect(),
            f.reverts_count.max(f.reverts.len()),
        ),
        (
            "Added files".into(),
            f.added_files.iter().map(event).collect(),
            f.added_files_count,
        ),
        (
            "Deleted files (gone at HEAD)".into(),
            f.deleted_files.iter().map(event).collect(),
            f.deleted_files_count,
        ),
        (
            "TODO/FIXME new at HEAD (newest first)".into(),
            f.todos
                .iter()
                .map(|t| match t.line {
                    Some(n) => format!("- `{}:{n}` {}", t.path, t.text),
                    None => format!("- `{}` {}", t.path, t.text),
                })
                .collect(),
            f.todos_count,
        ),
        untested_section(f),
        (
            "Commits (newest first)".into(),
            f.subjects
                .iter()
                .map(|c| format!("- {} {} {}", c.short(), c.date, c.subject))
                .collect(),
            f.commits,
        ),
    ]
}

fn churn_section(f: &ReflectFacts) -> Section {
    (
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
                format!(
                    "- `{}` {lines}, {}{gone}",
                    c.path,
                    counted(c.commits, "commit")
                )
            })
            .collect(),
        f.files_changed,
    )
}

fn untested_section(f: &ReflectFacts) -> Section {
    (
        if f.tests.release_commits > 0 {
            format!(
                "Code changed without tests (release and version-bump commits left out: {})",
                f.tests.release_commits
            )
        } else {
            "Code changed without tests".into()
        },
        f.tests
            .code_without_tests
            .iter()
            .map(|c| format!("- {} {}", c.short(), c.subject))
            .collect(),
        f.tests.commits_code_without_tests,
    )
}
