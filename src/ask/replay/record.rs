//! Recording what a person types into the session's `answers.json`, in the answers file's own
//! format, so it can be replayed (and committed as a CI fixture).

use std::path::{Path, PathBuf};

use super::ReplayFile;
use crate::ask::{AskError, Decision, GateChoice, Person, classify_gate};
use crate::receipt::Question;

/// Wraps a [`Person`] and writes every line it gives to an answers file (atomically, before the
/// line is used), so a session's `answers.json` always holds all that was typed. A replayed line
/// is still in the file it came from: it is written out with the next save of the session's
/// state that records (an answer's round ending, a decision, a failure), not one by one
/// ([`Person::settle`]; docs/architecture.md, "Durability").
pub(crate) struct RecordingPerson<'a> {
    inner: &'a mut dyn Person,
    file: ReplayFile,
    path: PathBuf,
    /// The round whose gate comes next, when the session said so.
    round: Option<usize>,
    /// Lines recorded and not written yet (replayed ones only).
    unwritten: bool,
}

impl<'a> RecordingPerson<'a> {
    /// Record into `path`, starting from `file` (empty, or the answers of a resumed session).
    pub(crate) fn new(
        inner: &'a mut dyn Person,
        file: ReplayFile,
        path: PathBuf,
    ) -> RecordingPerson<'a> {
        RecordingPerson {
            inner,
            file,
            path,
            round: None,
            unwritten: false,
        }
    }

    /// Record into `path` from now on (the session's directory moved into place).
    pub(crate) fn move_to(&mut self, path: PathBuf) {
        self.path = path;
    }

    /// A line was recorded: a typed one is written (and synced) before it is used, a replayed
    /// one with the next [`Person::settle`].
    fn save(&mut self) -> Result<(), AskError> {
        if self.inner.replayed() {
            self.unwritten = true;
            return Ok(());
        }
        self.write()
    }

    fn write(&mut self) -> Result<(), AskError> {
        self.unwritten = false;
        let text = self
            .file
            .to_json_pretty()
            .map_err(|e| AskError::Io(std::io::Error::other(format!("encoding answers: {e}"))))?;
        // A replayed line is still in the file it came from: it needs no sync of its own
        // (docs/architecture.md, "Durability"); a typed one is on the disk before it is used.
        let durability = crate::atomic::Durability::of_session(self.inner.replayed());
        crate::atomic::write_via(&self.path, text.as_bytes(), None, None, durability).map_err(|e| {
            AskError::Io(std::io::Error::new(
                e.kind(),
                format!("saving answers to {}: {e}", self.path.display()),
            ))
        })
    }
}

impl Person for RecordingPerson<'_> {
    fn gate(&mut self, count: usize) -> Result<String, AskError> {
        let raw = self.inner.gate(count)?;
        // An unclear line is asked again, so only the line that decided is recorded.
        if classify_gate(&raw) != GateChoice::Unclear {
            match self.round.take() {
                Some(index) => self.file.record_gate_at(index, &raw),
                None => self.file.record_gate(&raw),
            }
            self.save()?;
        }
        Ok(raw)
    }

    fn intro(&mut self, total: usize) {
        self.inner.intro(total);
    }

    fn question(
        &mut self,
        index: usize,
        total: usize,
        time_label: &str,
        question: &Question,
    ) -> Result<String, AskError> {
        let raw = self.inner.question(index, total, time_label, question)?;
        // A line that is asked again (`r` with nothing recommended, a number that picks no
        // option) decides nothing.
        if !matches!(
            crate::ask::classify_reply(&raw, question),
            crate::ask::Reply::NoRecommendation | crate::ask::Reply::NoSuchOption { .. }
        ) {
            self.file.record_answer(&question.topic, &raw);
            self.save()?;
        }
        Ok(raw)
    }

    fn decide(&mut self, decision: &Decision) -> Result<String, AskError> {
        let raw = self.inner.decide(decision)?;
        if crate::ask::parse_letter(&raw, decision.options.len()).is_some() {
            self.file.record_decision(decision.id.as_str(), &raw);
            self.save()?;
        }
        Ok(raw)
    }

    fn say(&mut self, text: &str) {
        self.inner.say(text);
    }

    fn replayed(&self) -> bool {
        self.inner.replayed()
    }

    fn replay_file(&self) -> Option<&Path> {
        self.inner.replay_file()
    }

    fn at_round(&mut self, index: usize) {
        self.round = Some(index);
        self.inner.at_round(index);
    }

    fn round_questions(&mut self, questions: &[Question]) {
        self.inner.round_questions(questions);
    }

    fn carried(&mut self, topic: &str, raw: &str) -> Result<(), AskError> {
        self.file.record_answer(topic, raw);
        self.save()
    }

    fn settle(&mut self) -> Result<(), AskError> {
        self.inner.settle()?;
        if self.unwritten {
            self.write()?;
        }
        Ok(())
    }
}

/// A run that ends without a settling save (an error on the way out) still leaves what was
/// replayed in `answers.json`, as far as it can be written.
impl Drop for RecordingPerson<'_> {
    fn drop(&mut self) {
        if self.unwritten {
            let _ = self.write();
        }
    }
}
