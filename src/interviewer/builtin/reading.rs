//! What the intent interviewer learnt of one work item, shared by everything that asks and
//! writes from it: the item read, its kind, the names it uses with what the repository holds
//! of each, and the literals searched for beside them.
//!
//! Not for: reading it (`intent::read`) or asking from it (`questions`, `bank`).

use std::path::Path;

use crate::subject::IntentFacts;
use crate::subject::reflect::cap;

use super::item::Item;
use super::kind::Classification;
use super::names::Name;
use super::place::{is_doc, is_test};
use super::repo::RepoFacts;
use super::search::{Found, Hit, Search};

/// Literals searched for alongside the names: how this repository defines command-line flags.
pub(super) const FLAG_CONVENTIONS: &[&str] = &[
    "#[arg(",
    "#[clap(",
    ".long(",
    "add_argument(",
    "@click.option(",
    "Flags().",
    "flag.String(",
    ".option(",
];

/// Literals searched for alongside the names: where short flags are declared, to tell how many
/// letters are taken.
pub(super) const SHORT_DECLS: &[&str] = &[".short(", "short = '", "short='"];

/// Literals searched for alongside the names: how a repository of any ecosystem declares its
/// benchmarks — Rust (`[[bench]]`, criterion, `#[bench]`), Go (`b *testing.B`), Java and Kotlin
/// (JMH's `@Benchmark`), C# (BenchmarkDotNet's `[Benchmark]`), C and C++ (Google Benchmark's and
/// Catch2's `BENCHMARK(`), Python (pytest-benchmark's `benchmark(` fixture, asv), Ruby
/// (`Benchmark.`), JavaScript (benchmark.js's `Benchmark.`, vitest's and tinybench's `bench(`),
/// Swift (XCTest's `measure {`), PHP (PhpBench), Haskell (criterion, gauge), a hyperfine script;
/// then a documented one (a `Benchmark` heading), found last: code that runs is the better one.
pub(super) const BENCHMARKS: &[&str] = &[
    "[[bench]]",
    "criterion_group!",
    "#[bench]",
    "*testing.B)",
    "@Benchmark",
    "[Benchmark",
    "BENCHMARK(",
    "benchmark(",
    "asv.conf.json",
    "Benchmark.",
    "bench(",
    "measure {",
    "PhpBench",
    "Criterion.Main",
    "Gauge.Main",
    "hyperfine",
    "# Benchmark",
    "# Benchmarks",
];

/// Folders that hold a repository's benchmarks, in any ecosystem's convention.
const BENCH_DIRS: &[&str] = &["bench", "benches", "benchmark", "benchmarks"];

/// A definition the item names itself — the function its code calls (`pointed::called`), the one its
/// guess at the cause names (`pointed::suspected`) — as a question names it.
pub(super) struct Cited {
    pub def: super::nearest::Def,
    /// The item's line that names it, and what it writes there (the call `Slop.parse`, the
    /// guessing sentence).
    pub line: u32,
    pub said: String,
    /// Its definition's line, trimmed.
    pub quote: String,
}

/// Everything the interviewer learnt about one work item.
pub(super) struct Reading<'a> {
    pub facts: &'a IntentFacts,
    pub item: Item<'a>,
    pub class: Classification,
    /// The item's question asking for help with what exists (`shape::support_question`), with
    /// its line: a support question, asked what the person is after.
    pub support: Option<(u32, String)>,
    pub names: Vec<Located>,
    /// The repository's definitions nearest to the item's words, best first (`nearest.rs`).
    pub nearest: Vec<super::nearest::Match>,
    /// The documentation files the index read headings of (`bank/ranked.rs` ranks their
    /// sections).
    pub doc_files: Vec<String>,
    /// Definitions that shared words with the item, left out as off the path of the code it
    /// names (`on_path.rs`).
    pub nearest_off_path: usize,
    /// Definitions shared the item's words, none of them standing out from the others
    /// (`standing::standing_out`): no nearest code is given.
    pub nearest_tied: bool,
    /// The function the item's code calls, defined in the repository (`pointed::called`).
    pub called: Option<Cited>,
    /// The definition the item's own guess at the cause names (`pointed::suspected`).
    pub suspected: Option<Cited>,
    /// What already gives what the item wishes for, its cues agreeing (`existing.rs`).
    pub existing: Option<super::existing::Existing>,
    /// What the program reads and how it traces itself (`setup.rs`).
    pub setup: super::setup::Setup,
    /// Where the code a runtime's error names is (`raised.rs`), per message.
    pub raised: Vec<super::raised::Raised>,
    pub search: Search,
    pub repo: RepoFacts,
    pub worktree: &'a Path,
}

