//! The process helper with real children: capture, caps, timeouts, groups, sessions, the hook.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::output::LINE_CAP;
use super::*;
use nix::sys::signal::Signal;

fn sh(script: &str) -> Spawn {
    Spawn::new("sh").arg("-c").arg(script)
}

fn alive(pid: i32) -> bool {
    crate::sys::alive(pid)
}

fn wait_gone(pid: i32) -> bool {
    let until = Instant::now() + Duration::from_secs(5);
    while Instant::now() < until {
        if !alive(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

#[test]
fn stdout_and_stderr_are_captured_apart_with_the_exit_status() {
    let f = sh("echo out; echo err >&2; exit 3")
        .capture(1024, 1024)
        .unwrap();
    assert_eq!(f.ending, Ending::Exited(3));
    assert_eq!(f.ending.code(), Some(3));
    assert_eq!(f.sink.stdout, b"out\n");
    assert_eq!(f.sink.stderr, b"err\n");
    assert!(!f.sink.truncated());
    assert!(f.output_complete);
}

#[test]
fn output_past_the_cap_is_drained_so_the_child_never_blocks() {
    // 2 MiB is far more than a pipe holds: a reader that stopped at the cap would hang it.
    let started = Instant::now();
    let f = sh("head -c 2097152 /dev/zero; echo done >&2")
        .timeout(Duration::from_secs(20))
        .capture(1000, 100)
        .unwrap();
    assert_eq!(f.ending, Ending::Exited(0));
    assert_eq!(f.sink.stdout.len(), 1000);
    assert_eq!(f.sink.dropped, 2097152 - 1000);
    assert_eq!(f.sink.stderr, b"done\n");
    assert!(started.elapsed() < Duration::from_secs(10));
}

#[test]
fn a_child_past_its_timeout_is_stopped() {
    let started = Instant::now();
    let f = sh("sleep 30")
        .timeout(Duration::from_millis(300))
        .grace(Duration::from_millis(300))
        .capture(0, 0)
        .unwrap();
    assert_eq!(f.ending, Ending::TimedOut);
    assert_eq!(f.ending.code(), None);
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn a_group_that_ignores_sigterm_is_killed_after_the_grace() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pid");
    let script = format!(
        "trap '' TERM; (trap '' TERM; sleep 30) & echo $! > {}; wait",
        pidfile.display()
    );
    let started = Instant::now();
    let f = sh(&script)
        .timeout(Duration::from_millis(300))
        .grace(Duration::from_millis(500))
        .capture(0, 0)
        .unwrap();
    assert_eq!(f.ending, Ending::TimedOut);
    let elapsed = started.elapsed();
    assert!(elapsed >= Duration::from_millis(800), "{elapsed:?}");
    assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
    let pid: i32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(wait_gone(pid), "the group member {pid} survived");
}

#[test]
fn what_a_child_leaves_in_its_group_is_ended_and_does_not_hold_the_output() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pid");
    // The background sleep inherits stdout: reading until EOF would wait 30 s for it.
    let script = format!("sleep 30 & echo $! > {}; echo hi", pidfile.display());
    let started = Instant::now();
    let f = sh(&script)
        .grace(Duration::from_secs(2))
        .capture(100, 100)
        .unwrap();
    assert_eq!(f.ending, Ending::Exited(0));
    assert_eq!(f.sink.stdout, b"hi\n");
    assert!(f.output_complete);
    assert!(started.elapsed() < Duration::from_secs(5));
    let pid: i32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(wait_gone(pid), "the leftover {pid} survived");
}

#[test]
fn an_escapee_holding_the_pipe_costs_at_most_the_grace() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pid");
    let script = format!(
        "setsid sh -c 'echo $$ > {}; exec sleep 30' & sleep 0.3; echo hi",
        pidfile.display()
    );
    let started = Instant::now();
    let f = sh(&script)
        .grace(Duration::from_millis(500))
        .capture(100, 100)
        .unwrap();
    let elapsed = started.elapsed();
    let pid: i32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let _ = nix::sys::signal::kill(Pid::from_raw(pid), Signal::SIGKILL);
    assert_eq!(f.ending, Ending::Exited(0));
    assert_eq!(f.sink.stdout, b"hi\n");
    assert!(!f.output_complete);
    assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
}

#[test]
fn stdin_is_the_given_file_or_null() {
    let dir = tempfile::tempdir().unwrap();
    let brief = dir.path().join("brief.md");
    std::fs::write(&brief, "the brief\n").unwrap();
    let f = Spawn::new("cat")
        .stdin(Input::File(brief))
        .capture(100, 100)
        .unwrap();
    assert_eq!(f.sink.stdout, b"the brief\n");
    let f = Spawn::new("cat").capture(100, 100).unwrap();
    assert_eq!(f.ending, Ending::Exited(0));
    assert!(f.sink.stdout.is_empty());
}

/// Session id (field 6 of /proc/self/stat) and process group (field 5), as the child sees them.
#[cfg(target_os = "linux")]
fn session_and_group(detach: Detach) -> (String, String, String) {
    let f = sh("echo $$; cut -d' ' -f5,6 /proc/self/stat; exec cut -d' ' -f5,6 /proc/$$/stat")
        .detach(detach)
        .capture(1000, 1000)
        .unwrap();
    let text = String::from_utf8(f.sink.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut ids = lines[2].split(' ');
    (
        lines[0].to_string(),
        ids.next().unwrap().to_string(),
        ids.next().unwrap().to_string(),
    )
}

#[cfg(target_os = "linux")]
#[test]
fn a_session_child_leads_its_own_session_and_group() {
    let (pid, group, session) = session_and_group(Detach::Session);
    assert_eq!(group, pid);
    assert_eq!(session, pid);
}

#[cfg(target_os = "linux")]
#[test]
fn a_group_child_leads_its_own_group_in_our_session() {
    let (pid, group, session) = session_and_group(Detach::Group);
    assert_eq!(group, pid);
    assert_ne!(session, pid);
}

#[test]
fn a_child_killed_by_a_signal_says_which() {
    let f = sh("kill -KILL $$").capture(0, 0).unwrap();
    assert_eq!(f.ending, Ending::Signalled(9));
    assert_eq!(f.ending.code(), Some(137));
}

#[test]
fn a_program_that_does_not_exist_is_an_error_naming_it() {
    let err = Spawn::new("/nonexistent/prog").capture(0, 0).unwrap_err();
    assert!(
        err.to_string().contains("cannot start `/nonexistent/prog`"),
        "{err}"
    );
    let err = Spawn::new("/nonexistent/prog")
        .label("runner `x`")
        .capture(0, 0)
        .unwrap_err();
    assert!(err.to_string().contains("cannot start runner `x`"), "{err}");
    assert!(Spawn::argv::<&str>(&[]).is_err());
}

/// Starts the program with a marked, otherwise empty environment.
struct Marked;

impl Launcher for Marked {
    fn argv(&self, argv: &[std::ffi::OsString]) -> std::io::Result<Vec<std::ffi::OsString>> {
        let mut wrapped: Vec<std::ffi::OsString> =
            vec!["/usr/bin/env".into(), "-i".into(), "CONFINED=yes".into()];
        wrapped.extend(argv.iter().cloned());
        Ok(wrapped)
    }
}

/// Refuses to start anything.
struct Refuses;

impl Launcher for Refuses {
    fn argv(&self, _: &[std::ffi::OsString]) -> std::io::Result<Vec<std::ffi::OsString>> {
        Err(std::io::Error::from_raw_os_error(nix::libc::EPERM))
    }
}

#[test]
fn the_launcher_replaces_what_is_started_and_can_refuse_to_start_it() {
    let f = Spawn::new("/usr/bin/env")
        .env("DROPPED", "1")
        .confine(Arc::new(Marked))
        .capture(1000, 1000)
        .unwrap();
    assert_eq!(String::from_utf8(f.sink.stdout).unwrap(), "CONFINED=yes\n");
    let err = Spawn::new("true")
        .confine(Arc::new(Refuses))
        .capture(0, 0)
        .unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::PermissionDenied, "{err}");
    assert!(err.to_string().contains("cannot start `true`"), "{err}");
}

#[test]
fn the_pid_file_names_the_child_until_it_is_gone() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("runner.pid");
    let f = sh("echo $$").pid_file(&pid_file).capture(100, 0).unwrap();
    let pid = String::from_utf8(f.sink.stdout).unwrap();
    let noted = std::fs::read_to_string(&pid_file).unwrap();
    assert_eq!(noted.split_whitespace().next(), Some(pid.trim()));
    // That process is gone: nothing is ended.
    assert!(!end_orphan(&pid_file));
}

