//! The model runner: a turn as a conversation with any OpenAI-compatible chat-completions
//! server (OpenAI, ollama, llama.cpp's server, vLLM …), started by the tool as its own
//! subprocess (`interview runner openai`, `interview runner ollama`) under the sandbox like any
//! runner. Its model can only call the read-only tools implemented here — there is no tool
//! that writes, runs a program or fetches — and the runner itself writes no file: the receipt
//! and its account of the turn go to stdout (`events.rs`). See docs/runners.md, "`openai`".
//!
//! Not for: checking the receipt (the session does, as for every runner).

mod chat;
mod citable;
mod client;
pub(crate) mod events;
mod form;
mod history;
mod test_hook;
mod tools;
mod worktree;

use std::io::Read;
use std::path::PathBuf;
use std::time::Duration;

use crate::error::{Error, Result};
use crate::protocol::env;

/// The two names the model runner answers to.
pub(crate) const NAMES: [&str; 2] = ["openai", "ollama"];

/// ollama's OpenAI-compatible endpoint on this machine.
pub(crate) const OLLAMA_BASE_URL: &str = "http://localhost:11434/v1";
/// OpenAI's, when `OPENAI_BASE_URL` is not set.
pub(crate) const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";
/// How long one request may take by default: a 1.5B model on two busy CPU cores has taken
/// five minutes for one answer; a hosted API answers in seconds.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(900);
/// The brief is refused past this size (the session writes far less).
const MAX_BRIEF_BYTES: u64 = 4 * 1024 * 1024;

/// What the runner was told on its command line (after `interview runner NAME`).
#[derive(Debug)]
struct Options {
    model: Option<String>,
    base_url: Option<String>,
    /// `--stream` / `--no-stream`; `None`: streamed from a server on this machine (a CPU model's
    /// slow answer is progress, and a request the runner abandons stops there), whole otherwise.
    stream: Option<bool>,
    limits: tools::Limits,
    request_timeout: Duration,
    /// `--max-tokens`: what one answer may hold at most (0: no cap); `None`: the default
    /// ([`LOCAL_MAX_TOKENS`] for a server on this machine, no cap for another).
    max_tokens: Option<u64>,
}

/// The cap on one answer of a server on this machine, unless `--max-tokens` says otherwise: a
/// small model on a CPU that falls into repeating itself would otherwise write until its
/// context is full (minutes at a few tokens a second) before the turn could go on.
const LOCAL_MAX_TOKENS: u64 = 4096;

fn parse(args: &[String]) -> Result<Options> {
    let mut o = Options {
        model: None,
        base_url: None,
        stream: None,
        limits: tools::Limits::default(),
        request_timeout: REQUEST_TIMEOUT,
        max_tokens: None,
    };
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (arg.as_str(), None),
        };
        let mut value = || {
            inline
                .clone()
                .or_else(|| rest.next().cloned())
                .ok_or_else(|| Error::Usage(format!("the model runner: {flag} needs a value")))
        };
        let number = |v: String| {
            v.parse::<u64>().map_err(|_| {
                Error::Usage(format!(
                    "the model runner: {flag} takes a number, not {v:?}"
                ))
            })
        };
        match flag {
            "--model" | "-m" => o.model = Some(value()?),
            "--base-url" => o.base_url = Some(value()?),
            "--stream" => o.stream = Some(true),
            "--no-stream" => o.stream = Some(false),
            "--max-tool-calls" => o.limits.calls = number(value()?)? as usize,
            "--max-tool-bytes" => o.limits.bytes = number(value()?)? as usize,
            "--tool-seconds" => o.limits.seconds = number(value()?)?,
            "--request-timeout" => o.request_timeout = Duration::from_secs(number(value()?)?),
            "--max-tokens" => o.max_tokens = Some(number(value()?)?),
            other => {
                return Err(Error::Usage(format!(
                    "the model runner does not take {other:?} (it takes --model, --base-url, --stream, --no-stream, --max-tool-calls, --max-tool-bytes, --tool-seconds, --request-timeout, --max-tokens)"
                )));
            }
        }
    }
    Ok(o)
}

/// An address the runner may use: `http(s)://`, and plain http with a key only to this machine.
fn check_address(base_url: &str, with_key: bool) -> Result<()> {
    let lower = base_url.to_ascii_lowercase();
    if !lower.starts_with("https://") && !lower.starts_with("http://") {
        return Err(Error::Usage(format!(
            "the model server's address {:?} must start with https:// or http://",
            shown_url(base_url)
        )));
    }
    if lower.starts_with("http://") && with_key && !is_loopback(base_url) {
        return Err(Error::Usage(format!(
            "{} is plain http to another machine: OPENAI_API_KEY would travel in clear; use https://, or unset OPENAI_API_KEY for a server that needs no key",
            shown_url(base_url)
        )));
    }
    Ok(())
}

