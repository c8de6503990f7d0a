//! The person's side: the entry gate, the question loop and decision prompts.
//!
//! The logic here is written once against [`Person`], so typed input (a terminal) and replayed
//! input (an answers file) go through exactly the same classification. What the person sees and
//! may type is docs/person.md; the result objects' quality checks are
//! enforced before a round returns.

pub(crate) mod clock;
pub(crate) mod progress;
pub(crate) mod render;
pub(crate) mod replay;
mod round;
pub(crate) mod style;
pub(crate) mod terminal;
mod tracker;

use serde::{Deserialize, Serialize};

use crate::answer::AnswerRecord;
use crate::receipt::Question;

pub(crate) use crate::decision::DecisionId;

pub(crate) use replay::RecordingPerson;
pub use replay::{Missing, ReplayFile, ReplayPerson};
#[cfg(test)]
pub(crate) use round::run_round_with;
pub(crate) use round::{RoundStep, run_round_steps};
pub(crate) use style::{ColorChoice, Style};
pub(crate) use terminal::TerminalPerson;

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
    /// The answers file being replayed, to name in an error about one of its values.
    fn replay_file(&self) -> Option<&std::path::Path> {
        None
    }
    /// The next entry gate is that of the session's round `index` (0-based), which a resumed
    /// session may show a second time: it is recorded, and replayed, once per round.
    fn at_round(&mut self, _index: usize) {}
    /// The questions of the round about to be asked (after its gate was passed), in order.
    fn round_questions(&mut self, _questions: &[Question]) {}
    /// `topic` is answered with `raw` from an earlier interview, without asking: an answers
    /// file recorded from this session must hold it too, to replay to the same document.
    fn carried(&mut self, _topic: &str, _raw: &str) -> Result<(), AskError> {
        Ok(())
    }
    /// Write out what was recorded and not written yet: the session calls it before each save
    /// of its state that records an answer, a decision or a round's end.
    fn settle(&mut self) -> Result<(), AskError> {
        Ok(())
    }
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
    #[error(
        "the answers file has no answer for topic `{topic}` (question: \"{question_text}\"); add `\"{topic}\": \"…\"` to its `answers`, or run with `--missing skip`"
    )]
    MissingAnswer {
        topic: String,
        question_text: String,
        /// The round's other questions the file has no answer for, as (topic, question), so
        /// that one run names them all.
        others: Vec<(String, String)>,
    },
    /// A replayed run has no decision for this prompt.
    #[error(
        "the answers file has no decision for `{id}`; add `\"{id}\": \"A\"` (or another letter) to its `decisions`"
    )]
    MissingDecision { id: DecisionId },
    /// A replayed value no person could have typed at this prompt.
    #[error("{0}")]
    BadReplayValue(String),
    /// Nobody can be asked: no terminal, and no answers file (the message says what to do).
    #[error("{0}")]
    NoPerson(String),
    /// A bug in the caller or in this module; nothing the person did causes it.
    #[error("{0}")]
    Inconsistent(String),
    /// Reading or writing failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// A replayed value that a person could not have typed at this prompt.
pub(crate) fn bad_replay_value(key: &str, value: &str, expected: &str) -> AskError {
    AskError::BadReplayValue(format!(
        "the answers file's `{key}` is \"{value}\", which is not valid here: expected {expected}"
    ))
}

/// A bug in the caller or in this module (a result failed its quality checks, a decision was
/// malformed); nothing the person did causes it.
pub(crate) fn inconsistent(message: impl std::fmt::Display) -> AskError {
    AskError::Inconsistent(format!(
        "internal error on the person's side: {message}; please report this"
    ))
}

/// The options of one decision as an enum. An option's place in [`Options::ALL`] is its letter
/// (A first), as answers files and state files record it: an option never moves, a new one goes
/// last.
pub(crate) trait Options: Copy + PartialEq + 'static {
    /// Every option, in the order shown.
    const ALL: &'static [Self];

    /// The option's place (0 for A), for [`Decision::recommended`].
    fn index(self) -> usize {
        Self::ALL.iter().position(|o| *o == self).unwrap_or(0)
    }

    /// The option at the place [`choose`] returned.
    fn at(index: usize) -> Result<Self, AskError> {
        Self::ALL
            .get(index)
            .copied()
            .ok_or_else(|| inconsistent(format!("no option {index} of {}", Self::ALL.len())))
    }
}

