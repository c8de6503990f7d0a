//! Operating-system facts behind one seam: the process table (parents, groups, sessions, start
//! times), the umask, pending signals, the per-process switches (`prctl` on Linux) the tool
//! and the sandbox launcher set, and the descriptors a child must not inherit. Each platform answers in its own file, the way nextest splits
//! `unix.rs` / `windows.rs`: `linux` reads `/proc`, `macos` asks `libproc`.
//!
//! Nothing outside this module reads `/proc` (tests/architecture.rs checks it), except the
//! Linux-only sandbox code that sets up the runner's own `/proc` (src/sandbox/linux/namespace.rs).
//!
//! Not for: starting processes (that is `crate::process`) or deciding what to confine.

use std::collections::BTreeMap;
use std::os::fd::RawFd;

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
pub(crate) struct ProcInfo {
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
pub(crate) fn processes() -> BTreeMap<i32, ProcInfo> {
    os::processes()
}

/// At least every process below `pid` (its children, theirs, …), by pid: on Linux from the
/// kernel's lists of each task's children, without reading every process of the machine (all
/// of them when the kernel keeps no such list); on macOS every process.
pub(crate) fn processes_below(pid: i32) -> BTreeMap<i32, ProcInfo> {
    #[cfg(target_os = "linux")]
    if let Some(below) = os::processes_below(pid) {
        return below;
    }
    let _ = pid;
    os::processes()
}

/// Process `pid`, if it exists.
pub(crate) fn process(pid: i32) -> Option<ProcInfo> {
    os::process(pid)
}

/// A process's start time (see `ProcInfo::start`).
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
pub(crate) fn umask() -> u32 {
    os::umask()
}

/// Linux: whether the kernel applies seccomp filters (the sandbox's third wall).
#[cfg(target_os = "linux")]
pub(crate) fn seccomp() -> bool {
    os::seccomp()
}

/// First thing in `main`, before any thread exists: [`forbid_inspection`], and on macOS the
/// umask read (and remembered) while setting it for a moment cannot race another thread.
pub(crate) fn at_start() {
    forbid_inspection();
    keep_descriptors_from_children(3);
    #[cfg(target_os = "macos")]
    let _ = umask();
}

/// Mark every open descriptor from `first` on close-on-exec, so that no child of the tool,
/// confined or not, inherits a terminal or file the tool's own parent left open
/// (`interview … 9<>/dev/tty`). The tool's own descriptors are opened close-on-exec anyway
/// (Rust's standard library does), so this only takes away what its parent passed down.
pub(crate) fn keep_descriptors_from_children(first: RawFd) {
    if os::close_range(first, true).is_ok() {
        return;
    }
    for fd in os::open_descriptors(first) {
        // SAFETY: fcntl on a descriptor number only reads or sets its flags; a number that is
        // not open (the directory listing's own, closed since) gives EBADF and nothing else.
        unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFD);
            if flags >= 0 {
                libc::fcntl(fd, libc::F_SETFD, flags | libc::FD_CLOEXEC);
            }
        }
    }
}

/// Close every open descriptor from `first` on: the sandbox launcher, just before it executes
/// the runner, so the runner has nothing but the standard streams the tool gave it. Only for a
/// single-threaded process about to execute another program: no other thread may be using one.
pub(crate) fn close_descriptors_from(first: RawFd) {
    if os::close_range(first, false).is_ok() {
        return;
    }
    for fd in os::open_descriptors(first) {
        // SAFETY: the caller is single-threaded and about to exec, so no descriptor closed here
        // is in use or owned by a live Rust value that would close it again.
        unsafe {
            libc::close(fd);
        }
    }
}

/// The highest descriptor number a process here can have, plus one, bounded so that a limit of
/// "unlimited" does not make a walk over all of them endless.
fn descriptor_limit() -> RawFd {
    const BOUND: libc::c_long = 1 << 20;
    // SAFETY: sysconf only reads a system value.
    let max = unsafe { libc::sysconf(libc::_SC_OPEN_MAX) };
    RawFd::try_from(if max <= 0 { 1024 } else { max.min(BOUND) }).unwrap_or(1024)
}

/// Keep other processes of the same user from opening this one's fds, memory and environment
/// (Linux: `PR_SET_DUMPABLE` 0). macOS has no such switch (no /proc to open; memory needs the
/// debugger entitlement), so there it does nothing; the Seatbelt profile denies a runner
/// `process-info` on processes outside its sandbox instead.
pub(crate) fn forbid_inspection() {
    os::forbid_inspection()
}

/// Get SIGKILL when the parent dies (Linux: `PR_SET_PDEATHSIG`). macOS has no such thing: there
/// it does nothing and the caller relies on the pid file that `resume` reads (the launcher
/// executes the runner in its own process there, so no process of ours is left between).
pub(crate) fn die_with_parent() -> Result<(), String> {
    os::die_with_parent()
}

/// Become the reaper of orphaned descendants (Linux: `PR_SET_CHILD_SUBREAPER`), so a daemon a
/// runner started stays findable below us. macOS has none: an orphan goes to launchd, and only
/// descendants found while their parent lived, or in the runner's session or group, are ended.
pub(crate) fn become_subreaper() -> std::io::Result<()> {
    os::become_subreaper()
}

/// Whether SIGTERM, SIGINT or SIGHUP is pending (blocked and not taken) on this process. The
/// launcher's steps read it off Linux (no signalfd there), the test hooks everywhere.
#[cfg(any(not(target_os = "linux"), debug_assertions, feature = "test-hooks"))]
pub(crate) fn stop_pending() -> bool {
    os::stop_pending()
}

/// The extended attributes that grant access or privilege beyond the mode bits and owner, by
/// name: the POSIX ACLs (`system.posix_acl_access`, a directory's `system.posix_acl_default`)
/// and file capabilities (`security.capability`), each with its raw bytes; only those present.
/// `path` itself, or with `follow` what a link leads to. A file system without extended
/// attributes has none. macOS has neither (its ACLs are not extended attributes): empty.
pub(crate) fn security_attributes(
    path: &std::path::Path,
    follow: bool,
) -> std::io::Result<Vec<(&'static str, Vec<u8>)>> {
    os::security_attributes(path, follow)
}

/// Whether `name` in the open directory `dir` (a link not followed) has any of the attributes
/// [`security_attributes`] reads, asked with a single-component lookup (Linux 6.13's
/// `listxattrat`): `Some(false)` for the many paths without, so they cost no walk of the whole
/// path; `None` when this kernel cannot tell that way (read with [`security_attributes`]).
pub(crate) fn lists_security_attributes(
    dir: std::os::fd::BorrowedFd<'_>,
    name: &[u8],
) -> Option<bool> {
    os::lists_security_attributes(dir, name)
}
