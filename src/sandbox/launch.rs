//! The launcher: our own executable started as `interview __sandbox run POLICY -- RUNNER…`. It
//! confines itself (namespaces, then Landlock) and executes the runner; `__sandbox probe` tries
//! the namespaces and reports.
//!
//! Why a launcher and not `pre_exec`: between fork and exec a child of the multi-threaded tool
//! may only make async-signal-safe calls, and setting up namespaces needs allocation, file
//! writes and a second fork. The launcher is checked for first thing in `main`, before any
//! thread exists, so in it every step — including `fork` — is as safe as in any
//! single-threaded program.
//!
//! With namespaces the processes are: the launcher (in the tool's PID namespace, the one the
//! tool waits for) → the namespace's init (pid 1, our code) → the runner. When the runner ends,
//! init ends, and the kernel kills everything left in the namespace, daemons included. Each of
//! launcher and init gets SIGKILL when its parent dies, so a kill -9 of the tool ends them all.
//! A stop signal the tool sends to the group at any moment, before the runner exists too,
//! reaches the runner exactly once (stop.rs).

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::PathBuf;

use nix::sys::signal::{Signal, kill};
use nix::sys::wait::{WaitStatus, waitpid};
use nix::unistd::{ForkResult, Pid, fork, getppid};

use super::policy::Policy;
#[cfg(target_os = "linux")]
use super::seccomp;
use super::{namespace, rules, stop, test_hook};

/// The first argument that selects the launcher.
pub const ARG: &str = "__sandbox";

/// Run the launcher if this process was started as one; returns its exit code.
pub fn main_if_asked() -> Option<i32> {
    let mut args = std::env::args_os().skip(1);
    if args.next()? != ARG {
        return None;
    }
    let rest: Vec<OsString> = args.collect();
    let result = match rest.first().and_then(|a| a.to_str()) {
        Some("probe") => probe(),
        Some("run") => run(&rest[1..]),
        _ => Err("usage: interview __sandbox probe | run POLICY -- PROGRAM ARGS…".into()),
    };
    Some(match result {
        Ok(code) => code,
        Err(message) => {
            crate::output::stderr_line(&format!("interview sandbox: {message}"));
            126
        }
    })
}

fn run(args: &[OsString]) -> Result<i32, String> {
    // First: a stop signal from here on waits, pending, until it is handed on (see stop.rs).
    stop::block()?;
    test_hook::arm();
    let (policy, argv) = match args {
        [policy, dashes, argv @ ..] if dashes == "--" && !argv.is_empty() => (policy, argv),
        _ => return Err("usage: interview __sandbox run POLICY -- PROGRAM ARGS…".into()),
    };
    let policy: Policy = serde_json::from_str(policy.to_str().unwrap_or(""))
        .map_err(|e| format!("bad policy: {e}"))?;
    crate::sys::die_with_parent()?;
    if getppid().as_raw() != policy.tool_pid {
        return Err("the tool that started this runner is gone".into());
    }
    if !policy.namespaces {
        confine_and_exec(&policy, argv);
    }
    // Found as the tool's own user, before the runner's (mapped) one would see less of them.
    let sockets = super::world::sockets();
    namespace::enter(&policy, &sockets)?;
    #[cfg(target_os = "linux")]
    if let Some(plan) = policy.proxy.as_ref().filter(|p| p.in_namespace) {
        super::netns::hand_listeners(plan)?;
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
            std::process::exit(init(&policy, argv, go, report));
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
            confine_and_exec(policy, argv)
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

/// Apply Landlock (when the policy asks) and execute the runner, under Seatbelt when the policy
/// asks (macOS); never returns.
fn confine_and_exec(policy: &Policy, argv: &[OsString]) -> ! {
    if policy.landlock {
        match rules::restrict(policy) {
            Ok(applied) if applied.enforced => {}
            Ok(_) => fail("Landlock was not enforced"),
            Err(message) => fail(&message),
        }
    }
    if policy.disk_mib > 0 {
        cap_file_size(policy.disk_mib);
    }
    // Last, after Landlock (which needs calls the filter refuses). Linux only: elsewhere the
    // tool never asks for it.
    #[cfg(target_os = "linux")]
    if policy.seccomp
        && let Err(message) = seccomp::restrict(seccomp::Allowed {
            unix_sockets: policy.unix_sockets,
            network: !policy.network_off,
        })
    {
        fail(&message);
    }
    let wrapped;
    let argv = if policy.seatbelt {
        wrapped = super::seatbelt::wrap(policy, argv).unwrap_or_else(|message| fail(&message));
        &wrapped[..]
    } else {
        argv
    };
    let err = exec(&argv[0], argv, policy);
    crate::output::stderr_line(&format!(
        "interview sandbox: cannot start runner `{}`: {err}",
        argv[0].to_string_lossy()
    ));
    std::process::exit(127)
}

/// Replace this process by `program` (a resolved path) with `argv`, in the runner's
/// environment (see [`super::env`]); returns only on failure.
fn exec(program: &OsString, argv: &[OsString], policy: &Policy) -> String {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let c = |s: &[u8]| CString::new(s).map_err(|_| "a NUL byte in the command line".to_string());
    let build = || -> Result<(CString, Vec<CString>, Vec<CString>), String> {
        let path = c(program.as_bytes())?;
        let args = argv
            .iter()
            .map(|a| c(a.as_bytes()))
            .collect::<Result<Vec<_>, _>>()?;
        let mut env =
            super::env::for_runner(std::env::vars_os(), &policy.tmp, policy.env.as_deref());
        if let Some(plan) = &policy.proxy {
            super::env::through_proxy(&mut env, &plan.url());
        }
        let env = env
            .into_iter()
            .map(|(k, v)| {
                let mut kv = k.as_bytes().to_vec();
                kv.push(b'=');
                kv.extend_from_slice(v.as_bytes());
                c(&kv)
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok((path, args, env))
    };
    match build() {
        Ok((path, args, env)) => {
            // The last step before exec: a stop pending since the launcher started ends the
            // runner here, by its default action, before it runs a single instruction.
            super::stop::unblock();
            // Nothing but the standard streams the tool gave it.
            crate::sys::close_descriptors_from(3);
            match nix::unistd::execve(&path, &args, &env) {
                Ok(never) => match never {},
                Err(e) => e.to_string(),
            }
        }
        Err(message) => message,
    }
}

/// No file the runner writes grows past `mib` MiB (a write beyond it ends the runner with
/// SIGXFSZ, which the tool names): it cannot fill the person's disk through out/ or a state view.
fn cap_file_size(mib: u64) {
    let bytes = mib.saturating_mul(1024 * 1024) as libc::rlim_t;
    let limit = libc::rlimit {
        rlim_cur: bytes,
        rlim_max: bytes,
    };
    // SAFETY: setrlimit reads the struct we pass by reference for the duration of the call.
    if unsafe { libc::setrlimit(libc::RLIMIT_FSIZE, &limit) } != 0 {
        fail(&format!(
            "cannot cap the size of the runner's files: {}",
            std::io::Error::last_os_error()
        ));
    }
}

fn fail(message: &str) -> ! {
    crate::output::stderr_line(&format!("interview sandbox: {message}"));
    std::process::exit(126)
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
fn probe() -> Result<i32, String> {
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
