//! The code an item is about: what the repository defines — functions, types, flags,
//! environment variables, documentation headings — indexed once per run with the words of their
//! names and of the text beside them (a doc comment, a flag's help), and ranked against all the
//! words of the item with BM25, so that rare words weigh most. What the maintainers asked was
//! almost always about the code nearest to the request: the option that already does it, the
//! function the change would touch. A name inside a test, a lockfile or the item's own file is
//! never a definition.
//!
//! Not for: the names the item spells out (`search.rs`, `defs.rs` check those exactly).

use std::collections::BTreeSet;

use grep::regex::{RegexMatcher, RegexMatcherBuilder};
use regex::Regex;

use super::commands::{self, Commands};
use super::item::Item;
use super::options::{self, Declarations};
use super::place::{is_doc, is_manifest, is_test, secondary};
use super::scan::{self, Listed};
use super::search::Place;
use super::test_code::{is_test_item, test_like, tests_start};
use super::words::{ACTIONS, GENERIC, bm25, words};
use crate::subject::IntentFacts;

/// Definitions kept as the nearest at most (a question names up to three of one sort).
const MAX_NEAREST: usize = 8;

/// The definitions nearest to the item (its title counted twice, its prose and its code), less
/// those the item names itself (the exact search finds and grounds those). A definition is
/// kept only when its name holds a word of the title (not the project's own name, not a
/// bracketed prefix such as `[Console]`) or three of the item's words: a name that shares one
/// common word with the prose is a chance match, and no match is said plainly rather than
/// presented as the place. Which of them stand out enough to be named: `standing`.
pub(super) fn about(
    defs: Vec<Def>,
    f: &IntentFacts,
    item: &Item,
    named: &[&str],
    project: Option<&str>,
) -> Vec<Match> {
    let mut query = words(&f.title);
    query.extend(words(&f.title));
    for (_, line, _) in &item.all {
        query.extend(words(line));
    }
    let spelled = |d: &Def| {
        named.iter().any(|n| {
            n.trim_start_matches('-')
                .eq_ignore_ascii_case(d.name.trim_start_matches('-'))
        })
    };
    let pinned = pointed(&defs, item);
    let defs: Vec<Def> = defs.into_iter().filter(|d| !spelled(d)).collect();
    let own = project.map(words).unwrap_or_default();
    let title: BTreeSet<String> = words(super::text::without_prefix(&f.title))
        .into_iter()
        .filter(|w| !own.contains(w))
        .collect();
    let terms: BTreeSet<&str> = query.iter().map(String::as_str).collect();
    let generic: BTreeSet<String> = GENERIC.iter().flat_map(|w| words(w)).collect();
    let actions: BTreeSet<String> = ACTIONS.iter().flat_map(|w| words(w)).collect();
    let mut ranked = rank(&defs, &query, MAX_NEAREST * 8);
    ranked.retain(|m| {
        let names: BTreeSet<&str> = m.def.name_words.iter().map(String::as_str).collect();
        // What the item asks done counts for nothing: a name made of it and one generic word
        // (`ParameterException` for "a parameter … throws an exception", `remove_argument()` for
        // "remove unused argument") is a chance match.
        let shared: Vec<&str> = names
            .iter()
            .copied()
            .filter(|w| terms.contains(*w) && !actions.contains(*w))
            .collect();
        let in_title = shared.iter().filter(|w| title.contains(**w)).count();
        let telling_in_title = shared
            .iter()
            .filter(|w| title.contains(**w) && !generic.contains(**w))
            .count();
        telling_in_title >= 1 || (in_title >= 1 && shared.len() >= 2) || shared.len() >= 3
    });
    ranked.retain(|m| !pinned.iter().any(|p| p.def.name == m.def.name));
    // A type's member competes only where the item speaks of it or of its type: several
    // similarly worded fields of a type it never names would crowd the margin of the function
    // that matches it best, and take its pointer away.
    ranked.retain(|m| {
        let d = &m.def;
        d.kind != DefKind::Member
            || super::members::spoken_of(d.owner.as_deref(), &d.name, d.name_words(), item)
    });
    ranked.truncate(MAX_NEAREST);
    pinned.into_iter().chain(ranked).collect()
}

