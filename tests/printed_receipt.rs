//! A runner that prints its receipt (`receipt = "stdout"`, as aider does) after megabytes of
//! other output: the search for it is linear, the output is capped as it is read, and Ctrl+C
//! still ends the tool at once. The runner is fixtures/runners/prints-at-length.sh.

use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

use crate::util::{Interview, TempRepo, WAIT, finish_within, runner, stderr, wait_until};

/// How long a whole turn after 4 MiB of output may take here: the search itself takes
/// milliseconds, the rest is starting the tool, its snapshots and the shell printing (under a
/// second in a debug build). The search it replaced took minutes on the same output.
const QUICKLY: Duration = Duration::from_secs(10);

/// How soon after a Ctrl+C the tool must have ended (under 0.2 s measured; the rest is room
/// for a loaded machine).
const PROMPTLY: Duration = Duration::from_secs(2);

/// An interview whose runner is prints-at-length.sh, read from stdout, printing `bytes` of
/// `pattern` and then (unless `receipt` is false) its receipt.
fn printing<'r>(repo: &'r TempRepo, pattern: &str, bytes: usize, receipt: bool) -> Interview<'r> {
    repo.write(
        ".interview/config.toml",
        &format!(
            "[runner]\ncommand = [{:?}]\nreceipt = \"stdout\"\n",
            runner("prints-at-length.sh")
        ),
    );
    Interview::of_work_item(repo)
        .answers(r#"{ "interview_answers": 1, "answers": {} }"#)
        .yes()
        .out("-")
        .runner_env("PRINT_PATTERN", pattern)
        .runner_env("PRINT_BYTES", bytes.to_string())
        .runner_env("PRINT_RECEIPT", if receipt { "yes" } else { "no" })
}

/// Run it with no retries, wait for it (a bounded wait: the search this replaced took hours on
/// some of these outputs), and say how long it took.
fn one_attempt(interview: Interview<'_>) -> (Output, Duration) {
    let started = Instant::now();
    let child = interview
        .args(["--retries", "0"])
        .command()
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start interview");
    let out = finish_within(child, WAIT, "the turn after 4 MiB of output");
    let took = started.elapsed();
    eprintln!("the turn took {took:?}");
    (out, took)
}

#[test]
fn a_receipt_after_four_mib_of_prose_ends_the_turn_within_seconds() {
    let repo = TempRepo::new();
    let (out, took) = one_attempt(printing(&repo, "prose", 4_000_000, true));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(repo.state()["status"], "done", "{}", stderr(&out));
    assert!(took < QUICKLY, "the turn took {took:?}");
}

#[test]
fn a_receipt_after_four_mib_of_unfinished_objects_ends_the_turn_within_seconds() {
    let repo = TempRepo::new();
    let (out, took) = one_attempt(printing(&repo, "unfinished", 4_000_000, true));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(repo.state()["status"], "done", "{}", stderr(&out));
    assert!(took < QUICKLY, "the turn took {took:?}");
}

#[test]
fn four_mib_of_small_objects_fail_the_turn_within_seconds_naming_the_first_lines() {
    let repo = TempRepo::new();
    let (out, took) = one_attempt(printing(&repo, "objects", 4_000_000, true));
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert!(took < QUICKLY, "the turn took {took:?}");
    // 1,333,333 lines of `{}`, a last `{` cut short, then the receipt.
    assert!(
        stderr(&out).contains(
            "1333334 JSON objects in the runner's output (at lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, …)"
        ),
        "{}",
        stderr(&out)
    );
}

#[test]
fn output_past_the_cap_is_too_large_not_searched_in_part() {
    let repo = TempRepo::new();
    let (out, _) = one_attempt(printing(&repo, "prose", 5 << 20, true));
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("over the limit of 4194304 bytes"),
        "{}",
        stderr(&out)
    );
    // The log is capped too; what went past both was read and dropped, not kept.
    let log = std::fs::metadata(repo.session_dir().join("turns/001/runner.log")).unwrap();
    assert!(log.len() < 2 << 20, "runner.log is {} bytes", log.len());
}

/// Start an interview whose runner prints 4 MiB of small objects on every attempt, wait until
/// the first has printed, wait `after`, send SIGINT, and check the tool ended aborted within
/// [`PROMPTLY`].
fn ctrl_c_after_the_output(after: Duration) {
    let repo = TempRepo::new();
    let child = printing(&repo, "objects", 4_000_000, true)
        .args(["--retries", "3"])
        .command()
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start interview");
    let sessions = repo.path().join(".interview/sessions");
    wait_until(WAIT, "the runner to have printed", || {
        std::fs::read_dir(&sessions)
            .map(|dirs| {
                dirs.flatten()
                    .any(|d| d.path().join("turns/001/out/printed").exists())
            })
            .unwrap_or(false)
    });
    std::thread::sleep(after);
    let sent = Instant::now();
    kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).unwrap();
    let out = finish_within(child, WAIT, "the tool after Ctrl+C");
    let took = sent.elapsed();
    eprintln!("Ctrl+C {after:?} after the output: the tool ended {took:?} after it");
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    assert!(
        took < PROMPTLY,
        "Ctrl+C {after:?} after the output ended the tool only after {took:?}: {}",
        stderr(&out)
    );
    assert_eq!(repo.state()["status"], "aborted", "{:#}", repo.state());
}

#[test]
fn ctrl_c_as_the_output_ends_or_while_it_is_searched_ends_the_tool_at_once() {
    for ms in [0, 50, 150, 400] {
        ctrl_c_after_the_output(Duration::from_millis(ms));
    }
}
