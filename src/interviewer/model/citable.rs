//! What the model may cite in its `done` receipt, gathered while it reads: the `path:line` of
//! every line its tools showed it (a read file's numbered lines, a search's hits) and the lines
//! the brief names, the commits its history tools showed, and the `qa:<topic>` ids of the
//! answered questions. The receipt's request names them (and its schema allows only them), and
//! a refused receipt's correction names them again: a small model that cannot invent a source
//! cannot cite one that does not hold. The checks stay the session's, unchanged.
//!
//! Not for: checking a receipt (`crate::receipt`) or running the tools (`tools.rs`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::form::BriefFacts;

/// `path:line` ids offered at most (a schema and a prompt a small model can still hold), and
/// at most this many of one file.
const MAX_LINES: usize = 80;
const MAX_LINES_OF_ONE_FILE: usize = 24;
/// Commits offered at most.
const MAX_COMMITS: usize = 20;

/// The sources that hold in this turn.
#[derive(Debug, Default)]
pub(super) struct Citable {
    root: PathBuf,
    /// Lines seen, per file, in the order they were first seen.
    lines: BTreeMap<String, Vec<u64>>,
    /// Files in the order they were first seen (search hits before the rest of a file).
    files: Vec<String>,
    commits: Vec<String>,
    answered: BTreeSet<String>,
    /// Asked and not answered: never citable.
    unanswered: BTreeSet<String>,
}

impl Citable {
    pub(super) fn new(root: &Path, facts: &BriefFacts, brief: &str) -> Citable {
        let answered = facts.answered();
        let unanswered = facts.asked().difference(&answered).cloned().collect();
        let mut citable = Citable {
            root: root.to_path_buf(),
            answered,
            unanswered,
            ..Citable::default()
        };
        for word in brief.split(|c: char| c.is_whitespace() || "`()[],;\"'".contains(c)) {
            if let Some((path, line)) = path_line(word.trim_end_matches(['.', ':'])) {
                citable.line(path, line);
            }
        }
        citable
    }

