//! Who answers: the person at the terminal, or an answers file (docs/person.md, docs/ci.md).
//! Never waits on a non-terminal.

use std::io::IsTerminal;

use super::settings::RunSettings;
use crate::ask::{
    AskError, ColorChoice, Decision, Person, ReplayFile, ReplayPerson, Style, TerminalPerson,
};
use crate::error::{Error, Result};
use crate::receipt::Question;

/// How prompts look (`--color`, `--no-bell`).
#[derive(Debug, Clone, Copy)]
pub struct Presentation {
    pub color: ColorChoice,
    pub no_bell: bool,
}

pub enum Who {
    Terminal(TerminalPerson),
    Replay(ReplayPerson),
    /// No terminal and no answers file: what can be checked first is, then [`Who::ready`]
    /// (or the first prompt) says so.
    Nobody(Nobody),
}

const NO_TERMINAL: &str = "no terminal to ask questions on, and no --answers file to replay.\n\
     Run it at a terminal, or replay recorded answers: \
     `interview … --answers FILE` (see docs/ci.md)";

/// The person when there is none: every prompt is the "no terminal" error.
pub struct Nobody;

impl Person for Nobody {
    fn gate(&mut self, _count: usize) -> std::result::Result<String, AskError> {
        Err(AskError::NoPerson(NO_TERMINAL.into()))
    }
    fn intro(&mut self, _total: usize) {}
    fn question(
        &mut self,
        _index: usize,
        _total: usize,
        _time_label: &str,
        _question: &Question,
    ) -> std::result::Result<String, AskError> {
        Err(AskError::NoPerson(NO_TERMINAL.into()))
    }
    fn decide(&mut self, _decision: &Decision) -> std::result::Result<String, AskError> {
        Err(AskError::NoPerson(NO_TERMINAL.into()))
    }
    fn say(&mut self, text: &str) {
        crate::output::stderr_line(text);
    }
    fn replayed(&self) -> bool {
        false
    }
}

impl Who {
    pub fn new(look: Presentation, settings: &RunSettings) -> Result<Who> {
        if let Some(path) = &settings.answers {
            let file = ReplayFile::load(path).map_err(|e| Error::Usage(e.to_string()))?;
            return Ok(Who::Replay(ReplayPerson::new(file, settings.missing)));
        }
        if !std::io::stdin().is_terminal() {
            return Ok(Who::Nobody(Nobody));
        }
        Ok(Who::Terminal(TerminalPerson::new(Style::resolve(
            look.color,
            look.no_bell || !settings.bell,
        ))))
    }

    pub fn person(&mut self) -> &mut dyn Person {
        match self {
            Who::Terminal(p) => p,
            Who::Replay(p) => p,
            Who::Nobody(p) => p,
        }
    }

    /// Someone can be asked; otherwise the "no terminal" error (exit 2).
    pub fn ready(&self) -> Result<()> {
        match self {
            Who::Nobody(_) => Err(Error::Usage(NO_TERMINAL.into())),
            _ => Ok(()),
        }
    }

    /// The topics a resumed session asked before it was interrupted (not asked again).
    pub fn asked_before(&mut self, state: &crate::session::state::State) {
        if let Who::Replay(p) = self {
            let topics = state.rounds.iter().flat_map(|r| &r.answers);
            p.asked_before(topics.map(|a| a.question_id.as_str()));
        }
    }

    /// An answers file recorded about another subject than `subject` (`intent 42`) is refused,
    /// unless `any` (`--any-subject`).
    pub fn check_subject(&self, subject: &str, any: bool) -> Result<()> {
        if let Who::Replay(p) = self
            && let Some(recorded) = p.subject()
            && recorded != subject
            && !any
        {
            return Err(Error::Usage(format!(
                "the answers file was recorded about {recorded}, not {subject}: its answers belong to another subject. Pass --any-subject to replay it here anyway"
            )));
        }
        Ok(())
    }

    /// After a replayed run, warn about answers for topics never asked (a stale fixture).
    pub fn finish(self, result: Result<i32>) -> Result<i32> {
        if let Who::Replay(p) = &self {
            let unused = p.unused_topics();
            if !unused.is_empty() {
                crate::output::stderr_line(&format!(
                    "interview: warning: the answers file has answers for topics never asked: {}",
                    unused.join(", ")
                ));
            }
        }
        result
    }
}
