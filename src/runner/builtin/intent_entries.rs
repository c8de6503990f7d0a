//! The intent document's own entries: what the repository shows about the names a work item
//! uses (`confirmed` with `path:line`), what the interviewer inferred, earlier answers carried,
//! and the title, lead and "not checked" line of its summary (see `docs/interviews.md`).

use crate::protocol::limits::{MAX_CONTENT_CHARS, MAX_ENTRY_TITLE_CHARS};
use crate::receipt::{Clarity, Entry};
use crate::subject::reflect::{cap, counted};

use super::classify::ItemKind;
use super::intent::{Located, Reading, is_doc, is_test};
use super::names::NameKind;
use super::search::Hit;
use super::text::{line_exists, one_line};

/// The entries of what the repository shows: each name found, with its lines, is confirmed;
/// names not found and the kind of item are inferred; earlier answers are carried.
pub(super) fn fact_entries(r: &Reading) -> Vec<Entry> {
    let mut out = Vec::new();
    out.push(entry(
        "What kind of work item this is",
        format!(
            "Read as a {}: {}. The questions follow from that.",
            r.class.kind.as_str(),
            r.class.cue
        ),
        Clarity::Inferred,
        Vec::new(),
    ));
    for l in r.names.iter().filter(|l| l.found()).take(8) {
        let mut sources: Vec<String> = l.definitions.iter().take(3).map(Hit::cite).collect();
        // Code first, then tests, then documentation.
        let mut ordered: Vec<&Hit> = l.hits.iter().collect();
        ordered.sort_by_key(|h| (is_doc(&h.path), is_test(&h.path)));
        for h in ordered {
            if sources.len() >= 5 {
                break;
            }
            if !sources.contains(&h.cite()) {
                sources.push(h.cite());
            }
        }
        let code = l.in_code();
        let (first, place) = match code.first() {
            Some(h) => (*h, "First in code at"),
            None => (&l.hits[0], "First at"),
        };
        let file = (l.name.kind == NameKind::Path)
            .then_some(l.definition.as_ref())
            .flatten();
        let mut content = match (&l.definition, l.definitions.len()) {
            (Some(d), _) if file.is_some() => {
                format!(
                    "The file is there; at {}: `{}`.",
                    d.cite(),
                    d.text.replace('`', "'")
                )
            }
            (Some(d), 1) => format!("Defined at {}: `{}`.", d.cite(), d.text.replace('`', "'")),
            (Some(_), n) => format!(
                "Defined {n} times: {}.",
                l.definitions
                    .iter()
                    .take(5)
                    .map(Hit::cite)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            (None, _) => format!(
                "{place} {}: `{}`.",
                first.cite(),
                first.text.replace('`', "'")
            ),
        };
        // A file found by its path has no lines naming it to count.
        if file.is_none() || l.total > 0 {
            content.push_str(&format!(
                " {} in {} name it{}.",
                counted(l.total, "line"),
                counted(l.files().len(), "file"),
                match (l.in_tests().len(), l.in_docs().len()) {
                    (0, 0) => String::new(),
                    (t, 0) => format!(", {t} of them in tests"),
                    (0, d) => format!(", {d} of them in documentation"),
                    (t, d) => format!(", {t} in tests and {d} in documentation"),
                }
            ));
        }
        // Only lines that still exist are cited (the check verifies them again).
        sources.retain(|s| {
            s.rsplit_once(':')
                .and_then(|(p, n)| n.parse().ok().map(|n| line_exists(r.worktree, p, n)))
                .unwrap_or(false)
        });
        if sources.is_empty() {
            continue;
        }
        out.push(entry(
            &match file {
                Some(d) => format!("`{}` in the repository", d.cite()),
                None => format!("{} in the repository", l.shown()),
            },
            content,
            Clarity::Confirmed,
            sources,
        ));
    }
    let missing: Vec<String> = r
        .names
        .iter()
        .filter(|l| !l.found() && l.name.kind != NameKind::Message)
        .map(Located::shown)
        .collect();
    if !missing.is_empty() {
        out.push(entry(
            "Named by the item, not found in the repository",
            format!(
                "{} appear nowhere in the {} searched (the work item itself and earlier \
                 interview documents left out).",
                missing.join(", "),
                counted(r.search.files_read, "file")
            ),
            Clarity::Inferred,
            Vec::new(),
        ));
    }
    for (topic, path, line) in &r.previous_answered {
        if line_exists(r.worktree, path, *line) {
            out.push(entry(
                &format!("Answered in an earlier interview: {topic}"),
                format!("The earlier document records the person's answer at {path}:{line}."),
                Clarity::Inferred,
                vec![format!("{path}:{line}")],
            ));
        }
    }
    out
}

fn entry(title: &str, content: String, clarity: Clarity, sources: Vec<String>) -> Entry {
    Entry {
        title: one_line(title, MAX_ENTRY_TITLE_CHARS),
        content: cap(&content, MAX_CONTENT_CHARS),
        clarity,
        sources,
    }
}

/// The document's title and the lead of its summary.
pub(super) fn title_and_lead(r: &Reading) -> (String, String) {
    let f = r.facts;
    let found = r.names.iter().filter(|l| l.found()).count();
    let title = f.title.trim().trim_end_matches(['.', '…']).trim();
    let lead = format!(
        "Work item {} ({}), read as a {}. It names {} the repository could hold; {} \
         found in the {} searched{}.",
        f.id,
        f.source,
        r.class.kind.as_str(),
        counted(r.names.len(), "thing"),
        found,
        counted(r.search.files_read, "file"),
        r.search
            .stopped
            .as_ref()
            .map(|s| format!(" (the search stopped {s})"))
            .unwrap_or_default()
    );
    (format!("Intent of {}: {title}", f.id), lead)
}

/// What the built-in interviewer cannot know, for the summary.
pub(super) fn not_checked(r: &Reading) -> String {
    let mut list = vec![
        "the tracker's comments and linked changes",
        "whether the code builds or its tests pass (nothing is run)",
    ];
    match r.class.kind {
        ItemKind::Bug => {
            list.push("whether it reproduces");
            list.push("which commit introduced it (the history is not bisected)");
        }
        ItemKind::Dependency => {
            list.push("the candidates' licences, maintenance and minimum Rust version")
        }
        ItemKind::Performance => list.push("actual timings (nothing is measured)"),
        ItemKind::Docs => list.push("whether the documentation's examples still work"),
        ItemKind::Refactor => list.push("whether behaviour is preserved (no tests are run)"),
        ItemKind::Feature => list.push("how other projects solve the same need"),
    }
    format!(
        "not checked by the built-in interviewer: {}.",
        list.join("; ")
    )
}
