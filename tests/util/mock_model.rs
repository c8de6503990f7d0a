//! A loopback mock of the model services the agent CLIs talk to, as strict as the real ones where
//! it matters: it refuses a structured-output schema the way the service does (Anthropic: an
//! `input_schema` that is not an object or has `oneOf`/`anyOf`/`allOf` at the top; OpenAI strict
//! mode: optional properties, open objects, `oneOf`/`allOf`/`not`/`if`, limits), and answers with
//! a scripted receipt otherwise.
//!
//! Endpoints: Anthropic Messages (`POST /v1/messages`, SSE), OpenAI Responses (`POST
//! /v1/responses`, SSE), OpenAI Chat Completions (`POST /v1/chat/completions`, aider through
//! litellm), Gemini (`POST /v1beta/models/M:streamGenerateContent`, SSE). It binds 127.0.0.1 on
//! a free port and lives as long as the value.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

/// One answer of the script: the first rule whose `when` occurs in the request body answers.
#[derive(Debug, Clone)]
pub(crate) struct Rule {
    pub when: Option<String>,
    pub reply: Reply,
}

#[derive(Debug, Clone)]
pub(crate) enum Reply {
    /// The receipt: a `StructuredOutput` call for Claude Code, the final text for the others.
    Receipt(Value),
    /// Call these tools (name, args) one at a time first, each once its previous one has been
    /// answered, then answer with the receipt (Anthropic: a thought before the first call;
    /// OpenAI Responses: a reasoning summary before each).
    CallsThen(Vec<(String, Value)>, Value),
    /// Fail the request with this HTTP status and message.
    Error(u16, String),
}

/// One request the mock received.
#[derive(Debug, Clone)]
pub(crate) struct Request {
    pub method: String,
    pub path: String,
    pub body: String,
    /// The status the mock answered with.
    pub status: u16,
}

pub(crate) struct MockModel {
    pub port: u16,
    requests: Arc<Mutex<Vec<Request>>>,
    stop: Arc<AtomicBool>,
}

impl MockModel {
    pub(crate) fn start(rules: Vec<Rule>) -> MockModel {
        MockModel::start_slow(rules, Duration::ZERO)
    }

    /// As [`MockModel::start`], answering each model request only after `delay` (a model that
    /// takes its time, so what the CLI streams meanwhile can be watched).
    pub(crate) fn start_slow(rules: Vec<Rule>, delay: Duration) -> MockModel {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let port = listener.local_addr().unwrap().port();
        listener.set_nonblocking(true).unwrap();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (log, halt) = (requests.clone(), stop.clone());
        let rules = Arc::new(rules);
        std::thread::spawn(move || {
            // Bounded: at most 10 minutes, then it stops by itself.
            let until = std::time::Instant::now() + Duration::from_secs(600);
            while !halt.load(Ordering::SeqCst) && std::time::Instant::now() < until {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let (log, rules) = (log.clone(), rules.clone());
                        std::thread::spawn(move || serve(stream, &rules, &log, delay));
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(10)),
                }
            }
        });
        MockModel {
            port,
            requests,
            stop,
        }
    }

    pub(crate) fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub(crate) fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }

    /// `METHOD path` of every request, for messages.
    pub(crate) fn summary(&self) -> Vec<String> {
        self.requests()
            .iter()
            .map(|r| format!("{} {} -> {}", r.method, r.path, r.status))
            .collect()
    }

    /// Requests whose path starts with `prefix`.
    pub(crate) fn count(&self, prefix: &str) -> usize {
        self.requests()
            .iter()
            .filter(|r| r.path.starts_with(prefix))
            .count()
    }
}

impl Drop for MockModel {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

fn serve(stream: TcpStream, rules: &[Rule], log: &Mutex<Vec<Request>>, delay: Duration) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let Some(HttpRequest {
        method, path, body, ..
    }) = read_request(&stream)
    else {
        return;
    };
    let body = String::from_utf8_lossy(&body).into_owned();
    let parsed: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    let rule = rules
        .iter()
        .find(|r| r.when.as_ref().is_none_or(|w| body.contains(w.as_str())));
    let route = path.split('?').next().unwrap_or("");
    if method == "POST" {
        std::thread::sleep(delay);
    }
    let (status, kind, payload) = if method != "POST" {
        (404, "application/json", "{}".to_string())
    } else if route.ends_with("/messages") {
        anthropic(&parsed, rule)
    } else if route.ends_with("/responses") {
        responses(&parsed, rule)
    } else if route.ends_with("/chat/completions") {
        chat(&parsed, rule)
    } else if route.contains(":streamGenerateContent") || route.contains(":generateContent") {
        gemini(&parsed, rule, route.contains(":stream"))
    } else if route.contains(":countTokens") {
        (
            200,
            "application/json",
            json!({"totalTokens": 10}).to_string(),
        )
    } else {
        (404, "application/json", "{}".to_string())
    };
    log.lock().unwrap().push(Request {
        method: method.clone(),
        path: path.clone(),
        body: body.clone(),
        status,
    });
    let mut out = stream;
    let reason = if status == 200 { "OK" } else { "Error" };
    let _ = write!(
        out,
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{payload}",
        payload.len()
    );
    let _ = out.flush();
}

