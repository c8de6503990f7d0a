//! What an item's shape says, beside its words: a template's own answers ("| Bug report? | yes"),
//! the signs of a report — commands shown with their output, what was tried, expected beside
//! actual, a trace, a version — which count only when several agree, and whether the item asks
//! for help ("How do I …?", "Is there an option I'm missing?"): a support question, asked what
//! the person is trying to achieve rather than for a feature's specification.
//!
//! Not for: the kind's word cues (`cues`) or weighing them (`classify`).

use super::item::{Item, has_word};
use super::kind::ItemKind;

/// A template's table row that answers its own question (`| Bug report? | yes |`): the kind
/// it says, and the cue for the document.
pub(super) fn template_answer(item: &Item) -> Option<(ItemKind, String)> {
    item.lines.iter().find_map(|(_, line)| {
        let t = line.trim();
        if !t.starts_with('|') {
            return None;
        }
        let cells: Vec<&str> = t
            .split('|')
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .collect();
        let [question, answer, ..] = cells.as_slice() else {
            return None;
        };
        if !answer.eq_ignore_ascii_case("yes") {
            return None;
        }
        let q = question.to_lowercase();
        let kind = if q.starts_with("bug report") || q.starts_with("bug fix") {
            ItemKind::Bug
        } else if q.starts_with("feature request") || q.starts_with("new feature") {
            ItemKind::Feature
        } else if q.starts_with("doc") {
            ItemKind::Docs
        } else {
            return None;
        };
        Some((
            kind,
            format!("its template answers \"{question}\" with yes"),
        ))
    })
}

/// How a line of a terminal session starts: a prompt (`$ `, `$[root@host ~]#`, `➜  ~`, `→ ~`,
/// `>>> `, `PS C:\>`, `C:\>`).
fn prompt(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("$ ")
        || t.starts_with("$[")
        || t.starts_with('➜')
        || t.starts_with("→ ")
        || t.starts_with(">>> ")
        || t.starts_with("PS ")
        || (t.contains("]# ") || t.contains("]$ ") || t.contains(":~$ ") || t.contains(":~# "))
        || t.get(1..4) == Some(":\\>")
}

/// A version number (`1.2`, `v0.19.1`, `3.10.13`) as a word of `text`.
fn has_version(text: &str) -> bool {
    text.split(|c: char| c.is_whitespace() || matches!(c, ',' | '(' | ')' | '`' | '"' | ':'))
        .map(|w| w.trim_end_matches(['.', ';']))
        .map(|w| w.strip_prefix(['v', 'V']).unwrap_or(w))
        .any(|w| {
            let parts: Vec<&str> = w.split('.').collect();
            parts.len() >= 2
                && parts.len() <= 4
                && parts
                    .iter()
                    .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
        })
}

/// A failure said in the reporter's words.
const FAILED: &[&str] = &[
    "crash",
    "crashes",
    "crashed",
    "segfault",
    "segfaults",
    "panics",
    "panicked",
    "throws",
    "threw",
    "fails with",
    "failed with",
    "aborts",
    "aborted",
];

/// An exit code or status shown or said.
const EXIT: &[&str] = &[
    "exit code",
    "exit status",
    "exited with",
    "exits with",
    "non-zero exit",
    "nonzero exit",
];

/// A word of `line` that names an exception or error type (`NullPointerException`,
/// `TypeError`); a bare `Error` or `Exception`, as in `io::Error`, is not one.
fn names_exception(line: &str) -> bool {
    line.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|w| {
            let stem = w
                .strip_suffix("Exception")
                .or_else(|| w.strip_suffix("Error"));
            stem.is_some_and(|s| {
                s.chars().next().is_some_and(char::is_uppercase)
                    && s.chars().all(char::is_alphanumeric)
            })
        })
}

