//! The intent half of the built-in interviewer: questions about what a work item leaves vague or
//! unsaid, and the item's own statements as entries of the document (see `docs/interviews.md`).

use std::path::Path;

use crate::brief::BriefContext;
use crate::protocol::limits::{MAX_CONTENT_CHARS, MAX_ENTRY_TITLE_CHARS};
use crate::receipt::{Clarity, Entry};
use crate::subject::IntentFacts;
use crate::subject::reflect::cap;

use super::Finding;
use super::document::confirmed;
use super::text::{line_exists, one_line, snippet};

pub(super) fn facts(ctx: &BriefContext) -> IntentFacts {
    serde_json::from_value(ctx.subject.facts.clone()).unwrap_or_else(|_| IntentFacts {
        id: ctx.subject.id.clone(),
        title: ctx.subject.title.clone(),
        ..IntentFacts::default()
    })
}

/// The work item's text split into lines, with code blocks blanked out: words in code are not
/// vague wording.
struct Item<'a> {
    lines: Vec<(u32, &'a str)>,
    lower: String,
}

impl<'a> Item<'a> {
    fn new(text: &'a str) -> Item<'a> {
        let mut lines = Vec::new();
        let mut in_code = false;
        for (i, line) in text.lines().enumerate() {
            let trimmed = line.trim_start();
            if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
                in_code = !in_code;
                continue;
            }
            if !in_code {
                lines.push((u32::try_from(i + 1).unwrap_or(u32::MAX), line));
            }
        }
        let lower = lines
            .iter()
            .map(|(_, l)| l.to_lowercase())
            .collect::<Vec<_>>()
            .join("\n");
        Item { lines, lower }
    }

    /// The first line containing any of `terms` as a whole word (case-insensitive).
    fn first_word(&self, terms: &[&str], skip: &[u32]) -> Option<(u32, &'a str, String)> {
        self.lines
            .iter()
            .filter(|(n, _)| !skip.contains(n))
            .find_map(|(n, line)| {
                let lower = line.to_lowercase();
                terms
                    .iter()
                    .find(|t| has_word(&lower, t))
                    .map(|t| (*n, *line, t.to_string()))
            })
    }

    fn mentions(&self, terms: &[&str]) -> bool {
        terms.iter().any(|t| has_word(&self.lower, t))
    }

    /// Headings with their line number and the text under them (up to the next heading).
    fn sections(&self) -> Vec<(u32, String, String)> {
        let mut out: Vec<(u32, String, String)> = Vec::new();
        for (n, line) in &self.lines {
            let t = line.trim();
            if t.starts_with('#') {
                let title = t.trim_start_matches('#').trim().to_string();
                out.push((*n, title, String::new()));
            } else if let Some(last) = out.last_mut()
                && !t.is_empty()
            {
                if !last.2.is_empty() {
                    last.2.push('\n');
                }
                last.2.push_str(t);
            }
        }
        out
    }
}

/// Whether `term` occurs in `text` with no letter or digit right before or after it.
fn has_word(text: &str, term: &str) -> bool {
    let mut start = 0;
    while let Some(pos) = text.get(start..).and_then(|s| s.find(term)) {
        let at = start + pos;
        let end = at + term.len();
        let before = text[..at].chars().next_back();
        let after = text[end..].chars().next();
        let boundary = |c: Option<char>| !c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        // A term ending in punctuation (`etc.`) needs no boundary after it.
        let term_ends_word = term.chars().last().is_some_and(|c| c.is_alphanumeric());
        if boundary(before) && (!term_ends_word || boundary(after)) {
            return true;
        }
        start = at + term.chars().next().map_or(1, char::len_utf8);
    }
    false
}

/// A vague wording the item uses and what to ask about it.
struct Vague {
    topic: &'static str,
    terms: &'static [&'static str],
    severity: u8,
    ask: fn(&str, u32, &str) -> String,
    options: &'static [(&'static str, &'static str)],
}

