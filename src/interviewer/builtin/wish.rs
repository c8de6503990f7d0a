//! A user's wish for a capability ("it would be nice if …", `[FEATURE] …`, "X support?"): the
//! wish shows what should happen, and what its maintainers settle first is whether the project
//! already gives it another way, wants it, welcomes it as a contribution, or leaves it out —
//! never acceptance criteria or error handling the wish leaves to them.

use super::Finding;
use super::item::has_word;
use super::reading::Reading;

/// The reporter's words that wish for something the project does not do (as they see it).
const WISHES: &[&str] = &[
    "would be nice",
    "would be great",
    "would be useful",
    "would be helpful",
    "would be cool",
    "would be awesome",
    "it'd be nice",
    "it'd be great",
    "would love",
    "i'd love",
    "i'd like",
    "i would like",
    "we'd like",
    "we would like",
    "i want to be able",
    "as a user, i want",
    "as a developer, i want",
    "it should be possible",
    "should be able to",
    "what about adding",
    "how about adding",
    "please add",
    "please support",
    "feature request",
    "solution you'd like",
    "solution you would like",
    // Asked as a question ("any chance we could add subcommands?", "Would it be possible to
    // …?", "Are there plans to …?"), or put forward ("I suggest …", "Consider adding …").
    "any chance",
    "could you add",
    "could we add",
    "can you add",
    "can we add",
    "could you support",
    "could we support",
    "could you make",
    "would it be possible",
    "is it possible to add",
    "are there plans",
    "are there any plans",
    "any plans to",
    "consider adding",
    "consider supporting",
    "i suggest",
    "i would suggest",
    "i'd suggest",
    "i propose",
    "would help",
    "would be handy",
];

/// A title that asks for a capability: `[FEATURE] …`, "Feature: …", "Request: …", "Literal
/// type support", "Python 3 support?", "Support for …".
fn wishing_title(title: &str) -> bool {
    let t = title.trim().to_lowercase();
    let t = t.trim_end_matches(['?', '.', '!', ')', ' ']);
    [
        "[feature",
        "feature:",
        "feature request",
        "request:",
        "[request",
    ]
    .iter()
    .any(|p| t.starts_with(p))
        || t.ends_with(" support")
        || t.starts_with("support for ")
        || has_word(t, "support for")
}

/// Where the item wishes: the first sentence of the reporter's own words with a wish, its line
/// (not one that ends in a colon);
/// else the title (line 0) when the title asks for the capability. None: no wish.
pub(super) fn wish(r: &Reading) -> Option<(u32, String)> {
    // A sentence that ends in a colon ("I would suggest:") puts its wish in what follows:
    // quoted, it says nothing of what is wished.
    let said = r.item.sentences.iter().find(|(_, s)| {
        let own = super::item::own_words(s);
        let lower = own.to_lowercase();
        WISHES.iter().any(|w| has_word(&lower, w)) && !own.trim_end().ends_with(':')
    });
    if let Some((n, s)) = said {
        return Some((*n, from_the_wish(s)));
    }
    wishing_title(&r.facts.title).then(|| (0, r.facts.title.clone()))
}

/// What a feature request is asked first: whether the project wants what it asks for, quoting
/// the sentence that wishes (`wanted`), else its title (`title_wanted`). Asked beside the
/// questions about the code the item names too (`grounded`): those say how, this whether (a
/// wish asked only about the code it names was never asked whether it is wanted). Not when a
/// question asks for help (`support` asks whether it is already possible), nor when one asks
/// whether a flag the item names already does it (`settled`), nor of a title when the item
/// states its acceptance criteria (`stated`) or what the project has that gives it is asked.
/// Beside grounded questions, a title is asked about only when it asks (a verb of request
/// first: "Offer …", "Expose …") or tells what goes wrong.
pub(super) fn ask(r: &Reading, grounded: bool, settled: bool, stated: bool) -> Option<Finding> {
    if r.support.is_some() || settled {
        return None;
    }
    if let Some(f) = wanted(r) {
        return Some(f);
    }
    let title = r.facts.title.as_str();
    let asks = !grounded || requesting_title(title) || fault_title(title);
    (!stated && r.existing.is_none() && asks)
        .then(|| title_wanted(r))
        .flatten()
}

