//! Whether the code nearest an item's words is on the path of what the item names: when the item
//! quotes code the repository has (a flag, a function, a variable, a message), the place a
//! maintainer talks about is where that code is handled — the definition whose own text names
//! it, or one that code calls — not a definition that merely shares a word with the item (an
//! in-memory pipe named for a word of the item while the item is about the reader's pause).
//!
//! Not for: ranking (`nearest.rs`), nor finding the quoted names (`search.rs`).

use std::collections::BTreeMap;
use std::path::Path;

use super::defs::Sources;
use super::nearest::{Def, DefKind, Match};
use super::place::{is_doc, is_test};
use super::search::Hit;

/// Lines a definition's own text reaches at most below it, the comment lines above it, and
/// the lines below a one-line declaration (a flag's help, the variable read beside it) that are
/// its own whatever starts there.
const BODY_LINES: u32 = 80;
const DOC_LINES: u32 = 3;
const BESIDE_LINES: u32 = 3;
/// Files read at most to see what the code that names the item's code calls.
const MAX_CALLER_FILES: usize = 12;

/// Where definitions start, by file, in line order: each bounds the one above it.
pub(super) fn starts(defs: &[Def]) -> BTreeMap<String, Vec<u32>> {
    let mut starts: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    for d in defs {
        starts.entry(d.path.clone()).or_default().push(d.line);
    }
    for lines in starts.values_mut() {
        lines.sort_unstable();
        lines.dedup();
    }
    starts
}

/// The nearest definitions on the path of `places` (the lines naming what the item names), in
/// their order, and how many were left out as sharing only words. Without places, all of them:
/// nothing tells the path then.
pub(super) fn keep(
    near: Vec<Match>,
    starts: &BTreeMap<String, Vec<u32>>,
    places: &[&Hit],
    worktree: &Path,
    sources: &mut Sources,
) -> (Vec<Match>, usize) {
    if places.is_empty() {
        return (near, 0);
    }
    let callers = caller_text(starts, places, worktree, sources);
    let before = near.len();
    let kept: Vec<Match> = near
        .into_iter()
        .filter(|m| names_it(&m.def, starts, places) || called(&m.def, &callers))
        .collect();
    let left_out = before - kept.len();
    (kept, left_out)
}

/// Lines `start..end` (1-based, end excluded) that are `def`'s own text: from the comment lines
/// above it to the line before the next definition of its file, at most `BODY_LINES`.
fn span(path: &str, line: u32, starts: &BTreeMap<String, Vec<u32>>) -> (u32, u32) {
    let next = starts
        .get(path)
        .and_then(|lines| lines.iter().find(|&&l| l > line).copied());
    let end = next
        .unwrap_or(u32::MAX)
        .max(line + BESIDE_LINES + 1)
        .min(line + BODY_LINES);
    (line.saturating_sub(DOC_LINES), end)
}

/// Whether a line naming the item's code is in `def`'s own text.
fn names_it(def: &Def, starts: &BTreeMap<String, Vec<u32>>, places: &[&Hit]) -> bool {
    let (start, end) = span(&def.path, def.line, starts);
    places
        .iter()
        .any(|h| h.path == def.path && h.line >= start && h.line < end)
}

/// The code around each place in the project's own code (not a test, not a document): the text
/// of the definition that holds it, where a call of the nearest code would show.
fn caller_text(
    starts: &BTreeMap<String, Vec<u32>>,
    places: &[&Hit],
    worktree: &Path,
    sources: &mut Sources,
) -> Vec<String> {
    let mut by_file: BTreeMap<&str, Vec<u32>> = BTreeMap::new();
    for h in places
        .iter()
        .filter(|h| !is_test(&h.path) && !is_doc(&h.path))
    {
        if by_file.len() < MAX_CALLER_FILES || by_file.contains_key(h.path.as_str()) {
            by_file.entry(h.path.as_str()).or_default().push(h.line);
        }
    }
    let mut out = Vec::new();
    for (path, lines) in by_file {
        let Some(text) = sources.lines(worktree, path) else {
            continue;
        };
        for at in lines {
            // The definition that holds the place: the last one starting at or above it.
            let holder = starts
                .get(path)
                .and_then(|s| s.iter().rev().find(|&&l| l <= at).copied())
                .unwrap_or(at);
            let (start, end) = span(path, holder, starts);
            let from = start.max(1) as usize - 1;
            let to = (end as usize - 1).min(text.len());
            if from < to {
                out.push(text[from..to].join("\n"));
            }
        }
    }
    out
}

/// Whether the code that names the item's code uses `def` by its name (a call, a read): what
/// the item's option or function does next. A heading is never called.
fn called(def: &Def, callers: &[String]) -> bool {
    if def.kind == DefKind::Heading || def.name.len() < 3 {
        return false;
    }
    callers.iter().any(|text| {
        text.match_indices(def.name.as_str()).any(|(i, _)| {
            let before = text[..i].chars().next_back();
            let after = text[i + def.name.len()..].chars().next();
            let part = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
            !part(before) && !part(after)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_definition_holds_the_lines_down_to_the_next_one() {
        let starts: BTreeMap<String, Vec<u32>> =
            BTreeMap::from([("a.rs".to_string(), vec![10, 30])]);
        assert_eq!(span("a.rs", 10, &starts), (7, 30));
        // A one-line declaration keeps the lines just below it.
        let starts: BTreeMap<String, Vec<u32>> =
            BTreeMap::from([("a.rs".to_string(), vec![25, 26])]);
        assert_eq!(span("a.rs", 25, &starts), (22, 29));
    }
}
