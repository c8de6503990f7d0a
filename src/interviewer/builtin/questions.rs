//! What the intent interviewer asks every kind of work item: the questions the item leaves
//! open, the names it uses that the repository does not have, and the vague wording that needs
//! a number or a decision — then the question bank of the item's kind (see `bank`).

use super::Finding;
use super::kind::ItemKind;
use super::names::{self, NameKind};
use super::reading::{Located, Reading};
use super::text::{around, slug, snippet};
use super::{bank, support};

pub(super) fn findings(r: &Reading) -> Vec<Finding> {
    if r.item.is_empty() {
        return vec![Finding::new(
            "goal",
            10,
            "The work item is empty. What should be built or fixed, and why?",
        )];
    }
    let mut out: Vec<Finding> = support::support(r)
        .into_iter()
        .chain(support::question(r))
        .collect();
    out.extend(open_points(r));
    out.extend(match r.class.kind {
        ItemKind::Bug => bank::bug(r),
        ItemKind::Feature => bank::feature(r),
        ItemKind::Refactor => bank::refactor(r),
        ItemKind::Dependency => bank::dependency(r),
        ItemKind::Docs => bank::docs(r),
        ItemKind::Performance => bank::performance(r),
    });
    // A report whose code is a fragment: whether the whole program is needed first.
    if r.class.kind == ItemKind::Bug || r.support.is_some() {
        out.extend(bank::fragment(r));
    }
    // A slowness report keeps what was measured, whatever kind it reads as.
    let measured = super::round::measured(r);
    // The code the item names itself, found defined, grounds the round better than the
    // definitions nearest to its words.
    let mut vague = vague(r);
    if !measured.is_empty() {
        vague.retain(|f| f.topic != "vague_fast");
    }
    out.extend(measured);
    // A question about use that names what the project has is asked whether that gives it.
    if !out
        .iter()
        .any(|f| f.topic.starts_with("existing_") || f.topic.starts_with("documented_"))
    {
        out.extend(bank::named_way(r));
    }
    // A setup problem's steps name the README's setup: the code nearest its words is no cause.
    let grounded = |f: &Finding| {
        f.topic.starts_with("existing_")
            || f.topic == "proposed_fix"
            || f.topic == "proposed_design"
            // A function the item's trace names, documented to throw what it shows.
            || f.topic.starts_with("documented_throw_")
            || (f.topic == "exact_steps" && r.setup.guide.is_some())
            // The place that prints the item's message, found.
            || (f.topic.starts_with("message_") && f.recommended.is_some())
            // The place that prints it on purpose.
            || (f.topic.starts_with("message_") && f.options.iter().any(|(_, v)| v == "intended"))
    };
    let asked: Vec<&str> = out
        .iter()
        .chain(&vague)
        .map(|f| f.question.as_str())
        .collect();
    // The item's own guess at the cause is put to the maintainer before any nearest code.
    let suspected = super::cited::suspected(r, &asked);
    let near = (suspected.is_none() && !out.iter().chain(&vague).any(grounded))
        .then(|| nearest_code(r, &asked).or_else(|| super::cited::called(r, &asked)))
        .flatten();
    out.extend(suspected.into_iter().chain(near));
    out.extend(super::linked::linked_file(r));
    out.extend(names_not_found(r));
    // The reporter's own fix has taken it for a bug: whether it is one is asked no more.
    let fix = vague.iter().any(|f| f.topic == "proposed_fix");
    out.retain(|f| !fix || f.topic != "intended_behaviour");
    out.extend(vague);
    support::leave_out(r, &mut out);
    super::round::rank_measured(r, &mut out);
    // A real request always leaves its maintainer something to decide, unless it states when
    // it is done.
    if out.is_empty() && !super::round::states_done(r) {
        out.extend(super::round::fallback(r));
    }
    out
}

