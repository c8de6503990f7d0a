//! Finding what a work item names in the repository: one pass over the worktree with ripgrep's
//! `ignore` walker (ignore files respected, `.git/` and `.interview/` never entered) and `grep`
//! searcher, bounded in files, bytes and hits — never in time, so the same tree gives the same
//! result on any machine. Nothing found in the work item itself or in the tool's own files
//! (earlier interview documents, answers files, `interview.toml`) counts.

use std::collections::BTreeMap;

use grep::regex::{RegexMatcher, RegexMatcherBuilder};
use memchr::memmem::Finder;

use super::scan::{self, Listed};
use super::text::one_line;
use crate::document::LEGEND;
pub(super) use crate::subject::is_own_path as own_file;

/// At most this many files are read (as many as the index of definitions reads: the two share
/// one reading of the worktree).
const MAX_FILES: usize = 50_000;
/// All files together are read at most this far.
const MAX_TOTAL_BYTES: u64 = 256 * 1024 * 1024;
/// Lines kept per name (the count goes on).
const MAX_HITS_PER_NAME: usize = 200;
/// The key that makes a `.json` file an answers file (docs/ci.md): the tool's own, no evidence.
const ANSWERS_KEY: &str = "\"interview_answers\"";
/// Whether a line of `rel` shows the file is an answers file: a `.json` file with the
/// `"interview_answers"` key.
fn answers_line(rel: &str, line: &str) -> bool {
    rel.ends_with(".json")
        && line
            .find(ANSWERS_KEY)
            .is_some_and(|at| line[at + ANSWERS_KEY.len()..].trim_start().starts_with(':'))
}

/// One line where a name occurs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Hit {
    pub path: String,
    pub line: u32,
    /// The line, trimmed and on one line, at most 160 characters.
    pub text: String,
}

impl Hit {
    pub(super) fn cite(&self) -> String {
        format!("{}:{}", self.path, self.line)
    }
}

/// One name searched for: the spellings that count as it (`--no-pager`, `"no-pager"`,
/// `no_pager`), and, for a name qualified by another crate (`yansi::Color`), that crate: its
/// bare name (`Color`) counts only in files that also name the crate.
#[derive(Debug, Clone)]
pub(super) struct Group {
    pub key: String,
    pub spellings: Vec<String>,
    pub within: Option<String>,
}

impl Group {
    pub(super) fn one(text: &str) -> Group {
        Group {
            key: text.to_string(),
            spellings: vec![text.to_string()],
            within: None,
        }
    }
}

/// Everything found for one name. A line counts once, whichever spellings it holds.
#[derive(Debug, Clone, Default)]
pub(super) struct Found {
    /// The lines, in path order, at most [`MAX_HITS_PER_NAME`].
    pub hits: Vec<Hit>,
    /// Lines of source code (not tests, documentation, manifests or other files), in path
    /// order, at most [`MAX_HITS_PER_NAME`]: the first of them may lie beyond `hits`.
    pub code: Vec<Hit>,
    /// How many lines matched in all (beyond the kept ones too), and in how many files.
    pub total: usize,
    pub files: usize,
    /// How many of the lines are in tests, in documentation, and in source code.
    pub test_lines: usize,
    pub doc_lines: usize,
    pub code_lines: usize,
    /// How many files of each of those places.
    pub code_files: usize,
    pub test_files: usize,
}

impl Found {
    /// Count one more line (a definition found by its structure, not by a spelling).
    pub(super) fn add(&mut self, hit: &Hit) {
        if self
            .hits
            .iter()
            .any(|h| h.path == hit.path && h.line == hit.line)
        {
            return;
        }
        let new_file = !self.hits.iter().any(|h| h.path == hit.path);
        self.total += 1;
        self.files += usize::from(new_file);
        match Place::of(&hit.path) {
            Place::Test => {
                self.test_lines += 1;
                self.test_files += usize::from(new_file);
            }
            Place::Doc => self.doc_lines += 1,
            Place::Code => {
                self.code_lines += 1;
                self.code_files += usize::from(new_file);
                self.code.push(hit.clone());
                self.code
                    .sort_by(|a, b| a.path.cmp(&b.path).then(a.line.cmp(&b.line)));
            }
            Place::Other => {}
        }
        self.hits.push(hit.clone());
        self.hits
            .sort_by(|a, b| a.path.cmp(&b.path).then(a.line.cmp(&b.line)));
    }

    /// The counts of exactly these lines.
    pub(super) fn of_hits(hits: &[Hit]) -> Found {
        let mut f = Found::default();
        for h in hits {
            f.add(h);
        }
        f
    }
}

