//! Settings resolved once, from flags ⊕ `.interview/config.toml` ⊕ `interview.toml` ⊕ defaults,
//! into typed values (docs/config.md). The low-level arguments are [`crate::cli::RunOptions`];
//! after [`RunSettings::resolve`] nothing reads a flag or a config file again.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::ask::progress::ProgressLook;
use crate::ask::{ColorChoice, Missing};
use crate::cli::RunOptions;
use crate::config::{Config, Refused, RunnerSetting};
use crate::error::{Error, Result};
use crate::runner::RunnerSpec;
use crate::session::resume::ResumeFlags;
use crate::session::state::MAX_TURNS as MAX_TURNS_LIMIT;
use crate::session::{OnChange, Settings};
use crate::subject::Kind;

/// Defaults of the settings docs/config.md lists.
pub(crate) mod defaults {
    pub(crate) const MAX_TURNS: u32 = 5;
    pub(crate) const TURN_TIMEOUT_SECS: u64 = 600;
    pub(crate) const GRACE_SECS: u64 = 5;
    pub(crate) const RETRIES: u32 = 3;
}

/// How prompts look (`--color`, `--no-bell`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Presentation {
    pub color: ColorChoice,
    pub no_bell: bool,
}

/// Everything an interview (new or resumed) runs with.
#[derive(Debug, Clone)]
pub(crate) struct RunSettings {
    /// What the session runs with (`out` is the flag's only; see [`RunSettings::out_for`]).
    pub session: Settings,
    /// Which settings the command line gave (on resume those win over the session's).
    pub given: Given,
    /// `--answers FILE`: replay instead of asking.
    pub answers: Option<PathBuf>,
    pub missing: Missing,
    /// A terminal to ask on (standard input, or the controlling terminal when the work item
    /// comes on standard input) and nothing is replayed: the person can be asked.
    pub interactive: bool,
    reflect_out: Option<String>,
    intent_out: Option<String>,
    /// `[intent] globs`.
    pub intent_globs: Option<Vec<String>>,
    /// `bell` in a config file (default true); `--no-bell` silences it too.
    pub bell: bool,
}

/// The settings given on the command line, by name.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Given {
    pub runner: bool,
    pub out: bool,
    pub max_turns: bool,
    pub retries: bool,
}

fn config_local_reflect_out(f: &crate::config::ConfigFile) -> bool {
    f.reflect_out.is_some()
}

fn config_local_intent_out(f: &crate::config::ConfigFile) -> bool {
    f.intent_out.is_some()
}

/// What a configured output pattern must be: a relative path to a file, naming the id.
fn check_out_pattern(pattern: &str) -> std::result::Result<(), String> {
    if pattern.trim().is_empty() {
        return Err("is empty; give a path such as \"docs/interviews/<id>.md\"".into());
    }
    if pattern == "-" {
        return Err("cannot be \"-\" (standard output is only for --out -)".into());
    }
    if pattern.ends_with('/') {
        return Err(format!("{pattern:?} names a directory; give a file path"));
    }
    if Path::new(pattern).is_absolute() || pattern.split('/').any(|p| p == "..") {
        return Err(format!(
            "{pattern:?} must be a path inside the repository, relative to its root"
        ));
    }
    Ok(())
}

impl RunSettings {
    /// Merge the flags of one run with the configuration files and the defaults.
    pub(crate) fn resolve(
        run: &RunOptions,
        config: &Config,
        look: Presentation,
    ) -> Result<RunSettings> {
        RunSettings::resolve_for(run, config, look, false)
    }

