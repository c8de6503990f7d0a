//! The transcript: `transcript.jsonl`, append-only, one event a line (docs/sessions.md). Every
//! line is one [`TranscriptEvent`] with its time; an event that carries what the person typed
//! or decided, or how the session ended, is synced as it is written, and the others with it.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::answer::AnswerRecord;
use crate::ask::{DecisionId, RoundOutcome};
use crate::error::{Error, Result};
use crate::guard::GuardReport;
use crate::receipt::{Receipt, SanitizeReport, Violation};
use crate::subject::Kind;

/// One event of a session, as written to the transcript (`"event": "<name>"` plus its fields).
#[derive(Debug, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub(crate) enum TranscriptEvent<'a> {
    SessionStart {
        session: &'a str,
        kind: Kind,
        subject: &'a str,
        runner: &'a str,
        replayed: bool,
    },
    SessionResume {
        turn: u32,
        sub_step: super::state::SubStep,
    },
    TurnStart {
        turn: u32,
        r#final: bool,
        retry: u32,
    },
    TurnEnd {
        turn: u32,
        /// How the runner ended, e.g. `Exited(0)`.
        ending: String,
        leftovers_killed: usize,
        escaped_killed: usize,
        /// False when the runner's output was still held open after the grace (not all read).
        output_complete: bool,
        log_truncated: bool,
        guard_changes: bool,
        /// How long the runner ran.
        duration_ms: u64,
        /// Tokens and cost, when the CLI reported them.
        #[serde(skip_serializing_if = "Option::is_none")]
        usage: Option<&'a crate::runner::Usage>,
    },
    TurnFailed {
        turn: u32,
        attempt: u32,
        reason: &'a str,
    },
    /// A tool call the model runner's model made (`--runner openai`), as the runner reported it.
    ToolCall {
        turn: u32,
        tool: &'a str,
        /// Its path, pattern or commit.
        target: &'a str,
        /// The bytes of the result given back to the model.
        bytes: usize,
        /// Why it was refused, when it was.
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<&'a str>,
    },
    /// What the model runner said of the server (a fallback, a retry).
    RunnerNote {
        turn: u32,
        text: &'a str,
    },
    /// A connection the runner made through the sandbox's proxy, or that it refused
    /// (docs/sandbox.md).
    Connection {
        turn: u32,
        host: &'a str,
        port: u16,
        allowed: bool,
        bytes_up: u64,
        bytes_down: u64,
    },
    GuardViolation {
        turn: u32,
        changes: &'a GuardReport,
    },
    Receipt {
        turn: u32,
        receipt: &'a Receipt,
        sanitized: &'a SanitizeReport,
    },
    ReceiptRejected {
        turn: u32,
        violations: &'a [Violation],
    },
    Decision {
        id: DecisionId,
        /// The letter chosen.
        choice: String,
    },
    Answer {
        turn: u32,
        answer: &'a AnswerRecord,
    },
    RoundEnd {
        turn: u32,
        outcome: &'a RoundOutcome,
        skipped_all: bool,
        qa_duration_ms: u64,
    },
    Aborted {
        turn: u32,
    },
    Done {
        document: Option<&'a str>,
    },
}

impl TranscriptEvent<'_> {
    /// Whether this event is on the disk before the tool goes on: what the person typed or
    /// decided (answers, decisions, a round's outcome) and how the session ended. The others
    /// (the tool's own account of a turn, which a resume runs again) ride on the next synced
    /// event, or on the sync when the transcript is closed.
    fn synced(&self) -> bool {
        match self {
            TranscriptEvent::Decision { .. }
            | TranscriptEvent::Answer { .. }
            | TranscriptEvent::RoundEnd { .. }
            | TranscriptEvent::Aborted { .. }
            | TranscriptEvent::Done { .. } => true,
            TranscriptEvent::SessionStart { .. }
            | TranscriptEvent::SessionResume { .. }
            | TranscriptEvent::TurnStart { .. }
            | TranscriptEvent::TurnEnd { .. }
            | TranscriptEvent::TurnFailed { .. }
            | TranscriptEvent::ToolCall { .. }
            | TranscriptEvent::RunnerNote { .. }
            | TranscriptEvent::Connection { .. }
            | TranscriptEvent::GuardViolation { .. }
            | TranscriptEvent::Receipt { .. }
            | TranscriptEvent::ReceiptRejected { .. } => false,
        }
    }
}

/// A line of the transcript: the event and when it happened.
#[derive(Serialize)]
struct Line<'e, 'a> {
    #[serde(flatten)]
    event: &'e TranscriptEvent<'a>,
    at: String,
}

pub(crate) struct Transcript {
    path: PathBuf,
    file: File,
    /// Lines written since the last sync.
    unsynced: bool,
    /// The file does not end with a newline (a power loss cut its last line): the next event
    /// starts on a line of its own.
    torn: bool,
    /// The answers are replayed from a file: no event is synced (`Durability::of_session`).
    replayed: bool,
}