/// The result of one search.
#[derive(Debug, Default)]
pub(super) struct Search {
    pub found: BTreeMap<String, Found>,
    pub files_read: usize,
    /// The repository-relative paths of the files read, in walk order.
    pub paths: Vec<String>,
    /// Why the search stopped early, when it did.
    pub stopped: Option<String>,
}

impl Search {
    /// Where a name the search did not find is absent: "nowhere in the repository", or, when the
    /// search stopped at a bound, only in the files it read — never more than was searched.
    pub(super) fn nowhere(&self) -> String {
        match &self.stopped {
            None => "nowhere in the repository".to_string(),
            Some(why) => format!(
                "in none of the {} files read (the search stopped {why})",
                self.files_read
            ),
        }
    }

    pub(super) fn get(&self, name: &str) -> Option<&Found> {
        self.found.get(name).filter(|f| !f.hits.is_empty())
    }
}

/// Search the worktree for every group (exact, case-sensitive, as a whole word), leaving out the
/// files in `skip` (repository-relative paths), the tool's own files ([`own_file`]), any
/// interview document (a file with a line starting with the documents' legend) and any answers
/// file (a `.json` file with the `"interview_answers"` key).
#[cfg(test)]
pub(super) fn search(worktree: &std::path::Path, groups: &[Group], skip: &[String]) -> Search {
    let Some(reader) = Searching::new(groups, skip) else {
        return Search::default();
    };
    let mut fold = SearchFold::default();
    scan::in_walk_order(
        &scan::list(worktree),
        |file, bytes| reader.read(file, bytes),
        |file, hits| fold.take(&reader, file, hits),
    );
    fold.result
}

/// What one file gave the search: its hits (group index, line), or that it is the tool's own
/// document or answers file.
pub(super) struct FileHits {
    document: bool,
    hits: Vec<(usize, Hit)>,
}

/// The search's side of the reading: the groups and the one matcher for all their spellings.
pub(super) struct Searching<'g> {
    groups: Vec<&'g Group>,
    /// Each group's spellings, and its `within`, ready to be found in a line.
    finders: Vec<(Vec<Finder<'g>>, Option<Finder<'g>>)>,
    matcher: RegexMatcher,
    skip: &'g [String],
}

impl<'g> Searching<'g> {
    /// None when there is nothing to search for.
    pub(super) fn new(groups: &'g [Group], skip: &'g [String]) -> Option<Searching<'g>> {
        let groups: Vec<&Group> = groups
            .iter()
            .filter(|g| g.spellings.iter().any(|s| !s.trim().is_empty()))
            .collect();
        if groups.is_empty() {
            return None;
        }
        let (retyped, exact): (Vec<&&Group>, Vec<&&Group>) = groups
            .iter()
            .partition(|g| g.key.starts_with(super::retyped::KEY));
        // A retyped message's lines hold two of its neighbouring words in any case.
        let pairs: Vec<String> = retyped
            .iter()
            .flat_map(|g| &g.spellings)
            .flat_map(|s| super::retyped::pairs(s))
            .collect();
        let mut literals: Vec<&str> = exact
            .iter()
            .flat_map(|g| g.spellings.iter().chain(&g.within))
            .chain(&pairs)
            .map(String::as_str)
            .filter(|s| !s.trim().is_empty())
            .collect();
        literals.push(LEGEND);
        literals.push(ANSWERS_KEY);
        literals.sort_unstable();
        literals.dedup();
        // The prefilter only: every exact spelling is still matched with its case below.
        let matcher = RegexMatcherBuilder::new()
            .fixed_strings(true)
            .case_insensitive(!pairs.is_empty())
            .build_literals(&literals)
            .ok()?;
        let finders = groups
            .iter()
            .map(|g| {
                let spellings = g.spellings.iter().map(Finder::new).collect();
                (spellings, g.within.as_ref().map(Finder::new))
            })
            .collect();
        Some(Searching {
            groups,
            finders,
            matcher,
            skip,
        })
    }

    /// The hits of one file (None: a file the search leaves out).
    pub(super) fn read(&self, file: &Listed, bytes: &[u8]) -> Option<FileHits> {
        let rel = &file.rel;
        if self.skip.contains(rel) || own_file(rel) {
            return None;
        }
        let mut hits: Vec<(usize, Hit)> = Vec::new();
        // Names qualified by a crate count only in a file that names the crate.
        let mut named: Vec<&str> = Vec::new();
        let mut document = false;
        scan::matching_lines(&self.matcher, bytes, |line_number, line| {
            if line.starts_with(LEGEND) || answers_line(rel, line) {
                document = true;
                return Ok(false);
            }
            for (i, (group, (spellings, within))) in
                self.groups.iter().zip(&self.finders).enumerate()
            {
                if let (Some(w), Some(finder)) = (&group.within, within)
                    && !named.contains(&w.as_str())
                    && has_name_by(line, finder)
                {
                    named.push(w);
                }
                let found = if group.key.starts_with(super::retyped::KEY) {
                    group
                        .spellings
                        .iter()
                        .any(|s| super::retyped::holds(line, s))
                } else {
                    spellings.iter().any(|f| has_name_by(line, f))
                };
                if found {
                    hits.push((
                        i,
                        Hit {
                            path: rel.clone(),
                            line: u32::try_from(line_number).unwrap_or(u32::MAX),
                            text: one_line(line, 160),
                        },
                    ));
                }
            }
            Ok(true)
        });
        hits.retain(|(i, _)| {
            self.groups[*i]
                .within
                .as_ref()
                .is_none_or(|w| named.contains(&w.as_str()))
        });
        Some(FileHits { document, hits })
    }
}

