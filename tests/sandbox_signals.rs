//! A stop signal in the sandbox launcher's first milliseconds: while the namespaces are being
//! set up, before the namespace's first process or the runner exists, or between their forks.
//! The launcher is held in each window (its debug-only test hook, src/sandbox/test_hook.rs)
//! until the signal is pending on it; the turn must then end at once, not at the grace's
//! SIGKILL, and the runner must never start.
//!
//! Run as root, tests/sandbox.rs runs this module again as `nobody`.

use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;

use crate::sandbox::offer;
use crate::util::{Interview, TempRepo, WAIT, bin, finish_within, stderr, wait_until};

/// The grace between the tool's SIGTERM and its SIGKILL, given explicitly.
const GRACE: &str = "5";

/// How soon after the signal the tool must have ended. A signal lost in the launcher ends the
/// turn only at the SIGKILL, 5 s ([`GRACE`]) after the tool's SIGTERM; handed on, it ends the
/// runner's start within milliseconds, and the rest is the tool's 1 ms poll and saving the
/// session (about 0.1 s here). 2 s leaves a loaded machine ten times that and stays well short
/// of the grace.
const PROMPTLY: Duration = Duration::from_secs(2);

/// True where the runner gets no namespaces: the windows held here do not exist. Fails the test
/// under `INTERVIEW_CI=1`; elsewhere says it skipped `what`.
fn no_namespaces(what: &str) -> bool {
    !crate::util::prerequisite(
        offer().namespaces,
        &format!("user namespaces ({what}; see `interview runners`)"),
    )
}

fn hold_at<'r>(interview: Interview<'r>, point: &str, mark: &Path) -> Interview<'r> {
    interview
        .env("INTERVIEW_TEST_LAUNCHER_PAUSE", point)
        .env("INTERVIEW_TEST_LAUNCHER_PAUSE_MARK", mark)
}

/// Start an interview whose runner never ends, hold its launcher at `point`, send `signal` to
/// the tool, and check that the session ends aborted with 130 within [`PROMPTLY`] and that the
/// runner never ran.
fn the_tool_stopped_while_the_launcher_is_at(point: &str, signal: Signal) {
    let repo = TempRepo::new();
    let pids = repo.scratch("test-pids");
    let mark = repo.scratch("launcher-held");
    let interview = Interview::of_work_item(&repo)
        .runner("never-exits.sh")
        .answers(r#"{ "interview_answers": 1, "answers": {} }"#)
        .yes()
        .args(["--grace", GRACE, "--retries", "0"])
        .env("TEST_PIDS", &pids);
    let child = hold_at(interview, point, &mark)
        .command()
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start interview");
    wait_until(WAIT, &format!("the launcher to be held at {point}"), || {
        mark.exists()
    });
    let sent = Instant::now();
    kill(Pid::from_raw(child.id() as i32), signal).unwrap();
    let out = finish_within(child, WAIT, "the tool after a stop in the launcher");
    let took = sent.elapsed();
    eprintln!("{point}, {signal:?} to the tool: ended {took:?} after it");
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    assert!(
        took < PROMPTLY,
        "a {signal:?} at {point} ended the turn only after {took:?} (the grace is {GRACE} s): {}",
        stderr(&out)
    );
    assert_eq!(repo.state()["status"], "aborted", "{:#}", repo.state());
    assert_eq!(
        std::fs::read_to_string(&pids).unwrap_or_default(),
        "",
        "the runner started after the stop"
    );
}

#[test]
fn a_stop_before_the_namespaces_first_process_exists_ends_the_turn_at_once() {
    if no_namespaces("a_stop_before_the_namespaces_first_process_exists") {
        return;
    }
    the_tool_stopped_while_the_launcher_is_at("launcher", Signal::SIGTERM);
}

#[test]
fn a_stop_before_the_runner_is_forked_ends_the_turn_at_once() {
    if no_namespaces("a_stop_before_the_runner_is_forked") {
        return;
    }
    the_tool_stopped_while_the_launcher_is_at("init", Signal::SIGINT);
}

#[test]
fn a_stop_between_the_runners_fork_and_its_exec_ends_the_turn_at_once() {
    if no_namespaces("a_stop_between_the_runners_fork_and_its_exec") {
        return;
    }
    the_tool_stopped_while_the_launcher_is_at("runner", Signal::SIGHUP);
}

/// The launcher started directly (this test is the tool: its parent), held at `point`, its
/// group sent `signal`: it must end by that very signal within [`PROMPTLY`], its runner unstarted.
fn the_launcher_signalled_at(point: &str, signal: Signal) {
    let scratch = tempfile::tempdir().unwrap();
    let dir = std::fs::canonicalize(scratch.path()).unwrap();
    let (mark, started) = (dir.join("held"), dir.join("started"));
    let policy = serde_json::json!({
        "tool_pid": std::process::id(),
        "landlock": false,
        "namespaces": true,
        "tmp": dir,
        "writable": [],
        "protected": [],
        "visible": [dir],
    });
    let script = format!("echo started > '{}'; sleep 30", started.display());
    let child = Command::new(bin())
        .args(["__sandbox", "run", &policy.to_string(), "--"])
        .args(["/bin/sh", "-c", &script])
        .env("INTERVIEW_TEST_LAUNCHER_PAUSE", point)
        .env("INTERVIEW_TEST_LAUNCHER_PAUSE_MARK", &mark)
        .current_dir(&dir)
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the launcher");
    wait_until(WAIT, &format!("the launcher to be held at {point}"), || {
        mark.exists()
    });
    let sent = Instant::now();
    killpg(Pid::from_raw(child.id() as i32), signal).unwrap();
    let out = finish_within(child, WAIT, "the launcher after a stop");
    let took = sent.elapsed();
    assert_eq!(
        out.status.signal(),
        Some(signal as i32),
        "{point}, {signal:?}: {:?} {}",
        out.status,
        stderr(&out)
    );
    assert!(took < PROMPTLY, "{point}, {signal:?}: ended after {took:?}");
    assert!(!started.exists(), "{point}, {signal:?}: the runner started");
}

#[test]
fn the_launcher_ends_by_each_stop_signal_in_each_window() {
    if no_namespaces("the_launcher_ends_by_each_stop_signal_in_each_window") {
        return;
    }
    for point in ["launcher", "init", "runner"] {
        for signal in [Signal::SIGTERM, Signal::SIGINT, Signal::SIGHUP] {
            the_launcher_signalled_at(point, signal);
        }
    }
}
