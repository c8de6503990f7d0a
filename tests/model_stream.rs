//! The model runner against a server that streams (docs/runners.md, "`openai` and `ollama`"):
//! a CPU model's slow tokens are progress, not a timeout; the model's own time is not spent from
//! the tool budget; an answer that goes round in a loop is cut off and the receipt asked for.

use serde_json::{Value, json};

use crate::model_runner::ASK;
use crate::util::*;

/// A loopback server that streams each answer in `answers` (one a connection) piece by piece,
/// `pause` apart, and tells for each how many pieces it wrote before the client hung up (all
/// of them when it did not), after the request's body.
fn streaming_server(
    answers: Vec<Vec<String>>,
    pause: std::time::Duration,
) -> (String, std::sync::mpsc::Receiver<(Vec<u8>, usize)>) {
    use std::io::Write;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let (tell, told) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut answers = answers.into_iter();
        for stream in listener.incoming().flatten() {
            let Some(request) = crate::util::mock_model::read_request(&stream) else {
                continue;
            };
            let pieces = answers.next().unwrap_or_default();
            let mut out = stream;
            let chunk = |delta: Value, finish: Value| {
                let c = json!({"object": "chat.completion.chunk",
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
                format!("data: {c}\n\n")
            };
            let head =
                "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n";
            let mut written = 0;
            let mut open = out.write_all(head.as_bytes()).is_ok();
            for piece in &pieces {
                let data = chunk(json!({"content": piece}), Value::Null);
                open = open
                    && out
                        .write_all(data.as_bytes())
                        .and_then(|_| out.flush())
                        .is_ok();
                if !open {
                    break;
                }
                written += 1;
                std::thread::sleep(pause);
            }
            let usage =
                json!({"choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 8}});
            let end =
                chunk(json!({}), json!("stop")) + &format!("data: {usage}\n\ndata: [DONE]\n\n");
            let _ = out.write_all(end.as_bytes());
            let _ = tell.send((request.body, written));
        }
    });
    (url, told)
}

/// `interview runner openai` on its own with a one-line brief, against `url`.
fn runner_alone(repo: &TempRepo, url: &str, extra: &[&str]) -> std::process::Output {
    let brief = repo.scratch("brief.md");
    std::fs::write(&brief, "# Brief\n\nAsk about the export.\n").unwrap();
    std::process::Command::new(bin())
        .args(["runner", "openai", "--model", "m", "--base-url", url])
        .args(extra)
        .current_dir(repo.path())
        .env("HOME", repo.home())
        .env("OPENAI_API_KEY", "")
        .env("INTERVIEW_BRIEF", &brief)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

/// [`ASK`] in 9 pieces.
fn ask_in_pieces() -> Vec<String> {
    let text: Vec<char> = ASK.chars().collect();
    text.chunks(text.len() / 8 + 1)
        .map(|c| c.iter().collect())
        .collect()
}

/// A CPU model streams its answer a few tokens a second: a runner on this machine asks for a
/// stream unasked, and an answer whose tokens keep coming is not cut by `--request-timeout`,
/// which then bounds the silence between two reads (the whole answer takes longer than it).
#[test]
fn a_slow_token_stream_is_progress_not_a_timeout() {
    let repo = TempRepo::new();
    let pause = std::time::Duration::from_millis(600);
    let (url, told) = streaming_server(vec![ask_in_pieces()], pause);
    let out = runner_alone(&repo, &url, &["--request-timeout", "2"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains(r#""event":"receipt""#),
        "{}",
        stdout(&out)
    );
    let body: Value = serde_json::from_slice(&told.recv().unwrap().0).unwrap();
    assert_eq!(body["stream"], json!(true), "{body}");
}

/// The tool budget's seconds are the tools' own: a CPU model that took minutes to write its
/// first call (longer than `--tool-seconds`) still has it run.
#[test]
fn the_models_own_time_is_not_spent_from_the_tool_budget() {
    let repo = TempRepo::new();
    let call = r#"{"name": "list_directory", "arguments": {"path": "."}}"#;
    let pieces: Vec<String> = call.split_inclusive(',').map(str::to_string).collect();
    let pause = std::time::Duration::from_millis(800);
    let (url, told) = streaming_server(vec![pieces, ask_in_pieces()], pause);
    let out = runner_alone(&repo, &url, &["--tool-seconds", "1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    told.recv().unwrap();
    let (body, _) = told.recv().unwrap();
    let body: Value = serde_json::from_slice(&body).unwrap();
    let result = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .map(|m| m["content"].to_string())
        .unwrap_or_default();
    assert!(result.contains("README.md"), "{result}");
}

/// Qwen2.5-Coder 1.5B on two busy cores wrote "You are ready to finish the interview. **Done**"
/// over and over, a token every few seconds, toward its 1024-token cap: the runner stops reading
/// a stream that goes round in a loop — its connection closed, the server stops writing — and
/// asks for the receipt.
#[test]
fn a_model_in_a_loop_is_cut_off_and_asked_for_the_receipt() {
    let repo = TempRepo::new();
    let said = "You are ready to finish the interview. \n\n**Done**".to_string();
    let pause = std::time::Duration::from_millis(30);
    let (url, told) = streaming_server(vec![vec![said; 60], ask_in_pieces()], pause);
    let out = runner_alone(&repo, &url, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains(r#""event":"receipt""#));
    let (_, written) = told.recv().unwrap();
    assert!(written < 20, "the runner read {written} of 60 repetitions");
    let (body, _) = told.recv().unwrap();
    let body: Value = serde_json::from_slice(&body).unwrap();
    assert!(body.get("response_format").is_some(), "{body}");
}
