//! The launcher: our own executable started as `interview __sandbox run POLICY -- RUNNER…`. It
//! confines itself (namespaces, then Landlock, on Linux: `linux/launch.rs`) and executes the
//! runner; `__sandbox probe` tries the namespaces and reports.
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

use nix::unistd::getppid;

use super::platform;
use super::policy::Policy;
use super::{stop, test_hook};

/// The first argument that selects the launcher.
pub(crate) const ARG: &str = "__sandbox";

/// Run the launcher if this process was started as one; returns its exit code.
pub(crate) fn main_if_asked() -> Option<i32> {
    let mut args = std::env::args_os().skip(1);
    if args.next()? != ARG {
        return None;
    }
    let rest: Vec<OsString> = args.collect();
    let result = match rest.first().and_then(|a| a.to_str()) {
        Some("probe") => platform::probe(),
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
    platform::in_namespaces(&policy, argv)
}

/// Cap the size of the runner's files, apply this platform's walls (Landlock and the seccomp
/// filter on Linux) and execute the runner, under Seatbelt when the policy asks (macOS); never
/// returns.
pub(super) fn confine_and_exec(policy: &Policy, argv: &[OsString]) -> ! {
    if policy.disk_mib > 0 {
        cap_file_size(policy.disk_mib);
    }
    if let Err(message) = platform::confine(policy) {
        fail(&message);
    }
    let wrapped = platform::wrap(policy, argv).unwrap_or_else(|message| fail(&message));
    let argv = wrapped.as_deref().unwrap_or(argv);
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
        if let Some(file) = &policy.git_config {
            env.push(("GIT_CONFIG_GLOBAL".into(), file.into()));
            // The machine's configuration is in that file, by the same allow list.
            env.push(("GIT_CONFIG_NOSYSTEM".into(), "1".into()));
        }
        for (name, dir) in &policy.caches {
            // npm reads its settings' variables in either case.
            env.retain(|(k, _)| !k.to_str().is_some_and(|k| k.eq_ignore_ascii_case(name)));
            env.push((name.into(), dir.into()));
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
