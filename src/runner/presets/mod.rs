//! Presets for real agent CLIs: one file per CLI (`claude.rs`, `codex.rs`, `gemini.rs`,
//! `aider.rs`) holds all that differs between them — how it is started read-only with
//! structured output, how its receipt is taken out of what it prints, its usage, its activity,
//! its state for the sandbox. What they share: taking the receipt out (`envelope`), what a
//! failed turn said and what it cost (`report`), the activity words (`activity`), and what
//! `interview runners` says about them (`installed`). `model.rs` holds the model runner's
//! presets (`openai`, `ollama`: this executable, see `interviewer/model/`).
//!
//! Not for: checking the receipt (that is `receipt`), or starting the process (`dispatch`).

/// Also the model runner's preset's (`model.rs`): the words for a tool call.
mod activity;
mod aider;
mod claude;
mod codex;
mod envelope;
mod gemini;
mod installed;
mod model;
mod report;

pub(crate) use activity::{Events, words as activity_words};
pub(crate) use envelope::extract;
pub(crate) use installed::{
    VERSION_TIMEOUT, drift, find_on_path, hosts_of, render_list, version_of,
};
pub(crate) use report::{Usage, json_error, said_on_failure, usage};

use super::{ReceiptFrom, RunnerSpec};
use crate::protocol::wire::Family;
use crate::receipt::ReceiptError;
use crate::sandbox::Agent;

/// Takes the receipt's text out of everything a CLI printed on stdout.
pub(crate) type Unwrap = fn(&str) -> Result<String, ReceiptError>;

/// One preset: the CLI it starts, the version its flags were checked against, and what it
/// needs around it for a turn (see `docs/runners.md`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Preset {
    pub name: &'static str,
    /// The program looked up on PATH.
    pub program: &'static str,
    /// The CLI version every flag was checked against (see docs/runners.md).
    pub checked: &'static str,
    /// The command that installs that version, said when the CLI is not on PATH.
    pub install: &'static str,
    pub(crate) argv: &'static [&'static str],
    pub(crate) brief_on_stdin: bool,
    /// The provider family whose wire schema the CLI is given (`{wire_schema}`,
    /// `{wire_schema_text}`); `None` for a CLI without structured output.
    pub wire: Option<Family>,
    /// Start the CLI in an empty scratch directory outside the repository (the repository is
    /// given as `{worktree}`), for CLIs that load settings from their working directory and its
    /// parents with no flag to stop them.
    pub scratch_cwd: bool,
    /// Extra environment for the CLI.
    pub env: &'static [(&'static str, &'static str)],
    /// How the brief tells the model to return its receipt.
    pub returns: &'static str,
    /// How the CLI streams its events on stdout while it works (what the progress line reads
    /// the agent's activity from); `None` for a CLI that prints only at the end.
    pub events: Option<Events>,
    /// Takes the receipt's text out of what the CLI printed (its JSON envelope or events),
    /// before the one JSON object in it is looked for; `None`: the CLI prints plain text.
    pub(crate) envelope: Option<Unwrap>,
    /// The tokens and cost the CLI printed for a turn, where it printed them.
    pub(crate) usage: fn(&str) -> Option<Usage>,
    /// A policy file written for every turn and given as `{policy}`.
    pub policy: Option<&'static str>,
    /// `{read_files}` becomes `--read FILE` for each file the subject's facts name.
    pub reads_files: bool,
    /// What the sandbox must know of the CLI: its state, its credentials, its own sandbox.
    pub agent: Agent,
    /// Recognises, in one line the CLI printed, a failure a retry cannot fix (not logged in,
    /// no key, its own usage error, no state directory, no network).
    pub(crate) unfixable: Recognise,
}

/// A failure a retry cannot fix, as a CLI said it: its own words, what is wrong, and the
/// command that fixes it (docs/runners.md, "Failures a retry cannot fix").
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unfixable {
    /// The CLI's own words (sanitised, shortened).
    pub said: String,
    /// What is wrong, in a few words: "Claude Code is not logged in".
    pub what: &'static str,
    /// What fixes it: "run `claude /login`".
    pub fix: &'static str,
}

/// Recognises a failure a retry cannot fix in one line a CLI printed (on stdout or stderr).
pub(crate) type Recognise = fn(&str) -> Option<Unfixable>;

/// The first failure a retry cannot fix that `preset`'s CLI said in `text` (`None` without a
/// preset, or when it said none).
pub(crate) fn unfixable(preset: Option<&str>, text: &str) -> Option<Unfixable> {
    let recognise = self::preset(preset?)?.unfixable;
    text.lines().find_map(|line| recognise(line.trim()))
}

/// The failure `what`, fixed by `fix`, in the CLI's words `said`.
fn unfixable_as(said: &str, what: &'static str, fix: &'static str) -> Option<Unfixable> {
    Some(Unfixable {
        said: envelope::excerpt(said),
        what,
        fix,
    })
}

/// What the brief says about the wire form, for presets given the wire schema.
const WIRE_NOTE: &str = "In the schema you were given both forms are one object: set every \
    field of the other form, and every optional field you leave out, to null.";