/// The search's result, taken file by file in walk order, bounded in files and bytes.
#[derive(Default)]
pub(super) struct SearchFold {
    pub result: Search,
    bytes: u64,
}

impl SearchFold {
    /// Count one file's hits; false once the search has read enough.
    pub(super) fn take(&mut self, s: &Searching, file: &Listed, hits: Option<FileHits>) -> bool {
        let result = &mut self.result;
        if result.stopped.is_some() {
            return false;
        }
        let Some(FileHits { document, hits }) = hits else {
            return true;
        };
        if result.files_read >= MAX_FILES {
            result.stopped = Some(format!("after {MAX_FILES} files"));
            return false;
        }
        if self.bytes >= MAX_TOTAL_BYTES {
            result.stopped = Some(format!("after {} MiB", MAX_TOTAL_BYTES >> 20));
            return false;
        }
        self.bytes += file.len;
        result.paths.push(file.rel.clone());
        if document {
            return true;
        }
        result.files_read += 1;
        let place = Place::of(&file.rel);
        let mut counted_in: Vec<usize> = Vec::new();
        for (i, hit) in hits {
            let group = s.groups[i];
            let f = result.found.entry(group.key.clone()).or_default();
            f.total += 1;
            let first_in_file = !counted_in.contains(&i);
            if first_in_file {
                counted_in.push(i);
                f.files += 1;
            }
            match place {
                Place::Test => {
                    f.test_lines += 1;
                    f.test_files += usize::from(first_in_file);
                }
                Place::Doc => f.doc_lines += 1,
                Place::Code => {
                    f.code_lines += 1;
                    f.code_files += usize::from(first_in_file);
                    if f.code.len() < MAX_HITS_PER_NAME {
                        f.code.push(hit.clone());
                    }
                }
                Place::Other => {}
            }
            if f.hits.len() < MAX_HITS_PER_NAME {
                f.hits.push(hit);
            }
        }
        true
    }
}

/// What a file of the repository is, for counting where a name occurs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Place {
    /// Source code: a file of a programming language, outside tests.
    Code,
    Test,
    /// Documentation: `docs/`, Markdown, text, man pages.
    Doc,
    /// Manifests, lockfiles, licences, packaging and CI scripts, data.
    Other,
}

/// Extensions of source code.
const CODE_EXTS: &[&str] = &[
    "rs", "c", "h", "cc", "cpp", "hpp", "cxx", "py", "pyi", "go", "js", "mjs", "cjs", "ts", "tsx",
    "jsx", "java", "kt", "kts", "scala", "rb", "swift", "cs", "fs", "php", "pl", "pm", "lua",
    "zig", "nim", "ex", "exs", "erl", "hs", "ml", "mli", "dart", "m", "mm", "vue", "svelte", "clj",
    "r", "jl", "sh", "bash", "zsh", "fish", "ps1",
];

/// Whether the file at `path` is written in a programming language (a test's code, not its
/// fixture: `tests/app_settings.rs`, not `tests/app.yml`).
pub(super) fn in_code(path: &str) -> bool {
    path.rsplit('/')
        .next()
        .and_then(|f| f.rsplit_once('.'))
        .is_some_and(|(_, ext)| CODE_EXTS.contains(&ext.to_lowercase().as_str()))
}

