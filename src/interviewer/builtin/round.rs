//! What makes the first round reach a maintainer's decision whatever else matched: a report
//! that something is slow keeps the questions of what was measured, whatever kind its other
//! cues give; and a round left with nothing asks the kind's own question, less what the item
//! already says.
//!
//! Not for: the kinds' banks themselves (`bank`), nor the code nearest the item (`nearest.rs`).

use super::Finding;
use super::bank;
use super::kind::ItemKind;
use super::reading::Reading;

/// What says something is slow or uses too much, in a title or a question for help.
const SLOW: &[&str] = &[
    "slow",
    "slower",
    "slowly",
    "slowness",
    "faster",
    "speed up",
    "speedup",
    // "Performance" alone may name a subject ("performance counters"); a complaint says more.
    "performance issue",
    "performance issues",
    "performance problem",
    "poor performance",
    "bad performance",
    "performance regression",
    "performance degradation",
    "too long",
    "takes forever",
    "a long time",
    "memory usage",
    "too much memory",
    "high memory",
    "cpu usage",
    "high cpu",
    "sluggish",
    "laggy",
];

/// Of the performance bank, what is asked of any slowness report: the comparison it makes, the
/// data and machine, the target, and the benchmark to measure with.
const MEASURED: &[&str] = &["comparison", "workload", "perf_target", "benchmark"];

/// Whether the item reports that something is slow or uses too much: its title says so, or its
/// question for help does ("How can I make it faster?").
pub(super) fn reports_slowness(r: &Reading) -> bool {
    let says = |s: &str| {
        let lower = s.to_lowercase();
        SLOW.iter().any(|w| super::item::has_word(&lower, w))
    };
    says(&r.facts.title) || r.support.as_ref().is_some_and(|(_, s)| says(s))
}

/// A slowness report read as another kind (a bug template, a wish, a question about use) keeps
/// the measurement questions maintainers ask of it; nothing for performance work, whose bank
/// asks them already.
pub(super) fn measured(r: &Reading) -> Vec<Finding> {
    if r.class.kind == ItemKind::Performance || !reports_slowness(r) {
        return Vec::new();
    }
    bank::performance(r)
        .into_iter()
        .filter(|f| MEASURED.contains(&f.topic.as_str()))
        .collect()
}

/// What was measured comes before the reporter's own questions in a slowness report: their
/// guesses ("Is the walk done twice?") rank after it, and are asked in a later round.
pub(super) fn rank_measured(r: &Reading, out: &mut [Finding]) {
    if r.class.kind != ItemKind::Performance && !reports_slowness(r) {
        return;
    }
    for f in out
        .iter_mut()
        .filter(|f| f.topic.starts_with("open_point_"))
    {
        f.severity = f.severity.min(6);
    }
}

/// The kind's own question for a round that has nothing else: what a maintainer settles
/// first, less what the item already says. A bug report that shows what was run is asked only
/// what should happen (quoting the command), one that says what should happen only where it
/// shows (quoting the sentence); one that says both is asked nothing. The question stands on
/// the item: that nothing matched is the document's to say, the nearest definition the index
/// found follows the question.
pub(super) fn fallback(r: &Reading) -> Option<Finding> {
    // Only what the index found: a heading may be nearest where no code is.
    let nearest = r.nearest.first().map_or(String::new(), |m| {
        format!(" The nearest the index found is {}.", m.def.shown())
    });
    let ran = r.item.all.iter().find(|(_, l, code)| {
        let t = l.trim();
        *code && !t.is_empty() && !t.starts_with("```") && !t.starts_with("~~~")
    });
    let expects = r.item.first_sentence(&["should", "expected", "instead"]);
    let bug = match (ran, expects) {
        (Some(_), Some(_)) => return None,
        (Some((n, l, _)), None) => format!(
            "The item shows what was run (line {n}: `{}`): what should it do instead?",
            l.trim().replace('`', "'")
        ),
        (None, Some((n, s, _))) => format!(
            "The item says what should happen (line {n}: \"{s}\"): which command or part of \
             the program shows it?"
        ),
        (None, None) if r.item.has_heading(&["expected"]) => {
            "Which command or part of the program shows it?".to_string()
        }
        (None, None) => {
            "Which command or part of the program shows it, and what should it do instead?"
                .to_string()
        }
    };
    let (topic, title, ask) = match r.class.kind {
        ItemKind::Bug => ("expected_behaviour", "Expected and actual behaviour", bug),
        ItemKind::Docs => (
            "doc_location",
            "Where it is documented",
            "Which page should say it: an existing one, or a new section?".to_string(),
        ),
        ItemKind::Feature | ItemKind::Performance => (
            "nearest_code",
            "The code this item is about",
            "What existing code comes closest — extend it, or add something beside it?".to_string(),
        ),
        ItemKind::Refactor | ItemKind::Dependency => (
            "nearest_code",
            "The code this item is about",
            "Which code does it change, and must its behaviour stay as it is?".to_string(),
        ),
    };
    Some(Finding::new(topic, 7, format!("{ask}{nearest}")).titled(title))
}

/// Whether the item states when it is done (acceptance criteria, a definition of done, a
/// checklist): a precise request, whose round may rightly be empty.
pub(super) fn states_done(r: &Reading) -> bool {
    r.item.has_heading(&[
        "acceptance",
        "done when",
        "definition of done",
        "success criteria",
    ]) || r
        .item
        .mentions(&["acceptance criteria", "definition of done", "- [ ]"])
}
