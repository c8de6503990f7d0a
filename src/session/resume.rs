//! `interview resume`: continue an aborted or failed session from its sub-step, after the
//! circuit breaker has had its say.

use std::path::{Path, PathBuf};

use super::history::Listed;
use super::state::{KeyDecision, State, Status, now_iso};
use super::tier::Durability;
use super::{Repo, Session, SessionFile, Settings};
use crate::ask::{self, Decision, DecisionId, Options, Person};
use crate::error::{Error, Result};

/// What the person may do when the circuit breaker is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Breaker {
    Retry,
    Stop,
    Abandon,
}

impl Options for Breaker {
    const ALL: &'static [Breaker] = &[Breaker::Retry, Breaker::Stop, Breaker::Abandon];
}

/// Continue `listed` with `settings`. `ack` acknowledges a blocker without a terminal.
pub(crate) fn resume(
    repo: Repo,
    listed: Listed,
    mut settings: Settings,
    flags: &ResumeFlags,
    person: &mut dyn Person,
) -> Result<()> {
    let dir: PathBuf = listed.dir;
    let mut state = listed.state?;
    if state.status == Status::Done {
        return Err(already_done(&state));
    }
    let file = SessionFile::load(&dir)?;
    take_session_settings(&mut settings, &file, &state, flags, person)?;

    // The blocker is shown before anything runs.
    for b in &state.blockers {
        person.say(&format!("Blocker: {b}"));
    }
    if breaker_open(&state) {
        if !pass_breaker(&mut state, &dir, flags, person)? {
            return Ok(());
        }
    } else if state.status == Status::Failed {
        keep_blockers_as_decisions(&mut state);
    }
    let mut session = Session::open(repo, dir, state, file.subject, settings, person)?;
    session.run()?;
    Ok(())
}

/// A done session is not resumed: its document is where it says.
fn already_done(state: &State) -> Error {
    Error::Usage(format!(
        "session {} is already done{}",
        state.session,
        state
            .document
            .as_ref()
            .map(|d| format!("; its document is at {d}"))
            .unwrap_or_default()
    ))
}

/// The session's own settings (runner, output, limits, clarify-into) wherever the `resume`
/// command line did not give one.
fn take_session_settings(
    settings: &mut Settings,
    file: &SessionFile,
    state: &State,
    flags: &ResumeFlags,
    person: &mut dyn Person,
) -> Result<()> {
    if !flags.runner {
        settings.runner = file.runner.reopen()?;
    }
    if !flags.out {
        settings.out = file.out.clone();
        // A run that printed its document (a CI replay with `--out -`) resumed by a person at a
        // terminal writes it where documents go, with their consent, never onto the screen.
        if flags.interactive && file.out.as_deref().is_some_and(|o| o.as_os_str() == "-") {
            settings.out = None;
            person.say(
                "The session printed its document (--out -); resumed here, it is written to its \
                 usual place instead (pass --out - to print it).",
            );
        }
    }
    if !flags.max_turns {
        settings.max_turns = state.max_turns;
    }
    if !flags.retries {
        settings.retries = state.retries;
    }
    settings.clarify_into = file.clarify_into.clone();
    Ok(())
}

/// Whether the session goes on past its open circuit breaker: acknowledged with `--ack`, or
/// retried by the person's choice (the retry count starts again). `false`: abandoned.
fn pass_breaker(
    state: &mut State,
    dir: &Path,
    flags: &ResumeFlags,
    person: &mut dyn Person,
) -> Result<bool> {
    if flags.ack {
        state.key_decisions.push(KeyDecision {
            at: now_iso(),
            id: DecisionId::CircuitBreaker,
            context: "blocker acknowledged with --ack".into(),
            choice: "A) Retry the turn with a fresh brief".into(),
        });
    } else if flags.interactive {
        match ask_breaker(state, person)? {
            Breaker::Retry => {}
            Breaker::Stop => {
                state.save(&dir.join("state.json"), Durability::Synced)?;
                return Err(Error::CircuitOpen(format!(
                    "session {} stays blocked; `interview resume {}` when ready",
                    state.session, state.session
                )));
            }
            Breaker::Abandon => {
                state.status = Status::Aborted;
                state.abandoned = true;
                state.note("the person abandoned the session", "nothing");
                state.save(&dir.join("state.json"), Durability::Synced)?;
                person.say(&format!("Session {} abandoned.", state.session));
                return Ok(false);
            }
        }
    } else {
        return Err(blocked(state));
    }
    state.retry_count = 0;
    state.retry_log.clear();
    state.blockers.clear();
    Ok(true)
}

/// The person's choice at the open circuit breaker, kept in the key decisions.
fn ask_breaker(state: &mut State, person: &mut dyn Person) -> Result<Breaker> {
    let decision = Decision {
        id: DecisionId::CircuitBreaker,
        context: format!(
            "session {} failed {} in a row at turn {}",
            state.session,
            super::failure::times(state.retry_count + 1),
            state.turn
        ),
        options: Breaker::ALL
            .iter()
            .map(|o| match o {
                Breaker::Retry => {
                    "Retry the turn with a fresh brief (the retry count starts again)".into()
                }
                Breaker::Stop => "Stop and keep the answers; decide later".into(),
                Breaker::Abandon => "Abandon this session".into(),
            })
            .collect(),
        recommended: Breaker::Retry.index(),
        reason: "retry once what made it fail is fixed (the blocker above says what)".into(),
    };
    let choice = match ask::choose(person, &decision) {
        Ok(c) => c,
        Err(ask::AskError::Interrupted) => {
            return Err(Error::Interrupted {
                session: Some(state.session.clone()),
            });
        }
        Err(e) => return Err(e.into()),
    };
    let letter = (b'A' + choice as u8) as char;
    state.key_decisions.push(KeyDecision {
        at: now_iso(),
        id: decision.id,
        context: decision.context.clone(),
        choice: format!("{letter}) {}", decision.options[choice]),
    });
    Ok(Breaker::at(choice)?)
}

/// Stopped by the guard (or a fatal error): the turn starts again, the blocker is kept in the
/// key decisions.
fn keep_blockers_as_decisions(state: &mut State) {
    for b in std::mem::take(&mut state.blockers) {
        state.key_decisions.push(KeyDecision {
            at: now_iso(),
            id: DecisionId::Resume,
            context: b,
            choice: "resumed".into(),
        });
    }
    state.retry_count = 0;
    state.retry_log.clear();
}

/// A session left failed with its retries exhausted: not retried until someone decides.
pub(crate) fn breaker_open(state: &State) -> bool {
    state.status == Status::Failed && state.retry_count >= state.retries
}

/// The circuit breaker's error (exit 6), with the blocker and what to do.
pub(crate) fn blocked(state: &State) -> Error {
    Error::CircuitOpen(format!(
        "session {} failed {} in a row at turn {} and is blocked:\n  {}\n\
         Acknowledge it to retry: `interview resume {} --ack`",
        state.session,
        super::failure::times(state.retry_count + 1),
        state.turn,
        state.blockers.join("\n  "),
        state.session
    ))
}

/// Which settings the person gave on the `resume` command line (those win over the session's).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ResumeFlags {
    pub runner: bool,
    pub out: bool,
    pub max_turns: bool,
    pub retries: bool,
    pub ack: bool,
    pub interactive: bool,
}