#[test]
fn a_noted_pid_is_ended_only_while_it_is_that_very_process() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("runner.pid");
    // In a session of its own, as runners are (and so not in this test's group).
    let mut child = std::process::Command::new("setsid")
        .args(["sleep", "100"])
        .spawn()
        .unwrap();
    let pid = child.id() as i32;
    let until = Instant::now() + Duration::from_secs(5);
    while nix::unistd::getsid(Some(Pid::from_raw(pid))).ok() != Some(Pid::from_raw(pid))
        && Instant::now() < until
    {
        std::thread::sleep(Duration::from_millis(5));
    }
    let start = start_time(pid).unwrap();
    // The same pid with another start time is a reused pid: never touched.
    std::fs::write(&pid_file, format!("{pid} {}\n", start + 1)).unwrap();
    assert!(!end_orphan(&pid_file));
    assert!(alive(pid));
    // A daemon noted after the runner's line is ended too.
    std::fs::write(&pid_file, format!("2147483647 1\n{pid} {start}\n")).unwrap();
    assert!(end_orphan(&pid_file));
    let status = child.wait().unwrap();
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(9)
    );
}

/// The lines an observer of `stream` was told while `script` ran, and what was captured.
fn observed(script: &str, stream: Stream) -> (Vec<Vec<u8>>, Finished<Capture>) {
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let into = seen.clone();
    let f = sh(script)
        .timeout(Duration::from_secs(20))
        .stdout(Output::Pipe)
        .stderr(Output::Pipe)
        .observe_lines(
            stream,
            Box::new(move |line: &[u8]| into.lock().unwrap().push(line.to_vec())),
        )
        .run_into(Capture::new(1 << 20, 1 << 20))
        .unwrap();
    let lines = seen.lock().unwrap().clone();
    (lines, f)
}

