//! Gemini CLI: headless in plan mode under a policy that denies every writing tool, started in
//! an empty scratch directory with the repository included; its receipt is what the model said
//! in its `stream-json` events. Everything that is Gemini CLI's own is here.

use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use super::activity::{target, tool_activity};
use super::envelope::{excerpt, last_object, only_envelope, within_limit};
use super::{Preset, Unfixable, Usage, unfixable_as};
use crate::receipt::{ReceiptError, json_kind};
use crate::sandbox::hosts::Host;
use crate::sandbox::{Agent, Credential, Login};

/// Gemini CLI's policy for every turn: read-only tools only. Denies what plan mode would let
/// a model reach by leaving it (`exit_plan_mode` switches to YOLO mode), and everything that
/// writes, runs, fetches or delegates.
pub(super) const POLICY: &str = r#"# Written by interview for one turn: the model may only read.
[[rule]]
toolName = ["exit_plan_mode", "enter_plan_mode", "write_file", "replace", "run_shell_command", "invoke_agent", "web_fetch", "google_web_search", "save_memory", "activate_skill", "write_todos", "ask_user"]
decision = "deny"
priority = 999
denyMessage = "interview: this turn is read-only. Return the receipt as your final answer."

[[rule]]
toolName = "*"
mcpName = "*"
decision = "deny"
priority = 999
denyMessage = "interview: no MCP tools in an interview turn."
"#;

pub(super) const PRESET: Preset = Preset {
    name: "gemini",
    program: "gemini",
    checked: "0.61.0",
    install: "npm install -g @google/gemini-cli@0.61.0",
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
    events: Some(activity),
    envelope: Some(envelope),
    usage,
    policy: Some(POLICY),
    reads_files: false,
    agent: Agent {
        state: |home| vec![home.join(".gemini")],
        reads_repository_ignores: false,
        reads: |_| Vec::new(),
        credentials: |home| {
            vec![Credential {
                path: home.join(".gemini").join("oauth_creds.json"),
                login: LOGIN,
            }]
        },
        nested: None,
        connects: None,
        variables: VARIABLES,
        hosts,
        // Its settings (MCP servers, hooks, tools) and the environment it loads at its start.
        settings: |home| {
            vec![
                home.join(".gemini/settings.json"),
                home.join(".gemini/.env"),
            ]
        },
    },
    unfixable,
};

/// Where Gemini CLI connects: the Gemini API, Code Assist (its Google login's endpoint) and
/// Google's OAuth hosts; and the host of `GOOGLE_GEMINI_BASE_URL`, from the environment or the
/// person's `~/.gemini/.env`.
const HOSTS: &[&str] = &[
    "generativelanguage.googleapis.com",
    "cloudcode-pa.googleapis.com",
    "oauth2.googleapis.com",
    "accounts.google.com",
    "www.googleapis.com",
];

const BASE_URL: &str = "GOOGLE_GEMINI_BASE_URL";

fn hosts(_argv: &[String]) -> Vec<Host> {
    use crate::sandbox::hosts;
    let mut allowed = hosts::parse_all(HOSTS.iter().copied());
    allowed.extend(hosts::of_variables(&[BASE_URL], |v| std::env::var(v).ok()));
    let dotenv = std::env::var_os("HOME")
        .map(|h| std::path::PathBuf::from(h).join(".gemini/.env"))
        .and_then(|f| crate::input::read_capped(&f, 64 * 1024).ok())
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        .unwrap_or_default();
    allowed.extend(dotenv.lines().filter_map(|line| {
        let (name, value) = line
            .trim()
            .strip_prefix("export ")
            .unwrap_or(line.trim())
            .split_once('=')?;
        (name.trim() == BASE_URL)
            .then(|| Host::of_url(value.trim().trim_matches(['"', '\''])))
            .flatten()
    }));
    allowed
}

/// Its failures a retry cannot fix: no way to sign in chosen (it exits 41 saying so), and its
/// own usage error (`Unknown arguments: …`, before its whole help).
fn unfixable(line: &str) -> Option<Unfixable> {
    if line.starts_with("Please set an Auth method") {
        return unfixable_as(
            line,
            "Gemini CLI is not signed in",
            "run `gemini` once and choose how to sign in (or set GEMINI_API_KEY)",
        );
    }
    let usage = [
        "Unknown argument",
        "Not enough arguments",
        "Invalid values:",
    ];
    usage
        .iter()
        .any(|u| line.starts_with(u))
        .then(|| {
            unfixable_as(
                line,
                "Gemini CLI refused its arguments",
                "check the arguments after `--` against `gemini --help`",
            )
        })
        .flatten()
}

/// What the person is told of a login refreshed during an interview (sandbox/agent.rs).
const LOGIN: Login = Login {
    cli: "Gemini CLI",
    program: "gemini",
    relogin: "run `gemini` and choose \"Login with Google\" (`/auth`)",
};

/// What Gemini CLI reads of the environment: its key, model and settings (`GEMINI_*`), and
/// Google's key, project, location, base URLs and Vertex AI switches.
const VARIABLES: &[&str] = &[
    "GEMINI_*",
    "GOOGLE_API_KEY",
    "GOOGLE_CLOUD_PROJECT",
    "GOOGLE_CLOUD_PROJECT_ID",
    "GOOGLE_CLOUD_LOCATION",
    "GOOGLE_GENAI_*",
    "GOOGLE_GEMINI_BASE_URL",
    "GOOGLE_VERTEX_BASE_URL",
    "GOOGLE_APPLICATION_CREDENTIALS",
];