/// The definitions as the pointing reads them.
pub(super) fn seen(defs: &[Def]) -> Vec<super::pointed::Defined<'_>> {
    defs.iter()
        .map(|d| super::pointed::Defined {
            name: &d.name,
            path: &d.path,
            line: d.line,
            is_type: d.kind == DefKind::Type,
            heading: d.kind == DefKind::Heading,
            callable: d.kind == DefKind::Function,
        })
        .collect()
}

/// The definition of the member `name` qualifies by its type (`Table.render()` is `render` in
/// `Table`), when the type defines it once.
pub(super) fn member<'d>(defs: &'d [Def], name: &str) -> Option<&'d Def> {
    super::pointed::member(&seen(defs), name).map(|i| &defs[i])
}

/// The definitions the item points at itself (`pointed`), at most two, as matches named
/// whatever their margin.
fn pointed(defs: &[Def], item: &Item) -> Vec<Match> {
    super::pointed::pointed(&seen(defs), &item.lines)
        .into_iter()
        .map(|i| Match {
            def: defs[i].clone(),
            score: 0.0,
            pinned: true,
        })
        .collect()
}

/// Files read for definitions at most, and the largest read.
const MAX_FILES: usize = 50_000;
const MAX_FILE_BYTES: u64 = 512 * 1024;
/// Definitions kept at most (the index's bound on memory).
const MAX_DEFS: usize = 200_000;

/// What a definition is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum DefKind {
    Flag,
    /// A command of the program (`tool init`): a command file or a parser's declaration.
    Subcommand,
    Function,
    Type,
    EnvVar,
    Heading,
    /// A field, property or enum variant of a type (`owner`): `Command.Hidden`.
    Member,
}

/// One thing the repository defines, where, and the words it is found by.
#[derive(Debug, Clone)]
pub(super) struct Def {
    pub kind: DefKind,
    /// As the code spells it: `--color`, `parse_args`, `Config`, `RUST_LOG`, `Installation`.
    pub name: String,
    pub path: String,
    pub line: u32,
    /// The type a member belongs to (`Command` of `Command.Hidden`).
    pub owner: Option<String>,
    /// The words of its name (stemmed), then those of the text beside it.
    name_words: Vec<String>,
    words: Vec<String>,
}

impl Def {
    /// One definition as the index would read it, for tests elsewhere.
    #[cfg(test)]
    pub(super) fn new(kind: DefKind, name: &str, path: &str, line: u32, beside: &str) -> Def {
        Def {
            kind,
            name_words: words(name),
            words: words(beside),
            name: name.to_string(),
            path: path.to_string(),
            line,
            owner: None,
        }
    }

    /// `--color`, `parse_args()`, `Config`, "Installation": as a question names it.
    pub(super) fn named(&self) -> String {
        match self.kind {
            DefKind::Flag | DefKind::EnvVar | DefKind::Type => format!("`{}`", self.name),
            DefKind::Function => format!("`{}()`", self.name),
            // A command file's is as typed (`tool init`); a declaration's, its name alone.
            DefKind::Subcommand if self.name.contains(' ') => format!("`{}`", self.name),
            DefKind::Subcommand => format!("the `{}` command", self.name),
            DefKind::Heading => format!("\"{}\"", self.name),
            DefKind::Member => format!("`{}.{}`", self.owner.as_deref().unwrap_or(""), self.name),
        }
    }

    /// The words of its name (stemmed).
    pub(super) fn name_words(&self) -> &[String] {
        &self.name_words
    }

    /// The words of its name, then those of its doc or usage text (stemmed).
    pub(super) fn all_words(&self) -> impl Iterator<Item = &String> {
        self.name_words.iter().chain(&self.words)
    }

    /// `--color` (src/app.rs:120): named with where it is.
    pub(super) fn shown(&self) -> String {
        format!("{} ({}:{})", self.named(), self.path, self.line)
    }
}

/// A definition ranked against an item.
#[derive(Debug, Clone)]
pub(super) struct Match {
    pub def: Def,
    pub score: f64,
    /// The item points at it itself: named whatever the margin (`standing`).
    pub pinned: bool,
}

