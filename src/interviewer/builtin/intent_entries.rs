//! The intent document's own entries: what the repository shows about the names a work item
//! uses (`confirmed` with `path:line`), what the interviewer inferred, and the title, lead and
//! "not checked" line of its summary (see `docs/interviews.md`).

use crate::protocol::limits::{MAX_CONTENT_CHARS, MAX_ENTRY_TITLE_CHARS};
use crate::receipt::{Clarity, Entry};
use crate::subject::reflect::{cap, counted};

use super::kind::ItemKind;
use super::names::NameKind;
use super::place::{is_doc, is_test};
use super::reading::{Located, Reading};
use super::search::Hit;
use super::text::{self, code_span, line_exists};

/// How many names the item has, and how many of them the document lists: the summary's counts
/// come from here, so they always equal what the document shows.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Tally {
    pub named: usize,
    pub found: usize,
    /// Found names with an entry of their own (at most [`MAX_FOUND_LISTED`]).
    pub listed: usize,
    pub missing: usize,
}

/// At most this many names found get an entry of their own.
const MAX_FOUND_LISTED: usize = 8;

/// The entries of what the repository shows: each name found, with its lines, is confirmed;
/// names not found and the kind of item are inferred.
pub(super) fn fact_entries(r: &Reading) -> (Vec<Entry>, Tally) {
    let mut out = Vec::new();
    let mut tally = Tally {
        named: r.names.len(),
        ..Tally::default()
    };
    out.push(entry(
        "What kind of work item this is",
        format!(
            "Read as a {}: {}. The questions follow from that.",
            r.class.described(),
            r.class.cue
        ),
        Clarity::Inferred,
        Vec::new(),
    ));
    // What the item already answers of a report's questions, said instead of asked.
    for (title, content) in super::bank::answered(r) {
        out.push(entry(&title, content, Clarity::Inferred, Vec::new()));
    }
    for l in r.names.iter().filter(|l| l.found()) {
        tally.found += 1;
        if tally.listed >= MAX_FOUND_LISTED {
            continue;
        }
        let Some(e) = found_entry(r, l) else { continue };
        tally.listed += 1;
        out.push(e);
    }
    // A name found but not listed (no line left to cite) still counts as found, never missing.
    // A message whose fixed part the code prints is not missing: it is printed with values.
    let missing: Vec<String> = r
        .names
        .iter()
        .filter(|l| !l.found() && r.printed_at(l).is_empty())
        .map(Located::shown)
        .collect();
    tally.missing = missing.len();
    if !missing.is_empty() {
        out.push(entry(
            if r.search.stopped.is_some() {
                "Named by the item, not found in the files read"
            } else {
                "Named by the item, not found in the repository"
            },
            format!(
                "{} {} {} (the work item itself and the tool's own files left out).",
                missing.join(", "),
                if missing.len() == 1 {
                    "appears"
                } else {
                    "appear"
                },
                r.search.nowhere()
            ),
            Clarity::Inferred,
            Vec::new(),
        ));
    }
    (out, tally)
}

