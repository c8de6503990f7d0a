//! Which of the ranked definitions stand out enough to be named as the code an item is about:
//! the nearest code's margin over the next candidate.
//!
//! Not for: ranking them or reading them (`nearest`).

use std::collections::BTreeSet;

use super::nearest::{DefKind, Match};

/// How far the nearest must score above the next of its sort to be named: a name that wins by
/// less (`defaultValue()` 15.4 against 14.0, both for "default value") won on the item's common
/// words, and any of its neighbours would have been named as well.
const MARGIN: f64 = 1.25;

/// The matches that stand out, of each sort (headings, code). Names of the same words (`table()`
/// and `Table`) are one candidate, scored by its best. The first candidate is kept when it
/// scores [`MARGIN`] times the second, else the first two when they score that over the third
/// (two names of one thing, `getProgressBar()` and `createProgressBar()`), else none: several
/// definitions matched as well, and naming one of them would be a guess. With the matches
/// kept, whether some matched and none stood out (the document says so).
/// A match the item points at itself (`pinned`) is kept first, whatever the margin.
pub(super) fn standing_out(ranked: Vec<Match>) -> (Vec<Match>, bool) {
    let matched = !ranked.is_empty();
    let (mut kept, ranked): (Vec<Match>, Vec<Match>) = ranked.into_iter().partition(|m| m.pinned);
    kept.extend(those_standing(ranked));
    let tied = matched && kept.is_empty();
    (kept, tied)
}

fn those_standing(ranked: Vec<Match>) -> Vec<Match> {
    let words = |m: &Match| -> BTreeSet<String> { m.def.name_words().iter().cloned().collect() };
    let kept = |heading: bool| -> Vec<(bool, BTreeSet<String>)> {
        let mut groups: Vec<(BTreeSet<String>, f64)> = Vec::new();
        for m in ranked
            .iter()
            .filter(|m| (m.def.kind == DefKind::Heading) == heading)
        {
            let w = words(m);
            if !groups.iter().any(|(g, _)| *g == w) {
                groups.push((w, m.score));
            }
        }
        let s: Vec<f64> = groups.iter().map(|(_, score)| *score).take(3).collect();
        let n = match s.as_slice() {
            [a, b, ..] if *a >= MARGIN * b => 1,
            [_, _] => 2,
            [_, b, c] if *b >= MARGIN * c => 2,
            [_, _, _] => 0,
            _ => s.len(),
        };
        groups
            .into_iter()
            .take(n)
            .map(|(g, _)| (heading, g))
            .collect()
    };
    let keep: Vec<(bool, BTreeSet<String>)> = kept(true).into_iter().chain(kept(false)).collect();
    ranked
        .into_iter()
        .filter(|m| keep.contains(&(m.def.kind == DefKind::Heading, words(m))))
        .collect()
}
