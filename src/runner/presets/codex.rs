//! Codex: `codex exec --json` in its read-only sandbox, given the wire schema as a file; its
//! receipt is its last agent message. Everything that is Codex's own is here, and the
//! preset's sandbox handling below.
//!
//! Codex inside our sandbox: its commands run under our file-system rules and its network block.
//! Its own read-only sandbox cannot start there; where the replacement below cannot be made
//! safe, the person is told once that Codex runs no command.
//!
//! Codex runs every command its model asks for (and it reads the repository only through
//! commands: `cat`, `rg`, `sed`) in a sandbox of its own, built with bubblewrap: a user
//! namespace (a write to `/proc/self/uid_map`) and mounts. Landlock refuses both to every
//! process under a ruleset that restricts the file system — mount(2) in any namespace, and the
//! write to `/proc` — so inside ours Codex cannot start a single command ("error building
//! bubblewrap command: Permission denied"). Its `use_legacy_landlock` mode also refuses to
//! start ("filesystem-restricted execution requires bubblewrap"). Giving Codex full access
//! instead would also open the network to its commands.
//!
//! So where our sandbox has Landlock *and* its own mount namespace, `--sandbox read-only` is
//! replaced by a permission profile of Codex's config (`default_permissions`) that leaves the
//! file system to us and keeps the network closed: Codex then starts each command without
//! bubblewrap, under its seccomp filter that refuses network sockets, and our rules keep every
//! write out of the repository, git and HOME. Codex must write its state directory to work, and
//! a command must not (a setting planted in `config.toml` — an MCP server, a hook, a `notify`
//! program — would run the next time Codex starts outside any sandbox): in the mount namespace
//! `$CODEX_HOME` becomes a throwaway directory showing its entries read-only (see
//! `sandbox/linux/namespace.rs`), and `~/.cache` and `~/.npm` are not writable. Without the mount namespace
//! `/tmp` is shared, where Codex's app-server sockets live (bubblewrap would hide them): there,
//! and for Codex's other modes, the warning is given instead. See docs/sandbox.md.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use super::activity::tool_activity;
use super::envelope::{excerpt, within_limit};
use super::{Preset, Unfixable, Usage, unfixable_as};
use crate::protocol::wire::Family;
use crate::receipt::ReceiptError;
use crate::sandbox::hosts::Host;
use crate::sandbox::{Agent, Credential, Login, Nested};

pub(super) const PRESET: Preset = Preset {
    name: "codex",
    program: "codex",
    checked: "0.171.0",
    install: "npm install -g @openai/codex@0.171.0",
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
    events: Some(activity),
    envelope: Some(envelope),
    usage,
    policy: None,
    reads_files: false,
    agent: Agent {
        state: |_| home().into_iter().collect(),
        reads_repository_ignores: false,
        reads: |_| Vec::new(),
        credentials: |_| {
            home()
                .map(|h| Credential {
                    path: h.join("auth.json"),
                    login: LOGIN,
                })
                .into_iter()
                .collect()
        },
        nested: Some(Nested {
            within_ours,
            uses_own_sandbox,
            warning: WARNING,
            home,
        }),
        connects: None,
        variables: VARIABLES,
        hosts,
        // Its model providers (`base_url`), MCP servers, `notify` program, profiles.
        settings: |_| home().map(|h| h.join("config.toml")).into_iter().collect(),
    },
    unfixable,
};

/// Where Codex connects: the OpenAI API, ChatGPT's (a ChatGPT login's endpoint) and its login
/// host; `OPENAI_BASE_URL`'s host and every `base_url` of the person's `$CODEX_HOME/config.toml`
/// (their model providers).
const HOSTS: &[&str] = &["api.openai.com", "chatgpt.com", "auth.openai.com"];

fn hosts(_argv: &[String]) -> Vec<Host> {
    use crate::sandbox::hosts;
    let mut allowed = hosts::parse_all(HOSTS.iter().copied());
    allowed.extend(hosts::of_variables(&["OPENAI_BASE_URL"], |v| {
        std::env::var(v).ok()
    }));
    let config = home()
        .and_then(|h| crate::input::read_capped(&h.join("config.toml"), 1024 * 1024).ok())
        .and_then(|bytes| toml::from_str::<toml::Value>(&String::from_utf8_lossy(&bytes)).ok());
    fn urls(value: &toml::Value, out: &mut Vec<Host>) {
        match value {
            toml::Value::Table(table) => {
                for (key, v) in table {
                    match v.as_str() {
                        Some(url) if key.ends_with("base_url") => out.extend(Host::of_url(url)),
                        _ => urls(v, out),
                    }
                }
            }
            toml::Value::Array(items) => items.iter().for_each(|v| urls(v, out)),
            _ => {}
        }
    }
    if let Some(config) = &config {
        urls(config, &mut allowed);
    }
    allowed
}

