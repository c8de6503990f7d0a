//! What kind of work item this is — bug, feature, refactor, dependency change, docs or
//! performance — from its title, its template's headings and its wording, with the cue that
//! decided it.

use super::cues::{CUES, Cue, Place};
use super::item::{Item, has_word};
use super::kind::{Classification, ItemKind, ORDER};

/// A title's bracketed prefix (`[tool error]: …`, `[Feature Request] …`) read as a kind.
fn bracket_kind(title: &str) -> Option<(ItemKind, String)> {
    let inner = title.strip_prefix('[')?.split(']').next()?;
    let kind = if ["bug", "error", "crash", "regression", "panic", "broken"]
        .iter()
        .any(|w| has_word(inner, w))
    {
        ItemKind::Bug
    } else if [
        "feature",
        "feat",
        "enhancement",
        "request",
        "proposal",
        "rfc",
    ]
    .iter()
    .any(|w| has_word(inner, w))
    {
        ItemKind::Feature
    } else if ["docs", "doc", "documentation"]
        .iter()
        .any(|w| has_word(inner, w))
    {
        ItemKind::Docs
    } else if ["perf", "performance"].iter().any(|w| has_word(inner, w)) {
        ItemKind::Performance
    } else if ["refactor", "cleanup", "chore"]
        .iter()
        .any(|w| has_word(inner, w))
    {
        ItemKind::Refactor
    } else {
        return None;
    };
    Some((kind, format!("the title starts with \"[{inner}]\"")))
}

/// A sentence that swaps one thing for another ("use X in place of Y", "remove Y … rely on X
/// instead"): a change of structure, not a new feature.
fn replacement(prose: &str) -> Option<String> {
    prose
        .split(['.', '\n', '!', '?'])
        .find(|s| {
            let uses = [
                "use ",
                "using ",
                "switch to",
                "move to",
                "migrate to",
                "replace ",
            ]
            .iter()
            .any(|w| s.contains(w));
            let swaps = ["in place of", "instead of", "in favor of", "in favour of"]
                .iter()
                .any(|w| s.contains(w));
            let removes = ["remove ", "drop ", "delete ", "get rid of", "stop using"]
                .iter()
                .any(|w| s.contains(w));
            let relies = [
                "instead",
                "rely on",
                "relies on",
                "in favor of",
                "in favour of",
            ]
            .iter()
            .any(|w| s.contains(w));
            // Using an environment variable or a setting in place of a fixed choice is new
            // behaviour a user sees ("use the `PAGER` environment variable instead of less").
            let setting = [
                "environment variable",
                "env var",
                "config file",
                "configuration",
                "setting",
            ]
            .iter()
            .any(|w| s.contains(w));
            ((uses && swaps) || (removes && relies)) && !setting
        })
        .map(|s| {
            format!(
                "it asks to use one thing in place of another (\"{}\")",
                super::text::one_line(s.trim(), 80)
            )
        })
}

/// The cues found for each kind: their summed weight and the strongest, for the document.
#[derive(Default)]
struct Tally {
    scores: [u32; 6],
    best_cue: [Option<(u32, String)>; 6],
    /// A question about how to use what exists: no kind of its own, the kind only when no
    /// other kind's cues agree.
    usage: Option<String>,
    usage_in_title: bool,
}

impl Tally {
    fn add(&mut self, kind: ItemKind, weight: u32, said: String) {
        let i = ORDER.iter().position(|k| *k == kind).unwrap_or(5);
        self.scores[i] += weight;
        if self.best_cue[i].as_ref().is_none_or(|(w, _)| *w < weight) {
            self.best_cue[i] = Some((weight, said));
        }
    }

    /// The kind with the highest score (Feature, the default, unless wording agreed twice),
    /// and a second kind with strong cues close behind.
    fn decide(mut self) -> Classification {
        let mut ranked: Vec<(usize, u32)> = self.scores.iter().copied().enumerate().collect();
        // Highest score first; ties keep the order of ORDER (Feature last).
        ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let (i, top) = ranked[0];
        // A question about use, no other kind's cues agreeing: read as one, asked as support.
        // A title asking how to use what exists is the item's question: only a strong cue (a
        // template, a bracket, two wishes or several agreeing) gives another kind then.
        let bar = if self.usage_in_title { 5 } else { 2 };
        if let Some(usage) = self.usage.take().filter(|_| top < bar) {
            return Classification {
                kind: ItemKind::Docs,
                cue: usage,
                runner_up: None,
                usage: true,
            };
        }
        // Wording alone (weight-1 cues) must agree at least twice to beat the default.
        let (i, top) = if top < 2 { (5, 0) } else { (i, top) };
        let cue = if top == 0 {
            "no cue for another kind".to_string()
        } else {
            self.best_cue[i].take().map(|(_, c)| c).unwrap_or_default()
        };
        // Strong cues for a second kind, close behind: unsure.
        let runner_up = ranked
            .iter()
            .find(|(j, _)| *j != i)
            .filter(|(_, s)| *s >= 5 && 2 * s >= top)
            .and_then(|(j, _)| Some((ORDER[*j], self.best_cue[*j].take()?.1)));
        Classification {
            kind: ORDER[i],
            cue,
            runner_up,
            usage: false,
        }
    }
}

