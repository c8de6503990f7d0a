//! The documentation section that answers a report, found by all the item's words: what a
//! maintainer points at when the behaviour is intended is often a section on how the feature
//! works in general, not one that names what the item names. The sections of the repository's
//! documentation (README, docs/, man pages) are ranked with the index's BM25 (`words::bm25`),
//! and the best is offered only when it clearly matches.

use super::section::{fenced, heading};
use super::*;
use crate::interviewer::builtin::words::{ACTIONS, GENERIC, bm25, words};

/// Documentation files read at most, and the words of a section counted at most.
const MAX_FILES: usize = 200;
const MAX_SECTION_WORDS: usize = 2_000;
/// What a clear match is, set on the tune half: a score this high, and this many of the item's
/// telling words (not generic, not an action) shared, one of them a word of the title.
const MIN_SCORE: f64 = 6.0;
const MIN_SHARED: usize = 4;
/// A quoted sentence is cut after this many characters (then "…").
const MAX_QUOTE: usize = 110;

/// One section: its file, its heading's line and text, and its prose lines (no code blocks).
struct Section {
    path: String,
    at: u32,
    heading: String,
    lines: Vec<(u32, String)>,
}

/// Whether a documentation file documents behaviour: not a changelog, nor a contributor's,
/// security or conduct guide.
fn documents(path: &str) -> bool {
    let lower = path.to_lowercase();
    (lower.ends_with(".md") || lower.ends_with(".1") || lower.ends_with(".rst"))
        && ![
            "changelog",
            "history",
            "news",
            "release",
            "contributing",
            "code_of_conduct",
            "security",
            "license",
            "authors",
        ]
        .iter()
        .any(|w| lower.contains(w))
}

/// The sections of the documentation files `paths`.
fn sections(r: &Reading, paths: &[String]) -> Vec<Section> {
    let mut out = Vec::new();
    for path in paths.iter().filter(|p| documents(p)).take(MAX_FILES) {
        let Some(text) = crate::interviewer::builtin::repo::read_text(r.worktree, path) else {
            continue;
        };
        let lines: Vec<&str> = text.lines().collect();
        let fences = fenced(&lines);
        let mut current: Option<Section> = None;
        for (i, line) in lines.iter().enumerate() {
            if let Some(h) = heading(&lines, &fences, i) {
                out.extend(current.take());
                current = Some(Section {
                    path: path.clone(),
                    at: i as u32 + 1,
                    heading: h,
                    lines: Vec::new(),
                });
            } else if let Some(s) = current.as_mut()
                && !fences[i]
                && !line.trim().is_empty()
                && !line.trim().chars().all(|c| "=-".contains(c))
            {
                s.lines.push((i as u32 + 1, line.to_string()));
            }
        }
        out.extend(current);
    }
    out
}