    /// Take note of what a tool showed the model.
    pub(super) fn saw(&mut self, tool: &str, result: &str) {
        match tool {
            "read_file" => {
                let mut lines = result.lines();
                let Some(path) = lines.next().and_then(|h| h.split_once(" (lines ")) else {
                    return;
                };
                let path = path.0.to_string();
                for l in lines {
                    if let Some((n, text)) = l.split_once(": ")
                        && let Ok(n) = n.parse::<u64>()
                        && !text.trim().is_empty()
                    {
                        self.line(&path, n);
                    }
                }
            }
            "search" => {
                for l in result.lines() {
                    if let Some((at, _)) = l.split_once(": ")
                        && let Some((path, n)) = path_line(at)
                    {
                        self.line(path, n);
                    }
                }
            }
            "git_log" | "git_show" | "git_blame" => {
                for l in result.lines() {
                    let word = l.trim_start_matches("commit ").split(' ').next();
                    if let Some(hex) = word.filter(|w| is_commit(w)) {
                        let id = format!("commit:{}", &hex[..hex.len().min(12)]);
                        if self.commits.len() < MAX_COMMITS && !self.commits.contains(&id) {
                            self.commits.push(id);
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// A line of a regular file of the repository (not a link: the checks refuse those).
    fn line(&mut self, path: &str, n: u64) {
        let path = path.trim_start_matches("./");
        if n == 0 || path.is_empty() || path.starts_with('/') || path.split('/').any(|p| p == "..")
        {
            return;
        }
        if !self.lines.contains_key(path) {
            let regular =
                std::fs::symlink_metadata(self.root.join(path)).is_ok_and(|m| m.is_file());
            if !regular {
                return;
            }
            self.files.push(path.to_string());
        }
        let seen = self.lines.entry(path.to_string()).or_default();
        if !seen.contains(&n) {
            seen.push(n);
        }
    }

    /// The `path:line` and `commit:` ids, at most [`MAX_LINES`] lines taken in turn from each
    /// file so that every file read is represented.
    pub(super) fn repository(&self) -> Vec<String> {
        let mut ids = Vec::new();
        for i in 0..MAX_LINES_OF_ONE_FILE {
            for file in &self.files {
                if let Some(n) = self.lines[file].get(i)
                    && ids.len() < MAX_LINES
                {
                    ids.push(format!("{file}:{n}"));
                }
            }
        }
        ids.extend(self.commits.iter().cloned());
        ids
    }

    pub(super) fn answers(&self) -> Vec<String> {
        self.answered.iter().map(|t| format!("qa:{t}")).collect()
    }

    /// What the model is told with the receipt's request and with each correction.
    pub(super) fn said(&self) -> String {
        let list = |ids: &[String]| {
            ids.iter()
                .map(|i| format!("`{i}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let repository = self.repository();
        let mut out = if repository.is_empty() {
            "No line of the repository was read: no `path:line` holds, so no entry can be \
             `confirmed`."
                .to_string()
        } else {
            format!(
                "The sources that hold, exactly as written (no other `path:line` does): {}.",
                list(&repository)
            )
        };
        if self.answered.is_empty() {
            out.push_str(
                " No question was answered: no entry can be `declared-by-user`; make what the \
                 person would have said `inferred` or an `open-question`.",
            );
        } else {
            out.push_str(&format!(
                " The person's answers, for `declared-by-user` entries: {}.",
                list(&self.answers())
            ));
        }
        if !self.unanswered.is_empty() {
            let skipped: Vec<String> = self.unanswered.iter().cloned().collect();
            out.push_str(&format!(
                " Not answered, so never cited: {}.",
                list(&skipped)
            ));
        }
        out
    }

    /// The `entries` of the `done` schema: each clarity with the sources it can cite (a
    /// `confirmed` entry the repository's, a `declared-by-user` one the answers), a clarity
    /// nothing holds for left out.
    pub(super) fn entries_schema(&self) -> Value {
        let (repository, answers) = (self.repository(), self.answers());
        let all: Vec<String> = repository.iter().chain(&answers).cloned().collect();
        let entry = |clarity: &[&str], sources: Value| {
            json!({"type": "object", "properties": {
                "title": {"type": "string"}, "content": {"type": "string"},
                "clarity": {"type": "string", "enum": clarity},
                "sources": sources,
            }, "required": ["title", "content", "clarity", "sources"],
            "additionalProperties": false})
        };
        let of =
            |ids: &[String]| json!({"type": "array", "items": {"type": "string", "enum": ids}});
        let mut kinds = Vec::new();
        if !repository.is_empty() {
            kinds.push(entry(&["confirmed"], of(&repository)));
        }
        if !answers.is_empty() {
            kinds.push(entry(&["declared-by-user"], of(&answers)));
        }
        let optional = if all.is_empty() {
            json!({"type": "null"})
        } else {
            json!({"anyOf": [of(&all), {"type": "null"}]})
        };
        kinds.push(entry(&["inferred", "open-question"], optional));
        json!({"type": "array", "items": {"anyOf": kinds}})
    }
}

/// `path:line` in `word`, when it is one (not a URL, not `qa:` or `commit:`).
fn path_line(word: &str) -> Option<(&str, u64)> {
    let (path, n) = word.rsplit_once(':')?;
    let plausible = !path.is_empty()
        && !path.contains("://")
        && !path.contains(':')
        && (path.contains('.') || path.contains('/'));
    let n: u64 = n.parse().ok().filter(|_| plausible)?;
    Some((path, n))
}

fn is_commit(word: &str) -> bool {
    (7..=40).contains(&word.len()) && word.chars().all(|c| c.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("README.md"), "# t\n\nx\n").unwrap();
        std::fs::write(dir.path().join("src/lib.rs"), "fn a() {}\n").unwrap();
        dir
    }

    #[test]
    fn what_the_tools_showed_is_citable_and_nothing_else() {
        let dir = repo();
        let facts = BriefFacts::read(
            "\n## Transcript so far\n\n### Turn 1\n\n- `who` — Who? → skipped\n- `what` — What? → answered: x\n",
        );
        let mut c = Citable::new(dir.path(), &facts, "See `src/lib.rs:1` and src/main.rs:4.");
        c.saw(
            "read_file",
            "README.md (lines 1-3 of 3)\n1: # t\n2: \n3: x\n",
        );
        c.saw("search", "src/lib.rs:1: fn a() {}\nnope.rs:3: x");
        c.saw("git_log", "0123456789 2026-01-01 A: first");
        assert_eq!(
            c.repository(),
            [
                "src/lib.rs:1",
                "README.md:1",
                "README.md:3",
                "commit:0123456789"
            ]
        );
        assert_eq!(c.answers(), ["qa:what"]);
        let said = c.said();
        assert!(
            said.contains("`README.md:3`") && said.contains("`qa:what`"),
            "{said}"
        );
        assert!(
            said.contains("Not answered, so never cited: `who`"),
            "{said}"
        );
    }

    #[test]
    fn with_nothing_answered_no_entry_can_be_declared_by_the_user() {
        let dir = repo();
        let facts =
            BriefFacts::read("\n## Transcript so far\n\n### Turn 1\n\n- `who` — Who? → skipped\n");
        let c = Citable::new(dir.path(), &facts, "");
        let schema = c.entries_schema().to_string();
        assert!(!schema.contains("declared-by-user"), "{schema}");
        assert!(!schema.contains("\"confirmed\""), "{schema}");
        assert!(c.said().contains("no entry can be `declared-by-user`"));
    }
}
