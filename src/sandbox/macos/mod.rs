//! The sandbox on macOS: the Seatbelt profile a runner starts under (`seatbelt.rs`) and the
//! probe of whether `sandbox-exec` works here (`probe.rs`). The profile is built as data, so
//! its tests run on every platform (this module is compiled into the Linux tests too).
//!
//! Not for: deciding what to confine (the policy, decided in the tool from the platform-free
//! parts at the top of `sandbox/`). `linux/` answers the same calls on Linux.

#[cfg(target_os = "macos")]
use std::ffi::OsString;

#[cfg(target_os = "macos")]
use super::policy::Policy;

#[cfg(target_os = "macos")]
mod probe;
pub(super) mod seatbelt;

#[cfg(target_os = "macos")]
pub(super) use probe::probe_support;

/// There are no user namespaces here: the tool never asks for them (the probe says there are
/// none).
#[cfg(target_os = "macos")]
const NO_NAMESPACES: &str = "user namespaces exist only on Linux";

#[cfg(target_os = "macos")]
pub(super) fn in_namespaces(_policy: &Policy, _argv: &[OsString]) -> Result<i32, String> {
    Err(NO_NAMESPACES.into())
}

/// `interview __sandbox probe`: namespaces exist only on Linux.
#[cfg(target_os = "macos")]
pub(super) fn probe() -> Result<i32, String> {
    Err(NO_NAMESPACES.into())
}

/// Nothing to apply in the launcher itself: the walls here are Seatbelt's ([`wrap`]). Landlock
/// is never asked for (the probe says there is none).
#[cfg(target_os = "macos")]
pub(super) fn confine(policy: &Policy) -> Result<(), String> {
    if policy.landlock {
        return Err("Landlock exists only on Linux".into());
    }
    Ok(())
}

/// The command line that starts the runner under its Seatbelt profile, when the policy asks.
#[cfg(target_os = "macos")]
pub(super) fn wrap(policy: &Policy, argv: &[OsString]) -> Result<Option<Vec<OsString>>, String> {
    if !policy.seatbelt {
        return Ok(None);
    }
    seatbelt::wrap(policy, argv).map(Some)
}