/// Whether a title opens with a verb of request ("Add …", "Offer …", "Allow …").
fn requesting_title(title: &str) -> bool {
    let lower = title.trim().to_lowercase();
    let first = lower.split_whitespace().next().unwrap_or("");
    REQUESTS.contains(&first.trim_matches(|c: char| !c.is_alphanumeric()))
}

/// A sentence whose wish comes late and opens its clause ("Since it appears it will not be a
/// goal, I suggest adding an index …"), from the wish ("…I suggest adding an index …"): quoted
/// from its start, the cut would leave the wish out.
fn from_the_wish(sentence: &str) -> String {
    let flat = sentence.split_whitespace().collect::<Vec<_>>().join(" ");
    let lower = flat.to_lowercase();
    let at = WISHES
        .iter()
        .filter(|w| has_word(&lower, w))
        .filter_map(|w| lower.find(w))
        .min();
    // Only where the wish opens its clause ("…, I suggest …"): one said of what comes before it
    // ("Support for X (…, or Y) would be nice") needs what comes before.
    let opens = |at: usize| {
        flat[..at]
            .rfind([',', ';'])
            .is_some_and(|c| flat[c + 1..at].trim().is_empty())
    };
    match at {
        Some(at) if lower.len() == flat.len() && flat[..at].chars().count() > 40 && opens(at) => {
            format!("…{}", &flat[at..])
        }
        _ => sentence.to_string(),
    }
}

/// "Line 3 wishes: "…". Already possible another way …, wanted, a contribution, or out of
/// scope?" — what a maintainer answers a wish with first.
pub(super) fn wanted(r: &Reading) -> Option<Finding> {
    let (line, sentence) = wish(r)?;
    let verb = "wishes";
    asked_wanted(line, &sentence, verb)
}

/// A feature request that wishes in no sentence ("Fail early when the configuration has
/// unknown entries"): its title says the capability, and what its maintainers decide first is
/// still whether the project wants it, or has it another way — not when it is done (every
/// tune and pool round that asked "What must be true for it to count as done?" scored 2).
/// Not of the project's own work item, which says the project has decided it ("We need an
/// archive of old reports."): there, what must be true for it to count as done is the question.
pub(super) fn title_wanted(r: &Reading) -> Option<Finding> {
    let title = r.facts.title.trim();
    // A title of one word says no capability to ask about.
    if title.split_whitespace().count() < 2 || decided(r) {
        return None;
    }
    // A title that tells what goes wrong asks for nothing: quoted back as a wish, it is the
    // reporter's own words (every such tune and pool round scored 2). Whether it is meant is the
    // decision it leaves open.
    if fault_title(title) {
        return Some(title_fault(title));
    }
    // A title that asks whether the project can do something ("Are multiple flags
    // supported?"), quoted back, is the item's own question, often asked again in its body (the
    // open point quotes that): what is left open is the answer, so it is asked without the quote.
    if title.ends_with('?') {
        let again = r.item.open_points().first().map(|(n, _)| *n);
        return Some(asked_title_question(again));
    }
    asked_wanted(0, title, "asks for")
}

/// "The title asks, as line 3 does, whether the project does this: already possible another
/// way, wanted in the project, or out of scope?" — the decision the question leaves open.
fn asked_title_question(again: Option<u32>) -> Finding {
    let as_line = again
        .map(|n| format!(", as line {n} does,"))
        .unwrap_or_default();
    wanted_finding(format!(
        "The title asks{as_line} whether the project does this. Already possible another way \
         (which existing option or documented way), wanted in the project, or out of scope?"
    ))
}

/// The words of a title that tell what goes wrong now: a negated verb, a failure, or an
/// effect that a behaviour has ("… causes the option to always be boolean", "Boolean option
/// consumes the next argument", "defaults don't respect undefined"). A verb said of the title's
/// subject, never an adjective alone: "Fail early on incorrect entries" asks for something.
const FAULT: &[&str] = &[
    "cannot",
    "is not",
    "are not",
    "does not",
    "do not",
    "did not",
    "was not",
    "were not",
    "no longer",
    "fails",
    "is wrong",
    "are wrong",
    "is broken",
    "are broken",
    "is incorrect",
    "are incorrect",
    "causes",
    "consumes",
    "swallows",
    "ignores",
    "overrides",
    "overwrites",
    "breaks",
    "crashes",
    "hangs",
    "panics",
    "truncates",
    "loses",
    "duplicates",
];