type Answer = (u16, &'static str, String);

fn sse(events: &[(Option<&str>, Value)]) -> Answer {
    let mut text = String::new();
    for (name, data) in events {
        if let Some(name) = name {
            text.push_str(&format!("event: {name}\n"));
        }
        text.push_str(&format!("data: {data}\n\n"));
    }
    (200, "text/event-stream", text)
}

fn error_of(rule: Option<&Rule>) -> Option<Answer> {
    match rule.map(|r| &r.reply) {
        Some(Reply::Error(status, message)) => Some((
            *status,
            "application/json",
            json!({"type": "error", "error": {"type": "api_error", "message": message}})
                .to_string(),
        )),
        _ => None,
    }
}

fn receipt_of(rule: Option<&Rule>) -> Value {
    match rule.map(|r| &r.reply) {
        Some(Reply::Receipt(v)) | Some(Reply::CallsThen(_, v)) => v.clone(),
        _ => json!({"note": "no rule matched"}),
    }
}

/// Anthropic Messages: the documented tool `input_schema` rules, then a scripted answer.
fn anthropic(body: &Value, rule: Option<&Rule>) -> Answer {
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
fn responses(body: &Value, rule: Option<&Rule>) -> Answer {
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
fn chat(body: &Value, rule: Option<&Rule>) -> Answer {
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

/// Gemini: the scripted tool calls first (until a function response comes back), then the text.
fn gemini(body: &Value, rule: Option<&Rule>, stream: bool) -> Answer {
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

#[test]
fn the_mock_refuses_the_published_receipt_schema_as_each_service_does() {
    let published: Value = serde_json::from_str(interview::testing::SCHEMA).unwrap();
    let (status, _, body) = anthropic(
        &json!({"tools": [{"name": "StructuredOutput", "input_schema": published}]}),
        None,
    );
    assert_eq!(status, 400);
    assert!(body.contains("does not support oneOf"), "{body}");
    let (status, _, body) = responses(
        &json!({"text": {"format": {"type": "json_schema", "strict": true, "name": "s",
            "schema": published}}}),
        None,
    );
    assert_eq!(status, 400);
    assert!(body.contains("invalid_json_schema"), "{body}");
}

#[test]
fn the_mock_accepts_the_wire_schema_of_each_family() {
    use interview::testing::{Family, schema};
    let (status, _, body) = anthropic(
        &json!({"tools": [{"name": "StructuredOutput", "input_schema": schema(Family::Anthropic)}]}),
        None,
    );
    assert_eq!(status, 200, "{body}");
    assert!(
        openai_strict_problems(&schema(Family::OpenAi), "$", true).is_empty(),
        "{:?}",
        openai_strict_problems(&schema(Family::OpenAi), "$", true)
    );
}

/// `strict` in the wire form: both forms' fields, the other form's and omitted ones `null`.
pub(crate) fn wire(strict: &str) -> Value {
    let mut v: Value = serde_json::from_str(strict).unwrap();
    for key in ["questions", "title", "summary", "entries"] {
        if v.get(key).is_none() {
            v[key] = Value::Null;
        }
    }
    if let Some(qs) = v["questions"].as_array_mut() {
        for q in qs {
            for key in ["options", "recommended"] {
                if q.get(key).is_none() {
                    q[key] = Value::Null;
                }
            }
        }
    }
    if let Some(es) = v["entries"].as_array_mut() {
        for e in es {
            if e.get("sources").is_none() {
                e["sources"] = Value::Null;
            }
        }
    }
    v
}

/// One HTTP/1.1 request as a mock server reads it.
pub(crate) struct HttpRequest {
    pub method: String,
    pub path: String,
    /// The `Authorization` header's value, empty when there is none.
    pub authorization: String,
    /// The body, by `Content-Length` or chunked.
    pub body: Vec<u8>,
}

/// Read one request from `stream`; `None` when the client sent nothing.
pub(crate) fn read_request(stream: &TcpStream) -> Option<HttpRequest> {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return None;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or("").to_string();
    let path = parts.next().unwrap_or("").to_string();
    let (mut length, mut chunked, mut authorization) = (0usize, false, String::new());
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).unwrap_or(0) == 0 || header == "\r\n" {
            break;
        }
        let lower = header.to_ascii_lowercase();
        if let Some(v) = lower.strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
        if lower.starts_with("transfer-encoding:") && lower.contains("chunked") {
            chunked = true;
        }
        if lower.starts_with("authorization:") {
            authorization = header["authorization:".len()..].trim().to_string();
        }
    }
    let mut body = Vec::new();
    if chunked {
        loop {
            let mut size = String::new();
            if reader.read_line(&mut size).unwrap_or(0) == 0 {
                break;
            }
            let n = usize::from_str_radix(size.trim().split(';').next().unwrap_or("0"), 16)
                .unwrap_or(0);
            let mut chunk = vec![0; n + 2];
            if n == 0 || reader.read_exact(&mut chunk).is_err() {
                break;
            }
            body.extend_from_slice(&chunk[..n]);
        }
    } else {
        body.resize(length, 0);
        let _ = reader.read_exact(&mut body);
    }
    Some(HttpRequest {
        method,
        path,
        authorization,
        body,
    })
}
