//! What a CLI reports besides its receipt: its own error message when a turn fails, and the
//! tokens and cost of the turn where it says them (see `docs/runners.md`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::envelope::{excerpt, extract};
use crate::receipt::ReceiptError;

/// Tokens and cost of one turn, as the CLI reported them (absent when it did not).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Usage {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
}

impl Usage {
    pub(crate) fn is_empty(&self) -> bool {
        self == &Usage::default()
    }

    /// `12 in / 34 out tokens, $0.0100` (the parts that are known).
    pub(crate) fn summary(&self) -> String {
        let mut parts = Vec::new();
        match (self.input_tokens, self.output_tokens) {
            (Some(i), Some(o)) => parts.push(format!("{i} in / {o} out tokens")),
            (Some(i), None) => parts.push(format!("{i} tokens in")),
            (None, Some(o)) => parts.push(format!("{o} tokens out")),
            (None, None) => {}
        }
        if let Some(c) = self.cost_usd {
            parts.push(format!("${c:.4}"));
        }
        parts.join(", ")
    }

    /// Add another turn's usage (a part stays unknown only when unknown in both).
    pub(crate) fn add(&mut self, other: &Usage) {
        let sum = |a: Option<u64>, b: Option<u64>| match (a, b) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0) + b.unwrap_or(0)),
        };
        self.input_tokens = sum(self.input_tokens, other.input_tokens);
        self.output_tokens = sum(self.output_tokens, other.output_tokens);
        self.cost_usd = match (self.cost_usd, other.cost_usd) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
        };
    }
}

/// The tokens and cost a preset's CLI printed for the turn (`None` without a preset or when it
/// printed none).
pub(crate) fn usage(preset: Option<&str>, stdout: &str) -> Option<Usage> {
    let usage = (super::preset(preset?)?.usage)(stdout)?;
    (!usage.is_empty()).then_some(usage)
}

/// The error a CLI run as a custom command printed as JSON (an envelope with `is_error`, a
/// `turn.failed` or `error` event, an `error` object), the latest one in `log`.
pub(crate) fn json_error(log: &str) -> Option<String> {
    log.lines().rev().take(200).find_map(|line| {
        let Ok(Value::Object(map)) = serde_json::from_str::<Value>(line.trim()) else {
            return None;
        };
        let kind = map.get("type").and_then(Value::as_str).unwrap_or("");
        let said = if map.get("is_error").and_then(Value::as_bool) == Some(true) {
            map.get("result").and_then(Value::as_str)
        } else if kind == "turn.failed" || kind == "error" || map.contains_key("error") {
            map.get("error")
                .and_then(|e| e.get("message").or(Some(e)))
                .and_then(Value::as_str)
                .or_else(|| map.get("message").and_then(Value::as_str))
        } else {
            None
        };
        said.filter(|s| !s.trim().is_empty()).map(excerpt)
    })
}

/// What the runner itself said about a failed turn: a preset's error from its envelope or
/// events, else the last line of its output (from `runner.log`), sanitised and shortened.
pub(crate) fn said_on_failure(preset: Option<&str>, stdout: &str, log: &str) -> Option<String> {
    if preset.is_some() {
        for text in [stdout, log] {
            match extract(preset, text) {
                Err(ReceiptError::Invalid(message)) if !message.contains("printed no JSON") => {
                    return Some(message.trim_start_matches("receipt: ").to_string());
                }
                _ => {}
            }
        }
    }
    let last = log
        .lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with("[interview:"))?;
    // A JSON line (a CLI's envelope or event): its message, not its first 300 characters.
    if let Ok(Value::Object(map)) = serde_json::from_str::<Value>(last) {
        let said = map
            .get("error")
            .and_then(|e| e.get("message").or(Some(e)))
            .and_then(Value::as_str)
            .or_else(|| map.get("message").and_then(Value::as_str))
            .or_else(|| map.get("result").and_then(Value::as_str));
        if let Some(said) = said.filter(|s| !s.trim().is_empty()) {
            return Some(excerpt(said));
        }
    }
    Some(excerpt(last))
}

#[cfg(test)]
mod tests {
    use super::*;

    macro_rules! recorded {
        ($file:literal) => {
            include_str!(concat!("../../../fixtures/cli-outputs/", $file))
        };
    }

    #[test]
    fn claude_usage_is_its_tokens_and_total_cost() {
        let u = usage(Some("claude"), recorded!("claude-structured.json")).unwrap();
        assert_eq!(u.input_tokens, Some(10));
        assert_eq!(u.output_tokens, Some(10));
        assert!((u.cost_usd.unwrap() - 0.0003).abs() < 1e-9);
        assert_eq!(u.summary(), "10 in / 10 out tokens, $0.0003");
    }

