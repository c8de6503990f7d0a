//! The model runner's read-only tools and their bounds: paths out of the worktree, links out, huge
//! and binary files refused with clear tool errors; thousands of calls held to the turn's budget.

use super::*;

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
