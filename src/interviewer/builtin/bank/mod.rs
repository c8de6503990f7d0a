//! The question bank of each kind of work item, grounded in what the repository holds: a bug
//! report is asked whether it reproduces on HEAD and which version broke it, a refactor whether
//! behaviour and public API stay, a dependency change which of its candidates, a feature how it
//! relates to the flags and code it names — with the existing convention as the recommendation.

use super::Finding;
use super::names::NameKind;
use super::place::{is_doc, is_test};
use super::reading::{FLAG_CONVENTIONS, Located, Reading, same_package};
use super::repo::{lock_parents, tag_for};
use super::search::{Hit, has_name};
use super::text::slug;
use crate::subject::reflect::counted;

/// `a:1, b:2, c:3` for the first `n` hits.
fn cites(hits: &[&Hit], n: usize) -> String {
    let mut out: Vec<String> = hits.iter().take(n).map(|h| h.cite()).collect();
    if hits.len() > n {
        out.push("…".into());
    }
    out.join(", ")
}

/// Whether a sentence gives a number with a unit (`200 ms`, `2x`, `30%`, `1 GiB`).
pub(super) fn has_measure(text: &str) -> bool {
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower.split_whitespace().collect();
    words.iter().enumerate().any(|(i, w)| {
        let digits = w.trim_start_matches(['~', '<', '>']);
        if !digits.starts_with(|c: char| c.is_ascii_digit()) {
            return false;
        }
        let unit_inline = digits.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
        let unit = if unit_inline.is_empty() {
            words.get(i + 1).copied().unwrap_or("")
        } else {
            unit_inline
        };
        let unit = unit.trim_end_matches(['.', ',', ')', ';']);
        [
            "ms", "s", "sec", "secs", "seconds", "second", "%", "x", "times", "mb", "gb", "kb",
            "mib", "gib", "kib", "µs", "us", "ns", "minutes", "min",
        ]
        .contains(&unit)
    })
}

/// Whether `term` ("fast", "quick", …) in sentence `s` speaks of the program's speed, not of
/// a person's effort: "fast and easy to find the rule", "quick to type", "a quick way", "to
/// quickly see" are the reader's task; a sign of performance (a number, "slow", "startup",
/// "benchmark", …) or the adjective alone ("it should be fast") is the program's.
pub(super) fn of_own_speed(s: &str, term: &str) -> bool {
    let lower = s.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric() && c != '-')
        .filter(|w| !w.is_empty())
        .collect();
    let perf = [
        "slow",
        "slower",
        "slowly",
        "speed",
        "performance",
        "latency",
        "startup",
        "benchmark",
        "benchmarks",
        "takes",
        "took",
        "memory",
        "cpu",
        "lag",
        "laggy",
    ];
    let inherent = ["performant", "responsive", "real-time", "realtime"].contains(&term);
    if inherent
        || words
            .iter()
            .any(|w| perf.contains(w) || w.starts_with(|c: char| c.is_ascii_digit()))
    {
        return true;
    }
    let nouns = [
        "way",
        "question",
        "fix",
        "look",
        "note",
        "hack",
        "workaround",
        "start",
        "tip",
    ];
    let person = ["to", "can", "could", "i", "we", "you", "users", "user"];
    !words.iter().enumerate().any(|(i, w)| {
        let stem = w.trim_end_matches("er").trim_end_matches("ly");
        if stem != term.trim_end_matches("ly") {
            return false;
        }
        let after = &words[i + 1..words.len().min(i + 5)];
        // "fast and easy to find", "quick to type"; "a quick way"; "to quickly see".
        after.windows(2).any(|p| p[0] == "to" && p[1] != "be")
            || after.first().is_some_and(|a| nouns.contains(a))
            || (w.ends_with("ly") && i > 0 && person.contains(&words[i - 1]))
    })
}

