//! What a report shows of what happened, beside a template: the program dying (a crash the
//! system or runtime names), a message the program printed quoted as such, a command line the
//! reporter ran, what came of it told ("does nothing", "when I run … I get …"), a platform,
//! the reporter's own configuration quoted, and a question about what a message means. Each is
//! weak alone; `shape::report_signs` counts them with the others.
//!
//! Not for: weighing the signs (`classify`) or the questions they lead to (`bank`).

use super::item::{Item, has_word};

/// The system's or a runtime's words for a program that died rather than reported.
const CRASHED: &[&str] = &[
    "illegal instruction",
    "segmentation fault",
    "bus error",
    "abort trap",
    "core dumped",
    "stack overflow",
    "fatal error:",
    "killed: 9",
];

/// The program dying, as the system or runtime says it, in the item's code or quoted prose.
pub(super) fn crash_shown(item: &Item) -> bool {
    let code = item.code_lower();
    CRASHED
        .iter()
        .any(|t| code.contains(t) || item.lower.contains(t))
}

/// How a program's own complaint reads: its prefix, or the phrases messages are made of.
const COMPLAINT_START: &[&str] = &["error:", "error ", "fatal:", "warning:", "e: ", "err!"];
const COMPLAINT: &[&str] = &[
    " is not a ",
    " is not an ",
    "unknown option",
    "unknown flag",
    "unknown argument",
    "unknown command",
    "unrecognized",
    "unrecognised",
    "not recognized",
    "invalid ",
    "unsupported ",
    "does not exist",
    "doesn't exist",
    "not found",
    "wasn't expected",
    "was not expected",
    "unexpected ",
    "cannot ",
    "can't ",
    "failed to ",
    "expects a value",
];

/// Whether `text` (a code span, a quotation or a line of output) reads as a program's message.
pub(super) fn complaint(text: &str) -> bool {
    let lower = text.trim().to_lowercase();
    lower.split_whitespace().count() >= 2
        && (COMPLAINT_START.iter().any(|s| lower.starts_with(s))
            || COMPLAINT.iter().any(|s| lower.contains(s)))
}

/// The item's code spans and double-quoted passages of its prose, each with the prose before
/// it on its line (lower case).
fn quoted<'a>(item: &Item<'a>) -> Vec<(String, &'a str)> {
    let mut out = Vec::new();
    for (_, line) in &item.lines {
        for open in ['`', '"'] {
            let mut parts = line.split(open);
            let mut before = parts.next().unwrap_or("").to_lowercase();
            let parts: Vec<&str> = parts.collect();
            for pair in parts.chunks(2) {
                if let [inside, after] = pair {
                    out.push((before.clone(), *inside));
                    before = after.to_lowercase();
                }
            }
        }
    }
    out
}

/// A message the program printed, quoted: a code span, a quotation or a line of a code block
/// that reads as one (`error: …`, "'x' is not a …", "unknown option …").
pub(super) fn message_quoted(item: &Item) -> bool {
    quoted(item).iter().any(|(_, q)| complaint(q))
        || item
            .all
            .iter()
            .any(|(_, l, code)| *code && complaint(l) && !l.contains(['(', ';', '{', '=']))
}

/// Whether `text` reads as a command line: a program's name (lower case, no punctuation but
/// `-`, `_`, `.`) and then a flag (`-x`, `--long`).
fn command_line(text: &str) -> bool {
    let mut words = text.split_whitespace();
    let program = words.next().unwrap_or("");
    let named = !program.is_empty()
        && program
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_lowercase())
        && program.chars().all(|c| {
            c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '_' | '.' | '/')
        });
    named
        && words.any(|w| {
            w.strip_prefix('-').is_some_and(|f| {
                f.chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == '-')
            })
        })
}

/// The words before a code span that say it was run.
pub(super) const RAN: &[&str] = &[
    "run",
    "ran",
    "running",
    "type",
    "typed",
    "execute",
    "executing",
];

/// A command the reporter ran, shown: a code block line or a code span that reads as a command
/// line, or a code span the prose says was run ("when I run `tool local 3.8`").
pub(super) fn command_shown(item: &Item) -> bool {
    item.all
        .iter()
        .any(|(_, l, code)| *code && command_line(l.trim()))
        || quoted(item).iter().any(|(before, q)| {
            command_line(q)
                || before
                    .trim_end()
                    .rsplit(|c: char| !c.is_alphanumeric())
                    .next()
                    .is_some_and(|w| RAN.contains(&w))
        })
}

/// What came of it, told in the reporter's words.
const CAME_OF_IT: &[&str] = &[
    "does nothing",
    "did nothing",
    "do nothing",
    "nothing happens",
    "nothing happened",
    "is ignored",
    "are ignored",
    "gets ignored",
    "get ignored",
    "was ignored",
    "were ignored",
    "has no effect",
    "had no effect",
    "have no effect",
];
/// Saying what was run, and what came of it ("when I run … I get …").
const WHEN_RUN: &[&str] = &[
    "when i run",
    "when running",
    "after running",
    "if i run",
    "when i call",
    "when i use",
];
const I_GET: &[&str] = &[
    "i get",
    "i got",
    "it prints",
    "it printed",
    "it says",
    "it said",
    "it outputs",
    "it shows",
    "it exits",
    "and exits",
    "i see",
];

/// What came of running it, told: "does nothing", "is ignored", "when I run … I get …".
pub(super) fn outcome_told(item: &Item) -> bool {
    let p = &item.prose;
    CAME_OF_IT.iter().any(|t| has_word(p, t))
        || (WHEN_RUN.iter().any(|t| p.contains(t)) && I_GET.iter().any(|t| has_word(p, t)))
}

