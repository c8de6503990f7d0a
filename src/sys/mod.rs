//! Operating-system facts behind one seam: the process table (parents, groups, sessions, start
//! times), the umask, pending signals, and the per-process switches (`prctl` on Linux) the tool
//! and the sandbox launcher set. Each platform answers in its own file, the way nextest splits
//! `unix.rs` / `windows.rs`: [`linux`] reads `/proc`, [`macos`] asks `libproc`.
//!
//! Nothing outside this module reads `/proc` (tests/architecture.rs checks it), except the
//! Linux-only sandbox code that sets up the runner's own `/proc` (src/sandbox/namespace.rs).
//!
//! Not for: starting processes (that is [`crate::process`]) or deciding what to confine.

use std::collections::BTreeMap;

#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
use linux as os;
#[cfg(target_os = "macos")]
mod macos;
#[cfg(target_os = "macos")]
use macos as os;

/// One process as the table shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcInfo {
    pub ppid: i32,
    pub pgrp: i32,
    pub session: i32,
    /// When it started, in the platform's own unit (clock ticks since boot on Linux,
    /// microseconds since the epoch on macOS): compared only with values from this same
    /// machine, to tell a process from a later one that got its pid.
    pub start: u64,
    /// Ended but not reaped yet.
    pub zombie: bool,
}

/// Every process this user can see, by pid.
pub fn processes() -> BTreeMap<i32, ProcInfo> {
    os::processes()
}

/// Process `pid`, if it exists.
pub fn process(pid: i32) -> Option<ProcInfo> {
    os::process(pid)
}

/// A process's start time (see [`ProcInfo::start`]).
pub fn start_time(pid: i32) -> Option<u64> {
    process(pid).map(|p| p.start)
}

/// Whether process `pid` exists and is not a zombie.
pub fn alive(pid: i32) -> bool {
    process(pid).is_some_and(|p| !p.zombie)
}

/// This process's umask, `022` if unknown. Linux reads it without changing it; macOS can only
/// read it by setting it, so it is read once, first thing in `main` (no other thread yet), and
/// remembered.
pub fn umask() -> u32 {
    os::umask()
}

/// First thing in `main`, before any thread exists: [`forbid_inspection`], and on macOS the
/// umask read (and remembered) while setting it for a moment cannot race another thread.
pub fn at_start() {
    forbid_inspection();
    let _ = umask();
}

/// Keep other processes of the same user from opening this one's fds, memory and environment
/// (Linux: `PR_SET_DUMPABLE` 0). macOS has no such switch (no /proc to open; memory needs the
/// debugger entitlement), so there it does nothing; the Seatbelt profile denies a runner
/// `process-info` on processes outside its sandbox instead.
pub fn forbid_inspection() {
    os::forbid_inspection()
}

/// Get SIGKILL when the parent dies (Linux: `PR_SET_PDEATHSIG`). macOS has no such thing: there
/// it does nothing and the caller relies on the pid file that `resume` reads (the launcher
/// executes the runner in its own process there, so no process of ours is left between).
pub fn die_with_parent() -> Result<(), String> {
    os::die_with_parent()
}

/// Become the reaper of orphaned descendants (Linux: `PR_SET_CHILD_SUBREAPER`), so a daemon a
/// runner started stays findable below us. macOS has none: an orphan goes to launchd, and only
/// descendants found while their parent lived, or in the runner's session or group, are ended.
pub fn become_subreaper() -> std::io::Result<()> {
    os::become_subreaper()
}

/// Whether SIGTERM, SIGINT or SIGHUP is pending (blocked and not taken) on this process.
pub fn stop_pending() -> bool {
    os::stop_pending()
}
