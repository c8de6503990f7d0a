//! Presets for real agent CLIs (Claude Code, Codex, Gemini CLI, aider): how each is started
//! read-only with structured output (this table), how its receipt is taken out of what it prints
//! (`envelope`), and what `interview runners` says about them (`installed`).
//!
//! Not for: checking the receipt (that is `receipt`), or starting the process (`dispatch`).

mod envelope;
mod installed;

pub use envelope::extract;
pub use installed::{VERSION_TIMEOUT, find_on_path, list, render_list, version_of};

use super::{ReceiptFrom, RunnerSpec};

/// One preset: the CLI it starts and the version its flags were checked against.
#[derive(Debug, Clone, Copy)]
pub struct Preset {
    pub name: &'static str,
    /// The program looked up on PATH.
    pub program: &'static str,
    /// The CLI version every flag was checked against (see docs/runners.md).
    pub checked: &'static str,
    argv: &'static [&'static str],
    brief_on_stdin: bool,
}

/// Claude Code's own turn limit inside one interview turn (tool calls count): enough to read
/// around a repository, small enough that a looping model stops well before the turn timeout.
pub const CLAUDE_MAX_TURNS: &str = "30";

/// Every preset, in the order `interview runners` lists them.
pub const PRESETS: &[Preset] = &[
    Preset {
        name: "claude",
        program: "claude",
        checked: "2.1.197",
        // Plan mode and a read-only tool list; the schema makes the CLI offer a
        // `StructuredOutput` tool and return its input as `structured_output`.
        argv: &[
            "claude",
            "-p",
            "--output-format",
            "json",
            "--json-schema",
            "{schema_text}",
            "--permission-mode",
            "plan",
            "--tools",
            "Read,Grep,Glob",
            "--max-turns",
            CLAUDE_MAX_TURNS,
            "--no-session-persistence",
            "--strict-mcp-config",
        ],
        brief_on_stdin: true,
    },
    Preset {
        name: "codex",
        program: "codex",
        checked: "0.171.0",
        // `--disable plugins`: otherwise it runs `git ls-remote` on a plugins repository.
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
            "{schema}",
        ],
        brief_on_stdin: true,
    },
    Preset {
        name: "gemini",
        program: "gemini",
        checked: "0.61.0",
        // Headless mode refuses an untrusted folder, so `--skip-trust` is needed; no extension
        // and no MCP server (there is none named `none`) is loaded from the repository's settings.
        argv: &[
            "gemini",
            "--skip-trust",
            "--approval-mode",
            "plan",
            "--output-format",
            "json",
            "--extensions",
            "none",
            "--allowed-mcp-server-names",
            "none",
            "-p",
            "Answer as the brief on standard input says: one receipt JSON object.",
        ],
        brief_on_stdin: true,
    },
    Preset {
        name: "aider",
        program: "aider",
        checked: "0.86.2",
        // Ask mode and a dry run: no edits, no commits, no git at all; its history files go to
        // the turn's out dir instead of the repository; stdin stays null so no prompt can wait.
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
            "--message-file",
            "{brief}",
        ],
        brief_on_stdin: false,
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
        }
    }
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
    fn claude_runs_print_mode_in_plan_mode_with_read_only_tools_and_the_schema() {
        assert_eq!(
            argv("claude"),
            [
                "claude",
                "-p",
                "--output-format",
                "json",
                "--json-schema",
                "{schema_text}",
                "--permission-mode",
                "plan",
                "--tools",
                "Read,Grep,Glob",
                "--max-turns",
                "30",
                "--no-session-persistence",
                "--strict-mcp-config",
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
                "{schema}",
            ]
        );
    }

    #[test]
    fn gemini_runs_headless_in_plan_mode_with_json_output_and_no_extensions() {
        assert_eq!(
            argv("gemini"),
            [
                "gemini",
                "--skip-trust",
                "--approval-mode",
                "plan",
                "--output-format",
                "json",
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
    fn a_name_that_is_no_preset_is_not_looked_up() {
        assert!(lookup("claude -p").is_none());
        assert!(lookup("Claude").is_none());
        assert!(lookup("builtin").is_none());
    }
}
