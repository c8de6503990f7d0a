//! The words of a text as the nearest-code ranking reads them (`nearest.rs`): identifiers split
//! at `_`, `-`, `.` and camelCase, lower case, lightly stemmed, with the words that say nothing
//! about code (an item's stop words, an issue template's own words) left out.

use std::collections::{BTreeSet, HashMap, HashSet};

/// Words too common in items to say anything about the code, and an issue template's own words
/// ("expected", "version", "steps"): they say nothing about the code.
const STOP: &str = "the and for with that this from into when then than are was were been have has had not \
     but can could would should will shall may might must its it's you your our their there \
     which what where who how why also just like some any all more most other such only very \
     each per via use using used get set let make want need add new way one two does did \
     doing done etc e.g i.e please thanks thank think maybe seem seems would it is in on of \
     to a an be or if as at by we i me my so do no yes out up now here after before about \
     because same work works working issue currently instead possible able still without see \
     know even well fn def func function class struct type return true false null none self \
     str string int let var const pub http https com www github version expected actual \
     behavior behaviour reproduce steps step bug feature request problem describe description \
     context additional information environment platform system linux macos windows ubuntu \
     debian install installed release latest project repository report result results happen \
     happens solution alternative alternatives considered screenshot screenshots log logs \
     output example following";

/// Words every command-line tool's items and code use: a name that shares only one of them
/// with the title (`Option()` for "Help option does not …") is a chance match.
pub(super) const GENERIC: &[&str] = &[
    "option",
    "command",
    "argument",
    "arg",
    "flag",
    "file",
    "line",
    "output",
    "input",
    "help",
    "name",
    "value",
    "error",
    "test",
    "run",
    "print",
    "display",
    "parameter",
    "param",
    "data",
    "text",
    "list",
    "default",
    "message",
    "path",
    "config",
    "result",
    "read",
    "write",
    "call",
    "documentation",
    "doc",
    "readme",
];

/// What an item asks done, not what it is about: a name sharing only these with the title
/// (`remove_argument()` for "Remove unused argument in …") is a chance match.
pub(super) const ACTIONS: &[&str] = &[
    "add",
    "remove",
    "delete",
    "fix",
    "support",
    "allow",
    "enable",
    "disable",
    "change",
    "update",
    "create",
    "show",
    "handle",
    "unused",
    "missing",
    "wrong",
    "broken",
    "fail",
    "failing",
    "crash",
    "correct",
    "incorrect",
    "incorrectly",
    "exception",
    "throw",
    "throws",
    "bug",
    "problem",
    "issue",
    "working",
    "display",
    "displays",
];

/// A fast hash of short words, the same on every run (no random seed: nothing here faces
/// input built to collide, and the order of a set is never read).
type Fast = foldhash::fast::FixedState;

/// [`STOP`] as a set: every word of every file the index reads is looked up in it.
static STOP_WORDS: std::sync::LazyLock<HashSet<&str, Fast>> =
    std::sync::LazyLock::new(|| STOP.split_whitespace().collect());

/// The words of a text: identifiers split at `_`, `-`, `.` and camelCase, lower case, light
/// stemming; stop words and one- or two-letter words left out.
pub(super) fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    // One buffer for every part and one for its lower case: a word is allocated once, kept.
    let mut part = String::new();
    let mut lower = String::new();
    for token in text.split(|c: char| !c.is_alphanumeric()) {
        part.clear();
        let mut prev_lower = false;
        for c in token.chars() {
            if c.is_uppercase() && prev_lower {
                push_word(&mut out, &part, &mut lower);
                part.clear();
            }
            prev_lower = c.is_lowercase() || c.is_ascii_digit();
            part.push(c);
        }
        push_word(&mut out, &part, &mut lower);
    }
    out
}

fn push_word(out: &mut Vec<String>, word: &str, lower: &mut String) {
    lower.clear();
    if word.is_ascii() {
        lower.push_str(word);
        lower.make_ascii_lowercase();
    } else {
        // `str::to_lowercase` knows a word's final sigma, as `char::to_lowercase` does not.
        lower.push_str(&word.to_lowercase());
    }
    if lower.len() < 3
        || lower.chars().all(|c| c.is_ascii_digit())
        || STOP_WORDS.contains(lower.as_str())
    {
        return;
    }
    out.push(stem(lower));
}

/// A light English stemmer: plurals, `-ing`, `-ed`, `-ly`, and a final silent `e`, so that the
/// forms of one word meet (`colors`/`color`, `values`/`value`, `parses`/`parsing`/`parse`,
/// `running`/`run`) while a stem keeps a vowel and three letters (`string` is no `str`, `need`
/// no `ne`, `speed` no `spe`).
fn stem(word: &str) -> String {
    let vowel = |s: &str| s.contains(['a', 'e', 'i', 'o', 'u', 'y']);
    if let Some(b) = word.strip_suffix("ies").filter(|b| b.len() >= 3) {
        return format!("{b}y");
    }
    let s = if let Some(b) = ["ing", "ed"]
        .iter()
        .filter_map(|x| word.strip_suffix(x))
        .find(|b| b.len() >= 3 && vowel(b) && !b.ends_with('e'))
    {
        undoubled(b)
    } else if let Some(b) = word.strip_suffix("en").filter(|b| doubled(b)) {
        // A participle on a doubled consonant: `hidden`/`hide`, `written`/`write`.
        undoubled(b)
    } else if let Some(b) = word
        .strip_suffix('n')
        .filter(|b| b.len() >= 4 && b.ends_with('w'))
    {
        // `shown`/`show`, `thrown`/`throw`, `known`/`know`.
        b
    } else if let Some(b) = word.strip_suffix("ly").filter(|b| b.len() >= 4) {
        b
    } else if !word.ends_with("ss")
        && let Some(b) = word.strip_suffix('s').filter(|b| b.len() >= 3)
    {
        b
    } else {
        word
    };
    match s.strip_suffix('e') {
        Some(b) if b.len() >= 3 && !b.ends_with('e') => b.to_string(),
        _ => s.to_string(),
    }
}