/// A choice between 2–4 options, shown as the Choose A/B/C/D box.
#[derive(Debug, Clone)]
pub struct Decision {
    /// Stable key used in replay files (`decisions.<id>`) and the state file.
    pub id: DecisionId,
    pub context: String,
    pub options: Vec<String>,
    /// Index into `options`.
    pub recommended: usize,
    pub reason: String,
}

/// Why a round ended early, by the names written to telemetry and the state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum AbortReason {
    UserAbort,
    NoQuestions,
}

/// What a round that was skipped or aborted records: why, where, for which workspace, how fast.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct SkipTelemetry {
    pub skip_reason: Option<String>,
    pub skipped_at: Option<String>,
    pub workspace_id: String,
    pub response_time_ms: Option<u64>,
}

/// The `skip_reason` values: skipped at the entry gate, or aborted with Ctrl+C.
pub(crate) const SKIP_ENTIRE: &str = "user_skip_entire";
pub(crate) const SKIP_ABORT: &str = "user_abort";

/// What the question loop returns (`qa_session_result` in the state).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct QaSessionResult {
    pub answers: Vec<AnswerRecord>,
    pub partial: bool,
    pub skipped_all: bool,
    pub abort_reason: Option<AbortReason>,
    pub qa_duration_ms: u64,
    /// The topics of the questions the loop was given, in order (for the quality checks).
    #[serde(skip)]
    pub topics: Vec<String>,
}

impl QaSessionResult {
    /// The loop's result is consistent, or one error names the first rule broken.
    ///
    /// One edge is allowed on purpose: "skip all" on the last question records
    /// every question (the skip-all step pushes the current one), so `partial` with
    /// `answers.len() == questions` is allowed when, and only when, `skipped_all` is set.
    pub(crate) fn check(&self) -> Result<(), String> {
        let n = self.topics.len();
        if self.partial && !self.skipped_all && self.answers.len() >= n {
            return Err(format!(
                "partial with {} answers for {n} questions",
                self.answers.len()
            ));
        }
        if self.skipped_all && !self.partial {
            return Err("skipped_all without partial".into());
        }
        if self.skipped_all && !self.answers.last().is_some_and(|a| a.skipped) {
            return Err("skipped_all but the last answer is not a skip".into());
        }
        if !self.partial
            && self
                .abort_reason
                .is_some_and(|r| r != AbortReason::NoQuestions)
        {
            return Err("complete loop with an abort reason".into());
        }
        if self.answers.len() > n {
            return Err(format!("{} answers for {n} questions", self.answers.len()));
        }
        for (i, a) in self.answers.iter().enumerate() {
            // Answers come in question order, one per question presented.
            if self.topics.get(i) != Some(&a.question_id) {
                return Err(format!(
                    "answer {i} has question_id `{}` that is not question {i}'s topic",
                    a.question_id
                ));
            }
            if a.skipped && !a.answer_text.is_empty() {
                return Err(format!("answer {i} is skipped but has text"));
            }
            if !a.skipped && a.answer_text.is_empty() {
                return Err(format!("answer {i} is not skipped but has no text"));
            }
        }
        let no_questions = self.abort_reason == Some(AbortReason::NoQuestions);
        if no_questions != (self.qa_duration_ms == 0) {
            return Err(format!(
                "qa_duration_ms {} must be 0 exactly on the no-questions path",
                self.qa_duration_ms
            ));
        }
        let sum: u128 = self
            .answers
            .iter()
            .map(|a| u128::from(a.response_time_ms))
            .sum();
        if u128::from(self.qa_duration_ms) < sum {
            return Err(format!(
                "qa_duration_ms {} is less than the sum of response times {sum}",
                self.qa_duration_ms
            ));
        }
        Ok(())
    }
}