    #[test]
    fn codex_usage_is_the_sum_of_its_completed_turns() {
        let u = usage(Some("codex"), recorded!("codex-plain.jsonl")).unwrap();
        assert_eq!(
            (u.input_tokens, u.output_tokens, u.cost_usd),
            (Some(10), Some(10), None)
        );
    }

    #[test]
    fn gemini_usage_is_its_models_prompt_and_candidates_tokens() {
        let u = usage(Some("gemini"), recorded!("gemini-plain.json")).unwrap();
        assert_eq!((u.input_tokens, u.output_tokens), (Some(10), Some(10)));
    }

    #[test]
    fn stream_json_usage_is_read_from_the_last_result_event() {
        let claude = usage(
            Some("claude"),
            include_str!("../../../fixtures/cli-outputs/claude-stream.jsonl"),
        )
        .unwrap();
        assert_eq!(claude.output_tokens, Some(30));
        assert_eq!(claude.cost_usd, Some(0.00072));
        let gemini = usage(
            Some("gemini"),
            include_str!("../../../fixtures/cli-outputs/gemini-stream.jsonl"),
        )
        .unwrap();
        assert_eq!(
            (gemini.input_tokens, gemini.output_tokens),
            (Some(30), Some(30))
        );
    }

    #[test]
    fn aider_usage_is_read_from_its_token_lines() {
        let u = usage(Some("aider"), recorded!("aider-fenced.txt")).unwrap();
        assert_eq!((u.input_tokens, u.output_tokens), (Some(10), Some(10)));
        let u = super::super::aider::usage(
            "Tokens: 1.2k sent, 50 received. Cost: $0.01 message, $0.02 session.\n",
        )
        .unwrap();
        assert_eq!(u.input_tokens, Some(1200));
        assert_eq!(u.output_tokens, Some(50));
        assert_eq!(u.cost_usd, Some(0.01));
    }

    #[test]
    fn no_usage_without_a_preset_or_a_report() {
        assert_eq!(usage(None, "Tokens: 1 sent, 1 received."), None);
        assert_eq!(usage(Some("claude"), "nothing"), None);
    }

    #[test]
    fn a_failed_claude_turn_says_the_servers_message() {
        let said =
            said_on_failure(Some("claude"), recorded!("claude-server-error.json"), "").unwrap();
        assert!(said.contains("API Error: 400"), "{said}");
    }

    #[test]
    fn a_failed_codex_turn_says_its_turn_failed_message() {
        let said =
            said_on_failure(Some("codex"), recorded!("codex-server-error.jsonl"), "").unwrap();
        assert!(said.contains("answered 400"), "{said}");
    }

    #[test]
    fn a_failed_gemini_turn_says_the_error_it_printed_on_stderr() {
        let log = recorded!("gemini-server-error.stderr.json");
        let said = said_on_failure(Some("gemini"), "", log).unwrap();
        assert!(said.contains("Gemini CLI reported an error"), "{said}");
        assert!(said.contains("answered 400"), "{said}");
    }

    #[test]
    fn a_cli_run_as_a_command_says_its_json_error() {
        let log = "{\"type\":\"thread.started\"}\n{\"type\":\"turn.failed\",\"error\":{\"message\":\"Invalid schema\"}}\n{\"type\":\"done\"}\n";
        assert_eq!(json_error(log).as_deref(), Some("Invalid schema"));
        let envelope = recorded!("claude-server-error.json");
        assert!(json_error(envelope).unwrap().contains("API Error: 400"));
        assert_eq!(
            json_error("{\"type\":\"item.completed\"}\nplain text\n"),
            None
        );
    }

    #[test]
    fn a_failed_script_says_its_last_line_sanitised() {
        let log = "working\nerror: no API key \u{1b}[31mset\u{1b}[0m\n\n[interview: output capped at 1 bytes; 2 more bytes dropped]\n";
        let said = said_on_failure(None, "", log).unwrap();
        assert!(said.starts_with("error: no API key"), "{said}");
        assert!(!said.contains('\u{1b}'), "{said:?}");
        assert_eq!(said_on_failure(None, "", "\n\n"), None);
        let envelope = r#"{"type":"result","is_error":true,"usage":{"input_tokens":0},"result":"API Error: 400 no"}"#;
        assert_eq!(
            said_on_failure(None, "", envelope).as_deref(),
            Some("API Error: 400 no")
        );
        let event = r#"{"type":"turn.failed","error":{"message":"invalid_json_schema"}}"#;
        assert_eq!(
            said_on_failure(None, "", event).as_deref(),
            Some("invalid_json_schema")
        );
    }
}
