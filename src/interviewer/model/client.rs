//! One chat-completions request to an OpenAI-compatible server: sent with the key, retried on
//! 429 and 5xx with backoff, its answer read whole or as a stream of server-sent events, and
//! what the server refused sorted into what the conversation can act on (no tool support, no
//! `json_schema` support) and what ends the turn (context too long, a bad key).
//!
//! Not for: the conversation itself (`chat.rs`).

use std::time::Duration;

use serde_json::Value;

use super::tools::Call;

/// A response larger than this is refused.
const MAX_RESPONSE_BYTES: u64 = 8 * 1024 * 1024;
/// Attempts of one request when the server is busy or failing (429, 5xx, a dropped connection).
const ATTEMPTS: u32 = 5;
/// The longest wait between two attempts, whatever `Retry-After` says.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// Where the model is.
#[derive(Debug, Clone)]
pub(super) struct Endpoint {
    /// Up to `/v1`: requests go to `{base_url}/chat/completions`.
    pub base_url: String,
    pub model: String,
    /// Sent as `Authorization: Bearer …` when set (a local server needs none).
    pub key: Option<String>,
    pub request_timeout: Duration,
    /// Sent as `max_tokens` when set (see `--max-tokens`).
    pub max_tokens: Option<u64>,
}

/// What the model answered.
#[derive(Debug, Default)]
pub(super) struct Reply {
    pub content: Option<String>,
    pub tool_calls: Vec<Call>,
    pub finish_reason: Option<String>,
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    pub cost_usd: Option<f64>,
}

/// Why a request gave no reply.
#[derive(Debug)]
pub(super) enum Refusal {
    /// The server does not take `tools` (the conversation falls back to one prompt).
    NoTools(String),
    /// The server does not take `response_format` `json_schema` (sent again without it).
    NoSchema(String),
    /// The conversation is longer than the model's context: retrying cannot help.
    ContextTooLong(String),
    /// Anything else that ends the turn, said for the person.
    Fatal(String),
}

/// The TLS the requests use: rustls with Mozilla's roots; on macOS the system's own TLS and
/// trust store (see Cargo.toml).
#[cfg(not(target_os = "macos"))]
fn tls() -> ureq::tls::TlsConfig {
    ureq::tls::TlsConfig::default()
}

#[cfg(target_os = "macos")]
fn tls() -> ureq::tls::TlsConfig {
    use ureq::tls::{RootCerts, TlsConfig, TlsProvider};
    TlsConfig::builder()
        .provider(TlsProvider::NativeTls)
        .root_certs(RootCerts::PlatformVerifier)
        .build()
}

impl Endpoint {
    fn url(&self) -> String {
        format!("{}/chat/completions", self.base_url.trim_end_matches('/'))
    }

    /// [`Endpoint::url`] as messages show it (no password, no query: [`super::shown_url`]).
    fn shown(&self) -> String {
        super::shown_url(&self.url())
    }

    /// Send `body`; retry what may pass later; `on_retry` is told each wait.
    pub(super) fn complete(
        &self,
        body: &Value,
        mut on_retry: impl FnMut(&str),
    ) -> Result<Reply, Refusal> {
        let agent = self.agent(body["stream"] == Value::Bool(true));
        let bytes = serde_json::to_vec(body)
            .map_err(|e| Refusal::Fatal(format!("cannot encode the request: {e}")))?;
        let mut last = String::new();
        for attempt in 1..=ATTEMPTS {
            let wait = match self.attempt(&agent, &bytes, attempt) {
                Attempt::Done(result) => return result,
                Attempt::Retry { why, wait } => {
                    last = why;
                    wait
                }
            };
            if attempt < ATTEMPTS {
                on_retry(&format!(
                    "{last}; trying again in {} s ({attempt} of {ATTEMPTS})",
                    wait.as_secs()
                ));
                std::thread::sleep(wait);
            }
        }
        Err(Refusal::Fatal(format!("{last} ({ATTEMPTS} attempts)")))
    }

