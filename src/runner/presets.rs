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
    let mut tries = 0;
    let mut child = loop {
        let out = writer
            .try_clone()
            .map_err(|e| format!("no temporary file: {e}"))?;
        match Command::new(program)
            .arg("--version")
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
        {
            Ok(child) => break child,
            // ETXTBSY: the program is being written (an update in progress); try again shortly.
            Err(e) if e.raw_os_error() == Some(nix::libc::ETXTBSY) && tries < 5 => {
                tries += 1;
                std::thread::sleep(Duration::from_millis(50));
            }
            Err(e) => return Err(format!("cannot start it: {e}")),
        }
    };
    drop(writer);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::receipt::{CheckContext, parse_and_check};
    use std::collections::BTreeSet;

    /// Outputs recorded from the real CLIs against tests/e2e/mock_model.py (tests/e2e/record.sh).
    macro_rules! recorded {
        ($file:literal) => {
            include_str!(concat!("../../fixtures/cli-outputs/", $file))
        };
    }

    const ASK: &str = r#"{"receipt":"ask","version":1,"questions":[{"topic":"deployment_target","question_text":"Where will this service run?","severity":7,"options":[{"label":"Kubernetes","value":"k8s"},{"label":"One VM","value":"vm"}],"recommended":"k8s"}]}"#;

    fn json(text: &str) -> Value {
        serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
    }

    /// The extracted text is the recorded receipt, and the real checks accept it.
    fn assert_receipt(preset: &str, output: &str) {
        let text = extract(Some(preset), output).unwrap_or_else(|e| panic!("{preset}: {e}"));
        assert_eq!(json(&text), json(ASK), "{preset}");
        let none = BTreeSet::new();
        let dir = tempfile::tempdir().unwrap();
        let ctx = CheckContext {
            final_turn: false,
            asked_topics: &none,
            answered_topics: &none,
            repo_root: dir.path(),
        };
        parse_and_check(&text, &ctx).unwrap_or_else(|e| panic!("{preset}: {e}"));
    }

    fn error_of(preset: &str, output: &str) -> ReceiptError {
        match extract(Some(preset), output) {
            Ok(text) => panic!("{preset}: expected an error, got {text}"),
            Err(e) => e,
        }
    }

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

    #[test]
    fn claude_structured_output_is_the_receipt() {
        assert_receipt("claude", recorded!("claude-structured.json"));
    }

    #[test]
    fn claude_success_without_structured_output_is_a_missing_receipt_even_with_json_in_the_text() {
        let err = error_of("claude", recorded!("claude-text-only.json"));
        assert!(matches!(err, ReceiptError::Missing(_)), "{err:?}");
        assert!(err.to_string().contains("structured_output"), "{err}");
    }

    #[test]
    fn claude_exhausted_schema_retries_is_an_error_naming_the_subtype() {
        let err = error_of("claude", recorded!("claude-schema-retries.json"));
        assert!(
            err.to_string()
                .contains("error_max_structured_output_retries"),
            "{err}"
        );
        assert!(err.to_string().contains("5 attempts"), "{err}");
    }

    #[test]
    fn claude_is_error_wins_over_subtype_success() {
        let text = recorded!("claude-unreachable.json");
        assert_eq!(json(text)["subtype"], "success");
        let err = error_of("claude", text);
        assert!(err.to_string().contains("is_error"), "{err}");
        assert!(err.to_string().contains("Unable to connect"), "{err}");
    }

    #[test]
    fn claude_api_error_is_reported_with_the_servers_message() {
        let err = error_of("claude", recorded!("claude-server-error.json"));
        assert!(err.to_string().contains("API Error: 400"), "{err}");
    }

    #[test]
    fn claude_envelope_after_a_warning_line_is_found() {
        let text = format!(
            "warning: something\n{}",
            recorded!("claude-structured.json")
        );
        assert_receipt("claude", &text);
    }

    #[test]
    fn claude_output_without_an_envelope_is_an_error_quoting_it() {
        let err = error_of("claude", "Error: Invalid API key\n");
        assert!(err.to_string().contains("no JSON envelope"), "{err}");
        assert!(err.to_string().contains("Invalid API key"), "{err}");
    }

    #[test]
    fn claude_structured_output_that_is_not_an_object_is_rejected() {
        let err = error_of(
            "claude",
            r#"{"type":"result","subtype":"success","is_error":false,"structured_output":"{}"}"#,
        );
        assert!(err.to_string().contains("a string, not an object"), "{err}");
    }

    #[test]
    fn claude_other_subtypes_are_errors() {
        let err = error_of(
            "claude",
            r#"{"type":"result","subtype":"error_max_turns","is_error":false,"num_turns":31}"#,
        );
        assert!(err.to_string().contains("error_max_turns"), "{err}");
    }

    #[test]
    fn codex_final_agent_message_is_the_receipt_and_the_metadata_warning_is_ignored() {
        let text = recorded!("codex-plain.jsonl");
        assert!(text.contains("Model metadata for"));
        assert_receipt("codex", text);
    }

    #[test]
    fn codex_receipt_in_a_fenced_block_with_prose_is_found() {
        assert_receipt("codex", recorded!("codex-fenced.jsonl"));
    }

    #[test]
    fn codex_message_with_two_objects_is_rejected() {
        let err = error_of("codex", recorded!("codex-two.jsonl"));
        assert!(
            matches!(err, ReceiptError::SeveralObjectsInOutput { count: 2, .. }),
            "{err:?}"
        );
    }

    #[test]
    fn codex_message_in_prose_only_has_no_object() {
        let err = error_of("codex", recorded!("codex-prose.jsonl"));
        assert_eq!(err, ReceiptError::NoObjectInOutput);
    }

    #[test]
    fn codex_failed_turn_is_an_error_with_its_message() {
        let err = error_of("codex", recorded!("codex-server-error.jsonl"));
        assert!(err.to_string().contains("turn.failed"), "{err}");
        assert!(err.to_string().contains("answered 400"), "{err}");
    }

    #[test]
    fn codex_retrying_without_an_answer_reports_its_last_error() {
        let err = error_of("codex", recorded!("codex-unreachable.jsonl"));
        assert!(
            err.to_string().contains("without an agent message"),
            "{err}"
        );
        assert!(err.to_string().contains("Reconnecting"), "{err}");
    }

    #[test]
    fn codex_output_without_events_is_an_error() {
        let err = error_of("codex", "");
        assert!(err.to_string().contains("no JSON events"), "{err}");
    }

    #[test]
    fn codex_events_without_a_message_are_a_missing_receipt() {
        let err = error_of(
            "codex",
            "{\"type\":\"thread.started\"}\n{\"type\":\"turn.completed\"}\n",
        );
        assert!(matches!(err, ReceiptError::Missing(_)), "{err:?}");
    }

    #[test]
    fn codex_last_agent_message_wins() {
        let text = format!(
            "{}\n{}\n",
            r#"{"type":"item.completed","item":{"id":"a","type":"agent_message","text":"Let me look."}}"#,
            serde_json::json!({"type":"item.completed","item":{"id":"b","type":"agent_message","text":ASK}})
        );
        assert_receipt("codex", &text);
    }

    #[test]
    fn gemini_response_is_the_receipt() {
        assert_receipt("gemini", recorded!("gemini-plain.json"));
    }

    #[test]
    fn gemini_fenced_response_with_prose_is_found() {
        assert_receipt("gemini", recorded!("gemini-fenced.json"));
    }

    #[test]
    fn gemini_error_envelope_is_an_error_with_its_message() {
        let err = error_of("gemini", recorded!("gemini-server-error.stderr.json"));
        assert!(
            err.to_string().contains("Gemini CLI reported an error"),
            "{err}"
        );
        assert!(err.to_string().contains("answered 400"), "{err}");
    }

    #[test]
    fn gemini_envelope_without_response_is_a_missing_receipt() {
        let err = error_of("gemini", r#"{"session_id":"x","stats":{}}"#);
        assert!(matches!(err, ReceiptError::Missing(_)), "{err:?}");
    }

    #[test]
    fn aider_fenced_receipt_among_its_banner_and_token_lines_is_found() {
        assert_receipt("aider", recorded!("aider-fenced.txt"));
    }

    #[test]
    fn aider_text_with_two_objects_is_rejected() {
        let err = error_of("aider", recorded!("aider-two.txt"));
        assert!(
            matches!(err, ReceiptError::SeveralObjectsInOutput { count: 2, .. }),
            "{err:?}"
        );
    }

    #[test]
    fn aider_api_error_has_no_object() {
        let err = error_of("aider", recorded!("aider-server-error.txt"));
        assert_eq!(err, ReceiptError::NoObjectInOutput);
    }

    #[test]
    fn a_custom_runner_prints_plain_text() {
        let text = format!("thinking…\n```json\n{ASK}\n```\n");
        assert_eq!(json(&extract(None, &text).unwrap()), json(ASK));
    }

    #[test]
    fn an_oversized_envelope_is_refused_before_parsing() {
        let big = " ".repeat(crate::receipt::MAX_STDOUT_BYTES + 1);
        for preset in ["claude", "codex", "gemini", "aider"] {
            let err = error_of(preset, &big);
            assert!(
                matches!(err, ReceiptError::OutputTooLarge { .. }),
                "{preset}: {err:?}"
            );
        }
    }

    #[test]
    fn cli_error_text_is_sanitised_and_shortened_in_messages() {
        let long = format!("\u{1b}]52;c;AAAA\u{7}evil {}", "x".repeat(1000));
        let env = serde_json::json!({"subtype":"success","is_error":true,"result":long});
        let err = error_of("claude", &env.to_string()).to_string();
        assert!(!err.contains('\u{1b}'), "{err:?}");
        assert!(err.chars().count() < 500, "{}", err.len());
    }

    #[test]
    fn path_search_skips_relative_and_empty_entries() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        let exe = bin.join("claude");
        std::fs::write(&exe, "#!/bin/sh\necho 1.0\n").unwrap();
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
        let cwd = std::env::current_dir().unwrap();
        let relative = pathdiff(&bin, &cwd);
        let only_relative = format!("{}::.", relative.display());
        assert_eq!(find_on_path("claude", OsStr::new(&only_relative)), None);
        let absolute = format!(":{}", bin.display());
        assert_eq!(find_on_path("claude", OsStr::new(&absolute)), Some(exe));
    }

    /// `to` relative to `from` (both absolute), through `..` components.
    fn pathdiff(to: &Path, from: &Path) -> PathBuf {
        let mut rel = PathBuf::new();
        for _ in from.components().skip(1) {
            rel.push("..");
        }
        rel.join(to.strip_prefix("/").unwrap())
    }

    #[test]
    fn path_search_skips_files_that_are_not_executable() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("codex"), "not a program").unwrap();
        assert_eq!(find_on_path("codex", dir.path().as_os_str()), None);
    }

    fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    }

    #[test]
    fn version_is_the_first_line_printed() {
        let dir = tempfile::tempdir().unwrap();
        let p = script(dir.path(), "gemini", "printf '\\n0.61.0\\nmore\\n'");
        assert_eq!(version_of(&p, Duration::from_secs(5)), "0.61.0");
    }

    #[test]
    fn a_version_that_does_not_come_in_time_is_unknown_and_its_group_is_killed() {
        let dir = tempfile::tempdir().unwrap();
        let pidfile = dir.path().join("pid");
        let p = script(
            dir.path(),
            "claude",
            &format!("sleep 30 & echo $! > {}; wait", pidfile.display()),
        );
        let started = Instant::now();
        let v = version_of(&p, Duration::from_millis(500));
        assert!(
            v.starts_with("unknown (no answer to --version within"),
            "{v}"
        );
        assert!(started.elapsed() < Duration::from_secs(5));
        let pid: i32 = std::fs::read_to_string(&pidfile)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        std::thread::sleep(Duration::from_millis(100));
        let alive = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map(|s| {
                !s.rsplit(')')
                    .next()
                    .unwrap_or("")
                    .trim_start()
                    .starts_with('Z')
            })
            .unwrap_or(false);
        assert!(!alive, "the sleeping grandchild {pid} survived");
    }

    #[test]
    fn a_failing_version_is_unknown() {
        let dir = tempfile::tempdir().unwrap();
        let p = script(dir.path(), "aider", "echo oops; exit 3");
        let v = version_of(&p, Duration::from_secs(5));
        assert!(v.starts_with("unknown (--version failed"), "{v}");
    }

    #[test]
    fn the_list_with_nothing_installed_says_so_for_every_preset() {
        let dir = tempfile::tempdir().unwrap();
        let text = render_list(dir.path().as_os_str(), Duration::from_secs(1));
        for p in PRESETS {
            assert!(
                text.contains(&format!(
                    "{:<8} not installed ({} not found on PATH)",
                    p.name, p.program
                )),
                "{text}"
            );
        }
        assert!(text.contains("builtin  embedded"), "{text}");
    }
}
