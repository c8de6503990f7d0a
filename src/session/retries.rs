//! Retries: a failed attempt is tried again from the same sub-step with the failure in the next
//! brief; when the retries are used up the person decides (docs/sessions.md, "Retries and the
//! circuit breaker").

use std::path::Path;

use super::failure::TurnFailure;
use super::state::{RetryEntry, Status, now_iso};
use super::transcript::TranscriptEvent;
use super::{Session, failure};
use crate::ask::{Decision, DecisionId, Options};
use crate::error::{Error, Result};
use crate::receipt::Receipt;

/// What the person chooses when the runner failed with its retries used up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AfterExhausted {
    /// Start the turn again with a fresh brief; the retry count starts again.
    Retry,
    /// Stop, keep the session failed (resume later).
    Stop,
    /// Stop and mark the session aborted: the runner needs fixing by hand.
    Abort,
}

impl Options for AfterExhausted {
    const ALL: &'static [AfterExhausted] = &[
        AfterExhausted::Retry,
        AfterExhausted::Stop,
        AfterExhausted::Abort,
    ];
}

/// The `runner_failed` decision put to the person when the retries are used up, or at once
/// when a retry cannot help (`permanent` says why, `fix` what fixes it). The failure itself was
/// said just before, once: the title only counts (the letters keep their meaning in recorded
/// answers files).
fn runner_failed_decision(
    attempts: u32,
    turn: u32,
    permanent: Option<&str>,
    fix: Option<&str>,
) -> Decision {
    let (recommended, reason) = match permanent {
        Some(why) => (
            AfterExhausted::Stop.index(),
            format!(
                "{why}: a retry cannot fix that; {}, then resume",
                fix.unwrap_or("fix it")
            ),
        ),
        None => (
            AfterExhausted::Retry.index(),
            "the failure may be passing (a timeout, an overloaded API)".into(),
        ),
    };
    Decision {
        id: DecisionId::RunnerFailed,
        context: format!(
            "the runner failed {} at turn {turn}; what now?",
            failure::times(attempts)
        ),
        options: AfterExhausted::ALL
            .iter()
            .map(|o| match o {
                AfterExhausted::Retry => "Retry with a fresh brief".into(),
                AfterExhausted::Stop => "Stop and keep the answers (resume later)".into(),
                AfterExhausted::Abort => "Abort: investigate and fix the runner by hand".into(),
            })
            .collect(),
        recommended,
        reason,
    }
}

/// The blocker recorded when the retries are used up.
fn exhausted_blocker(
    runner: &str,
    attempts: u32,
    turn: u32,
    failure: &TurnFailure,
    permanent: Option<&str>,
) -> String {
    let end = match permanent {
        Some(why) => format!("Not retried: {why}, which a retry cannot fix."),
        None => "Auto-retry exhausted.".into(),
    };
    format!(
        "The runner `{runner}` failed {} at turn {turn} ({}). Last failure: {}. {end}",
        failure::times(attempts),
        failure.sub_step_name(),
        failure.reason()
    )
}