/// The endpoint for runner `name`: `--base-url`, else `OPENAI_BASE_URL` (for `openai`), else
/// the default; the key from `OPENAI_API_KEY` (for `openai`), never from an argument.
fn endpoint(name: &str, o: &Options) -> Result<client::Endpoint> {
    let from_env = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
    let ollama = name == "ollama";
    let base_url = base_url(name, o);
    let key = if ollama {
        None
    } else {
        from_env("OPENAI_API_KEY")
    };
    let model = o.model.clone().or_else(|| from_env("OPENAI_MODEL")).ok_or_else(|| {
        Error::Usage(format!(
            "the `{name}` runner needs a model: `--runner {name} -- --model NAME` (or runner_args = [\"--model\", \"NAME\"] in the config, or OPENAI_MODEL)"
        ))
    })?;
    check_address(&base_url, key.is_some())?;
    if key.is_none() && host_and_port(&base_url).0 == "api.openai.com" {
        return Err(Error::Usage(format!(
            "OPENAI_API_KEY is not set, and {} needs your key: export OPENAI_API_KEY=… (a local server needs none: `--runner {name} -- --base-url http://127.0.0.1:8080/v1 --model NAME`, docs/runners.md)",
            shown_url(&base_url)
        )));
    }
    let max_tokens = match o.max_tokens {
        Some(0) => None,
        Some(n) => Some(n),
        None => is_loopback(&base_url).then_some(LOCAL_MAX_TOKENS),
    };
    Ok(client::Endpoint {
        base_url,
        model,
        key,
        request_timeout: o.request_timeout,
        max_tokens,
    })
}

fn base_url(name: &str, o: &Options) -> String {
    let from_env = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
    let ollama = name == "ollama";
    o.base_url
        .clone()
        .or_else(|| (!ollama).then(|| from_env("OPENAI_BASE_URL")).flatten())
        .unwrap_or_else(|| {
            (if ollama {
                OLLAMA_BASE_URL
            } else {
                OPENAI_BASE_URL
            })
            .into()
        })
}

/// The `host[:port]` of an `http(s)://[user[:password]@]host[:port]/…` address, lowercased,
/// and what came before it (`https://`, and the user part with its `@`, if any).
fn authority(url: &str) -> (String, &str, &str) {
    let url = url.trim();
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, _) = rest.split_at(end);
    let host = authority.rsplit('@').next().unwrap_or(authority);
    (
        host.to_ascii_lowercase(),
        scheme,
        &authority[..authority.len() - host.len()],
    )
}

/// The host of an address and its port, if it names one (`[::1]:8080`: the port follows the
/// bracket; `[::1]` alone has none).
fn host_and_port(url: &str) -> (String, Option<u16>) {
    let (host, _, _) = authority(url);
    match host.rsplit_once(':') {
        Some((h, p)) if !h.contains('[') || h.ends_with(']') => (h.to_string(), p.parse().ok()),
        _ => (host, None),
    }
}

/// The TCP port of an `http(s)://host[:port]/…` address (443 or 80 when it names none).
fn port_of(url: &str) -> Option<u16> {
    let (_, scheme, _) = authority(url);
    let default = if scheme.eq_ignore_ascii_case("https") {
        443
    } else {
        80
    };
    Some(host_and_port(url).1.unwrap_or(default))
}