/// Classify an item by its title, its template's headings and fields, its prose (code blocks
/// left out), its code blocks' traces and its shape (`shape`). When two kinds both have strong
/// cues, the runner-up is kept: the interviewer asks the kind first rather than guess.
pub(super) fn classify(title: &str, item: &Item) -> Classification {
    let mut tally = Tally::default();
    // A shell's "here document" is no document of the project's.
    let title = title
        .trim()
        .to_lowercase()
        .replace("here document", "heredoc")
        .replace("here-document", "heredoc");
    if let Some((kind, said)) = bracket_kind(&title) {
        tally.add(kind, 6, said);
    }
    // A title asking what a message means asks about something that happened: a report, or a
    // request for help with one, never a request for something new.
    if super::outcome::asks_meaning(&format!("{}?", title.trim_end_matches('?'))) {
        tally.add(
            ItemKind::Bug,
            6,
            "the title asks what a message means".to_string(),
        );
    }
    if let Some((kind, said)) = super::shape::template_answer(item) {
        tally.add(kind, 6, said);
    }
    // The signs of a report are weak alone: two must agree, and together they weigh less
    // than a title that asks for something new.
    let signs = super::shape::report_signs(item);
    if signs.len() >= 2 {
        let weight = if signs.len() >= 4 { 5 } else { 4 };
        tally.add(
            ItemKind::Bug,
            weight,
            format!("it reads as a report ({})", signs.join(", ")),
        );
    }
    stack_trace(item, &mut tally);
    // A wish for something new, in the reporter's own words; two agreeing outweigh the signs
    // of a report that only tells why.
    let wishes = super::outcome::wishes(item);
    if let Some(first) = wishes.first() {
        let weight = if wishes.len() >= 2 { 5 } else { 4 };
        tally.add(
            ItemKind::Feature,
            weight,
            format!("it wishes for something new (\"{first}\")"),
        );
    }
    support(&title, item, &mut tally);
    if let Some(said) = replacement(&item.lower) {
        tally.add(ItemKind::Refactor, 5, said);
    }
    let code = item.code_lower();
    // A word of the title ("incorrect entries") is no report against a body that proposes
    // something and shows no sign of one: the word names what the change is about.
    let would = tells_what_it_would_do(item);
    let proposes = signs.is_empty() && (!wishes.is_empty() || would.is_some());
    if let Some(said) = would.filter(|_| proposes && wishes.is_empty()) {
        tally.add(
            ItemKind::Feature,
            2,
            format!(
                "it proposes something (\"{}\")",
                super::text::one_line(said.trim(), 60)
            ),
        );
    }
    for cue in CUES {
        if proposes && cue.kind == ItemKind::Bug && cue.place == Place::Title {
            continue;
        }
        cue_hits(cue, (&title, &code), item, &mut tally);
    }
    tally.decide()
}

/// A stack trace, in any language: what a program printed as it failed, a bug's sign.
fn stack_trace(item: &Item, tally: &mut Tally) {
    if let Some(frame) = super::trace::frame(item) {
        tally.add(
            ItemKind::Bug,
            4,
            format!(
                "it quotes a stack trace (\"{}\")",
                super::text::one_line(frame, 60)
            ),
        );
    }
}

/// A question about how to use what exists ("How to …?", "do I use X or Y?", in the body or
/// the title), in no report: support, layered on the kind the other cues give (a performance
/// report asking how to go faster stays one); read as a question about use only when no other
/// kind's cues agree, never as a documentation change.
fn support(title: &str, item: &Item, tally: &mut Tally) {
    let body = super::shape::support_question(item).map(|(_, s)| s);
    let asked = body.or_else(|| super::shape::title_support(title));
    tally.usage_in_title = body.is_none();
    if let Some(asked) = asked.filter(|a| super::shape::asks_how_to_use(item, a)) {
        tally.usage = Some(format!("it asks \"{}\"", super::text::one_line(asked, 60)));
    }
}

