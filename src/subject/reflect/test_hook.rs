//! A hook for the tests of the facts' cache write, compiled only into debug builds or with the
//! `test-hooks` feature: never into a release binary.
//!
//! `INTERVIEW_TEST_CACHE_WRITE_DELAY_MS=N` makes the thread that writes what the cache learnt
//! wait N milliseconds (at most 10 s) before it writes: long enough for a test to show that
//! nothing looks at the local tier (the guard's first snapshot) before that write is done.

#[cfg(any(debug_assertions, feature = "test-hooks"))]
pub(super) fn delay_cache_write() {
    if let Some(ms) = std::env::var("INTERVIEW_TEST_CACHE_WRITE_DELAY_MS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        std::thread::sleep(std::time::Duration::from_millis(ms.min(10_000)));
    }
}

#[cfg(not(any(debug_assertions, feature = "test-hooks")))]
#[inline(always)]
pub(super) fn delay_cache_write() {}