/// Its failures a retry cannot fix: waiting for a network that is not there (its `error`
/// event, which it repeats until the turn times out), no state directory (`~/.codex` is made by
/// `codex login`; inside the sandbox it cannot be made), and its own usage error.
fn unfixable(line: &str) -> Option<Unfixable> {
    if let Ok(Value::Object(event)) = serde_json::from_str::<Value>(line) {
        let message = event.get("message").and_then(Value::as_str)?;
        return (event.get("type").and_then(Value::as_str) == Some("error")
            && message.contains("waiting for network"))
        .then(|| {
            unfixable_as(
                message,
                "Codex cannot reach its server (no network)",
                "connect this machine to the network (and leave `--network` at auto)",
            )
        })
        .flatten();
    }
    if line.starts_with("Error:") && line.contains("Read-only file system") {
        return unfixable_as(
            line,
            "Codex has no state directory (~/.codex, or $CODEX_HOME): it was never logged in here",
            "run `codex login`",
        );
    }
    let usage = [
        "error: unexpected argument",
        "error: invalid value",
        "error: the argument",
    ];
    usage
        .iter()
        .any(|u| line.starts_with(u))
        .then(|| {
            unfixable_as(
                line,
                "Codex refused its arguments",
                "check the arguments after `--` against `codex exec --help`",
            )
        })
        .flatten()
}

/// What the person is told of a login refreshed during an interview (sandbox/agent.rs).
const LOGIN: Login = Login {
    cli: "Codex",
    program: "codex",
    relogin: "run `codex login`",
};

/// What Codex reads of the environment: OpenAI's key, base URL, organization and project, and
/// its own home, key, token and settings (`CODEX_*`). A custom provider's `env_key` is added with
/// `runner_env` in `.interview/config.toml`.
const VARIABLES: &[&str] = &[
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_ORGANIZATION",
    "OPENAI_PROJECT",
    "CODEX_*",
];

/// Codex's state directory: `$CODEX_HOME`, or `~/.codex`.
fn home() -> Option<PathBuf> {
    match std::env::var_os("CODEX_HOME") {
        Some(dir) => Some(PathBuf::from(dir)),
        None => std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".codex")),
    }
}

