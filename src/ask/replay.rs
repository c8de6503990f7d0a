//! Replayed answers (`--answers FILE`, docs/ci.md) and the recording of a session's
//! `answers.json` in the same format.
//!
//! A replay file holds exactly what a person would type; [`ReplayPerson`] hands those lines to
//! the same classification as a terminal, and [`RecordingPerson`] writes what a person typed as
//! each line is given, so a session's `answers.json` can be committed as a CI fixture.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::ask::{AskError, Decision, Person};
use crate::receipt::Question;

mod file;
mod record;

pub use file::ReplayFile;
pub(crate) use record::RecordingPerson;

/// In replay, what to do with a question that has no recorded answer (`--missing`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Missing {
    // Stop with exit 5, naming the topic.
    Fail,
    // Skip the question and go on.
    Skip,
}

/// A `Person` whose lines come from an answers file.
#[derive(Debug, Clone)]
pub struct ReplayPerson {
    file: ReplayFile,
    skip_missing: bool,
    gates_shown: usize,
    used: BTreeSet<String>,
    missing: Vec<String>,
    /// The questions of the round being replayed.
    round: Vec<Question>,
    /// Where the file was read from, to name in errors about its values.
    path: Option<PathBuf>,
}

impl ReplayPerson {
    /// `missing`: what to do with a question the file has no answer for.
    pub fn new(file: ReplayFile, missing: Missing) -> ReplayPerson {
        ReplayPerson {
            file,
            skip_missing: missing == Missing::Skip,
            gates_shown: 0,
            used: BTreeSet::new(),
            missing: Vec::new(),
            round: Vec::new(),
            path: None,
        }
    }

    /// Name `path` as the file the answers come from, in errors about its values.
    pub fn read_from(mut self, path: &Path) -> ReplayPerson {
        self.path = Some(path.to_path_buf());
        self
    }

    /// The subject the file was recorded about, if it says.
    pub fn subject(&self) -> Option<&str> {
        self.file.subject.as_deref()
    }

    /// Topics in the file that no question asked about (stale fixtures), sorted.
    pub fn unused_topics(&self) -> Vec<String> {
        self.file
            .answers
            .keys()
            .filter(|t| !self.used.contains(*t))
            .cloned()
            .collect()
    }

    /// Count `topics` as asked: a resumed session does not ask again what was answered before
    /// the interruption, so those answers are not stale.
    pub fn asked_before<'t>(&mut self, topics: impl IntoIterator<Item = &'t str>) {
        for topic in topics {
            if self.file.answers.contains_key(topic) {
                self.used.insert(topic.to_string());
            }
        }
    }

    /// Topics asked about that the file has no answer for and that were skipped instead
    /// (`--missing skip`), in the order asked.
    pub fn missing_topics(&self) -> Vec<String> {
        self.missing.clone()
    }
}

impl Person for ReplayPerson {
    fn at_round(&mut self, index: usize) {
        self.gates_shown = index;
    }

    fn gate(&mut self, _count: usize) -> Result<String, AskError> {
        let i = self.gates_shown.min(self.file.gate.len().saturating_sub(1));
        self.gates_shown += 1;
        Ok(self.file.gate.get(i).cloned().unwrap_or_else(|| "y".into()))
    }

    fn intro(&mut self, _total: usize) {}

    fn round_questions(&mut self, questions: &[Question]) {
        self.round = questions.to_vec();
    }

    fn question(
        &mut self,
        _index: usize,
        _total: usize,
        _time_label: &str,
        question: &Question,
    ) -> Result<String, AskError> {
        if let Some(answer) = self.file.answers.get(&question.topic) {
            self.used.insert(question.topic.clone());
            return Ok(answer.clone());
        }
        if self.skip_missing {
            self.missing.push(question.topic.clone());
            return Ok("skip".into());
        }
        // Every later question of the round the file cannot answer either, up to a `skip all`.
        let mut others = Vec::new();
        let later = self
            .round
            .iter()
            .skip_while(|q| q.topic != question.topic)
            .skip(1);
        for q in later {
            match self.file.answers.get(&q.topic) {
                None => others.push((q.topic.clone(), q.question_text.clone())),
                Some(a) if crate::ask::classify_reply(a, q) == crate::ask::Reply::SkipAll => break,
                Some(_) => {}
            }
        }
        Err(AskError::MissingAnswer {
            topic: question.topic.clone(),
            question_text: question.question_text.clone(),
            others,
        })
    }

    fn decide(&mut self, decision: &Decision) -> Result<String, AskError> {
        self.file
            .decisions
            .get(decision.id.as_str())
            .cloned()
            .ok_or(AskError::MissingDecision { id: decision.id })
    }

    /// Nobody reads along in a replay, but what the tool says (warnings, where the document went)
    /// belongs in the run's log: on stderr, so `--out -` keeps stdout for the document.
    fn say(&mut self, text: &str) {
        crate::output::stderr_line(text);
    }

    fn replayed(&self) -> bool {
        true
    }

    fn replay_file(&self) -> Option<&Path> {
        self.path.as_deref()
    }
}

#[cfg(test)]
mod tests;
