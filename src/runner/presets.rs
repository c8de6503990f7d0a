//! Presets for real agent CLIs (Claude Code, Codex, Gemini CLI, aider): how each is started
//! read-only with structured output, and how its receipt is extracted from what it prints.
//!
//! Not for: checking the receipt (that is `receipt`), or starting the process (`dispatch`).

use std::ffi::OsStr;
use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{ReceiptFrom, RunnerSpec};
use crate::error::Result;
use crate::receipt::{ReceiptError, extract_from_stdout, sanitize_line};

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

/// Extract the receipt JSON text from a runner's stdout, per preset (its envelope first, then
/// exactly one JSON object, optionally in one fenced block).
pub fn extract(preset: Option<&str>, stdout: &str) -> Result<String, ReceiptError> {
    match preset {
        Some("claude") => extract_from_stdout(&claude_envelope(stdout)?),
        Some("codex") => extract_from_stdout(&codex_events(stdout)?),
        Some("gemini") => extract_from_stdout(&gemini_envelope(stdout)?),
        // aider and custom runners print plain text.
        _ => extract_from_stdout(stdout),
    }
}

/// At most this many characters of a CLI's own error text go into a message.
const EXCERPT_CHARS: usize = 300;

fn excerpt(text: &str) -> String {
    let line = sanitize_line(text.trim()).0;
    let mut short: String = line.chars().take(EXCERPT_CHARS).collect();
    if line.chars().count() > EXCERPT_CHARS {
        short.push('…');
    }
    short
}

/// The one JSON object a CLI printed as its envelope: the whole output, or else the last
/// top-level object in it (some versions print a warning line before it).
fn envelope(
    cli: &str,
    flag: &str,
    stdout: &str,
) -> Result<serde_json::Map<String, Value>, ReceiptError> {
    if stdout.len() > crate::receipt::MAX_STDOUT_BYTES {
        return Err(ReceiptError::OutputTooLarge {
            size: stdout.len(),
            max: crate::receipt::MAX_STDOUT_BYTES,
        });
    }
    let not_envelope = || {
        ReceiptError::Invalid(format!(
            "{cli} printed no JSON envelope on stdout (expected one object from `{flag}`); it \
             printed: {}",
            if stdout.trim().is_empty() {
                "nothing".to_string()
            } else {
                excerpt(stdout)
            }
        ))
    };
    if let Ok(Value::Object(map)) = serde_json::from_str::<Value>(stdout.trim()) {
        return Ok(map);
    }
    let start = stdout
        .match_indices('{')
        .map(|(i, _)| i)
        .filter(|&i| i == 0 || stdout.as_bytes()[i - 1] == b'\n')
        .rev()
        .find(|&i| {
            let mut values = serde_json::Deserializer::from_str(&stdout[i..]).into_iter::<Value>();
            matches!(values.next(), Some(Ok(Value::Object(_))))
        })
        .ok_or_else(not_envelope)?;
    match serde_json::Deserializer::from_str(&stdout[start..])
        .into_iter::<Value>()
        .next()
    {
        Some(Ok(Value::Object(map))) => Ok(map),
        _ => Err(not_envelope()),
    }
}

/// Claude Code `--output-format json`: `{subtype, is_error, result, structured_output, …}`.
fn claude_envelope(stdout: &str) -> Result<String, ReceiptError> {
    let env = envelope("Claude Code", "--output-format json", stdout)?;
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
            "Claude Code reported an error (is_error, subtype {}): {}",
            if subtype.is_empty() { "none" } else { subtype },
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
            kind(other)
        ))),
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Codex `exec --json`: JSONL events; the receipt is the text of the last `agent_message` item.
fn codex_events(stdout: &str) -> Result<String, ReceiptError> {
    if stdout.len() > crate::receipt::MAX_STDOUT_BYTES {
        return Err(ReceiptError::OutputTooLarge {
            size: stdout.len(),
            max: crate::receipt::MAX_STDOUT_BYTES,
        });
    }
    let mut events = 0usize;
    let mut message: Option<String> = None;
    let mut failed: Option<String> = None;
    let mut last_error: Option<String> = None;
    for line in stdout.lines() {
        let Ok(Value::Object(event)) = serde_json::from_str::<Value>(line.trim()) else {
            continue;
        };
        events += 1;
        let message_of = |v: Option<&Value>| {
            v.and_then(|v| v.get("message"))
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        match event.get("type").and_then(Value::as_str) {
            Some("item.completed") => {
                let item = event.get("item");
                let item_type = item.and_then(|i| i.get("type")).and_then(Value::as_str);
                // `error` items are warnings such as "Model metadata … not found": not the answer.
                if item_type == Some("agent_message") {
                    message = item
                        .and_then(|i| i.get("text"))
                        .and_then(Value::as_str)
                        .map(str::to_string);
                }
            }
            Some("turn.failed") => {
                failed =
                    Some(message_of(event.get("error")).unwrap_or_else(|| "no message".into()));
            }
            // Top-level errors are often retries ("Reconnecting…"); they matter only without an answer.
            Some("error") => {
                last_error = event
                    .get("message")
                    .and_then(Value::as_str)
                    .map(str::to_string)
            }
            _ => {}
        }
    }
    if let Some(reason) = failed {
        return Err(ReceiptError::Invalid(format!(
            "Codex reported a failed turn (turn.failed): {}",
            excerpt(&reason)
        )));
    }
    match (message, last_error) {
        (Some(text), _) => Ok(text),
        (None, Some(error)) => Err(ReceiptError::Invalid(format!(
            "Codex ended without an agent message; its last error: {}",
            excerpt(&error)
        ))),
        (None, None) if events == 0 => Err(ReceiptError::Invalid(format!(
            "Codex printed no JSON events on stdout (expected JSONL from `codex exec --json`); it \
             printed: {}",
            if stdout.trim().is_empty() {
                "nothing".into()
            } else {
                excerpt(stdout)
            }
        ))),
        (None, None) => Err(ReceiptError::Missing(
            "the final agent_message of Codex's --json events (the turn ended without one)".into(),
        )),
    }
}

/// Gemini CLI `--output-format json`: `{session_id, response, stats}` or `{…, error}`.
fn gemini_envelope(stdout: &str) -> Result<String, ReceiptError> {
    let env = envelope("Gemini CLI", "--output-format json", stdout)?;
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
            kind(other)
        ))),
    }
}

