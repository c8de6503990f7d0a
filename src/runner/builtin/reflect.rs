//! The reflect half of the built-in interviewer: questions from the facts of a commit range, and
//! the facts as `confirmed` entries of the document (see `docs/interviews.md`).

use std::path::Path;

use crate::brief::BriefContext;
use crate::receipt::Entry;
use crate::subject::reflect::{ReflectFacts, cap};

use super::Finding;
use super::document::confirmed;
use super::text::{dedup, line_exists};

pub(super) fn facts(ctx: &BriefContext) -> ReflectFacts {
    serde_json::from_value(ctx.subject.facts.clone()).unwrap_or_else(|_| ReflectFacts {
        range: ctx.subject.id.clone(),
        ..ReflectFacts::default()
    })
}

pub(super) fn findings(f: &ReflectFacts) -> Vec<Finding> {
    let mut out = Vec::new();
    if f.commits == 0 {
        return out;
    }
    let total_lines = (f.lines_added + f.lines_deleted).max(1);
    if let Some(top) = f.churn.first().filter(|c| c.added + c.deleted > 0) {
        let share = (top.added + top.deleted) as f64 / total_lines as f64;
        let severity = 6 + u8::from(share >= 0.3) + u8::from(top.commits >= 5);
        out.push(
            Finding::new(
                "largest_churn",
                severity,
                format!(
                    "`{}` changed most (+{} −{} in {} commits). What drove that?",
                    cap(&top.path, 80),
                    top.added,
                    top.deleted,
                    top.commits
                ),
            )
            .options(&[
                ("New feature work", "feature"),
                ("Bug fixing", "bug_fixing"),
                ("Refactoring or cleanup", "refactoring"),
                ("Requirements kept changing", "changing_requirements"),
            ]),
        );
    }
    if let Some(first) = f.reverts.first() {
        out.push(
            Finding::new(
                "reverts",
                8,
                format!(
                    "{} commit(s) reverted work, e.g. {} \"{}\". What caused it?",
                    f.reverts.len(),
                    first.short(),
                    cap(&first.subject, 70)
                ),
            )
            .options(&[
                ("A bug found after merging", "bug_after_merge"),
                ("The approach was wrong", "wrong_approach"),
                ("It broke the build or CI", "broke_build"),
                ("Merged too early or by mistake", "premature_merge"),
            ]),
        );
    }
    let t = &f.tests;
    if let Some(first) = t.code_without_tests.first() {
        let ratio = t.commits_code_without_tests as f64 / t.commits_touching_code.max(1) as f64;
        let severity = 5 + 2 * u8::from(ratio >= 0.5) + u8::from(ratio >= 0.8);
        out.push(
            Finding::new(
                "untested_changes",
                severity,
                format!(
                    "{} of {} code-changing commits touched no test, e.g. {} \"{}\". Why?",
                    t.commits_code_without_tests,
                    t.commits_touching_code,
                    first.short(),
                    cap(&first.subject, 60)
                ),
            )
            .options(&[
                ("Covered by existing tests", "covered"),
                ("Tests are missing and should be added", "tests_missing"),
                ("The code is hard to test", "hard_to_test"),
                ("Low risk, not worth a test", "low_risk"),
            ]),
        );
    }
    if let Some(first) = f.deleted_files.first() {
        let severity = 5 + u8::from(f.deleted_files_count >= 5);
        out.push(
            Finding::new(
                "deleted_code",
                severity,
                format!(
                    "{} file(s) were deleted, e.g. `{}`. Why were they removed?",
                    f.deleted_files_count,
                    cap(first, 80)
                ),
            )
            .options(&[
                ("Replaced by new code", "replaced"),
                ("Dead code", "dead_code"),
                ("A feature was removed on purpose", "feature_removed"),
                ("Moved elsewhere", "moved"),
            ]),
        );
    }
    if let Some(first) = f.todos.first() {
        let place = match first.line {
            Some(n) => format!("{}:{n}", first.path),
            None => first.path.clone(),
        };
        out.push(Finding::new(
            "todos_added",
            5,
            format!(
                "{} TODO/FIXME line(s) were added, e.g. `{}`. Which must be resolved before the next release?",
                f.todos_count,
                cap(&place, 80)
            ),
        ));
    }
    if let Some(gap) = f.longest_gap.as_ref().filter(|g| g.days() >= 7.0) {
        out.push(
            Finding::new(
                "long_gap",
                4 + u8::from(gap.days() >= 30.0),
                format!(
                    "Nothing was committed for {:.0} days ({} → {}). What happened?",
                    gap.days(),
                    gap.from.date,
                    gap.to.date
                ),
            )
            .options(&[
                ("A planned break", "planned_break"),
                ("Blocked on something", "blocked"),
                ("Work happened elsewhere", "elsewhere"),
                ("Other priorities", "other_priorities"),
            ]),
        );
    }
    out.push(Finding::new(
        "went_well",
        3,
        format!(
            "What went well in {} that the team should keep doing?",
            cap(&f.range, 60)
        ),
    ));
    out.push(Finding::new(
        "do_differently",
        3,
        "What would you do differently next time?",
    ));
    out
}