/// Of a flag that exists and the item shows in use (a command passing it, "I pass `--x`"):
/// whether what it does there is intended or a bug, never whether one more flag is wanted.
pub(super) fn used_flag(r: &Reading, l: &Located, slugged: &str) -> Option<Finding> {
    let programs = super::repo::programs(r.worktree, r.repo.project.as_deref());
    let n = super::shape::uses_flag(&r.item, &l.name.text, &programs)?;
    let flag = l.shown();
    let defs = cites(&l.definitions.iter().collect::<Vec<_>>(), 3);
    Some(
        Finding::new(
            format!("used_{slugged}"),
            8,
            format!(
                "Line {n} shows {flag} in use ({flag} is defined at {defs}). Is what it does \
                 there intended, or a bug (then: what should it do instead)?"
            ),
        )
        .titled(format!("What {flag} does"))
        .options(&[
            ("Intended: it does what it should", "intended"),
            ("A bug: fix it", "bug"),
            ("It should do something else (say what)", "change"),
        ]),
    )
}

/// Whether the item's prose says it worked before ("used to", "no longer", "since upgrading",
/// "after the last update", …): a regression. "I am used to …" is a habit, not a regression.
pub(super) fn worked_before(item: &super::item::Item) -> bool {
    const SAID: &[&str] = &[
        "no longer",
        "regression",
        "stopped working",
        "as it did",
        "worked before",
        "worked in",
        "works in",
        "since upgrading",
        "since updating",
        "after upgrading",
        "after updating",
        "the last update",
        "broke",
    ];
    let habit = [
        "am", "was", "were", "is", "are", "be", "been", "get", "got", "i'm", "we're",
    ];
    SAID.iter().any(|t| super::item::has_word(&item.prose, t))
        || item.prose.match_indices("used to").any(|(at, _)| {
            let before = &item.prose[..at];
            let word = before.split_whitespace().next_back().unwrap_or("");
            !before.ends_with(char::is_alphanumeric)
                && !item.prose[at + 7..].starts_with(char::is_alphanumeric)
                && !habit.contains(&word)
        })
}

/// The first named flag, identifier or path found in the code, for grounding.
fn found_names<'r>(r: &'r Reading) -> Vec<&'r Located> {
    r.names
        .iter()
        .filter(|l| l.found() && l.name.kind != NameKind::Message)
        .collect()
}

/// How the repository defines flags: the first definition of a kind in non-test code.
fn flag_convention<'r>(r: &'r Reading) -> Option<&'r Hit> {
    FLAG_CONVENTIONS.iter().find_map(|c| {
        r.search.get(c).and_then(|f| {
            f.hits.iter().find(|h| {
                super::defs::may_define(h)
                    && (h.text.contains("long")
                        || h.text.contains("\"--")
                        || h.text.contains("Flags()"))
            })
        })
    })
}

/// Whether code quotes the flag `l`'s bare name (`"black"`, `'black'`, `'black=s'`) where the
/// reading saw no declaration: a value, a key or a spelling of a parser it does not know, so the
/// flag is never called new there.
fn quoted_bare(r: &Reading, l: &Located) -> bool {
    super::defs::decl_key(&l.name.text)
        .and_then(|k| r.search.get(&k))
        .is_some_and(|f| f.code_lines + f.test_lines > 0)
}

/// Whether the item asks for `l` (in its title, or in a sentence that adds or wants it)
/// rather than naming something that is there ("like `--color`", "the existing `--out`").
pub(super) fn proposed(r: &Reading, l: &Located) -> bool {
    let text = l.name.text.as_str();
    // Each mention comes with a word that points at what is there: before it ("like
    // `--color`", "the existing `--out`") or right after it ("`--color` like today").
    let referenced = |s: &str| {
        s.match_indices(text)
            // Only whole names: `--exclude` is not in `--exclude-regex`.
            .filter(|(at, _)| {
                !s[at + text.len()..]
                    .starts_with(|c: char| c.is_alphanumeric() || matches!(c, '_' | '-'))
            })
            .all(|(at, _)| {
                let before: String = s[..at].to_lowercase().chars().rev().take(24).collect();
                let before: String = before.chars().rev().collect();
                let after: String = s[at + text.len()..]
                    .to_lowercase()
                    .chars()
                    .take(24)
                    .collect();
                [
                    "like ",
                    "such as ",
                    "existing ",
                    "current",
                    "today",
                    "already",
                    "as ",
                ]
                .iter()
                .any(|w| before.contains(w))
                    || ["today", "already", "currently", "as before", "does"]
                        .iter()
                        .any(|w| after.contains(w))
            })
    };
    if has_name(&r.facts.title, text) && !referenced(&r.facts.title) {
        return true;
    }
    r.item.sentences.iter().any(|(_, s)| {
        let lower = s.to_lowercase();
        has_name(s, text)
            && !referenced(s)
            && [
                "add",
                "adds",
                "new",
                "introduce",
                "support",
                "implement",
                "want",
                "wants",
                "provide",
            ]
            .iter()
            .any(|w| super::item::has_word(&lower, w))
    })
}