/// How long `interview runners` waits for `<cli> --version`.
pub const VERSION_TIMEOUT: Duration = Duration::from_secs(5);

/// `interview runners`.
pub fn list() -> Result<i32> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    print!("{}", render_list(&path, VERSION_TIMEOUT));
    Ok(0)
}

/// The text of `interview runners` for a given PATH.
pub fn render_list(path_var: &OsStr, timeout: Duration) -> String {
    let mut out = String::from(
        "Runners (choose with --runner NAME, or runner = \"NAME\" in interview.toml):\n\n",
    );
    out.push_str(&format!(
        "builtin  embedded, version {}\n         runs: interview runner builtin\n\n",
        env!("CARGO_PKG_VERSION")
    ));
    for preset in PRESETS {
        let status = match find_on_path(preset.program, path_var) {
            None => format!("not installed ({} not found on PATH)", preset.program),
            Some(found) => format!(
                "installed at {}, version {}",
                sanitize_line(&found.display().to_string()).0,
                version_of(&found, timeout)
            ),
        };
        let spec = preset.spec();
        out.push_str(&format!(
            "{:<8} {status}\n         runs: {}\n         brief: {}; receipt: printed on stdout; flags checked with {} {}\n\n",
            preset.name,
            shell_words(&spec.argv),
            if spec.brief_on_stdin {
                "on stdin"
            } else {
                "as {brief}, stdin null"
            },
            preset.program,
            preset.checked
        ));
    }
    out.push_str(
        "Placeholders are filled in each turn: {schema} (receipt JSON Schema file), {schema_text} \
         (its text), {out} (the turn's out dir), {brief} (the brief file).\n",
    );
    out
}

fn shell_words(argv: &[String]) -> String {
    argv.iter()
        .map(|a| {
            shlex::try_quote(a)
                .map(|q| q.into_owned())
                .unwrap_or_else(|_| format!("{a:?}"))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Find `program` in `path_var` the way a shell would, but only in absolute directories: an
/// empty or relative entry would name a directory of the repository, and nothing from the
/// repository is ever run.
pub fn find_on_path(program: &str, path_var: &OsStr) -> Option<PathBuf> {
    std::env::split_paths(path_var)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(program))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    std::fs::metadata(path)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// The first line `<program> --version` prints, sanitised; waits at most `timeout`, with stdin
/// null and its own process group (killed whole when it does not answer in time).
pub fn version_of(program: &Path, timeout: Duration) -> String {
    match run_version(program, timeout) {
        Ok(v) => v,
        Err(why) => format!("unknown ({why})"),
    }
}

fn run_version(program: &Path, timeout: Duration) -> std::result::Result<String, String> {
    // A file, not a pipe: a grandchild that keeps the pipe open could not make us wait.
    let mut captured = tempfile::tempfile().map_err(|e| format!("no temporary file: {e}"))?;
    let writer = captured
        .try_clone()
        .map_err(|e| format!("no temporary file: {e}"))?;
    let mut child = Command::new(program)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .map_err(|e| format!("cannot start it: {e}"))?;
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() < timeout => {
                std::thread::sleep(Duration::from_millis(20))
            }
            Ok(None) | Err(_) => {
                kill_group(child.id());
                let _ = child.wait();
                return Err(format!(
                    "no answer to --version within {} s",
                    timeout.as_secs_f32()
                ));
            }
        }
    };
    // Whatever it left running in its group goes too.
    kill_group(child.id());
    let mut text = String::new();
    use std::io::Seek;
    captured
        .seek(std::io::SeekFrom::Start(0))
        .map_err(|e| format!("cannot read its output: {e}"))?;
    let mut bytes = Vec::new();
    captured
        .take(4096)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read its output: {e}"))?;
    text.push_str(&String::from_utf8_lossy(&bytes));
    let first = text.lines().map(str::trim).find(|l| !l.is_empty());
    match (first, status.success()) {
        (Some(line), true) => Ok(excerpt(line)),
        (_, false) => Err(format!("--version failed with {status}")),
        (None, true) => Err("--version printed nothing".into()),
    }
}

fn kill_group(pid: u32) {
    if let Ok(pid) = i32::try_from(pid) {
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
}
