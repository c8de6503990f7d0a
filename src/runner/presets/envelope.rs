//! Taking the receipt out of what a preset's CLI printed: its JSON envelope or events first,
//! then exactly one JSON object (see `docs/runners.md` and `docs/receipt.md`).

use serde_json::Value;

use crate::error::Result;
use crate::receipt::{
    Attempt, MAX_STDOUT_BYTES, ReceiptError, Search, extract_from_stdout, sanitize_line,
};

/// Extract the receipt JSON text from a runner's stdout, per preset (its envelope first, then
/// exactly one JSON object, optionally in one fenced block).
pub(crate) fn extract(preset: Option<&str>, stdout: &str) -> Result<String, ReceiptError> {
    match preset.and_then(super::preset).and_then(|p| p.envelope) {
        Some(unwrap) => extract_from_stdout(&unwrap(stdout)?),
        // A CLI that prints plain text (aider), and custom runners.
        None => extract_from_stdout(stdout),
    }
}

/// At most this many characters of a CLI's own error text go into a message.
const EXCERPT_CHARS: usize = 300;

pub(super) fn excerpt(text: &str) -> String {
    let line = sanitize_line(text.trim()).0;
    let mut short: String = line.chars().take(EXCERPT_CHARS).collect();
    if line.chars().count() > EXCERPT_CHARS {
        short.push('…');
    }
    short
}

/// The one JSON object a CLI printed as its envelope: the whole output, or else the last
/// top-level object in it (some versions print a warning line before it).
pub(super) fn only_envelope(
    cli: &str,
    flag: &str,
    stdout: &str,
) -> Result<serde_json::Map<String, Value>, ReceiptError> {
    within_limit(stdout)?;
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
    last_object(stdout).ok_or_else(not_envelope)
}

/// The whole text as one JSON object, or else the last object that starts a line. The search
/// from the end is bounded (see [`Search`]): a text of unfinished objects gives `None`.
pub(super) fn last_object(text: &str) -> Option<serde_json::Map<String, Value>> {
    if let Ok(Value::Object(map)) = serde_json::from_str::<Value>(text.trim()) {
        return Some(map);
    }
    let mut search = Search::new(text);
    for start in text
        .match_indices('{')
        .map(|(i, _)| i)
        .filter(|&i| i == 0 || text.as_bytes()[i - 1] == b'\n')
        .rev()
    {
        match search.value_at::<Value>(start) {
            Attempt::Value(Value::Object(map), _) => return Some(map),
            Attempt::Value(..) | Attempt::Failed { .. } => {}
            Attempt::OverBudget => return None,
        }
    }
    None
}

/// The last line of `stdout` that is a JSON object whose `type` is `kind` (a stream's final
/// event).
pub(super) fn last_event(stdout: &str, kind: &str) -> Option<serde_json::Map<String, Value>> {
    stdout.lines().rev().find_map(|line| {
        let line = line.trim();
        if !line.starts_with('{') {
            return None;
        }
        match serde_json::from_str::<Value>(line) {
            Ok(Value::Object(map)) if map.get("type").and_then(Value::as_str) == Some(kind) => {
                Some(map)
            }
            _ => None,
        }
    })
}

