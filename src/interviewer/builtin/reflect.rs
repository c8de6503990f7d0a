//! The reflect half of the built-in interviewer: questions about what matters in a commit range,
//! scaled to its size, each with an example worth talking about (see `docs/interviews.md`).

use crate::brief::BriefContext;
use crate::subject::reflect::{
    FileEvent, ReflectFacts, cap, counted, is_doc_path, is_incidental, is_test_path,
};

use super::Finding;

pub(super) use super::reflect_entries::{base_name, fact_entries, title_and_lead};

pub(super) fn facts(ctx: &BriefContext) -> ReflectFacts {
    serde_json::from_value(ctx.subject.facts.clone()).unwrap_or_else(|_| ReflectFacts {
        range: ctx.subject.id.clone(),
        ..ReflectFacts::default()
    })
}

/// How much history the range spans: the questions a two-week release deserves are not those
/// of eight years.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Scale {
    /// Up to about six weeks and a few hundred commits.
    Release,
    /// Months.
    Season,
    /// Two years or more, or thousands of commits.
    Era,
}

impl Scale {
    pub(super) fn of(f: &ReflectFacts) -> Scale {
        let days = f.span_seconds / 86_400;
        if days >= 730 || f.commits >= 2_000 {
            Scale::Era
        } else if days <= 45 && f.commits <= 300 {
            Scale::Release
        } else {
            Scale::Season
        }
    }
}

/// "3 years", "5 months", "12 days": the span of the range, roughly.
fn span(f: &ReflectFacts) -> String {
    let days = f.span_seconds / 86_400;
    if days >= 730 {
        format!("{} years", days / 365)
    } else if days >= 60 {
        format!("{} months", days / 30)
    } else {
        counted(days.max(1) as usize, "day")
    }
}

