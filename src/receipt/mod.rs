//! Receipts: the one JSON object a runner leaves at the end of a turn.
//!
//! This module owns the strict wire types, the capability-scoped read ([`fn@read`], or
//! [`extract_from_stdout`] for runners that print), the checks ([`parse_and_check`]) and the
//! sanitiser ([`fn@sanitize`]). Once a value is a [`Receipt`], it is known to be sane: every string
//! has been sanitised and every rule of `docs/receipt.md` holds. The format is documented for runner
//! authors in `docs/receipt.md`.

use std::collections::BTreeSet;
use std::path::Path;

use serde::{Deserialize, Serialize};

mod check;
mod json;
mod read;
mod sanitize;
mod search;
mod sources;
mod stdout;

pub use check::parse_and_check;
pub(crate) use check::{is_topic, parse_and_check_as};
pub(crate) use json::json_kind;
pub(crate) use read::{MAX_RECEIPT_BYTES, read};
#[cfg(test)]
pub(crate) use sanitize::is_forbidden;
pub(crate) use sanitize::{SanitizeReport, sanitize, sanitize_line};
pub(crate) use search::{Attempt, Search};
pub(crate) use stdout::{MAX_STDOUT_BYTES, extract_from_stdout};

/// A checked receipt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "receipt", rename_all = "lowercase")]
pub enum Receipt {
    Ask(Ask),
    Done(Done),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ask {
    pub questions: Vec<Question>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Question {
    pub topic: String,
    pub question_text: String,
    pub severity: u8,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<Vec<QuestionOption>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recommended: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QuestionOption {
    pub label: String,
    pub value: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Done {
    pub title: String,
    pub summary: String,
    pub entries: Vec<Entry>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub title: String,
    pub content: String,
    pub clarity: Clarity,
    pub sources: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Clarity {
    Confirmed,
    Inferred,
    DeclaredByUser,
    OpenQuestion,
}

impl Clarity {
    pub fn as_str(self) -> &'static str {
        match self {
            Clarity::Confirmed => "confirmed",
            Clarity::Inferred => "inferred",
            Clarity::DeclaredByUser => "declared-by-user",
            Clarity::OpenQuestion => "open-question",
        }
    }
}

/// How a receipt is written: as `schema/receipt.schema.json` says (script runners), or in the
/// wire form of `protocol::wire` (the presets whose CLI is given the wire schema).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Form {
    #[default]
    Strict,
    Wire,
}

/// What a receipt is checked against.
#[derive(Debug, Clone, Copy)]
pub struct CheckContext<'a> {
    /// The final turn: an `ask` receipt is a failure.
    pub final_turn: bool,
    /// Topics already asked in earlier rounds (answered or skipped): asking again fails.
    pub asked_topics: &'a BTreeSet<String>,
    /// Topics the person answered (not skipped): the only valid `qa:<topic>` sources.
    pub answered_topics: &'a BTreeSet<String>,
    /// The worktree root, for `path:line` sources of confirmed entries.
    pub repo_root: &'a Path,
    /// The work item's path relative to the worktree, when it lies inside it (intent): citing
    /// it is no evidence for a `confirmed` entry, since the item's text is what it *states*.
    pub work_item: Option<&'a str>,
}

/// Why a receipt was rejected. Every variant names where the problem is: the file, or the JSON
/// path inside the receipt.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReceiptError {
    #[error("no receipt: the runner wrote nothing to {0}; it must write one JSON object there")]
    Missing(String),
    #[error("cannot open the runner's output directory {dir}: {reason}")]
    OutDir { dir: String, reason: String },
    #[error("receipt {file} is a symbolic link; write the receipt itself there, as a regular file")]
    Symlink { file: String },
    #[error("receipt {file} is a {kind}, not a regular file; write the receipt as a regular file")]
    NotRegularFile { file: String, kind: &'static str },
    #[error("receipt {file} has {links} hard links; write a new file there instead of linking one")]
    HardLinked { file: String, links: u64 },
    #[error(
        "receipt {file} is {size} bytes, over the limit of {max} bytes; keep it under 256 KiB",
        max = read::MAX_RECEIPT_BYTES
    )]
    TooLarge { file: String, size: u64 },
    #[error("receipt {file} is not valid UTF-8 (first bad byte at offset {offset})")]
    NotUtf8 { file: String, offset: usize },
    #[error("cannot read receipt {file}: {reason}")]
    Io { file: String, reason: String },
    #[error("the receipt is not valid JSON: {reason} at line {line} column {column}")]
    Json {
        line: usize,
        column: usize,
        reason: String,
    },
    /// The receipt is JSON but breaks the rules; one entry per problem found.
    #[error("{}", Violation::list(.0))]
    Rejected(Vec<Violation>),
    /// Anything else that makes a receipt unusable, said in words.
    #[error("receipt: {0}")]
    Invalid(String),
    #[error(
        "no JSON object in the runner's output; it must print exactly one receipt object, \
         optionally inside one ```json fenced block"
    )]
    NoObjectInOutput,
    /// `lines` are those of the first `stdout::SEVERAL_LINES_SHOWN` objects.
    #[error(
        "{count} JSON objects in the runner's output (at lines {}{}); it must print exactly one",
        lines.iter().map(|l| l.to_string()).collect::<Vec<_>>().join(", "),
        if *count > lines.len() { ", …" } else { "" }
    )]
    SeveralObjectsInOutput { count: usize, lines: Vec<usize> },
    #[error(
        "the runner's output holds too many unfinished JSON objects to search for the receipt \
         (gave up at line {line}); it must print exactly one JSON object and no broken ones"
    )]
    OutputTooTangled { line: usize },
    /// The person pressed Ctrl+C (or the tool got SIGTERM or SIGHUP) during the search.
    #[error("interrupted while the runner's output was searched for the receipt")]
    Interrupted,
    #[error(
        "the runner's output is {size} bytes, over the limit of {max} bytes for a printed receipt"
    )]
    OutputTooLarge { size: usize, max: usize },
}

impl ReceiptError {
    /// The rule violations of an invalid receipt; empty for other errors.
    pub fn violations(&self) -> &[Violation] {
        match self {
            ReceiptError::Rejected(v) => v,
            _ => &[],
        }
    }
}

/// One broken rule at one place in the receipt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Violation {
    /// JSONPath of the offending value, e.g. `$.questions[1].topic`.
    pub path: String,
    /// What is wrong and what is expected, already safe to print.
    pub message: String,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

impl Violation {
    /// All violations on one line; a receipt broken everywhere is cut after the first 20.
    fn list(all: &[Violation]) -> String {
        const SHOWN: usize = 20;
        let more = all.len().saturating_sub(SHOWN);
        all.iter()
            .take(SHOWN)
            .map(Violation::to_string)
            .chain((more > 0).then(|| format!("and {more} more problems")))
            .collect::<Vec<_>>()
            .join("; ")
    }
}

#[cfg(test)]
#[path = "schema_tests.rs"]
mod schema_tests;
