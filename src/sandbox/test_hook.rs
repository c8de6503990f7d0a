//! Hooks for the sandbox's tests, compiled only into debug builds or with the `test-hooks`
//! feature: never into a release binary.
//!
//! `INTERVIEW_TEST_SANDBOX_NO_<WALL>=1` (`LANDLOCK`, `NAMESPACES`, `SECCOMP`, `SEATBELT`) makes
//! the tool behave as if this machine lacked that wall: the tests show each fallback and what
//! `--sandbox require` does on such a machine. A switch that only weakens the sandbox has no
//! place in a release build.
//!
//! `INTERVIEW_TEST_LAUNCHER_PAUSE=POINT` holds the launcher at one of its windows — `launcher`
//! (namespaces entered, the namespace's first process not forked yet), `init` (in that process,
//! the runner not forked yet), `runner` (in the runner's process, before it executes) — after
//! touching `INTERVIEW_TEST_LAUNCHER_PAUSE_MARK`, until a stop signal is pending on the process
//! (at most 10 s): a signal sent to it then lands in exactly that window.

/// The mark's directory and name, the directory opened before the launcher builds the runner's
/// read-only world (a descriptor of the mount as it was, where the mark can still be created);
/// `None` when no pause is asked for.
#[cfg(any(debug_assertions, feature = "test-hooks"))]
static MARK: std::sync::OnceLock<Option<(std::fs::File, std::ffi::OsString)>> =
    std::sync::OnceLock::new();

/// Open the mark's directory, first thing in the launcher.
#[cfg(any(debug_assertions, feature = "test-hooks"))]
pub(super) fn arm() {
    MARK.get_or_init(|| {
        std::env::var_os("INTERVIEW_TEST_LAUNCHER_PAUSE")?;
        let mark =
            std::path::PathBuf::from(std::env::var_os("INTERVIEW_TEST_LAUNCHER_PAUSE_MARK")?);
        let dir = std::fs::File::open(mark.parent()?).ok()?;
        Some((dir, mark.file_name()?.to_owned()))
    });
}

#[cfg(not(any(debug_assertions, feature = "test-hooks")))]
#[inline(always)]
pub(super) fn arm() {}

#[cfg(any(debug_assertions, feature = "test-hooks"))]
// Its windows are the namespace steps', which exist only on Linux.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
pub(super) fn hold(point: &str) {
    use std::time::{Duration, Instant};
    if std::env::var("INTERVIEW_TEST_LAUNCHER_PAUSE")
        .ok()
        .as_deref()
        != Some(point)
    {
        return;
    }
    if let Some(Some((dir, name))) = MARK.get() {
        use nix::fcntl::{OFlag, openat};
        use nix::sys::stat::Mode;
        use std::io::Write;
        let flags = OFlag::O_WRONLY | OFlag::O_CREAT | OFlag::O_CLOEXEC;
        if let Ok(fd) = openat(
            dir,
            name.as_os_str(),
            flags,
            Mode::from_bits_truncate(0o644),
        ) {
            let _ = std::fs::File::from(fd).write_all(point.as_bytes());
        }
    }
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(10) && !crate::sys::stop_pending() {
        std::thread::sleep(Duration::from_millis(1));
    }
}

#[cfg(not(any(debug_assertions, feature = "test-hooks")))]
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
#[inline(always)]
pub(super) fn hold(_point: &str) {}

/// Why this machine is to be taken as lacking `wall` (`LANDLOCK`, `NAMESPACES`, `SECCOMP`,
/// `SEATBELT`), when a test asked for it.
#[cfg(any(debug_assertions, feature = "test-hooks"))]
pub(super) fn simulated_missing(wall: &str) -> Option<String> {
    let var = format!("INTERVIEW_TEST_SANDBOX_NO_{wall}");
    std::env::var_os(&var)
        .is_some_and(|v| v == "1")
        .then(|| format!("simulated by {var}=1"))
}

#[cfg(not(any(debug_assertions, feature = "test-hooks")))]
#[inline(always)]
pub(super) fn simulated_missing(_wall: &str) -> Option<String> {
    None
}
