//! The model runner (`--runner openai`, docs/runners.md) against a strict loopback mock of the
//! Chat Completions API (tests/util/mock_chat.rs): a whole interview through it, its read-only
//! tools and their bounds, what it does with what servers do (429, 5xx, a context overflow, no
//! tool support, streaming, malformed tool arguments), and that it writes nothing.
//!
//! Here: the whole interview and its tool calls on the progress line; in `model_runner/`: the
//! tools (`tools.rs`), the servers (`servers.rs`), no writes (`writes.rs`), the sandbox
//! (`reach.rs`).

use serde_json::{Value, json};

use crate::util::mock_chat::{KEY, MockChat, Step};
use crate::util::mock_model::wire;
use crate::util::*;

mod reach;
mod servers;
mod tools;
mod writes;

pub(crate) const ASK: &str = r#"{"receipt":"ask","version":1,"questions":[{"topic":"deployment_target","question_text":"Where will this service run?","severity":7,"options":[{"label":"Kubernetes","value":"k8s"},{"label":"One VM","value":"vm"}],"recommended":"k8s"}]}"#;

pub(crate) const DONE: &str = r#"{"receipt":"done","version":1,"title":"Intent of the CSV export","summary":"The export runs on one VM.","entries":[{"title":"It runs on one VM","content":"The person chose one VM over Kubernetes.","clarity":"declared-by-user","sources":["qa:deployment_target"]},{"title":"The repository has a README","content":"It starts with a title.","clarity":"confirmed","sources":["README.md:1"]}]}"#;

const ANSWERS: &str =
    r#"{ "interview_answers": 1, "gate": "y", "answers": { "deployment_target": "2" } }"#;

pub(crate) fn call(name: &str, args: Value) -> (String, String) {
    (name.to_string(), args.to_string())
}

/// `intent 7 --runner openai`, the key in the environment, answered from [`ANSWERS`].
pub(crate) fn interview(repo: &TempRepo) -> Interview<'_> {
    Interview::of_work_item(repo)
        .preset("openai")
        .answers(ANSWERS)
        .yes()
        .env("OPENAI_API_KEY", KEY)
}

/// The runner's own arguments, last: `-- --model mock-model --base-url MOCK …`.
pub(crate) fn against<'r>(
    interview: Interview<'r>,
    mock: &MockChat,
    extra: &[&str],
) -> Interview<'r> {
    interview
        .arg("--")
        .args(["--model", "mock-model", "--base-url", &mock.base_url()])
        .args(extra)
}

/// The tool messages the model was given in its longest conversation, in order.
pub(crate) fn tool_results(mock: &MockChat) -> Vec<String> {
    mock.seen()
        .into_iter()
        .filter(|s| s.status == 200)
        .map(|s| {
            s.body["messages"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|m| m["role"] == "tool")
                .map(|m| m["content"].as_str().unwrap().to_string())
                .collect::<Vec<_>>()
        })
        .max_by_key(Vec::len)
        .unwrap_or_default()
}

#[test]
fn an_interview_completes_through_the_model_runner_with_its_tool_calls_on_record() {
    let repo = TempRepo::new();
    repo.commit_files(&["export"]);
    let mock = MockChat::start(vec![
        Step::Calls(vec![
            call("list_directory", json!({"path": "."})),
            call(
                "read_file",
                json!({"path": "README.md", "start_line": null, "end_line": null}),
            ),
        ]),
        Step::Calls(vec![
            call(
                "search",
                json!({"pattern": "fn export", "path": null, "fixed_string": false}),
            ),
            call(
                "git_log",
                json!({"path": "src/export.rs", "max_count": null}),
            ),
            call(
                "git_show",
                json!({"commit": "HEAD", "path": "src/export.rs"}),
            ),
            call(
                "git_blame",
                json!({"path": "src/lib.rs", "start_line": 1, "end_line": 3}),
            ),
        ]),
        Step::Receipt(wire(ASK)),
        Step::Receipt(wire(DONE)),
    ]);
    let out = against(interview(&repo).out("-"), &mock, &[])
        .run()
        .exits(0);
    assert!(out.stdout.contains("It runs on one VM"), "{}", out.stdout);
    assert_eq!(mock.refusals(), Vec::<String>::new());
    let results = tool_results(&mock);
    assert!(
        results.iter().all(|r| !r.starts_with("error:")),
        "{results:#?}"
    );
    assert!(results[0].contains("README.md") && results[0].contains("src/"));
    assert!(results[1].contains("1: # test repo"), "{}", results[1]);
    assert!(
        results[2].contains("src/export.rs:1: pub fn export()"),
        "{}",
        results[2]
    );
    assert!(results[3].contains("add export"), "{}", results[3]);
    assert!(
        results[4].contains("+pub fn export() -> u32 { 0 }"),
        "{}",
        results[4]
    );
    assert!(
        results[5].contains("initial commit") && results[5].contains("2:     42"),
        "{}",
        results[5]
    );
    // Every call is in the transcript, with its tool and target.
    let calls = out.events("tool_call");
    let seen: Vec<(String, String)> = calls
        .iter()
        .map(|c| {
            (
                c["tool"].as_str().unwrap().into(),
                c["target"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(seen[0], ("list_directory".into(), ".".into()));
    assert_eq!(seen[1], ("read_file".into(), "README.md".into()));
    assert_eq!(seen[2], ("search".into(), "fn export".into()));
    assert_eq!(calls.len(), 6, "{calls:#?}");
    assert!(calls.iter().all(|c| c["turn"] == 1));
    // Usage as the server reported it: four requests in turn 1, one in turn 2.
    let runs = out.state()["runs"].clone();
    assert_eq!(runs[0]["usage"]["input_tokens"], 300, "{runs}");
    assert_eq!(runs[1]["usage"]["output_tokens"], 20, "{runs}");
    // The request offered the read-only tools and the strict wire schema.
    let first = &mock.seen()[0].body;
    let names: Vec<&str> = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "list_directory",
            "read_file",
            "search",
            "git_log",
            "git_show",
            "git_blame"
        ]
    );
    // Tools and a response format never share a request: a server that constrains the answer
    // to a schema (llama.cpp's) drops the tools, and the mock does as it does.
    assert!(first.get("response_format").is_none(), "{first}");
}

#[test]
fn the_model_runners_tool_calls_show_on_the_progress_line() {
    let repo = TempRepo::new();
    let mock = MockChat::paced(vec![
        Step::Calls(vec![call(
            "read_file",
            json!({"path": "README.md", "start_line": 1, "end_line": 2}),
        )]),
        Step::Calls(vec![call(
            "search",
            json!({"pattern": "answer", "path": "src", "fixed_string": true}),
        )]),
        Step::Calls(vec![call(
            "git_log",
            json!({"path": "src/lib.rs", "max_count": 3}),
        )]),
        Step::Receipt(wire(ASK)),
    ]);
    let mut pty = Interview::of_work_item(&repo)
        .preset("openai")
        .env("OPENAI_API_KEY", KEY)
        .env("TERM", "dumb")
        .arg("--")
        .args(["--model", "mock-model", "--base-url", &mock.base_url()])
        .at_terminal();
    // Each answer waits until the activity before it was seen on the progress line.
    pty.expect("openai");
    pty.expect("thinking");
    mock.release();
    pty.expect("reading README.md");
    mock.release();
    pty.expect("searching for `answer`");
    mock.release();
    pty.expect("reading the history of src/lib.rs");
    mock.release();
    pty.expect("clarifying question");
    pty.ctrl_c();
    let _ = pty.finish();
    assert_eq!(repo.events("tool_call").len(), 3);
}
