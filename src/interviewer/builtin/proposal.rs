//! The design an item proposes for itself — "I would suggest:" and the code after it, a wording
//! it offers, an "Implementation" section with two ways ("… through its `overrides` method. Or
//! … `add_ignore`.") — is what a maintainer answers first: take it, which of the two, or is it
//! not needed because what exists does it. Asked grounded in the code the proposal names, or
//! in the code nearest the item when it names none.
//!
//! Not for: a bug report's own fix (`questions::proposed_fix` asks that).

use super::Finding;
use super::item::{Item, heading_text, own_words};
use super::kind::ItemKind;
use super::reading::{Located, Reading};
use super::text::one_line;

/// Words with which an item offers its own design.
const OFFERS: &[&str] = &[
    "i would suggest",
    "i'd suggest",
    "i suggest",
    "i propose",
    "one idea",
    "my idea",
    "a suggestion",
];

/// Headings of the section where an item's template puts its design.
const SECTIONS: &[&str] = &[
    "implementation",
    "solution",
    "proposal",
    "proposed",
    "design",
];

/// What the proposal is: its sentence, and what follows it when the sentence only announces it.
struct Proposal<'a> {
    line: u32,
    sentence: &'a str,
    /// "the code at lines 6–27", "the wording at line 13".
    shown: Option<String>,
    /// A second way, in the sentence after it ("Or write them to a temporary file …").
    other: Option<(u32, &'a str)>,
    /// The sentence before it, in the same paragraph or the line before.
    before: Option<&'a str>,
}

/// The item's own design, asked: take it, which of its two ways, or another. Not of a bug
/// report, and not of an item whose proposal is only a hedge.
pub(super) fn proposed_design(r: &Reading) -> Option<Finding> {
    if r.class.kind == ItemKind::Bug {
        return None;
    }
    let p = proposal(&r.item)?;
    let ground = ground(r, &p);
    let ask = |max: usize, ground: &str| match (&p.other, &p.shown) {
        (Some((m, other)), _) => format!(
            "Line {} proposes {}; line {m}, {}. Which way?{ground}",
            p.line,
            way(p.sentence, max),
            way(other, max),
        ),
        (None, Some(shown)) if shown.starts_with("the wording") => format!(
            "Line {} proposes {shown}. Take that wording, or another?{ground}",
            p.line
        ),
        (None, Some(shown)) => format!(
            "Line {} proposes {shown}. Take it, or is it not needed (what exists does it)?{ground}",
            p.line
        ),
        (None, None) => format!(
            "Line {} proposes \"{}\" Take it, or another way?{ground}",
            p.line,
            one_line(p.sentence, max)
        ),
    };
    let limit = crate::protocol::limits::MAX_QUESTION_TEXT_CHARS;
    let grounded = ground.unwrap_or_default();
    // Grounded first, the quotes shortened before the place is left out.
    let question = [grounded.as_str(), ""]
        .into_iter()
        .flat_map(|g| [80, 60, 40, 25].into_iter().map(move |max| ask(max, g)))
        .find(|q| q.chars().count() <= limit)?;
    let cites = question.ends_with(&grounded) && !grounded.is_empty();
    let options: &[(&str, &str)] = if p.other.is_some() {
        &[
            ("The first way", "first"),
            ("The second way", "second"),
            ("Another way", "other"),
        ]
    } else {
        &[
            ("Take it", "take"),
            ("Another way", "other"),
            ("Not needed: what exists does it", "existing"),
        ]
    };
    Some(
        Finding::new(
            if cites {
                "proposed_design"
            } else {
                "proposed_approach"
            },
            8,
            question,
        )
        .titled("The design the item proposes")
        .options(options),
    )
}