const VAGUE: &[Vague] = &[
    Vague {
        topic: "vague_tbd",
        terms: &[
            "tbd",
            "tbc",
            "to be decided",
            "to be determined",
            "to be defined",
        ],
        severity: 9,
        ask: |_, n, line| {
            format!(
                "Line {n} is not decided yet: \"{}\". What is decided?",
                snippet(line, 110)
            )
        },
        options: &[],
    },
    Vague {
        topic: "vague_fast",
        terms: &[
            "fast",
            "quick",
            "quickly",
            "performant",
            "responsive",
            "real-time",
            "realtime",
        ],
        severity: 7,
        ask: |t, n, _| format!("The item says \"{t}\" (line {n}). What is the measurable target?"),
        options: &[
            ("Under 100 ms", "under_100ms"),
            ("Under 1 second", "under_1s"),
            ("Under 10 seconds", "under_10s"),
            ("No hard target", "no_target"),
        ],
    },
    Vague {
        topic: "vague_etc",
        terms: &["etc.", "etc", "and so on", "and so forth", "and more"],
        severity: 6,
        ask: |t, n, line| {
            format!(
                "Line {n} ends a list with \"{t}\": \"{}\". What is the complete list?",
                snippet(line, 90)
            )
        },
        options: &[],
    },
    Vague {
        topic: "vague_should_probably",
        terms: &[
            "should probably",
            "probably",
            "ideally",
            "if possible",
            "preferably",
        ],
        severity: 6,
        ask: |t, n, line| {
            format!(
                "Line {n} says \"{t}\": \"{}\". Is it required?",
                snippet(line, 100)
            )
        },
        options: &[
            ("Required", "required"),
            ("Nice to have", "nice_to_have"),
            ("Not needed now", "not_needed"),
        ],
    },
    Vague {
        topic: "vague_maybe",
        terms: &[
            "maybe",
            "perhaps",
            "possibly",
            "might",
            "nice to have",
            "optionally",
        ],
        severity: 6,
        ask: |t, n, line| {
            format!(
                "Line {n} says \"{t}\": \"{}\". Is that part in scope?",
                snippet(line, 100)
            )
        },
        options: &[
            ("Yes, in scope", "in_scope"),
            ("No, leave it out", "out_of_scope"),
            ("Later, as a follow-up", "follow_up"),
        ],
    },
    Vague {
        topic: "vague_simple",
        terms: &[
            "simple",
            "easy",
            "easily",
            "intuitive",
            "user-friendly",
            "straightforward",
            "seamless",
        ],
        severity: 5,
        ask: |t, n, _| {
            format!("The item says \"{t}\" (line {n}). Simple for whom, and how would we tell?")
        },
        options: &[
            ("No setup or configuration needed", "zero_config"),
            ("One command or one click", "one_step"),
            (
                "Follows an existing pattern in the code",
                "familiar_pattern",
            ),
            ("A small, low-risk change", "small_change"),
        ],
    },
    Vague {
        topic: "vague_quality",
        terms: &[
            "robust",
            "scalable",
            "flexible",
            "efficient",
            "reliable",
            "secure",
            "modern",
            "clean",
        ],
        severity: 5,
        ask: |t, n, _| {
            format!(
                "The item asks for \"{t}\" (line {n}). Which concrete, checkable property is meant?"
            )
        },
        options: &[],
    },
    Vague {
        topic: "vague_some",
        terms: &[
            "some",
            "several",
            "various",
            "a few",
            "many",
            "most",
            "a number of",
        ],
        severity: 4,
        ask: |t, n, line| {
            format!(
                "Line {n} says \"{t}\": \"{}\". Which ones exactly, or how many?",
                snippet(line, 90)
            )
        },
        options: &[],
    },
];

/// What a complete work item states, how to notice it, and what to ask when it is missing.
struct Aspect {
    topic: &'static str,
    present: &'static [&'static str],
    severity: u8,
    question: &'static str,
    options: &'static [(&'static str, &'static str)],
}

const ASPECTS: &[Aspect] = &[
    Aspect {
        topic: "acceptance_criteria",
        present: &[
            "acceptance",
            "done when",
            "definition of done",
            "success criteria",
            "criteria",
            "- [ ]",
            "- [x]",
            "given",
            "expected result",
            "verify that",
        ],
        severity: 9,
        question: "The item states no acceptance criteria. What must be true for it to count as done?",
        options: &[],
    },
    Aspect {
        topic: "scope",
        present: &[
            "out of scope",
            "non-goal",
            "non-goals",
            "non goal",
            "not in scope",
            "scope",
            "will not",
            "won't",
            "not included",
        ],
        severity: 7,
        question: "The item says nothing about scope. What is explicitly out of scope?",
        options: &[],
    },
    Aspect {
        topic: "error_handling",
        present: &[
            "error",
            "errors",
            "fail",
            "fails",
            "failure",
            "invalid",
            "exception",
            "edge case",
            "edge cases",
            "retry",
            "timeout",
            "reject",
            "rejected",
            "missing",
        ],
        severity: 7,
        question: "What should happen when it fails, e.g. on invalid input or an I/O error?",
        options: &[
            ("Show a clear error and stop", "fail_fast"),
            ("Skip the bad part, report it, continue", "skip_and_report"),
            ("Retry, then report", "retry"),
            ("Fall back to a safe default", "fallback"),
        ],
    },
    Aspect {
        topic: "users",
        present: &[
            "user",
            "users",
            "admin",
            "admins",
            "administrator",
            "customer",
            "customers",
            "operator",
            "operators",
            "developer",
            "developers",
            "maintainer",
            "maintainers",
            "as a",
            "persona",
            "actor",
            "actors",
            "client",
            "clients",
            "team",
        ],
        severity: 6,
        question: "Who will use this, and in what situation?",
        options: &[
            ("End users of the product", "end_users"),
            ("Administrators or operators", "operators"),
            ("Developers, through an API or CLI", "developers"),
            ("Other systems, automatically", "systems"),
        ],
    },
    Aspect {
        topic: "data_format",
        present: &[
            "format", "formats", "json", "csv", "yaml", "toml", "xml", "schema", "field", "fields",
            "column", "columns", "encoding", "utf-8", "utf8", "bytes", "table", "payload",
        ],
        severity: 5,
        question: "What data goes in and comes out, and in which format?",
        options: &[],
    },
];

