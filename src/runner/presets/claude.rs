//! Claude Code: started in print mode, plan mode, read-only tools and user settings only; its
//! receipt is the input of the `StructuredOutput` tool the wire schema makes it offer, in its
//! last `result` event. Everything that is Claude Code's own is here.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use super::activity::{target, tool_activity};
use super::envelope::{excerpt, last_event, last_object, only_envelope, within_limit};
use super::{Preset, Unfixable, Usage, unfixable_as};
use crate::protocol::wire::Family;
use crate::receipt::{ReceiptError, json_kind};
use crate::sandbox::hosts::Host;
use crate::sandbox::{Agent, Credential, Login};

/// Claude Code's own turn limit inside one interview turn (tool calls count): enough to read
/// around a repository, small enough that a looping model stops well before the turn timeout.
pub(super) const MAX_TURNS: &str = "30";

pub(super) const PRESET: Preset = Preset {
    name: "claude",
    program: "claude",
    checked: "2.1.332",
    install: "npm install -g @anthropic-ai/claude-code@2.1.332",
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
        MAX_TURNS,
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
    events: Some(activity),
    envelope: Some(envelope),
    usage,
    policy: None,
    reads_files: false,
    agent: Agent {
        state,
        reads_repository_ignores: false,
        reads: |_| Vec::new(),
        credentials,
        nested: None,
        connects: None,
        variables: VARIABLES,
        hosts,
        settings,
    },
    unfixable,
};

/// Where Claude Code connects: its API, its login and token refresh (`console.anthropic.com`,
/// `claude.ai`), its feature flags (`statsig.anthropic.com`); and `ANTHROPIC_BASE_URL`'s host.
const HOSTS: &[&str] = &[
    "api.anthropic.com",
    "console.anthropic.com",
    "claude.ai",
    "statsig.anthropic.com",
];

fn hosts(_argv: &[String]) -> Vec<Host> {
    let mut hosts = crate::sandbox::hosts::parse_all(HOSTS.iter().copied());
    hosts.extend(crate::sandbox::hosts::of_variables(
        &["ANTHROPIC_BASE_URL"],
        |v| std::env::var(v).ok(),
    ));
    hosts
}

/// Its failures a retry cannot fix: not logged in (its `authentication_failed` message, or a
/// result that says so), and its own usage error (`error: unknown option '--x'` on stderr).
fn unfixable(line: &str) -> Option<Unfixable> {
    if let Some(text) = line.strip_prefix("error: ") {
        let usage = [
            "unknown option",
            "option '",
            "too many arguments",
            "missing required",
        ];
        return usage
            .iter()
            .any(|u| text.starts_with(u))
            .then(|| {
                unfixable_as(
                    line,
                    "Claude Code refused its arguments",
                    "check the arguments after `--` against `claude --help`",
                )
            })
            .flatten();
    }
    let event: Value = serde_json::from_str(line).ok()?;
    let text_at = |pointer: &str| event.pointer(pointer).and_then(Value::as_str);
    let failed_login = text_at("/error") == Some("authentication_failed");
    let said = match (failed_login, event.get("is_error").and_then(Value::as_bool)) {
        (true, _) => text_at("/message/content/0/text").unwrap_or("authentication_failed"),
        (false, Some(true)) => text_at("/result")?,
        _ => return None,
    };
    let lower = said.to_lowercase();
    let login = [
        "not logged in",
        "invalid api key",
        "/login",
        "oauth token has expired",
    ];
    (failed_login || login.iter().any(|l| lower.contains(l)))
        .then(|| {
            unfixable_as(
                said,
                "Claude Code is not logged in",
                "run `claude /login` (or set ANTHROPIC_API_KEY)",
            )
        })
        .flatten()
}

/// What Claude Code reads of the environment: its key or token, base URL, models and
/// providers (`ANTHROPIC_*`), its own settings and login (`CLAUDE_CODE_*`, `CLAUDE_CONFIG_DIR`),
/// the `DISABLE_*` switches (telemetry, updates, error reports) and its timeouts.
const VARIABLES: &[&str] = &[
    "ANTHROPIC_*",
    "CLAUDE_CODE_*",
    "CLAUDE_CONFIG_DIR",
    "DISABLE_*",
    "API_TIMEOUT_MS",
    "MAX_THINKING_TOKENS",
    "MCP_TIMEOUT",
];

/// `$CLAUDE_CONFIG_DIR`, or `~/.claude`.
fn config_dir(home: &Path) -> PathBuf {
    match std::env::var_os("CLAUDE_CONFIG_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => home.join(".claude"),
    }
}

/// Its state: the configuration directory and `~/.claude.json` (with its backup).
fn state(home: &Path) -> Vec<PathBuf> {
    vec![
        config_dir(home),
        home.join(".claude.json"),
        home.join(".claude.json.backup"),
    ]
}

/// Its configuration: `settings.json` and `settings.local.json` in the configuration directory
/// (hooks, `apiKeyHelper`, `env`, permissions), and `~/.claude.json` with its backup (MCP
/// servers).
fn settings(home: &Path) -> Vec<PathBuf> {
    let dir = config_dir(home);
    vec![
        dir.join("settings.json"),
        dir.join("settings.local.json"),
        home.join(".claude.json"),
        home.join(".claude.json.backup"),
    ]
}

/// Its login: `.credentials.json` in the configuration directory.
fn credentials(home: &Path) -> Vec<Credential> {
    vec![Credential {
        path: config_dir(home).join(".credentials.json"),
        login: LOGIN,
    }]
}

