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
    while start.elapsed() < Duration::from_secs(10) && !crate::sys::stop_pending() {
        std::thread::sleep(Duration::from_millis(1));
    }
}

#[cfg(not(any(debug_assertions, feature = "test-hooks")))]
#[inline(always)]
pub(super) fn hold(_point: &str) {}