/// The outcome of one round of questions (`abort_safe_result` in the state).
///
/// The serialised form is exactly four fields, which the state keeps; the rest is for the caller.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct RoundOutcome {
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
    /// The loop's own result, when the loop ran.
    #[serde(skip)]
    pub qa_session_result: Option<QaSessionResult>,
    /// How many questions the round had.
    #[serde(skip)]
    pub question_count: usize,
    /// Milliseconds from showing the entry gate to the person's choice (also when they
    /// proceeded); `None` on interrupt or no questions.
    #[serde(skip)]
    pub gate_response_time_ms: Option<u64>,
}

impl RoundOutcome {
    /// The round's outcome is consistent, or one error names the first rule broken.
    ///
    /// Partial answers are kept (docs/person.md): after a mid-loop
    /// `skip all` or Ctrl+C, Path B forwards the partial answers, so `qa_answers` is an array
    /// there although `skipped` / `user_abort` would otherwise demand `null`. At the gate the
    /// summary rules hold as written.
    pub(crate) fn check(&self) -> Result<(), String> {
        let no_questions = self.abort_reason == Some(AbortReason::NoQuestions);
        let proceeded = self
            .skip_telemetry
            .as_ref()
            .is_some_and(|t| t.skip_reason.is_none());
        if self.skipped && self.qa_answers.is_some() && !(proceeded && self.skipped_all) {
            return Err("skipped at the gate but qa_answers is not null".into());
        }
        if !self.skipped && self.qa_answers.is_none() {
            return Err("not skipped but qa_answers is null".into());
        }
        if no_questions
            && (self.skip_telemetry.is_some()
                || self.qa_answers.as_ref().is_none_or(|a| !a.is_empty()))
        {
            return Err("no_questions needs skip_telemetry null and qa_answers []".into());
        }
        if !no_questions && self.skip_telemetry.is_none() {
            return Err("skip_telemetry is null outside the no-questions shortcut".into());
        }
        if let Some(t) = &self.skip_telemetry {
            if t.workspace_id.is_empty() {
                return Err("skip_telemetry.workspace_id is empty".into());
            }
            match t.skip_reason.as_deref() {
                Some(SKIP_ENTIRE) | Some(SKIP_ABORT) => {
                    if !t.skipped_at.as_deref().is_some_and(clock::is_iso_utc) {
                        return Err("a skip without an ISO 8601 skipped_at".into());
                    }
                    if !self.skipped || self.qa_answers.is_some() {
                        return Err("a gate skip must be skipped with qa_answers null".into());
                    }
                }
                Some(other) => return Err(format!("unknown skip_reason `{other}`")),
                None => {
                    if t.skipped_at.is_some() {
                        return Err("skip_reason null but skipped_at set".into());
                    }
                }
            }
            let gate_abort = t.skip_reason.as_deref() == Some(SKIP_ABORT);
            if gate_abort != (self.abort_reason == Some(AbortReason::UserAbort) && !proceeded) {
                return Err("skip_reason user_abort and abort_reason user_abort disagree".into());
            }
        }
        if self.abort_reason == Some(AbortReason::UserAbort) && proceeded {
            // Mid-loop abort: partial answers are kept.
            if self.qa_answers.is_none() {
                return Err("mid-loop abort lost the partial answers".into());
            }
        }
        if let Some(qa) = &self.qa_session_result {
            qa.check().map_err(|e| format!("qa_session_result: {e}"))?;
        }
        Ok(())
    }

    /// Checked, or an internal error naming the broken rule.
    fn checked(self) -> Result<RoundOutcome, AskError> {
        self.check()
            .map_err(|e| inconsistent(format!("round result: {e}")))?;
        Ok(self)
    }
}

/// What a line typed at the entry gate means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GateChoice {
    Proceed,
    Skip,
    /// Neither: ask again.
    Unclear,
}

/// Classify a raw line typed at the entry gate: Enter or Y proceeds, N skips, anything else
/// asks again.
pub(crate) fn classify_gate(raw: &str) -> GateChoice {
    match raw.trim().to_lowercase().as_str() {
        "n" | "no" | "skip" => GateChoice::Skip,
        "y" | "yes" | "" => GateChoice::Proceed,
        _ => GateChoice::Unclear,
    }
}

