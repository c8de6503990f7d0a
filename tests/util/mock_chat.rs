//! A loopback mock of an OpenAI-compatible Chat Completions server for the model runner, as
//! strict as the real API where it matters: it refuses (400, the API's wording) an unknown
//! request field, a tool or `response_format` schema that breaks the strict rules, a tool
//! message that answers no call, an assistant's tool calls left unanswered, a wrong key. Each
//! valid request is answered by the next step of a script: tool calls, the receipt, plain text,
//! or an HTTP error. As llama.cpp's server does, it ignores `tools` in a request that also asks
//! for a `json_schema` response format: a scripted tool call is then skipped for the next
//! answer. One mock refuses tools, one refuses `json_schema`. Streams (SSE) when the request
//! asks for it. A paced mock answers each
//! request only when the test releases it. Binds 127.0.0.1 on a free port; stops by itself after
//! 10 minutes.

use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

use super::mock_model::{HttpRequest, openai_strict_problems, read_request};

/// The key the mock expects as `Authorization: Bearer …`.
pub(crate) const KEY: &str = "sk-test-mock";

/// One answer of the script.
#[derive(Debug, Clone)]
pub(crate) enum Step {
    /// Call these tools: (name, raw arguments text) — the text is sent as is, so a test can
    /// send malformed JSON.
    Calls(Vec<(String, String)>),
    /// The final message: this receipt, as JSON text.
    Receipt(Value),
    /// The final message: this text.
    Text(String),
    /// Fail with this status and message (`Retry-After: 0` on 429 and 5xx).
    Status(u16, String),
}

/// One request as received, and what was answered.
#[derive(Debug, Clone)]
pub(crate) struct Seen {
    pub body: Value,
    pub status: u16,
    /// Why the mock refused it, when it did.
    pub refused: Option<String>,
}

pub(crate) struct MockChat {
    port: u16,
    seen: Arc<Mutex<Vec<Seen>>>,
    stop: Arc<AtomicBool>,
    /// Lets a paced mock answer one more request.
    release: Option<Sender<()>>,
}

struct Script {
    steps: Vec<Step>,
    next: usize,
    /// Refuse any request that offers tools, as a server without tool support does.
    no_tools: bool,
    /// Refuse any request that asks for a `json_schema` response format.
    no_schema: bool,
    /// When paced, each answer waits for the test's release (a model that thinks until told).
    gate: Option<Receiver<()>>,
}

impl MockChat {
    pub(crate) fn start(steps: Vec<Step>) -> MockChat {
        MockChat::serve(steps, (false, false), None)
    }

    /// A server that refuses `tools` (400 "does not support tools").
    pub(crate) fn without_tools(steps: Vec<Step>) -> MockChat {
        MockChat::serve(steps, (true, false), None)
    }

    /// A server that refuses a `json_schema` response format (400, as some local servers do).
    pub(crate) fn without_schema(steps: Vec<Step>) -> MockChat {
        MockChat::serve(steps, (false, true), None)
    }

    /// A server that answers each request only after [`MockChat::release`], so a test sees what
    /// the tool shows while it waits, however loaded the machine.
    pub(crate) fn paced(steps: Vec<Step>) -> MockChat {
        let (release, gate) = std::sync::mpsc::channel();
        let mut mock = MockChat::serve(steps, (false, false), Some(gate));
        mock.release = Some(release);
        mock
    }

    /// Let a [`MockChat::paced`] server answer the next request (at once if one waits).
    pub(crate) fn release(&self) {
        self.release
            .as_ref()
            .expect("release is for a paced mock")
            .send(())
            .expect("the mock is serving");
    }