/// The test lines that name `l`; a benchmark script under tests/ times the code and shows
/// no bug.
fn test_hits(l: &Located) -> Vec<&Hit> {
    l.in_tests()
        .into_iter()
        .filter(|h| {
            !h.path
                .split('/')
                .any(|p| matches!(p, "benchmarks" | "benchmark" | "benches" | "bench"))
        })
        .collect()
}

/// Whether the item speaks of a test: the word in the reporter's own prose ("this test case
/// fails", "no spec covers it") or a test's name or file (`DynamicParameterTest`,
/// `spec/register_spec.rb`). Only then is "which test should show it?" the maintainer's
/// question: of a report that speaks of no test it is a question every bug could be asked.
fn speaks_of_tests(r: &Reading) -> bool {
    let test_name = |w: &str| {
        let w = w.trim_end_matches('.');
        (w.contains('/') && is_test(w))
            || ["Test", "Tests", "Spec", "_test", "_spec"]
                .iter()
                .any(|end| w.len() > end.len() && w.ends_with(end))
            || w.starts_with("test_")
    };
    r.item.mentions(&[
        "test",
        "tests",
        "testcase",
        "spec",
        "specs",
        "unit test",
        "test case",
    ]) || r.item.lines.iter().any(|(_, l)| {
        l.split(|c: char| c.is_whitespace() || "`'\"(),;:[]".contains(c))
            .any(test_name)
    })
}

/// The test files that name what the item is about, with the names each holds, the file
/// naming the most of them first: two of the item's names, or one rare enough to be the code
/// the item is about — shaped like code (`requiredOption`, `--paging`, `app.toml`), or a plain
/// word its title names that the code defines (`def banner`). A test that shares one plain
/// word with the item (`indent`, `run`) is a chance match, never named.
fn test_files<'r>(r: &'r Reading) -> Vec<(&'r str, Vec<&'r Located>)> {
    let about = |l: &Located| {
        let defined = || {
            l.definitions
                .iter()
                .any(|d| !is_test(&d.path) && !is_doc(&d.path))
        };
        super::names::code_shaped(&l.name.text)
            || (super::search::has_name(&r.facts.title, &l.name.text) && defined())
    };
    let mut files: Vec<(&str, Vec<&Located>)> = Vec::new();
    for l in found_names(r)
        .into_iter()
        .filter(|l| !common_token(&l.name.text))
    {
        for h in test_hits(l) {
            match files.iter_mut().find(|(p, _)| *p == h.path) {
                Some((_, names)) => {
                    if !names.iter().any(|n| n.name.text == l.name.text) {
                        names.push(l);
                    }
                }
                None => files.push((h.path.as_str(), vec![l])),
            }
        }
    }
    files.retain(|(_, names)| names.len() >= 2 || names.iter().any(|l| about(l)));
    // A test's code before a fixture naming as many.
    files.sort_by_key(|(path, names)| {
        (
            std::cmp::Reverse(names.len()),
            !super::search::in_code(path),
        )
    });
    files
}

/// A name any test may hold whatever it tests: a placeholder (`foo`) or a flag every program
/// has (`--version`, `--help`). A test file naming it is not about the item.
fn common_token(name: &str) -> bool {
    let bare = name.trim_start_matches('-').to_ascii_lowercase();
    matches!(bare.as_str(), "foo" | "bar" | "baz" | "qux" | "quux")
        || matches!(name, "--help" | "--version" | "-h" | "-V")
}

