//! Settings: `interview.toml` at the repository root (shared), `.interview/config.toml` (local
//! overrides), then flags. Unknown keys are errors naming the file and the key.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::{Error, Result};

mod guard_allow;

/// A configuration file larger than this is refused.
const MAX_CONFIG_BYTES: u64 = 256 * 1024;

/// One settings file, every field optional so files can be layered.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    pub runner: Option<RunnerSetting>,
    pub max_turns: Option<u32>,
    pub turn_timeout: Option<u64>,
    pub grace: Option<u64>,
    pub retries: Option<u32>,
    pub on_change: Option<String>,
    pub reflect_out: Option<String>,
    pub intent_out: Option<String>,
    pub intent: Option<IntentConfig>,
    /// `bell = false`: never ring the terminal bell before a decision (as `--no-bell`).
    pub bell: Option<bool>,
    /// `auto`, `require` or `off` (`off` only from the local file: see docs/sandbox.md).
    pub sandbox: Option<String>,
    /// Globs of worktree paths `interview guard -- CMD` lets the command write (`target/**`).
    pub guard_allow: Option<Vec<String>>,
    /// Arguments added after the runner's own, e.g. `["--model", "NAME"]` (from `interview.toml`
    /// only a model choice: see docs/runners.md).
    pub runner_args: Option<Vec<String>>,
}

