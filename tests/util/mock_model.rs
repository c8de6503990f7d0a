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
//!
//! Here the server, its script and the wire form; each service's endpoint is in `mock_model/`
//! (`anthropic.rs`, `openai.rs`, `gemini.rs`).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

mod anthropic;
mod gemini;
mod openai;

use anthropic::anthropic;
use gemini::gemini;
pub(crate) use openai::openai_strict_problems;
use openai::{chat, responses};

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