pub(super) fn findings(f: &ReflectFacts) -> Vec<Finding> {
    let mut out = Vec::new();
    if f.commits == 0 {
        return out;
    }
    let scale = Scale::of(f);
    if scale == Scale::Era {
        out.push(
            Finding::new(
                "direction",
                7,
                format!(
                    "Over {} and {}, which change of direction mattered most?",
                    span(f),
                    counted(f.commits, "commit")
                ),
            )
            .options(&[
                ("A rewrite or a new architecture", "rewrite"),
                ("A change of scope or of users", "scope"),
                ("A change in the team or how it works", "team"),
                ("Tooling, CI or the release process", "process"),
            ]),
        );
    }
    let total_lines = (f.lines_added + f.lines_deleted).max(1);
    if let Some(top) = f.notable_churn.first() {
        let share = (top.added + top.deleted) as f64 / total_lines as f64;
        let severity = 6 + u8::from(share >= 0.3) + u8::from(top.commits >= 5);
        out.push(
            Finding::new(
                "largest_churn",
                severity,
                format!(
                    "`{}` changed most (+{} −{} in {}). What drove that?",
                    cap(&top.path, 80),
                    top.added,
                    top.deleted,
                    counted(top.commits, "commit")
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
        let severity = match scale {
            Scale::Release => 8,
            _ => 6 + u8::from(f.reverts_count * 50 >= f.commits),
        };
        let count = f.reverts_count.max(f.reverts.len());
        out.push(
            Finding::new(
                "reverts",
                severity,
                format!(
                    "{} reverted work, e.g. {} \"{}\". What caused it?",
                    counted(count, "commit"),
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
    if let Some(example) = t.notable_untested.first() {
        let ratio = t.commits_code_without_tests as f64 / t.commits_touching_code.max(1) as f64;
        let severity = 5 + 2 * u8::from(ratio >= 0.5) + u8::from(ratio >= 0.8);
        out.push(
            Finding::new(
                "untested_changes",
                severity,
                format!(
                    "{} of {} touched no test, e.g. {} \"{}\". Why?",
                    t.commits_code_without_tests,
                    counted(t.commits_touching_code, "code-changing commit"),
                    example.short(),
                    cap(&example.subject, 60)
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
    if let Some(gone) = deleted_code(&f.deleted_files, &f.added_files) {
        let severity = 5 + u8::from(f.deleted_files_count >= 5);
        let by = match &gone.by {
            Some(c) => format!(" by {} \"{}\"", c.short(), cap(&c.subject, 50)),
            None => String::new(),
        };
        out.push(
            Finding::new(
                "deleted_code",
                severity,
                format!(
                    "`{}` ({}) was deleted{by}; {} in all. Why was it removed?",
                    cap(&gone.path, 70),
                    counted(gone.lines as usize, "line"),
                    counted(f.deleted_files_count, "file")
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
    if let Some(newest) = f.todos.first() {
        let place = match newest.line {
            Some(n) => format!("{}:{n}", newest.path),
            None => newest.path.clone(),
        };
        let ask = match scale {
            Scale::Era => "Which of them still matter?",
            _ => "Which must be resolved before the next release?",
        };
        out.push(Finding::new(
            "todos_added",
            5,
            format!(
                "{} new since {} (the newest: `{}`). {ask}",
                counted(f.todos_count.max(f.todos.len()), "TODO/FIXME line"),
                base_name(f),
                cap(&place, 80)
            ),
        ));
    }
    let pause = if scale == Scale::Era { 30.0 } else { 7.0 };
    if let Some(gap) = f.longest_gap.as_ref().filter(|g| g.days() >= pause) {
        out.push(
            Finding::new(
                "long_gap",
                4 + u8::from(gap.days() >= 30.0),
                format!(
                    "Nothing was committed for {} ({} → {}). What happened?",
                    gap.text(),
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
    let (well, differently) = match scale {
        Scale::Release => (
            format!(
                "What went well in {} that the team should keep doing?",
                cap(&f.range, 60)
            ),
            "What would you do differently in the next release?".to_string(),
        ),
        Scale::Season => (
            format!(
                "What went well over these {} that the team should keep doing?",
                span(f)
            ),
            "What would you do differently next time?".to_string(),
        ),
        Scale::Era => (
            format!(
                "Looking back over {}, what worked well and should carry on?",
                span(f)
            ),
            "Knowing what you know now, what would you do differently from the start?".to_string(),
        ),
    };
    out.push(Finding::new("went_well", 3, well).closing());
    out.push(Finding::new("do_differently", 3, differently).closing());
    out
}

/// The deleted file worth asking about: code (not docs, lockfiles, generated or vendored files,
/// or dot-configuration) that did not merely move (`src/protocol.rs` → `src/protocol/mod.rs`, a
/// file of the same name elsewhere), preferring what a revert or a refactoring removed, then the
/// largest.
fn deleted_code<'f>(deleted: &'f [FileEvent], added: &[FileEvent]) -> Option<&'f FileEvent> {
    let code = |e: &&FileEvent| {
        e.lines > 0
            && !is_doc_path(&e.path)
            && !is_incidental(&e.path)
            && !e.path.starts_with('.')
            && !e.path.contains("/.")
            && !added.iter().any(|a| moved_to(&e.path, &a.path))
    };
    deleted.iter().filter(code).max_by(|a, b| {
        let weight = |e: &FileEvent| (removal_commit(e), !is_test_path(&e.path), e.lines);
        weight(a).cmp(&weight(b)).then(b.path.cmp(&a.path))
    })
}

/// Whether `to` looks like `from` moved: the same file name in another directory, or a module
/// file turned into its directory's `mod.rs`/`index.*`/`__init__.py` (and back).
fn moved_to(from: &str, to: &str) -> bool {
    let split = |p: &str| -> (String, String) {
        let (dir, name) = p.rsplit_once('/').unwrap_or(("", p));
        (dir.to_string(), name.to_string())
    };
    let (from_dir, from_name) = split(from);
    let (to_dir, to_name) = split(to);
    if from_name == to_name {
        return from_dir != to_dir;
    }
    let stem = |name: &str| {
        name.split_once('.')
            .map_or(name.to_string(), |(s, _)| s.to_string())
    };
    let module = |name: &str| matches!(stem(name).as_str(), "mod" | "index" | "__init__");
    let joined = |dir: &str, name: &str| match dir {
        "" => stem(name),
        d => format!("{d}/{}", stem(name)),
    };
    // `a/b.rs` → `a/b/mod.rs`, and `a/b/mod.rs` → `a/b.rs`.
    (module(&to_name) && to_dir == joined(&from_dir, &from_name))
        || (module(&from_name) && from_dir == joined(&to_dir, &to_name))
}

/// Whether the commit that deleted the file says it reverted or refactored.
fn removal_commit(e: &FileEvent) -> bool {
    e.by.as_ref().is_some_and(|c| {
        let lower = c.subject.to_ascii_lowercase();
        [
            "revert", "refactor", "remove", "drop", "delete", "clean", "replace", "rewrite",
            "simplif", "dead", "unused", "obsolete",
        ]
        .iter()
        .any(|w| lower.contains(w))
    })
}

/// The entry title of an answered reflect topic.
pub(super) fn topic_name(topic: &str) -> Option<&'static str> {
    Some(match topic {
        "direction" => "The change of direction that mattered most",
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::subject::reflect::{CommitLine, Gap};

    fn event(path: &str, lines: u64) -> FileEvent {
        FileEvent {
            path: path.into(),
            lines,
            by: None,
        }
    }

    #[test]
    fn a_moved_file_is_not_the_deleted_code_asked_about() {
        for (from, to) in [
            ("src/protocol.rs", "src/protocol/mod.rs"),
            ("src/protocol/mod.rs", "src/protocol.rs"),
            ("lib/util.py", "lib/util/__init__.py"),
            ("web/app.js", "web/app/index.js"),
            ("old/parser.rs", "new/parser.rs"),
            ("parser.rs", "src/parser.rs"),
        ] {
            assert!(moved_to(from, to), "{from} -> {to}");
        }
        for (from, to) in [
            ("src/protocol.rs", "src/protocol/wire.rs"),
            ("src/a.rs", "src/b.rs"),
            ("src/mod.rs", "src/mod.rs"),
            ("a/x/mod.rs", "b/x.rs"),
        ] {
            assert!(!moved_to(from, to), "{from} -> {to}");
        }
        let deleted = [event("src/protocol.rs", 291), event("src/legacy.rs", 40)];
        let added = [event("src/protocol/mod.rs", 300)];
        assert_eq!(
            deleted_code(&deleted, &added).map(|e| e.path.as_str()),
            Some("src/legacy.rs")
        );
        assert_eq!(
            deleted_code(&deleted, &[]).map(|e| e.path.as_str()),
            Some("src/protocol.rs")
        );
    }

    fn line(oid: &str, date: &str) -> CommitLine {
        CommitLine {
            oid: oid.into(),
            date: date.into(),
            subject: "x".into(),
        }
    }

    #[test]
    fn a_one_day_range_is_dated_once_and_a_pause_of_hours_is_not_a_fact() {
        let mut f = ReflectFacts {
            range: "HEAD~3..HEAD".into(),
            head: "cccccccccc".into(),
            commits: 3,
            first_date: Some("2026-12-01".into()),
            last_date: Some("2026-12-01".into()),
            longest_gap: Some(Gap {
                seconds: 5 * 3_600,
                from: line("aaaaaaaaaa", "2026-12-01"),
                to: line("bbbbbbbbbb", "2026-12-01"),
            }),
            ..ReflectFacts::default()
        };
        let (_, lead) = super::super::reflect_entries::title_and_lead(&f);
        assert!(lead.ends_with(", on 2026-12-01."), "{lead}");
        let dir = tempfile::tempdir().unwrap();
        let titles = |f: &ReflectFacts| -> Vec<String> {
            fact_entries(f, dir.path())
                .into_iter()
                .map(|e| e.title)
                .collect()
        };
        let first = titles(&f);
        assert!(
            first.iter().any(|t| t == "Commits in the range"),
            "{first:?}"
        );
        assert!(!first.iter().any(|t| t == "Longest pause"), "{first:?}");
        f.first_date = Some("2026-11-28".into());
        f.longest_gap.as_mut().unwrap().seconds = 2 * 86_400;
        let (_, lead) = super::super::reflect_entries::title_and_lead(&f);
        assert!(lead.ends_with(", 2026-11-28 → 2026-12-01."), "{lead}");
        assert!(titles(&f).iter().any(|t| t == "Longest pause"));
    }
}
