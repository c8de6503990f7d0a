//! Descriptors above 2 never reach a runner: a terminal or file the tool's own parent left open
//! (`interview … 9<>/dev/tty`) would let it write past the sanitiser, to the person's screen or
//! clipboard.
//!
//! Two steps, for the two ways a runner starts: the tool marks every descriptor it inherited
//! close-on-exec first thing in `main` ([`keep_from_children`]: every child of the tool, confined
//! or not, and the launcher), and the sandbox launcher closes all but 0, 1 and 2 just before it
//! executes the runner ([`close_from`]: whatever it opened itself on the way).
//!
//! Not for: the runner's standard streams, which `crate::process` sets (the brief or
//! `/dev/null`, and pipes).

use std::os::fd::RawFd;

/// Mark every open descriptor from `first` on close-on-exec. Called at the top of `main`, while
/// the tool is single-threaded; the tool's own descriptors are opened close-on-exec anyway
/// (Rust's standard library does), so this only takes away what its parent passed down.
pub fn keep_from_children(first: RawFd) {
    if os::cloexec_range(first).is_ok() {
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

/// Close every open descriptor from `first` on. Only for a single-threaded process about to
/// execute another program (the sandbox launcher): no other thread may be using one of them.
pub fn close_from(first: RawFd) {
    if os::close_range(first).is_ok() {
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

#[cfg(target_os = "linux")]
mod os {
    use std::os::fd::RawFd;

    /// `close_range(first, ~0, 0)` (Linux 5.9).
    pub(super) fn close_range(first: RawFd) -> Result<(), ()> {
        range(first, 0)
    }

    /// `close_range(first, ~0, CLOSE_RANGE_CLOEXEC)` (Linux 5.11).
    pub(super) fn cloexec_range(first: RawFd) -> Result<(), ()> {
        range(first, libc::CLOSE_RANGE_CLOEXEC)
    }

    fn range(first: RawFd, flags: libc::c_uint) -> Result<(), ()> {
        let Ok(first) = libc::c_uint::try_from(first) else {
            return Err(());
        };
        // SAFETY: close_range only closes (or flags) descriptor numbers; the callers' contracts
        // say no live value still uses one of them.
        let done = unsafe { libc::syscall(libc::SYS_close_range, first, libc::c_uint::MAX, flags) };
        if done == 0 { Ok(()) } else { Err(()) }
    }

    /// The open descriptors from `first` on, from `/proc/self/fd` (an older kernel), else every
    /// number below the descriptor limit.
    pub(super) fn open_descriptors(first: RawFd) -> Vec<RawFd> {
        match std::fs::read_dir("/proc/self/fd") {
            Ok(entries) => entries
                .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<RawFd>().ok())
                .filter(|&fd| fd >= first)
                .collect(),
            Err(_) => (first..super::limit()).collect(),
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod os {
    use std::os::fd::RawFd;

    pub(super) fn close_range(_first: RawFd) -> Result<(), ()> {
        Err(())
    }

    pub(super) fn cloexec_range(_first: RawFd) -> Result<(), ()> {
        Err(())
    }

    /// Every number below the descriptor limit (macOS has no `close_range`).
    pub(super) fn open_descriptors(first: RawFd) -> Vec<RawFd> {
        (first..super::limit()).collect()
    }
}

/// The highest descriptor number a process here can have, plus one, bounded so that a limit of
/// "unlimited" does not make the walk endless.
fn limit() -> RawFd {
    const BOUND: libc::c_long = 1 << 20;
    // SAFETY: sysconf only reads a system value.
    let max = unsafe { libc::sysconf(libc::_SC_OPEN_MAX) };
    RawFd::try_from(if max <= 0 { 1024 } else { max.min(BOUND) }).unwrap_or(1024)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    #[test]
    fn an_inherited_descriptor_is_marked_close_on_exec() {
        let file = tempfile::tempfile().unwrap();
        // A copy without close-on-exec, as a parent's `9<>file` would leave it.
        // SAFETY: dup returns a new descriptor this test owns and closes below.
        let fd = unsafe { libc::dup(file.as_raw_fd()) };
        assert!(fd > 2);
        // SAFETY: reading the flags of a descriptor this test owns.
        let flags = || unsafe { libc::fcntl(fd, libc::F_GETFD) };
        assert_eq!(flags() & libc::FD_CLOEXEC, 0);
        keep_from_children(fd);
        assert_eq!(flags() & libc::FD_CLOEXEC, libc::FD_CLOEXEC);
        // SAFETY: closing the descriptor dup made above.
        unsafe { libc::close(fd) };
    }
}