    /// The HTTP client for this endpoint. A plain-http server (only a loopback one is given a
    /// key, see `check_address`) is reached directly: through a proxy its key and the
    /// repository's text would cross the proxy in clear — but for another machine's (given no
    /// key), a proxy on this machine (the sandbox's, the only way out of its network namespace)
    /// carries it. An https server may be reached through the person's proxy (a tunnel: the
    /// proxy sees the host, never the request). A `streamed` answer may take as long as its
    /// tokens keep coming: the timeout is then on the silence between two reads.
    fn agent(&self, streamed: bool) -> ureq::Agent {
        let url = self.url();
        let plain = url
            .get(..7)
            .is_some_and(|s| s.eq_ignore_ascii_case("http://"));
        let proxy = match plain {
            false => ureq::Proxy::try_from_env(),
            true if super::is_loopback(&url) => None,
            true => ureq::Proxy::try_from_env()
                .filter(|p| super::is_loopback(&format!("http://{}:{}/", p.host(), p.port()))),
        };
        let timeout = Some(self.request_timeout);
        let (global, per_read) = if streamed {
            (None, timeout)
        } else {
            (timeout, None)
        };
        ureq::Agent::config_builder()
            .proxy(proxy)
            .http_status_as_error(false)
            .max_redirects(0)
            .timeout_global(global)
            .timeout_per_read(per_read)
            .tls_config(tls())
            .build()
            .into()
    }

    /// One attempt of the request: its answer, a refusal, or why and how long to wait.
    fn attempt(&self, agent: &ureq::Agent, bytes: &[u8], attempt: u32) -> Attempt {
        let shown = self.shown();
        let mut request = agent
            .post(&self.url())
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream");
        if let Some(key) = &self.key {
            request = request.header("Authorization", format!("Bearer {key}"));
        }
        let mut response = match request.send(bytes) {
            Ok(response) => response,
            Err(e) => {
                if let Some(said) = unreachable(&e, &shown) {
                    return Attempt::Done(Err(Refusal::Fatal(said)));
                }
                let why = format!("cannot reach {shown}: {e}");
                return Attempt::Retry {
                    why,
                    wait: backoff(attempt, None),
                };
            }
        };
        let status = response.status().as_u16();
        let header = |name: &str| {
            let value = response.headers().get(name)?.to_str().ok()?;
            Some(value.trim().to_string())
        };
        let retry_after = header("retry-after")
            .and_then(|v| v.parse::<u64>().ok())
            .map(Duration::from_secs);
        let stream = header("content-type").is_some_and(|v| v.starts_with("text/event-stream"));
        if stream && (200..=299).contains(&status) {
            let reader = response
                .body_mut()
                .with_config()
                .limit(MAX_RESPONSE_BYTES)
                .lossy_utf8(true)
                .reader();
            let reply = read_stream(std::io::BufReader::new(reader));
            return Attempt::Done(
                reply
                    .map_err(|e| Refusal::Fatal(format!("cannot read the answer of {shown}: {e}"))),
            );
        }
        let text = response
            .body_mut()
            .with_config()
            .limit(MAX_RESPONSE_BYTES)
            .lossy_utf8(true)
            .read_to_string()
            .map_err(|e| Refusal::Fatal(format!("cannot read the answer of {shown}: {e}")));
        let said = |text: Result<String, Refusal>| server_message(&text.unwrap_or_default());
        Attempt::Done(match status {
            200..=299 => text.and_then(|t| parse_body(&t).map_err(Refusal::Fatal)),
            429 | 500..=599 => {
                return Attempt::Retry {
                    why: format!("{shown} answered {status}: {}", said(text)),
                    wait: backoff(attempt, retry_after),
                };
            }
            401 | 403 if self.key.is_none() => Err(Refusal::Fatal(format!(
                "{shown} wants a key ({status}: {}): OPENAI_API_KEY is not set; export it",
                said(text)
            ))),
            _ => Err(refusal(status, &text.unwrap_or_default(), &shown)),
        })
    }
}

/// What one attempt of a request came to.
enum Attempt {
    /// An answer, or a refusal no retry changes.
    Done(Result<Reply, Refusal>),
    /// Something that may pass: said, and waited for.
    Retry { why: String, wait: Duration },
}

/// A failure to connect that no retry fixes, said plainly: the host name does not resolve, or
/// nothing listens at the address.
fn unreachable(e: &ureq::Error, shown: &str) -> Option<String> {
    let dns = || {
        format!(
            "cannot reach {shown}: its host name does not resolve (DNS); check --base-url or OPENAI_BASE_URL"
        )
    };
    let refused = || {
        format!(
            "cannot reach {shown}: connection refused, nothing listens there; start the model's server or point --base-url at it (docs/runners.md)"
        )
    };
    match e {
        ureq::Error::HostNotFound => Some(dns()),
        ureq::Error::ConnectionFailed => Some(refused()),
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
            Some(refused())
        }
        ureq::Error::Io(io) => {
            let said = io.to_string().to_ascii_lowercase();
            [
                "lookup address",
                "name resolution",
                "name or service not known",
                "nodename nor servname",
                "no such host",
            ]
            .iter()
            .any(|w| said.contains(w))
            .then(dns)
        }
        _ => None,
    }
}