/// The signs of a report the item has (each weak alone): commands shown with their output,
/// what was tried, expected beside actual, a trace, a failure said (crashed, threw, failed
/// with), an exit code, an exception's name, what `outcome` reads (a crash, a message quoted,
/// a command, what came of it, the reporter's configuration, a question about a message, a
/// platform), a version.
pub(super) fn report_signs(item: &Item) -> Vec<&'static str> {
    let mut out = Vec::new();
    let code: Vec<&str> = item
        .all
        .iter()
        .filter(|(_, _, c)| *c)
        .map(|(_, l, _)| *l)
        .collect();
    if code.iter().any(|l| prompt(l)) {
        out.push("a terminal session");
    }
    let prose = &item.lower;
    if [
        "i have tried",
        "i've tried",
        "i tried",
        "i ran this",
        "first, i ran",
    ]
    .iter()
    .any(|t| prose.contains(t))
    {
        out.push("what was tried");
    }
    let expects = ["expected", "expect", "should"]
        .iter()
        .any(|t| has_word(prose, t));
    let actual = ["actual", "instead", "but the", "results in", "however"]
        .iter()
        .any(|t| has_word(prose, t));
    if expects && actual {
        out.push("expected beside actual");
    }
    let code_lower = item.code_lower();
    if [
        "traceback (most recent call last)",
        "panicked at",
        "stack backtrace",
        "exception in thread",
        "\tat ",
        "    at ",
    ]
    .iter()
    .any(|t| code_lower.contains(t))
    {
        out.push("a trace");
    }
    // What happens now, questioned: "currently … but …?", "for some reason", "is there a reason
    // for this", "is confusing", "I don't think it should". A feature's "currently there is no
    // way" is neither a contrast nor a question.
    if questioned(item).is_some() {
        out.push("what happens now questioned");
    }
    // A linter's or compiler's diagnostic under the line it points at (`^-- SC2016: …`).
    if code
        .iter()
        .any(|l| l.trim_start().starts_with("^--") || l.trim_start().starts_with("^~"))
    {
        out.push("a diagnostic shown");
    }
    // A failure the reporter says in their own words: it crashed, threw, failed with.
    if FAILED.iter().any(|t| has_word(&item.prose, t)) {
        out.push("a failure said");
    }
    if EXIT
        .iter()
        .any(|t| prose.contains(t) || code_lower.contains(t))
    {
        out.push("an exit code");
    }
    // Named in output, or in prose that says what happened: "should raise a `ParseError`" is
    // a wish, not a failure seen.
    let wish = |l: &str| {
        let l = l.to_lowercase();
        ["should", "would", "could"].iter().any(|w| has_word(&l, w))
    };
    if item
        .all
        .iter()
        .any(|(_, l, c)| names_exception(l) && (*c || !wish(l)))
    {
        out.push("an exception's name");
    }
    use super::outcome;
    // A request that wishes for something new tells what happens today only to say why: its
    // commands, messages and setting are no report. A crash, or asking what a message means,
    // still is.
    let told = outcome::wishes(item).is_empty();
    let failed = [
        (outcome::crash_shown(item), "a crash shown"),
        (told && outcome::message_quoted(item), "a message quoted"),
        (told && outcome::outcome_told(item), "what came of it told"),
        (
            outcome::meaning_asked(item),
            "a question about what a message means",
        ),
    ];
    out.extend(failed.iter().filter(|(hit, _)| *hit).map(|(_, s)| *s));
    // Where and how it ran is the context of any report (a timing, a docs question): a sign
    // only beside something that went wrong.
    let wrong = out
        .iter()
        .any(|s| !matches!(*s, "a terminal session" | "what was tried"));
    let context = [
        (
            outcome::command_shown(item) && !out.contains(&"a terminal session"),
            "a command shown",
        ),
        (
            outcome::configuration_quoted(item),
            "the reporter's configuration",
        ),
        (outcome::platform_named(item), "a platform"),
    ];
    if told && wrong {
        out.extend(context.iter().filter(|(hit, _)| *hit).map(|(_, s)| *s));
    }
    let versioned_code = code
        .iter()
        .any(|l| l.to_lowercase().contains("version") && has_version(l));
    if has_version(prose) || versioned_code || item.fields.iter().any(|f| f.contains("version")) {
        out.push("a version");
    }
    out
}

