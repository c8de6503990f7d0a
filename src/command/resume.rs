//! `interview resume [SESSION] [--ack]`: continue an aborted or failed session (docs/sessions.md).

use std::io::IsTerminal;
use std::path::Path;

use super::person::Who;
use super::settings::Presentation;
use super::settings::RunSettings;
use crate::ask::{Person, RecordingPerson, ReplayFile};
use crate::cli::RunOptions;
use crate::error::{Error, Result};
use crate::session::{Repo, history};

pub(super) fn run(
    cwd: &Path,
    look: Presentation,
    session: Option<&str>,
    ack: bool,
    run: &RunOptions,
) -> Result<i32> {
    crate::sandbox::Support::prefetch(run.sandbox);
    let repo = super::discover(cwd)?;
    crate::guard::prefetch_system_config(
        &repo.worktree,
        Some(&repo.worktree.join(crate::session::tier::TIER_DIR)),
    );
    let config = super::settings::load_config(&repo.worktree)?;
    let mut lock = super::lock(&repo, "resume")?;
    let listed = match session {
        Some(id) => history::find(&repo.worktree, Some(id))?,
        None => history::latest_unfinished(&repo.worktree)?,
    };
    // A state that cannot be read is said before anything else (it names the file and why).
    if listed.state.is_err() {
        return listed.state.map(|_| 0);
    }
    // Without a terminal, a blocked session says so before anything else.
    if let Ok(state) = &listed.state
        && !ack
        && !std::io::stdin().is_terminal()
        && crate::session::resume::breaker_open(state)
    {
        return Err(crate::session::resume::blocked(state));
    }
    let settings = RunSettings::resolve(run, &config, look)?;
    // A new `--out` is checked before anything is asked, as a new interview's is.
    let out = [("--out".to_string(), settings.session.out.clone())];
    super::targets::check(&repo, &out, true)?;
    lock.set_session(&listed.id)?;
    let mut who = Who::new(look, &settings)?;
    who.ready()?;
    if let Ok(state) = &listed.state {
        who.asked_before(state);
    }
    let result = resume_listed(repo, listed, &settings, ack, who.person());
    who.finish(result)
}

/// Resume `listed` with the settings of this command line.
pub(super) fn resume_listed(
    repo: Repo,
    listed: history::Listed,
    settings: &RunSettings,
    ack: bool,
    person: &mut dyn Person,
) -> Result<i32> {
    let answers = listed.dir.join("answers.json");
    // The session's own file: never through a link, never blocking on a FIFO put there.
    let recorded = if answers.symlink_metadata().is_ok() {
        let text = crate::session::tier::read_own(&answers)?;
        ReplayFile::parse(crate::input::without_bom(&text), &answers)
            .map_err(|e| Error::State(e.to_string()))?
    } else {
        ReplayFile::default()
    };
    let mut recording = RecordingPerson::new(person, recorded, answers);
    crate::session::resume::resume(
        repo,
        listed,
        settings.session.clone(),
        &settings.resume_flags(ack),
        &mut recording,
    )?;
    Ok(crate::error::code::DONE)
}