/// The first words of a title that asks for something ("Add …", "Allow …", "Support …").
const REQUESTS: &[&str] = &[
    "add",
    "allow",
    "support",
    "provide",
    "make",
    "let",
    "enable",
    "use",
    "implement",
    "create",
    "introduce",
    "expose",
    "accept",
    "show",
    "print",
    "option",
    "feature",
    "offer",
    "give",
    "include",
];

/// Whether a title tells what goes wrong now rather than what is wished ("Boolean option
/// consumes next positional parameter", "Vector isn't filled during parsing"): one of
/// [`FAULT`]'s words, in a title that neither opens with a request nor asks a question.
pub(super) fn fault_title(title: &str) -> bool {
    let lower = title.trim().to_lowercase().replace('\u{2019}', "'");
    let first = lower.split_whitespace().next().unwrap_or("");
    let first = first.trim_matches(|c: char| !c.is_alphanumeric());
    if lower.ends_with('?') || REQUESTS.contains(&first) {
        return false;
    }
    lower.contains("n't ") || lower.ends_with("n't") || FAULT.iter().any(|w| has_word(&lower, w))
}

/// "The title tells what happens now: "…". Intended (then: the existing way), or a bug?" — the
/// decision a report of a behaviour leaves open, before what a fix would be.
fn title_fault(title: &str) -> Finding {
    let ask = |max: usize| {
        let said = super::text::said(title, max);
        format!(
            "The title tells what happens now{said}. Intended (then: which existing option or \
             documented way does what they want), or a bug to fix?"
        )
    };
    let question = super::text::first_fitting([80, 60, 40, 20, 0], ask).unwrap_or_else(|| ask(0));
    Finding::new("title_fault", 8, question)
        .titled("Intended, or a bug?")
        .options(&[
            ("Intended: an existing way does it", "intended"),
            ("A bug: fix it", "bug"),
            ("Can't tell without their setup", "need_setup"),
        ])
}

/// The project's own voice deciding the work: "we need", "we should", "we must", "we have to",
/// "we want", "we will"; or a sentence of its prose (not a list's item) that tells what to build
/// ("Add an export so they can download it.").
fn decided(r: &Reading) -> bool {
    let lower = r.item.prose.to_lowercase();
    let we = [
        "we need",
        "we should",
        "we must",
        "we have to",
        "we want",
        "we will",
        "we'll",
    ]
    .iter()
    .any(|w| has_word(&lower, w));
    let listed = |n: u32| r.item.list_items.iter().any(|(l, _)| *l == n);
    let told = r.item.sentences.iter().any(|(n, s)| {
        let first = s.split_whitespace().next().unwrap_or("");
        !listed(*n)
            && [
                "Add",
                "Implement",
                "Create",
                "Build",
                "Provide",
                "Introduce",
            ]
            .contains(&first)
    });
    we || told
}

fn asked_wanted(line: u32, sentence: &str, verb: &str) -> Option<Finding> {
    let place = if line == 0 {
        "The title".to_string()
    } else {
        format!("Line {line}")
    };
    let ask = |max: usize| {
        let quote = super::text::one_line(sentence, max);
        let quote = quote.strip_suffix('.').unwrap_or(&quote);
        format!(
            "{place} {verb}: \"{quote}\". Already possible another way (an existing option or \
             documented way), wanted in the project, or out of scope?"
        )
    };
    let question = super::text::first_fitting([80, 60, 50, 40, 30, 20], ask)?;
    Some(wanted_finding(question))
}

/// The wish question with its options.
fn wanted_finding(question: String) -> Finding {
    Finding::new("wanted", 8, question)
        .titled("Already possible, or wanted?")
        .options(&[
            (
                "Already possible: point them to the existing way",
                "already_possible",
            ),
            ("Wanted: add it", "wanted"),
            ("Welcome as a contribution", "contribution"),
            ("Out of scope for the project", "out_of_scope"),
        ])
}