/// Codex `exec --json`: JSONL events; the receipt is the text of the last `agent_message` item.
fn envelope(stdout: &str) -> Result<String, ReceiptError> {
    within_limit(stdout)?;
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

/// The tokens and cost it printed for the turn.
fn usage(stdout: &str) -> Option<Usage> {
    let u64_at = |v: &Value, key: &str| v.get(key).and_then(Value::as_u64);
    Some({
        let mut total = Usage::default();
        for line in stdout.lines() {
            let Ok(event) = serde_json::from_str::<Value>(line.trim()) else {
                continue;
            };
            if event.get("type").and_then(Value::as_str) == Some("turn.completed")
                && let Some(u) = event.get("usage")
            {
                total.add(&Usage {
                    input_tokens: u64_at(u, "input_tokens"),
                    output_tokens: u64_at(u, "output_tokens"),
                    cost_usd: None,
                });
            }
        }
        total
    })
}

// Codex: `{"type":"item.started","item":{"type":"command_execution","command":"/bin/bash -lc
// 'rg -n ProjectList'"}}`, `{"type":"item.completed","item":{"type":"reasoning","text":"…"}}`.

#[derive(Deserialize)]
#[serde(tag = "type")]
enum CodexEvent {
    #[serde(rename = "turn.started")]
    TurnStarted,
    #[serde(rename = "item.started")]
    ItemStarted { item: CodexItem },
    #[serde(rename = "item.updated")]
    ItemUpdated { item: CodexItem },
    #[serde(rename = "item.completed")]
    ItemCompleted { item: CodexItem },
    /// Often a retry of its own ("Reconnecting... 2/5 (…)").
    #[serde(rename = "error")]
    Error {
        #[serde(default)]
        message: String,
    },
    #[serde(other)]
    Other,
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum CodexItem {
    Reasoning {},
    AgentMessage {},
    CommandExecution {
        #[serde(default)]
        command: String,
    },
    FileChange {
        #[serde(default)]
        changes: Vec<CodexChange>,
    },
    McpToolCall {
        #[serde(default)]
        server: String,
        #[serde(default)]
        tool: String,
    },
    WebSearch {
        #[serde(default)]
        query: String,
    },
    TodoList {},
    #[serde(other)]
    Other,
}

#[derive(Deserialize)]
struct CodexChange {
    #[serde(default)]
    path: String,
}

/// What it is doing now, from one of its `exec --json` events.
pub(super) fn activity(line: &str, _root: &Path) -> Option<String> {
    let (item, started) = match serde_json::from_str(line).ok()? {
        CodexEvent::TurnStarted => return Some("thinking".into()),
        CodexEvent::Error { message } => return Some(format!("error: {message}")),
        CodexEvent::ItemStarted { item } | CodexEvent::ItemUpdated { item } => (item, true),
        CodexEvent::ItemCompleted { item } => (item, false),
        CodexEvent::Other => return None,
    };
    match item {
        CodexItem::Reasoning {} => Some("thinking".into()),
        CodexItem::AgentMessage {} => Some("writing its answer".into()),
        // A finished command is not what it does now.
        CodexItem::CommandExecution { command } if started => {
            Some(tool_activity("exec", Some(&unwrap_shell(&command))))
        }
        CodexItem::FileChange { changes } => {
            let first = changes.first().map(|c| c.path.as_str());
            Some(tool_activity("edit", first))
        }
        CodexItem::McpToolCall { server, tool } if started => {
            Some(tool_activity(&format!("{server}.{tool}"), None))
        }
        CodexItem::WebSearch { query } => Some(tool_activity("web_search", Some(&query))),
        CodexItem::TodoList {} => Some("planning".into()),
        _ => None,
    }
}

/// `rg -n X` for Codex's `/bin/bash -lc 'rg -n X'` (the command as the model wrote it).
pub(super) fn unwrap_shell(command: &str) -> String {
    match shlex::split(command).as_deref() {
        Some([shell, flag, script])
            if shell.rsplit('/').next().is_some_and(|s| s.ends_with("sh"))
                && flag.starts_with('-')
                && flag.ends_with('c') =>
        {
            script.clone()
        }
        _ => command.to_string(),
    }
}

/// The warning, once per run of the tool.
#[cfg(not(target_os = "macos"))]
pub(super) const WARNING: &str = "interview: warning: Codex cannot start its own sandbox inside \
this one (Landlock refuses the mounts bubblewrap needs), so it runs no command and reads no \
file of the repository; `--sandbox off` gives Codex its own read-only sandbox back (this tool \
then only detects changes), see docs/sandbox.md";
/// The warning on macOS: Seatbelt profiles do not nest, so Codex's own `sandbox-exec` fails
/// inside ours.
#[cfg(target_os = "macos")]
pub(super) const WARNING: &str = "interview: warning: Codex cannot start its own sandbox inside \
this one (a Seatbelt profile cannot be applied inside another), so it runs no command and reads \
no file of the repository; `--sandbox off` gives Codex its own read-only sandbox back (this \
tool then only detects changes), see docs/sandbox.md";

/// The name of the permission profile given to Codex.
pub(super) const PROFILE: &str = "interview-sandboxed";

/// The `-c` overrides that define and select the profile, replacing `--sandbox read-only`.
fn profile_args() -> Vec<String> {
    [
        format!("default_permissions=\"{PROFILE}\""),
        format!("permissions.{PROFILE}.filesystem={{\":root\"=\"write\"}}"),
        format!("permissions.{PROFILE}.network={{enabled=false}}"),
    ]
    .into_iter()
    .flat_map(|kv| ["-c".to_string(), kv])
    .collect()
}

/// `argv` (a Codex command line) with its read-only sandbox (`--sandbox read-only`,
/// `--sandbox=read-only`, `-s read-only`) replaced by the profile, when our sandbox confines
/// it with Landlock and a mount namespace. `None`: nothing to replace (another sandbox mode,
/// or none asked for), and the command line stays as it is.
fn within_ours(argv: &[String]) -> Option<Vec<String>> {
    let mut out = Vec::with_capacity(argv.len() + 4);
    let mut replaced = false;
    let mut i = 0;
    while i < argv.len() {
        let arg = argv[i].as_str();
        if arg == "--" {
            out.extend(argv[i..].iter().cloned());
            break;
        }
        let pair = (arg == "--sandbox" || arg == "-s")
            && argv.get(i + 1).is_some_and(|v| v == "read-only");
        if pair || arg == "--sandbox=read-only" {
            out.extend(profile_args());
            replaced = true;
            i += if pair { 2 } else { 1 };
            continue;
        }
        if arg == "--sandbox" || arg == "-s" || arg.starts_with("--sandbox=") {
            return None; // another mode: the person's choice, left alone
        }
        out.push(argv[i].clone());
        i += 1;
    }
    replaced.then_some(out)
}

/// Whether a Codex command line (`codex exec …`) starts its commands in Codex's own sandbox:
/// every mode but full access does.
fn uses_own_sandbox(argv: &[String]) -> bool {
    let mut args = argv.iter().skip(1).take_while(|a| *a != "--");
    let mut own = true;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--dangerously-bypass-approvals-and-sandbox" | "--yolo" => own = false,
            "--sandbox" | "-s" => own = args.next().is_none_or(|m| m != "danger-full-access"),
            a if a.starts_with("--sandbox=") => own = a != "--sandbox=danger-full-access",
            _ => {}
        }
    }
    own
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn every_mode_but_full_access_uses_codexs_own_sandbox() {
        for own in [
            &["codex", "exec", "--sandbox", "read-only"][..],
            &["codex", "exec", "--sandbox=workspace-write"][..],
            &["codex", "exec", "-s", "read-only"][..],
            &["codex", "exec", "--json"][..],
            &["codex", "exec", "--", "--sandbox", "danger-full-access"][..],
            &[
                "codex",
                "--sandbox",
                "danger-full-access",
                "-s",
                "read-only",
            ][..],
        ] {
            assert!(uses_own_sandbox(&argv(own)), "{own:?}");
        }
        for not in [
            &["codex", "exec", "--sandbox", "danger-full-access"][..],
            &["codex", "exec", "--sandbox=danger-full-access"][..],
            &[
                "codex",
                "exec",
                "--dangerously-bypass-approvals-and-sandbox",
            ][..],
        ] {
            assert!(!uses_own_sandbox(&argv(not)), "{not:?}");
        }
    }

    #[test]
    fn only_codex_under_landlock_is_warned_about() {
        // As the sandbox is given it: the CLI the command line starts.
        let warn_once = |argv: &[String], confined: bool| {
            let cli = super::super::by_program(argv).map(|p| p.agent);
            crate::sandbox::agent::warn_once(cli.as_ref(), argv, confined)
        };
        let codex = argv(&["/opt/bin/codex", "exec", "--sandbox", "read-only"]);
        assert!(warn_once(&codex, true));
        assert!(!warn_once(&codex, false));
        assert!(!warn_once(&argv(&["claude", "-p"]), true));
        assert!(!warn_once(
            &argv(&["codex", "exec", "--sandbox", "danger-full-access"]),
            true
        ));
    }

    #[test]
    fn the_read_only_mode_is_replaced_by_the_profile_in_each_spelling() {
        let profile = profile_args();
        for spelling in [
            &["--sandbox", "read-only"][..],
            &["--sandbox=read-only"][..],
            &["-s", "read-only"][..],
        ] {
            let mut given = argv(&["codex", "exec", "--json"]);
            given.extend(argv(spelling));
            given.extend(argv(&["--output-schema", "s.json"]));
            let mut want = argv(&["codex", "exec", "--json"]);
            want.extend(profile.iter().cloned());
            want.extend(argv(&["--output-schema", "s.json"]));
            assert_eq!(within_ours(&given), Some(want), "{spelling:?}");
        }
        assert!(
            profile
                .iter()
                .any(|a| a.contains("network={enabled=false}"))
        );
    }

    #[test]
    fn other_modes_and_the_prompt_are_left_alone() {
        for given in [
            argv(&["codex", "exec", "--sandbox", "danger-full-access"]),
            argv(&["codex", "exec", "--sandbox=workspace-write"]),
            argv(&["codex", "exec", "--json"]),
            argv(&["codex", "exec", "--", "--sandbox", "read-only"]),
            argv(&["codex", "exec", "--sandbox"]),
        ] {
            assert_eq!(within_ours(&given), None, "{given:?}");
        }
        // A mode given twice: the other one decides, nothing is replaced.
        assert_eq!(
            within_ours(&argv(&[
                "codex",
                "--sandbox",
                "read-only",
                "--sandbox",
                "danger-full-access"
            ])),
            None
        );
    }
}
