//! A bug report that says, in a sentence of its own, what the program does ("The `a-b` key is
//! always there", "`x --flag` leaves a gap which isn't present with `x`") or what the reporter
//! expected ("I shouldn't have to give the option"): is that intended — then the way that
//! exists — or a bug? What a maintainer settles first on a report of a behaviour.

use super::*;

/// The words of a sentence that tells what the program does, and that it is not as expected.
const HAPPENS: &[&str] = &[
    "always",
    "on every",
    "incorrectly",
    "wrongly",
    "isn't present",
    "isn\u{2019}t present",
    "is not present",
    "unexpected",
    "unexpectedly",
    "did not expect",
    "didn't expect",
    "didn\u{2019}t expect",
    "not what i expected",
];

/// The words of a sentence that tells what the reporter expected instead.
const EXPECTED: &[&str] = &[
    "i expected",
    "i would expect",
    "i'd expect",
    "i\u{2019}d expect",
    "shouldn't have to",
    "shouldn\u{2019}t have to",
    "should not have to",
];

/// The words of a program dying or stuck: a crash is asked where, not whether it is meant.
const STUCK: &[&str] = &[
    "hang", "hangs", "freezes", "crash", "crashes", "panic", "panics",
];

/// Puts "intended, or a bug?" before whether it reproduces on HEAD, unless the round asks it
/// already (the project's own message or a documentation section, "intended" among its
/// options), the item asks for help (`support` asks it), or the report is of a crash (the
/// runtime's words, a stack trace's frame, a panic) or of a setup problem (neither is a
/// behaviour anyone meant).
pub(super) fn ask_intended(r: &Reading, out: &mut Vec<Finding>) {
    let asked = out.iter().any(|f| {
        f.topic.starts_with("documented_") || f.options.iter().any(|(_, v)| v == "intended")
    });
    if asked
        || r.support.is_some()
        || r.setup.setup_problem
        || super::super::outcome::crash_shown(&r.item)
        || super::super::trace::frame(&r.item).is_some()
        || r.item.lower.contains("panicked at")
    {
        return;
    }
    let Some(f) = intended(r) else {
        return;
    };
    let at = out
        .iter()
        .position(|f| f.topic == "reproduces_on_head")
        .unwrap_or(out.len());
    out.insert(at, f);
}

/// The question, on the first whole sentence (not a fragment after a code block, not a
/// question, no crash) that says what happens, else what was expected.
fn intended(r: &Reading) -> Option<Finding> {
    let whole =
        |s: &str| s.starts_with(|c: char| c.is_uppercase() || matches!(c, '`' | '"' | '\u{201c}'));
    let find = |terms: &[&'static str]| {
        r.item
            .first_sentence_where(terms, |lower, _| {
                !STUCK.iter().any(|w| super::super::item::has_word(lower, w))
            })
            .filter(|(_, s, _)| whole(s))
    };
    let (happens, (n, sentence, _)) = find(HAPPENS)
        .map(|s| (true, s))
        .or_else(|| find(EXPECTED).map(|s| (false, s)))?;
    let ask = |max: usize| {
        let said = super::super::text::said(sentence, max);
        if happens {
            format!(
                "Line {n} says{said}. Intended (then: which existing option or documented way \
                 does what they want), or a bug?"
            )
        } else {
            format!(
                "Line {n} expects{said}. Intended as it is (then: which existing option or \
                 documented way does it), or a bug?"
            )
        }
    };
    let question = super::super::text::first_fitting([120, 90, 80, 60, 50, 0], ask)?;
    Some(
        Finding::new("intended_behaviour", 9, question)
            .titled("Intended, or a bug")
            .options(&[
                ("Intended: an existing way does it", "intended"),
                ("A bug", "bug"),
                ("Can't tell without their setup", "need_setup"),
            ]),
    )
}