impl Reading<'_> {
    /// The repository's benchmark, where it shows one: a harness in code (in the order of
    /// [`BENCHMARKS`]), else a file in a benchmark folder, else a documented one. None only when
    /// every form was searched for and none is there (the search read the whole worktree).
    pub(super) fn benchmark(&self) -> Option<Hit> {
        let documented = |b: &str| b.starts_with('#');
        // A harness is code or a build file's line, never a sentence of the documentation.
        let harness = BENCHMARKS.iter().filter(|b| !documented(b)).find_map(|b| {
            let found = self.search.get(b)?;
            found.hits.iter().find(|h| !is_doc(&h.path))
        });
        let folder = || {
            self.search.paths.iter().find_map(|p| {
                let mut parts = p.split('/');
                parts.next_back();
                parts.any(|d| BENCH_DIRS.contains(&d)).then(|| Hit {
                    path: p.clone(),
                    line: 1,
                    text: String::new(),
                })
            })
        };
        // A heading of the documentation, not a comment of a script.
        let heading = || {
            BENCHMARKS.iter().filter(|b| documented(b)).find_map(|b| {
                let found = self.search.get(b)?;
                found
                    .hits
                    .iter()
                    .find(|h| is_doc(&h.path) && h.text.starts_with('#'))
            })
        };
        harness
            .cloned()
            .or_else(folder)
            .or_else(|| heading().cloned())
    }
}

/// A name from the item with what the repository holds of it.
#[derive(Debug, Clone)]
pub(super) struct Located {
    pub name: Name,
    /// Lines naming it (any spelling searched), in path order, at most 200.
    pub hits: Vec<Hit>,
    /// What the search counted of it, over every file (not only the kept lines).
    pub count: Found,
    /// Where it is defined or declared, when a line looks like it (the first of
    /// `definitions`).
    pub definition: Option<Hit>,
    pub definitions: Vec<Hit>,
}

impl Located {
    pub(super) fn found(&self) -> bool {
        !self.hits.is_empty()
    }

    pub(super) fn in_tests(&self) -> Vec<&Hit> {
        self.hits.iter().filter(|h| is_test(&h.path)).collect()
    }

    pub(super) fn in_docs(&self) -> Vec<&Hit> {
        self.hits.iter().filter(|h| is_doc(&h.path)).collect()
    }

    /// The source-code lines that name it (tests, documentation, manifests and other files
    /// left out).
    pub(super) fn in_code(&self) -> Vec<&Hit> {
        self.count.code.iter().collect()
    }

    /// `name` as the item wrote it, in backticks for a question.
    pub(super) fn shown(&self) -> String {
        super::text::code_span(&cap(&self.name.text, 60))
    }
}