/// Whether the item tells what a change would do ("This would have caught …", "users would be
/// told"): a proposal's benefit, not what happened. "I would expect …" is a report's.
fn tells_what_it_would_do<'i>(item: &'i Item) -> Option<&'i str> {
    item.sentences.iter().map(|(_, s)| s.as_str()).find(|s| {
        let s = s.to_lowercase();
        has_word(&s, "would")
            && ![
                "would expect",
                "would have expected",
                "would've expected",
                "would like",
            ]
            .iter()
            .any(|e| s.contains(e))
    })
}

/// Where `cue` is found in the item (its lower-case title and code blocks beside it), added
/// to `tally`.
fn cue_hits(cue: &Cue, (title, code): (&str, &str), item: &Item, tally: &mut Tally) {
    // A template's fields count once, however many it has; a heading counts once per cue
    // ("steps to reproduce" is not also "to reproduce").
    let mut field_hit = false;
    let mut headings_hit: Vec<usize> = Vec::new();
    for term in cue.terms {
        let (hit, said) = match cue.place {
            Place::TitleStart => (
                title.starts_with(term)
                    && title[term.len()..]
                        .chars()
                        .next()
                        .is_none_or(|c| !c.is_alphanumeric()),
                format!("the title starts with \"{term}\""),
            ),
            Place::Title => (has_word(title, term), format!("the title says \"{term}\"")),
            Place::Heading => {
                let at = item
                    .headings
                    .iter()
                    .enumerate()
                    .find(|(i, h)| !headings_hit.contains(i) && has_word(h, term))
                    .map(|(i, _)| i);
                headings_hit.extend(at);
                (at.is_some(), format!("it has a \"{term}\" section"))
            }
            Place::Field => (
                !field_hit && item.fields.iter().any(|f| f == term),
                format!("it gives the \"{term}\" a bug report's template asks for"),
            ),
            Place::Code => (
                code.contains(term),
                format!("it quotes a trace (\"{term}\")"),
            ),
            Place::Text => (has_word(&item.prose, term), format!("it says \"{term}\"")),
        };
        if hit {
            field_hit |= cue.place == Place::Field;
            tally.add(cue.kind, cue.weight, said);
        }
    }
}