/// `runner = "NAME"`, `runner = "CMD ARGS"` or `[runner] command = [...] receipt = "file"`.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum RunnerSetting {
    Name(String),
    Table(RunnerTable),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunnerTable {
    pub command: Vec<String>,
    #[serde(default)]
    pub receipt: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IntentConfig {
    /// Globs for the local tracker; `<id>` is replaced by the work item id.
    pub globs: Option<Vec<String>>,
}

/// The command a shared `runner` setting would run, when it is not a preset's name.
fn repository_command(setting: &RunnerSetting) -> Option<String> {
    match setting {
        RunnerSetting::Name(name) if crate::runner::is_preset_name(name.trim()) => None,
        RunnerSetting::Name(name) => Some(name.clone()),
        RunnerSetting::Table(table) => Some(table.command.join(" ")),
    }
}

/// The merged settings of both files (local overrides shared).
#[derive(Debug, Clone, Default)]
pub struct Config {
    pub file: ConfigFile,
    /// The local file's own settings, to tell which file set a key.
    local: ConfigFile,
    shared_path: PathBuf,
    local_path: PathBuf,
}

impl Config {
    pub fn load(worktree: &Path) -> Result<Config> {
        let shared_path = worktree.join("interview.toml");
        let local_path = worktree.join(".interview").join("config.toml");
        let mut shared = read_file(&shared_path)?;
        only_tighter(&mut shared, worktree);
        // A repository may pick a preset, never a program of its own: that would run its code.
        if let Some(setting) = &shared.runner
            && let Some(command) = repository_command(setting)
        {
            return Err(Error::Config {
                path: shared_path.clone(),
                message: format!(
                    "runner: a repository may only choose a preset ({}), not the command {command:?}, \
                     since nothing from the repository runs unless you ask for it: put it in \
                     .interview/config.toml or pass --runner",
                    crate::runner::preset_names().join(", ")
                ),
            });
        }
        if let Some(args) = &shared.runner_args
            && let Err(why) = crate::runner::shared_args_allowed(args)
        {
            return Err(Error::Config {
                path: shared_path.clone(),
                message: format!(
                    "runner_args: {why}; a repository may only choose the model (\"--model\", \
                     \"NAME\"): put other arguments in .interview/config.toml or after `--` on \
                     the command line"
                ),
            });
        }
        // A committed `.interview/` (`.Interview/` on macOS) is never read as the local tier.
        if std::fs::symlink_metadata(&local_path).is_ok() {
            crate::session::tier::refuse_committed(worktree)?;
        }
        let local = read_file(&local_path)?;
        Ok(Config {
            file: merge(shared, local.clone()),
            local,
            shared_path,
            local_path,
        })
    }

    /// The file that set a key: the local one when `set_locally` says so, else the shared one.
    pub fn file_of(&self, set_locally: impl Fn(&ConfigFile) -> bool) -> &Path {
        if set_locally(&self.local) {
            &self.local_path
        } else {
            &self.shared_path
        }
    }

    /// The error for a bad value of `key`, naming the file that set it (exit 1).
    pub fn bad_value(
        &self,
        key: &str,
        set_locally: impl Fn(&ConfigFile) -> bool,
        why: &str,
    ) -> Error {
        let path = if set_locally(&self.local) {
            &self.local_path
        } else {
            &self.shared_path
        };
        Error::Config {
            path: path.clone(),
            message: format!("{key}: {why}"),
        }
    }
}

/// The repository's own file may only tighten what the person's defaults give: `sandbox` never
/// `off`, `on_change` only `fail`, and no `guard_allow` glob that matches a tracked file or the
/// git directory. Anything looser is ignored with a warning naming the key
/// (docs/config.md, "What the repository may set").
fn only_tighter(shared: &mut ConfigFile, worktree: &Path) {
    let warn = |key: &str, value: &str, why: &str| {
        crate::output::stderr_line(&format!(
            "interview: warning: interview.toml: {key} = {value} is ignored ({why})"
        ));
    };
    if shared.sandbox.as_deref() == Some("off") {
        warn(
            "sandbox",
            "\"off\"",
            "a repository cannot turn off its own sandbox; use --sandbox off or .interview/config.toml",
        );
        shared.sandbox = None;
    }
    if let Some(value @ ("ask" | "warn")) = shared.on_change.as_deref() {
        warn(
            "on_change",
            &format!("{value:?}"),
            "a repository may only make the guard stricter (\"fail\"); use --on-change or .interview/config.toml",
        );
        shared.on_change = None;
    }
    if let Some(globs) = shared.guard_allow.take() {
        let kept = guard_allow::tighter(worktree, globs, |glob, path| {
            warn(
                "guard_allow",
                &format!("[{glob:?}]"),
                &format!(
                    "it matches {path}, which a repository cannot allow a command to change; use --allow or .interview/config.toml"
                ),
            );
        });
        shared.guard_allow = Some(kept);
    }
}

fn read_file(path: &Path) -> Result<ConfigFile> {
    // The repository's own file: capped, and never blocking on a FIFO planted in its place.
    let bytes = match crate::input::read_capped(path, MAX_CONFIG_BYTES) {
        Ok(b) => b,
        Err(crate::input::InputError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(ConfigFile::default());
        }
        Err(e) => {
            return Err(Error::Config {
                path: PathBuf::from(path),
                message: format!("cannot read it: {e}"),
            });
        }
    };
    let text = String::from_utf8(bytes).map_err(|e| Error::Config {
        path: PathBuf::from(path),
        message: format!("not UTF-8 (byte {})", e.utf8_error().valid_up_to()),
    })?;
    let text = crate::input::without_bom(&text);
    toml::from_str(text).map_err(|e| Error::Config {
        path: PathBuf::from(path),
        message: e.to_string().trim_end().to_string(),
    })
}

fn merge(shared: ConfigFile, local: ConfigFile) -> ConfigFile {
    ConfigFile {
        runner: local.runner.or(shared.runner),
        max_turns: local.max_turns.or(shared.max_turns),
        turn_timeout: local.turn_timeout.or(shared.turn_timeout),
        grace: local.grace.or(shared.grace),
        retries: local.retries.or(shared.retries),
        on_change: local.on_change.or(shared.on_change),
        reflect_out: local.reflect_out.or(shared.reflect_out),
        intent_out: local.intent_out.or(shared.intent_out),
        intent: local.intent.or(shared.intent),
        bell: local.bell.or(shared.bell),
        sandbox: local.sandbox.or(shared.sandbox),
        guard_allow: local.guard_allow.or(shared.guard_allow),
        runner_args: local.runner_args.or(shared.runner_args),
    }
}
