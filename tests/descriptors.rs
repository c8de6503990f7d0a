//! What a runner inherits besides its standard streams: nothing. The tool is started the way
//! `interview … 9<>FILE` starts it (descriptor 9 open on a scratch file, not close-on-exec), and
//! a runner that writes through descriptor 9 must reach nothing, confined or not; its standard
//! streams are the brief or `/dev/null` and pipes, never the person's terminal.
//! The runner is fixtures/runners/checks-its-descriptors.sh.

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::util::{Interview, TempRepo, WAIT, bin, finish_within, runner, stderr};

/// Start `cmd` with descriptor 9 open for writing on `file`, as a shell's `9>FILE` would.
fn with_descriptor_9(cmd: &mut Command, file: &Path) {
    let file = std::fs::File::create(file).unwrap();
    // SAFETY: the closure runs between fork and exec and only calls dup2(2), which is
    // async-signal-safe; `file` is owned by the closure and only its number is read.
    unsafe {
        cmd.pre_exec(move || {
            use std::os::fd::AsRawFd;
            if nix::libc::dup2(file.as_raw_fd(), 9) == 9 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        });
    }
}

/// Run an interview with `sandbox` whose runner writes through descriptor 9, and check that
/// nothing arrived and that the runner had no descriptor 9 at all.
fn nothing_reaches_descriptor_9(sandbox: &str) {
    let repo = TempRepo::new();
    let target = repo.scratch("fd9-target");
    let mut cmd = Interview::of_work_item(&repo)
        .runner("checks-its-descriptors.sh")
        .answers(r#"{ "interview_answers": 1, "answers": {} }"#)
        .yes()
        .out("-")
        .args(["--sandbox", sandbox, "--max-turns", "1"])
        .command();
    with_descriptor_9(&mut cmd, &target);
    let child = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start interview");
    let out = finish_within(child, WAIT, "the interview");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let log = repo.session_file("turns/001/runner.log");
    assert!(!log.contains("fd 9 was open"), "--sandbox {sandbox}: {log}");
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        "",
        "--sandbox {sandbox}: the runner wrote through descriptor 9"
    );
}

#[test]
fn a_runner_cannot_write_through_a_descriptor_the_tool_inherited_in_the_sandbox() {
    nothing_reaches_descriptor_9("auto");
}

#[test]
fn a_runner_cannot_write_through_a_descriptor_the_tool_inherited_without_the_sandbox() {
    nothing_reaches_descriptor_9("off");
}

/// The launcher itself, started directly with descriptor 9 open (no tool before it to mark it
/// close-on-exec): it closes the descriptor before it executes the program.
#[test]
fn the_sandbox_launcher_closes_inherited_descriptors_before_the_runner_starts() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("fd9-target");
    let policy = serde_json::json!({
        "tool_pid": std::process::id(),
        "landlock": false,
        "namespaces": false,
        "tmp": dir.path(),
        "writable": [],
        "protected": [],
        "visible": [],
    });
    let mut cmd = Command::new(bin());
    cmd.args(["__sandbox", "run", &policy.to_string(), "--"])
        .arg(runner("checks-its-descriptors.sh"))
        .env("INTERVIEW_RECEIPT", dir.path().join("receipt.json"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    with_descriptor_9(&mut cmd, &target);
    let out = finish_within(cmd.spawn().unwrap(), WAIT, "the launcher");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stderr(&out).contains("fd 9 was open"), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "");
}

#[test]
fn a_runners_standard_streams_are_never_the_persons_terminal() {
    let repo = TempRepo::new();
    let pty = Interview::of_work_item(&repo)
        .runner("checks-its-descriptors.sh")
        .args(["--max-turns", "1"])
        .out("-")
        .at_terminal();
    let (code, screen) = pty.finish();
    assert_eq!(code, 0, "{screen}");
    let log = repo.session_file("turns/001/runner.log");
    assert!(!log.contains("is a terminal"), "{log}");
}
