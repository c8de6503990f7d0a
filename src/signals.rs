//! Interrupting signals (SIGINT, SIGTERM, SIGHUP), registered once before the first spawn.
//!
//! Handlers only count; the turn loop and the prompts poll [`count`] and decide what to do.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

static COUNT: OnceLock<std::sync::Arc<AtomicUsize>> = OnceLock::new();

/// Register the handlers. Safe to call more than once.
pub(crate) fn install() -> std::io::Result<()> {
    if COUNT.get().is_some() {
        return Ok(());
    }
    let count = std::sync::Arc::new(AtomicUsize::new(0));
    for sig in [
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGHUP,
    ] {
        increment_on(sig, &count)?;
    }
    let _ = COUNT.set(count);
    Ok(())
}

fn increment_on(sig: i32, count: &std::sync::Arc<AtomicUsize>) -> std::io::Result<()> {
    let count = count.clone();
    // SAFETY: the handler only performs an atomic add, which is async-signal-safe.
    unsafe {
        signal_hook::low_level::register(sig, move || {
            count.fetch_add(1, Ordering::SeqCst);
        })?;
    }
    Ok(())
}

/// How many interrupting signals have arrived since [`install`].
pub(crate) fn count() -> usize {
    COUNT.get().map(|c| c.load(Ordering::SeqCst)).unwrap_or(0)
}

/// True once any interrupting signal has arrived.
pub(crate) fn interrupted() -> bool {
    count() > 0
}
