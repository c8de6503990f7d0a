//! The sandbox's Linux walls, applied by the launcher: Landlock's write rules (`landlock.rs`),
//! the runner's own user, mount, PID, IPC and UTS namespaces (`namespace.rs`, with the world
//! made read-only in `world.rs` and the state views and credential stores mounted in
//! `mounts.rs`), its network namespace (`netns.rs`), the seccomp filter (`seccomp.rs`, over the
//! allow list of system calls in `syscalls.rs`), the
//! launcher's steps inside the namespaces (`launch.rs`) and the probe of what this kernel
//! offers (`probe.rs`).
//!
//! Not for: deciding what to confine (the policy, decided in the tool from the platform-free
//! parts at the top of `sandbox/`). `macos/` answers the same calls on a Mac.

use std::ffi::OsString;

use super::policy::Policy;

mod caps;
mod landlock;
mod launch;
mod mounts;
mod namespace;
pub(super) mod netns;
mod probe;
mod seccomp;
mod syscalls;
mod world;

pub(super) use launch::{in_namespaces, probe};
pub(super) use probe::probe_support;

/// The launcher's last walls before it executes the runner: no capability (`caps.rs`), Landlock
/// (when the policy asks), then the seccomp filter (last: Landlock needs calls the filter
/// refuses).
pub(super) fn confine(policy: &Policy) -> Result<(), String> {
    caps::drop_all()?;
    if policy.landlock {
        match landlock::restrict(policy) {
            Ok(applied) if applied.enforced => {}
            Ok(_) => return Err("Landlock was not enforced".into()),
            Err(message) => return Err(message),
        }
    }
    if policy.seccomp {
        seccomp::restrict(seccomp::Allowed {
            unix_sockets: policy.unix_sockets,
            network: !policy.network_off,
        })?;
    }
    Ok(())
}

/// The command line that starts the runner: on Linux the runner's own (no wrapper).
pub(super) fn wrap(_policy: &Policy, _argv: &[OsString]) -> Result<Option<Vec<OsString>>, String> {
    Ok(None)
}
