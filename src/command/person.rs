//! Who answers: the person at the terminal, or an answers file (docs/person.md, docs/ci.md).
//! Never waits on a non-terminal.

use std::io::IsTerminal;

use super::settings::RunSettings;
use crate::ask::{ColorChoice, Person, ReplayFile, ReplayPerson, Style, TerminalPerson};
use crate::error::{Error, Result};

/// How prompts look (`--color`, `--no-bell`).
#[derive(Debug, Clone, Copy)]
pub struct Presentation {
    pub color: ColorChoice,
    pub no_bell: bool,
}

pub enum Who {
    Terminal(TerminalPerson),
    Replay(ReplayPerson),
}

impl Who {
    pub fn new(look: Presentation, settings: &RunSettings) -> Result<Who> {
        if let Some(path) = &settings.answers {
            let file = ReplayFile::load(path).map_err(|e| Error::Usage(e.to_string()))?;
            return Ok(Who::Replay(ReplayPerson::new(file, settings.missing)));
        }
        if !std::io::stdin().is_terminal() {
            return Err(Error::Usage(
                "no terminal to ask questions on, and no --answers file to replay.\n\
                 Run it at a terminal, or replay recorded answers: \
                 `interview … --answers FILE` (see docs/ci.md)"
                    .into(),
            ));
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
        }
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