/// The sentence in which the reporter questions what happens now, with its line: one with
/// "currently" that contrasts or asks ("currently … is 3; … is 0?", "currently … but …"), or
/// "for some reason", "is there a reason for", "is confusing", "I don't think … should". A
/// feature's "currently there is no way" is neither a contrast nor a question.
pub(super) fn questioned<'i>(item: &'i Item) -> Option<(u32, &'i str)> {
    item.sentences.iter().find_map(|(n, s)| {
        let l = s.to_lowercase().replace('\u{2019}', "'");
        let contrast = has_word(&l, "currently") && (l.ends_with('?') || has_word(&l, "but"));
        let doubt = ["for some reason", "is there a reason for", "is confusing"]
            .iter()
            .any(|t| l.contains(t))
            || (l.contains("i don't think") && has_word(&l, "should"))
            || unsure_of_intent(&l);
        (contrast || doubt).then_some((*n, s.as_str()))
    })
}

/// The words that say a behaviour is meant ("intended", "by design", "on purpose").
const MEANT: &[&str] = &[
    "intended",
    "intentional",
    "intentionally",
    "by design",
    "on purpose",
    "deliberate",
    "deliberately",
    "expected behavior",
    "expected behaviour",
    "desired behavior",
    "desired behaviour",
];

/// Whether a sentence (lower case) asks whether what happens is meant, in any phrasing: a
/// question ("Is this by design?", "Was this deliberate?", "Is that on purpose?") or the
/// reporter's doubt ("I want to make sure this is intentional", "not sure if this is
/// intended", "I wonder whether it is on purpose"). "This flag is intended for CI" says so.
pub(super) fn unsure_of_intent(lower: &str) -> bool {
    let lower = lower.trim_start_matches(['*', '_', '"', '(']);
    let meant = MEANT.iter().any(|m| lower.contains(m));
    let asks = lower.trim_end().ends_with('?')
        && ["is ", "was ", "are ", "were ", "isn't ", "wasn't "]
            .iter()
            .any(|q| lower.starts_with(q));
    let doubt = [
        "make sure",
        "not sure",
        "unsure",
        "wonder",
        "whether",
        "if this is",
        "if that is",
        "if it is",
        "if this was",
        "if it was",
    ]
    .iter()
    .any(|d| lower.contains(d));
    meant && (asks || doubt)
}

/// Whether a question (`asked`) starts like one of [`HOW`]: it asks how to get a behaviour.
pub(super) fn asks_how(asked: &str) -> bool {
    let lower = asked.to_lowercase();
    let lower = lower.trim_start_matches(['*', '_', '"', '(']);
    HOW.iter().any(|h| lower.starts_with(h))
}

/// The starts of a question that asks how to get a behaviour, not whether it is a bug.
const HOW: &[&str] = &[
    "how do i",
    "how can i",
    "how should i",
    "how do you",
    "how would i",
    "is there a way",
    "is there any way",
    "is there an option",
    "is there a setting",
    "is there a flag",
    "is it possible to",
    "is it possible for",
    "how to ",
    "is there a more",
    "is there a better",
];

/// How a question asks the way to use what exists, not whether a way exists ("How to …?",
/// "do I use global or local?", "Is `x 2.1` the equivalent command?", "Is there a more elegant
/// way?"): a usage question, answered by the existing way or its documentation.
fn asks_the_way(lower: &str) -> bool {
    [
        "how to ",
        "how do i",
        "how can i",
        "how should i",
        "how would i",
        "how does one",
        "is there a more",
        "is there a better",
    ]
    .iter()
    .any(|h| lower.starts_with(h))
        || ["do i use", "should i use", "the equivalent"]
            .iter()
            .any(|h| lower.contains(h))
}

/// Whether the item's question for help (`asked`) asks the way to use what exists
/// (`asks_the_way`) in an item that shows no report (fewer than two of its signs): the kind
/// is support, read as documentation.
pub(super) fn asks_how_to_use(item: &Item, asked: &str) -> bool {
    let lower = asked.to_lowercase();
    asks_the_way(lower.trim_start_matches(['*', '_', '"', '('])) && report_signs(item).len() < 2
}

