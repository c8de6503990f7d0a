//! The model runner with what a small local model does (docs/runners.md, "`openai` and
//! `ollama`"): it reads with its tools in requests without a response format, then gives the
//! receipt in a request of its own; its receipt is put in order before the checks (no
//! `version`, the other form's fields, a question cited by its position); a rejected receipt is
//! corrected once inside the turn with the checks' exact words; a server that refuses
//! `json_schema`. And, opt-in, a real local model end to end.

use serde_json::{Value, json};

use crate::model_runner::{ASK, DONE, against, call, interview, tool_results};
use crate::util::mock_chat::{MockChat, Step};
use crate::util::mock_model::wire;
use crate::util::*;

/// `{"reply": receipt}`, the shape the runner asks for, without `version` (a small model
/// leaves it out).
fn reply(strict: &str) -> Value {
    let mut receipt: Value = serde_json::from_str(strict).unwrap();
    receipt.as_object_mut().unwrap().remove("version");
    json!({ "reply": receipt })
}

/// A small model on a CPU that repeats itself would write until its context is full: a server
/// on this machine gets a cap on each answer (`max_tokens`, 4096; 1024 with tools),
/// `--max-tokens` sets another or none (0).
#[test]
fn a_local_server_gets_a_cap_on_each_answer() {
    for (extra, want) in [
        (&[][..], Some(4096)),
        (&["--max-tokens", "300"][..], Some(300)),
        (&["--max-tokens", "0"][..], None),
    ] {
        let repo = TempRepo::new();
        let mock = MockChat::start(vec![
            Step::Receipt(crate::util::mock_model::wire(ASK)),
            Step::Receipt(crate::util::mock_model::wire(DONE)),
        ]);
        against(interview(&repo), &mock, extra).run().exits(0);
        for seen in mock.seen() {
            // A request with tools wants a call, not a document: at most 1024 of the cap.
            let want = if seen.body.get("tools").is_some() {
                want.map(|w| w.min(1024))
            } else {
                want
            };
            assert_eq!(
                seen.body.get("max_tokens").and_then(Value::as_u64),
                want,
                "{extra:?}: {}",
                seen.body
            );
        }
    }
}

/// A small model served without its tool-call template writes its call as text (a fenced JSON
/// object with the tool's name and arguments, then blank lines to the cap): the call is made
/// all the same, and the model is given its result.
#[test]
fn a_tool_call_written_as_text_is_made() {
    let repo = TempRepo::new();
    let mock = MockChat::start(vec![
        Step::Text(
            "```json\n{\n  \"name\": \"read_file\",\n  \"arguments\": {\"path\": \"README.md\", \"start_line\": null, \"end_line\": null}\n}\n```\n\n\n".into(),
        ),
        Step::Receipt(crate::util::mock_model::wire(ASK)),
        Step::Receipt(crate::util::mock_model::wire(DONE)),
    ]);
    against(interview(&repo), &mock, &[]).run().exits(0);
    let results = tool_results(&mock);
    assert!(
        results.iter().any(|r| r.contains("1: # test repo")),
        "{results:?}"
    );
}

/// A CPU-only model can be silent for minutes: when the tool stops the turn (its timeout,
/// Ctrl+C), the runner waiting for it ends at once on SIGTERM instead of counting the signal
/// and waiting on (the tool would wait out its grace period and kill it).
#[test]
fn the_model_runner_ends_at_once_on_sigterm_while_its_server_is_silent() {
    use std::os::unix::process::ExitStatusExt;
    let repo = TempRepo::new();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let (accepted, connected) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        // Hold every connection open and answer nothing.
        let mut held = Vec::new();
        for stream in listener.incoming() {
            held.push(stream);
            let _ = accepted.send(());
        }
    });
    let brief = repo.scratch("brief.md");
    std::fs::write(&brief, "# Brief\n\nAsk about the export.\n").unwrap();
    let mut runner = std::process::Command::new(bin())
        .args(["runner", "openai", "--model", "m", "--base-url", &url])
        .current_dir(repo.path())
        .env("HOME", repo.home())
        .env("OPENAI_API_KEY", "")
        .env("INTERVIEW_BRIEF", &brief)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    connected
        .recv_timeout(std::time::Duration::from_secs(30))
        .expect("the runner never reached its server");
    let pid = nix::unistd::Pid::from_raw(i32::try_from(runner.id()).unwrap());
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).unwrap();
    let start = std::time::Instant::now();
    let mut ended = runner.try_wait().unwrap();
    while ended.is_none() && start.elapsed() < std::time::Duration::from_secs(10) {
        std::thread::sleep(std::time::Duration::from_millis(50));
        ended = runner.try_wait().unwrap();
    }
    if ended.is_none() {
        let _ = runner.kill();
        let _ = runner.wait();
        panic!("the runner went on waiting for its server 10 s after SIGTERM");
    }
    assert_eq!(ended.unwrap().signal(), Some(15));
}

