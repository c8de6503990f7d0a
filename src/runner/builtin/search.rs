//! Finding what a work item names in the repository: one pass over the worktree with ripgrep's
//! `ignore` walker (ignore files respected, `.git/` and `.interview/` never entered) and `grep`
//! searcher, bounded in files, bytes, hits and time. Nothing found in the work item itself or in
//! earlier interview documents counts.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use grep::regex::RegexMatcherBuilder;
use grep::searcher::sinks::Lossy;
use grep::searcher::{BinaryDetection, SearcherBuilder};
use ignore::WalkBuilder;

use super::text::one_line;
use crate::document::LEGEND;

/// At most this many files are read.
const MAX_FILES: usize = 20_000;
/// A file larger than this is skipped (generated, vendored or data).
const MAX_FILE_BYTES: u64 = 1024 * 1024;
/// All files together are read at most this far.
const MAX_TOTAL_BYTES: u64 = 128 * 1024 * 1024;
/// Lines kept per name (the count goes on).
const MAX_HITS_PER_NAME: usize = 200;
/// A safety bound for very large trees; the file and byte budgets usually stop first.
const MAX_TIME: Duration = Duration::from_secs(4);

/// One line where a name occurs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Hit {
    pub path: String,
    pub line: u32,
    /// The line, trimmed and on one line, at most 160 characters.
    pub text: String,
}

impl Hit {
    pub fn cite(&self) -> String {
        format!("{}:{}", self.path, self.line)
    }
}

/// Everything found for one name.
#[derive(Debug, Clone, Default)]
pub(super) struct Found {
    /// The lines, in path order, at most [`MAX_HITS_PER_NAME`].
    pub hits: Vec<Hit>,
    /// How many lines matched in all (beyond the kept ones too).
    pub total: usize,
}

/// The result of one search.
#[derive(Debug, Default)]
pub(super) struct Search {
    pub found: BTreeMap<String, Found>,
    pub files_read: usize,
    /// Why the search stopped early, when it did.
    pub stopped: Option<String>,
}

impl Search {
    pub fn get(&self, name: &str) -> Option<&Found> {
        self.found.get(name).filter(|f| !f.hits.is_empty())
    }
}

/// Search the worktree for every name (exact, case-sensitive, as a whole word), leaving out the
/// files in `skip` (repository-relative paths), `docs/interviews/` and any interview document
/// (a file with a line starting with the documents' legend): they quote the item.
pub(super) fn search(worktree: &Path, names: &[String], skip: &[String]) -> Search {
    let mut result = Search::default();
    let names: Vec<&String> = names.iter().filter(|n| !n.trim().is_empty()).collect();
    if names.is_empty() {
        return result;
    }
    let mut literals: Vec<&str> = names.iter().map(|n| n.as_str()).collect();
    literals.push(LEGEND);
    let Ok(matcher) = RegexMatcherBuilder::new()
        .fixed_strings(true)
        .build_literals(&literals)
    else {
        return result;
    };
    let mut searcher = SearcherBuilder::new()
        .line_number(true)
        .binary_detection(BinaryDetection::quit(0))
        .build();
    let walker = WalkBuilder::new(worktree)
        .require_git(false)
        .max_filesize(Some(MAX_FILE_BYTES))
        .follow_links(false)
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry(|e| {
            let name = e.file_name();
            name != ".git" && name != ".interview"
        })
        .build();
    let started = Instant::now();
    let mut bytes = 0u64;
    for entry in walker.flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Ok(rel) = entry.path().strip_prefix(worktree) else {
            continue;
        };
        let Some(rel) = rel.to_str().map(str::to_string) else {
            continue;
        };
        if skip.contains(&rel) || rel.starts_with("docs/interviews/") {
            continue;
        }
        if result.files_read >= MAX_FILES {
            result.stopped = Some(format!("after {MAX_FILES} files"));
            break;
        }
        if bytes >= MAX_TOTAL_BYTES {
            result.stopped = Some(format!("after {} MiB", MAX_TOTAL_BYTES >> 20));
            break;
        }
        if started.elapsed() > MAX_TIME {
            result.stopped = Some(format!("after {} s", MAX_TIME.as_secs()));
            break;
        }
        bytes += entry.metadata().map_or(0, |m| m.len());
        // Hits of one file, kept only if the file is not an interview document.
        let mut in_file: Vec<(&String, Hit)> = Vec::new();
        let mut document = false;
        // A file that cannot be read is left out, like a binary one.
        let _ = searcher.search_path(
            &matcher,
            entry.path(),
            Lossy(|line_number, line| {
                if line.starts_with(LEGEND) {
                    document = true;
                    return Ok(false);
                }
                for name in &names {
                    if has_name(line, name) {
                        in_file.push((
                            name,
                            Hit {
                                path: rel.clone(),
                                line: u32::try_from(line_number).unwrap_or(u32::MAX),
                                text: one_line(line, 160),
                            },
                        ));
                    }
                }
                Ok(true)
            }),
        );
        if document {
            continue;
        }
        result.files_read += 1;
        for (name, hit) in in_file {
            let f = result.found.entry(name.clone()).or_default();
            f.total += 1;
            if f.hits.len() < MAX_HITS_PER_NAME {
                f.hits.push(hit);
            }
        }
    }
    result
}

/// Whether `name` occurs in `line` with no identifier character right before or after it.
pub(super) fn has_name(line: &str, name: &str) -> bool {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let mut start = 0;
    while let Some(pos) = line.get(start..).and_then(|s| s.find(name)) {
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
        let before_ok = !(is_word(first) || first == '-')
            || !before.is_some_and(|c| is_word(c) || (c == '-' && first == '-'));
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
        let s = search(p, &["parse_args".into()], &["item.md".into()]);
        let f = s.get("parse_args").unwrap();
        assert_eq!(f.hits.len(), 1, "{f:?}");
        assert_eq!(f.hits[0].cite(), "src/a.rs:2");
        assert!(s.get("nothing").is_none());
    }
}
