//! The mock's Gemini endpoint: the scripted tool calls first (until a function response comes
//! back), then the text.

use super::*;

/// Gemini: the scripted tool calls first (until a function response comes back), then the text.
pub(super) fn gemini(body: &Value, rule: Option<&Rule>, stream: bool) -> Answer {
    if let Some(e) = error_of(rule) {
        return e;
    }
    let answered = body["contents"]
        .as_array()
        .map(|c| {
            c.iter()
                .flat_map(|m| m["parts"].as_array().cloned().unwrap_or_default())
                .filter(|p| p.get("functionResponse").is_some())
                .count()
        })
        .unwrap_or(0);
    let parts = match rule.map(|r| &r.reply) {
        Some(Reply::CallsThen(calls, _)) if answered < calls.len() => {
            let (name, args) = &calls[answered];
            // `{plans_dir}`: the directory Gemini CLI named in an earlier refusal, as a model
            // would read it there.
            let text = body.to_string();
            let marker = "designated plans directory (";
            let args = match text.find(marker) {
                Some(at) => {
                    let rest = &text[at + marker.len()..];
                    let dir = &rest[..rest.find(')').unwrap_or(0)];
                    serde_json::from_str(&args.to_string().replace("{plans_dir}", dir))
                        .unwrap_or(args.clone())
                }
                None => args.clone(),
            };
            json!([{"functionCall": {"name": name, "args": args}}])
        }
        _ => json!([{"text": receipt_of(rule).to_string()}]),
    };
    let obj = json!({"candidates": [{"content": {"role": "model", "parts": parts},
        "finishReason": "STOP", "index": 0}], "usageMetadata": {"promptTokenCount": 10,
        "candidatesTokenCount": 10, "totalTokenCount": 20}, "modelVersion": "mock"});
    if stream {
        sse(&[(None, obj)])
    } else {
        (200, "application/json", obj.to_string())
    }
}
