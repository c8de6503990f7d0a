//! A hook for the interrupt tests, compiled only into debug builds or with the `test-hooks`
//! feature: never into a release binary.
//!
//! `INTERVIEW_TEST_SNAPSHOT_PAUSE=N` makes the N-th top-level snapshot of the process (1 = the
//! first) stand still inside its thread, after touching `INTERVIEW_TEST_SNAPSHOT_PAUSE_MARK`,
//! for at most a minute: long enough for a test to send a signal that must end the tool while
//! the snapshot is being taken.

#[cfg(any(debug_assertions, feature = "test-hooks"))]
pub(super) fn pause() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static TAKEN: AtomicUsize = AtomicUsize::new(0);
    let n = TAKEN.fetch_add(1, Ordering::SeqCst) + 1;
    let Some(want) = std::env::var("INTERVIEW_TEST_SNAPSHOT_PAUSE")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    else {
        return;
    };
    if n != want {
        return;
    }
    if let Ok(mark) = std::env::var("INTERVIEW_TEST_SNAPSHOT_PAUSE_MARK") {
        let _ = std::fs::write(mark, n.to_string());
    }
    let start = std::time::Instant::now();
    while start.elapsed() < std::time::Duration::from_secs(60) {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[cfg(not(any(debug_assertions, feature = "test-hooks")))]
#[inline(always)]
pub(super) fn pause() {}