/// What the brief says to presets started outside the repository.
const SCRATCH_NOTE: &str = "You were started outside the repository and given its files by \
    absolute path; cite a file by its path relative to the repository root (`src/main.rs:12`).";

/// Every preset, in the order `interview runners` lists them. A new CLI is one more file here
/// with its `PRESET`, and one more line.
pub(crate) const PRESETS: &[Preset] =
    &[claude::PRESET, codex::PRESET, gemini::PRESET, aider::PRESET];

impl Preset {
    /// The argv, placeholders not yet expanded.
    pub(crate) fn argv(&self) -> Vec<String> {
        self.argv.iter().map(|a| a.to_string()).collect()
    }

    pub(crate) fn spec(&self) -> RunnerSpec {
        RunnerSpec {
            name: self.name.to_string(),
            argv: self.argv(),
            brief_on_stdin: self.brief_on_stdin,
            receipt: ReceiptFrom::Stdout,
            preset: Some(self.name.to_string()),
            extra_args: Vec::new(),
        }
    }

    /// What the brief says about returning the receipt.
    pub(crate) fn returns(&self) -> String {
        let mut said = self.returns.to_string();
        if self.wire.is_some() {
            said = format!("{said} {WIRE_NOTE}");
        }
        if self.scratch_cwd {
            said = format!("{said} {SCRATCH_NOTE}");
        }
        said
    }
}

/// The model runner's presets (`openai`, `ollama`): this executable, not a CLI on PATH, so
/// not in the list of CLIs above (`model.rs`; the runner itself is `interviewer/model/`).
pub(crate) const MODEL_PRESETS: &[Preset] = &[model::OPENAI, model::OLLAMA];

/// The preset named `name`.
pub(crate) fn preset(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().chain(MODEL_PRESETS).find(|p| p.name == name)
}

/// The preset named `name`, if there is one.
pub(crate) fn lookup(name: &str) -> Option<RunnerSpec> {
    preset(name).map(Preset::spec)
}