/// The code nearest to the item (`nearest.rs`), named with where it is: what a maintainer
/// answers first — the option that already does it, the function the change would touch, the
/// section the text belongs in. Documentation items get the nearest headings, the others the
/// nearest code. Nothing when nothing matched (the document says so), nor when another
/// question of the round (`asked`) already names the nearest at its place: asked twice, it is
/// only longer.
fn nearest_code(r: &Reading, asked: &[&str]) -> Option<Finding> {
    use super::nearest::DefKind;
    let docs = r.class.kind == ItemKind::Docs;
    let cited =
        |m: &&super::nearest::Match| super::cited::cites_place(asked, &m.def.path, m.def.line);
    let near: Vec<&super::nearest::Match> = r
        .nearest
        .iter()
        .filter(|m| (m.def.kind == DefKind::Heading) == docs)
        .take(2)
        .collect();
    if near.first().is_some_and(cited) {
        return None;
    }
    let near: Vec<&super::nearest::Match> = near.into_iter().filter(|m| !cited(m)).collect();
    let first = near.first()?;
    let top = first.def.named();
    // Two when both fit in a question, else the nearest alone (long paths are never cut).
    let both = near
        .iter()
        .map(|m| m.def.shown())
        .collect::<Vec<_>>()
        .join(", ");
    // An option or a setting nearest: what it does may be the behaviour as designed.
    let option = match first.def.kind {
        DefKind::Flag => Some("option"),
        DefKind::EnvVar => Some("setting"),
        _ => None,
    };
    let question = ask_nearest(r.class.kind, option, &both, &top)?;
    let question = if question.chars().count() > crate::protocol::limits::MAX_QUESTION_TEXT_CHARS {
        ask_nearest(r.class.kind, option, &first.def.shown(), &top)?
    } else {
        question
    };
    Some(Finding::new("nearest_code", 7, question).titled("The code this item is about"))
}

/// The question about the nearest code (`list`, the nearest named `top`, an `option` or a
/// setting when it is one), for an item of `kind`. The most common first reply to a report or a wish
/// near an option is that the option already does it, by design: that is asked first.
fn ask_nearest(kind: ItemKind, option: Option<&str>, list: &str, top: &str) -> Option<String> {
    // Asked open (no options): which way is the person's to say in their words.
    let question = match kind {
        ItemKind::Feature if let Some(option) = option => format!(
            "Nearest existing {option}: {list}. Does {top} already give this (by design), should \
             it or its default change, or is something new needed beside it?"
        ),
        ItemKind::Bug if let Some(option) = option => format!(
            "Nearest {option} to the report: {list}. Does {top} govern this — intended, as it is \
             documented — or should it or its default change, or is the cause elsewhere?"
        ),
        ItemKind::Feature => {
            format!("Nearest existing code: {list}. Extend {top}, or add something beside it?")
        }
        ItemKind::Bug => {
            format!(
                "Nearest code to the report: {list}. Is {top} involved, or is the cause elsewhere?"
            )
        }
        ItemKind::Docs => {
            format!("Nearest documentation: {list}. Change {top}, or add a section of its own?")
        }
        ItemKind::Performance => {
            format!("Nearest code: {list}. Is {top} the path to measure and speed up?")
        }
        ItemKind::Refactor | ItemKind::Dependency => return None,
    };
    Some(question)
}

/// The item's own questions, each quoted whole; an "A or B?" question offers A and B.
fn open_points(r: &Reading) -> Vec<Finding> {
    // The request for help is asked as such (`support`).
    let helped = r.support.as_ref().map(|(n, _)| *n);
    r.item
        .open_points()
        .into_iter()
        .filter(|(n, _)| Some(*n) != helped)
        // A report's "what does that mean?" of the message it quotes is answered by where the
        // message comes from, not asked back.
        .filter(|(_, s)| r.class.kind != ItemKind::Bug || !super::outcome::asks_of_message(s))
        .take(8)
        .enumerate()
        .map(|(i, (n, sentence))| {
            let f = Finding::new(
                format!("open_point_{}", i + 1),
                8,
                format!("Line {n} asks: \"{sentence}\""),
            )
            .titled(sentence);
            match alternatives(sentence) {
                Some((a, b)) => f.choices(vec![(a.clone(), slug(&a)), (b.clone(), slug(&b))]),
                None => f,
            }
        })
        .collect()
}