/// What a line typed at a question means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Reply {
    SkipAll,
    Skip,
    /// The resolved answer text (an option's value for a number in range or `r`).
    Answer(String),
    /// `r` or `@recommended` at a question with no recommended option: never recorded as the
    /// answer; asked again at a terminal, an error in a replay.
    NoRecommendation,
    /// A number that picks none of the question's `options` options (`0`, `7` of 4): never
    /// recorded as the answer; asked again at a terminal with the valid range, an error in a
    /// replay.
    NoSuchOption {
        options: usize,
    },
}

/// How many times a question is asked again after `r` without a recommendation before it counts
/// as skipped (a bound, so a scripted person cannot loop forever).
const MAX_REASKS: usize = 5;

/// Classify a raw line typed at a question: `skip`, `skip all`, an option's number, `r` /
/// `@recommended`, or the person's own text.
pub(crate) fn classify_reply(raw: &str, q: &Question) -> Reply {
    let raw_input = raw.trim();
    let normalized = raw_input.to_lowercase();
    match normalized.as_str() {
        "skip all" | "s all" => return Reply::SkipAll,
        "skip" | "s" | "" => return Reply::Skip,
        _ => {}
    }
    if normalized == "r" || normalized == "@recommended" {
        return match q.recommended.as_ref().filter(|r| !r.is_empty()) {
            Some(rec) => Reply::Answer(rec.clone()),
            None => Reply::NoRecommendation,
        };
    }
    if let Some(options) = &q.options
        && !raw_input.is_empty()
        && raw_input.bytes().all(|b| b.is_ascii_digit())
    {
        // Out of range (0, too large, or beyond usize) is a typo, not an answer: kept as free
        // text, a mistyped `7` would become the answer.
        return match raw_input.parse::<usize>() {
            Ok(n) if n >= 1 && n <= options.len() => match &options[n - 1].value {
                value if value.is_empty() => Reply::Answer(raw_input.to_string()),
                value => Reply::Answer(value.clone()),
            },
            _ => Reply::NoSuchOption {
                options: options.len(),
            },
        };
    }
    Reply::Answer(raw_input.to_string())
}

/// Ask for a decision; returns the index of the chosen option.
pub(crate) fn choose(person: &mut dyn Person, decision: &Decision) -> Result<usize, AskError> {
    let n = decision.options.len();
    if !(2..=4).contains(&n) || decision.recommended >= n {
        return Err(inconsistent(format!(
            "decision `{}` has {n} options and recommends option {}; it needs 2–4 and one of them",
            decision.id, decision.recommended
        )));
    }
    loop {
        let raw = person.decide(decision)?;
        if let Some(i) = parse_letter(&raw, n) {
            return Ok(i);
        }
        if person.replayed() {
            return Err(bad_replay_value(
                &format!("decisions.{}", decision.id),
                &raw,
                &format!("a letter from A to {}", render::letter(n - 1)),
            ));
        }
        person.say(&render::decision_reask(&raw, n));
    }
}

/// The option index for a decision answer: one letter, case-insensitive, surrounding spaces
/// ignored.
pub(crate) fn parse_letter(raw: &str, count: usize) -> Option<usize> {
    let t = raw.trim();
    let mut chars = t.chars();
    let c = chars.next()?.to_ascii_uppercase();
    if chars.next().is_some() || !c.is_ascii_uppercase() {
        return None;
    }
    let i = (c as u8 - b'A') as usize;
    (i < count).then_some(i)
}

impl From<AskError> for crate::error::Error {
    /// For prompts outside a session (which maps them itself, after saving its state).
    fn from(e: crate::ask::AskError) -> Self {
        use crate::error::Error;
        match e {
            AskError::Interrupted => Error::Interrupted { session: None },
            e @ (AskError::MissingAnswer { .. } | AskError::MissingDecision { .. }) => {
                Error::MissingAnswer {
                    message: e.to_string(),
                }
            }
            AskError::BadReplayValue(message) | AskError::NoPerson(message) => {
                Error::Usage(message)
            }
            e @ (AskError::Closed | AskError::Inconsistent(_)) => Error::Ask(e.into()),
            AskError::Io(e) => Error::io("the person's side", e),
        }
    }
}

#[cfg(test)]
mod tests;