/// The preset whose CLI a command line starts (`claude …`, `/opt/bin/codex exec …`), by the
/// program's file name: a command line starting one gets its state and its sandbox handling.
pub(crate) fn by_program(argv: &[String]) -> Option<&'static Preset> {
    let name = std::path::Path::new(argv.first()?).file_name()?.to_str()?;
    PRESETS.iter().find(|p| p.program == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(name: &str) -> Vec<String> {
        lookup(name).expect("a preset").argv
    }

    #[test]
    fn claude_runs_print_mode_in_plan_mode_with_read_only_tools_user_settings_and_the_wire_schema()
    {
        assert_eq!(
            argv("claude"),
            [
                "claude",
                "-p",
                "--output-format",
                "stream-json",
                "--verbose",
                "--json-schema",
                "{wire_schema_text}",
                "--permission-mode",
                "plan",
                "--tools",
                "Read,Grep,Glob",
                "--max-turns",
                "30",
                "--no-session-persistence",
                "--setting-sources",
                "user",
                "--strict-mcp-config",
                "--disable-slash-commands",
            ]
        );
    }

    #[test]
    fn codex_runs_exec_json_in_the_read_only_sandbox_with_the_schema_file() {
        assert_eq!(
            argv("codex"),
            [
                "codex",
                "exec",
                "--json",
                "--ephemeral",
                "--skip-git-repo-check",
                "--sandbox",
                "read-only",
                "--disable",
                "plugins",
                "--output-schema",
                "{wire_schema}",
            ]
        );
    }

    #[test]
    fn gemini_runs_headless_in_plan_mode_under_its_policy_with_json_output_and_no_extensions() {
        assert_eq!(
            argv("gemini"),
            [
                "gemini",
                "--skip-trust",
                "--approval-mode",
                "plan",
                "--policy",
                "{policy}",
                "--include-directories",
                "{worktree}",
                "--output-format",
                "stream-json",
                "--extensions",
                "none",
                "--allowed-mcp-server-names",
                "none",
                "-p",
                "Answer as the brief on standard input says: one receipt JSON object.",
            ]
        );
    }

    #[test]
    fn aider_runs_in_ask_mode_as_a_dry_run_without_git_and_keeps_its_files_in_out() {
        let a = argv("aider");
        for flag in [
            "--dry-run",
            "--no-git",
            "--no-gitignore",
            "--no-auto-commits",
            "--no-auto-lint",
            "--no-auto-test",
            "--no-suggest-shell-commands",
            "--no-detect-urls",
            "--yes-always",
        ] {
            assert!(a.iter().any(|x| x == flag), "aider lacks {flag}: {a:?}");
        }
        let pair = |flag: &str| {
            let i = a.iter().position(|x| x == flag).expect(flag);
            a[i + 1].clone()
        };
        assert_eq!(pair("--chat-mode"), "ask");
        assert_eq!(pair("--message-file"), "{brief}");
        assert!(pair("--chat-history-file").starts_with("{out}/"));
        assert!(pair("--input-history-file").starts_with("{out}/"));
    }

    #[test]
    fn presets_print_their_receipt_and_only_aider_reads_the_brief_from_a_file() {
        for p in PRESETS {
            let spec = lookup(p.name).unwrap();
            assert_eq!(spec.receipt, ReceiptFrom::Stdout, "{}", p.name);
            assert_eq!(spec.preset.as_deref(), Some(p.name));
            assert_eq!(spec.name, p.name);
            assert_eq!(spec.brief_on_stdin, p.name != "aider", "{}", p.name);
        }
    }

    #[test]
    fn presets_that_load_settings_from_their_directory_start_outside_the_repository() {
        let scratch: Vec<&str> = PRESETS
            .iter()
            .filter(|p| p.scratch_cwd)
            .map(|p| p.name)
            .collect();
        assert_eq!(scratch, ["gemini", "aider"]);
        let wire: Vec<(&str, Family)> = PRESETS
            .iter()
            .filter_map(|p| p.wire.map(|f| (p.name, f)))
            .collect();
        assert_eq!(
            wire,
            [("claude", Family::Anthropic), ("codex", Family::OpenAi)]
        );
        for p in PRESETS {
            assert!(
                p.returns().contains("do not try to write receipt.json"),
                "{}",
                p.name
            );
        }
    }

    #[test]
    fn a_command_line_starting_a_cli_gets_that_clis_state() {
        let argv = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let cli_of = |a: &[&str]| by_program(&argv(a)).map(|p| p.name);
        assert_eq!(cli_of(&["/opt/x/claude", "-p"]), Some("claude"));
        assert_eq!(cli_of(&["codex", "exec"]), Some("codex"));
        assert_eq!(cli_of(&["sh", "claude"]), None);
        assert_eq!(cli_of(&["claude-wrapper"]), None);
        assert_eq!(cli_of(&[]), None);
    }

    macro_rules! recorded {
        ($file:literal) => {
            include_str!(concat!("../../../fixtures/cli-outputs/", $file))
        };
    }

    #[test]
    fn each_clis_failures_a_retry_cannot_fix_are_recognised_with_their_fix() {
        let cases = [
            (
                "claude",
                recorded!("claude-not-logged-in.jsonl"),
                "Not logged in",
                "claude /login",
            ),
            (
                "claude",
                recorded!("claude-usage-error.txt"),
                "--bogus-flag",
                "claude --help",
            ),
            (
                "codex",
                recorded!("codex-no-state-dir.log"),
                "os error 30",
                "codex login",
            ),
            (
                "codex",
                recorded!("codex-offline.log"),
                "waiting for network",
                "network",
            ),
            (
                "codex",
                recorded!("codex-usage-error.txt"),
                "--bogus-flag",
                "codex exec --help",
            ),
            (
                "gemini",
                recorded!("gemini-no-auth.log"),
                "Auth method",
                "GEMINI_API_KEY",
            ),
            (
                "gemini",
                recorded!("gemini-usage-error.txt"),
                "bogus-flag",
                "gemini --help",
            ),
            (
                "aider",
                recorded!("aider-no-key.txt"),
                "no API keys",
                "ANTHROPIC_API_KEY",
            ),
            (
                "aider",
                recorded!("aider-usage-error.txt"),
                "--bogus-flag",
                "aider --help",
            ),
        ];
        for (cli, text, said, fix) in cases {
            let found = unfixable(Some(cli), text).unwrap_or_else(|| panic!("{cli}: {said}"));
            assert!(found.said.contains(said), "{cli}: {found:?}");
            assert!(found.fix.contains(fix), "{cli}: {found:?}");
        }
    }

    #[test]
    fn failures_that_may_pass_and_answers_are_not_unfixable() {
        let cases = [
            ("claude", recorded!("claude-server-error.json")),
            ("claude", recorded!("claude-unreachable.json")),
            ("claude", recorded!("claude-stream.jsonl")),
            ("codex", recorded!("codex-server-error.jsonl")),
            ("codex", recorded!("codex-stream.jsonl")),
            ("gemini", recorded!("gemini-server-error.stderr.json")),
            ("gemini", recorded!("gemini-stream.jsonl")),
            ("aider", recorded!("aider-server-error.txt")),
            ("aider", recorded!("aider-fenced.txt")),
        ];
        for (cli, text) in cases {
            assert_eq!(unfixable(Some(cli), text), None, "{cli}");
        }
        // Codex's own retries before it waits for the network pass.
        let retrying = r#"{"type":"error","message":"Reconnecting... 2/5 (stream disconnected)"}"#;
        assert_eq!(unfixable(Some("codex"), retrying), None);
        assert_eq!(
            unfixable(None, recorded!("claude-not-logged-in.jsonl")),
            None
        );
    }

    #[test]
    fn a_name_that_is_no_preset_is_not_looked_up() {
        assert!(lookup("claude -p").is_none());
        assert!(lookup("Claude").is_none());
        assert!(lookup("builtin").is_none());
    }
}