#[test]
fn the_model_reads_with_its_tools_then_gives_the_receipt_in_a_request_of_its_own() {
    let repo = TempRepo::new();
    let mock = MockChat::start(vec![
        Step::Calls(vec![call(
            "read_file",
            json!({"path": "README.md", "start_line": null, "end_line": null}),
        )]),
        Step::Text("The README has a title. I know what to ask.".into()),
        Step::Receipt(reply(ASK)),
        Step::Receipt(wire(DONE)),
    ]);
    let out = against(interview(&repo), &mock, &[]).run().exits(0);
    assert_eq!(mock.refusals(), Vec::<String>::new());
    assert_eq!(out.events("tool_call").len(), 1, "the model read README.md");
    assert!(tool_results(&mock)[0].contains("# test repo"));
    let seen = mock.seen();
    for s in &seen {
        assert!(
            s.body.get("tools").is_none() || s.body.get("response_format").is_none(),
            "tools and a response format in one request: {}",
            s.body
        );
    }
    // The first request makes the model look at the repository before it answers.
    assert_eq!(seen[0].body["tool_choice"], "required");
    assert_eq!(seen[1].body["tool_choice"], "auto");
    let receipt_request = &seen[2].body;
    let forms = &receipt_request["response_format"]["json_schema"]["schema"]["properties"]["reply"]
        ["anyOf"];
    assert_eq!(forms.as_array().map(Vec::len), Some(2), "{receipt_request}");
    assert!(out.events("receipt_rejected").is_empty());
}

#[test]
fn a_small_models_receipt_is_put_in_order_before_the_checks() {
    let repo = TempRepo::new();
    // An `ask` with every field of `done` filled in too, and no `version`.
    let mut ask = reply(ASK);
    ask["reply"]["title"] = json!("Export");
    ask["reply"]["summary"] = json!("A summary.");
    ask["reply"]["entries"] = json!([{"title": "t", "content": "c", "clarity": "inferred"}]);
    // A `done` that cites the person's answer by the question's position.
    let done = DONE.replace("qa:deployment_target", "qa:question_1");
    let mock = MockChat::start(vec![Step::Receipt(ask), Step::Receipt(reply(&done))]);
    let out = against(interview(&repo).out("-"), &mock, &[])
        .run()
        .exits(0);
    assert!(out.stdout.contains("It runs on one VM"), "{}", out.stdout);
    // The entry cites the answer by its topic, as the person's own answer does.
    assert_eq!(
        out.stdout
            .matches("Sources: answer to `deployment_target`")
            .count(),
        2,
        "{}",
        out.stdout
    );
    assert!(out.events("receipt_rejected").is_empty());
    assert_eq!(mock.seen().len(), 2, "each receipt was taken as it came");
}

