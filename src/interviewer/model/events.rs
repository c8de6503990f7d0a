//! What the model runner prints on stdout, one JSON object a line, and how the tool reads it
//! back: each request to the model, each tool call (for the progress line and the
//! transcript), notes, the usage of the turn and, last, the receipt. The runner writes no file
//! at all: this is its only output besides stderr.
//!
//! Not for: the receipt's checks (the session runs them, as for every runner).

use serde::{Deserialize, Serialize};

/// One line of the model runner's stdout.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub(crate) enum Event {
    /// A request to the model is under way (the `n`th of the turn).
    Request { n: u32 },
    /// A tool call, after it ran: its tool, its path or pattern, the bytes given back, and the
    /// error the model was told, if it was refused.
    ToolCall {
        tool: String,
        target: String,
        bytes: usize,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    /// Something the person should know (a fallback, a retry).
    Note { text: String },
    /// The tokens and cost of the turn, as the server reported them.
    Usage {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        input_tokens: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        output_tokens: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cost_usd: Option<f64>,
        requests: u32,
        tool_calls: usize,
    },
    /// The model's final answer: the receipt's text, as the model wrote it.
    Receipt { text: String },
}

impl Event {
    /// Print this event as one line on stdout (the runner's side).
    pub(crate) fn print(&self) {
        if let Ok(line) = serde_json::to_string(self) {
            let _ = crate::output::stdout(&format!("{line}\n"));
        }
    }

    /// The event on one line of stdout, if it is one (the tool's side).
    pub(crate) fn parse(line: &str) -> Option<Event> {
        serde_json::from_str(line.trim()).ok()
    }
}

/// The events a model runner printed (none for any other runner).
pub(crate) fn of_runner(preset: Option<&str>, stdout: &str) -> Vec<Event> {
    match preset {
        Some(name) if super::NAMES.contains(&name) => all(stdout),
        _ => Vec::new(),
    }
}

/// Every event in a runner's stdout, in order.
pub(crate) fn all(stdout: &str) -> Vec<Event> {
    stdout.lines().filter_map(Event::parse).collect()
}

/// The receipt the runner printed last.
pub(crate) fn receipt(stdout: &str) -> Option<String> {
    all(stdout).into_iter().rev().find_map(|e| match e {
        Event::Receipt { text } => Some(text),
        _ => None,
    })
}