/// The confirmed entry of one name found, citing lines that exist.
fn found_entry(r: &Reading, l: &Located) -> Option<Entry> {
    let mut sources: Vec<String> = l.definitions.iter().take(3).map(Hit::cite).collect();
    // Code first, then tests, then documentation.
    let code = l.in_code();
    let mut ordered: Vec<&Hit> = code.iter().copied().chain(l.hits.iter()).collect();
    ordered.sort_by_key(|h| (is_doc(&h.path), is_test(&h.path)));
    for h in ordered {
        if sources.len() >= 5 {
            break;
        }
        if !sources.contains(&h.cite()) {
            sources.push(h.cite());
        }
    }
    // A comment or a string, or a line of an example or of the documentation, is never "first
    // in code" while the project's own source names it in code.
    let example = |p: &str| {
        ["examples/", "example/", "docs/", "doc/"]
            .iter()
            .any(|d| p.starts_with(d) || p.contains(&format!("/{d}")))
    };
    let bare = l.name.text.trim_start_matches(['-', '.']);
    // Code is outside comments and string literals, read with the state of the lines above (a
    // docstring's or a multi-line string's lines are text); a definition comes first.
    let mut files: Vec<(String, String)> = Vec::new();
    let mut code_text = |h: &Hit| {
        if !files.iter().any(|(p, _)| *p == h.path) {
            let text = std::fs::read_to_string(r.worktree.join(&h.path)).unwrap_or_default();
            files.push((h.path.clone(), text));
        }
        let (_, text) = files.iter().find(|(p, _)| *p == h.path)?;
        let code = super::code_lines::code_at(text, &h.path, h.line);
        super::search::has_name(&code, bare).then_some(code)
    };
    let named: Vec<(&Hit, String)> = code
        .iter()
        .copied()
        .filter(|h| !example(&h.path))
        .filter_map(|h| code_text(h).map(|c| (h, c)))
        .collect();
    let defines = |c: &str| {
        ["def", "fn", "function", "fun", "func"]
            .iter()
            .any(|k| super::search::has_name(c, &format!("{k} {bare}")))
            || super::search::has_name(c, &format!("{bare} = function"))
    };
    let source = named
        .iter()
        .find(|(_, c)| defines(c))
        .or(named.first())
        .map(|(h, _)| *h);
    // Named only in comments, strings or examples: a mention, never "in code".
    let (first, place) = match source {
        Some(h) => (h, "First in code at"),
        None => {
            // A message is in a string: a line of the source that is not a comment, first.
            let mention = super::calls::in_code(&code)
                .into_iter()
                .find(|h| !example(&h.path))
                .or(code.first().copied());
            match mention {
                Some(h) => (h, "Mentioned at"),
                None => (&l.hits[0], "First at"),
            }
        }
    };
    let file = (l.name.kind == NameKind::Path)
        .then_some(l.definition.as_ref())
        .flatten();
    // A member no line spells as the item wrote it, found inside its type.
    let member = (l.count.total == 0)
        .then(|| {
            let name = l.name.text.strip_suffix("()").unwrap_or(&l.name.text);
            super::pointed::qualified(name)
        })
        .flatten();
    let mut content = match (&l.definition, l.definitions.len()) {
        (Some(d), _) if file.is_some() => {
            format!(
                "The file is there; at {}: {}.",
                d.cite(),
                code_span(&d.text)
            )
        }
        (Some(d), 1) => match member {
            Some((owner, member)) => format!(
                "Found as {} in {}, defined at {}: {}.",
                code_span(member),
                code_span(owner),
                d.cite(),
                code_span(&d.text)
            ),
            None => format!("Defined at {}: {}.", d.cite(), code_span(&d.text)),
        },
        (Some(_), n) => format!(
            "Defined {n} times: {}.",
            l.definitions
                .iter()
                .take(5)
                .map(Hit::cite)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        (None, _) => format!("{place} {}: {}.", first.cite(), code_span(&first.text)),
    };
    let c = &l.count;
    // A file found by its path, or a flag found only by its declaration, has no lines naming
    // it to count. A file's entry is titled by its path: the count is of lines naming the path
    // as the item wrote it, and says so when that is not the path (a bare file name, a tail).
    let counted_name = match file {
        Some(d) if d.path != l.name.text => code_span(&l.name.text),
        _ => "it".to_string(),
    };
    if c.total > 0 {
        content.push_str(&format!(
            " {} in {} name {counted_name}{}.",
            counted(c.total, "line"),
            counted(c.files, "file"),
            match (c.test_lines, c.doc_lines) {
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
        return None;
    }
    Some(entry(
        &match file {
            // A name, never a `path:line`: the line is in the entry's text and sources.
            Some(d) => format!("{} in the repository", code_span(&d.path)),
            None => format!("{} in the repository", l.shown()),
        },
        content,
        Clarity::Confirmed,
        sources,
    ))
}

fn entry(title: &str, content: String, clarity: Clarity, sources: Vec<String>) -> Entry {
    Entry {
        title: text::title(title, MAX_ENTRY_TITLE_CHARS),
        content: cap(&content, MAX_CONTENT_CHARS),
        clarity,
        sources,
    }
}

/// The document's title and the lead of its summary, its counts those of `tally`.
pub(super) fn title_and_lead(r: &Reading, tally: Tally) -> (String, String) {
    let f = r.facts;
    let title = f.title.trim().trim_end_matches(['.', '…']).trim();
    let found = match tally.found - tally.listed {
        0 => format!("{} found", tally.found),
        more => format!(
            "{} found ({} listed, {more} left out)",
            tally.found, tally.listed
        ),
    };
    let names = match tally.named {
        0 => "It names nothing the repository could hold".to_string(),
        n => format!(
            "It names {} the repository could hold: {found}, {} not found",
            counted(n, "thing"),
            tally.missing
        ),
    };
    let lead = format!(
        "Work item {} ({}), read as a {}. {names}{}.",
        f.id,
        f.source,
        r.class.described(),
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
