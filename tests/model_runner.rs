//! The model runner (`--runner openai`, docs/runners.md) against a strict loopback mock of the
//! Chat Completions API (tests/util/mock_chat.rs): a whole interview through it, its read-only
//! tools and their bounds, what it does with what servers do (429, 5xx, a context overflow, no
//! tool support, streaming, malformed tool arguments), and that it writes nothing.

use serde_json::{Value, json};

use crate::util::mock_chat::{KEY, MockChat, Step};
use crate::util::mock_model::wire;
use crate::util::*;

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
fn paths_out_of_the_worktree_links_out_huge_and_binary_files_get_clear_tool_errors() {
    let repo = TempRepo::new();
    let outside = repo.scratch("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "TOP-SECRET-IS-OUTSIDE\n").unwrap();
    std::os::unix::fs::symlink(&outside, repo.path().join("link-out")).unwrap();
    std::os::unix::fs::symlink("README.md", repo.path().join("link-in")).unwrap();
    repo.write(".gitignore", ".env\n");
    repo.write(".env", "API_KEY=TOP-SECRET-IS-ENV\n");
    std::fs::write(
        repo.path().join("blob.bin"),
        b"\x7fELF\0\0\x01TOP-SECRET-IS-BINARY",
    )
    .unwrap();
    let huge = std::fs::File::create(repo.path().join("huge.txt")).unwrap();
    huge.set_len(64 * 1024 * 1024).unwrap();
    let read = |p: &str| {
        call(
            "read_file",
            json!({"path": p, "start_line": null, "end_line": null}),
        )
    };
    let mock = MockChat::start(vec![
        Step::Calls(vec![
            read("../outside/secret.txt"),
            read(&outside.join("secret.txt").display().to_string()),
            read("link-out/secret.txt"),
            call("list_directory", json!({"path": "link-out"})),
            call(
                "search",
                json!({"pattern": "TOP-SECRET", "path": null, "fixed_string": true}),
            ),
            read(".env"),
            read(".git/config"),
            read("blob.bin"),
            read("huge.txt"),
            read("link-in"),
            ("read_file".into(), "{\"path\": \"README.md\"".into()),
            (
                "delete_file".into(),
                json!({"path": "README.md"}).to_string(),
            ),
            call("git_log", json!({"path": "../x", "max_count": 5})),
        ]),
        Step::Receipt(wire(ASK)),
        Step::Receipt(wire(DONE)),
    ]);
    against(interview(&repo), &mock, &[]).run().exits(0);
    assert_eq!(mock.refusals(), Vec::<String>::new());
    let r = tool_results(&mock);
    let expect = [
        "`..` is not allowed",
        "is an absolute path",
        "symbolic link that leads outside the repository",
        "symbolic link that leads outside the repository",
        "no match for \"TOP-SECRET\"",
        "ignored by the repository's ignore files",
        "inside .git which is not shown",
        "is a binary file",
        "is 67108864 bytes; files over 4194304 bytes are not read",
        "1: # test repo",
        "the arguments are not valid JSON",
        "there is no tool \"delete_file\"",
        "leaves the repository",
    ];
    assert_eq!(r.len(), expect.len(), "{r:#?}");
    for (got, want) in r.iter().zip(expect) {
        assert!(got.contains(want), "expected {want:?} in {got:?}");
    }
    // Nothing secret ever went to the server.
    for seen in mock.seen() {
        assert!(
            !seen.body.to_string().contains("TOP-SECRET-IS"),
            "{}",
            seen.body
        );
    }
    // Each refusal is in the transcript with its reason.
    let calls = repo.events("tool_call");
    assert_eq!(calls.len(), expect.len());
    assert!(
        calls[0]["error"]
            .as_str()
            .unwrap()
            .contains("`..` is not allowed")
    );
    assert!(calls[9].get("error").is_none(), "{:?}", calls[9]);
}

#[test]
fn a_model_that_calls_thousands_of_tools_is_held_to_the_turns_budget() {
    let repo = TempRepo::new();
    // Each call its own (a repeat of an earlier call is not run at all: model_receipt.rs).
    let many = |from: usize, n: usize| {
        Step::Calls(
            (from..from + n)
                .map(|i| {
                    let pattern = format!("word{i}");
                    call(
                        "search",
                        json!({"pattern": pattern, "fixed_string": true, "path": null}),
                    )
                })
                .collect(),
        )
    };
    let mock = MockChat::start(vec![
        many(0, 2000),
        many(2000, 10),
        many(2010, 10),
        Step::Receipt(wire(ASK)),
        Step::Receipt(wire(DONE)),
    ]);
    let out = against(interview(&repo), &mock, &["--max-tool-calls", "25"])
        .run()
        .exits(0);
    let _ = out;
    assert_eq!(mock.refusals(), Vec::<String>::new());
    let r = tool_results(&mock);
    assert_eq!(r.len(), 2020, "every call is answered, as the API requires");
    let ran = r.iter().filter(|c| !c.starts_with("error:")).count();
    assert_eq!(ran, 25, "only the budget's calls ran");
    assert!(
        r[30].contains("the budget of this turn is spent (25 tool calls)"),
        "{}",
        r[30]
    );
    assert!(
        r[100].contains("more than 64 tool calls in one message"),
        "{}",
        r[100]
    );
    // Once spent, the model is told and tools are no longer offered to it.
    let seen = mock.seen();
    assert_eq!(seen[1].body["tool_choice"], "none");
    let last = &seen[1].body["messages"].as_array().unwrap().last().unwrap()["content"];
    assert!(
        last.as_str()
            .unwrap()
            .contains("tool budget of this turn is spent"),
        "{last}"
    );
}

#[test]
fn a_model_that_never_stops_calling_tools_fails_the_turn_with_a_clear_reason() {
    let repo = TempRepo::new();
    // Each call its own (a repeat of an earlier call is not run at all: model_receipt.rs).
    let calls = |i: usize| {
        let pattern = format!("word{i}");
        Step::Calls(vec![call(
            "search",
            json!({"pattern": pattern, "fixed_string": true, "path": null}),
        )])
    };
    let mock = MockChat::start((0..40).map(calls).collect());
    let out = against(
        interview(&repo).arg("--retries").arg("0"),
        &mock,
        &["--max-tool-calls", "2"],
    )
    .run()
    .exits(4);
    assert!(
        out.stderr
            .contains("the model kept calling tools after the turn's budget was spent"),
        "{}",
        out.stderr
    );
    assert!(mock.seen().len() <= 6, "{}", mock.seen().len());
}

#[test]
fn busy_and_failing_servers_are_retried_and_the_turn_goes_on() {
    let repo = TempRepo::new();
    let mock = MockChat::start(vec![
        Step::Status(429, "Rate limit reached for requests".into()),
        Step::Status(
            500,
            "The server had an error while processing your request".into(),
        ),
        Step::Status(503, "overloaded".into()),
        Step::Receipt(wire(ASK)),
        Step::Receipt(wire(DONE)),
    ]);
    let out = against(interview(&repo), &mock, &[]).run().exits(0);
    let notes = out.events("runner_note");
    assert_eq!(notes.len(), 3, "{notes:#?}");
    assert!(
        notes[0]["text"]
            .as_str()
            .unwrap()
            .contains("answered 429: Rate limit reached")
    );
    assert!(notes[1]["text"].as_str().unwrap().contains("answered 500"));
}

#[test]
fn a_conversation_too_long_for_the_model_fails_at_once_with_the_servers_reason() {
    let repo = TempRepo::new();
    let overflow = "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.";
    let mock = MockChat::start(vec![Step::Status(400, overflow.into())]);
    let out = against(interview(&repo), &mock, &[]).run().exits(4);
    assert!(
        out.stderr
            .contains("the conversation no longer fits the model's context (400)")
            && out.stderr.contains("maximum context length is 8192"),
        "{}",
        out.stderr
    );
    assert_eq!(
        mock.seen().len(),
        1,
        "a 400 is not retried, by the runner nor the session"
    );
}

#[test]
fn a_server_without_tool_calls_gets_one_prompt_with_the_briefs_facts() {
    let repo = TempRepo::new();
    let mock = MockChat::without_tools(vec![Step::Receipt(wire(ASK)), Step::Receipt(wire(DONE))]);
    let out = against(interview(&repo), &mock, &[]).run().exits(0);
    let seen = mock.seen();
    assert_eq!(seen[0].status, 400);
    assert!(seen[1].body.get("tools").is_none(), "{}", seen[1].body);
    assert!(
        seen[1].body["messages"][1]["content"]
            .as_str()
            .unwrap()
            .contains("Export to CSV"),
        "the brief with the work item goes along"
    );
    let notes = out.events("runner_note");
    assert!(
        notes[0]["text"]
            .as_str()
            .unwrap()
            .contains("does not take tool calls"),
        "{notes:#?}"
    );
}

#[test]
fn a_streamed_answer_and_text_around_the_receipt_are_taken_like_a_whole_one() {
    let repo = TempRepo::new();
    let fenced = format!("Here it is:\n```json\n{}\n```\n", wire(DONE));
    let mock = MockChat::start(vec![
        Step::Calls(vec![call(
            "read_file",
            json!({"path": "README.md", "start_line": 1, "end_line": 1}),
        )]),
        Step::Receipt(wire(ASK)),
        Step::Text(fenced),
    ]);
    against(interview(&repo), &mock, &["--stream"])
        .run()
        .exits(0);
    assert_eq!(mock.refusals(), Vec::<String>::new());
    assert!(mock.seen().iter().all(|s| s.body["stream"] == true));
    assert_eq!(
        tool_results(&mock)[0],
        "README.md (lines 1-1 of 3)\n1: # test repo\n"
    );
}

/// The calls in an `strace -f -e trace=%file,…` output that would change a file system: an
/// open for writing, creating or truncating, and every call that makes, removes, renames,
/// links or changes the mode, owner or times of a file.
fn writes_in(trace: &str) -> Vec<String> {
    const CHANGING: &[&str] = &[
        "creat(",
        "mkdir(",
        "mkdirat(",
        "mknod(",
        "mknodat(",
        "unlink(",
        "unlinkat(",
        "rmdir(",
        "rename(",
        "renameat(",
        "renameat2(",
        "link(",
        "linkat(",
        "symlink(",
        "symlinkat(",
        "chmod(",
        "fchmodat(",
        "fchmodat2(",
        "chown(",
        "lchown(",
        "fchownat(",
        "truncate(",
        "utimensat(",
        "utime(",
        "utimes(",
        "setxattr(",
        "lsetxattr(",
        "removexattr(",
    ];
    trace
        .lines()
        .filter(|l| {
            let call = l.split_once(' ').map(|(_, c)| c.trim_start()).unwrap_or(l);
            let opens = call.starts_with("open(")
                || call.starts_with("openat(")
                || call.starts_with("openat2(");
            (opens
                && ["O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC"]
                    .iter()
                    .any(|f| call.contains(f)))
                || CHANGING.iter().any(|c| call.starts_with(c))
        })
        .map(str::to_string)
        .collect()
}

#[test]
fn the_model_runner_writes_no_file_whatever_its_model_asks() {
    if !prerequisite(
        strace_sees_the_tool(),
        "strace that may trace a child and see the tool, as root (.ci/run installs it)",
    ) {
        return;
    }
    let repo = TempRepo::new();
    repo.commit_files(&["export"]);
    let brief = repo.scratch("brief.md");
    std::fs::write(&brief, "# Brief\n\nAsk about the export.\n").unwrap();
    let mock = MockChat::start(vec![
        Step::Calls(vec![
            call("list_directory", json!({"path": "."})),
            call(
                "read_file",
                json!({"path": "src/export.rs", "start_line": null, "end_line": null}),
            ),
            call(
                "search",
                json!({"pattern": "export", "path": null, "fixed_string": false}),
            ),
            call("git_log", json!({"path": null, "max_count": null})),
            call(
                "git_show",
                json!({"commit": "HEAD~1", "path": "src/lib.rs"}),
            ),
            call(
                "git_blame",
                json!({"path": "src/export.rs", "start_line": null, "end_line": null}),
            ),
            call(
                "write_file",
                json!({"path": "README.md", "content": "pwned"}),
            ),
        ]),
        Step::Receipt(wire(ASK)),
    ]);
    let trace = repo.scratch("runner.strace");
    let out = std::process::Command::new("strace")
        .args(["-f", "-qq", "-e", "trace=%file,%desc", "-o"])
        .arg(&trace)
        .arg(bin())
        .args([
            "runner",
            "openai",
            "--model",
            "mock-model",
            "--base-url",
            &mock.base_url(),
        ])
        .current_dir(repo.path())
        .env("HOME", repo.home())
        .env("OPENAI_API_KEY", KEY)
        .env("INTERVIEW_BRIEF", &brief)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run the model runner under strace");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // It ran every tool (the last one refused) and printed its receipt.
    assert_eq!(
        stdout.matches("\"event\":\"tool_call\"").count(),
        7,
        "{stdout}"
    );
    assert!(
        stdout.contains("there is no tool \\\"write_file\\\""),
        "{stdout}"
    );
    assert!(stdout.contains("\"event\":\"receipt\""), "{stdout}");
    let trace = std::fs::read_to_string(&trace).unwrap();
    assert!(trace.contains("src/export.rs"), "the trace saw the reads");
    assert_eq!(
        writes_in(&trace),
        Vec::<String>::new(),
        "the runner changed the file system"
    );
    // The same trace of a program that writes one file shows that write.
    let control = repo.scratch("control.strace");
    std::process::Command::new("strace")
        .args(["-f", "-qq", "-e", "trace=%file,%desc", "-o"])
        .arg(&control)
        .args(["sh", "-c", "echo x > written.txt"])
        .current_dir(repo.home())
        .status()
        .unwrap();
    let control = writes_in(&std::fs::read_to_string(&control).unwrap());
    assert!(
        control.iter().any(|l| l.contains("written.txt")),
        "{control:?}"
    );
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

/// A port something listens on that is not the model's server.
#[cfg(target_os = "linux")]
fn other_listener() -> (std::net::TcpListener, u16) {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    (l, port)
}

#[cfg(target_os = "linux")]
#[test]
fn under_the_sandbox_the_model_runner_reaches_its_servers_port_and_no_other() {
    let (_other, port) = other_listener();
    let run = |sandbox: &str| {
        // A repository per run: the latest session is found by its id, and two sessions begun
        // in the same second sort by their random part.
        let repo = TempRepo::new();
        let mock = MockChat::start(vec![Step::Receipt(wire(ASK)), Step::Receipt(wire(DONE))]);
        let out = against(interview(&repo).args(["--sandbox", sandbox]), &mock, &[])
            .runner_env("INTERVIEW_TEST_MODEL_CONNECT", port.to_string())
            .run()
            .exits(0);
        let notes = out.events("runner_note");
        notes[0]["text"].as_str().unwrap().to_string()
    };
    let abi = support_line("Landlock");
    if !prerequisite(
        abi.contains("ABI")
            && !abi.contains("ABI 1")
            && !abi.contains("ABI 2")
            && !abi.contains("ABI 3"),
        "Landlock ABI 4 or later (TCP ports)",
    ) {
        return;
    }
    let confined = run("auto");
    assert!(
        confined.contains(&format!("test connect to port {port}: refused")),
        "{confined}"
    );
    let open = run("off");
    assert!(
        open.contains(&format!("test connect to port {port}: connected")),
        "{open}"
    );
}

/// The line of `interview runners` about `what` in the sandbox's part.
#[cfg(target_os = "linux")]
fn support_line(what: &str) -> String {
    let out = std::process::Command::new(bin())
        .arg("runners")
        .output()
        .expect("interview runners");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find(|l| l.trim_start().starts_with(what))
        .unwrap_or("")
        .to_string()
}

#[test]
fn interview_runners_names_the_model_runners_server_without_its_key() {
    let repo = TempRepo::new();
    let out = repo
        .cmd()
        .arg("runners")
        .env("OPENAI_API_KEY", "sk-never-shown")
        .env("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1")
        .output()
        .unwrap();
    let text = stdout(&out);
    assert!(
        text.contains("openai   embedded: any OpenAI-compatible server, http://127.0.0.1:8080/v1, OPENAI_API_KEY set"),
        "{text}"
    );
    assert!(
        text.contains("ollama   embedded: http://localhost:11434/v1, no key"),
        "{text}"
    );
    assert!(!text.contains("sk-never-shown"), "{text}");
}

#[test]
fn interview_runners_shows_no_password_or_query_of_the_servers_address_as_text_or_json() {
    let repo = TempRepo::new();
    let address = "https://me:pa55word@models.example.com/v1?api-key=k3y";
    let run = |json: bool| {
        let mut cmd = repo.cmd();
        cmd.arg("runners")
            .env("PATH", "/nonexistent")
            .env("OPENAI_API_KEY", "sk-never-shown")
            .env("OPENAI_BASE_URL", address)
            .env("OPENAI_MODEL", "small-model");
        if json {
            cmd.arg("--json");
        }
        stdout(&cmd.output().unwrap())
    };
    let text = run(false);
    assert!(
        text.contains("https://…@models.example.com/v1?…, OPENAI_API_KEY set"),
        "{text}"
    );
    let json: Value = serde_json::from_str(&run(true)).expect("runners --json prints JSON");
    let names: Vec<&str> = json["runners"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["name"].as_str())
        .collect();
    assert_eq!(
        names,
        [
            "builtin", "openai", "ollama", "claude", "codex", "gemini", "aider"
        ]
    );
    let openai = &json["runners"][1];
    assert_eq!(openai["embedded"], true);
    assert_eq!(openai["base_url"], "https://…@models.example.com/v1?…");
    assert_eq!(openai["key_set"], true);
    assert_eq!(openai["model"], "small-model");
    assert_eq!(json["runners"][2]["key_set"], false, "ollama sends no key");
    for shown in [&text, &json.to_string()] {
        for secret in ["pa55word", "k3y", "sk-never-shown", "me:"] {
            assert!(!shown.contains(secret), "{secret} shown: {shown}");
        }
    }
}