/// A title that asks for help ("How to specify a default?", "How do I …"): the item's
/// question when its body asks none.
pub(super) fn title_support(title: &str) -> Option<&str> {
    let t = title.trim();
    let lower = t.to_lowercase();
    (asks_the_way(&lower) && (t.ends_with('?') || lower.starts_with("how "))).then_some(t)
}

/// With [`HOW`], the starts of a question that asks for help with what exists, not for
/// something new: these ask whether what happens is meant.
const UNSURE: &[&str] = &[
    "is this expected",
    "is this intended",
    "is this the intended",
    "is this deliberate",
    "is this a bug",
    "is it a bug",
    "what am i doing wrong",
    "am i doing something wrong",
    "am i overlooking",
    "am i missing",
    "is there a reason",
];

/// The reporter's question whether they missed the way ("Do I miss something?", "Am I
/// missing something?", "Did I overlook …?"): the answer is the way that exists, or that what
/// they see is intended.
const MISSED: &[&str] = &[
    "am i missing",
    "i'm missing",
    "am i overlooking",
    "do i miss",
    "did i miss",
    "have i missed",
    "do i overlook",
    "did i overlook",
];

/// Whether a question (lower case, ending "?") doubts that what it tells is a bug, in any
/// phrasing: "I wonder whether this is a bug?", "is it supposed to work this way?", "not sure
/// it is a bug?". The decision asked is whether it is meant, as with [`unsure_of_intent`].
fn doubts_a_bug(lower: &str) -> bool {
    let bug = has_word(lower, "a bug") || lower.contains("supposed to");
    let doubt = [
        "wonder",
        "whether",
        "not sure",
        "unsure",
        "if this is",
        "if it is",
    ]
    .iter()
    .any(|d| lower.contains(d));
    bug && doubt
}

/// Whether an item is a usage question: its question for help (`asked`) asks how to get a
/// behaviour ("Is there an option I'm missing?"), and it shows no report (fewer than two of
/// its signs). Even when it tells what happens now it is no defect: nothing of it reproduces
/// on HEAD, and the bug round's templates do not fit it.
pub(super) fn usage_question(item: &Item, asked: &str) -> bool {
    let lower = asked.to_lowercase();
    let lower = lower.trim_start_matches(['*', '_', '"', '(']);
    HOW.iter().any(|h| lower.starts_with(h)) && report_signs(item).len() < 2
}

/// The item's question asking for help (`How do I enable showing it?`), with its line: the
/// first sentence that starts like one of [`HOW`] or [`UNSURE`], says one of [`MISSED`], or doubts
/// that what it tells is meant or a bug.
pub(super) fn support_question<'i>(item: &'i Item) -> Option<(u32, &'i str)> {
    item.sentences.iter().find_map(|(n, s)| {
        if !s.ends_with('?') || s.contains('|') {
            return None;
        }
        let lower = s.to_lowercase();
        let lower = lower.trim_start_matches(['*', '_', '"', '(']);
        // "Is it possible to add …?" asks for a change, not for the way that exists.
        let request = [
            "is it possible to add",
            "is it possible to have",
            "is it possible to get",
        ]
        .iter()
        .any(|r| lower.starts_with(r));
        let asks = !request && HOW.iter().chain(UNSURE).any(|h| lower.starts_with(h))
            || MISSED.iter().any(|h| lower.contains(h))
            || asks_the_way(lower)
            || unsure_of_intent(lower)
            || doubts_a_bug(lower);
        asks.then_some((*n, s.as_str()))
    })
}

/// Whether the item shows one of the project's own `programs` run, in any form: a line of a
/// code block or terminal session (after its prompt: `$ `, `❯ `, `% `, `> `) or an inline code
/// span in prose that starts with the program (any path before it, or `npx`/`sudo` starting
/// it) and gives it an argument (`bat --paging always`, `❯ just foo`, `npx tool readme`). A
/// dependency's line (`tool = "0.2"`, `tool 2.20.3`) or a call (`tool(…)`) is no run.
pub(super) fn runs_own_program(item: &Item, programs: &[String]) -> bool {
    item.all
        .iter()
        .any(|(_, line, code)| line_runs(line, *code, programs))
}

