//! Runners: which program answers a turn, and how it is started. The programs themselves that
//! come with the tool (the built-in interviewer, the model runner) are `interviewer`'s.
//!
//! Not for: reading or checking what it leaves behind (that is `receipt`).

pub(crate) mod dispatch;
mod output;
pub(crate) mod presets;
pub(crate) use output::Printed;
pub(crate) use presets::{Unfixable, Usage};
mod turn;

pub(crate) use turn::TurnSetup;

use crate::error::{Error, Result};
pub(crate) use crate::protocol::ReceiptFrom;

/// A resolved runner: what to start and how to talk to it.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct RunnerSpec {
    /// A short name for messages and the state file (`builtin`, or the program name).
    pub name: String,
    pub argv: Vec<String>,
    /// Give the brief file as stdin (otherwise stdin is null).
    pub brief_on_stdin: bool,
    pub receipt: ReceiptFrom,
    /// The preset this runner came from, if any: decides how a printed receipt is extracted.
    pub preset: Option<String>,
    /// Arguments added after the runner's own (`--runner claude -- --model X`, `runner_args`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extra_args: Vec<String>,
}

impl RunnerSpec {
    /// A program of the person's own, `[runner] command = [...]` in `.interview/config.toml`
    /// (`argv` is never empty: the configuration's type says so).
    pub(crate) fn command(argv: Vec<String>, receipt: ReceiptFrom) -> RunnerSpec {
        RunnerSpec {
            name: argv.first().map(|p| program_name(p)).unwrap_or_default(),
            argv,
            brief_on_stdin: false,
            receipt,
            preset: None,
            extra_args: Vec::new(),
        }
    }

    /// `--runner NAME|'CMD ARGS…'` (or the configuration's `runner = "…"`): `builtin`, a preset's
    /// name, or a command line.
    pub(crate) fn from_text(text: &str) -> Result<RunnerSpec> {
        if text.trim() == "builtin" {
            return Self::builtin();
        }
        if let Some(spec) = presets::lookup(text.trim()) {
            return Ok(spec);
        }
        let argv = shlex::split(text)
            .filter(|a| !a.is_empty())
            .ok_or_else(|| {
                Error::Usage(format!(
                    "--runner {text:?}: not a command line (check the quoting)"
                ))
            })?;
        Ok(RunnerSpec {
            name: program_name(&argv[0]),
            argv,
            brief_on_stdin: false,
            receipt: ReceiptFrom::File,
            preset: None,
            extra_args: Vec::new(),
        })
    }

    /// The same runner in a later run of the tool (the built-in one from this executable).
    pub(crate) fn reopen(&self) -> Result<RunnerSpec> {
        if self.name == "builtin" && self.preset.is_none() {
            return Self::builtin();
        }
        Ok(self.clone())
    }

    /// The built-in interviewer, run from this executable (the default runner).
    pub(crate) fn builtin() -> Result<RunnerSpec> {
        let exe = std::env::current_exe()
            .map_err(|e| Error::io("cannot find the interview executable", e))?;
        Ok(RunnerSpec {
            name: "builtin".into(),
            argv: vec![exe.display().to_string(), "runner".into(), "builtin".into()],
            brief_on_stdin: false,
            receipt: ReceiptFrom::File,
            preset: None,
            extra_args: Vec::new(),
        })
    }
}

/// Whether `name` is the built-in runner's or a preset's name (not a command line).
pub(crate) fn is_preset_name(name: &str) -> bool {
    name == "builtin" || presets::preset(name).is_some()
}

/// Every name `--runner` takes without a command line: `builtin` and the presets.
pub(crate) fn preset_names() -> Vec<&'static str> {
    std::iter::once("builtin")
        .chain(presets::PRESETS.iter().map(|p| p.name))
        .chain(presets::MODEL_PRESETS.iter().map(|p| p.name))
        .collect()
}

/// Whether `interview.toml` (which the repository controls) may add `args` to a runner: only a
/// model choice, `--model NAME`, `--model=NAME` or `-m NAME`. Anything else could undo what keeps
/// a preset read-only (`--setting-sources project`, `-c model_provider=…`, `--yolo`).
pub(crate) fn shared_args_allowed(args: &[String]) -> std::result::Result<(), String> {
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--model" | "-m" => match rest.next() {
                Some(name) if is_model_name(name) => {}
                Some(name) => return Err(format!("{name:?} is not a model name")),
                None => return Err(format!("{arg} needs a model name after it")),
            },
            other => match other.strip_prefix("--model=") {
                Some(name) if is_model_name(name) => {}
                _ => return Err(format!("{other:?} is not allowed here")),
            },
        }
    }
    Ok(())
}

/// A model's name (`sonnet`, `gpt-5-codex`, `qwen2.5:7b`, `openrouter/anthropic/claude`),
/// never a path: no leading `/`, `.` or `~`, and no `.` or `..` between slashes (a path among a
/// runner's arguments is shown to it).
fn is_model_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(['-', '/', '.', '~'])
        && name.split('/').all(|part| !matches!(part, "" | "." | ".."))
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.:/@[]".contains(c))
}

fn program_name(program: &str) -> String {
    std::path::Path::new(program)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| program.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_repository_may_choose_a_model_and_nothing_else() {
        for ok in [
            &["--model", "claude-sonnet-4-5"][..],
            &["-m", "gpt-5.1-codex"],
            &["--model=openai/gpt-4o"],
            &["-m", "qwen2.5-coder:1.5b"],
            &["--model", "Qwen/Qwen2.5-Coder-1.5B-Instruct"],
            &[],
        ] {
            assert_eq!(shared_args_allowed(&args(ok)), Ok(()), "{ok:?}");
        }
        for bad in [
            &["--setting-sources", "project"][..],
            &["-c", "model_provider=evil"],
            &["--model"],
            &["--model", "--yolo"],
            &["--model", "a b"],
            &["--model=", "x"],
            &["--dangerously-skip-permissions"],
            // A path, which the sandbox would show the runner: never a model's name.
            &["--model", "/"],
            &["--model=/root/.config"],
            &["-m", "~/.ssh"],
            &["--model", "."],
            &["--model", "models/../../.."],
            &["--model", "a//b"],
        ] {
            assert!(shared_args_allowed(&args(bad)).is_err(), "{bad:?}");
        }
    }
}
