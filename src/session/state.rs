//! The state file `state.json`: where a session is, what failed, what was decided.
//!
//! Versioned and written atomically; a later version of the tool can read it.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::answer::AnswerRecord;
use crate::brief::Round;
use crate::decision::DecisionId;
use crate::error::{Error, Result};
use crate::receipt::Question;
use crate::subject::{Kind, Subject};

pub(crate) const STATE_VERSION: u32 = 1;
/// The most turns an interview may have (`--max-turns`, and a bound on what a state file says).
pub(crate) const MAX_TURNS: u32 = 50;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Status {
    InProgress,
    WaitingForPerson,
    Done,
    Failed,
    Aborted,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum SubStep {
    Brief,
    Dispatch,
    Guard,
    Receipt,
    Questions,
    Synthesis,
    Consent,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct RetryEntry {
    pub at: String,
    pub turn: u32,
    pub sub_step: SubStep,
    pub reason: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct KeyDecision {
    pub at: String,
    pub id: DecisionId,
    pub context: String,
    pub choice: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct LastSession {
    pub at: String,
    pub what_happened: String,
    pub next: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct State {
    pub version: u32,
    pub session: String,
    pub kind: Kind,
    pub subject_id: String,
    pub subject_title: String,
    pub runner: String,
    pub status: Status,
    pub turn: u32,
    pub max_turns: u32,
    pub sub_step: SubStep,
    pub retry_count: u32,
    /// Automatic retries allowed before escalating (the N of "retry N/3").
    #[serde(default = "default_retries")]
    pub retries: u32,
    pub retry_log: Vec<RetryEntry>,
    pub blockers: Vec<String>,
    pub key_decisions: Vec<KeyDecision>,
    pub last_session: Option<LastSession>,
    /// Rounds of questions so far, with every answer given (persisted as each is given).
    pub rounds: Vec<Round>,
    /// Where the document was written, once it was.
    pub document: Option<String>,
    /// The next turn must be the final one (the person skipped a round or typed `skip all`).
    #[serde(default)]
    pub final_next: bool,
    /// The person gave the session up at the circuit breaker: it is not offered for resuming.
    #[serde(default)]
    pub abandoned: bool,
    /// Every run of the runner: how long it took and what the CLI reported using.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub runs: Vec<RunRecord>,
    /// Why the latest attempt failed, in the runner's own words where it gave them; cleared when
    /// a turn succeeds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_failure: Option<String>,
    /// The document being written (saved before the write): a resume that finds this very file
    /// there knows it is the session's own and replaces it without asking.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub writing: Option<Writing>,
    /// The `--clarify-into` write, recorded the same way: a resume does not add the
    /// clarifications twice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clarifying: Option<Writing>,
    /// Answers an earlier interview of the subject gave, carried into this one (a re-run at a
    /// terminal): not asked again; where they came from is kept here, not in the document.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub carried: Vec<CarriedAnswer>,
    /// The answers came from a file (`--answers`): a run at a terminal does not offer such a
    /// session for resuming, it starts afresh (`interview resume` still continues it).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub replayed: bool,
    /// Why the session could not go on (its run failed before any answer, with nothing to
    /// resume): it is not offered for resuming, and `prune` removes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closed: Option<String>,
}

/// A document write in progress: where, and the SHA-256 of what is written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Writing {
    pub path: String,
    pub sha256: String,
    /// The temporary file the write goes through, removed by a resume if a kill left it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tmp: Option<String>,
}

/// One run of the runner (one attempt at a turn).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct RunRecord {
    pub turn: u32,
    pub duration_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<crate::runner::Usage>,
}

impl State {
    /// The state of a new session, at the first turn's brief.
    pub(crate) fn new(session: String, subject: &Subject, settings: &super::Settings) -> State {
        State {
            version: STATE_VERSION,
            session,
            kind: subject.kind,
            subject_id: subject.id.clone(),
            subject_title: subject.title.clone(),
            runner: settings.runner.name.clone(),
            status: Status::InProgress,
            turn: 1,
            max_turns: settings.max_turns,
            sub_step: SubStep::Brief,
            retry_count: 0,
            retries: settings.retries,
            retry_log: Vec::new(),
            blockers: Vec::new(),
            key_decisions: Vec::new(),
            last_session: None,
            rounds: Vec::new(),
            document: None,
            final_next: false,
            abandoned: false,
            runs: Vec::new(),
            last_failure: None,
            writing: None,
            clarifying: None,
            carried: Vec::new(),
            replayed: false,
            closed: None,
        }
    }

    /// Every question answered (not skipped) with its answer, in the order answered: a topic
    /// answered again in a later round counts once, where it was answered last.
    pub(crate) fn answered(&self) -> Vec<(&Question, &AnswerRecord)> {
        let mut out: Vec<(&Question, &AnswerRecord)> = Vec::new();
        for round in &self.rounds {
            for q in &round.questions {
                let Some(a) = round
                    .answers
                    .iter()
                    .find(|a| a.question_id == q.topic && !a.skipped)
                else {
                    continue;
                };
                out.retain(|(seen, _)| seen.topic != q.topic);
                out.push((q, a));
            }
        }
        out
    }

    /// Write the state to `path`, synced or not as `durability` says (the session's `record`
    /// and `record_step` choose; docs/architecture.md, "Durability"). An unsynced save of what
    /// the file already holds, byte for byte, is not made again: it would change nothing but
    /// cost a new file.
    pub(crate) fn save(&self, path: &Path, durability: super::tier::Durability) -> Result<()> {
        use crate::input::{Links, read_regular};
        let mut json = serde_json::to_vec_pretty(self)
            .map_err(|e| Error::State(format!("cannot encode the state: {e}")))?;
        json.push(b'\n');
        if durability == super::tier::Durability::Replaced
            && read_regular(path, json.len() as u64, Links::Refuse).is_ok_and(|held| held == json)
        {
            return Ok(());
        }
        super::tier::write_atomic(path, &json, durability)
    }

    pub(crate) fn load(path: &Path) -> Result<State> {
        let text = super::tier::read_own(path)?;
        let state: State = serde_json::from_str(&text).map_err(|e| {
            Error::State(format!(
                "{} is corrupt or truncated (line {}, column {}): {e}; it was left as it is",
                path.display(),
                e.line(),
                e.column()
            ))
        })?;
        // A hand-edited count must not make `status` list billions of turns.
        let bounds = [
            ("max_turns", state.max_turns, MAX_TURNS),
            ("turn", state.turn, MAX_TURNS + 1),
        ];
        for (key, value, most) in bounds {
            if !(1..=most).contains(&value) {
                return Err(Error::State(format!(
                    "{} is corrupt: `{key}` is {value}, but an interview has 1 to {MAX_TURNS} turns; it was left as it is",
                    path.display()
                )));
            }
        }
        if state.version > STATE_VERSION {
            return Err(Error::State(format!(
                "{} was written by a newer interview (state version {}); this one reads up to {}",
                path.display(),
                state.version,
                STATE_VERSION
            )));
        }
        Ok(state)
    }

    /// Record what happened in this run of the tool, for the next one.
    pub(crate) fn note(&mut self, what_happened: impl Into<String>, next: impl Into<String>) {
        self.last_session = Some(LastSession {
            at: now_iso(),
            what_happened: what_happened.into(),
            next: next.into(),
        });
    }
}

fn default_retries() -> u32 {
    3
}

/// Now, as ISO 8601 UTC with seconds.
pub(crate) fn now_iso() -> String {
    jiff::Timestamp::now()
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}

/// One answer given in an earlier interview, carried into this one (`carried.rs` finds them).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct CarriedAnswer {
    pub topic: String,
    /// The question as it was asked.
    pub question: String,
    /// The answer as it was recorded (an option's value, or the person's text); read back from
    /// a document, as it reads there (`One VM (vm)`).
    pub answer: String,
    /// What the person typed for it (`2` for an option), from the earlier session's answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub typed: Option<String>,
    /// Where it came from, for a reader: `the interview of 2026-11-30 10:15 UTC` or
    /// `docs/interviews/intent-7.md as it was on 2026-11-30`.
    pub from: String,
    /// The earlier session's id, when the answer came from one (never shown in a document).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
}
