//! What a session asks the person: rounds of questions and decisions, and how an interrupted or
//! failed prompt ends the session with everything typed kept (docs/person.md).

use std::path::Path;

use super::Session;
use super::state::{KeyDecision, State, Status, SubStep, now_iso};
use super::tier::Durability;
use super::transcript::{Transcript, TranscriptEvent};
use crate::ask::{self, AbortReason, Decision, DecisionId, RoundStep};
use crate::brief::Round;
use crate::error::{Error, Result};
use crate::receipt;

impl Session<'_> {
    /// Record a decision taken before the session started (e.g. which tracker).
    pub(crate) fn record_decision(
        &mut self,
        id: DecisionId,
        context: &str,
        choice: &str,
    ) -> Result<()> {
        self.record(|s| {
            s.key_decisions.push(KeyDecision {
                at: now_iso(),
                id,
                context: context.to_string(),
                choice: choice.to_string(),
            })
        })
    }

    /// Ask a decision whose options are `O`'s, and record it in the state file's key decisions.
    pub(super) fn decide<O: ask::Options>(&mut self, decision: &Decision) -> Result<O> {
        let choice = self.decide_at(decision)?;
        O::at(choice).map_err(|e| self.ask_error(e))
    }

    /// [`Session::decide`], the option by its place.
    fn decide_at(&mut self, decision: &Decision) -> Result<usize> {
        self.record_step(|s| s.status = Status::WaitingForPerson)?;
        let choice = match ask::choose(self.person, decision) {
            Ok(c) => c,
            Err(ask::AskError::Interrupted) => {
                return Err(self.abort("interrupted at a decision", self.state.turn));
            }
            Err(e) => return Err(self.ask_error(e)),
        };
        let letter = (b'A' + choice as u8) as char;
        self.record(|s| {
            s.status = Status::InProgress;
            s.key_decisions.push(KeyDecision {
                at: now_iso(),
                id: decision.id,
                context: decision.context.clone(),
                choice: format!("{letter}) {}", decision.options[choice]),
            });
        })?;
        self.transcript.record(&TranscriptEvent::Decision {
            id: decision.id,
            choice: letter.to_string(),
        })?;
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
        let open = self.answer_carried(turn, questions)?;
        if open.is_empty() {
            return Ok(false);
        }
        self.put_questions(turn, open)
    }

    /// Answer the questions an earlier interview answered, and that are still asked the same,
    /// with those answers: saved like typed ones (recorded in `answers.json` as they were
    /// typed), and said once. Returns the questions still open: new, changed, or unanswered.
    fn answer_carried(
        &mut self,
        turn: u32,
        questions: Vec<crate::receipt::Question>,
    ) -> Result<Vec<crate::receipt::Question>> {
        let mut open = Vec::new();
        let mut lines = Vec::new();
        for q in questions {
            let carried = self
                .state
                .carried
                .iter()
                .find(|c| c.topic == q.topic)
                .and_then(|c| super::carried::carry(&q, c));
            let Some((answer, typed)) = carried else {
                open.push(q);
                continue;
            };
            let record = crate::answer::AnswerRecord {
                question_id: q.topic.clone(),
                answer_text: answer,
                skipped: false,
                response_time_ms: 0,
            };
            if let Err(e) = self.person.carried(&q.topic, &typed) {
                return Err(self.ask_error(e));
            }
            self.transcript.record(&TranscriptEvent::Answer {
                turn,
                answer: &record,
            })?;
            lines.push(format!(
                "  · {} — {}",
                receipt::sanitize_line(&q.question_text).0,
                receipt::sanitize_line(&super::carried::shown_answer(&q, &record.answer_text)).0
            ));
            if let Some(round) = self.state.rounds.last_mut() {
                round.answers.push(record);
            }
        }
        if lines.is_empty() {
            return Ok(open);
        }
        self.save()?;
        // Said once a run; the carried answers of a later round follow under a shorter line.
        let heading = if self.carried_said {
            "Also not asked again:"
        } else {
            "Already answered in an earlier interview, not asked again:"
        };
        self.carried_said = true;
        self.person.say(&format!("{heading}\n{}", lines.join("\n")));
        Ok(open)
    }

    /// Ask the questions of the last round that have no answer yet (after a resume, only those).
    pub(super) fn ask_remaining(&mut self, turn: u32) -> Result<bool> {
        let Some(round) = self.state.rounds.last().filter(|r| r.turn == turn) else {
            return Ok(false);
        };
        // Skipped at the gate or with `skip all` before the interruption: that stands.
        if round.gate_skipped || round.skipped_all {
            return Ok(true);
        }
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

    /// The entry gate and question loop for `questions`, recorded into the last round: each
    /// step as it is taken (synced), the round's outcome by the caller's `next_turn`.
    pub(super) fn put_questions(
        &mut self,
        turn: u32,
        questions: Vec<crate::receipt::Question>,
    ) -> Result<bool> {
        // The round's questions and the wait need no sync: nothing is typed yet, and a resume
        // that finds an earlier state runs the turn again.
        self.record_step(|s| s.status = Status::WaitingForPerson)?;
        let state_path = self.dir.join("state.json");
        let workspace_id = self.repo.workspace_id.clone();
        // Answers replayed from a file are not synced one by one: the file still holds them, and
        // the round's end (synced) carries them (docs/architecture.md, "Durability").
        let replayed = self.person.replayed();
        let answer_durability = Durability::of_session(replayed);
        self.person
            .at_round(self.state.rounds.len().saturating_sub(1));
        // Each step is saved before it takes effect: a kill right after it loses nothing.
        let mut steps = RoundSteps {
            state: &mut self.state,
            transcript: &mut self.transcript,
            state_path: &state_path,
            durability: answer_durability,
            replayed,
            turn,
        };
        let outcome = ask::run_round_steps(
            &ask::clock::SystemClock::new(),
            self.person,
            &questions,
            &workspace_id,
            &mut |step| steps.save(step),
        );
        let outcome = match outcome {
            Ok(o) => o,
            Err(e) => return Err(self.ask_error(e)),
        };
        // A replayed round is saved once, whole, with its answers written out first (each
        // replayed line was kept in memory only: the answers file still holds it).
        if replayed {
            self.save()?;
        }
        let _ = crate::telemetry::record_round(&self.tier.root, &outcome, self.person.replayed());
        // Ctrl+C at the gate is no skip: the gate comes again on resume. A skip at
        // the gate was saved as it was typed (`RoundStep::GateSkipped`).
        let interrupted = outcome.abort_reason == Some(AbortReason::UserAbort);
        if let Some(round) = self.state.rounds.last_mut() {
            round.gate_skipped |= outcome.skipped && !outcome.skipped_all && !interrupted;
            round.skipped_all |= outcome.skipped_all;
        }
        self.transcript.record(&TranscriptEvent::RoundEnd {
            turn,
            outcome: &outcome,
            skipped_all: outcome.skipped_all,
            qa_duration_ms: outcome.qa_duration_ms,
        })?;
        if outcome.abort_reason == Some(AbortReason::UserAbort) {
            return Err(self.abort("interrupted while answering questions", turn));
        }
        super::test_hook::pause_at("round_end", turn);
        Ok(outcome.skipped)
    }

    /// Map an error from the person's side, saving the session first.
    pub(super) fn ask_error(&mut self, e: ask::AskError) -> Error {
        match e {
            ask::AskError::Interrupted => self.abort("interrupted", self.state.turn),
            ask::AskError::MissingAnswer {
                topic,
                question_text,
                others,
            } => {
                let all: Vec<(String, String)> = std::iter::once((topic, question_text))
                    .chain(others)
                    .collect();
                let topics: Vec<String> = all.iter().map(|(t, _)| format!("`{t}`")).collect();
                self.state.status = Status::Failed;
                self.state.note(
                    format!("the answers file has no answer for {}", topics.join(", ")),
                    "add the answers to the answers file and run again",
                );
                let _ = self.save();
                let questions: String = all
                    .iter()
                    .map(|(t, q)| match all.len() {
                        1 => format!("\n  {}", receipt::sanitize(q).0),
                        _ => format!("\n  `{t}`: {}", receipt::sanitize(q).0),
                    })
                    .collect();
                let lines: Vec<String> = all
                    .iter()
                    .map(|(t, _)| format!("  \"{t}\": \"your answer\""))
                    .collect();
                let (what, these) = if all.len() == 1 {
                    (format!("topic {}", topics[0]), "this line")
                } else {
                    (format!("{} topics", all.len()), "these lines")
                };
                Error::MissingAnswer {
                    message: format!(
                        "the answers file has no answer for {what}:{questions}\nAdd {these} to \"answers\" (or pass --missing skip):\n{}",
                        lines.join(",\n")
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
                Error::InputClosed
            }
            ask::AskError::BadReplayValue(message) => {
                self.state.status = Status::Failed;
                let _ = self.save();
                Error::Usage(message)
            }
            ask::AskError::NoPerson(message) => Error::Usage(message),
            e @ ask::AskError::Inconsistent(_) => Error::Ask(e.into()),
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
        let _ = self.transcript.record(&TranscriptEvent::Aborted { turn });
        Error::Interrupted {
            session: Some(self.state.session.clone()),
        }
    }
}

/// Where the steps of a round are saved as they are taken: the last round of the state (saved
/// with the answers' durability) and the transcript.
struct RoundSteps<'a> {
    state: &'a mut State,
    transcript: &'a mut Transcript,
    state_path: &'a Path,
    durability: Durability,
    replayed: bool,
    turn: u32,
}

impl RoundSteps<'_> {
    /// One step into the last round, saved before it takes effect.
    fn save(&mut self, step: RoundStep<'_>) -> std::io::Result<()> {
        let turn = self.turn;
        let Some(round) = self.state.rounds.last_mut() else {
            return Ok(());
        };
        let point = match step {
            RoundStep::GatePassed => return Ok(()),
            RoundStep::GateSkipped => {
                round.gate_skipped = true;
                "gate_skipped"
            }
            RoundStep::Answer { record, skip_all } => {
                round.answers.push(record.clone());
                round.skipped_all |= skip_all;
                let event = TranscriptEvent::Answer {
                    turn,
                    answer: record,
                };
                if self.replayed {
                    self.transcript.record_replayed(&event)
                } else {
                    self.transcript.record(&event)
                }
                .map_err(std::io::Error::other)?;
                "answered"
            }
        };
        // A replayed line needs no save of its own: the answers file still holds it, and the
        // round's end (or the failure that stops it) saves the round with it.
        if !self.replayed {
            self.state
                .save(self.state_path, self.durability)
                .map_err(std::io::Error::other)?;
        }
        super::test_hook::pause_at(point, turn);
        Ok(())
    }
}