/// Whether a line of code, or a code span of a line of prose, runs one of `programs`.
fn line_runs(line: &str, code: bool, programs: &[String]) -> bool {
    if code {
        command_runs(line, programs)
    } else {
        super::names::code_spans(line)
            .iter()
            .any(|s| command_runs(s, programs))
    }
}

/// Whether the command line `line` starts one of `programs` with an argument.
fn command_runs(line: &str, programs: &[String]) -> bool {
    let mut words = line
        .split_whitespace()
        .skip_while(|w| matches!(*w, "$" | "%" | ">" | "#" | "❯" | "➜" | "→" | "λ"))
        .skip_while(|w| matches!(*w, "npx" | "sudo" | "pnpx" | "bunx" | "exec" | "time"));
    let Some(first) = words.next() else {
        return false;
    };
    let first = first.trim_start_matches('$');
    let name = first.rsplit(['/', '\\']).next().unwrap_or(first);
    let Some(arg) = words.next() else {
        return false;
    };
    let version = arg
        .trim_start_matches(['v', 'V'])
        .chars()
        .all(|c| c.is_ascii_digit() || c == '.');
    programs.iter().any(|p| p.eq_ignore_ascii_case(name))
        && !version
        && !arg.starts_with(['=', '(', ':', '{', '<'])
}

/// The line where the item shows `flag` in use rather than asked for: a command running one of
/// its `programs` that passes it (`tool --x foo`, `$ tool -x`), or prose that says so ("I use
/// `--x`", "so I pass `--x`", "using `--x`", "with `--x`, it …"). Its report is about what the
/// flag does, not about one more flag.
pub(super) fn uses_flag(item: &Item, flag: &str, programs: &[String]) -> Option<u32> {
    let passes = |s: &str| {
        let given = |w: &str| w == flag || w.strip_prefix(flag).is_some_and(|r| r.starts_with('='));
        s.split_whitespace().skip(1).any(given) && command_runs(s, programs)
    };
    item.all.iter().find_map(|(n, line, code)| {
        let run = if *code {
            passes(line)
        } else {
            super::names::code_spans(line).into_iter().any(passes) || says_uses(line, flag)
        };
        run.then_some(*n)
    })
}

/// Whether prose `line` says `flag` is used: a verb of using right before its code span, or
/// "with `--x`" followed by what it does ("with `--x`, the output …", "with `--x` it …").
fn says_uses(line: &str, flag: &str) -> bool {
    let span = format!("`{flag}");
    line.match_indices(&span).any(|(at, _)| {
        let rest = &line[at + span.len()..];
        if !rest.starts_with(['`', ' ', '=']) {
            return false;
        }
        let before = line[..at].to_lowercase();
        let words: Vec<&str> = before.split_whitespace().rev().take(3).collect();
        let verbs = [
            "use", "uses", "using", "pass", "passes", "passing", "run", "running",
        ];
        let after = rest.split_once('`').map_or("", |(_, a)| a).trim_start();
        words.iter().any(|w| verbs.contains(w))
            || (words.first() == Some(&"with")
                && (after.starts_with(',') || after.to_lowercase().starts_with("it ")))
    })
}