/// A dependency change needs a dependency: an item that names no package the manifests or
/// lockfiles have (`names_package`), and links none, swaps code of its own (a deprecated
/// standard API for its successor) — a refactor.
pub(super) fn without_package(
    class: Classification,
    names_package: bool,
    item: &Item,
) -> Classification {
    let linked = item.lines.iter().any(|(_, l)| {
        [
            "crates.io/crates/",
            "npmjs.com/package/",
            "pypi.org/project/",
        ]
        .iter()
        .any(|m| l.contains(m))
    });
    if class.kind != ItemKind::Dependency || names_package || linked {
        return class;
    }
    Classification {
        kind: ItemKind::Refactor,
        cue: format!(
            "{}, but it names no package the manifests or lockfiles have: a change of the code \
             itself",
            class.cue
        ),
        runner_up: None,
        usage: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(title: &str, headings: &[&str], text: &str) -> ItemKind {
        let mut body: String = headings.iter().map(|h| format!("## {h}\n\n")).collect();
        body.push_str(text);
        classify(title, &Item::new(&body)).kind
    }

    #[test]
    fn kinds_follow_title_template_and_wording() {
        assert_eq!(kind("fix: crash on empty input", &[], ""), ItemKind::Bug);
        assert_eq!(
            kind(
                "Output is garbled",
                &["steps to reproduce", "expected behavior"],
                ""
            ),
            ItemKind::Bug
        );
        assert_eq!(
            kind("RUSTSEC-2021-0139: ansi_term is unmaintained", &[], ""),
            ItemKind::Dependency
        );
        assert_eq!(
            kind("refactor: split the session module", &[], ""),
            ItemKind::Refactor
        );
        assert_eq!(
            kind("`status` is slow on big repos", &[], ""),
            ItemKind::Performance
        );
        assert_eq!(
            kind("docs: explain the answers file", &[], ""),
            ItemKind::Docs
        );
        assert_eq!(kind("Add a --json flag", &[], ""), ItemKind::Feature);
        // A template's own answer, and the signs of a report when two agree.
        assert_eq!(
            kind(
                "ProgressBar after clear",
                &[],
                "| Q | A\n| --- | ---\n| Bug report? | yes\n| Feature request? | no\n"
            ),
            ItemKind::Bug
        );
        assert_eq!(
            kind(
                "shims not being created",
                &[],
                "I have tried:\n\n```\n$ tool rehash\n```\n"
            ),
            ItemKind::Bug
        );
        // A crash told in prose under a plain title: a failure said and an exit code, or an
        // exception's name, agree; a feature that names the error it would raise does not.
        assert_eq!(
            kind(
                "Watching two folders at once",
                &[],
                "Running `tool watch a b` crashes with exit code 139.\n"
            ),
            ItemKind::Bug
        );
        assert_eq!(
            kind(
                "Reading a file whose name has spaces",
                &[],
                "It failed with FileNotFoundException.\n"
            ),
            ItemKind::Bug
        );
        assert_eq!(
            kind(
                "Add a strict mode",
                &[],
                "It should raise a ValidationError on unknown keys.\n"
            ),
            ItemKind::Feature
        );
        // Without a template, a report from its structure: a crash after a shown command, a
        // quoted message beside the command line, "does nothing" told with a version; a title
        // asking what a message means.
        assert_eq!(
            kind(
                "Formatting my project",
                &[],
                "I ran:\n\n```\ntool --indent 2 .\nRunning tool...\nIllegal instruction: 4\n```\n"
            ),
            ItemKind::Bug
        );
        assert_eq!(
            kind(
                "--range with two values",
                &[],
                "My command:\n\n```\ntool a.txt --range 1,2\n```\n\nIt prints `error: Unsupported --range value '1,2'`.\n"
            ),
            ItemKind::Bug
        );
        assert_eq!(
            kind(
                "`tool local 3.8` on a fresh checkout",
                &[],
                "When I run `tool local 3.8` nothing happens. tool 1.2 on macOS.\n"
            ),
            ItemKind::Bug
        );
        assert_eq!(
            kind("What `Illegal instruction: 4` means?", &[], ""),
            ItemKind::Bug
        );
        // A request that mentions an error only to say why stays a request.
        assert_eq!(
            kind(
                "Sort results by modification time",
                &[],
                "I'd like the newest first. When I run `tool -e md` I get walk order, and \
                 `xargs ls -t` fails with `xargs: unterminated quote`. It would be great to \
                 have a `--sort` option. tool 7.0 on Ubuntu.\n"
            ),
            ItemKind::Feature
        );
        assert_eq!(
            kind(
                "Theme per file type",
                &[],
                "My config file has:\n\n```\n--theme=dark\n```\n\nI would like a theme \
                 per type: `tool --theme=a:md x` says `error: unknown theme 'a:md'`.\n"
            ),
            ItemKind::Feature
        );
        assert_eq!(
            kind("Output differs with a here document", &[], ""),
            ItemKind::Feature
        );
        assert_eq!(
            kind("Export to CSV", &[], "people copy it by hand"),
            ItemKind::Feature
        );
    }

    #[test]
    fn kinds_from_structure_several_cues_agreeing() {
        // What happens now, questioned, beside an exit code or a linter's diagnostic: a bug.
        assert_eq!(
            kind(
                "exit status of an unknown flag",
                &[],
                "currently an unknown command exits with exit code 3; an unknown flag with 0?\n"
            ),
            ItemKind::Bug
        );
        assert_eq!(
            kind(
                "SC1000: too eager?",
                &[],
                "```\necho '$HOME'\n     ^-- SC1000: no expansion in single quotes.\n```\n\n\
                 I don't think it should warn here.\n"
            ),
            ItemKind::Bug
        );
        // Questioned alone, without a second sign, it is not.
        assert_eq!(
            kind("Colours", &[], "For some reason the output is plain.\n"),
            ItemKind::Feature
        );
        // A word of the title against a body that proposes: a feature; with no proposal, the
        // word still decides.
        assert_eq!(
            kind(
                "Fail early on incorrect entries",
                &[],
                "This would have caught the typo early.\n"
            ),
            ItemKind::Feature
        );
        assert_eq!(
            kind("Paging doesn't work", &[], "Paging is off.\n"),
            ItemKind::Bug
        );
        // How to use what exists: support, read as documentation; whether a way exists is not.
        assert_eq!(
            kind(
                "Global or local",
                &[],
                "For all my shells, do I use global or local?\n"
            ),
            ItemKind::Docs
        );
        // A question about use is no kind of its own: the other cues' kind stands (a wish:
        // a feature; timings: performance work); alone, it is read as a question about use.
        assert_eq!(
            kind(
                "Set a default for a variable",
                &[],
                "How do I set one? I would like one.\n"
            ),
            ItemKind::Feature
        );
        assert_eq!(
            kind(
                "Searching a large tree is too slow",
                &[],
                "The benchmark takes 9 s against 2 s for grep. How can I make it faster?\n"
            ),
            ItemKind::Performance
        );
        let usage = classify(
            "Global or local",
            &Item::new("For all my shells, do I use global or local?\n"),
        );
        assert!(usage.usage && usage.described().starts_with("question about how to use"));
        assert_eq!(
            kind(
                "Hidden commands",
                &[],
                "Is it possible to hide a command from help?\n"
            ),
            ItemKind::Feature
        );
    }
}
