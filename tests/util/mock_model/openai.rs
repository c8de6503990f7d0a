//! The mock's OpenAI endpoints: strict structured outputs checked, Responses (the receipt, or a
//! function call Codex runs), Chat Completions (aider through litellm), streamed or not.

use super::*;

/// OpenAI strict structured outputs: what `schema` breaks, with its place (empty: none).
pub(crate) fn openai_strict_problems(schema: &Value, at: &str, root: bool) -> Vec<String> {
    let mut found = Vec::new();
    let Some(map) = schema.as_object() else {
        return found;
    };
    if root && map.get("type") != Some(&json!("object")) {
        found.push(format!(
            "{at}: schema must be a JSON Schema of 'type: \"object\"'"
        ));
    }
    if root && map.contains_key("anyOf") {
        found.push(format!("{at}: 'anyOf' is not permitted at the root"));
    }
    for key in [
        "oneOf",
        "allOf",
        "not",
        "if",
        "then",
        "else",
        "minLength",
        "maxLength",
        "pattern",
        "minimum",
        "maximum",
        "minItems",
        "maxItems",
        "const",
        "contains",
        "$schema",
    ] {
        if map.contains_key(key) {
            found.push(format!("{at}: '{key}' is not permitted"));
        }
    }
    if let Some(props) = map.get("properties").and_then(Value::as_object) {
        if map.get("additionalProperties") != Some(&json!(false)) {
            found.push(format!(
                "{at}: 'additionalProperties' is required to be supplied and to be false"
            ));
        }
        let required: Vec<&str> = map
            .get("required")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for (name, sub) in props {
            if !required.contains(&name.as_str()) {
                found.push(format!(
                    "{at}: 'required' is required to be supplied and to be an array including \
                     every key in properties. Missing '{name}'"
                ));
            }
            found.extend(openai_strict_problems(sub, &format!("{at}.{name}"), false));
        }
    }
    if let Some(items) = map.get("items") {
        found.extend(openai_strict_problems(items, &format!("{at}[]"), false));
    }
    if let Some(any) = map.get("anyOf").and_then(Value::as_array) {
        for s in any {
            found.extend(openai_strict_problems(s, at, false));
        }
    }
    found
}

/// OpenAI Responses: strict `text.format` checked, then the receipt as the output text.
pub(super) fn responses(body: &Value, rule: Option<&Rule>) -> Answer {
    let format = &body["text"]["format"];
    if format["type"] == json!("json_schema") && format["strict"] == json!(true) {
        let problems = openai_strict_problems(&format["schema"], "context=()", true);
        if let Some(first) = problems.first() {
            return (
                400,
                "application/json",
                json!({"error": {"message": format!("Invalid schema for response_format '{}': \
                    In {first}.", format["name"].as_str().unwrap_or("schema")),
                    "type": "invalid_request_error", "param": "text.format.schema",
                    "code": "invalid_json_schema"}})
                .to_string(),
            );
        }
    }
    if let Some(e) = error_of(rule) {
        return e;
    }
    let answered = body["input"]
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter(|i| i["type"] == json!("function_call_output"))
                .count()
        })
        .unwrap_or(0);
    if let Some(Reply::CallsThen(calls, _)) = rule.map(|r| &r.reply)
        && let Some((name, args)) = calls.get(answered)
    {
        return responses_call(body, answered, name, args);
    }
    let text = receipt_of(rule).to_string();
    let item = json!({"id": "msg_mock", "type": "message", "role": "assistant",
        "status": "completed", "content": [{"type": "output_text", "text": text,
        "annotations": []}]});
    let resp = json!({"id": "resp_mock", "object": "response", "created_at": 0,
        "status": "in_progress", "model": body["model"], "output": []});
    let mut done = resp.clone();
    done["status"] = json!("completed");
    done["output"] = json!([item]);
    done["usage"] = json!({"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 10, "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 20});
    let mut added = item.clone();
    added["status"] = json!("in_progress");
    added["content"] = json!([]);
    sse(&[
        (
            Some("response.created"),
            json!({"type": "response.created", "response": resp}),
        ),
        (
            Some("response.output_item.added"),
            json!({"type": "response.output_item.added", "output_index": 0, "item": added}),
        ),
        (
            Some("response.output_text.delta"),
            json!({"type": "response.output_text.delta", "item_id": "msg_mock",
                "output_index": 0, "content_index": 0, "delta": text}),
        ),
        (
            Some("response.output_item.done"),
            json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
        ),
        (
            Some("response.completed"),
            json!({"type": "response.completed", "response": done}),
        ),
    ])
}

/// OpenAI Responses: a reasoning summary, then one function call (Codex runs it and sends back
/// a `function_call_output`).
fn responses_call(body: &Value, n: usize, name: &str, args: &Value) -> Answer {
    let reasoning = json!({"id": format!("rs_mock_{n}"), "type": "reasoning", "summary": [
        {"type": "summary_text", "text": format!("**Looking around, step {}**", n + 1)}]});
    let call = json!({"id": format!("fc_mock_{n}"), "type": "function_call",
        "status": "completed", "call_id": format!("call_mock_{n}"), "name": name,
        "arguments": args.to_string()});
    let resp = json!({"id": format!("resp_mock_{n}"), "object": "response", "created_at": 0,
        "status": "in_progress", "model": body["model"], "output": []});
    let mut done = resp.clone();
    done["status"] = json!("completed");
    done["output"] = json!([reasoning, call]);
    done["usage"] = json!({"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 10, "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 20});
    let mut events = vec![(
        Some("response.created"),
        json!({"type": "response.created", "response": resp}),
    )];
    for (i, item) in [reasoning, call].into_iter().enumerate() {
        events.push((
            Some("response.output_item.added"),
            json!({"type": "response.output_item.added", "output_index": i, "item": item}),
        ));
        events.push((
            Some("response.output_item.done"),
            json!({"type": "response.output_item.done", "output_index": i, "item": item}),
        ));
    }
    events.push((
        Some("response.completed"),
        json!({"type": "response.completed", "response": done}),
    ));
    sse(&events)
}

/// Chat Completions (aider through litellm), streamed or not.
pub(super) fn chat(body: &Value, rule: Option<&Rule>) -> Answer {
    if let Some(e) = error_of(rule) {
        return e;
    }
    let text = receipt_of(rule).to_string();
    let usage = json!({"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20});
    if body["stream"] == json!(true) {
        let base = json!({"id": "chatcmpl-mock", "object": "chat.completion.chunk",
            "created": 0, "model": body["model"]});
        let mut first = base.clone();
        first["choices"] = json!([{"index": 0, "delta": {"role": "assistant", "content": text},
            "finish_reason": null}]);
        let mut last = base;
        last["choices"] = json!([{"index": 0, "delta": {}, "finish_reason": "stop"}]);
        last["usage"] = usage;
        let (status, kind, mut payload) = sse(&[(None, first), (None, last)]);
        payload.push_str("data: [DONE]\n\n");
        return (status, kind, payload);
    }
    (
        200,
        "application/json",
        json!({"id": "chatcmpl-mock", "object": "chat.completion", "created": 0,
            "model": body["model"], "usage": usage, "choices": [{"index": 0,
            "finish_reason": "stop", "message": {"role": "assistant", "content": text}}]})
        .to_string(),
    )
}