/// "README.md:N, "Heading", says (line M): "…". Is that what you see — intended, so a docs or
/// feature question — or a bug?" — the section ranked best by all the item's
/// words, when it clearly matches; nothing when it does not.
pub(super) fn ranked_section(r: &Reading) -> Option<Finding> {
    // A setup problem's steps already cite the README's setup section.
    if r.setup.setup_problem && r.setup.guide.is_some() {
        return None;
    }
    let sections = sections(r, &r.doc_files);
    if sections.is_empty() {
        return None;
    }
    let title = words(&r.facts.title);
    let mut query = title.clone();
    query.extend(title.iter().cloned());
    for (_, line, _) in &r.item.all {
        query.extend(words(line));
    }
    let texts: Vec<Vec<String>> = sections
        .iter()
        .map(|s| {
            let mut w = words(&s.heading);
            w.extend(words(&s.heading));
            for (_, l) in &s.lines {
                w.extend(words(l));
            }
            w.truncate(MAX_SECTION_WORDS);
            w
        })
        .collect();
    let docs: Vec<Vec<&str>> = texts
        .iter()
        .map(|t| t.iter().map(String::as_str).collect())
        .collect();
    let scores = bm25(&docs, &query);
    let (best, score) = scores
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(&a.0)))?;
    let own: Vec<String> = r.repo.project.as_deref().map(words).unwrap_or_default();
    let plain = |w: &str| {
        !GENERIC.iter().any(|g| words(g).iter().any(|x| x == w))
            && !ACTIONS.iter().any(|g| words(g).iter().any(|x| x == w))
            && !own.iter().any(|x| x == w)
    };
    let mut shared: Vec<&str> = docs[best]
        .iter()
        .copied()
        .filter(|w| query.iter().any(|q| q == w) && plain(w))
        .collect();
    shared.sort_unstable();
    shared.dedup();
    let in_title = shared.iter().any(|w| title.iter().any(|t| t == w));
    if *score < MIN_SCORE || shared.len() < MIN_SHARED || !in_title {
        return None;
    }
    let s = &sections[best];
    if !about(s, &shared) {
        return None;
    }
    let (m, quote) = quoted(s, &shared)?;
    Some(
        Finding::new(
            format!("documented_section_{}", slug(&s.heading)),
            8,
            format!(
                "{}:{}, \"{}\", says (line {m}): \"{quote}\". Is that what you see — intended, \
                 so a docs or feature question — or a bug?",
                s.path, s.at, s.heading
            ),
        )
        .titled(format!("What \"{}\" says", s.heading))
        .options(&[
            (
                "Intended: a documentation or feature question",
                "documented",
            ),
            ("A bug all the same", "bug"),
            ("Don't know yet", "unknown"),
        ]),
    )
}

/// Whether section `s` is about what it shares with the item: its heading or its first sentence
/// names one of `shared`. One that mentions them only further down, under a heading about
/// something else (a shell's setup naming every tool), is not.
fn about(s: &Section, shared: &[&str]) -> bool {
    let first = s
        .lines
        .iter()
        .map(|(_, l)| l.as_str())
        .find(|l| !links_only(l));
    words(&s.heading)
        .into_iter()
        .chain(first.map(words).unwrap_or_default())
        .any(|w| shared.contains(&w.as_str()))
}

/// Whether `line` is a list of links (a table of contents' entry, `[A](a) | [B](b)`): fewer
/// than three words outside its links, so no sentence of its own.
fn links_only(line: &str) -> bool {
    let mut rest = line.trim();
    let mut outside = String::new();
    while let Some(open) = rest.find('[') {
        outside.push_str(&rest[..open]);
        let Some(close) = rest[open..].find("](").map(|c| open + c) else {
            outside.push_str(&rest[open..]);
            rest = "";
            break;
        };
        let Some(end) = rest[close..].find(')').map(|e| close + e + 1) else {
            outside.push_str(&rest[open..]);
            rest = "";
            break;
        };
        rest = &rest[end..];
    }
    outside.push_str(rest);
    line.contains("](") && words(&outside).len() < 3
}

/// The sentence of the section that shares the most of `shared`, verbatim (cut with "…"), and
/// its line.
fn quoted(s: &Section, shared: &[&str]) -> Option<(u32, String)> {
    let mut best: Option<(usize, u32, &str)> = None;
    for (n, line) in &s.lines {
        let line = line.trim();
        // A table's row or an HTML line is no sentence; a double quote inside would end the
        // quotation early.
        if line.starts_with('|') || line.starts_with('<') || line.contains('"') || links_only(line)
        {
            continue;
        }
        for sentence in line.split_inclusive(". ") {
            let sentence = sentence.trim();
            let w = words(sentence);
            let count = shared.iter().filter(|x| w.iter().any(|y| y == *x)).count();
            if count > 0 && best.is_none_or(|b| count > b.0) {
                best = Some((count, *n, sentence));
            }
        }
    }
    let (_, n, sentence) = best?;
    let quote = if sentence.chars().count() > MAX_QUOTE {
        format!(
            "{}…",
            sentence
                .chars()
                .take(MAX_QUOTE)
                .collect::<String>()
                .trim_end()
        )
    } else {
        sentence.to_string()
    };
    Some((n, quote))
}