/// Whether an address names this machine: `localhost` or a loopback IP, by its host alone
/// (`http://localhost@example.com/` and `http://127.0.0.1.example.com/` are other machines).
fn is_loopback(url: &str) -> bool {
    let (host, _) = host_and_port(url);
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    bare == "localhost"
        || bare
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// An address as it may be shown (the terminal, `runner.log`, `interview runners`): without a
/// user name and password and without the query, where a key could be.
pub(super) fn shown_url(url: &str) -> String {
    let url = url.trim();
    let (_, _, user) = authority(url);
    let mut shown = if user.is_empty() {
        url.to_string()
    } else {
        url.replacen(user, "…@", 1)
    };
    if let Some(q) = shown.find('?') {
        shown.truncate(q);
        shown.push_str("?…");
    }
    shown
}

/// The TCP ports the model runner started as `argv` connects to: its server's, and a proxy's
/// from the environment (the sandbox grants those and no other; docs/sandbox.md).
pub(crate) fn ports(argv: &[String]) -> Vec<u16> {
    let Some(at) = argv.iter().position(|a| NAMES.contains(&a.as_str())) else {
        return Vec::new();
    };
    let Ok(options) = parse(&argv[at + 1..]) else {
        return Vec::new(); // it stops at its arguments, before any connection
    };
    let mut ports: Vec<u16> = port_of(&base_url(&argv[at], &options))
        .into_iter()
        .collect();
    for var in [
        "HTTPS_PROXY",
        "https_proxy",
        "HTTP_PROXY",
        "http_proxy",
        "ALL_PROXY",
        "all_proxy",
    ] {
        let proxy = std::env::var(var).ok().filter(|v| !v.trim().is_empty());
        if let Some(port) = proxy.and_then(|v| port_of(&v)) {
            ports.push(port);
        }
    }
    ports.sort_unstable();
    ports.dedup();
    ports
}

/// The URL of the server the model runner reaches, given its command line (for the sandbox's
/// proxy, which allows its host).
pub(crate) fn server_url(argv: &[String]) -> Option<String> {
    let at = argv.iter().position(|a| NAMES.contains(&a.as_str()))?;
    let options = parse(&argv[at + 1..]).ok()?;
    Some(base_url(&argv[at], &options))
}

/// What `interview runners` says of the model runners: for each name, where it talks to (as
/// [`shown_url`] shows it), whether a key is set (never the key itself), and the model.
struct Described {
    name: &'static str,
    url: String,
    key_set: bool,
    model: Option<String>,
}

fn described() -> Vec<Described> {
    let none = Options {
        model: None,
        base_url: None,
        stream: None,
        limits: tools::Limits::default(),
        request_timeout: REQUEST_TIMEOUT,
        max_tokens: None,
    };
    let key_set = std::env::var("OPENAI_API_KEY").is_ok_and(|k| !k.trim().is_empty());
    let model = std::env::var("OPENAI_MODEL")
        .ok()
        .filter(|m| !m.trim().is_empty());
    NAMES
        .iter()
        .map(|&name| Described {
            name,
            url: crate::receipt::sanitize_line(&shown_url(&base_url(name, &none))).0,
            key_set: name == "openai" && key_set,
            model: model.clone(),
        })
        .collect()
}

/// The model runners as `interview runners` lists them, each with the line its runner's
/// `variables` gives (the preset's environment, which the runner layer knows).
pub(crate) fn describe(variables: impl Fn(&str) -> String) -> String {
    let mut out = String::new();
    for d in described() {
        let model = d
            .model
            .as_ref()
            .map(|m| format!("model {m} (OPENAI_MODEL)"))
            .unwrap_or_else(|| "model: -- --model NAME".into());
        if d.name == "ollama" {
            out.push_str(&format!(
                "ollama   embedded: {}, no key; {model}\n         runs: interview runner ollama\n{}\n",
                d.url,
                variables(d.name)
            ));
        } else {
            let key = if d.key_set {
                "OPENAI_API_KEY set"
            } else {
                "OPENAI_API_KEY not set"
            };
            out.push_str(&format!(
                "{:<8} embedded: any OpenAI-compatible server, {}, {key}; {model}\n         runs: interview runner {} (read-only tools only; docs/runners.md)\n{}\n",
                d.name,
                d.url,
                d.name,
                variables(d.name)
            ));
        }
    }
    out
}

/// The model runners as `interview runners --json` lists them.
pub(crate) fn describe_json() -> Vec<serde_json::Value> {
    described()
        .into_iter()
        .map(|d| {
            serde_json::json!({
                "name": d.name,
                "embedded": true,
                "argv": ["interview", "runner", d.name],
                "base_url": d.url,
                "key_set": d.key_set,
                "model": d.model,
            })
        })
        .collect()
}

/// `interview runner openai|ollama [ARGS…]`: hold the turn's conversation and print the
/// receipt; without one, the reason is the error (the command layer says it, exit 1).
pub(crate) fn run(name: &str, args: &[String]) -> Result<()> {
    let options = parse(args)?;
    let endpoint = endpoint(name, &options)?;
    let brief_path = std::env::var_os(env::BRIEF).map(PathBuf::from).ok_or_else(|| {
        Error::Usage(format!(
            "{} is not set: `interview runner {name}` is started by `interview reflect` or `interview intent`",
            env::BRIEF
        ))
    })?;
    let brief = read_brief(&brief_path)?;
    test_hook::try_connect();
    let root = std::env::current_dir()
        .map_err(|e| Error::io("cannot find the worktree (the current directory)", e))?;
    let worktree = worktree::Worktree::open(&root)
        .map_err(|e| Error::io(format!("cannot open the worktree {}", root.display()), e))?;
    let tools = tools::Tools::new(worktree);
    let chat = chat::Chat {
        endpoint: &endpoint,
        tools: &tools,
        limits: options.limits,
        root: root.clone(),
        stream: options
            .stream
            .unwrap_or_else(|| is_loopback(&endpoint.base_url)),
    };
    let mut outcome = chat::Outcome::default();
    let result = chat.run(&brief, &mut outcome);
    // A turn that failed before any answer has no usage to record, and its reason (on stderr)
    // is then the only thing it says.
    if result.is_ok() || outcome.input_tokens.is_some() || outcome.output_tokens.is_some() {
        outcome.usage_event().print();
    }
    result.map_err(Error::ModelTurn)?;
    events::Event::Receipt {
        text: outcome.receipt,
    }
    .print();
    Ok(())
}

fn read_brief(path: &std::path::Path) -> Result<String> {
    let shown = path.display();
    let file = crate::input::open_regular(path, crate::input::Links::Refuse).map_err(|source| {
        Error::BriefUnreadable {
            path: path.to_path_buf(),
            source: source.into(),
        }
    })?;
    let mut text = String::new();
    file.take(MAX_BRIEF_BYTES)
        .read_to_string(&mut text)
        .map_err(|e| Error::io(format!("cannot read the brief {shown}"), e))?;
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_loopback_host_is_loopback() {
        for url in [
            "http://localhost:11434/v1",
            "http://127.0.0.1/v1",
            "http://127.1.2.3:8080",
            "http://[::1]:8080/v1",
            "http://LOCALHOST/v1",
        ] {
            assert!(is_loopback(url), "{url}");
        }
        for url in [
            "http://localhost@example.com/v1",
            "http://127.0.0.1@example.com/v1",
            "http://127.0.0.1.example.com/v1",
            "http://localhost.example.com/v1",
            "http://[::1].example.com/v1",
            "http://example.com/v1?host=localhost",
            "http://10.0.0.1/v1",
        ] {
            assert!(!is_loopback(url), "{url}");
        }
    }

    #[test]
    fn a_plain_http_address_that_only_starts_like_localhost_gets_no_key() {
        let o = parse(&args(&["--base-url", "http://localhost@example.com/v1"])).unwrap();
        let err = check_address(&base_url("openai", &o), true)
            .unwrap_err()
            .to_string();
        assert!(err.contains("plain http to another machine"), "{err}");
        assert!(err.contains("http://…@example.com/v1"), "{err}");
        assert!(check_address("http://localhost:11434/v1", true).is_ok());
        assert!(check_address("http://example.com/v1", false).is_ok());
    }

    #[test]
    fn a_shown_address_has_no_password_and_no_query() {
        assert_eq!(
            shown_url("https://user:s3cret@example.com:8443/v1?api-key=k"),
            "https://…@example.com:8443/v1?…"
        );
        assert_eq!(
            shown_url("http://localhost:11434/v1"),
            "http://localhost:11434/v1"
        );
        assert_eq!(
            shown_url("https://example.com/a@b/v1"),
            "https://example.com/a@b/v1"
        );
    }

    #[test]
    fn ports_come_from_the_host_not_the_user_part() {
        assert_eq!(port_of("https://u:9999@example.com/v1"), Some(443));
        assert_eq!(port_of("http://example.com:8080/v1"), Some(8080));
        assert_eq!(port_of("http://[::1]/v1"), Some(80));
        assert_eq!(port_of("http://[::1]:11434/v1"), Some(11434));
    }

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn options_take_the_model_the_address_and_the_budget() {
        let o = parse(&args(&[
            "--model",
            "m1",
            "--base-url=http://127.0.0.1:9/v1",
            "--max-tool-calls",
            "3",
            "--stream",
        ]))
        .unwrap();
        assert_eq!(o.model.as_deref(), Some("m1"));
        assert_eq!(o.base_url.as_deref(), Some("http://127.0.0.1:9/v1"));
        assert_eq!(o.limits.calls, 3);
        assert_eq!(o.stream, Some(true));
        assert!(parse(&args(&["--write"])).is_err());
    }

    #[test]
    fn the_sandbox_is_given_the_servers_port_and_a_proxys() {
        assert_eq!(port_of("https://api.openai.com/v1"), Some(443));
        assert_eq!(port_of("http://localhost:11434/v1"), Some(11434));
        assert_eq!(port_of("http://127.0.0.1/v1"), Some(80));
        assert_eq!(port_of("http://user:pw@proxy:3128"), Some(3128));
        assert_eq!(port_of("http://[::1]:8080/v1"), Some(8080));
        assert_eq!(port_of("https://[::1]/v1"), Some(443));
        let argv = args(&[
            "/bin/interview",
            "runner",
            "openai",
            "--base-url",
            "http://127.0.0.1:9999/v1",
        ]);
        assert!(ports(&argv).contains(&9999));
        let argv = args(&["/bin/interview", "runner", "ollama", "--model", "m"]);
        assert!(ports(&argv).contains(&11434));
        assert!(parse(&args(&["--model"])).is_err());
    }
}
