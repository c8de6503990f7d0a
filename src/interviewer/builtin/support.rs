//! The questions of an item that asks for help or wishes for a way: what the person is after
//! ("How do I …?": intended, not supported yet, or a bug), what such a request is not asked, and
//! whether what the project already has gives the wish (found in `existing.rs`).

use super::Finding;
use super::reading::Reading;

/// What a request for help is not asked: a specification's questions, and a documentation
/// change's reader (the person asking is the reader).
pub(super) const NOT_FOR_SUPPORT: &[&str] = &[
    "audience",
    "exact_steps",
    "expected_behaviour",
    "acceptance_criteria",
    "first_bad_version",
    "regression_test",
];

/// The questions of which pages to change.
const PAGES: &[&str] = &["doc_pages", "docs_update", "doc_callers"];

/// What a request for help is not asked, left out of `out`: a specification's questions (what
/// a change would need comes after the answer); `reproduces_on_head`, of a usage question (which
/// reproduces nowhere) or of a report whose reporter asks whether it is intended ("Is this
/// expected behavior?", "I don't think it should …": the answer is intended or not, whatever the
/// version), but not of a report that asks the way and gives what the maintainer could try
/// (`may_try_on_head`), nor of one that says it worked before (`worked_before`: then which
/// version changed it is asked too); where to document it or which pages to change, unless the item speaks
/// of the docs (the answer to a question about use is the existing way, or "by design").
pub(super) fn leave_out(r: &Reading, out: &mut Vec<Finding>) {
    if r.support.is_none() {
        return;
    }
    // A report that says it worked before is a regression until the maintainer says the change
    // was deliberate: whether HEAD still does it and which version changed it stay asked.
    let before = worked_before(r).is_some();
    out.retain(|f| {
        !NOT_FOR_SUPPORT.contains(&f.topic.as_str()) || (before && f.topic == "first_bad_version")
    });
    if !before && !may_try_on_head(r) {
        out.retain(|f| f.topic != "reproduces_on_head");
    }
    // The existing way found, the question is whether it is enough, not where to write.
    if out.iter().any(|f| f.topic == "existing_way") || !says_docs(&r.item) {
        out.retain(|f| f.topic != "doc_location");
    }
    if !says_docs(&r.item) {
        out.retain(|f| !PAGES.contains(&f.topic.as_str()));
    }
}

/// Whether a reproduction on HEAD may still be wanted of an item that asks for help: it asks
/// the way ("How do I enable it?", not "Is this intended?"), and it is a report (two of its
/// signs, so no usage question) that gives a terminal session or a version the maintainer can
/// try on HEAD. Whether it is meant is answered whatever the version; a way that fails may be a
/// bug of that version.
fn may_try_on_head(r: &Reading) -> bool {
    let Some((_, asked)) = r.support.as_ref() else {
        return false;
    };
    let signs = super::shape::report_signs(&r.item);
    super::shape::asks_how(asked)
        && signs.len() >= 2
        && signs
            .iter()
            .any(|s| matches!(*s, "a terminal session" | "a version"))
}

/// Whether the item speaks of the documentation ("not documented", "the README says …"):
/// only then is a question about use asked where its answer should be written.
fn says_docs(item: &super::item::Item) -> bool {
    [
        "documentation",
        "documented",
        "undocumented",
        "document",
        "docs",
        "doc",
        "readme",
        "manual",
        "man page",
        "manpage",
        "wiki",
    ]
    .iter()
    .any(|w| super::item::has_word(&item.lower, w))
}

/// What says that something worked before ("it used to work", "since upgrading to 3.0", "no
/// longer"): the item reports a change of behaviour, not how to get one.
const WORKED_BEFORE: &[&str] = &[
    "used to",
    "worked in",
    "worked with",
    "worked before",
    "worked fine",
    "was working",
    "no longer",
    "stopped working",
    "since upgrading",
    "since updating",
    "since the update",
    "since the upgrade",
    "after upgrading",
    "after updating",
    "after the update",
    "after the upgrade",
    "broke in",
    "broken since",
    "regressed",
    "a regression",
    "anymore",
];

/// Whether "used to" at `at` of `lower` says a habit ("I was used to `rvm use`", "it is used
/// to set"), not what something did before.
fn accustomed(lower: &str, at: usize) -> bool {
    let before = lower[..at]
        .split_whitespace()
        .next_back()
        .unwrap_or("")
        .trim_matches(|c: char| !c.is_alphanumeric() && c != '\'');
    [
        "was", "am", "i'm", "im", "are", "were", "is", "be", "been", "get", "got", "getting",
    ]
    .contains(&before)
}

/// The item's sentence that says it worked before, and the released version it names there
/// ("It worked in 2.1": `2.1`), if one: a report of a change, whose maintainer decides whether
/// the change was deliberate or a regression.
pub(super) fn worked_before(r: &Reading) -> Option<(u32, Option<String>)> {
    r.item.sentences.iter().find_map(|(n, s)| {
        let lower = s.to_lowercase();
        let says = WORKED_BEFORE.iter().any(|w| {
            lower.match_indices(w).any(|(at, _)| {
                super::item::has_word(&lower[at..], w)
                    && !(*w == "used to" && accustomed(&lower, at))
            })
        });
        if !says {
            return None;
        }
        let version = s
            .split_whitespace()
            .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '.'))
            .map(|w| w.trim_end_matches('.'))
            .find(|w| {
                w.trim_start_matches(['v', 'V'])
                    .starts_with(|c: char| c.is_ascii_digit())
                    && w.contains('.')
                    && super::repo::tag_for(&r.repo.released, w).is_some()
            })
            .map(str::to_string);
        Some((*n, version))
    })
}

