//! Receipts: the one JSON object a runner leaves at the end of a turn.
//!
//! This module owns the strict wire types, the capability-scoped read (`read`), the checks
//! (`check`) and the sanitiser (`sanitize`). Once a value is a [`Receipt`], it is known to be sane:
//! every string has been sanitised and every rule of DESIGN §3 holds.

use serde::{Deserialize, Serialize};

mod sanitize;

pub use sanitize::{SanitizeReport, is_forbidden, sanitize, sanitize_line};

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

use std::collections::BTreeSet;
use std::path::Path;

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
}

/// Why a receipt was rejected. Every variant names where the problem is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReceiptError {
    #[error("no receipt: the runner wrote nothing to {0}")]
    Missing(String),
    #[error("receipt {0} is not a regular file")]
    NotRegularFile(String),
    #[error("receipt: {0}")]
    Invalid(String),
}

/// Read `receipt.json` from the turn's `out/` directory (placeholder).
pub fn read(out_dir: &Path) -> Result<String, ReceiptError> {
    std::fs::read_to_string(out_dir.join("receipt.json"))
        .map_err(|_| ReceiptError::Missing("receipt.json".into()))
}

/// Parse, sanitise and check a receipt (placeholder).
pub fn parse_and_check(
    text: &str,
    _ctx: &CheckContext<'_>,
) -> Result<(Receipt, SanitizeReport), ReceiptError> {
    let r: Receipt =
        serde_json::from_str(text).map_err(|e| ReceiptError::Invalid(e.to_string()))?;
    Ok((r, SanitizeReport::default()))
}
