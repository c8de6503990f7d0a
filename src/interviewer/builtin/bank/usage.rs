//! The existing way a question about use names itself: when the item asks how to do something
//! with a name the repository defines or documents (`--color`), a maintainer answers with that
//! thing or "by design", and changes no page. Asked whether it already gives what the person
//! asks, never which pages to change (unless the item speaks of the docs, `questions.rs`).

use super::*;

/// The name a question how to do something asks about, found where the project's code
/// defines it (not a test, a page or a manifest), with the pages that document it: "`--color` is documented at README.md:5 (defined at src/cli.rs:3).
/// Does it already give what line 5 asks …?"
pub(in crate::interviewer::builtin) fn named_way(r: &Reading) -> Option<Finding> {
    let (line, asked) = r.support.as_ref()?;
    // A question how to do something, not "is it a bug or am I missing something?".
    if !super::super::shape::usage_question(&r.item, asked) {
        return None;
    }
    // Named where the person asks (the title or the question for help), not only mentioned.
    let l = found_names(r).into_iter().find(|l| {
        !common_token(&l.name.text)
            && super::super::names::code_shaped(&l.name.text)
            && (has_name(&r.facts.title, &l.name.text) || has_name(asked, &l.name.text))
            && defined(l).is_some()
    })?;
    let def = defined(l)?;
    let docs = super::feature::pages(l);
    let at = if docs.is_empty() {
        format!("defined at {}", def.cite())
    } else {
        format!(
            "{} at {} (defined at {})",
            super::pages::claim(&docs, l, 2),
            cites(&docs, 2),
            def.cite()
        )
    };
    let place = if *line == 0 {
        "the title".to_string()
    } else {
        format!("line {line}")
    };
    Some(
        Finding::new(
            "existing_way",
            8,
            format!(
                "{} is {at}. Does it already give what {place} asks (then: point them to it, \
                 by design), or does it not cover their case?",
                l.shown()
            ),
        )
        .titled(format!("The existing {}", l.shown()))
        .options(&[
            ("It covers it: point them to it", "enough"),
            ("It lacks something: extend it", "extend"),
            ("Unrelated to what they want", "unrelated"),
        ]),
    )
}

/// Where the project's own code defines `l`: not a test, a page or a manifest.
fn defined(l: &Located) -> Option<&Hit> {
    l.definitions.iter().find(|d| {
        !is_test(&d.path) && !is_doc(&d.path) && !super::super::place::is_manifest(&d.path)
    })
}
