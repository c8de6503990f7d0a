//! Composing the brief: what a runner is told at the start of a turn.
//!
//! Every turn gets two files: `brief.md` for agents (the rules, the facts, the transcript so far)
//! and `brief.json`, its machine-readable twin ([`BriefContext`]) for scripted runners and the
//! built-in interviewer.

use serde::{Deserialize, Serialize};

use crate::answer::AnswerRecord;
use crate::protocol::limits::*;
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
    /// The answers are replayed from a file (CI): the same subject and answers must give the
    /// same document, so the built-in interviewer reads no earlier document of the subject.
    #[serde(default)]
    pub replayed: bool,
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

/// Paths the brief tells the runner about.
#[derive(Debug, Clone)]
pub(crate) struct BriefPaths {
    pub receipt: String,
    pub context: String,
    pub schema: String,
    /// How a preset returns its receipt instead of writing the file (see `runner::presets`).
    pub returns: Option<String>,
}

/// `brief.md`: the rules, the subject's facts and the transcript so far, for an agent.
pub(crate) fn render_markdown(
    ctx: &BriefContext,
    facts_markdown: &str,
    paths: &BriefPaths,
) -> String {
    let mut md = String::new();
    let what = match ctx.kind {
        Kind::Reflect => "a retrospective on the work in a range of commits",
        Kind::Intent => "clarifying a work item before it is built",
    };
    md.push_str(&format!(
        "# Interview brief — turn {} of {}\n\nYou are interviewing a person about this repository: {what}.\n\
         Subject: {}\n\n",
        ctx.turn, ctx.max_turns, ctx.subject.title
    ));
    md.push_str("## Rules\n\n");
    md.push_str(
        "- You are read-only. Do not change anything in the repository: no file edits, no git \
         commands that write (commit, add, checkout, config, stash, …), no hooks. Every change is \
         detected and stops the interview.\n",
    );
    match &paths.returns {
        None => md.push_str(&format!(
            "- End the turn by writing exactly one JSON receipt to `{}` (the only place you may \
             write). Its JSON Schema is at `{}`; the same facts, structured, are in `{}`.\n",
            paths.receipt, paths.schema, paths.context
        )),
        Some(how) => md.push_str(&format!(
            "- End the turn with exactly one JSON receipt. {how} The same facts, structured, are \
             in `{}`.\n",
            paths.context
        )),
    }
    md.push_str(&receipt_forms());
    if ctx.final_turn {
        md.push_str(
            "- **This is the final turn: questions are no longer allowed. Write a `done` receipt.**\n",
        );
    } else {
        md.push_str(&format!(
            "- This is not the final turn: ask if something important is unclear; finish with `done` \
             when you know enough. Turn {} is the last one.\n",
            ctx.max_turns
        ));
    }
    if let Some(failure) = &ctx.previous_failure {
        md.push_str(&format!(
            "\n## Your previous attempt at this turn failed\n\n{failure}\n\nFix that and try again.\n"
        ));
    }
    md.push_str("\n## Facts\n\n");
    md.push_str(facts_markdown.trim_end());
    md.push('\n');
    if !ctx.rounds.is_empty() {
        md.push_str("\n## Transcript so far\n");
        for round in &ctx.rounds {
            md.push_str(&format!("\n### Turn {}\n\n", round.turn));
            if round.gate_skipped {
                md.push_str("The person chose to skip these questions.\n\n");
            }
            for q in &round.questions {
                let answer = round.answers.iter().find(|a| a.question_id == q.topic);
                let said = match answer {
                    Some(a) if !a.skipped => format!("answered: {}", a.answer_text),
                    Some(_) => "skipped".to_string(),
                    None => "not asked (the person stopped the questions)".to_string(),
                };
                md.push_str(&format!("- `{}` — {} → {said}\n", q.topic, q.question_text));
            }
            if round.skipped_all {
                md.push_str("\nThe person typed `skip all`.\n");
            }
        }
    }
    md
}

/// The two receipt forms, with the limits of `protocol::limits` written in.
fn receipt_forms() -> String {
    let (low, high) = (SEVERITY_RANGE.start(), SEVERITY_RANGE.end());
    format!(
        "- Either ask: `{{\"receipt\":\"ask\",\"version\":{VERSION},\"questions\":[{{\"topic\":\"snake_case_id\",\
         \"question_text\":\"one line, at most {MAX_QUESTION_TEXT_CHARS} characters\",\"severity\":{low}-{high},\
         \"options\":[{{\"label\":\"…\",\"value\":\"…\"}}],\"recommended\":\"value\"}}]}}` with \
         {MIN_QUESTIONS}–{MAX_QUESTIONS} questions (options optional, {MIN_OPTIONS}–{MAX_OPTIONS}), never a topic \
         asked before;\n\
         - or finish: `{{\"receipt\":\"done\",\"version\":{VERSION},\"title\":\"≤ {MAX_TITLE_CHARS} chars\",\
         \"summary\":\"…\",\"entries\":[{{\"title\":\"…\",\"content\":\"…\",\
         \"clarity\":\"confirmed|inferred|declared-by-user|open-question\",\
         \"sources\":[\"path:line\", \"commit:<oid>\", \"qa:<topic>\"]}}]}}` with \
         {MIN_ENTRIES}–{MAX_ENTRIES} entries. A `confirmed` entry cites an existing `path:line` or \
         `commit:<oid>`; a `declared-by-user` entry cites `qa:<topic>` of a question the person \
         answered; what stays unclear is an `open-question`.\n"
    )
}
