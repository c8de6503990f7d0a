//! What an agent CLI is doing now, read from one line of the events it streams on stdout
//! (Claude Code `stream-json`, Codex `exec --json`, Gemini CLI `stream-json`), in a few words
//! for the progress line: "reading src/export.rs", "searching for `ProjectList`", "running rg
//! …", "thinking" (see `docs/person.md`).
//!
//! Only shown, never trusted: a line that is not an event of the family says nothing, and the
//! words are sanitised by the progress line like any runner text. Not for: the receipt (that
//! is `envelope`, which reads the whole output after the CLI ended).

use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use crate::ask::progress::tool_activity;

/// How a preset's CLI streams its events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Events {
    /// Claude Code `--output-format stream-json --verbose`.
    Claude,
    /// Codex `exec --json`.
    Codex,
    /// Gemini CLI `--output-format stream-json`.
    Gemini,
}

/// The words for one line of the CLI's stdout, or `None` when it says nothing new (not an
/// event, not JSON, an event that changes nothing). A path inside `root` is shown relative to
/// it.
pub fn words(events: Events, line: &[u8], root: &Path) -> Option<String> {
    let line = std::str::from_utf8(line).ok()?.trim();
    if !line.starts_with('{') {
        return None;
    }
    match events {
        Events::Claude => claude(serde_json::from_str(line).ok()?, root),
        Events::Codex => codex(serde_json::from_str(line).ok()?),
        Events::Gemini => gemini(serde_json::from_str(line).ok()?, root),
    }
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
    Text {},
    ToolUse {
        name: String,
        #[serde(default)]
        input: Value,
    },
    #[serde(other)]
    Other,
}

fn claude(event: ClaudeEvent, root: &Path) -> Option<String> {
    match event {
        ClaudeEvent::System { subtype } if subtype == "thinking_tokens" => Some("thinking".into()),
        ClaudeEvent::System { .. } | ClaudeEvent::Other => None,
        // The last block says what it does now.
        ClaudeEvent::Assistant { message } => match message.content.last()? {
            ClaudeBlock::Thinking {} | ClaudeBlock::RedactedThinking {} => Some("thinking".into()),
            ClaudeBlock::Text {} => Some("writing".into()),
            ClaudeBlock::ToolUse { name, input } => {
                Some(tool_activity(name, target(input, root).as_deref()))
            }
            ClaudeBlock::Other => None,
        },
    }
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

fn codex(event: CodexEvent) -> Option<String> {
    let (item, started) = match event {
        CodexEvent::TurnStarted => return Some("thinking".into()),
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
fn unwrap_shell(command: &str) -> String {
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

// Gemini CLI: `{"type":"tool_use","tool_name":"read_file","parameters":{"file_path":"/abs/x"}}`,
// `{"type":"message","role":"assistant","content":"…","delta":true}`.

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum GeminiEvent {
    Message {
        #[serde(default)]
        role: String,
    },
    ToolUse {
        tool_name: String,
        #[serde(default)]
        parameters: Value,
    },
    #[serde(other)]
    Other,
}

fn gemini(event: GeminiEvent, root: &Path) -> Option<String> {
    match event {
        GeminiEvent::Message { role } if role == "assistant" => Some("writing".into()),
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

/// What a tool call works on, from its input: a pattern, a path (relative to `root` when
/// inside it), a command, a query or an address, the first of those it has.
fn target(input: &Value, root: &Path) -> Option<String> {
    const PATHS: &[&str] = &[
        "file_path",
        "absolute_path",
        "notebook_path",
        "path",
        "dir_path",
    ];
    const OTHERS: &[&str] = &["command", "query", "url", "description"];
    let text = |key: &&str| input.get(*key).and_then(Value::as_str);
    // A search in a directory: the pattern is what it looks for.
    if let Some(pattern) = text(&"pattern") {
        return Some(pattern.to_string());
    }
    if let Some(path) = PATHS.iter().find_map(text) {
        return Some(relative(path, root));
    }
    OTHERS.iter().find_map(text).map(str::to_string)
}

/// `path` relative to `root` when it is inside it (`.` for the root itself).
fn relative(path: &str, root: &Path) -> String {
    match Path::new(path).strip_prefix(root) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".into(),
        Ok(rel) => rel.display().to_string(),
        Err(_) => path.to_string(),
    }
}

#[cfg(test)]
mod tests;