    /// [`RunSettings::resolve`] for a run whose work item comes on standard input (`--from -`
    /// when `item_on_stdin`): the person then answers at the controlling terminal, if any.
    pub(crate) fn resolve_for(
        run: &RunOptions,
        config: &Config,
        look: Presentation,
        item_on_stdin: bool,
    ) -> Result<RunSettings> {
        let at_terminal = match item_on_stdin {
            true => crate::ask::terminal::controlling_terminal().is_ok(),
            false => std::io::stdin().is_terminal(),
        };
        let interactive = at_terminal && run.answers.is_none();
        let file = &config.file;
        let on_change = match (run.on_change, file.on_change) {
            (Some(flag), _) => flag,
            (None, Some(configured)) => configured,
            (None, None) if interactive => OnChange::Ask,
            (None, None) => OnChange::Fail,
        };
        // A configuration file's bad value exits 1 naming the file and the key; a bad flag
        // exits 2 naming the flag. Both before anything is asked.
        check_config_values(config)?;
        let (max_turns, timeout) = turns_and_timeout(run, file)?;
        let runner = runner_of(run, file)?;
        let sandbox = sandbox_setting(run.sandbox.or(file.sandbox), run.verbose)?;
        let session = Settings {
            runner,
            max_turns,
            turn_timeout: Duration::from_secs(timeout),
            grace: Duration::from_secs(run.grace.or(file.grace).unwrap_or(defaults::GRACE_SECS)),
            retries: run.retries.or(file.retries).unwrap_or(defaults::RETRIES),
            on_change,
            out: run.out.clone(),
            yes: run.yes,
            verbose: run.verbose,
            progress: ProgressLook::resolve(look.color, run.verbose),
            clarify_into: None,
            sandbox: sandbox.0,
            sandbox_note: sandbox.1,
            runner_env: file.runner_env.clone().unwrap_or_default(),
            allow_hosts: crate::sandbox::hosts::parse_all(
                file.allow_hosts.iter().flatten().map(String::as_str),
            ),
            network: run.network.unwrap_or_default(),
            runner_disk: run.runner_disk.unwrap_or(crate::sandbox::DISK_MIB).max(1),
            hidden_stores: file.hidden_stores(
                std::env::var_os("HOME")
                    .map(std::path::PathBuf::from)
                    .as_deref(),
            ),
        };
        Ok(RunSettings {
            session,
            given: Given {
                runner: run.runner.is_some(),
                out: run.out.is_some(),
                max_turns: run.max_turns.is_some(),
                retries: run.retries.is_some(),
            },
            answers: run.answers.clone(),
            missing: run.missing,
            interactive,
            reflect_out: file.reflect_out.clone(),
            intent_out: file.intent_out.clone(),
            intent_globs: file.intent.as_ref().and_then(|i| i.globs.clone()),
            bell: file.bell.unwrap_or(true),
        })
    }

    /// Where a new interview on `kind id` writes its document: the flag, else the configured
    /// pattern (`{id}` as in runner arguments, or `<id>` as in the tracker globs), else `None`
    /// (the default path).
    pub(crate) fn out_for(&self, kind: Kind, id: &str) -> Option<PathBuf> {
        if let Some(out) = &self.session.out {
            return Some(out.clone());
        }
        let pattern = match kind {
            Kind::Reflect => self.reflect_out.as_deref(),
            Kind::Intent => self.intent_out.as_deref(),
        }?;
        let id = crate::session::tier::slug(id);
        Some(PathBuf::from(
            pattern.replace("{id}", &id).replace("<id>", &id),
        ))
    }

    /// Where [`RunSettings::out_for`]'s path comes from, for a message: the flag, the key of
    /// the file that set it, or the default.
    pub(crate) fn out_source(&self, kind: Kind, config: &Config) -> String {
        if self.session.out.is_some() {
            return "--out".into();
        }
        let (key, set): (&str, fn(&crate::config::ConfigFile) -> bool) = match kind {
            Kind::Reflect => ("reflect_out", config_local_reflect_out),
            Kind::Intent => ("intent_out", config_local_intent_out),
        };
        match self.out_for(kind, "") {
            Some(_) => format!("{}: {key} =", config.file_of(set).display()),
            None => "the document's default path".into(),
        }
    }

    /// What `resume` needs to know about this command line.
    pub(crate) fn resume_flags(&self, ack: bool) -> ResumeFlags {
        ResumeFlags {
            runner: self.given.runner,
            out: self.given.out,
            max_turns: self.given.max_turns,
            retries: self.given.retries,
            ack,
            interactive: self.interactive,
        }
    }
}

/// What `turns` may be, in the words of an error about it.
fn turns_range() -> String {
    format!("must be between 1 and {MAX_TURNS_LIMIT}")
}