/// Which tests should show or pin the behaviour: the test files that name what the item is
/// about ([`test_files`]).
fn test_question(r: &Reading, topic: &str, severity: u8, what: &str) -> Finding {
    let files = test_files(r);
    match files.first() {
        Some((path, names)) => {
            // The most names that fit, then the question without its aside ("(failing now,
            // …)"): never cut where it makes its point.
            let brief = what.split(" (").next().unwrap_or(what);
            let text = |what: &str, n: usize| {
                let shown: Vec<String> = names.iter().take(n).map(|l| l.shown()).collect();
                format!(
                    "Which test should {what}? {path} already names {}. Recommended: that file.",
                    shown.join(", ")
                )
            };
            let limit = crate::protocol::limits::MAX_QUESTION_TEXT_CHARS;
            let question = [what, brief]
                .into_iter()
                .flat_map(|w| (1..=names.len().min(3)).rev().map(move |n| (w, n)))
                .map(|(w, n)| text(w, n))
                .find(|t| t.chars().count() <= limit)
                .unwrap_or_else(|| text(brief, 1));
            let mut options: Vec<(String, String)> = files
                .iter()
                .take(3)
                .map(|(p, _)| (format!("In {p}"), slug(p)))
                .collect();
            options.push(("A new test file".into(), "new_test_file".into()));
            Finding::new(topic, severity, question)
                .titled("The test that shows it")
                .choices(options)
                .recommend(&slug(path))
        }
        None => Finding::new(
            topic,
            severity,
            format!("Which test should {what}? No test names what the item is about."),
        )
        .titled("The test that shows it")
        .options(&[
            ("A unit test beside the code", "unit_test"),
            ("An integration test", "integration_test"),
            ("No test", "no_test"),
        ]),
    }
}

mod answered;
mod behaviour;
mod bug;
mod change;
mod docs;
mod feature;
mod pages;
mod ranked;
mod regression;
mod section;
mod steps;
mod throws;
mod usage;
mod versions;

pub(super) use answered::answered;
pub(super) use bug::bug;
pub(super) use change::{candidates, dependency, refactor};
pub(super) use docs::{docs, performance};
pub(super) use feature::feature;
pub(super) use steps::fragment;
pub(super) use throws::groups as throws_groups;
pub(super) use usage::named_way;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measures_need_a_number_and_a_unit() {
        assert!(has_measure("It should take under 200 ms."));
        assert!(has_measure("2x faster"));
        assert!(has_measure("about 30% less memory"));
        assert!(!has_measure("make it fast"));
        assert!(!has_measure("version 1.2 is slow"));
    }

    #[test]
    fn speed_of_the_program_not_of_a_persons_task() {
        assert!(of_own_speed("It should be fast and simple.", "fast"));
        assert!(of_own_speed("Startup should be quick.", "quick"));
        assert!(of_own_speed("It should respond quickly.", "quickly"));
        assert!(of_own_speed(
            "Loading 500 files must be fast to be usable.",
            "fast"
        ));
        assert!(!of_own_speed(
            "so it would be fast and easy to find the rule",
            "fast"
        ));
        assert!(!of_own_speed(
            "It is quicker to type than the long form.",
            "quick"
        ));
        assert!(!of_own_speed(
            "Is there a quick way to list them all",
            "quick"
        ));
        assert!(!of_own_speed(
            "I want to quickly see which options are set.",
            "quickly"
        ));
    }

    #[test]
    fn a_habit_is_no_regression() {
        let said = |text: &str| worked_before(&super::super::item::Item::new(text));
        assert!(said("# Wrong\n\nIt used to print the count.\n"));
        assert!(said("# Wrong\n\nSince upgrading, the count is gone.\n"));
        assert!(said(
            "# Wrong\n\nAfter the last update the count is gone.\n"
        ));
        assert!(!said(
            "# Wrong\n\nI am used to tools that print the count.\n"
        ));
        assert!(!said(
            "# Wrong\n\nIn git I was used to `git log --count`.\n"
        ));
        assert!(!said("# Wrong\n\nThe tool is focused to counting.\n"));
    }
}
