//! Composing the brief: what a runner is told at the start of a turn.
//!
//! Every turn gets two files: `brief.md` for agents (the rules, the facts, the transcript so far)
//! and `brief.json`, its machine-readable twin ([`BriefContext`]) for scripted runners and the
//! built-in interviewer.

use serde::{Deserialize, Serialize};

use crate::ask::AnswerRecord;
use crate::receipt::Question;
use crate::subject::Kind;

/// Version of the `brief.json` format.
pub const BRIEF_VERSION: u32 = 1;

/// `brief.json`: everything a runner needs to decide its receipt, structured.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BriefContext {
    pub interview_brief: u32,
    pub kind: Kind,
    pub subject: BriefSubject,
    pub turn: u32,
    pub max_turns: u32,
    /// On the final turn questions are no longer allowed: only `done` passes.
    #[serde(rename = "final")]
    pub final_turn: bool,
    /// Why the previous attempt at this turn failed, if it did.
    pub previous_failure: Option<String>,
    /// Earlier rounds of questions and what the person said.
    pub rounds: Vec<Round>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BriefSubject {
    pub id: String,
    pub title: String,
    /// The subject's structured facts (see `subject`).
    pub facts: serde_json::Value,
}

/// One round of questions and its answers.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Round {
    pub turn: u32,
    pub questions: Vec<Question>,
    /// One record per question presented; questions never presented (skip all, abort) have none.
    pub answers: Vec<AnswerRecord>,
    /// The person skipped the whole round at the entry gate.
    pub gate_skipped: bool,
    /// The person typed `skip all` during the round.
    pub skipped_all: bool,
}