/// A configuration file's bad value exits 1 naming the file and the key, before any flag is
/// looked at.
fn check_config_values(config: &Config) -> Result<()> {
    let file = &config.file;
    if let Some(n) = file.max_turns
        && !(1..=MAX_TURNS_LIMIT).contains(&n)
    {
        return Err(config.bad_value(
            "max_turns",
            |f| f.max_turns.is_some(),
            &format!("{}, not {n}", turns_range()),
        ));
    }
    if file.turn_timeout == Some(0) {
        return Err(config.bad_value(
            "turn_timeout",
            |f| f.turn_timeout.is_some(),
            "must be at least 1 second, not 0",
        ));
    }
    for (key, value, local) in [
        (
            "reflect_out",
            &file.reflect_out,
            config_local_reflect_out as fn(&crate::config::ConfigFile) -> bool,
        ),
        ("intent_out", &file.intent_out, config_local_intent_out),
    ] {
        if let Some(pattern) = value
            && let Err(why) = check_out_pattern(pattern)
        {
            return Err(config.bad_value(key, local, &why));
        }
    }
    Ok(())
}

/// `--max-turns` and `--turn-timeout` (in seconds) over the configured values and the
/// defaults; a bad flag exits 2 naming it.
fn turns_and_timeout(run: &RunOptions, file: &crate::config::ConfigFile) -> Result<(u32, u64)> {
    let max_turns = run
        .max_turns
        .or(file.max_turns)
        .unwrap_or(defaults::MAX_TURNS);
    if !(1..=MAX_TURNS_LIMIT).contains(&max_turns) {
        return Err(Error::Usage(format!(
            "--max-turns {}, not {max_turns}",
            turns_range()
        )));
    }
    let timeout = run
        .turn_timeout
        .or(file.turn_timeout)
        .unwrap_or(defaults::TURN_TIMEOUT_SECS);
    if timeout == 0 {
        return Err(Error::Usage(
            "--turn-timeout must be at least 1 second".into(),
        ));
    }
    Ok((max_turns, timeout))
}

/// The runner: `--runner`, else the configured one (a name or a command of one's own), else
/// the built-in interviewer; with its extra arguments.
fn runner_of(run: &RunOptions, file: &crate::config::ConfigFile) -> Result<RunnerSpec> {
    let mut runner = match (run.runner.as_ref(), &file.runner) {
        (Some(text), _) | (None, Some(RunnerSetting::Name(text))) => RunnerSpec::from_text(text)?,
        (None, Some(RunnerSetting::Table(table))) => {
            RunnerSpec::command(table.command.clone(), table.receipt)
        }
        (None, None) => RunnerSpec::builtin()?,
    };
    runner.extra_args = if run.runner_args.is_empty() {
        file.runner_args.clone().unwrap_or_default()
    } else {
        run.runner_args.clone()
    };
    Ok(runner)
}

/// `--sandbox` or the config's `sandbox` (default `auto`): what to enforce, and what to say of
/// it at the first runner's start.
fn sandbox_setting(
    mode: Option<crate::sandbox::Mode>,
    verbose: bool,
) -> Result<(Option<crate::sandbox::Support>, Option<String>)> {
    let mode = mode.unwrap_or_default();
    let decided = crate::sandbox::decide(mode)?;
    let note = (mode != crate::sandbox::Mode::Off)
        .then(|| crate::sandbox::note(&crate::sandbox::Support::probe(), verbose))
        .flatten();
    Ok((decided, note))
}

/// Both configuration files, with what `interview.toml` may not set refused (exit 1, naming
/// the file and the key): a runner of the repository's own — anything but a preset's name —
/// and runner arguments beyond a model choice.
pub(crate) fn load_config(worktree: &Path) -> Result<Config> {
    Config::load(worktree, |shared| {
        // A repository may pick a preset, never a program of its own: that would run its code.
        let command = match &shared.runner {
            Some(RunnerSetting::Name(name)) if !crate::runner::is_preset_name(name.trim()) => {
                Some(name.clone())
            }
            Some(RunnerSetting::Table(table)) => Some(table.command.join(" ")),
            _ => None,
        };
        if let Some(command) = command {
            return Err(Refused {
                key: "runner",
                why: format!(
                    "a repository may only choose a preset ({}), not the command {command:?}, \
                     since nothing from the repository runs unless you ask for it: put it in \
                     .interview/config.toml or pass --runner",
                    crate::runner::preset_names().join(", ")
                ),
            });
        }
        if let Some(args) = &shared.runner_args
            && let Err(why) = crate::runner::shared_args_allowed(args)
        {
            return Err(Refused {
                key: "runner_args",
                why: format!(
                    "{why}; a repository may only choose the model (\"--model\", \"NAME\"): put \
                     other arguments in .interview/config.toml or after `--` on the command line"
                ),
            });
        }
        Ok(())
    })
}