impl Session<'_> {
    /// One turn, retried from the same sub-step until it yields a receipt or retries run out.
    pub(super) fn turn_with_retries(&mut self, turn: u32, final_turn: bool) -> Result<Receipt> {
        let mut previous_failure: Option<String> = None;
        // Whether every failure since the last fresh start gave the same reason.
        let mut all_the_same = true;
        loop {
            let failure = match self.attempt(turn, final_turn, previous_failure.as_deref())? {
                Ok(receipt) => {
                    // A resume that finds the earlier count runs the turn again anyway.
                    self.record_step(|s| {
                        s.retry_count = 0;
                        s.retry_log.clear();
                        s.last_failure = None;
                    })?;
                    return Ok(receipt);
                }
                Err(failure) => failure,
            };
            let reason = failure.reason();
            self.record_failure(turn, &reason)?;
            let same = previous_failure.as_deref() == Some(reason.as_str());
            all_the_same &= previous_failure.is_none() || same;
            let attempts = self.state.retry_count + 1;
            // A failure a retry cannot fix goes to the person (or ends a replay) at once: the
            // preset's CLI said it, or it is one any runner says alike.
            let unfixable = failure.unfixable.clone();
            let permanent = unfixable
                .as_ref()
                .map(|u| u.what)
                .or_else(|| failure::not_fixable_by_retry(&reason, &failure.stderr));
            let fix = unfixable.as_ref().map(|u| u.fix);
            if permanent.is_some() || self.state.retry_count >= self.settings.retries {
                // Only a retry the person chose comes back here.
                self.retries_ran_out(turn, attempts, all_the_same, &failure, permanent, fix)?;
                previous_failure = None;
                all_the_same = true;
                continue;
            }
            self.retry_next(turn, attempts, &failure, same)?;
            previous_failure = Some(reason);
        }
    }

    /// The failure as the turn's last, in the state and the transcript.
    fn record_failure(&mut self, turn: u32, reason: &str) -> Result<()> {
        self.record(|s| s.last_failure = Some(reason.to_string()))?;
        self.transcript.record(&TranscriptEvent::TurnFailed {
            turn,
            attempt: self.state.retry_count + 1,
            reason,
        })
    }

    /// A failure with retries left: told to the person, and counted in the state.
    fn retry_next(
        &mut self,
        turn: u32,
        attempts: u32,
        failure: &TurnFailure,
        same: bool,
    ) -> Result<()> {
        let reason = failure.reason();
        self.person.say(&failure::attempt_failed(
            turn,
            attempts,
            self.settings.retries + 1,
            &reason,
            &failure.stderr,
            same,
        ));
        self.record(|s| {
            s.retry_count += 1;
            s.retry_log.push(RetryEntry {
                at: now_iso(),
                turn,
                sub_step: failure.sub_step,
                reason,
            });
        })
    }

    /// No retry is left (or none can help): the session stops with the failure told in one
    /// summary, unless the person chooses to retry with a fresh brief (then `Ok`).
    fn retries_ran_out(
        &mut self,
        turn: u32,
        attempts: u32,
        all_the_same: bool,
        failure: &TurnFailure,
        permanent: Option<&str>,
        fix: Option<&str>,
    ) -> Result<()> {
        let reason = failure.reason();
        let log = self.turn_dir(turn).join(crate::protocol::files::RUNNER_LOG);
        let summary = failure::exhausted(
            turn,
            attempts,
            all_the_same,
            &reason,
            Path::new(&self.shown(&log)),
            &failure.stderr,
            permanent,
            fix,
        );
        let after = self.retries_exhausted(turn, attempts, failure, &summary, permanent, fix)?;
        let session = &self.state.session;
        let message = match after {
            AfterExhausted::Retry => {
                self.person
                    .say(&format!("Retrying turn {turn} with a fresh brief."));
                return Ok(());
            }
            // Replayed: nothing was said yet, so the error says it all.
            _ if self.person.replayed() => summary,
            AfterExhausted::Stop => format!(
                "stopped at turn {turn}; the session is saved: continue with `interview resume {session}` once the runner works"
            ),
            AfterExhausted::Abort => {
                format!("aborted at turn {turn}; fix the runner, then `interview resume {session}`")
            }
        };
        Err(Error::RunnerFailed {
            turn,
            attempts,
            message,
        })
    }

    /// The retries are used up: record the blocker, then (at a terminal) let the person decide.
    /// A replayed run stops here.
    fn retries_exhausted(
        &mut self,
        turn: u32,
        attempts: u32,
        failure: &TurnFailure,
        summary: &str,
        permanent: Option<&str>,
        fix: Option<&str>,
    ) -> Result<AfterExhausted> {
        let blocker = exhausted_blocker(&self.state.runner, attempts, turn, failure, permanent);
        let session = self.state.session.clone();
        self.keep_log(turn);
        self.record(|s| {
            s.status = Status::Failed;
            s.blockers.push(blocker);
            s.note(
                format!("turn {turn} failed {}", failure::times(attempts)),
                format!(
                    "look at turns/{turn:03}/runner.log, fix the runner, then `interview resume {session}`"
                ),
            );
        })?;
        if self.person.replayed() {
            return Ok(AfterExhausted::Stop);
        }
        self.person.say(&upper_first(summary));
        let after = self.decide(&runner_failed_decision(attempts, turn, permanent, fix))?;
        self.record(|s| match after {
            AfterExhausted::Retry => {
                s.status = Status::InProgress;
                s.retry_count = 0;
                s.retry_log.clear();
                s.blockers.pop();
            }
            AfterExhausted::Stop => s.status = Status::Failed,
            AfterExhausted::Abort => s.status = Status::Aborted,
        })?;
        Ok(after)
    }

    /// Sync the runner's log of `turn` to the disk: the blocker about to be recorded sends the
    /// person to it (it is not synced as it is written: a crash runs the turn again). What the
    /// runner left in its place (a link, a FIFO) is not opened.
    fn keep_log(&self, turn: u32) {
        let log = self.turn_dir(turn).join(crate::protocol::files::RUNNER_LOG);
        if let Ok(file) = crate::input::open_regular(&log, crate::input::Links::Refuse) {
            let _ = file.sync_data();
        }
    }
}

/// `text` with its first letter in upper case, to stand as a sentence.
fn upper_first(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