pub(super) fn fact_entries(f: &ReflectFacts, worktree: &Path) -> Vec<Entry> {
    let mut out = Vec::new();
    let commit = |oid: &str| format!("commit:{oid}");
    if f.head.is_empty() {
        return out;
    }
    let authors: Vec<String> = f
        .authors
        .iter()
        .take(5)
        .map(|a| format!("{} ({})", a.name, a.commits))
        .collect();
    out.push(confirmed(
        "Commits in the range",
        format!(
            "{} commit(s) in {} ({} merge(s)) by {} author(s), {} → {}; +{} −{} lines in {} file(s). Authors: {}.",
            f.commits,
            f.range,
            f.merges,
            f.authors.len(),
            f.first_date.as_deref().unwrap_or("-"),
            f.last_date.as_deref().unwrap_or("-"),
            f.lines_added,
            f.lines_deleted,
            f.files_changed,
            if authors.is_empty() {
                "none".to_string()
            } else {
                authors.join(", ")
            }
        ),
        vec![commit(&f.head)],
    ));
    if !f.churn.is_empty() {
        let lines: Vec<String> = f
            .churn
            .iter()
            .take(5)
            .map(|c| {
                format!(
                    "- `{}`: +{} −{} in {} commit(s)",
                    c.path, c.added, c.deleted, c.commits
                )
            })
            .collect();
        let sources: Vec<String> = f
            .churn
            .iter()
            .take(5)
            .map(|c| commit(&c.last_commit))
            .collect();
        out.push(confirmed(
            "Where the churn was",
            lines.join("\n"),
            dedup(sources),
        ));
    }
    if !f.reverts.is_empty() {
        let lines: Vec<String> = f
            .reverts
            .iter()
            .take(5)
            .map(|c| format!("- {} {}: {}", c.short(), c.date, c.subject))
            .collect();
        out.push(confirmed(
            "Reverted work",
            lines.join("\n"),
            f.reverts.iter().take(5).map(|c| commit(&c.oid)).collect(),
        ));
    }
    let t = &f.tests;
    if t.commits_touching_code > 0 {
        let mut content = format!(
            "{} test file(s) and {} code file(s) changed; {} of {} code-changing commit(s) touched no test.",
            t.test_files_touched,
            t.code_files_touched,
            t.commits_code_without_tests,
            t.commits_touching_code
        );
        for c in t.code_without_tests.iter().take(5) {
            content.push_str(&format!("\n- {} {}", c.short(), c.subject));
        }
        let mut sources: Vec<String> = t
            .code_without_tests
            .iter()
            .take(5)
            .map(|c| commit(&c.oid))
            .collect();
        if sources.is_empty() {
            sources.push(commit(&f.head));
        }
        out.push(confirmed("Tests and code", content, sources));
    }
    if f.added_files_count + f.deleted_files_count > 0 {
        let list = |v: &[String]| {
            v.iter()
                .take(8)
                .map(|p| format!("`{p}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut content = format!(
            "{} file(s) added, {} deleted between {} and HEAD.",
            f.added_files_count,
            f.deleted_files_count,
            f.range.split("..").next().unwrap_or("the base")
        );
        if !f.added_files.is_empty() {
            content.push_str(&format!("\nAdded: {}", list(&f.added_files)));
        }
        if !f.deleted_files.is_empty() {
            content.push_str(&format!("\nDeleted: {}", list(&f.deleted_files)));
        }
        out.push(confirmed(
            "Files added and deleted",
            content,
            vec![commit(&f.head)],
        ));
    }
    if !f.todos.is_empty() {
        let mut sources = Vec::new();
        let mut lines = Vec::new();
        for t in f.todos.iter().take(5) {
            match t.line.filter(|n| line_exists(worktree, &t.path, *n)) {
                Some(n) => {
                    lines.push(format!("- `{}:{n}` {}", t.path, t.text));
                    sources.push(format!("{}:{n}", t.path));
                }
                None => {
                    lines.push(format!("- `{}` {}", t.path, t.text));
                    sources.push(commit(&t.commit));
                }
            }
        }
        out.push(confirmed(
            "TODO and FIXME lines added",
            format!(
                "{} added in the range:\n{}",
                f.todos_count,
                lines.join("\n")
            ),
            dedup(sources),
        ));
    }
    if let Some(gap) = &f.longest_gap {
        out.push(confirmed(
            "Longest pause",
            format!(
                "{:.1} day(s) without a commit, from {} ({}) to {} ({}).",
                gap.days(),
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

/// The document's title and the lead of its summary.
pub(super) fn title_and_lead(f: &ReflectFacts) -> (String, String) {
    (
        format!("Reflection on {}", f.range),
        format!(
            "{} commit(s) in {} by {} author(s), {} → {}.",
            f.commits,
            f.range,
            f.authors.len(),
            f.first_date.as_deref().unwrap_or("-"),
            f.last_date.as_deref().unwrap_or("-")
        ),
    )
}

/// The entry title of an answered reflect topic.
pub(super) fn topic_name(topic: &str) -> Option<&'static str> {
    Some(match topic {
        "largest_churn" => "Why the largest churn happened",
        "reverts" => "Why work was reverted",
        "untested_changes" => "Code changed without tests",
        "deleted_code" => "Why code was deleted",
        "todos_added" => "TODOs to resolve",
        "long_gap" => "The longest pause",
        "went_well" => "What went well",
        "do_differently" => "What to do differently",
        _ => return None,
    })
}
