//! The hedges of an item's sentences: the words that make a part of the request optional
//! ("Perhaps a complementary `--include` option too", "ideally"), asked whether that part is
//! required, and the reporter's hedged belief about how things are now ("I think it is probably
//! looking for the wrong key", "My (perhaps incorrect) model of it is …"), which asks for no
//! part and is not asked.

use super::item::{Item, has_word};

/// Hedged wording that makes a part optional, or only hedges.
pub(super) const HEDGES: &[&str] = &[
    "maybe",
    "perhaps",
    "optionally",
    "nice to have",
    "if possible",
    "ideally",
    "should probably",
    "probably",
    "preferably",
];

/// The words of a belief about what is, held by the person writing: a guess at a cause or at
/// how the program works, not a part of what they ask for.
const BELIEF: &[&str] = &[
    "i think",
    "i believe",
    "i guess",
    "i suspect",
    "i assume",
    "my guess",
    "my understanding",
    "my model",
    "my assumption",
    "my reading",
];

/// The words of a sentence that asks for something ("it would be nice to maybe add …"): a
/// hedge there may make a part optional, belief or not.
const WISH: &[&str] = &[
    "would", "could", "should", "add", "allow", "support", "wish", "want", "option", "nice",
];

/// The item's first sentence (not a question) that hedges, with its line and the hedge: the
/// first of [`HEDGES`] it says; a sentence that holds a belief ([`BELIEF`], or the hedge
/// qualifying the writer's own words as wrong: "(perhaps incorrect)") and asks for nothing
/// ([`WISH`]) is passed over.
pub(super) fn first<'i>(item: &'i Item) -> Option<(u32, &'i str, &'static str)> {
    item.first_sentence_where(HEDGES, |lower, hedge| {
        let belief = BELIEF.iter().any(|b| has_word(lower, b))
            || ["incorrect", "wrong", "mistaken"]
                .iter()
                .any(|w| lower.contains(&format!("{hedge} {w}")));
        let wishes = WISH.iter().any(|w| has_word(lower, w));
        !belief || wishes
    })
}

#[cfg(test)]
mod tests {
    use super::first;
    use crate::interviewer::builtin::item::Item;

    #[test]
    fn a_hedged_belief_is_no_optional_part_but_a_hedged_wish_is() {
        let text = "The parser fails on `--a-b`.\n\nI think it probably compares the \
                    wrong key when it reads the flag.\n\nMy (maybe wrong) picture of the tool is \
                    that it reads the table first.\n\nPerhaps a `--strict` mode too.\n";
        let item = Item::new(text);
        let (n, s, t) = first(&item).expect("the wish's hedge");
        assert_eq!((n, t), (7, "perhaps"));
        assert!(s.contains("--strict"));
        let wish = Item::new("I think it would be nice to maybe sort the list.\n");
        assert_eq!(first(&wish).map(|(_, _, t)| t), Some("maybe"));
        let belief = Item::new("I guess it is probably a cache that is stale.\n");
        assert!(first(&belief).is_none());
    }
}