fn backoff(attempt: u32, retry_after: Option<Duration>) -> Duration {
    retry_after
        .unwrap_or_else(|| Duration::from_secs(1u64 << (attempt - 1).min(5)))
        .min(MAX_BACKOFF)
}

/// What a 4xx means for the conversation.
fn refusal(status: u16, body: &str, url: &str) -> Refusal {
    let said = server_message(body);
    let lower = said.to_ascii_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| lower.contains(w));
    if status == 401 || status == 403 {
        return Refusal::Fatal(format!(
            "{url} refused the key ({status}): {said}; check OPENAI_API_KEY"
        ));
    }
    if status == 404 && has(&["model"]) {
        return Refusal::Fatal(format!("{url} does not know the model ({status}): {said}"));
    }
    if has(&[
        "context length",
        "context_length",
        "maximum context",
        "context window",
        "too many tokens",
        "prompt is too long",
        "exceeds the context",
    ]) {
        return Refusal::ContextTooLong(format!(
            "the conversation no longer fits the model's context ({status}): {said}"
        ));
    }
    if has(&["response_format", "json_schema"]) {
        return Refusal::NoSchema(said);
    }
    if has(&["tool", "function call"]) {
        return Refusal::NoTools(said);
    }
    Refusal::Fatal(format!("{url} refused the request ({status}): {said}"))
}

/// The server's own message (`error.message`), or the start of its body.
pub(super) fn server_message(body: &str) -> String {
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    let message = parsed.as_ref().and_then(|v| {
        v.pointer("/error/message")
            .or_else(|| v.get("error"))
            .or_else(|| v.get("message"))
            .and_then(Value::as_str)
            .map(str::to_string)
    });
    let text = message.unwrap_or_else(|| body.trim().to_string());
    let one: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    one.chars().take(500).collect()
}

/// A whole JSON answer.
fn parse_body(text: &str) -> Result<Reply, String> {
    let v: Value =
        serde_json::from_str(text).map_err(|e| format!("the server's answer is not JSON: {e}"))?;
    let choice = v.pointer("/choices/0").ok_or_else(|| {
        format!(
            "the server's answer has no choices: {}",
            server_message(text)
        )
    })?;
    let message = choice.get("message").cloned().unwrap_or(Value::Null);
    let mut reply = Reply {
        content: message
            .get("content")
            .and_then(Value::as_str)
            .map(str::to_string),
        finish_reason: choice
            .get("finish_reason")
            .and_then(Value::as_str)
            .map(str::to_string),
        ..Reply::default()
    };
    for call in message
        .get("tool_calls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        reply.tool_calls.push(Call {
            id: call
                .get("id")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            name: call
                .pointer("/function/name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            arguments: arguments_text(call.pointer("/function/arguments")),
        });
    }
    usage(&v, &mut reply);
    Ok(reply)
}

/// Arguments are a JSON string; some servers send the object itself.
fn arguments_text(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    }
}

fn usage(v: &Value, reply: &mut Reply) {
    if let Some(u) = v.get("usage").filter(|u| u.is_object()) {
        reply.input_tokens = u.get("prompt_tokens").and_then(Value::as_u64);
        reply.output_tokens = u.get("completion_tokens").and_then(Value::as_u64);
        reply.cost_usd = u.get("cost").and_then(Value::as_f64);
    }
}

/// A streamed answer, as whole text (the unit tests').
#[cfg(test)]
fn parse_stream(text: &str) -> Result<Reply, String> {
    read_stream(text.as_bytes())
}

/// A streamed answer read as it comes: `data:` lines of chunks, each with a `delta`, until
/// `[DONE]` — or until its text goes round in a loop ([`repeating`]): the reading stops there,
/// which closes the connection and ends the generation on the server, and the answer counts as
/// cut (`finish_reason` "length"). A small model on a CPU that repeats itself would otherwise
/// write to its cap, for many minutes.
fn read_stream(mut reader: impl std::io::BufRead) -> Result<Reply, String> {
    let mut reply = Reply::default();
    let mut content = String::new();
    let mut any = false;
    let mut line = String::new();
    loop {
        line.clear();
        let read = reader
            .read_line(&mut line)
            .map_err(|e| format!("the stream broke off: {e}"))?;
        if read == 0 {
            break;
        }
        let Some(data) = line.trim_end().strip_prefix("data:") else {
            continue;
        };
        let data = data.trim();
        if data == "[DONE]" {
            break;
        }
        let chunk: Value =
            serde_json::from_str(data).map_err(|e| format!("a streamed chunk is not JSON: {e}"))?;
        if let Some(message) = chunk.pointer("/error/message").and_then(Value::as_str) {
            return Err(format!("the server failed mid-answer: {message}"));
        }
        usage(&chunk, &mut reply);
        let Some(choice) = chunk.pointer("/choices/0") else {
            continue;
        };
        any = true;
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            reply.finish_reason = Some(reason.to_string());
        }
        let Some(delta) = choice.get("delta") else {
            continue;
        };
        if let Some(piece) = delta.get("content").and_then(Value::as_str) {
            content.push_str(piece);
            if repeating(&content) {
                reply.finish_reason = Some("length".into());
                break;
            }
        }
        add_call_deltas(delta, &mut reply.tool_calls)?;
    }
    if !any {
        return Err("the server's stream held no answer".into());
    }
    if !content.is_empty() {
        reply.content = Some(content);
    }
    Ok(reply)
}