/// An operating system named.
const PLATFORMS: &[&str] = &[
    "macos",
    "mac os",
    "os x",
    "osx",
    "windows",
    "linux",
    "ubuntu",
    "debian",
    "fedora",
    "centos",
    "arch linux",
    "freebsd",
    "wsl",
    "alpine",
];

/// A platform named in the prose (a report says where it ran).
pub(super) fn platform_named(item: &Item) -> bool {
    PLATFORMS.iter().any(|t| has_word(&item.lower, t))
}

/// The reporter's own configuration quoted: "my config …" beside a code block.
pub(super) fn configuration_quoted(item: &Item) -> bool {
    let shows = item.all.iter().any(|(_, _, code)| *code);
    shows
        && [
            "my config",
            "my configuration",
            "my settings",
            "our config",
            "config file has",
            "config file contains",
            "my .",
            "my `.",
        ]
        .iter()
        .any(|t| item.lower.contains(t))
}

/// Whether `sentence` asks what a message means ("What does `Illegal instruction` mean?",
/// "What `x` means?"): it asks "what", says "mean", and quotes something that is no option.
pub(super) fn asks_meaning(sentence: &str) -> bool {
    let lower = sentence.to_lowercase();
    let asks = lower.trim_end().ends_with('?')
        && has_word(&lower, "what")
        && ["mean", "means", "meaning"]
            .iter()
            .any(|w| has_word(&lower, w));
    let quotes_message = sentence
        .split(['`', '"'])
        .skip(1)
        .step_by(2)
        .any(|q| !q.trim_start().starts_with('-') && (q.contains([' ', ':']) || complaint(q)));
    asks && (quotes_message || complaint(sentence))
}

/// Whether `sentence` asks what a message means, the message quoted or referred to ("What does
/// that mean?").
pub(super) fn asks_of_message(sentence: &str) -> bool {
    let l = sentence.to_lowercase();
    asks_meaning(sentence)
        || (l.starts_with("what does") && has_word(&l, "mean") && l.trim_end().ends_with('?'))
}

/// A sentence of the prose asking what a message means, or the item asking "what does that
/// mean?" of a message it quotes.
pub(super) fn meaning_asked(item: &Item) -> bool {
    item.sentences.iter().any(|(_, s)| asks_meaning(s))
        || (message_quoted(item) && item.sentences.iter().any(|(_, s)| asks_of_message(s)))
}

/// The reporter's own words wishing for something new: a request describes what happens today
/// only to say why.
const WISH: &[&str] = &[
    "i'd like",
    "i would like",
    "it would be great",
    "it would be nice",
    "would be useful",
    "would be helpful",
    "would be great",
    "please add",
    "could you add",
    "would love",
    "it'd be great",
    "it'd be nice",
    "i propose",
    "i suggest",
];

/// The distinct wishes the prose states ("I'd like …", "it would be great …"); wanting to
/// know or understand something is no wish for a change.
pub(super) fn wishes(item: &Item) -> Vec<&'static str> {
    let p = item.prose.replace('\u{2019}', "'");
    WISH.iter()
        .copied()
        .filter(|w| {
            p.match_indices(w).any(|(at, _)| {
                let after = p[at + w.len()..].trim_start();
                !["to know", "to understand", "to ask"]
                    .iter()
                    .any(|k| after.starts_with(k))
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_crash_is_the_system_saying_the_program_died() {
        assert!(crash_shown(&Item::new(
            "```\n$ tool .\nIllegal instruction: 4\n```\n"
        )));
        assert!(!crash_shown(&Item::new(
            "Add a flag to stop on the first fatal result.\n"
        )));
    }

    #[test]
    fn a_quoted_message_reads_as_the_programs_complaint() {
        assert!(message_quoted(&Item::new(
            "It prints `error: 'x' is not a formatting rule`.\n"
        )));
        assert!(message_quoted(&Item::new(
            "```\nunknown option '--foo'\n```\n"
        )));
        assert!(!message_quoted(&Item::new(
            "Add `--color=never` to the docs.\n"
        )));
        // Source code that handles errors is no message printed.
        assert!(!message_quoted(&Item::new(
            "```\nif (x) { throw new Error(\"invalid input\"); }\n```\n"
        )));
    }

    #[test]
    fn a_command_is_a_program_and_a_flag_or_a_span_said_to_be_run() {
        assert!(command_shown(&Item::new("```\ntool --indent 2 .\n```\n")));
        assert!(command_shown(&Item::new(
            "When I run `tool local 3.8` nothing happens.\n"
        )));
        assert!(!command_shown(&Item::new(
            "The `Config` type has a `name` field.\n"
        )));
        assert!(!command_shown(&Item::new("```\n--theme=\"dark\"\n```\n")));
    }

    #[test]
    fn an_outcome_is_told_in_the_reporters_words() {
        assert!(outcome_told(&Item::new("The flag does nothing.\n")));
        assert!(outcome_told(&Item::new(
            "When I run it with two files I get only one.\n"
        )));
        assert!(!outcome_told(&Item::new(
            "When I run it I would like colours.\n"
        )));
    }

    #[test]
    fn a_wish_is_for_something_new_not_to_know() {
        assert_eq!(
            wishes(&Item::new("I'd like a flag for it. It would be great.\n")),
            vec!["i'd like", "it would be great", "would be great"]
        );
        assert!(wishes(&Item::new("I'd like to know why it crashes.\n")).is_empty());
    }

    #[test]
    fn asking_what_a_message_means_quotes_a_message() {
        assert!(asks_meaning("What `Illegal instruction:` means?"));
        assert!(asks_meaning("What does \"error: no input\" mean?"));
        assert!(!asks_meaning("What does `--strict` mean?"));
        assert!(!asks_meaning("What should the new flag mean for globs?"));
    }
}