/// Whether line `n` of the item gives `name` to the project's own: a command on it that runs
/// one of its `programs` holds the name (`tool --colour`), or the line qualifies a name by the
/// program ("tool's `Frob`", `tool::Frob`; not "tool-serde", nor `rvm use 1.0 --default`
/// beside `tool global 1.0`). A name the item misses only there is one the maintainer places.
pub(super) fn speaks_of_own(item: &Item, n: u32, name: &str, programs: &[String]) -> bool {
    item.all
        .iter()
        .filter(|(at, ..)| *at == n)
        .any(|(_, line, code)| {
            let runs = |s: &str| s.contains(name) && command_runs(s, programs);
            let run = if *code {
                runs(line)
            } else {
                super::names::code_spans(line).into_iter().any(runs)
            };
            let lower = line.to_lowercase();
            run || programs.iter().any(|p| {
                let p = p.to_lowercase();
                ["'s ", "::", "."].iter().any(|q| {
                    lower.match_indices(&format!("{p}{q}")).any(|(at, _)| {
                        !lower[..at]
                            .ends_with(|c: char| c.is_alphanumeric() || c == '-' || c == '_')
                    })
                })
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_template_table_says_its_kind() {
        let item = Item::new(
            "| Q                | A\n| ---------------- | -----\n| Bug report?      | yes\n| Feature request? | no\n",
        );
        assert_eq!(template_answer(&item).map(|(k, _)| k), Some(ItemKind::Bug));
        let item = Item::new("| Bug report?      | no\n| Feature request? | yes\n");
        assert_eq!(
            template_answer(&item).map(|(k, _)| k),
            Some(ItemKind::Feature)
        );
        assert_eq!(template_answer(&Item::new("| a | b |\n")), None);
    }

    #[test]
    fn a_report_shows_its_signs() {
        let item = Item::new(
            "I have tried:\n\n```\n➜  ~ pyenv versions\n* 3.10.13 (set by ~/.pyenv/version)\n```\n",
        );
        assert_eq!(
            report_signs(&item),
            vec!["a terminal session", "what was tried", "a version"]
        );
        assert!(report_signs(&Item::new("Add a flag to sort by size.\n")).is_empty());
        assert_eq!(
            report_signs(&Item::new(
                "It threw `NullPointerException`, exit status 1.\n"
            )),
            vec!["a failure said", "an exit code", "an exception's name"]
        );
        assert!(!names_exception("it returns an io::Error or an Exception"));
        assert_eq!(
            report_signs(&Item::new(
                "Version 2.1: it should raise a `ParseError` on a bad date.\n"
            )),
            vec!["a version"]
        );
        assert!(has_version("Humanizer 2.2.0.0 in"));
        assert!(!has_version("a 1. b"));
    }

    #[test]
    fn where_and_how_it_ran_counts_only_beside_something_gone_wrong() {
        // A timing with its command and OS is no failure.
        assert!(
            report_signs(&Item::new(
                "```\nfd -HI > /dev/null  0.6 total\n```\n\nOn Linux.\n"
            ))
            .is_empty()
        );
        assert_eq!(
            report_signs(&Item::new(
                "When I run `tool -x` nothing happens, on Linux.\n"
            )),
            vec!["what came of it told", "a command shown", "a platform"]
        );
        // Told to say why something new is wished for, it is no report.
        assert!(
            report_signs(&Item::new(
                "It is ignored on Linux. I'd like a `--force` flag.\n"
            ))
            .is_empty()
        );
    }

    #[test]
    fn a_question_asking_for_help_is_support() {
        let item = Item::new("It is not shown. Is there an option I'm missing?\n");
        assert_eq!(
            support_question(&item),
            Some((1, "Is there an option I'm missing?"))
        );
        let item = Item::new("Should the export include archived projects?\n");
        assert_eq!(support_question(&item), None);
        let item = Item::new("Is it possible to make a subcommand behave like --help?\n");
        assert_eq!(
            support_question(&item),
            Some((1, "Is it possible to make a subcommand behave like --help?"))
        );
        let item = Item::new("Is it possible to add a flag for that?\n");
        assert_eq!(support_question(&item), None);
        // Whether the reporter missed the way, or whether it is a bug, in other words.
        let item = Item::new("The value stays empty with `mode = strict`. Do i miss something?\n");
        assert_eq!(support_question(&item), Some((1, "Do i miss something?")));
        let item = Item::new(
            "The list stays empty. So I wonder whether it is supposed to work this way?\n",
        );
        assert!(support_question(&item).is_some());
        let item = Item::new("Not sure whether this is a bug?\n");
        assert!(support_question(&item).is_some());
        // A bug named without doubt is not a question of intent.
        let item = Item::new("Which release fixes a bug in the parser?\n");
        assert_eq!(support_question(&item), None);
    }

    #[test]
    fn a_usage_question_without_a_report_is_no_defect() {
        let item = Item::new("Output of `run` is not shown. Is there an option I'm missing?\n");
        assert!(usage_question(&item, "Is there an option I'm missing?"));
        // Asking whether it is a bug is not asking how.
        let item = Item::new("The output is always 100. Is it a bug or am I missing something?\n");
        assert!(!usage_question(
            &item,
            "Is it a bug or am I missing something?"
        ));
        // A report with its terminal session and version stays one, however it asks.
        let item = Item::new(
            "With 3.1 the command is not echoed:\n\n```\n$ app << EOS\nversion\nEOS\njLine> app version 4.3.0\n```\n\nHow do I enable showing it?\n",
        );
        assert!(!usage_question(&item, "How do I enable showing it?"));
    }

    #[test]
    fn a_run_of_the_projects_program_is_seen_in_every_form() {
        let programs = vec!["tool".to_string()];
        let runs = |text: &str| runs_own_program(&Item::new(text), &programs);
        // An inline command in prose, a session line after any prompt, a path or a runner.
        assert!(runs("It fails with `tool --paging always`.\n"));
        assert!(runs("```\n❯ tool -v build\n```\n"));
        assert!(runs("```\n$ ./target/debug/tool readme\n```\n"));
        assert!(runs("Run `npx tool readme` to see it.\n"));
        assert!(runs("```\ntool --config a.cfg .\n```\n"));
        // A dependency's line, a version, a call, the bare name, another program: no run.
        assert!(!runs("Using `tool 2.20.3` and `lib = \"1.0\"`.\n"));
        assert!(!runs("```toml\ntool = \"0.2.18\"\n```\n"));
        assert!(!runs("```\ntool(options).parse(args)\n```\n"));
        assert!(!runs("The `tool` command is slow.\n"));
        assert!(!runs("```\n$ node index.js --tool x\n```\n"));
    }

    #[test]
    fn a_line_speaks_of_the_project_when_it_runs_or_names_its_program() {
        let programs = vec!["tool".to_string()];
        let item = Item::new(
            "`tool --colour` fails.\nIn tool's docs `Frob` is named.\nMy `Serialize` impl in tool-serde.\nIn rvm, `rvm use 2.1 --default`. Is `tool global 2.1` the same?\n",
        );
        assert!(speaks_of_own(&item, 1, "--colour", &programs));
        assert!(speaks_of_own(&item, 2, "Frob", &programs));
        assert!(!speaks_of_own(&item, 3, "Serialize", &programs));
        assert!(!speaks_of_own(&item, 4, "--default", &programs));
    }

    #[test]
    fn a_flag_shown_in_use_is_told_from_one_asked_for() {
        let programs = vec!["tool".to_string()];
        let used = |text: &str| uses_flag(&Item::new(text), "--plain", &programs);
        assert_eq!(used("# Slow\n\nSo I pass `--plain` to it.\n"), Some(3));
        assert_eq!(used("# Slow\n\nI am using `--plain` daily.\n"), Some(3));
        assert_eq!(
            used("# Slow\n\nWith `--plain`, it prints twice.\n"),
            Some(3)
        );
        assert_eq!(used("# Slow\n\n```\n$ tool --plain src\n```\n"), Some(4));
        assert_eq!(
            used("# Slow\n\nRunning `tool --plain=yes` prints twice.\n"),
            Some(3)
        );
        assert_eq!(
            used("# Add `--plain`\n\nPlease add a `--plain` flag.\n"),
            None
        );
        assert_eq!(used("# Slow\n\nI use `--plainer` daily.\n"), None);
        assert_eq!(used("# Slow\n\n```\nlet x = \"--plain\";\n```\n"), None);
        assert_eq!(used("# Slow\n\nIt should work with `--plain`.\n"), None);
    }
}