impl Transcript {
    /// `replayed`: the session's answers come from a file, so nothing here is synced.
    pub(crate) fn open(path: &Path, replayed: bool) -> Result<Transcript> {
        // Never appended through a link, nor blocked on a FIFO, put in its place.
        let file = match crate::input::open_append(path) {
            Ok(file) => file,
            Err(crate::input::InputError::Io(e)) => {
                return Err(Error::io(format!("cannot open {}", path.display()), e));
            }
            Err(_) => {
                return Err(Error::State(format!(
                    "{} is not a regular file; it was left as it is",
                    path.display()
                )));
            }
        };
        let meta = file
            .metadata()
            .map_err(|e| Error::io(format!("cannot read {}", path.display()), e))?;
        let torn = match meta.len() {
            0 => false,
            len => {
                use std::os::unix::fs::FileExt;
                let mut last = [0u8; 1];
                file.read_exact_at(&mut last, len - 1)
                    .map_err(|e| Error::io(format!("cannot read {}", path.display()), e))?;
                last[0] != b'\n'
            }
        };
        Ok(Transcript {
            path: path.to_path_buf(),
            file,
            unsynced: false,
            torn,
            replayed,
        })
    }

    /// Append one event, synced with the lines before it when the event says so
    /// ([`TranscriptEvent::synced`]): an answer is on the disk before the next question is shown.
    pub(crate) fn record(&mut self, event: &TranscriptEvent<'_>) -> Result<()> {
        self.append(event)?;
        if event.synced() {
            self.sync()?;
        }
        Ok(())
    }

    /// Append an answer replayed from an answers file: not synced on its own, since that file
    /// still holds it (a resume replays it again); the round's end, synced, carries it.
    pub(crate) fn record_replayed(&mut self, event: &TranscriptEvent<'_>) -> Result<()> {
        self.append(event)
    }

    fn append(&mut self, event: &TranscriptEvent<'_>) -> Result<()> {
        let line = Line {
            event,
            at: super::state::now_iso(),
        };
        // Through a `Value`, whose maps keep their keys sorted: the line's form is stable.
        let value = serde_json::to_value(&line).map_err(|e| self.encode_error(e))?;
        let mut bytes = Vec::new();
        if self.torn {
            bytes.push(b'\n');
        }
        serde_json::to_writer(&mut bytes, &value).map_err(|e| self.encode_error(e))?;
        bytes.push(b'\n');
        self.file
            .write_all(&bytes)
            .map_err(|e| Error::io("cannot append to the transcript", e))?;
        self.torn = false;
        self.unsynced = true;
        Ok(())
    }

    /// Sync what was appended since the last sync (nothing in a replay).
    fn sync(&mut self) -> Result<()> {
        if self.unsynced && !self.replayed {
            self.file
                .sync_data()
                .map_err(|e| Error::io("cannot sync the transcript", e))?;
            self.unsynced = false;
        }
        Ok(())
    }

    fn encode_error(&self, e: serde_json::Error) -> Error {
        Error::State(format!(
            "cannot encode an event for {}: {e}",
            self.path.display()
        ))
    }
}

impl Drop for Transcript {
    /// The events that rode on a later sync are synced when the session ends without one (a
    /// failed turn, a guard stop).
    fn drop(&mut self) {
        let _ = self.sync();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_is_one_line_with_its_name_and_time_and_sorted_keys() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("transcript.jsonl");
        let mut t = Transcript::open(&path, false).unwrap();
        t.record(&TranscriptEvent::TurnStart {
            turn: 2,
            r#final: true,
            retry: 1,
        })
        .unwrap();
        t.record(&TranscriptEvent::Decision {
            id: DecisionId::RunnerFailed,
            choice: "A".into(),
        })
        .unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2);
        let first: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
        assert_eq!(first["event"], "turn_start");
        assert_eq!(first["final"], true);
        assert_eq!(first["turn"], 2);
        assert!(first["at"].as_str().unwrap().ends_with('Z'));
        assert!(lines[0].starts_with("{\"at\":"), "{}", lines[0]);
        let second: serde_json::Value = serde_json::from_str(lines[1]).unwrap();
        assert_eq!(second["event"], "decision");
        assert_eq!(second["id"], "runner_failed");
        assert_eq!(second["choice"], "A");
    }

    #[test]
    fn a_last_line_a_power_loss_cut_is_not_joined_to_the_next_event() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("transcript.jsonl");
        let whole = "{\"at\":\"2026-01-01T00:00:00Z\",\"event\":\"turn_start\",\"final\":false,\"retry\":0,\"turn\":1}\n";
        std::fs::write(
            &path,
            format!("{whole}{{\"at\":\"2026-01-01T00:00:01Z\",\"eve"),
        )
        .unwrap();
        let mut t = Transcript::open(&path, false).unwrap();
        t.record(&TranscriptEvent::Aborted { turn: 1 }).unwrap();
        t.record(&TranscriptEvent::Aborted { turn: 2 }).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4, "{text}");
        assert!(lines[0].starts_with("{\"at\""));
        assert_eq!(lines[1], "{\"at\":\"2026-01-01T00:00:01Z\",\"eve");
        for (line, turn) in [(lines[2], 1), (lines[3], 2)] {
            let event: serde_json::Value = serde_json::from_str(line).unwrap();
            assert_eq!(event["event"], "aborted");
            assert_eq!(event["turn"], turn);
        }
    }
}