/// A CLI's whole standard output is refused past the protocol's limit, before it is parsed.
pub(super) fn within_limit(stdout: &str) -> Result<(), ReceiptError> {
    if stdout.len() > MAX_STDOUT_BYTES {
        return Err(ReceiptError::OutputTooLarge {
            size: stdout.len(),
            max: MAX_STDOUT_BYTES,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::receipt::{CheckContext, parse_and_check};
    use std::collections::BTreeSet;

    /// Outputs recorded from the real CLIs against tests/e2e/mock_model.py (tests/e2e/record.sh).
    macro_rules! recorded {
        ($file:literal) => {
            include_str!(concat!("../../../fixtures/cli-outputs/", $file))
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
        with_first_turn_context(|ctx| {
            parse_and_check(&text, ctx).unwrap_or_else(|e| panic!("{preset}: {e}"));
        });
    }

    /// `check` given the context of a first turn, nothing asked yet, in an empty repository.
    fn with_first_turn_context(check: impl FnOnce(&CheckContext)) {
        let none = BTreeSet::new();
        let dir = tempfile::tempdir().unwrap();
        let ctx = CheckContext {
            final_turn: false,
            asked_topics: &none,
            answered_topics: &none,
            repo_root: dir.path(),
            work_item: None,
        };
        check(&ctx);
    }

    fn error_of(preset: &str, output: &str) -> ReceiptError {
        match extract(Some(preset), output) {
            Ok(text) => panic!("{preset}: expected an error, got {text}"),
            Err(e) => e,
        }
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
        // Said in words: no internal field name.
        assert!(err.to_string().contains("reported an error"), "{err}");
        assert!(!err.to_string().contains("is_error"), "{err}");
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

    /// The extracted text is the recorded receipt in its wire form, and the real checks
    /// accept it.
    fn assert_wire_receipt(preset: &str, output: &str) {
        let text = extract(Some(preset), output).unwrap_or_else(|e| panic!("{preset}: {e}"));
        with_first_turn_context(|ctx| {
            let (receipt, _) =
                crate::receipt::parse_and_check_as(&text, ctx, crate::receipt::Form::Wire)
                    .unwrap_or_else(|e| panic!("{preset}: {e}"));
            let (strict, _) = crate::receipt::parse_and_check(ASK, ctx).unwrap();
            assert_eq!(receipt, strict, "{preset}");
        });
    }

    #[test]
    fn claude_stream_json_receipt_is_the_structured_output_of_its_last_result_event() {
        let text = recorded!("claude-stream.jsonl");
        assert!(text.lines().count() > 5, "a stream of events");
        assert_wire_receipt("claude", text);
    }

    #[test]
    fn claude_stream_json_api_error_is_reported_with_the_servers_message() {
        let err = error_of("claude", recorded!("claude-stream-server-error.jsonl"));
        assert!(err.to_string().contains("API Error: 400"), "{err}");
    }

    #[test]
    fn claude_stream_json_without_a_result_event_is_an_error() {
        let text: String = recorded!("claude-stream.jsonl")
            .lines()
            .filter(|l| !l.contains(r#""type":"result""#))
            .map(|l| format!("{l}\n"))
            .collect();
        assert!(extract(Some("claude"), &text).is_err());
    }

    #[test]
    fn codex_stream_with_commands_and_reasoning_gives_the_final_message() {
        assert_wire_receipt("codex", recorded!("codex-stream.jsonl"));
    }

    #[test]
    fn gemini_stream_json_receipt_is_what_the_model_said_around_its_tool_calls() {
        let text = recorded!("gemini-stream.jsonl");
        assert!(text.contains(r#""type":"tool_use""#));
        assert_receipt("gemini", text);
    }

    #[test]
    fn gemini_stream_json_error_result_is_an_error_with_its_message() {
        let err = error_of("gemini", recorded!("gemini-stream-server-error.jsonl"));
        assert!(
            err.to_string().contains("Gemini CLI reported an error"),
            "{err}"
        );
        assert!(err.to_string().contains("API Error"), "{err}");
        assert!(err.to_string().contains("invalid_request_error"), "{err}");
    }

    #[test]
    fn gemini_stream_json_assistant_chunks_are_joined_and_prose_around_is_allowed() {
        let chunks: Vec<String> = ["Here it is:\n", &ASK[..40], &ASK[40..]]
            .iter()
            .map(|c| {
                serde_json::json!({"type":"message","role":"assistant","content":c,"delta":true})
                    .to_string()
            })
            .collect();
        let text = format!(
            "{}\n{}\n{}\n{}\n{}\n",
            r#"{"type":"init","session_id":"s","model":"m"}"#,
            chunks[0],
            chunks[1],
            chunks[2],
            r#"{"type":"result","status":"success","stats":{}}"#
        );
        assert_receipt("gemini", &text);
    }

    #[test]
    fn gemini_stream_json_without_an_answer_is_a_missing_receipt() {
        let err = error_of(
            "gemini",
            "{\"type\":\"init\"}\n{\"type\":\"result\",\"status\":\"success\"}\n",
        );
        assert!(matches!(err, ReceiptError::Missing(_)), "{err:?}");
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
    fn aider_output_wrapped_at_80_columns_is_named_as_a_broken_string() {
        // Recorded before the preset widened aider's terminal: two receipts, each wrapped inside
        // its strings. That is the error to report, not the small objects the wrapping left whole.
        let err = error_of("aider", recorded!("aider-two.txt"));
        let ReceiptError::Json { line, reason, .. } = &err else {
            panic!("{err:?}");
        };
        assert_eq!(*line, 11, "{err}");
        assert!(reason.contains("raw line break inside a string"), "{err}");
    }

    #[test]
    fn aider_text_with_two_objects_is_rejected() {
        let text = format!(
            "Aider v0.86.2\n\n{ASK}\n\nAnd again:\n{ASK}\n\nTokens: 10 sent, 10 received.\n"
        );
        let err = error_of("aider", &text);
        assert_eq!(
            err,
            ReceiptError::SeveralObjectsInOutput {
                count: 2,
                lines: vec![3, 6]
            }
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
        let big = " ".repeat(MAX_STDOUT_BYTES + 1);
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
}
