//! Presets for real agent CLIs (Claude Code, Codex, Gemini CLI, aider): how each is started
//! read-only with structured output (this table), how its receipt is taken out of what it prints
//! (`envelope`), and what `interview runners` says about them (`installed`).
//!
//! Not for: checking the receipt (that is `receipt`), or starting the process (`dispatch`).

mod activity;
mod envelope;
mod installed;
mod report;

pub use activity::{Events, words as activity_words};
pub use envelope::extract;
pub use installed::{VERSION_TIMEOUT, drift, find_on_path, list, render_list, version_of};
pub use report::{Usage, json_error, said_on_failure, usage};

use super::{ReceiptFrom, RunnerSpec};
use crate::protocol::wire::Family;

/// One preset: the CLI it starts, the version its flags were checked against, and what it
/// needs around it for a turn (see `docs/runners.md`).
#[derive(Debug, Clone, Copy)]
pub struct Preset {
    pub name: &'static str,
    /// The program looked up on PATH.
    pub program: &'static str,
    /// The CLI version every flag was checked against (see docs/runners.md).
    pub checked: &'static str,
    argv: &'static [&'static str],
    brief_on_stdin: bool,
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
}

/// Claude Code's own turn limit inside one interview turn (tool calls count): enough to read
/// around a repository, small enough that a looping model stops well before the turn timeout.
pub const CLAUDE_MAX_TURNS: &str = "30";

/// What the brief says about the wire form, for presets given the wire schema.
const WIRE_NOTE: &str = "In the schema you were given both forms are one object: set every \
    field of the other form, and every optional field you leave out, to null.";

/// What the brief says to presets started outside the repository.
const SCRATCH_NOTE: &str = "You were started outside the repository and given its files by \
    absolute path; cite a file by its path relative to the repository root (`src/main.rs:12`).";

/// Every preset, in the order `interview runners` lists them.
pub const PRESETS: &[Preset] = &[
    Preset {
        name: "claude",
        program: "claude",
        checked: "2.1.332",
        // Plan mode and a read-only tool list; the schema makes the CLI offer a
        // `StructuredOutput` tool and return its input as `structured_output`. User settings
        // only: the repository's `.claude/settings*.json` (hooks, env, endpoint) are not read,
        // nor its MCP servers, skills or commands.
        argv: &[
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
            CLAUDE_MAX_TURNS,
            "--no-session-persistence",
            "--setting-sources",
            "user",
            "--strict-mcp-config",
            "--disable-slash-commands",
        ],
        brief_on_stdin: true,
        wire: Some(Family::Anthropic),
        scratch_cwd: false,
        env: &[],
        returns: "Return the receipt by calling the StructuredOutput tool once, as your last step. \
            You cannot write files: do not try to write receipt.json.",
        events: Some(Events::Claude),
    },
    Preset {
        name: "codex",
        program: "codex",
        checked: "0.171.0",
        // `--disable plugins`: otherwise it runs `git ls-remote` on a plugins repository.
        // An untrusted project's `.codex/config.toml` is not loaded (tested).
        argv: &[
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
        ],
        brief_on_stdin: true,
        wire: Some(Family::OpenAi),
        scratch_cwd: false,
        env: &[],
        returns: "Return the receipt as your final message: the JSON object alone, nothing \
            around it. You cannot write files: do not try to write receipt.json.",
        events: Some(Events::Codex),
    },
    Preset {
        name: "gemini",
        program: "gemini",
        checked: "0.61.0",
        // Started in an empty scratch directory (trusted for the session with `--skip-trust`):
        // the repository's `.gemini/` settings, `.env` and extensions are never looked at; the
        // repository is an included directory it may read. The policy denies leaving plan mode,
        // writes, shell, web, memory and sub-agents; no extension and no MCP server is loaded.
        argv: &[
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
        ],
        brief_on_stdin: true,
        wire: None,
        scratch_cwd: true,
        env: &[],
        returns: "Return the receipt as your final answer: the JSON object alone, nothing around \
            it. You cannot write files: do not try to write receipt.json.",
        events: Some(Events::Gemini),
    },
    Preset {
        name: "aider",
        program: "aider",
        checked: "0.86.2",
        // Ask mode and a dry run: no edits, no commits, no git at all. Started in an empty
        // scratch directory, so the repository's `.aider.conf.yml` (its `load:` runs commands)
        // and `.env` (endpoint, model) are not found; the files it needs are given read-only.
        // Its history files go to the turn's out dir; a wide terminal keeps JSON from wrapping.
        argv: &[
            "aider",
            "--chat-mode",
            "ask",
            "--dry-run",
            "--no-git",
            "--no-gitignore",
            "--no-auto-commits",
            "--no-auto-lint",
            "--no-auto-test",
            "--map-tokens",
            "0",
            "--yes-always",
            "--no-suggest-shell-commands",
            "--no-detect-urls",
            "--no-check-update",
            "--no-analytics",
            "--no-show-model-warnings",
            "--no-pretty",
            "--no-stream",
            "--no-fancy-input",
            "--no-notifications",
            "--no-restore-chat-history",
            "--chat-history-file",
            "{out}/aider.chat.history.md",
            "--input-history-file",
            "{out}/aider.input.history",
            "{read_files}",
            "--message-file",
            "{brief}",
        ],
        brief_on_stdin: false,
        wire: None,
        scratch_cwd: true,
        env: &[("COLUMNS", "100000"), ("LINES", "1000")],
        returns: "Return the receipt as your answer: the JSON object alone, on one line, \
            nothing around it. You cannot write files: do not try to write receipt.json.",
        events: None,
    },
];

impl Preset {
    /// The argv, placeholders not yet expanded.
    pub fn argv(&self) -> Vec<String> {
        self.argv.iter().map(|a| a.to_string()).collect()
    }

    pub fn spec(&self) -> RunnerSpec {
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
    pub fn returns(&self) -> String {
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

/// The preset named `name`.
pub fn preset(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.name == name)
}

/// The preset named `name`, if there is one.
pub fn lookup(name: &str) -> Option<RunnerSpec> {
    PRESETS.iter().find(|p| p.name == name).map(Preset::spec)
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
    fn a_name_that_is_no_preset_is_not_looked_up() {
        assert!(lookup("claude -p").is_none());
        assert!(lookup("Claude").is_none());
        assert!(lookup("builtin").is_none());
    }
}
