//! A hook for the launcher's signal tests, compiled only into debug builds or with the
//! `test-hooks` feature: never into a release binary.
//!
//! `INTERVIEW_TEST_LAUNCHER_PAUSE=POINT` holds the launcher at one of its windows — `launcher`
//! (namespaces entered, the namespace's first process not forked yet), `init` (in that process,
//! the runner not forked yet), `runner` (in the runner's process, before it executes) — after
//! touching `INTERVIEW_TEST_LAUNCHER_PAUSE_MARK`, until a stop signal is pending on the process
//! (at most 10 s): a signal sent to it then lands in exactly that window.

#[cfg(any(debug_assertions, feature = "test-hooks"))]
pub(super) fn hold(point: &str) {
    use std::time::{Duration, Instant};
    if std::env::var("INTERVIEW_TEST_LAUNCHER_PAUSE")
        .ok()
        .as_deref()
        != Some(point)
    {
        return;
    }
    if let Ok(mark) = std::env::var("INTERVIEW_TEST_LAUNCHER_PAUSE_MARK") {
        let _ = std::fs::write(mark, point);
    }
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(10) && !stop_pending() {
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Whether SIGTERM, SIGINT or SIGHUP is pending (blocked and not taken) on this process: the
/// `SigPnd` (thread) and `ShdPnd` (process) masks of /proc/self/status, bit n-1 for signal n.
#[cfg(any(debug_assertions, feature = "test-hooks"))]
fn stop_pending() -> bool {
    let bit = |sig: nix::sys::signal::Signal| 1u64 << (sig as u32 - 1);
    let stops = {
        use nix::sys::signal::Signal::{SIGHUP, SIGINT, SIGTERM};
        bit(SIGTERM) | bit(SIGINT) | bit(SIGHUP)
    };
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return false;
    };
    status
        .lines()
        .filter_map(|l| {
            l.strip_prefix("SigPnd:")
                .or_else(|| l.strip_prefix("ShdPnd:"))
        })
        .filter_map(|mask| u64::from_str_radix(mask.trim(), 16).ok())
        .any(|mask| mask & stops != 0)
}

#[cfg(not(any(debug_assertions, feature = "test-hooks")))]
#[inline(always)]
pub(super) fn hold(_point: &str) {}