/// The fixed part of a message the item quotes, searched beside it: its longest run of three
/// or more words with nothing a program fills in at run time (a path, a number, a quoted
/// value, a variable) — `pyenv: cannot rehash:` of `pyenv: cannot rehash: /Users/me/… exists`.
/// `None` when the message has no such part other than itself.
pub(super) fn fixed_part(message: &str) -> Option<String> {
    let filled = |w: &str| {
        w.contains(['/', '\\', '"', '\'', '$', '{', '<', '`'])
            || w.chars().any(|c| c.is_ascii_digit())
    };
    let words: Vec<&str> = message.split_whitespace().collect();
    let best = words
        .split(|w| filled(w))
        .filter(|run| run.len() >= 3)
        .map(|run| run.join(" "))
        .max_by_key(String::len)?;
    (best.len() >= 12 && best != words.join(" ")).then_some(best)
}

/// The keys a message is searched by beside itself: its [`fixed_part`], else — a message of
/// four words or more that code may build in pieces (`"… was called with " + "no arguments"`)
/// — its first three words.
pub(super) fn fixed_parts(message: &str) -> Vec<String> {
    let words: Vec<&str> = message.split_whitespace().collect();
    let head = words[..words.len().min(3)].join(" ");
    let mut out: Vec<String> = fixed_part(message).into_iter().collect();
    if out.is_empty() && words.len() >= 4 && head.len() >= 12 {
        out.push(head);
    }
    out
}

impl Reading<'_> {
    /// Where the repository's code prints the fixed part of a message the item quotes that
    /// no source line holds as written ([`fixed_parts`]; a test or the documentation may):
    /// not in tests, documentation or examples; the line that holds most of the message first.
    pub(super) fn printed_at(&self, l: &Located) -> Vec<&Hit> {
        if l.name.kind != super::names::NameKind::Message || !l.in_code().is_empty() {
            return Vec::new();
        }
        let source =
            |h: &&Hit| !is_test(&h.path) && !is_doc(&h.path) && !super::place::secondary(&h.path);
        if l.hits.iter().any(|h| source(&h)) {
            return Vec::new();
        }
        let mut at: Vec<&Hit> = fixed_parts(&l.name.text)
            .iter()
            .filter_map(|k| self.search.get(k))
            .flat_map(|found| found.hits.iter().filter(source))
            .collect();
        // The line holding most of the message's other words first (`… exists`, not `… isn't
        // writable`).
        let words: Vec<&str> = l.name.text.split_whitespace().collect();
        at.sort_by_key(|h| std::cmp::Reverse(words.iter().filter(|w| h.text.contains(*w)).count()));
        // Then the lines holding it as retyped (other capitals, quotes, values for placeholders).
        let retyped = self.search.get(&super::retyped::key(&l.name.text));
        at.extend(
            retyped
                .into_iter()
                .flat_map(|f| f.hits.iter().filter(source)),
        );
        at
    }

    /// The fixed part of `l`'s message that line `at` prints as written, if it is one
    /// ([`fixed_parts`]); none where the line prints the message retyped.
    pub(super) fn printed_part(&self, l: &Located, at: &Hit) -> Option<String> {
        fixed_parts(&l.name.text).into_iter().find(|k| {
            self.search.get(k).is_some_and(|f| {
                f.hits
                    .iter()
                    .any(|h| h.path == at.path && h.line == at.line)
            })
        })
    }
}

/// Whether `a` and `b` name the same package (`a-b` is `a_b`, any case).
pub(super) fn same_package(a: &str, b: &str) -> bool {
    let norm = |s: &str| s.to_lowercase().replace('-', "_");
    norm(a) == norm(b)
}

#[cfg(test)]
mod tests {
    use super::fixed_part;

    #[test]
    fn a_messages_fixed_part_is_its_longest_run_of_words_nothing_fills_in() {
        assert_eq!(
            fixed_part("pyenv: cannot rehash: /Users/me/.pyenv/shims/.pyenv-shim exists")
                .as_deref(),
            Some("pyenv: cannot rehash:")
        );
        assert_eq!(fixed_part("could not parse config file"), None);
        assert_eq!(
            fixed_part("error at line 3").as_deref(),
            Some("error at line")
        );
        assert_eq!(fixed_part("not found: /tmp/x"), None);
    }
}
