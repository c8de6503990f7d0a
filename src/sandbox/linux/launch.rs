//! The launcher's Linux steps (launch.rs has the rest): the runner's namespaces entered, the
//! namespace's first process (pid 1, our code) that starts the runner and ends when it ends, and
//! `__sandbox probe`, which tries the same namespaces and reports.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::PathBuf;

use nix::sys::signal::{Signal, kill};
use nix::sys::wait::{WaitStatus, waitpid};
use nix::unistd::{ForkResult, Pid, fork};

use super::{namespace, netns, world};
use crate::sandbox::launch;
use crate::sandbox::policy::Policy;
use crate::sandbox::{stop, test_hook};

/// With namespaces: enter them, then fork the namespace's first process ([`init`]) and wait for
/// it, handing on a stop that came first. Returns the runner's exit code.
pub(in crate::sandbox) fn in_namespaces(policy: &Policy, argv: &[OsString]) -> Result<i32, String> {
    // Found as the tool's own user, before the runner's (mapped) one would see less of them.
    let sockets = world::sockets();
    namespace::enter(policy, &sockets)?;
    if let Some(plan) = policy.proxy.as_ref().filter(|p| p.in_namespace) {
        netns::hand_listeners(plan)?;
    }
    test_hook::hold("launcher");
    let (report_read, report_write) = nix::unistd::pipe().map_err(|e| e.to_string())?;
    let (go_read, go_write) = nix::unistd::pipe().map_err(|e| e.to_string())?;
    // This process outlives the SIGTERM of a timeout (the signal stays blocked): the runner gets
    // its grace period, and this process ending would end the namespace at once. SIGKILL still
    // ends it (and all below).
    // SAFETY: the launcher is single-threaded (it is entered first thing in `main`, before
    // anything could start a thread), so the child is a complete copy of a consistent process
    // and may allocate, lock and make any call.
    match unsafe { fork() }.map_err(|e| format!("fork: {e}"))? {
        ForkResult::Child => {
            drop((report_read, go_write));
            let (go, report) = (
                std::fs::File::from(go_read),
                std::fs::File::from(report_write),
            );
            std::process::exit(init(policy, argv, go, report));
        }
        ForkResult::Parent { child } => {
            drop((report_write, go_read));
            // A stop that came before init existed is not init's: it is told to start nothing.
            let stopped = stop::take();
            let word = stopped.map_or(GO, |sig| sig as i32 as u8);
            let _ = std::fs::File::from(go_write).write_all(&[word]);
            let status = wait_for(child);
            if let Some(sig) = stopped {
                stop::end_by(sig);
            }
            let mut byte = [0u8; 1];
            let signalled = std::fs::File::from(report_read)
                .read(&mut byte)
                .is_ok_and(|n| n == 1);
            if signalled && let Ok(sig) = Signal::try_from(i32::from(byte[0])) {
                // End the way the runner ended, so the tool sees the same signal.
                stop::end_by(sig);
            }
            Ok(match status {
                WaitStatus::Exited(_, code) => code,
                WaitStatus::Signaled(_, sig, _) => 128 + sig as i32,
                _ => 126,
            })
        }
    }
}

/// The word on a go pipe that lets the child go on; any other byte is the stop signal that
/// came before it existed.
const GO: u8 = 0;

/// Wait for the parent's word on `go`: true to go on; false on a stop or when the parent is
/// gone.
fn told_to_go(mut go: std::fs::File) -> bool {
    let mut word = [0u8; 1];
    go.read_exact(&mut word).is_ok() && word[0] == GO
}

/// The PID namespace's first process: mount its /proc, start the runner, and end when it ends
/// (which ends every process left in the namespace). Returns the exit code; a runner killed by
/// a signal is reported as that signal's number on `report`.
fn init(policy: &Policy, argv: &[OsString], go: std::fs::File, mut report: std::fs::File) -> i32 {
    if crate::sys::die_with_parent().is_err() {
        return 126;
    }
    if !told_to_go(go) {
        return 0;
    }
    if let Err(message) = namespace::mount_proc() {
        crate::output::stderr_line(&format!("interview sandbox: {message}"));
        return 126;
    }
    crate::sys::forbid_inspection();
    test_hook::hold("init");
    let Ok((go_read, go_write)) = nix::unistd::pipe() else {
        return 126;
    };
    // SAFETY: this process is single-threaded (the launcher's child), see `run`.
    let runner = match unsafe { fork() } {
        Ok(ForkResult::Child) => {
            drop((report, go_write));
            if !told_to_go(std::fs::File::from(go_read)) {
                std::process::exit(126);
            }
            test_hook::hold("runner");
            launch::confine_and_exec(policy, argv)
        }
        Ok(ForkResult::Parent { child }) => child,
        Err(e) => {
            crate::output::stderr_line(&format!("interview sandbox: fork: {e}"));
            return 126;
        }
    };
    drop(go_read);
    // What is pending here came before the runner existed (it missed it) or after (it has it
    // pending too, and the two merge): hand each on while the runner still blocks them.
    for sig in stop::take_all() {
        let _ = kill(runner, sig);
    }
    let _ = std::fs::File::from(go_write).write_all(&[GO]);
    // Reap everything re-parented to us until the runner itself is done.
    loop {
        match waitpid(None, None) {
            Ok(WaitStatus::Exited(pid, code)) if pid == runner => return code,
            Ok(WaitStatus::Signaled(pid, sig, _)) if pid == runner => {
                let _ = report.write_all(&[sig as i32 as u8]);
                return 0;
            }
            Ok(_) => continue,
            Err(nix::errno::Errno::EINTR) => continue,
            Err(_) => return 126,
        }
    }
}

fn wait_for(child: Pid) -> WaitStatus {
    loop {
        match waitpid(child, None) {
            Ok(status @ (WaitStatus::Exited(..) | WaitStatus::Signaled(..))) => return status,
            Ok(_) | Err(nix::errno::Errno::EINTR) => continue,
            Err(_) => return WaitStatus::Exited(child, 126),
        }
    }
}

/// `interview __sandbox probe`: do what a turn does — user, mount and PID namespaces, a
/// private /tmp, a private /proc — and exit 0 when all of it worked.
pub(in crate::sandbox) fn probe() -> Result<i32, String> {
    let policy = Policy {
        namespaces: true,
        tmp: PathBuf::from("/nonexistent"),
        ..Policy::default()
    };
    std::env::set_current_dir("/").map_err(|e| format!("cannot enter /: {e}"))?;
    namespace::enter(&policy, &[])?;
    // SAFETY: single-threaded, see `run`.
    match unsafe { fork() }.map_err(|e| format!("fork: {e}"))? {
        ForkResult::Child => std::process::exit(match namespace::mount_proc() {
            Ok(()) => 0,
            Err(message) => {
                crate::output::stderr_line(&format!("interview sandbox: {message}"));
                1
            }
        }),
        ForkResult::Parent { child } => match wait_for(child) {
            WaitStatus::Exited(_, 0) => Ok(0),
            _ => Err("cannot mount a private /proc in a PID namespace".into()),
        },
    }
}
