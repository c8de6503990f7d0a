//! What this Linux machine offers the sandbox: the Landlock ABI, whether unprivileged user
//! namespaces (with PID and mount namespaces in them) can be created, whether the kernel applies
//! seccomp filters.

use crate::sandbox::support::Support;
use crate::sandbox::test_hook::simulated_missing;

/// Probe what this machine offers (once per process: [`Support::probe`]).
pub(in crate::sandbox) fn probe_support() -> Support {
    let (landlock_abi, landlock_missing) = match simulated_missing("LANDLOCK") {
        Some(reason) => (None, Some(reason)),
        None => match landlock_abi() {
            Ok(abi) => (Some(abi), None),
            Err(reason) => (None, Some(reason)),
        },
    };
    let (namespaces, namespaces_missing) = match simulated_missing("NAMESPACES") {
        Some(reason) => (false, Some(reason)),
        None => match probe_namespaces() {
            Ok(()) => (true, None),
            Err(reason) => (false, Some(reason)),
        },
    };
    let (seccomp, seccomp_missing) = match simulated_missing("SECCOMP") {
        Some(reason) => (false, Some(reason)),
        None => match super::seccomp::available() {
            Ok(()) => (true, None),
            Err(reason) => (false, Some(reason)),
        },
    };
    Support {
        landlock_abi,
        landlock_missing,
        namespaces,
        namespaces_missing,
        seccomp,
        seccomp_missing,
        seatbelt: false,
        seatbelt_missing: None,
    }
}

/// The running kernel's Landlock ABI version.
fn landlock_abi() -> Result<i32, String> {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
    // SAFETY: landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION) only returns the
    // ABI version (or -1 with errno); it reads no memory (the attribute pointer is NULL, as the
    // version query requires) and creates no file descriptor.
    let abi = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    if abi >= 1 {
        return Ok(abi as i32);
    }
    let err = std::io::Error::last_os_error();
    Err(match err.raw_os_error() {
        Some(libc::ENOSYS) => "the kernel is built without Landlock".into(),
        Some(libc::EOPNOTSUPP) => {
            "Landlock is disabled at boot (see the lsm= kernel parameter)".into()
        }
        _ => format!("Landlock is not usable: {err}"),
    })
}

/// Start our own executable as `interview __sandbox probe`: it tries exactly what a turn does
/// (user, mount and PID namespaces, a private /proc) and reports.
fn probe_namespaces() -> Result<(), String> {
    use crate::process::{Ending, Spawn};
    let exe = std::env::current_exe().map_err(|e| format!("cannot find our executable: {e}"))?;
    let finished = Spawn::new(exe)
        .args([crate::sandbox::launch::ARG, "probe"])
        .timeout(std::time::Duration::from_secs(10))
        .grace(std::time::Duration::from_secs(1))
        .capture(0, 4096)
        .map_err(|e| format!("cannot run the probe: {e}"))?;
    if finished.ending == Ending::Exited(0) {
        return Ok(());
    }
    let text = String::from_utf8_lossy(&finished.sink.stderr);
    let reason = text
        .lines()
        .last()
        .unwrap_or("the probe failed")
        .trim_start_matches("interview sandbox: ");
    // Our own program's words, but shown to the person: no control characters.
    Err(reason.chars().filter(|c| !c.is_control()).collect())
}