/// The index's side of the reading: the definitions of the worktree's code and documentation
/// (tests, samples, lockfiles, manifests, the item's own file and the tool's own files and
/// documents — wherever they were written — left out), and the patterns that find them.
pub(super) struct Indexing<'s> {
    patterns: Patterns,
    prefilter: RegexMatcher,
    skip: &'s [String],
}

impl<'s> Indexing<'s> {
    pub(super) fn new(skip: &'s [String]) -> Option<Indexing<'s>> {
        Some(Indexing {
            patterns: Patterns::new(),
            prefilter: RegexMatcherBuilder::new()
                .build(&format!(
                    "{}|{}|{}",
                    Patterns::PREFILTER,
                    options::PREFILTER,
                    commands::PREFILTER
                ))
                .ok()?,
            skip,
        })
    }

    /// The definitions of one file (None: a file the index leaves out).
    pub(super) fn read(&self, file: &Listed, bytes: &[u8]) -> Option<Vec<Def>> {
        if file.len > MAX_FILE_BYTES {
            return None;
        }
        let rel = &file.rel;
        let doc =
            indexed(rel, self.skip).or_else(|| script(rel, bytes, self.skip).then_some(false))?;
        let mut candidates: Vec<u32> = Vec::new();
        scan::matching_lines(&self.prefilter, bytes, |n, _| {
            candidates.push(u32::try_from(n).unwrap_or(u32::MAX));
            Ok(true)
        });
        let mut defs = Vec::new();
        // A git-style command file (`libexec/tool-init`) is a command, said by its summary.
        if !doc
            && commands::command_path(rel).is_some()
            && let Ok(text) = std::str::from_utf8(scan::text_part(bytes))
            && let Some((sub, line, summary)) = commands::command_file(rel, text)
        {
            let file = rel.rsplit('/').next().unwrap_or(rel);
            let program = file.split_once('-').map_or(file, |(p, _)| p);
            defs.push(Def {
                kind: DefKind::Subcommand,
                name_words: words(&sub),
                words: words(&summary),
                name: format!("{program} {sub}"),
                path: rel.clone(),
                line,
                owner: None,
            });
        }
        // The lines around a candidate, only when the file has one.
        if candidates.is_empty() {
            return Some(defs);
        }
        let Ok(text) = std::str::from_utf8(bytes) else {
            return Some(defs);
        };
        let all: Vec<&str> = text.lines().collect();
        // A document the tool wrote (wherever it was put) is no definition of the repository.
        if doc && all.iter().any(|l| l.starts_with(crate::document::LEGEND)) {
            return Some(defs);
        }
        let tests_from = tests_start(&all);
        for n in candidates {
            let i = n as usize - 1;
            if i >= tests_from || is_test_item(&all, i) {
                continue;
            }
            let Some(line) = all.get(i) else { continue };
            for (kind, name) in self.patterns.defs(line, Doc::of(rel, doc)) {
                // A type's fields, properties and variants, with the type's name beside them.
                if kind == DefKind::Type {
                    defs.extend(member_defs(&all, i, rel, &name));
                }
                // A flag's or a command's help is on the two lines below it.
                let below = 2 * usize::from(matches!(kind, DefKind::Flag | DefKind::Subcommand));
                let beside = super::text::beside(&all, i, below);
                defs.push(Def {
                    kind,
                    name_words: words(&name),
                    words: words(&beside),
                    name,
                    path: rel.clone(),
                    line: n,
                    owner: None,
                });
            }
        }
        Some(defs)
    }
}

/// The members of the type `owner` declared on line `at` of the file `rel`, as definitions.
fn member_defs(all: &[&str], at: usize, rel: &str, owner: &str) -> Vec<Def> {
    let members = super::members::of(all, at, rel).into_iter();
    members
        .map(|(name, line)| Def {
            kind: DefKind::Member,
            name_words: words(&name),
            words: words(&format!(
                "{owner} {}",
                super::text::beside(all, line as usize - 1, 0)
            )),
            name,
            path: rel.to_string(),
            line,
            owner: Some(owner.to_string()),
        })
        .collect()
}

/// The index, taken file by file in walk order, bounded in files and definitions.
#[derive(Default)]
pub(super) struct IndexFold {
    pub defs: Vec<Def>,
    files: usize,
    full: bool,
}

impl IndexFold {
    /// Add one file's definitions; false once the index holds enough.
    pub(super) fn take(&mut self, defs: Option<Vec<Def>>) -> bool {
        if self.full {
            return false;
        }
        let Some(defs) = defs else {
            return true;
        };
        self.files += 1;
        if self.files > MAX_FILES || self.defs.len() >= MAX_DEFS {
            self.full = true;
            return false;
        }
        self.defs.extend(defs);
        true
    }
}

/// Whether the file at `rel` is indexed, and then whether as documentation (its headings)
/// rather than code: never a test, a sample, a lockfile, a manifest, the item's own file or the
/// tool's own files.
fn indexed(rel: &str, skip: &[String]) -> Option<bool> {
    let lower = rel.to_ascii_lowercase();
    // An issue template's prompts are the tracker's, not the project's documentation.
    let template = lower.starts_with(".github/") || lower.contains("issue_template");
    let doc = is_doc(rel) && Doc::of(rel, true).is_some() && !template;
    let left_out = skip.iter().any(|s| s == rel)
        || super::search::own_file(rel)
        || is_test(rel)
        || test_like(rel)
        || secondary(rel)
        || is_manifest(rel)
        || !(Place::of(rel) == Place::Code || doc);
    (!left_out).then_some(doc)
}

/// How a documentation file writes its headings.
#[derive(Clone, Copy)]
enum Doc {
    Markdown,
    AsciiDoc,
}

impl Doc {
    /// The style of the file at `rel`, when it is indexed as documentation (`doc`).
    fn of(rel: &str, doc: bool) -> Option<Doc> {
        let lower = rel.to_ascii_lowercase();
        match () {
            _ if !doc => None,
            _ if lower.ends_with(".md") => Some(Doc::Markdown),
            _ if lower.ends_with(".adoc") => Some(Doc::AsciiDoc),
            _ => None,
        }
    }
}

/// Whether the file at `rel` is a script without an extension (`libexec/pyenv-rehash`, a `#!`
/// first line) where a script with one would be indexed as code.
/// Build tools' wrappers (`mvnw`, `gradlew`) are not the project's.
fn script(rel: &str, bytes: &[u8], skip: &[String]) -> bool {
    let file = rel.rsplit('/').next().unwrap_or(rel);
    !file.contains('.')
        && !matches!(
            file,
            "mvnw" | "gradlew" | "configure" | "install-sh" | "depcomp"
        )
        && bytes.starts_with(b"#!")
        && indexed(&format!("{rel}.sh"), skip) == Some(false)
}

struct Patterns {
    function: Regex,
    ty: Regex,
    flag: Declarations,
    command: Commands,
    env: Regex,
    heading: Regex,
    adoc_heading: Regex,
}

impl Patterns {
    /// What a line must hold to be looked at (the search's literal prefilter).
    const PREFILTER: &'static str = r#"\(\)\s*\{|^[A-Za-z_][^;("']*::[A-Za-z_]\w*\s*\(|\b(public|private|protected|internal|fn|def|func|function|fun|sub|struct|enum|trait|class|interface|type|protocol|module|record|object)\s|--[a-z]|\blong\b|\.option\(|Flags\(\)|(env|getenv|environ|Getenv|ENV)\b|-[nz] "?\$\{?[A-Z]|\$\{[A-Z][A-Z0-9_]*:?[-=]|^#{1,4} |^={1,4} "#;

    fn new() -> Patterns {
        let re = |s: &str| Regex::new(s).expect("a fixed pattern");
        Patterns {
            // A Java or C# method has no keyword: its modifiers, a return type, its name.
            // Kotlin's `fun <T> Receiver<T>.name(` names `name`; a C++ definition outside its
            // class (`Type Class::name(…)`, unindented, no `;`) has no keyword either.
            function: re(
                r#"\b(?:fn|def|func|function|fun|sub)\s+(?:\([^)]*\)\s*)?(?:<[^>]*>\s*)?(?:[A-Za-z_][\w.]*(?:<[^(]*?>)?\??\.)?([A-Za-z_][A-Za-z0-9_]*)|^\s*([A-Za-z_][A-Za-z0-9_]*)\s*\(\)\s*\{|^\s*(?:(?:public|private|protected|internal|static|final|abstract|override|virtual|async|synchronized|default)\s+)+[A-Za-z_][\w<>\[\],.?]*\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(|^(?:[A-Za-z_][\w:<>,*&]*[\s*&]+)*(?:[A-Za-z_]\w*(?:<[^<>()]*>)?::)+([A-Za-z_]\w*)\s*\([^;{}()"']*(?:\)\s*(?:const\s*)?(?:noexcept\s*)?\{?)?\s*$"#,
            ),
            ty: re(
                r"\b(?:struct|enum|trait|class|interface|type|protocol|module|record|object)\s+([A-Za-z_][A-Za-z0-9_]*)",
            ),
            flag: Declarations::new(),
            command: Commands::new(),
            // A shell script reads a variable from its environment where it tests it
            // (`[ -n "$PYENV_DEBUG" ]`) or gives it a default (`${BATS_TMPDIR:-/tmp}`).
            env: re(
                r#"(?:env::var(?:_os)?|getenv|environ(?:\.get)?|Getenv|process\.env|ENV|System\.getenv)\W{0,3}([A-Z][A-Z0-9_]{2,})|-[nz] "?\$\{?([A-Z][A-Z0-9_]{2,})|\$\{([A-Z][A-Z0-9_]{2,}):?[-=]"#,
            ),
            heading: re(r"^#{1,4}\s+(.+?)\s*#*$"),
            // AsciiDoc's section titles (`== Default Values`); `=` alone is the document's title.
            adoc_heading: re(r"^={2,5}\s+(\S.*?)\s*$"),
        }
    }

    /// The definitions one line holds. A flag counts where code declares it (a string
    /// literal), never inside a comment or another program's command line.
    fn defs(&self, line: &str, doc: Option<Doc>) -> Vec<(DefKind, String)> {
        if let Some(style) = doc {
            let heading = match style {
                Doc::Markdown => &self.heading,
                Doc::AsciiDoc => &self.adoc_heading,
            };
            return heading
                .captures(line)
                .map(|c| {
                    (
                        DefKind::Heading,
                        super::text::without_tags(&c[1])
                            .trim_matches('`')
                            .to_string(),
                    )
                })
                .filter(|(_, h)| !h.is_empty())
                .into_iter()
                .collect();
        }
        let t = line.trim_start();
        let comment = COMMENTS.iter().any(|c| t.starts_with(c))
            || t == "*"
            || (t.starts_with('#') && !t.starts_with("#[") && !t.starts_with("#!"));
        if comment {
            return Vec::new();
        }
        let mut out = Vec::new();
        // An import names a path; `module Pager.Config` defines the path, not `Pager`.
        let path_line = PATH_LINES.iter().any(|k| t.starts_with(k));
        for (re, kind) in [
            (&self.function, DefKind::Function),
            (&self.ty, DefKind::Type),
        ] {
            if let Some(name) = re
                .captures(line)
                .filter(|c| {
                    !path_line && !super::text::in_string(line, c.get(0).map_or(0, |m| m.start()))
                })
                .and_then(|c| (1..=4).find_map(|i| c.get(i)))
                .filter(|m| !line[m.end()..].starts_with('.') && !line[m.end()..].starts_with("::"))
                .map(|m| m.as_str().to_string())
            {
                let test = name.starts_with("test") || name.starts_with("Test");
                if name.len() > 2 && !test && !KEYWORDS.contains(&name.as_str()) {
                    out.push((kind, name));
                }
            }
        }
        if let Some(name) = self.command.name(line) {
            out.push((DefKind::Subcommand, name));
        }
        // `--help` and `--version` left out: every program has them.
        for name in self.flag.names(line) {
            out.push((DefKind::Flag, name));
        }
        for c in self.env.captures_iter(line) {
            if let Some(name) = c.get(1).or_else(|| c.get(2)).or_else(|| c.get(3)) {
                out.push((DefKind::EnvVar, name.as_str().to_string()));
            }
        }
        out
    }
}

/// How a comment line starts, in the languages indexed (`#` apart: `#[` and `#!` are code).
const COMMENTS: &[&str] = &[
    "//", "* ", "/*", "-- ", "--|", "{-", ";", "%", "\"\"\"", "'''", "<!--", "rem ",
];

/// How a line that only names a path starts (an import, a package, a namespace).
const PATH_LINES: &[&str] = &[
    "import ",
    "package ",
    "namespace ",
    "using ",
    "use ",
    "from ",
];

/// Words after a definition keyword that are not names.
const KEYWORDS: &[&str] = &["self", "this", "new", "main", "test", "init", "fmt", "from"];

/// The definitions that best match `query` (the item's words), best first, at most `max`: each
/// must match at least one of the item's words in its name, and the score counts the name's
/// matches twice. Equal scores keep the index's order (path, line): the same input gives the
/// same answer.
pub(super) fn rank(defs: &[Def], query: &[String], max: usize) -> Vec<Match> {
    if defs.is_empty() || query.is_empty() {
        return Vec::new();
    }
    // A name's words count twice.
    let docs: Vec<Vec<&str>> = defs
        .iter()
        .map(|d| {
            d.name_words
                .iter()
                .chain(&d.name_words)
                .chain(&d.words)
                .map(String::as_str)
                .collect()
        })
        .collect();
    let scores = bm25(&docs, query);
    let terms: BTreeSet<&str> = query.iter().map(String::as_str).collect();
    let mut scored: Vec<Match> = Vec::new();
    for (d, score) in defs.iter().zip(scores) {
        // Named by the item: two of its words in the name, or the whole of a one-word name.
        let name = &d.name_words;
        let first = |i: usize| !name[..i].contains(&name[i]);
        let in_name = (0..name.len())
            .filter(|&i| first(i) && terms.contains(name[i].as_str()))
            .count();
        let unique_name = (0..name.len()).filter(|&i| first(i)).count();
        if !(in_name >= 2 || (in_name == 1 && unique_name == 1)) {
            continue;
        }
        scored.push(Match {
            def: d.clone(),
            score,
            pinned: false,
        });
    }
    scored.sort_by(|a, b| b.score.total_cmp(&a.score));
    // One place per name: its first definition by score.
    let mut seen = BTreeSet::new();
    scored.retain(|m| seen.insert(m.def.name.clone()));
    scored.truncate(max);
    scored
}

#[cfg(test)]
mod tests {
    use super::*;

    fn def(kind: DefKind, name: &str, beside: &str) -> Def {
        Def {
            kind,
            name: name.into(),
            path: "src/a.rs".into(),
            line: 1,
            name_words: words(name),
            words: words(beside),
            owner: None,
        }
    }

    #[test]
    fn a_rare_word_of_the_item_outranks_a_common_one() {
        let mut defs: Vec<Def> = (0..20)
            .map(|i| def(DefKind::Function, &format!("read_file_{i}"), "read a file"))
            .collect();
        defs.push(def(
            DefKind::Flag,
            "--max-columns",
            "Don't print lines longer than this limit",
        ));
        let query =
            words("Print a preview of long lines instead of omitting them, with max columns");
        let ranked = rank(&defs, &query, 3);
        assert_eq!(ranked[0].def.name, "--max-columns", "{ranked:?}");
    }

    #[test]
    fn a_definition_must_match_by_its_name() {
        let defs = vec![def(DefKind::Function, "run", "sort the colors")];
        assert!(rank(&defs, &words("sort colors"), 3).is_empty());
        // One word of a longer name is not enough; the whole of a one-word name is.
        let defs = vec![
            def(DefKind::Function, "print_entry", ""),
            def(DefKind::Type, "Subcommand", ""),
        ];
        let ranked = rank(&defs, &words("nested subcommands of each entry"), 3);
        assert_eq!(ranked.len(), 1);
        assert_eq!(ranked[0].def.name, "Subcommand");
    }

    #[test]
    fn lines_give_their_definitions() {
        let p = Patterns::new();
        let got = |line: &str| p.defs(line, None);
        assert_eq!(
            got("    pub fn parse_args(argv: &[String]) -> Args {"),
            vec![(DefKind::Function, "parse_args".to_string())]
        );
        assert_eq!(
            got(r#"        .arg(Arg::new("color").long("color").help("When to use colors"))"#),
            vec![(DefKind::Flag, "--color".to_string())]
        );
        assert_eq!(
            got(r#"    #[arg(long = "max-columns", short = 'M')]"#),
            vec![(DefKind::Flag, "--max-columns".to_string())]
        );
        assert_eq!(
            got(r#"  .option('-p, --port <number>', 'port')"#),
            vec![(DefKind::Flag, "--port".to_string())]
        );
        assert_eq!(
            got(r#"  cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "talk")"#),
            vec![(DefKind::Flag, "--verbose".to_string())]
        );
        // Another program's command line is no declaration of this one's.
        assert!(got(r#"    run("git log --oneline")"#).is_empty());
        // A path names no definition of its first segment; a class declared with a colon is one.
        for path in [
            "module Pager.Config (width) where",
            "import type Pager from './pager'",
        ] {
            assert!(got(path).is_empty(), "{path}");
        }
        assert_eq!(
            got("class Pager:"),
            vec![(DefKind::Type, "Pager".to_string())]
        );
        assert_eq!(
            got(r#"  program.option('--no-color', 'disable colors')"#),
            vec![(DefKind::Flag, "--no-color".to_string())]
        );
        assert_eq!(
            got(r#"    let level = std::env::var("RUST_LOG").ok();"#),
            vec![(DefKind::EnvVar, "RUST_LOG".to_string())]
        );
        assert!(got("// fn commented_out()").is_empty());
        // A comment of any language, a usage or help string: text, not a definition.
        assert!(got("-- | This function behaves like the other one").is_empty());
        assert!(got(r#"    "Usage: rg [OPTIONS] — type rg --help","#).is_empty());
        assert!(got(r#"  .option('-h, --help', 'show help')"#).is_empty());
        // A Kotlin extension function names itself after its receiver, a C++ definition
        // outside its class after its qualifier, the return type on the line above or not.
        for (line, name) in [
            (
                "fun <T : Any> Processed<T, T>.repeated(min: Int = 0) {",
                "repeated",
            ),
            ("public fun Nullable<Each, Value>.repeated(", "repeated"),
            ("fun String.shout(): String = uppercase()", "shout"),
            ("Parser::add_positional(std::string name)", "add_positional"),
            (
                "std::string Parser::help_text(const Groups& g) const {",
                "help_text",
            ),
        ] {
            assert_eq!(
                got(line),
                vec![(DefKind::Function, name.to_string())],
                "{line}"
            );
        }
        // A qualified call is no definition: it ends a statement, or it is indented, or
        // passes a literal.
        for call in [
            "Parser::add_positional(name);",
            "    Parser::add_positional(name)",
            "Route::get('/', function () {",
        ] {
            assert!(got(call).is_empty(), "{call}");
        }
        assert_eq!(
            got("pyenv_rehash() {"),
            vec![(DefKind::Function, "pyenv_rehash".to_string())]
        );
        assert_eq!(
            p.defs(
                r#"### <a id="number-towords">Number to words</a>"#,
                Some(Doc::Markdown)
            ),
            vec![(DefKind::Heading, "Number to words".to_string())]
        );
        assert_eq!(
            p.defs("## Configuration file", Some(Doc::Markdown)),
            vec![(DefKind::Heading, "Configuration file".to_string())]
        );
        // AsciiDoc's section titles, never its document title nor a Markdown file's `==`.
        assert_eq!(
            p.defs("== Default Values", Some(Doc::AsciiDoc)),
            vec![(DefKind::Heading, "Default Values".to_string())]
        );
        assert!(p.defs("= Picocli", Some(Doc::AsciiDoc)).is_empty());
        assert!(p.defs("== not a heading", Some(Doc::Markdown)).is_empty());
    }
}
