//! The person's side: the entry gate, the question loop and decision prompts.
//!
//! The logic here is written once against [`Person`], so typed input (a terminal) and replayed
//! input (an answers file) go through exactly the same classification.

use serde::{Deserialize, Serialize};

use crate::receipt::Question;

/// Where a person's raw lines come from: a terminal, or a replay file.
///
/// Each method shows what the person must see (a terminal does; a replay source does not) and
/// returns the raw line exactly as typed, before trimming or classification.
pub trait Person {
    /// Show the entry gate for `count` questions and return the raw line.
    fn gate(&mut self, count: usize) -> Result<String, AskError>;
    /// Show the intro before the first question of a round.
    fn intro(&mut self, total: usize);
    /// Show question `index` (0-based) of `total` with its progress header and return the raw line.
    fn question(
        &mut self,
        index: usize,
        total: usize,
        time_label: &str,
        question: &Question,
    ) -> Result<String, AskError>;
    /// Show a decision box and return the raw line.
    fn decide(&mut self, decision: &Decision) -> Result<String, AskError>;
    /// Tell the person something (already sanitised text).
    fn say(&mut self, text: &str);
    /// True when answers are replayed rather than typed.
    fn replayed(&self) -> bool;
}

#[derive(Debug, thiserror::Error)]
pub enum AskError {
    /// Ctrl+C (or another interrupting signal) while waiting for input.
    #[error("interrupted")]
    Interrupted,
    /// Standard input closed before a line was read.
    #[error("standard input closed while waiting for an answer")]
    Closed,
    /// A replayed run has no answer for this question.
    #[error("no recorded answer for topic `{topic}`")]
    MissingAnswer { topic: String, question_text: String },
    /// A replayed run has no decision for this prompt.
    #[error("no recorded decision for `{id}`")]
    MissingDecision { id: String },
    #[error("terminal: {0}")]
    Io(#[from] std::io::Error),
}

/// A choice between 2–4 options, shown as the Choose A/B/C/D box.
#[derive(Debug, Clone)]
pub struct Decision {
    /// Stable key used in replay files (`decisions.<id>`) and the state file.
    pub id: String,
    pub context: String,
    pub options: Vec<String>,
    /// Index into `options`.
    pub recommended: usize,
    pub reason: String,
}

/// One answer record, exactly as `qa-loop-ui` defines it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnswerRecord {
    pub question_id: String,
    pub answer_text: String,
    pub skipped: bool,
    pub response_time_ms: u64,
}

/// Why a round ended early, as the reference texts name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AbortReason {
    UserAbort,
    NoQuestions,
}

/// `skip_telemetry` of `abort-safe-handler`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkipTelemetry {
    pub skip_reason: Option<String>,
    pub skipped_at: Option<String>,
    pub workspace_id: String,
    pub response_time_ms: Option<u64>,
}

/// `abort_safe_result` of `abort-safe-handler`: the outcome of one round of questions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundOutcome {
    pub skipped: bool,
    pub qa_answers: Option<Vec<AnswerRecord>>,
    pub skip_telemetry: Option<SkipTelemetry>,
    pub abort_reason: Option<AbortReason>,
    /// True when the person typed `skip all` mid-loop.
    #[serde(skip)]
    pub skipped_all: bool,
    /// Total milliseconds of the question loop (0 when it did not run).
    #[serde(skip)]
    pub qa_duration_ms: u64,
}

/// Run one round: the entry gate, then the question loop. `on_answer` is called as each answer
/// is given, so the caller can persist it before the next question is shown.
pub fn run_round(
    person: &mut dyn Person,
    questions: &[Question],
    workspace_id: &str,
    on_answer: &mut dyn FnMut(&AnswerRecord) -> std::io::Result<()>,
) -> Result<RoundOutcome, AskError> {
    // Placeholder: a plain loop until the entry gate and question loop land.
    let _ = workspace_id;
    let mut answers = Vec::new();
    for (i, q) in questions.iter().enumerate() {
        let raw = match person.question(i, questions.len(), "", q) {
            Ok(raw) => raw,
            Err(AskError::Interrupted) => {
                return Ok(RoundOutcome {
                    skipped: false,
                    qa_answers: Some(answers),
                    skip_telemetry: None,
                    abort_reason: Some(AbortReason::UserAbort),
                    skipped_all: false,
                    qa_duration_ms: 0,
                });
            }
            Err(e) => return Err(e),
        };
        let text = raw.trim().to_string();
        let record = AnswerRecord {
            question_id: q.topic.clone(),
            skipped: text.is_empty() || text == "skip",
            answer_text: if text == "skip" { String::new() } else { text },
            response_time_ms: 0,
        };
        on_answer(&record)?;
        answers.push(record);
    }
    Ok(RoundOutcome {
        skipped: false,
        qa_answers: Some(answers),
        skip_telemetry: None,
        abort_reason: None,
        skipped_all: false,
        qa_duration_ms: 0,
    })
}

/// Ask for a decision; returns the index of the chosen option.
pub fn choose(person: &mut dyn Person, decision: &Decision) -> Result<usize, AskError> {
    loop {
        let raw = person.decide(decision)?;
        let t = raw.trim().to_ascii_uppercase();
        if let Some(c) = t.chars().next().filter(|_| t.len() == 1) {
            let i = (c as usize).wrapping_sub('A' as usize);
            if i < decision.options.len() {
                return Ok(i);
            }
        }
        if person.replayed() {
            return Err(AskError::MissingDecision {
                id: decision.id.clone(),
            });
        }
    }
}