/// The item asks for help with what exists ("How do I …?", "Is there an option I'm
/// missing?"): whether what the person sees is intended — and then the way that exists — not
/// supported yet, or a bug. What a maintainer settles first.
pub(super) fn support(r: &Reading) -> Option<Finding> {
    let (line, sentence) = r.support.as_ref()?;
    // Line 0 is the title.
    let place = if *line == 0 {
        "The title".to_string()
    } else {
        format!("Line {line}")
    };
    // Not the item's question for help but its sentence that questions what happens now
    // (`shape::questioned`): it asks nothing of the reader.
    let asks = *line == 0 || super::shape::support_question(&r.item).is_some();
    let before = worked_before(r);
    let ask = |max: usize| {
        let said = super::text::said(sentence, max);
        let opening = if asks {
            format!("{place} asks for help{said}.")
        } else {
            format!("{place} questions what happens now{said}.")
        };
        match (&before, asks) {
            // It worked before: the decision is whether the change since then was meant.
            (Some((n, version)), _) => {
                let who = if n == line {
                    "It".to_string()
                } else {
                    format!("Line {n}")
                };
                let when = version
                    .as_ref()
                    .map(|v| format!(" (in {v})"))
                    .unwrap_or_default();
                format!(
                    "{opening} {who} says it worked before{when}: was the change since then \
                     deliberate (then: which existing way gets the old behaviour), or a \
                     regression to fix?"
                )
            }
            (None, true) => format!(
                "{opening} Is what they see intended (then: which existing option or \
                 documented way gets them what they are after), not supported yet, or a bug?"
            ),
            (None, false) => format!(
                "{opening} Intended (then: which existing option or documented way does what \
                 they want), or a bug?"
            ),
        }
    };
    // The quote is cut, or left out, never the question.
    let question = super::text::first_fitting([120, 60, 50, 40, 30, 20, 0], ask)?;
    let options: &[(&str, &str)] = if before.is_some() {
        &[
            ("A deliberate change: an existing way does it", "intended"),
            ("A regression: fix it", "bug"),
            ("Can't tell without their setup", "need_setup"),
        ]
    } else {
        &[
            ("Intended: an existing way does it", "intended"),
            ("Not supported yet", "not_supported"),
            ("A bug", "bug"),
            ("Can't tell without their setup", "need_setup"),
        ]
    };
    Some(
        Finding::new("support", 9, question)
            .titled("What the person is after")
            .options(options),
    )
}

/// The question: the existing thing first, where it is defined and documented, then whether it
/// is enough for the wish or what it lacks.
pub(super) fn question(r: &Reading) -> Option<Finding> {
    let e = r.existing.as_ref()?;
    if e.def.kind == super::nearest::DefKind::Heading {
        return Some(section(e));
    }
    if let Some(n) = e.used {
        return Some(super::existing::used_question(e, n, &wish_place(e.line)));
    }
    let documented = e
        .documented
        .as_ref()
        .map(|(path, line, heading)| {
            let heading = heading
                .as_ref()
                .map(|h| format!(" \"{}\"", super::text::one_line(h, 30)))
                .unwrap_or_default();
            format!("; {path}:{line}{heading}")
        })
        .unwrap_or_default();
    Some(
        Finding::new(
            "existing_way",
            8,
            format!(
                "{} ({}:{}: \"{}\"{documented}) already exists. Enough for what {} \
                 wants, or what does it lack?",
                e.def.named(),
                e.def.path,
                e.def.line,
                e.doc,
                wish_place(e.line)
            ),
        )
        .titled(format!("The existing {}", e.def.named()))
        .options(&[
            ("Enough: point them to it", "enough"),
            ("It lacks something: extend it", "extend"),
            ("Unrelated to what they want", "unrelated"),
        ]),
    )
}

/// Where the wish is said: "the title" (line 0), else "line N".
fn wish_place(line: u32) -> String {
    if line == 0 {
        "the title".to_string()
    } else {
        format!("line {line}")
    }
}

/// The question naming a documented section (`usage_section.rs`): the section first, where it
/// is, then whether it is the way and the docs should point to it.
fn section(e: &super::existing::Existing) -> Finding {
    let place = wish_place(e.line);
    let heading = super::text::one_line(&e.def.name, 60);
    Finding::new(
        "existing_way",
        8,
        format!(
            "The documentation has a section named by what {place} asks: {}:{}, \"{heading}\". \
             Is that the way (then: should the docs point to it), or what does it lack?",
            e.def.path, e.def.line
        ),
    )
    .titled(format!("The existing section \"{heading}\""))
    .options(&[
        ("It is the way: point them to it", "enough"),
        ("It lacks something: extend it", "extend"),
        ("Unrelated to what they want", "unrelated"),
    ])
}
