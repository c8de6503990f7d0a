//! The mock's Anthropic Messages endpoint: the documented tool `input_schema` rules, then a
//! scripted answer (SSE).

use super::*;

/// Anthropic Messages: the documented tool `input_schema` rules, then a scripted answer.
pub(super) fn anthropic(body: &Value, rule: Option<&Rule>) -> Answer {
    let tools = body["tools"].as_array().cloned().unwrap_or_default();
    for (i, tool) in tools.iter().enumerate() {
        let Some(schema) = tool.get("input_schema") else {
            continue;
        };
        let problem = if ["oneOf", "allOf", "anyOf"]
            .iter()
            .any(|k| schema.get(k).is_some())
        {
            Some(format!(
                "tools.{i}.custom.input_schema: input_schema does not support oneOf, allOf, or \
                 anyOf at the top level"
            ))
        } else if schema.get("type") != Some(&json!("object")) {
            Some(format!(
                "tools.{i}.custom.input_schema.type: Field required"
            ))
        } else {
            None
        };
        if let Some(message) = problem {
            return (
                400,
                "application/json",
                json!({"type": "error", "error": {"type": "invalid_request_error",
                    "message": message}})
                .to_string(),
            );
        }
    }
    if let Some(e) = error_of(rule) {
        return e;
    }
    let structured = tools.iter().any(|t| t["name"] == json!("StructuredOutput"));
    let after_tool = body["messages"]
        .as_array()
        .and_then(|m| m.last())
        .and_then(|m| m["content"].as_array())
        .is_some_and(|c| c.iter().any(|b| b["type"] == json!("tool_result")));
    let blocks: Vec<Value> = body["messages"]
        .as_array()
        .map(|m| {
            m.iter()
                .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
                .collect()
        })
        .unwrap_or_default();
    let answered = blocks
        .iter()
        .filter(|b| b["type"] == json!("tool_result"))
        .count();
    let structured_called = blocks
        .iter()
        .any(|b| b["type"] == json!("tool_use") && b["name"] == json!("StructuredOutput"));
    let call = match rule.map(|r| &r.reply) {
        Some(Reply::CallsThen(calls, _)) if !structured_called => calls.get(answered),
        _ => None,
    };
    let usage = json!({"input_tokens": 10, "output_tokens": 10});
    let mut events = vec![(
        Some("message_start"),
        json!({"type": "message_start", "message": {"id": "msg_mock", "type": "message",
            "role": "assistant", "model": body["model"], "content": [], "stop_reason": null,
            "stop_sequence": null, "usage": usage}}),
    )];
    let stop = if let Some((name, args)) = call {
        let mut index = 0;
        if answered == 0 {
            events.push((
                Some("content_block_start"),
                json!({"type": "content_block_start", "index": 0,
                    "content_block": {"type": "thinking", "thinking": "", "signature": ""}}),
            ));
            events.push((
                Some("content_block_delta"),
                json!({"type": "content_block_delta", "index": 0, "delta": {
                    "type": "thinking_delta", "thinking": "Let me look at the code first."}}),
            ));
            events.push((
                Some("content_block_delta"),
                json!({"type": "content_block_delta", "index": 0, "delta": {
                    "type": "signature_delta", "signature": "bW9jaw=="}}),
            ));
            events.push((
                Some("content_block_stop"),
                json!({"type": "content_block_stop", "index": 0}),
            ));
            index = 1;
        }
        events.push((
            Some("content_block_start"),
            json!({"type": "content_block_start", "index": index, "content_block": {
                "type": "tool_use", "id": format!("toolu_mock_{answered}"), "name": name,
                "input": {}}}),
        ));
        events.push((
            Some("content_block_delta"),
            json!({"type": "content_block_delta", "index": index, "delta": {
                "type": "input_json_delta", "partial_json": args.to_string()}}),
        ));
        events.push((
            Some("content_block_stop"),
            json!({"type": "content_block_stop", "index": index}),
        ));
        events.push((
            Some("message_delta"),
            json!({"type": "message_delta", "delta": {"stop_reason": "tool_use",
                "stop_sequence": null}, "usage": {"output_tokens": 10}}),
        ));
        events.push((Some("message_stop"), json!({"type": "message_stop"})));
        return sse(&events);
    } else if structured && !structured_called {
        events.push((
            Some("content_block_start"),
            json!({"type": "content_block_start", "index": 0, "content_block": {
                "type": "tool_use", "id": "toolu_mock", "name": "StructuredOutput", "input": {}}}),
        ));
        events.push((
            Some("content_block_delta"),
            json!({"type": "content_block_delta", "index": 0, "delta": {
                "type": "input_json_delta", "partial_json": receipt_of(rule).to_string()}}),
        ));
        "tool_use"
    } else {
        let text = if after_tool {
            "Done.".to_string()
        } else {
            receipt_of(rule).to_string()
        };
        events.push((
            Some("content_block_start"),
            json!({"type": "content_block_start", "index": 0,
                "content_block": {"type": "text", "text": ""}}),
        ));
        events.push((
            Some("content_block_delta"),
            json!({"type": "content_block_delta", "index": 0,
                "delta": {"type": "text_delta", "text": text}}),
        ));
        "end_turn"
    };
    events.push((
        Some("content_block_stop"),
        json!({"type": "content_block_stop", "index": 0}),
    ));
    events.push((
        Some("message_delta"),
        json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null},
            "usage": {"output_tokens": 10}}),
    ));
    events.push((Some("message_stop"), json!({"type": "message_stop"})));
    sse(&events)
}