/// The item's proposal: a sentence that offers one ("I would suggest: …"), else the first
/// sentence of a design section ("# Implementation").
fn proposal<'a>(item: &'a Item) -> Option<Proposal<'a>> {
    let offered = item.sentences.iter().position(|(_, s)| {
        let own = own_words(s).to_lowercase();
        OFFERS.iter().any(|o| own.contains(o))
    });
    let sectioned = || {
        let heading = item.lines.iter().find(|(_, l)| {
            heading_text(l).is_some_and(|h| {
                let h = h.to_lowercase();
                SECTIONS.iter().any(|s| h.contains(s))
            })
        })?;
        item.sentences.iter().position(|(n, _)| *n > heading.0)
    };
    let i = offered.or_else(sectioned)?;
    let (line, sentence) = &item.sentences[i];
    let shown = sentence
        .trim_end()
        .ends_with(':')
        .then(|| announced(item, *line))
        .flatten();
    let other = item
        .sentences
        .get(i + 1)
        .filter(|(_, s)| s.starts_with("Or ") || s.starts_with("Alternatively"))
        .map(|(n, s)| (*n, s.as_str()));
    let before = i
        .checked_sub(1)
        .map(|j| &item.sentences[j])
        .filter(|(n, _)| *n + 1 >= *line)
        .map(|(_, s)| s.as_str());
    Some(Proposal {
        line: *line,
        sentence,
        shown,
        other,
        before,
    })
}

/// What a sentence ending in `:` at `line` announces: the code block or the quote after it.
fn announced(item: &Item, line: u32) -> Option<String> {
    let after: Vec<&(u32, &str, bool)> = item
        .all
        .iter()
        .filter(|(n, l, _)| *n > line && !l.trim().is_empty())
        .collect();
    let (first, text, code) = after.first()?;
    if *code {
        let last = after
            .iter()
            .take_while(|(_, _, c)| *c)
            .last()
            .map_or(*first, |(n, _, _)| *n);
        return Some(format!("the code at lines {first}–{last}"));
    }
    text.trim_start()
        .starts_with('>')
        .then(|| format!("the wording at line {first}"))
}

/// Where the proposal's own names are — defined, else used in code — or, when it writes none
/// the repository holds, those of the sentence that leads to it ("… `parse` without
/// sub-commands just parses options … I would suggest:"); else the code nearest the item.
fn ground(r: &Reading, p: &Proposal) -> Option<String> {
    let written = |s: &str| -> Vec<&Located> {
        r.names
            .iter()
            .filter(|l| l.found() && s.contains(&format!("`{}", l.name.text)))
            .collect()
    };
    let mut names = written(p.sentence);
    names.extend(p.other.map(|(_, o)| written(o)).unwrap_or_default());
    if names.is_empty() {
        names = p.before.map(written).unwrap_or_default();
    }
    match names.first() {
        Some(l) => match (&l.definition, used(l)) {
            (Some(d), _) => Some(format!(" {} is defined at {}.", l.shown(), d.cite())),
            (None, Some(h)) => Some(format!(" {} is used at {}.", l.shown(), h.cite())),
            (None, None) => None,
        },
        None => r
            .nearest
            .first()
            .map(|m| format!(" Nearest existing code: {}.", m.def.shown())),
    }
}

/// A line of code that uses `l`: not a comment, an import or a string literal's word.
fn used(l: &Located) -> Option<&super::search::Hit> {
    l.in_code().into_iter().find(|h| {
        let t = h.text.trim_start();
        let quoted = t
            .find(l.name.text.as_str())
            .is_some_and(|at| t[..at].matches('"').count() % 2 == 1);
        !quoted
            && ![
                "//", "/*", "*", "#", "--", "use ", "import ", "from ", "require",
            ]
            .iter()
            .any(|m| t.starts_with(m))
    })
}

/// A way shown by the code it writes (`overrides`), else quoted.
fn way(s: &str, max: usize) -> String {
    let spans: Vec<String> = super::names::code_spans(s)
        .iter()
        .filter(|c| c.chars().filter(|ch| ch.is_alphanumeric()).count() >= 2)
        .take(3)
        .map(|c| format!("`{c}`"))
        .collect();
    if spans.is_empty() {
        format!("\"{}\"", one_line(s, max))
    } else {
        format!("a way with {}", spans.join(", "))
    }
}
