//! The model runner writes no file whatever its model asks (under `strace`).

use super::*;

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