/// `runn` of `running` as `run`, `mapp` as `map`: a doubled last consonant (not `l`, `s`, `z`,
/// which double in the word itself: `fill`, `pass`) undone, when three letters stay.
fn undoubled(base: &str) -> &str {
    if doubled(base) {
        return &base[..base.len() - 1];
    }
    base
}

/// Whether `base` ends in a doubled consonant that is no part of the word itself (`runn`,
/// `hidd`; not `fill`, `pass`), three letters staying before it.
fn doubled(base: &str) -> bool {
    let b = base.as_bytes();
    let n = b.len();
    n >= 4 && b[n - 1] == b[n - 2] && !b"aeiouylsz".contains(&b[n - 1])
}

/// BM25's parameters (the usual ones).
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// BM25 of each text (its words) against `query` (the item's words): the index's one ranking,
/// for definitions and documentation sections alike, so that rare words weigh most.
pub(super) fn bm25(docs: &[Vec<&str>], query: &[String]) -> Vec<f64> {
    if docs.is_empty() {
        return Vec::new();
    }
    let n = docs.len() as f64;
    // Only the query's terms are weighed: their document frequencies, counted in one pass.
    let terms: BTreeSet<&str> = query.iter().map(String::as_str).collect();
    let wanted: HashSet<&str, Fast> = terms.iter().copied().collect();
    let mut df: HashMap<&str, usize, Fast> = HashMap::default();
    let mut seen: Vec<&str> = Vec::new();
    for d in docs {
        seen.clear();
        for w in d.iter().copied().filter(|w| wanted.contains(w)) {
            if !seen.contains(&w) {
                seen.push(w);
                *df.entry(w).or_default() += 1;
            }
        }
    }
    let avg = (docs.iter().map(Vec::len).sum::<usize>() as f64 / n).max(1.0);
    docs.iter()
        .map(|d| {
            if !d.iter().any(|w| wanted.contains(w)) {
                return 0.0;
            }
            let len = d.len() as f64;
            // Summed in the terms' order, as ever: the same input gives the same score.
            terms
                .iter()
                .map(|t| {
                    let tf = d.iter().filter(|w| *w == t).count() as f64;
                    if tf == 0.0 {
                        return 0.0;
                    }
                    let df = *df.get(t).unwrap_or(&0) as f64;
                    let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
                    idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * len / avg))
                })
                .sum()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_words_and_template_words_say_nothing() {
        assert!(words("the version and expected behaviour, steps").is_empty());
        assert_eq!(words("not but"), Vec::<String>::new());
    }

    #[test]
    fn identifiers_split_into_stemmed_words() {
        assert_eq!(words("parseArgs"), vec!["pars", "arg"]);
        assert_eq!(
            words("max_columns-preview"),
            vec!["max", "column", "preview"]
        );
        assert_eq!(words("Sorting the colors"), vec!["sort", "color"]);
        assert_eq!(words("HTTPServer"), vec!["httpserver"]);
    }

    #[test]
    fn the_forms_of_one_word_meet_and_other_words_stay_apart() {
        let one = |a: &str, b: &str| assert_eq!(words(a), words(b), "{a} / {b}");
        for (a, b) in [
            ("values", "value"),
            ("parses", "parse"),
            ("parsing", "parse"),
            ("parsed", "parse"),
            ("options", "option"),
            ("running", "run"),
            ("naming", "name"),
            ("named", "names"),
            ("matches", "match"),
            ("entries", "entry"),
            ("speeds", "speed"),
            ("padded", "pad"),
            ("mapped", "map"),
            ("filled", "fill"),
            ("boxes", "box"),
            ("caches", "cache"),
            ("hidden", "hide"),
            ("hidden", "hides"),
            ("written", "write"),
            ("shown", "show"),
            ("known", "knows"),
            ("sorted", "sort"),
            ("ignored", "ignore"),
            ("quoted", "quote"),
            ("nested", "nest"),
            ("colored", "color"),
        ] {
            one(a, b);
        }
        for (w, kept) in [
            ("string", "string"),
            ("need", "need"),
            ("speed", "speed"),
            ("bring", "bring"),
            ("use", "use"),
            ("token", "token"),
            ("open", "open"),
            ("own", "own"),
            ("listen", "listen"),
        ] {
            assert_eq!(stem(w), kept);
        }
    }
}