/// What the person is told of a login refreshed during an interview (sandbox/agent.rs).
const LOGIN: Login = Login {
    cli: "Claude Code",
    program: "claude",
    relogin: "run `claude /login`",
};

/// Claude Code `--output-format stream-json` (its last `result` event) or `json` (the one
/// envelope): `{subtype, is_error, result, structured_output, …}`.
fn envelope(stdout: &str) -> Result<String, ReceiptError> {
    within_limit(stdout)?;
    let env = match last_event(stdout, "result") {
        Some(env) => env,
        None => only_envelope("Claude Code", "--output-format stream-json", stdout)?,
    };
    let subtype = env.get("subtype").and_then(Value::as_str).unwrap_or("");
    let said = || {
        let errors = env
            .get("errors")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join("; ")
            })
            .unwrap_or_default();
        let result = env.get("result").and_then(Value::as_str).unwrap_or("");
        match (result.trim().is_empty(), errors.is_empty()) {
            (false, _) => excerpt(result),
            (true, false) => excerpt(&errors),
            (true, true) => "no message".to_string(),
        }
    };
    if subtype == "error_max_structured_output_retries" {
        return Err(ReceiptError::Invalid(format!(
            "Claude Code gave up (error_max_structured_output_retries): the model did not produce \
             output matching the receipt schema in its attempts ({})",
            said()
        )));
    }
    // An unreachable server is reported as `subtype: success` with `is_error: true`.
    if env.get("is_error").and_then(Value::as_bool) == Some(true) {
        return Err(ReceiptError::Invalid(format!(
            "Claude Code reported an error: {}",
            said()
        )));
    }
    if subtype != "success" {
        return Err(ReceiptError::Invalid(format!(
            "Claude Code stopped with subtype {:?} instead of success: {}",
            excerpt(subtype),
            said()
        )));
    }
    match env.get("structured_output") {
        Some(Value::Object(receipt)) => serde_json::to_string(receipt)
            .map_err(|e| ReceiptError::Invalid(format!("cannot re-encode structured_output: {e}"))),
        None | Some(Value::Null) => Err(ReceiptError::Missing(
            "structured_output of Claude Code's JSON envelope (the model answered in text only, \
             without calling the StructuredOutput tool)"
                .into(),
        )),
        Some(other) => Err(ReceiptError::Invalid(format!(
            "structured_output of Claude Code's JSON envelope is {}, not an object",
            json_kind(other)
        ))),
    }
}

/// The tokens and cost it printed for the turn.
fn usage(stdout: &str) -> Option<Usage> {
    let u64_at = |v: &Value, key: &str| v.get(key).and_then(Value::as_u64);
    Some({
        let env = last_object(stdout)?;
        let u = env.get("usage");
        Usage {
            input_tokens: u.and_then(|u| {
                let base = u64_at(u, "input_tokens")?;
                Some(
                    base + u64_at(u, "cache_read_input_tokens").unwrap_or(0)
                        + u64_at(u, "cache_creation_input_tokens").unwrap_or(0),
                )
            }),
            output_tokens: u.and_then(|u| u64_at(u, "output_tokens")),
            cost_usd: env.get("total_cost_usd").and_then(Value::as_f64),
        }
    })
}

// Claude Code: `{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Read",
// "input":{"file_path":"/abs/README.md"}}]}}`, `{"type":"system","subtype":"thinking_tokens"}`.

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum ClaudeEvent {
    System {
        #[serde(default)]
        subtype: String,
    },
    Assistant {
        message: ClaudeMessage,
        /// Set on a message the CLI made up from an error (`authentication_failed`, …).
        #[serde(default)]
        error: Option<String>,
    },
    #[serde(other)]
    Other,
}

#[derive(Deserialize)]
struct ClaudeMessage {
    #[serde(default)]
    content: Vec<ClaudeBlock>,
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum ClaudeBlock {
    Thinking {},
    RedactedThinking {},
    Text {
        #[serde(default)]
        text: String,
    },
    ToolUse {
        name: String,
        #[serde(default)]
        input: Value,
    },
    #[serde(other)]
    Other,
}

/// What it is doing now, from one of its `stream-json` events.
pub(super) fn activity(line: &str, root: &Path) -> Option<String> {
    match serde_json::from_str(line).ok()? {
        ClaudeEvent::System { subtype } if subtype == "thinking_tokens" => Some("thinking".into()),
        ClaudeEvent::System { .. } | ClaudeEvent::Other => None,
        // An error is said as one, in its words, not as text the model writes.
        ClaudeEvent::Assistant {
            error: Some(error),
            message,
        } => {
            let text = message.content.into_iter().find_map(|b| match b {
                ClaudeBlock::Text { text } if !text.trim().is_empty() => Some(text),
                _ => None,
            });
            Some(format!("error: {}", text.unwrap_or(error)))
        }
        // The last block says what it does now.
        ClaudeEvent::Assistant { message, .. } => match message.content.last()? {
            ClaudeBlock::Thinking {} | ClaudeBlock::RedactedThinking {} => Some("thinking".into()),
            ClaudeBlock::Text { .. } => Some("writing".into()),
            ClaudeBlock::ToolUse { name, input } => {
                Some(tool_activity(name, target(input, root).as_deref()))
            }
            ClaudeBlock::Other => None,
        },
    }
}