pub(super) fn findings(f: &IntentFacts) -> Vec<Finding> {
    let item = Item::new(&f.text);
    let mut out = Vec::new();
    if item.lines.iter().all(|(_, l)| l.trim().is_empty()) {
        out.push(Finding::new(
            "goal",
            10,
            "The work item is empty. What should be built, and why?",
        ));
        return out;
    }
    for aspect in ASPECTS {
        if !item.mentions(aspect.present) {
            out.push(
                Finding::new(aspect.topic, aspect.severity, aspect.question)
                    .options(aspect.options),
            );
        }
    }
    // Questions the author left in the text: each is a decision nobody made yet.
    let mut asked_in_text = 0;
    let mut question_lines = Vec::new();
    for (n, line) in &item.lines {
        let t = line.trim();
        if t.ends_with('?') && !t.starts_with('#') && t.chars().count() > 3 {
            asked_in_text += 1;
            question_lines.push(*n);
            out.push(Finding::new(
                format!("open_point_{asked_in_text}"),
                8,
                format!(
                    "The item leaves a question open (line {n}): \"{}\" What is the answer?",
                    snippet(t, 130)
                ),
            ));
            if asked_in_text == 5 {
                break;
            }
        }
    }
    for vague in VAGUE {
        // A line already asked about as an open point is not asked about twice.
        if let Some((n, line, term)) = item.first_word(vague.terms, &question_lines) {
            out.push(
                Finding::new(vague.topic, vague.severity, (vague.ask)(&term, n, line))
                    .options(vague.options),
            );
        }
    }
    out
}

pub(super) fn fact_entries(f: &IntentFacts, worktree: &Path) -> Vec<Entry> {
    let item = Item::new(&f.text);
    let cite = |line: u32| {
        f.path
            .as_ref()
            .filter(|p| line_exists(worktree, p, line))
            .map(|p| format!("{p}:{line}"))
    };
    // Without a citable file the text is still what the item says, but unverifiable here.
    let entry = |title: &str, content: String, line: u32| match cite(line) {
        Some(source) => confirmed(title, content, vec![source]),
        None => Entry {
            title: one_line(title, MAX_ENTRY_TITLE_CHARS),
            content: cap(&content, MAX_CONTENT_CHARS),
            clarity: Clarity::Inferred,
            sources: Vec::new(),
        },
    };
    let via = match f.tracker.as_str() {
        "local" => "the local tracker",
        "from" => "--from",
        "stdin" => "standard input",
        "github" => "GitHub",
        _ => "a tracker",
    };
    let mut out = Vec::new();
    for (n, title, body) in item.sections() {
        if body.is_empty() || title.is_empty() {
            continue;
        }
        out.push(entry(&title, body, n));
    }
    if out.is_empty() {
        // No headed sections: the item as a whole is the one fact.
        let first_line = item
            .lines
            .iter()
            .find(|(_, l)| !l.trim().is_empty())
            .map_or(1, |(n, _)| *n);
        let text: Vec<&str> = item.lines.iter().map(|(_, l)| l.trim()).collect();
        out.push(entry(
            "The work item",
            text.join("\n").trim().to_string(),
            first_line,
        ));
    }
    if let Some(first) = out.first_mut() {
        first.content = cap(
            &format!("{}\n\n(From {} via {via}.)", first.content, f.source),
            MAX_CONTENT_CHARS,
        );
    }
    out
}

/// The document's title and the lead of its summary.
pub(super) fn title_and_lead(f: &IntentFacts) -> (String, String) {
    (
        format!("Intent of {}: {}", f.id, f.title),
        format!("Work item {} ({}): {}.", f.id, f.source, f.title),
    )
}

/// The entry title of an answered intent topic.
pub(super) fn topic_name(topic: &str) -> Option<&'static str> {
    Some(match topic {
        "acceptance_criteria" => "Acceptance criteria",
        "scope" => "Scope",
        "error_handling" => "Error handling",
        "users" => "Users",
        "data_format" => "Data and format",
        "goal" => "Goal",
        "vague_tbd" => "What is still to be decided",
        "vague_fast" => "The performance target",
        "vague_etc" => "The complete list",
        "vague_should_probably" => "Required or optional",
        "vague_maybe" => "In scope or not",
        "vague_simple" => "What simple means here",
        "vague_quality" => "The quality meant, concretely",
        "vague_some" => "Which ones, and how many",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_match_only_whole_words() {
        assert!(has_word("make it fast.", "fast"));
        assert!(!has_word("breakfast is served", "fast"));
        assert!(has_word("csv, json etc. are fine", "etc."));
        assert!(!has_word("some_thing", "some"));
        assert!(has_word("should probably work", "should probably"));
    }

    #[test]
    fn code_blocks_are_not_read_as_wording() {
        let item = Item::new("# T\n```\nfast maybe etc.\n```\nplain\n");
        assert!(!item.mentions(&["fast", "maybe"]));
        assert!(item.mentions(&["plain"]));
    }
}