/// Gemini CLI `--output-format stream-json`: JSONL events (`init`, `message`, `tool_use`,
/// `tool_result`, `error`, `result`); the receipt is what the model said, its `assistant`
/// messages in order. The final `result` event says whether the turn failed.
fn envelope(stdout: &str) -> Result<String, ReceiptError> {
    within_limit(stdout)?;
    let mut events = 0usize;
    let mut said = String::new();
    let mut result: Option<serde_json::Map<String, Value>> = None;
    let mut last_error: Option<String> = None;
    for line in stdout.lines() {
        let Ok(Value::Object(event)) = serde_json::from_str::<Value>(line.trim()) else {
            continue;
        };
        let text = |key: &str| event.get(key).and_then(Value::as_str);
        match text("type") {
            Some("init" | "tool_use" | "tool_result") => {}
            Some("message") => {
                if text("role") == Some("assistant")
                    && let Some(content) = text("content")
                {
                    said.push_str(content);
                }
            }
            Some("error") => last_error = text("message").map(str::to_string),
            Some("result") => result = Some(event.clone()),
            _ => continue,
        }
        events += 1;
    }
    if events == 0 {
        // `--output-format json` (a session saved before the preset streamed): one envelope.
        return json_envelope(stdout);
    }
    if let Some(result) = &result
        && result.get("status").and_then(Value::as_str) != Some("success")
    {
        let message = result
            .get("error")
            .and_then(|e| e.get("message").and_then(Value::as_str).map(excerpt))
            .or_else(|| last_error.as_deref().map(excerpt))
            .unwrap_or_else(|| "no message".into());
        return Err(ReceiptError::Invalid(format!(
            "Gemini CLI reported an error: {message}"
        )));
    }
    if said.trim().is_empty() {
        return Err(match (result, last_error) {
            (None, Some(error)) => ReceiptError::Invalid(format!(
                "Gemini CLI ended without an answer; its last error: {}",
                excerpt(&error)
            )),
            _ => ReceiptError::Missing(
                "the model's answer in Gemini CLI's stream-json events (no assistant message)"
                    .into(),
            ),
        });
    }
    Ok(said)
}

/// Gemini CLI `--output-format json`: `{session_id, response, stats}` or `{…, error}`.
fn json_envelope(stdout: &str) -> Result<String, ReceiptError> {
    let env = only_envelope("Gemini CLI", "--output-format stream-json", stdout)?;
    if let Some(error) = env.get("error").filter(|e| !e.is_null()) {
        let message = error
            .get("message")
            .and_then(Value::as_str)
            .map(excerpt)
            .unwrap_or_else(|| excerpt(&error.to_string()));
        return Err(ReceiptError::Invalid(format!(
            "Gemini CLI reported an error: {message}"
        )));
    }
    match env.get("response") {
        Some(Value::String(text)) => Ok(text.clone()),
        None | Some(Value::Null) => Err(ReceiptError::Missing(
            "the response field of Gemini CLI's JSON envelope".into(),
        )),
        Some(other) => Err(ReceiptError::Invalid(format!(
            "the response field of Gemini CLI's JSON envelope is {}, not a string",
            json_kind(other)
        ))),
    }
}

/// The tokens and cost it printed for the turn.
fn usage(stdout: &str) -> Option<Usage> {
    let u64_at = |v: &Value, key: &str| v.get(key).and_then(Value::as_u64);
    Some({
        let env = last_object(stdout)?;
        let stats = env.get("stats")?;
        if stats.get("input_tokens").is_some() || stats.get("output_tokens").is_some() {
            // `stream-json`: the `result` event's totals.
            Usage {
                input_tokens: u64_at(stats, "input_tokens"),
                output_tokens: u64_at(stats, "output_tokens"),
                cost_usd: None,
            }
        } else {
            // `json`: per model.
            let mut total = Usage::default();
            for model in stats.get("models")?.as_object()?.values() {
                let t = model.get("tokens");
                total.add(&Usage {
                    input_tokens: t.and_then(|t| u64_at(t, "prompt")),
                    output_tokens: t.and_then(|t| u64_at(t, "candidates")),
                    cost_usd: None,
                });
            }
            total
        }
    })
}

// Gemini CLI: `{"type":"tool_use","tool_name":"read_file","parameters":{"file_path":"/abs/x"}}`,
// `{"type":"message","role":"assistant","content":"…","delta":true}`.

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum GeminiEvent {
    Message {
        #[serde(default)]
        role: String,
    },
    Error {
        #[serde(default)]
        message: String,
    },
    /// The end of the turn: `status` is `success`, or `error` with its `error`.
    Result {
        #[serde(default)]
        status: String,
        #[serde(default)]
        error: Value,
    },
    ToolUse {
        tool_name: String,
        #[serde(default)]
        parameters: Value,
    },
    #[serde(other)]
    Other,
}

/// What it is doing now, from one of its `stream-json` events.
pub(super) fn activity(line: &str, root: &Path) -> Option<String> {
    match serde_json::from_str(line).ok()? {
        GeminiEvent::Message { role } if role == "assistant" => Some("writing".into()),
        GeminiEvent::Error { message } => Some(format!("error: {message}")),
        GeminiEvent::Result { status, error } if status != "success" => Some(format!(
            "error: {}",
            error
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or(&status)
        )),
        GeminiEvent::ToolUse {
            tool_name,
            parameters,
        } => Some(tool_activity(
            &tool_name,
            target(&parameters, root).as_deref(),
        )),
        _ => None,
    }
}