#[test]
fn a_rejected_receipt_is_corrected_once_inside_the_turn_with_the_checks_words() {
    let repo = TempRepo::new();
    let copied = ASK.replace(r#""recommended":"k8s""#, r#""recommended":"value""#);
    let mock = MockChat::start(vec![
        Step::Text("I will ask where it runs.".into()),
        Step::Receipt(reply(&copied)),
        Step::Receipt(reply(ASK)),
        Step::Receipt(wire(DONE)),
    ]);
    let out = against(interview(&repo), &mock, &[]).run().exits(0);
    let seen = mock.seen();
    let told = seen[2].body["messages"].as_array().unwrap().last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        told.contains(r#"$.questions[0].recommended: "value" is not one of the option values"#),
        "{told}"
    );
    assert!(
        out.events("receipt_rejected").is_empty(),
        "the session never saw the bad one"
    );
    assert_eq!(out.events("turn_start").len(), 2, "no turn was retried");
}

#[test]
fn a_server_that_refuses_json_schema_is_asked_for_the_receipt_as_text() {
    let repo = TempRepo::new();
    let fenced = format!("```json\n{}\n```", reply(ASK));
    let mock = MockChat::without_schema(vec![
        Step::Text("Ready to ask.".into()),
        Step::Text(fenced),
        Step::Receipt(wire(DONE)),
    ]);
    let out = against(interview(&repo), &mock, &[]).run().exits(0);
    let seen = mock.seen();
    assert_eq!(seen[1].status, 400);
    assert!(seen[2].body.get("response_format").is_none());
    let notes = out.events("runner_note");
    assert!(
        notes
            .iter()
            .any(|n| n["text"].as_str().unwrap().contains("json_schema")),
        "{notes:#?}"
    );
}

/// The last message of the `n`th request, and the entries schema it asked for (if any).
fn receipt_request(mock: &MockChat, n: usize) -> (String, String) {
    let body = &mock.seen()[n].body;
    let told = body["messages"].as_array().unwrap().last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    let done = &body["response_format"]["json_schema"]["schema"]["properties"]["reply"]["anyOf"];
    let entries = done
        .as_array()
        .and_then(|forms| {
            forms
                .iter()
                .find(|f| f["properties"].get("entries").is_some())
        })
        .map(|f| f["properties"]["entries"].to_string())
        .unwrap_or_default();
    (told, entries)
}

/// The model read README.md in turn 2 and was answered in turn 1: its receipt's request names
/// `README.md:1` and `qa:deployment_target`, and the schema allows a `confirmed` entry to cite
/// only the lines it read (a small model cited a `src/main.rs` that does not exist).
#[test]
fn the_receipt_request_names_the_sources_that_hold_and_its_schema_allows_only_them() {
    let repo = TempRepo::new();
    let read = call(
        "read_file",
        json!({"path": "README.md", "start_line": null, "end_line": null}),
    );
    let mock = MockChat::start(vec![
        Step::Receipt(wire(ASK)),
        Step::Calls(vec![read]),
        Step::Text("I have read enough.".into()),
        Step::Receipt(reply(DONE)),
    ]);
    against(interview(&repo), &mock, &[]).run().exits(0);
    let (told, entries) = receipt_request(&mock, 3);
    assert!(
        told.contains("`README.md:1`, `README.md:3`") && told.contains("`qa:deployment_target`"),
        "{told}"
    );
    let confirmed = json!({"type": "array", "items": {"type": "string",
        "enum": ["README.md:1", "README.md:3"]}});
    assert!(entries.contains(&confirmed.to_string()), "{entries}");
    assert_eq!(mock.refusals(), Vec::<String>::new());
}

/// A citation that does not hold is corrected inside the turn with the checks' words and the
/// list of the sources that do.
#[test]
fn a_citation_that_does_not_hold_is_corrected_with_the_sources_that_do() {
    let repo = TempRepo::new();
    let read = call(
        "read_file",
        json!({"path": "README.md", "start_line": 1, "end_line": 1}),
    );
    let invented = DONE.replace("README.md:1", "src/main.rs:1");
    let mock = MockChat::start(vec![
        Step::Receipt(wire(ASK)),
        Step::Calls(vec![read]),
        Step::Text("I have read enough.".into()),
        Step::Receipt(reply(&invented)),
        Step::Receipt(reply(DONE)),
    ]);
    let out = against(interview(&repo), &mock, &[]).run().exits(0);
    let (told, _) = receipt_request(&mock, 4);
    assert!(told.contains("`src/main.rs` does not exist"), "{told}");
    assert!(
        told.contains("no other `path:line` does): `README.md:1`."),
        "{told}"
    );
    assert!(out.events("receipt_rejected").is_empty());
}

/// Every question skipped (as `--missing skip` does): the receipt's request says no entry can be
/// `declared-by-user` and which topics were not answered, and its schema has no such entry.
#[test]
fn with_every_question_skipped_no_entry_may_be_declared_by_the_user() {
    let repo = TempRepo::new();
    let read = call(
        "read_file",
        json!({"path": "README.md", "start_line": null, "end_line": null}),
    );
    let inferred = DONE.replace(
        r#""clarity":"declared-by-user","sources":["qa:deployment_target"]"#,
        r#""clarity":"inferred","sources":[]"#,
    );
    let mock = MockChat::start(vec![
        Step::Receipt(wire(ASK)),
        Step::Calls(vec![read]),
        Step::Text("I have read enough.".into()),
        Step::Receipt(reply(&inferred)),
    ]);
    let skipping = Interview::of_work_item(&repo)
        .preset("openai")
        .answers(r#"{ "interview_answers": 1, "gate": "y" }"#)
        .args(["--missing", "skip"])
        .yes()
        .env("OPENAI_API_KEY", crate::util::mock_chat::KEY);
    against(skipping, &mock, &[]).run().exits(0);
    let (told, entries) = receipt_request(&mock, 3);
    assert!(
        told.contains("No question was answered: no entry can be `declared-by-user`")
            && told.contains("Not answered, so never cited: `deployment_target`"),
        "{told}"
    );
    assert!(
        !entries.is_empty() && !entries.contains("declared-by-user"),
        "{entries}"
    );
}

/// Qwen2.5-Coder 1.5B under llama.cpp's server answered `tool_choice: "required"` with a receipt,
/// having read nothing: the brief's last words tell it to look first, with a tool call alone
/// (and say nothing of tools to a server that has none).
#[test]
fn the_model_is_told_to_look_before_it_answers() {
    let look = "your first answer is a tool call alone";
    let repo = TempRepo::new();
    let mock = MockChat::start(vec![Step::Receipt(wire(ASK)), Step::Receipt(wire(DONE))]);
    against(interview(&repo), &mock, &[]).run().exits(0);
    let brief = mock.seen()[0].body["messages"][1]["content"].clone();
    let last = brief.as_str().unwrap().trim_end().lines().last().unwrap();
    assert!(last.contains(look), "{last}");
    let repo = TempRepo::new();
    let mock = MockChat::without_tools(vec![Step::Receipt(wire(ASK)), Step::Receipt(wire(DONE))]);
    against(interview(&repo), &mock, &[]).run().exits(0);
    let brief = mock.seen()[1].body["messages"][1]["content"].clone();
    assert!(!brief.as_str().unwrap().contains(look), "{brief}");
}

#[test]
fn no_server_no_such_host_and_no_key_are_said_at_once_and_plainly() {
    let repo = TempRepo::new();
    let brief = repo.scratch("brief.md");
    std::fs::write(&brief, "# A brief\n").unwrap();
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let run = |base: Option<String>| {
        let started = std::time::Instant::now();
        let mut cmd = std::process::Command::new(bin());
        cmd.args(["runner", "openai", "--model", "m"])
            .current_dir(repo.path())
            .env("INTERVIEW_BRIEF", &brief)
            .env("OPENAI_API_KEY", "")
            .env_remove("OPENAI_BASE_URL");
        if let Some(base) = base {
            cmd.args(["--base-url", &base]);
        }
        let out = cmd.output().unwrap();
        assert!(!out.status.success());
        let seconds = started.elapsed().as_secs_f64();
        assert!(seconds < 5.0, "{seconds} s");
        assert!(!stdout(&out).contains("usage"), "{}", stdout(&out));
        stderr(&out)
    };
    let refused = run(Some(format!("http://127.0.0.1:{closed}/v1")));
    assert!(
        refused.contains("connection refused, nothing listens there"),
        "{refused}"
    );
    let dns = run(Some("http://no-such-host.invalid/v1".into()));
    assert!(
        dns.contains("its host name does not resolve (DNS)"),
        "{dns}"
    );
    let keyless = run(None);
    assert!(
        keyless.contains("OPENAI_API_KEY is not set, and https://api.openai.com/v1 needs your key"),
        "{keyless}"
    );
}

/// A real local model, opt-in: `INTERVIEW_MODEL_URL=http://127.0.0.1:8099/v1` (llama.cpp's
/// server, ollama, vLLM; `INTERVIEW_MODEL=NAME` where the server needs a model name): an
/// interview about a small repository, its answers replayed, must end with a document the
/// checks accepted and at least one tool call on record. It prints what it measured.
#[test]
fn a_real_local_model_interviews_end_to_end() {
    let var = |names: [&str; 2]| {
        names
            .iter()
            .find_map(|n| std::env::var(n).ok().filter(|v| !v.is_empty()))
    };
    let Some(url) = var(["INTERVIEW_MODEL_URL", "INTERVIEW_E2E_MODEL_URL"]) else {
        not_run(
            "set INTERVIEW_MODEL_URL to a local OpenAI-compatible server (and INTERVIEW_MODEL to its model)",
        );
        return;
    };
    let model = var(["INTERVIEW_MODEL", "INTERVIEW_E2E_MODEL"]).unwrap_or("local".into());
    let repo = TempRepo::new();
    repo.commit_files(&["export"]);
    let started = std::time::Instant::now();
    let out = Interview::of_work_item(&repo)
        .preset("openai")
        .answers(r#"{ "interview_answers": 1, "gate": "y" }"#)
        .args(["--missing", "skip", "--turn-timeout", "3600"])
        .yes()
        .out("-")
        .env("OPENAI_API_KEY", "")
        .arg("--")
        .args(["--model", &model, "--base-url", &url])
        .run();
    let ends = out.events("turn_end");
    let seconds: Vec<String> = ends
        .iter()
        .map(|e| format!("{:.0}", e["duration_ms"].as_f64().unwrap_or(0.0) / 1000.0))
        .collect();
    let tokens: Vec<String> = ends
        .iter()
        .map(|e| {
            let u = &e["usage"];
            format!("{}+{}", u["input_tokens"], u["output_tokens"])
        })
        .collect();
    eprintln!(
        "real model: exit {}, {} turns (seconds each: {}; tokens in+out: {}), {} tool calls, {} receipts rejected, {:.0} s in all",
        out.code,
        ends.len(),
        seconds.join(", "),
        tokens.join(", "),
        out.events("tool_call").len(),
        out.events("receipt_rejected").len(),
        started.elapsed().as_secs_f64()
    );
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(
        !out.events("tool_call").is_empty(),
        "the model used no tool"
    );
}

/// A small model that only repeats its calls (Qwen2.5-Coder 1.5B read the same three files in
/// 20 requests running) is not answered again: a repeated call says its result is above, and a
/// message of repeats alone ends the looking — the next request asks for the receipt.
#[test]
fn a_model_that_only_repeats_its_calls_is_asked_for_the_receipt() {
    let repo = TempRepo::new();
    let read = call(
        "read_file",
        json!({"path": "README.md", "start_line": null, "end_line": null}),
    );
    let same = call(
        "read_file",
        json!({"end_line": null, "path": "README.md", "start_line": null}),
    );
    let mock = MockChat::start(vec![
        Step::Receipt(wire(ASK)),
        Step::Calls(vec![read]),
        Step::Calls(vec![same]),
        Step::Receipt(reply(DONE)),
    ]);
    against(interview(&repo), &mock, &[]).run().exits(0);
    let seen = mock.seen();
    let receipt_request = &seen[3].body;
    assert!(
        receipt_request.get("response_format").is_some() && receipt_request.get("tools").is_none(),
        "the request after the repeat: {receipt_request}"
    );
    let results = tool_results(&mock);
    assert_eq!(results.len(), 2, "{results:?}");
    assert!(
        results[1].contains("you called read_file with these arguments before in this turn"),
        "{}",
        results[1]
    );
    assert_eq!(mock.refusals(), Vec::<String>::new());
}