/// `… per API key or per IP address?` → ("per API key", "per IP address"): the two sides of
/// one "or", as many words each as the right side has (at most five).
fn alternatives(sentence: &str) -> Option<(String, String)> {
    let body = sentence.trim_end_matches('?');
    let mut parts = body.split(" or ");
    let (left, right) = (parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let right_words: Vec<&str> = right.split_whitespace().collect();
    if right_words.is_empty() || right_words.len() > 5 || right.contains(',') {
        return None;
    }
    let left_words: Vec<&str> = left.split_whitespace().collect();
    if left_words.len() < right_words.len() {
        return None;
    }
    let window = &left_words[left_words.len() - right_words.len()..];
    // The left side must not run across a clause (`…, as X does, or ask?`).
    if window.iter().any(|w| w.ends_with([',', ';', ':'])) {
        return None;
    }
    let a = window.join(" ");
    let b = right_words.join(" ");
    let clean = |s: &str| {
        s.trim_matches(|c: char| !c.is_alphanumeric() && c != '`')
            .to_string()
    };
    let (a, b) = (clean(&a), clean(&b));
    (!a.is_empty() && !b.is_empty() && slug(&a) != slug(&b)).then_some((a, b))
}

/// Names written deliberately (backticks, registry links) that the repository does not have.
fn names_not_found(r: &Reading) -> Vec<Finding> {
    let candidates = bank::candidates(r);
    let programs = super::repo::programs(r.worktree, r.repo.project.as_deref());
    let missing: Vec<&Located> = r
        .names
        .iter()
        .filter(|l| l.name.marked && !l.found() && l.name.kind != NameKind::Message)
        // The language's, another program's, the item's own program's, or a plain word: not
        // finding it in the repository says nothing.
        .filter(|l| {
            names::code_shaped(&l.name.text)
                && !super::outside::outside_name(&l.name.text, &r.repo.languages)
                && !names::quoted_in_code(&r.item.all, &l.name.text)
                && !environment_variable(r, l)
                && !shown_whole(&r.item, &l.name.text)
        })
        .filter(|l| !candidates.iter().any(|c| c.name.text == l.name.text))
        // Only a name its line gives the project's program: elsewhere it is the reporter's
        // code, another project's or a placeholder, and the maintainer decides nothing of it.
        .filter(|l| super::shape::speaks_of_own(&r.item, l.name.line, &l.name.text, &programs))
        // What a feature asks for is new by nature: only names it refers to as existing count.
        .filter(|l| r.class.kind != ItemKind::Feature || !bank::proposed(r, l) && refers(r, l))
        .collect();
    let Some(first) = missing.first() else {
        return Vec::new();
    };
    let list: Vec<String> = missing.iter().take(4).map(|l| l.shown()).collect();
    // "New" is recommended only when the item asks for every one of them.
    let adds = r
        .item
        .mentions(&["add", "new", "introduce", "support", "implement"])
        && missing.iter().take(4).all(|l| bank::proposed(r, l));
    let feature = r.class.kind == ItemKind::Feature;
    let mut f = Finding::new(
        "names_not_found",
        if feature { 5 } else { 6 },
        format!(
            "The item names {} (line {}), found {}. What are they?{}",
            list.join(", "),
            first.name.line,
            r.search.nowhere(),
            if feature && adds {
                " Recommended: new, as the item asks to add them."
            } else {
                ""
            }
        ),
    )
    .titled(if r.search.stopped.is_some() {
        "Names not in the files read"
    } else {
        "Names the repository does not have"
    })
    .options(&[
        ("New names this work adds", "new"),
        ("Renamed or removed since", "renamed"),
        ("From a dependency or another project", "elsewhere"),
        ("A typo", "typo"),
    ]);
    if feature && adds {
        f = f.recommend("new");
    }
    vec![f]
}

/// Whether the item shows the file `name` itself: a line that is only its name ("`test.rb`:")
/// with a code block right below — the reporter's own file, not the repository's.
fn shown_whole(item: &super::item::Item, name: &str) -> bool {
    item.all.iter().enumerate().any(|(i, (_, l, code))| {
        !code
            && l.trim().trim_matches(|c: char| "`*:_ ".contains(c)) == name
            && item.all[i + 1..]
                .iter()
                .find(|(_, l, _)| !l.trim().is_empty())
                .is_some_and(|(_, _, code)| *code)
    })
}

/// Whether the item calls `l` an environment variable (`PAGER`, written in capitals, in a
/// sentence about a variable or the environment): the environment's, not the repository's.
fn environment_variable(r: &Reading, l: &Located) -> bool {
    let name = l.name.text.as_str();
    name.chars()
        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        && r.item.sentences.iter().any(|(_, s)| {
            let lower = s.to_lowercase();
            s.contains(name) && (lower.contains("environment") || lower.contains("variable"))
        })
}

/// Whether a sentence naming `l` speaks of it as something that exists.
fn refers(r: &Reading, l: &Located) -> bool {
    r.item.sentences.iter().any(|(_, s)| {
        let lower = s.to_lowercase();
        s.contains(l.name.text.as_str())
            && [
                "like",
                "existing",
                "today",
                "currently",
                "already",
                "uses",
                "calls",
                "in",
            ]
            .iter()
            .any(|w| super::item::has_word(&lower, w))
    })
}

/// Vague wording that needs a number or a decision; the first sentence with each, never one
/// that asks (it is an open point already).
fn vague(r: &Reading) -> Vec<Finding> {
    let mut out: Vec<Finding> = [vague_tbd(r), vague_fast(r), vague_etc(r)]
        .into_iter()
        .flatten()
        .collect();
    // The reporter's own fix, when they show one, in place of asking whether a hedge is needed.
    match proposed_fix(r) {
        Some(fix) => out.push(fix),
        None => out.extend(vague_maybe(r)),
    }
    // Any other kind's own design: take it, or which of its ways.
    out.extend(super::proposal::proposed_design(r));
    if matches!(r.class.kind, ItemKind::Feature | ItemKind::Docs) {
        out.extend(vague_simple(r));
        out.extend(vague_quality(r));
    }
    out
}

fn vague_tbd(r: &Reading) -> Option<Finding> {
    let (n, s, t) = r.item.first_sentence(&[
        "tbd",
        "tbc",
        "to be decided",
        "to be determined",
        "to be defined",
    ])?;
    Some(
        Finding::new(
            "vague_tbd",
            9,
            format!(
                "Line {n} leaves \"{t}\": \"{}\". What is decided?",
                around(&snippet(s, usize::MAX), t, 110)
            ),
        )
        .titled("What is still to be decided"),
    )
}

fn vague_fast(r: &Reading) -> Option<Finding> {
    if r.class.kind == ItemKind::Performance {
        return None;
    }
    let (n, s, t) = r.item.first_sentence(&[
        "fast",
        "quick",
        "quickly",
        "performant",
        "responsive",
        "real-time",
        "realtime",
    ])?;
    if bank::has_measure(s) || !bank::of_own_speed(s, t) {
        return None;
    }
    Some(
        Finding::new(
            "vague_fast",
            6,
            format!("Line {n} says \"{t}\". What is the measurable target, on which input?"),
        )
        .options(&[
            ("Under 100 ms", "under_100ms"),
            ("Under 1 second", "under_1s"),
            ("Under 10 seconds", "under_10s"),
            ("No hard target", "no_target"),
        ]),
    )
}

/// A list the item ends with "etc.": asked for whole, unless it only gives examples ("something
/// like `start`, `stop`, etc.", "such as …", "e.g. …", an "etc." alone after an example block):
/// examples of what exists are no list to build (its three pool rows scored 2).
fn vague_etc(r: &Reading) -> Option<Finding> {
    let (n, s, t) =
        r.item
            .first_sentence(&["etc.", "etc", "and so on", "and so forth", "and more"])?;
    let lower = format!(" {} ", s.to_lowercase());
    let examples = [
        " like ",
        " such as ",
        " e.g.",
        " eg. ",
        " for example",
        " for instance",
    ]
    .iter()
    .any(|m| lower.contains(m));
    let alone = lower
        .replace(t, "")
        .trim_matches(|c: char| !c.is_alphanumeric())
        .is_empty();
    if examples || alone {
        return None;
    }
    Some(Finding::new(
        "vague_etc",
        6,
        format!(
            "Line {n} ends a list with \"{t}\": \"{}\". What is the complete list?",
            around(&snippet(s, usize::MAX), t, 90)
        ),
    ))
}

fn vague_maybe(r: &Reading) -> Option<Finding> {
    let (n, s, t) = super::hedge::first(&r.item)?;
    // "Probably" and "ideally" hedge; "perhaps … too" and "optionally" make a part optional.
    let optional = [
        "maybe",
        "perhaps",
        "optionally",
        "nice to have",
        "if possible",
    ]
    .contains(&t);
    let f = Finding::new(
        "vague_maybe",
        6,
        format!(
            "Line {n} says \"{t}\": \"{}\". Is that part required?{}",
            around(&snippet(s, usize::MAX), t, 100),
            if optional {
                " Recommended: later, the item itself makes it optional."
            } else {
                ""
            }
        ),
    )
    .options(&[
        ("Required", "required"),
        ("Nice to have, later", "follow_up"),
        ("Not needed", "not_needed"),
    ]);
    Some(if optional {
        f.recommend("follow_up")
    } else {
        f
    })
}

/// A bug report's own fix ("Perhaps `clear()` should reset `$this->firstRun`", "I suggest …"):
/// a sentence that proposes a change and names, in backticks, code the repository defines.
/// Asked whether to take it, recommended: the reporter has read the code, and a maintainer
/// usually asks them to open the pull request.
fn proposed_fix(r: &Reading) -> Option<Finding> {
    if r.class.kind != ItemKind::Bug {
        return None;
    }
    let proposes: Vec<&'static str> = super::hedge::HEDGES
        .iter()
        .copied()
        .chain([
            "suggest",
            "the fix",
            "fix would",
            "could be fixed",
            "should be changed",
        ])
        .collect();
    let (n, s, _) = r.item.first_sentence(&proposes)?;
    let code = r.names.iter().find(|l| {
        l.name.marked && s.contains(&format!("`{}", l.name.text)) && l.definition.is_some()
    })?;
    let at = code.definition.as_ref()?;
    let ask = |max: usize| {
        format!(
            "Line {n} proposes a fix: \"{}\" ({} is at {}). Take it? Recommended: yes, the \
             item shows the change.",
            super::text::one_line(s, max),
            code.shown(),
            at.cite()
        )
    };
    let question = super::text::first_fitting([120, 80, 50], ask)?;
    Some(
        Finding::new("proposed_fix", 8, question)
            .titled("The fix the item proposes")
            .options(&[
                ("Take the proposed fix", "take_fix"),
                ("Fix it another way", "other_fix"),
                ("Decide after reproducing it", "after_reproducing"),
            ])
            .recommend("take_fix"),
    )
}

fn vague_simple(r: &Reading) -> Option<Finding> {
    let (n, _, t) = r.item.first_sentence(&[
        "simple",
        "easy",
        "easily",
        "intuitive",
        "user-friendly",
        "seamless",
    ])?;
    Some(
        Finding::new(
            "vague_simple",
            4,
            format!("Line {n} says \"{t}\". Simple for whom, and how would we tell?"),
        )
        .options(&[
            ("No setup or configuration needed", "zero_config"),
            ("One command", "one_step"),
            (
                "Follows an existing pattern in the code",
                "familiar_pattern",
            ),
        ]),
    )
}

fn vague_quality(r: &Reading) -> Option<Finding> {
    let (n, _, t) = r.item.first_sentence(&[
        "robust", "scalable", "flexible", "reliable", "secure", "modern", "clean",
    ])?;
    Some(Finding::new(
        "vague_quality",
        4,
        format!("Line {n} asks for \"{t}\". Which checkable property is meant?"),
    ))
}

/// The entry title of an answered intent topic.
pub(super) fn topic_name(topic: &str) -> Option<&'static str> {
    Some(match topic {
        "kind" => "What kind of work item this is",
        "acceptance_criteria" => "Acceptance criteria",
        "scope" => "Scope",
        "error_handling" => "Error handling",
        "users" => "Users",
        "data_format" => "Data and format",
        "goal" => "Goal",
        "vague_tbd" => "What is still to be decided",
        "vague_fast" => "The performance target",
        "vague_etc" => "The complete list",
        "vague_maybe" => "Required or optional",
        "proposed_fix" => "The fix the item proposes",
        "vague_simple" => "What simple means here",
        "vague_quality" => "The quality meant, concretely",
        "vague_some" => "Which ones, and how many",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn or_questions_offer_both_sides() {
        assert_eq!(
            alternatives("Should the limit be per API key or per IP address?"),
            Some(("per API key".into(), "per IP address".into()))
        );
        assert_eq!(alternatives("Who may export?"), None);
        assert_eq!(alternatives("a, b, or c or d?"), None);
        assert_eq!(alternatives("Refuse, as the document does, or ask?"), None);
    }

    #[test]
    fn slugs_are_topics() {
        assert_eq!(slug("--no-pager"), "no_pager");
        assert_eq!(slug("ansi_term::Colour"), "ansi_term_colour");
        assert!(crate::receipt::is_topic(&format!("flag_{}", slug("--X"))));
    }
}
