//! The stop signals (SIGTERM, SIGINT, SIGHUP) in the launcher: blocked from its first step, so
//! that none is lost while the namespace's first process or the runner does not exist yet;
//! handed on at each fork; unblocked in the runner right before it executes.
//!
//! The tool stops a runner by signalling its whole process group (docs/runners.md): of the
//! launcher, the namespace's first process and the runner, each gets the signal that exists at
//! that moment. A blocked signal stays pending instead of being acted on or dropped; a child
//! starts with none pending. So after each fork the parent takes what it has pending and hands
//! it to the child before the child may go on. A signal sent to the group during or after the
//! fork is pending in the child too, and two of a kind pending merge into one: the runner acts
//! on each stop exactly once.

use nix::sys::signal::{SigHandler, SigSet, SigmaskHow, Signal, signal, sigprocmask};
#[cfg(target_os = "linux")]
use nix::{
    sys::signal::kill,
    sys::signalfd::{SfdFlags, SignalFd},
    unistd::getpid,
};

const STOP_SIGNALS: [Signal; 3] = [Signal::SIGTERM, Signal::SIGINT, Signal::SIGHUP];

fn stop_set() -> SigSet {
    let mut set = SigSet::empty();
    for sig in STOP_SIGNALS {
        set.add(sig);
    }
    set
}

/// Block the stop signals (from now on each stays pending until taken) and give them their
/// default action (so that unblocking a pending one ends the process, and the runner starts
/// with the defaults even when the tool was started with one ignored).
pub(super) fn block() -> Result<(), String> {
    sigprocmask(SigmaskHow::SIG_BLOCK, Some(&stop_set()), None)
        .map_err(|e| format!("cannot block the stop signals: {e}"))?;
    for sig in STOP_SIGNALS {
        // SAFETY: SIG_DFL installs no handler; nothing runs in signal context.
        let _ = unsafe { signal(sig, SigHandler::SigDfl) };
    }
    Ok(())
}

/// Take one pending stop signal, without waiting. Only the namespace steps (Linux) take them.
#[cfg(target_os = "linux")]
pub(super) fn take() -> Option<Signal> {
    let fd =
        SignalFd::with_flags(&stop_set(), SfdFlags::SFD_NONBLOCK | SfdFlags::SFD_CLOEXEC).ok()?;
    let info = fd.read_signal().ok()??;
    Signal::try_from(info.ssi_signo as i32).ok()
}

/// Take every pending stop signal (each kind is pending at most once).
#[cfg(target_os = "linux")]
pub(super) fn take_all() -> Vec<Signal> {
    let mut taken = Vec::new();
    while taken.len() < STOP_SIGNALS.len() * 2
        && let Some(sig) = take()
    {
        taken.push(sig);
    }
    taken
}

/// Unblock the stop signals: one pending ends the process here, by its default action.
pub(super) fn unblock() {
    let _ = sigprocmask(SigmaskHow::SIG_UNBLOCK, Some(&stop_set()), None);
}

/// End this process by `sig` (the way the runner ended, so the tool sees the same signal).
/// Returns only if `sig` does not end a process by default.
#[cfg(target_os = "linux")]
pub(super) fn end_by(sig: Signal) {
    // SAFETY: setting a signal's disposition to the default installs no handler.
    let _ = unsafe { signal(sig, SigHandler::SigDfl) };
    let _ = kill(getpid(), sig);
    let mut one = SigSet::empty();
    one.add(sig);
    let _ = sigprocmask(SigmaskHow::SIG_UNBLOCK, Some(&one), None);
}