#[test]
fn an_observer_is_told_each_line_of_its_stream_as_it_comes_and_the_sink_still_gets_all() {
    // Lines split across writes and a last line without a line break.
    let (lines, f) = observed(
        "printf 'one\\ntw'; sleep 0.1; printf 'o\\n\\nthree'; echo err >&2",
        Stream::Stdout,
    );
    assert_eq!(lines, [&b"one"[..], b"two", b"", b"three"]);
    assert_eq!(f.sink.stdout, b"one\ntwo\n\nthree");
    assert_eq!(f.sink.stderr, b"err\n");
}

#[test]
fn an_observer_of_stderr_is_not_told_stdout() {
    let (lines, _) = observed("echo out; echo err >&2", Stream::Stderr);
    assert_eq!(lines, [b"err"]);
}

#[test]
fn an_observer_is_told_a_line_while_the_child_still_runs() {
    let seen = Arc::new(std::sync::Mutex::new(None::<Instant>));
    let into = seen.clone();
    let started = Instant::now();
    let f = sh("echo first; sleep 2; echo second")
        .timeout(Duration::from_secs(20))
        .observe_lines(
            Stream::Stdout,
            Box::new(move |line: &[u8]| {
                if line == b"first" {
                    *into.lock().unwrap() = Some(Instant::now());
                }
            }),
        )
        .capture(1024, 1024)
        .unwrap();
    assert_eq!(f.ending, Ending::Exited(0));
    let told = seen.lock().unwrap().expect("told the first line");
    assert!(
        told.duration_since(started) < Duration::from_millis(1500),
        "told only after {:?}",
        told.duration_since(started)
    );
}

#[test]
fn a_line_past_the_cap_is_not_told_and_the_next_one_is() {
    let script = format!(
        "head -c {} /dev/zero | tr '\\0' x; echo; echo after",
        LINE_CAP + 10
    );
    let (lines, f) = observed(&script, Stream::Stdout);
    assert_eq!(lines, [b"after"]);
    assert_eq!(f.sink.stdout.len(), LINE_CAP + 10 + 1 + 6);
    // Exactly at the cap is still a line.
    let script = format!("head -c {LINE_CAP} /dev/zero | tr '\\0' y; echo");
    let (lines, _) = observed(&script, Stream::Stdout);
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0].len(), LINE_CAP);
}
