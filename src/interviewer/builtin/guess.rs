//! The definition an item's guess at the cause names in plain words ("it is probably looking up
//! the kebab key in the camel case map"): the sentence's own words ranked against the
//! definitions as the nearest code is (`nearest::rank`), and the best taken only when it stands
//! out clearly — a guess matched loosely would put words in the reporter's mouth.
//!
//! Not for: a guess that names its definition as code (`pointed::suspected`), nor the code
//! nearest the whole item (`nearest::about`).

use std::collections::BTreeSet;

use super::nearest::{Def, DefKind, rank};
use super::words::{ACTIONS, GENERIC, words};

/// How far the best match of the guess must score above the next: further than the nearest
/// code's margin (`standing`), since a sentence has few words to rank by.
const MARGIN: f64 = 1.5;

/// The index into `defs` of the one definition a guessing sentence (`pointed::guesses`) names
/// in plain words, with the sentence's line and text. The definition must hold two of the
/// sentence's telling words in its name (not an issue's generic ones, `option`, `file`; nor
/// what the item asks done, `remove`), and score [`MARGIN`] times the next name; a heading or a
/// member is never the code a guess means.
pub(super) fn guessed(defs: &[Def], sentences: &[(u32, String)]) -> Option<(usize, u32, String)> {
    let plain: BTreeSet<String> = GENERIC
        .iter()
        .chain(ACTIONS)
        .flat_map(|w| words(w))
        .collect();
    let code: Vec<usize> = (0..defs.len())
        .filter(|&i| !matches!(defs[i].kind, DefKind::Heading | DefKind::Member))
        .collect();
    // Copied for the ranking only once a sentence guesses: most items guess nothing.
    let mut kept: Option<Vec<Def>> = None;
    for (n, s) in sentences {
        if !super::pointed::guesses(s) {
            continue;
        }
        let kept = kept.get_or_insert_with(|| code.iter().map(|&i| defs[i].clone()).collect());
        let query = words(s);
        let telling: BTreeSet<&str> = query
            .iter()
            .map(String::as_str)
            .filter(|w| !plain.contains(*w))
            .collect();
        let ranked = rank(kept, &query, 8);
        // Names of the same words (`table()` and `Table`) are one candidate.
        let mut groups: Vec<(BTreeSet<&str>, f64, &Def)> = Vec::new();
        for m in &ranked {
            let w: BTreeSet<&str> = m.def.name_words().iter().map(String::as_str).collect();
            if !groups.iter().any(|(g, _, _)| *g == w) {
                groups.push((w, m.score, &m.def));
            }
        }
        let Some((best, score, def)) = groups.first() else {
            continue;
        };
        let clear = groups
            .get(1)
            .is_none_or(|(_, next, _)| *score >= MARGIN * next);
        if !clear || best.iter().filter(|w| telling.contains(*w)).count() < 2 {
            continue;
        }
        let i = code.iter().copied().find(|&i| {
            let d = &defs[i];
            d.path == def.path && d.line == def.line && d.name == def.name
        })?;
        return Some((i, *n, s.clone()));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn def(kind: DefKind, name: &str) -> Def {
        Def::new(kind, name, "src/flags.js", 1, "")
    }

    fn guess(defs: &[Def], sentence: &str) -> Option<String> {
        guessed(defs, &[(3, sentence.to_string())]).map(|(i, _, _)| defs[i].name.clone())
    }

    #[test]
    fn a_guess_in_plain_words_names_the_definition_its_words_match_clearly() {
        let defs = vec![
            def(DefKind::Function, "lookupCamelKey"),
            def(DefKind::Function, "buildParserFlags"),
            def(DefKind::Function, "validateFlags"),
            def(DefKind::Heading, "Camel keys"),
        ];
        let said = "I think it is probably looking for the key in a camel case map of flags.";
        assert_eq!(guess(&defs, said).as_deref(), Some("lookupCamelKey"));
        // Not a guess: the same words said as a fact.
        assert_eq!(
            guess(&defs, "The key is looked up in a camel case map."),
            None
        );
    }

    #[test]
    fn a_guess_matched_as_well_by_two_names_or_by_generic_words_names_none() {
        let defs = vec![
            def(DefKind::Type, "TableStyle"),
            def(DefKind::Type, "TableCellStyle"),
            def(DefKind::Function, "readOptionFile"),
        ];
        assert_eq!(
            guess(&defs, "It seems related to custom styles in the table."),
            None
        );
        // One telling word (`table`) and a generic one (`file`, `option`) are a chance match.
        assert_eq!(guess(&defs, "I think the option file is read twice."), None);
    }
}
