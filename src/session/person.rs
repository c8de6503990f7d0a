//! What a session asks the person: rounds of questions, decisions (the guard's among them), and
//! how an interrupted or failed prompt ends the session with everything typed kept.

use super::state::{KeyDecision, Status, SubStep, now_iso};
use super::{Session, TurnFiles};
use crate::ask::{self, AbortReason, AnswerRecord, Decision};
use crate::brief::Round;
use crate::cli::OnChange;
use crate::error::{Error, Result};
use crate::guard::{GuardReport, GuardScope};
use crate::receipt;

impl Session<'_> {
    /// Apply the `--on-change` policy to a non-empty guard report.
    pub(super) fn on_guard_change(
        &mut self,
        turn: u32,
        scope: &GuardScope,
        files: &TurnFiles,
        report: &GuardReport,
    ) -> Result<()> {
        let shown = receipt::sanitize(&report.to_string()).0;
        self.transcript.event(
            "guard_violation",
            serde_json::json!({ "turn": turn, "changes": report }),
        )?;
        let blocker = |how: &str| {
            format!(
                "Turn {turn}: the runner changed the repository ({how}); see turns/{turn:03}/guard.json"
            )
        };
        match self.settings.on_change {
            OnChange::Warn => {
                self.person.say(&format!(
                    "Warning: the runner changed the repository during turn {turn}:\n{shown}"
                ));
                Ok(())
            }
            OnChange::Fail => {
                self.state.status = Status::Failed;
                self.state.blockers.push(blocker("stopped"));
                self.state.note(
                    format!("the change guard stopped turn {turn}"),
                    "review the changes, then start again",
                );
                self.save()?;
                Err(Error::GuardViolation { report: shown })
            }
            OnChange::Ask => {
                self.person.say(&format!(
                    "The runner changed the repository during turn {turn}:\n{shown}"
                ));
                let decision = Decision {
                    id: "guard".into(),
                    context: format!("the runner changed the repository in turn {turn}"),
                    options: vec![
                        "Stop and keep the changes for review".into(),
                        "Restore hooks and git metadata from the copies taken before the turn, then stop".into(),
                        "Accept the changes and continue the interview".into(),
                    ],
                    recommended: 0,
                    reason: "nothing is lost and you can look at what the runner did".into(),
                };
                let choice = self.decide(&decision)?;
                match choice {
                    2 => Ok(()),
                    1 => {
                        // Copies the runner could have rewritten are not trusted.
                        let copies = self.shown(&files.restore);
                        if report
                            .changes
                            .iter()
                            .any(|c| c.subject.starts_with(&copies))
                        {
                            self.state.status = Status::Failed;
                            self.state
                                .blockers
                                .push(blocker("the runner touched the copies; nothing restored"));
                            self.save()?;
                            self.person.say(&format!(
                                "The runner changed the copies in {copies}: nothing was restored. Repair the repository by hand."
                            ));
                            return Err(Error::GuardViolation { report: shown });
                        }
                        let summary = crate::guard::restore(scope, &files.restore)
                            .map_err(|e| Error::Guard(format!("restore failed: {e}")))?;
                        self.person.say(&format!("Restored: {summary}"));
                        self.state.status = Status::Failed;
                        self.state
                            .blockers
                            .push(blocker("restored hooks and git metadata, then stopped"));
                        self.save()?;
                        Err(Error::GuardViolation { report: shown })
                    }
                    _ => {
                        self.state.status = Status::Failed;
                        self.state.blockers.push(blocker("stopped for review"));
                        self.save()?;
                        Err(Error::GuardViolation { report: shown })
                    }
                }
            }
        }
    }

    /// Record a decision taken before the session started (e.g. which tracker).
    pub fn record_decision(&mut self, id: &str, context: &str, choice: &str) -> Result<()> {
        self.state.key_decisions.push(KeyDecision {
            at: now_iso(),
            id: id.to_string(),
            context: context.to_string(),
            choice: choice.to_string(),
        });
        self.save()
    }

    /// Ask a decision and record it in the state file's key decisions.
    pub(super) fn decide(&mut self, decision: &Decision) -> Result<usize> {
        self.state.status = Status::WaitingForPerson;
        self.save()?;
        let choice = match ask::choose(self.person, decision) {
            Ok(c) => c,
            Err(ask::AskError::Interrupted) => {
                return Err(self.abort("interrupted at a decision", self.state.turn));
            }
            Err(e) => return Err(self.ask_error(e)),
        };
        let letter = (b'A' + choice as u8) as char;
        self.state.status = Status::InProgress;
        self.state.key_decisions.push(KeyDecision {
            at: now_iso(),
            id: decision.id.clone(),
            context: decision.context.clone(),
            choice: format!("{letter}) {}", decision.options[choice]),
        });
        self.save()?;
        self.transcript.event(
            "decision",
            serde_json::json!({ "id": decision.id, "choice": letter.to_string() }),
        )?;
        Ok(choice)
    }

    /// Put questions to the person. Returns true when the next turn must be the final one.
    pub(super) fn ask_round(
        &mut self,
        turn: u32,
        questions: Vec<crate::receipt::Question>,
    ) -> Result<bool> {
        self.set_step(SubStep::Questions)?;
        self.state.rounds.push(Round {
            turn,
            questions: questions.clone(),
            answers: Vec::new(),
            gate_skipped: false,
            skipped_all: false,
        });
        self.put_questions(turn, questions)
    }

    /// Ask the questions of the last round that have no answer yet (after a resume, only those).
    pub(super) fn ask_remaining(&mut self, turn: u32) -> Result<bool> {
        let Some(round) = self.state.rounds.last().filter(|r| r.turn == turn) else {
            return Ok(false);
        };
        let remaining: Vec<_> = round
            .questions
            .iter()
            .filter(|q| !round.answers.iter().any(|a| a.question_id == q.topic))
            .cloned()
            .collect();
        if remaining.is_empty() {
            return Ok(round.gate_skipped || round.skipped_all);
        }
        self.person.say(&format!(
            "Continuing turn {turn}: {} question(s) still to answer.",
            remaining.len()
        ));
        self.put_questions(turn, remaining)
    }

    /// The entry gate and question loop for `questions`, recorded into the last round.
    pub(super) fn put_questions(
        &mut self,
        turn: u32,
        questions: Vec<crate::receipt::Question>,
    ) -> Result<bool> {
        self.state.status = Status::WaitingForPerson;
        self.save()?;
        let state_path = self.dir.join("state.json");
        let workspace_id = self.repo.workspace_id.clone();
        let outcome = {
            let state = &mut self.state;
            let transcript = &mut self.transcript;
            let mut persist = |record: &AnswerRecord| -> std::io::Result<()> {
                if let Some(round) = state.rounds.last_mut() {
                    round.answers.push(record.clone());
                }
                transcript
                    .event(
                        "answer",
                        serde_json::json!({ "turn": turn, "answer": record }),
                    )
                    .map_err(std::io::Error::other)?;
                state.save(&state_path).map_err(std::io::Error::other)
            };
            ask::run_round(self.person, &questions, &workspace_id, &mut persist)
        };
        let outcome = match outcome {
            Ok(o) => o,
            Err(e) => return Err(self.ask_error(e)),
        };
        let _ = crate::telemetry::record_round(&self.tier.root, &outcome, self.person.replayed());
        if let Some(round) = self.state.rounds.last_mut() {
            round.gate_skipped |= outcome.skipped && !outcome.skipped_all;
            round.skipped_all |= outcome.skipped_all;
        }
        self.transcript.event(
            "round_end",
            serde_json::json!({ "turn": turn, "outcome": &outcome, "skipped_all": outcome.skipped_all, "qa_duration_ms": outcome.qa_duration_ms }),
        )?;
        if outcome.abort_reason == Some(AbortReason::UserAbort) {
            return Err(self.abort("interrupted while answering questions", turn));
        }
        self.state.status = Status::InProgress;
        self.save()?;
        Ok(outcome.skipped)
    }

    /// Map an error from the person's side, saving the session first.
    pub(super) fn ask_error(&mut self, e: ask::AskError) -> Error {
        match e {
            ask::AskError::Interrupted => self.abort("interrupted", self.state.turn),
            ask::AskError::MissingAnswer {
                topic,
                question_text,
            } => {
                self.state.status = Status::Failed;
                self.state.note(
                    format!("the answers file has no answer for `{topic}`"),
                    "add the answer to the answers file and run again",
                );
                let _ = self.save();
                Error::MissingAnswer {
                    message: format!(
                        "the answers file has no answer for topic `{topic}`:\n  {}\nAdd this line to \"answers\" (or pass --missing skip):\n  \"{topic}\": \"your answer\"",
                        receipt::sanitize(&question_text).0
                    ),
                }
            }
            ask::AskError::MissingDecision { id } => {
                self.state.status = Status::Failed;
                let _ = self.save();
                Error::MissingAnswer {
                    message: format!(
                        "the answers file has no decision `{id}`; add to \"decisions\":\n  \"{id}\": \"A\""
                    ),
                }
            }
            ask::AskError::Closed => {
                let _ = self.abort("standard input closed", self.state.turn);
                Error::Other(
                    "standard input closed while waiting for an answer; the answers so far are saved"
                        .into(),
                )
            }
            ask::AskError::BadReplayValue(message) => {
                self.state.status = Status::Failed;
                let _ = self.save();
                Error::Usage(message)
            }
            ask::AskError::Inconsistent(message) => Error::Other(message),
            ask::AskError::Io(e) => Error::io("the person's side", e),
        }
    }

    /// Save the session as aborted and return the error that exits 130.
    pub(super) fn abort(&mut self, what: &str, turn: u32) -> Error {
        self.state.status = Status::Aborted;
        self.state.note(
            what.replace("{turn}", &turn.to_string()),
            format!("resume the session to continue at turn {turn}"),
        );
        let _ = self.save();
        let _ = self
            .transcript
            .event("aborted", serde_json::json!({ "turn": turn }));
        Error::Interrupted {
            session: Some(self.state.session.clone()),
        }
    }
}
