//! Who answers: the person at the terminal, or an answers file (docs/person.md, docs/ci.md).
//! Never waits on a non-terminal.

use std::io::IsTerminal;

use super::settings::{Presentation, RunSettings};
use crate::ask::{AskError, Decision, Person, ReplayFile, ReplayPerson, Style, TerminalPerson};
use crate::error::{Error, Result};
use crate::receipt::Question;

pub(super) enum Who {
    Terminal(TerminalPerson),
    Replay(ReplayPerson),
    /// No terminal and no answers file: what can be checked first is, then [`Who::ready`]
    /// (or the first prompt) says so.
    Nobody(Nobody),
}

const NO_TERMINAL: &str = "no terminal to ask questions on, and no --answers file to replay.\n\
     Run it at a terminal, or replay recorded answers: \
     `interview … --answers FILE` (see docs/ci.md)";

const NO_TERMINAL_ITEM_ON_STDIN: &str = "the work item comes on standard input (--from -), so \
     answers are read from the terminal (/dev/tty), and there is none here.\n\
     Replay recorded answers: `interview intent ID --from - --answers FILE` (see docs/ci.md)";

const ITEM_FROM_TERMINAL: &str = "--from -: standard input is a terminal, not the work item; \
     pipe the item in (`interview intent ID --from - < item.md`) or name its file \
     (`--from item.md`)";

/// The person when there is none: every prompt is the "no terminal" error, which says why.
pub(super) struct Nobody(&'static str);

impl Person for Nobody {
    fn gate(&mut self, _count: usize) -> std::result::Result<String, AskError> {
        Err(AskError::NoPerson(self.0.into()))
    }
    fn intro(&mut self, _total: usize) {}
    fn question(
        &mut self,
        _index: usize,
        _total: usize,
        _time_label: &str,
        _question: &Question,
    ) -> std::result::Result<String, AskError> {
        Err(AskError::NoPerson(self.0.into()))
    }
    fn decide(&mut self, _decision: &Decision) -> std::result::Result<String, AskError> {
        Err(AskError::NoPerson(self.0.into()))
    }
    fn say(&mut self, text: &str) {
        crate::output::stderr_line(text);
    }
    fn replayed(&self) -> bool {
        false
    }
}

impl Who {
    pub(super) fn new(look: Presentation, settings: &RunSettings) -> Result<Who> {
        Who::new_for(look, settings, false)
    }

    /// [`Who::new`] for a run whose work item comes on standard input (`--from -` when
    /// `item_on_stdin`): the person answers at the controlling terminal, prompts shown there;
    /// standard input being a terminal is refused.
    pub(super) fn new_for(
        look: Presentation,
        settings: &RunSettings,
        item_on_stdin: bool,
    ) -> Result<Who> {
        // A terminal is never read as the work item: the wait for its end (Ctrl+D) could not
        // be interrupted, and at a terminal it is where the person answers.
        if item_on_stdin && std::io::stdin().is_terminal() {
            return Err(Error::Usage(ITEM_FROM_TERMINAL.into()));
        }
        if let Some(path) = &settings.answers {
            let file = ReplayFile::load(path).map_err(|e| Error::Usage(e.to_string()))?;
            return Ok(Who::Replay(
                ReplayPerson::new(file, settings.missing).read_from(path),
            ));
        }
        let style = Style::resolve(look.color, look.no_bell || !settings.bell);
        if item_on_stdin {
            let Ok(tty) = crate::ask::terminal::controlling_terminal() else {
                return Ok(Who::Nobody(Nobody(NO_TERMINAL_ITEM_ON_STDIN)));
            };
            let out = tty
                .try_clone()
                .map_err(|e| Error::io("cannot open the terminal (/dev/tty)", e))?;
            return Ok(Who::Terminal(TerminalPerson::with_io(
                style,
                Box::new(out),
                tty.into(),
            )));
        }
        if !std::io::stdin().is_terminal() {
            return Ok(Who::Nobody(Nobody(NO_TERMINAL)));
        }
        Ok(Who::Terminal(TerminalPerson::new(style)))
    }

    pub(super) fn person(&mut self) -> &mut dyn Person {
        match self {
            Who::Terminal(p) => p,
            Who::Replay(p) => p,
            Who::Nobody(p) => p,
        }
    }

    /// Someone can be asked; otherwise the "no terminal" error (exit 2).
    pub(super) fn ready(&self) -> Result<()> {
        match self {
            Who::Nobody(Nobody(why)) => Err(Error::Usage((*why).into())),
            _ => Ok(()),
        }
    }

    /// The topics a resumed session asked before it was interrupted (not asked again).
    pub(super) fn asked_before(&mut self, state: &crate::session::state::State) {
        if let Who::Replay(p) = self {
            let topics = state.rounds.iter().flat_map(|r| &r.answers);
            p.asked_before(topics.map(|a| a.question_id.as_str()));
        }
    }

    /// An answers file recorded about another subject than `subject` (`intent 42`) is refused,
    /// unless `any` (`--any-subject`).
    pub(super) fn check_subject(&self, subject: &str, any: bool) -> Result<()> {
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

    /// After a replayed run that went through, warn about answers for topics never asked (a
    /// stale fixture) and name the questions `--missing skip` skipped. A run that stopped early (a missing answer, a failed runner) never got
    /// to ask them: the warning would point at the wrong problem.
    pub(super) fn finish(self, result: Result<i32>) -> Result<i32> {
        if let (Who::Replay(p), Ok(0)) = (&self, &result) {
            let unused = p.unused_topics();
            if !unused.is_empty() {
                crate::output::stderr_line(&format!(
                    "interview: warning: the answers file has answers for topics never asked: {}",
                    unused.join(", ")
                ));
            }
            // `--missing skip` skipped these: said once, so a CI log shows what to record.
            let missing = p.missing_topics();
            if !missing.is_empty() {
                crate::output::stderr_line(&format!(
                    "interview: note: skipped {} question(s) the answers file has no answer for (--missing skip): {}",
                    missing.len(),
                    missing.join(", ")
                ));
            }
        }
        result
    }
}