    fn serve(
        steps: Vec<Step>,
        (no_tools, no_schema): (bool, bool),
        gate: Option<Receiver<()>>,
    ) -> MockChat {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let port = listener.local_addr().unwrap().port();
        listener.set_nonblocking(true).unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let script = Arc::new(Mutex::new(Script {
            steps,
            next: 0,
            no_tools,
            no_schema,
            gate,
        }));
        let (log, halt) = (seen.clone(), stop.clone());
        std::thread::spawn(move || {
            let until = std::time::Instant::now() + Duration::from_secs(600);
            while !halt.load(Ordering::SeqCst) && std::time::Instant::now() < until {
                match listener.accept() {
                    Ok((stream, _)) => answer(stream, &script, &log),
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        MockChat {
            port,
            seen,
            stop,
            release: None,
        }
    }

    /// The base URL, up to `/v1`.
    pub(crate) fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    pub(crate) fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    /// Every refusal of a malformed request (none, for a well-behaved client).
    pub(crate) fn refusals(&self) -> Vec<String> {
        self.seen().into_iter().filter_map(|s| s.refused).collect()
    }
}

impl Drop for MockChat {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

fn answer(stream: TcpStream, script: &Mutex<Script>, log: &Mutex<Vec<Seen>>) {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let Some(HttpRequest {
        method,
        path,
        authorization: auth,
        body,
    }) = read_request(&stream)
    else {
        return;
    };
    let parsed: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let (status, kind, payload, refused) = if method != "POST" || path != "/v1/chat/completions" {
        let m = format!("Invalid URL ({method} {path})");
        (
            404,
            "application/json",
            error(&m, "invalid_request_error"),
            Some(m),
        )
    } else if auth != format!("Bearer {KEY}") {
        let m = "Incorrect API key provided".to_string();
        (
            401,
            "application/json",
            error(&m, "invalid_api_key"),
            Some(m),
        )
    } else {
        let mut script = script.lock().unwrap();
        if let Some(gate) = &script.gate {
            // Dropping the mock (a failed test) lets every waiting request through.
            let _ = gate.recv_timeout(Duration::from_secs(60));
        }
        match problems(&parsed, script.no_tools, script.no_schema) {
            Some(m) => (
                400,
                "application/json",
                error(&m, "invalid_request_error"),
                Some(m),
            ),
            None => {
                // Constrained to the schema, the model cannot call a tool (llama.cpp's server
                // drops `tools` then, and says nothing): a scripted call is skipped.
                let constrained = parsed["response_format"]["type"] == json!("json_schema");
                while constrained && matches!(script.steps.get(script.next), Some(Step::Calls(_))) {
                    script.next += 1;
                }
                let step = script.steps.get(script.next).cloned();
                script.next += 1;
                let (s, k, p) = reply(&parsed, step, script.next);
                (s, k, p, None)
            }
        }
    };
    log.lock().unwrap().push(Seen {
        body: parsed,
        status,
        refused,
    });
    let retry = if status == 429 || status >= 500 {
        "Retry-After: 0\r\n"
    } else {
        ""
    };
    let mut out = stream;
    let _ = write!(
        out,
        "HTTP/1.1 {status} X\r\nContent-Type: {kind}\r\nContent-Length: {}\r\n{retry}Connection: close\r\n\r\n{payload}",
        payload.len()
    );
    let _ = out.flush();
}

fn error(message: &str, kind: &str) -> String {
    json!({"error": {"message": message, "type": kind, "param": null, "code": null}}).to_string()
}

const FIELDS: &[&str] = &[
    "model",
    "messages",
    "tools",
    "tool_choice",
    "parallel_tool_calls",
    "response_format",
    "stream",
    "stream_options",
    "temperature",
    "max_tokens",
    "max_completion_tokens",
    "seed",
];

/// What the real API would refuse in `body`, in its words.
fn problems(body: &Value, no_tools: bool, no_schema: bool) -> Option<String> {
    let map = body.as_object()?;
    for key in map.keys() {
        if !FIELDS.contains(&key.as_str()) {
            return Some(format!("Unrecognized request argument supplied: {key}"));
        }
    }
    if body["model"].as_str().is_none_or(|m| m.is_empty()) {
        return Some("you must provide a model parameter".into());
    }
    if map.contains_key("stream_options") && body["stream"] != json!(true) {
        return Some(
            "The 'stream_options' parameter is only allowed when 'stream' is enabled.".into(),
        );
    }
    if let Some(tools) = map.get("tools") {
        if no_tools {
            return Some("registry.ollama.ai/library/tiny does not support tools".into());
        }
        for (i, tool) in tools.as_array()?.iter().enumerate() {
            let f = &tool["function"];
            let name = f["name"].as_str().unwrap_or("");
            if tool["type"] != json!("function")
                || name.is_empty()
                || name.len() > 64
                || !name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            {
                return Some(format!(
                    "Invalid 'tools[{i}]': a function with a valid name is required"
                ));
            }
            if f["strict"] == json!(true) {
                let found = openai_strict_problems(
                    &f["parameters"],
                    &format!("tools[{i}].function.parameters"),
                    true,
                );
                if let Some(p) = found.first() {
                    return Some(format!("Invalid schema for function '{name}': {p}"));
                }
            }
        }
    } else if map.contains_key("tool_choice") || map.contains_key("parallel_tool_calls") {
        return Some(
            "'tool_choice' and 'parallel_tool_calls' are only allowed when 'tools' are specified."
                .into(),
        );
    }
    if let Some(choice) = map.get("tool_choice")
        && !(choice == "none" || choice == "auto" || choice == "required" || choice.is_object())
    {
        return Some(format!("Invalid value for 'tool_choice': {choice}"));
    }
    let format = &body["response_format"];
    if format["type"] == json!("json_schema") {
        if no_schema {
            return Some("'response_format.type' must be 'json_object' or 'text'".into());
        }
        let js = &format["json_schema"];
        if js["name"].as_str().is_none_or(|n| n.is_empty()) {
            return Some("Missing required parameter: 'response_format.json_schema.name'.".into());
        }
        if js["strict"] == json!(true) {
            let found = openai_strict_problems(&js["schema"], "context=()", true);
            if let Some(p) = found.first() {
                return Some(format!(
                    "Invalid schema for response_format 'receipt': In {p}"
                ));
            }
        }
    }
    messages_problem(body["messages"].as_array()?)
}

/// The message rules: known roles, string contents, every tool call answered by one tool message
/// right after it, every tool message answering a call.
fn messages_problem(messages: &[Value]) -> Option<String> {
    if messages.is_empty() {
        return Some("'messages' must contain at least one message".into());
    }
    let mut open: Vec<String> = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        let role = m["role"].as_str().unwrap_or("");
        if role != "tool" && !open.is_empty() {
            return Some(format!(
                "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: {}",
                open.join(", ")
            ));
        }
        match role {
            "system" | "user" => {
                if !m["content"].is_string() {
                    return Some(format!("Invalid type for 'messages[{i}].content'"));
                }
            }
            "assistant" => {
                if let Some(calls) = m.get("tool_calls") {
                    let calls = calls.as_array()?;
                    if calls.is_empty() {
                        return Some(format!("Empty array for 'messages[{i}].tool_calls'"));
                    }
                    for (j, c) in calls.iter().enumerate() {
                        let ok = c["id"].as_str().is_some_and(|s| !s.is_empty())
                            && c["type"] == json!("function")
                            && c["function"]["name"].is_string()
                            && c["function"]["arguments"].is_string();
                        if !ok {
                            return Some(format!("Invalid 'messages[{i}].tool_calls[{j}]'"));
                        }
                        open.push(c["id"].as_str()?.to_string());
                    }
                } else if !m["content"].is_string() {
                    return Some(format!("Invalid type for 'messages[{i}].content'"));
                }
            }
            "tool" => {
                let id = m["tool_call_id"].as_str().unwrap_or("");
                let Some(at) = open.iter().position(|o| o == id) else {
                    return Some(format!(
                        "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls' (messages[{i}])"
                    ));
                };
                open.remove(at);
                if !m["content"].is_string() {
                    return Some(format!("Invalid type for 'messages[{i}].content'"));
                }
            }
            other => return Some(format!("Invalid value: '{other}' for 'messages[{i}].role'")),
        }
    }
    if !open.is_empty() {
        return Some(format!(
            "tool_call_ids did not have response messages: {}",
            open.join(", ")
        ));
    }
    None
}

fn reply(body: &Value, step: Option<Step>, n: usize) -> (u16, &'static str, String) {
    let usage = json!({"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120});
    let message = match step {
        None => {
            return (
                500,
                "application/json",
                error("the mock's script has ended", "server_error"),
            );
        }
        Some(Step::Status(status, m)) => {
            let kind = if status == 400 {
                "invalid_request_error"
            } else {
                "server_error"
            };
            return (status, "application/json", error(&m, kind));
        }
        Some(Step::Receipt(v)) => json!({"role": "assistant", "content": v.to_string()}),
        Some(Step::Text(t)) => json!({"role": "assistant", "content": t}),
        Some(Step::Calls(calls)) => json!({"role": "assistant", "content": null,
            "tool_calls": calls.iter().enumerate().map(|(i, (name, args))| json!({
                "id": format!("call_{n}_{i}"), "type": "function",
                "function": {"name": name, "arguments": args}})).collect::<Vec<_>>()}),
    };
    let finish = if message.get("tool_calls").is_some() {
        "tool_calls"
    } else {
        "stop"
    };
    if body["stream"] == json!(true) {
        let mut delta = message.clone();
        if let Some(calls) = delta.get_mut("tool_calls").and_then(Value::as_array_mut) {
            for (i, c) in calls.iter_mut().enumerate() {
                c["index"] = json!(i);
            }
        }
        let chunk = |choices: Value, usage: Option<&Value>| {
            let mut c = json!({"id": "chatcmpl-mock", "object": "chat.completion.chunk", "created": 0,
                "model": body["model"], "choices": choices});
            if let Some(u) = usage {
                c["usage"] = u.clone();
            }
            format!("data: {c}\n\n")
        };
        let mut text = chunk(
            json!([{"index": 0, "delta": delta, "finish_reason": null}]),
            None,
        );
        text += &chunk(
            json!([{"index": 0, "delta": {}, "finish_reason": finish}]),
            None,
        );
        text += &chunk(json!([]), Some(&usage));
        text += "data: [DONE]\n\n";
        return (200, "text/event-stream", text);
    }
    (
        200,
        "application/json",
        json!({"id": "chatcmpl-mock", "object": "chat.completion", "created": 0,
            "model": body["model"], "usage": usage,
            "choices": [{"index": 0, "finish_reason": finish, "message": message}]})
        .to_string(),
    )
}