impl Place {
    pub(super) fn of(path: &str) -> Place {
        if super::place::is_test(path) {
            return Place::Test;
        }
        if super::place::is_doc(path) {
            return Place::Doc;
        }
        let lower = path.to_lowercase();
        let file = lower.rsplit('/').next().unwrap_or(&lower);
        let packaging = lower.split('/').any(|s| {
            matches!(
                s,
                ".github"
                    | ".gitlab"
                    | "ci"
                    | ".ci"
                    | "pkg"
                    | "packaging"
                    | "debian"
                    | "snap"
                    | "contrib"
                    | "dist"
                    | "scripts"
                    | "script"
                    | "vendor"
                    | "third_party"
            )
        });
        let code = file
            .rsplit_once('.')
            .is_some_and(|(_, ext)| CODE_EXTS.contains(&ext));
        if code && !packaging && !super::place::is_manifest(path) {
            Place::Code
        } else {
            Place::Other
        }
    }
}

/// Whether `name` occurs in `line` with no identifier character right before or after it.
pub(super) fn has_name(line: &str, name: &str) -> bool {
    name_in(line, name, |rest| rest.find(name))
}

/// [`has_name`] with a finder built once for `name`: the search asks it of every matching line
/// (`str::find` would prepare its search of `name` at every call).
fn has_name_by(line: &str, name: &Finder) -> bool {
    // A finder of a name is built from a `&str`: its needle is valid UTF-8.
    let spelled = std::str::from_utf8(name.needle()).unwrap_or_default();
    name_in(line, spelled, |rest| name.find(rest.as_bytes()))
}

/// Whether `name` occurs in `line` as [`has_name`] says, `find` giving its first place in a
/// rest of the line (a place found in valid UTF-8 for a name of valid UTF-8 is a char boundary).
fn name_in(line: &str, name: &str, find: impl Fn(&str) -> Option<usize>) -> bool {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let mut start = 0;
    while let Some(pos) = line.get(start..).and_then(&find) {
        let at = start + pos;
        let end = at + name.len();
        let before = line[..at].chars().next_back();
        let after = line[end..].chars().next();
        // A flag continues with `-` (`--color` is not `--color-words`); a name is not part of
        // a longer flag either.
        // Only a side where the name itself has a word character (or a flag's dash) needs a
        // boundary: `#[arg(` may run straight into `long`.
        let first = name.chars().next().unwrap_or(' ');
        let last = name.chars().next_back().unwrap_or(' ');
        // A hyphenated name (`ansi-term`) is not the tail of a longer one (`nu-ansi-term`).
        let hyphenated = first == '-' || name.contains('-');
        let before_ok = !(is_word(first) || first == '-')
            || !before.is_some_and(|c| is_word(c) || (c == '-' && hyphenated));
        let after_ok = !is_word(last) || !after.is_some_and(|c| is_word(c) || c == '-');
        if before_ok && after_ok {
            return true;
        }
        start = at + name.chars().next().map_or(1, char::len_utf8);
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hyphenated_name_is_not_the_tail_of_a_longer_one() {
        assert!(!has_name("nu-ansi-term = \"0.46.0\"", "ansi-term"));
        assert!(has_name("ansi-term = \"0.12\"", "ansi-term"));
        assert!(has_name("use the ansi-term crate", "ansi-term"));
    }

    #[test]
    fn names_match_as_whole_words() {
        assert!(has_name("use ansi_term::Colour;", "ansi_term"));
        assert!(!has_name("use nu_ansi_term::Colour;", "ansi_term"));
        assert!(has_name("    #[arg(long = \"--color\")]", "--color"));
        assert!(!has_name("--color-words", "--color"));
        assert!(!has_name("---color", "--color"));
    }

    #[test]
    fn the_search_respects_ignore_files_and_skips() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        std::fs::create_dir_all(p.join("src")).unwrap();
        std::fs::create_dir_all(p.join("target")).unwrap();
        std::fs::create_dir_all(p.join("docs/interviews")).unwrap();
        std::fs::write(p.join(".gitignore"), "target/\n").unwrap();
        std::fs::write(p.join("src/a.rs"), "fn x() {}\nfn parse_args() {}\n").unwrap();
        std::fs::write(p.join("target/gen.rs"), "parse_args\n").unwrap();
        std::fs::write(p.join("item.md"), "parse_args\n").unwrap();
        std::fs::write(p.join("docs/interviews/intent-1.md"), "parse_args\n").unwrap();
        let s = search(p, &[Group::one("parse_args")], &["item.md".into()]);
        let f = s.get("parse_args").unwrap();
        assert_eq!(f.hits.len(), 1, "{f:?}");
        assert_eq!(f.hits[0].cite(), "src/a.rs:2");
        assert!(s.get("nothing").is_none());
    }
}