/// The pieces of tool calls one streamed `delta` holds, added to the calls by their index.
fn add_call_deltas(delta: &Value, calls: &mut Vec<Call>) -> Result<(), String> {
    for call in delta
        .get("tool_calls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let index = call.get("index").and_then(Value::as_u64).unwrap_or(0) as usize;
        if index > 10_000 {
            return Err("a streamed tool call has an index past 10000".into());
        }
        while calls.len() <= index {
            calls.push(Call {
                id: String::new(),
                name: String::new(),
                arguments: String::new(),
            });
        }
        let slot = &mut calls[index];
        if let Some(id) = call.get("id").and_then(Value::as_str) {
            slot.id = id.to_string();
        }
        if let Some(name) = call.pointer("/function/name").and_then(Value::as_str) {
            slot.name.push_str(name);
        }
        if let Some(args) = call.pointer("/function/arguments").and_then(Value::as_str) {
            slot.arguments.push_str(args);
        }
    }
    Ok(())
}

/// Whether `text` ends in one piece written over and over — 8 to 200 characters, repeated back
/// to back at least 4 times and over at least 96 characters: a model in a loop (the same
/// sentence, a run of blank lines), never a receipt's own text.
fn repeating(text: &str) -> bool {
    const MIN_PIECE: usize = 8;
    const MAX_PIECE: usize = 200;
    let tail: Vec<char> = text.chars().rev().take(MAX_PIECE * 4).collect();
    (MIN_PIECE..=MAX_PIECE).any(|len| {
        let times = 4.max(96usize.div_ceil(len));
        tail.len() >= len * times && (1..times).all(|k| tail[..len] == tail[k * len..(k + 1) * len])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_streamed_answer_is_put_together_from_its_deltas() {
        let text = concat!(
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"tool_calls\":[{\"index\":0,\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"read_file\",\"arguments\":\"{\\\"pa\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"th\\\":\\\"a\\\"}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\n",
            "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":3}}\n\n",
            "data: [DONE]\n\n",
        );
        let reply = parse_stream(text).unwrap();
        assert_eq!(reply.tool_calls.len(), 1);
        assert_eq!(reply.tool_calls[0].id, "c1");
        assert_eq!(reply.tool_calls[0].arguments, "{\"path\":\"a\"}");
        assert_eq!(reply.finish_reason.as_deref(), Some("tool_calls"));
        assert_eq!(
            (reply.input_tokens, reply.output_tokens),
            (Some(7), Some(3))
        );
    }

    #[test]
    fn a_loop_is_told_from_a_receipts_own_text() {
        let said = "You are ready to finish the interview. \n\n**Done**";
        assert!(repeating(&format!("Sure. {}", said.repeat(4))));
        assert!(repeating(&format!("{{\"a\": 1}}{}", "\n".repeat(100))));
        assert!(!repeating(&said.repeat(2)));
        let receipt = r#"{"entries":[{"title":"a","clarity":"inferred"},{"title":"b","clarity":"inferred"}]}"#;
        assert!(!repeating(receipt));
        assert!(!repeating(&"x".repeat(40)));
    }

    #[test]
    fn a_context_overflow_is_not_retried_and_says_so() {
        let body = r#"{"error":{"message":"This model's maximum context length is 8192 tokens","code":"context_length_exceeded"}}"#;
        assert!(matches!(
            refusal(400, body, "u"),
            Refusal::ContextTooLong(m) if m.contains("8192")
        ));
        assert!(matches!(
            refusal(
                400,
                r#"{"error":{"message":"model does not support tools"}}"#,
                "u"
            ),
            Refusal::NoTools(_)
        ));
        assert!(matches!(
            refusal(401, r#"{"error":{"message":"bad key"}}"#, "u"),
            Refusal::Fatal(m) if m.contains("OPENAI_API_KEY")
        ));
    }
}
