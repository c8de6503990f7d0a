//! Waiting for a spawned program: the poll loop that enforces the timeout, the grace and the
//! person's interrupt, sends TERM → CONT → grace → KILL to the group, notes the runner's
//! descendants in its pid file, and reaps.

use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::sys::signal::{Signal, killpg};
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::Pid;

use super::pid_file::note_pids;
use super::{Ending, Spawn, tree};

const POLL: Duration = Duration::from_millis(20);
/// While a program is young it is polled more often: most (the built-in interviewer, a probe)
/// end within milliseconds, and a 20 ms poll would make each wait up to 20 ms longer.
const EARLY_POLL: Duration = Duration::from_millis(1);
const EARLY: Duration = Duration::from_millis(100);
/// When the runner's descendants are first noted in its pid file, and how often after that.
const FIRST_NOTE: Duration = Duration::from_millis(20);
const NOTE_EVERY: Duration = Duration::from_millis(200);
impl Spawn {
    /// Wait for the program and everything left in its group, enforcing the timeout, the grace
    /// and (when asked) the person's interrupt.
    pub(super) fn wait(
        &self,
        pid: Pid,
        started: Instant,
        signals_at_start: usize,
        noted: &mut std::collections::BTreeSet<(i32, u64)>,
    ) -> Ending {
        let mut status: Option<WaitStatus> = None;
        let mut ending: Option<Ending> = None;
        let mut term_sent_at: Option<Instant> = None;
        let mut signals_seen = signals_at_start;
        let mut exited_at: Option<Instant> = None;
        // The runner's descendants (`noted`) are noted as they appear so that a later `resume`
        // can end those that outlive a kill -9 of the tool (a `setsid` daemon is in no group of
        // the runner's), and the end of the turn those that left our tree (macOS has no
        // subreaper: an orphan goes to launchd).
        let mut noted_at: Option<Instant> = None;
        let mut limit_checked = Instant::now();
        loop {
            self.reap(pid, &mut status);
            if status.is_some() && exited_at.is_none() {
                exited_at = Some(Instant::now());
            }
            if let Some(path) = self.pid_file.as_ref().filter(|_| self.reap_escapees)
                && match noted_at {
                    None => started.elapsed() >= FIRST_NOTE,
                    Some(at) => at.elapsed() >= NOTE_EVERY,
                }
            {
                noted_at = Some(Instant::now());
                let new: Vec<(i32, u64)> = tree::descendants()
                    .into_iter()
                    .filter(|d| d.0 != pid.as_raw() && noted.insert(*d))
                    .collect();
                note_pids(path, &new);
            }
            // Acted on at once, even in the sandbox launcher's first milliseconds: it hands a
            // stop on to a runner it has not started yet (src/sandbox/stop.rs).
            let now_signals = crate::signals::count();
            if self.interruptible && now_signals > signals_seen {
                if term_sent_at.is_some() {
                    // A second Ctrl+C: no more grace.
                    let _ = killpg(pid, Signal::SIGKILL);
                } else {
                    ending = Some(Ending::Interrupted);
                    terminate(pid);
                    term_sent_at = Some(Instant::now());
                }
                signals_seen = now_signals;
            }
            if status.is_some() && !group_alive(pid) {
                break;
            }
            if let Some((every, broken)) = &self.limit
                && ending.is_none()
                && status.is_none()
                && limit_checked.elapsed() >= *every
            {
                limit_checked = Instant::now();
                if broken() {
                    ending = Some(Ending::OverLimit);
                    let _ = killpg(pid, Signal::SIGKILL);
                    term_sent_at = Some(Instant::now());
                }
            }
            if ending.is_none() && self.timeout.is_some_and(|t| started.elapsed() >= t) {
                ending = Some(Ending::TimedOut);
                terminate(pid);
                term_sent_at = Some(Instant::now());
            }
            if term_sent_at.is_none() && exited_at.is_some_and(|t| t.elapsed() >= self.linger) {
                // The program ended but left members of its group behind: end them too.
                terminate(pid);
                term_sent_at = Some(Instant::now());
            }
            if let Some(at) = term_sent_at
                && at.elapsed() >= self.grace
            {
                let _ = killpg(pid, Signal::SIGKILL);
            }
            std::thread::sleep(if started.elapsed() < EARLY {
                EARLY_POLL
            } else {
                POLL
            });
        }
        ending.unwrap_or(match status {
            Some(WaitStatus::Exited(_, code)) => Ending::Exited(code),
            Some(WaitStatus::Signaled(_, sig, _)) => Ending::Signalled(sig as i32),
            _ => Ending::Exited(-1),
        })
    }

    /// Reap without blocking: the program itself, members of its group that became ours, and
    /// (for the runner) every exited child.
    fn reap(&self, pid: Pid, status: &mut Option<WaitStatus>) {
        if status.is_none()
            && let Ok(ws) = waitpid(pid, Some(WaitPidFlag::WNOHANG))
            && ws != WaitStatus::StillAlive
        {
            *status = Some(ws);
        }
        let scope = if self.reap_escapees {
            Pid::from_raw(-1)
        } else {
            Pid::from_raw(-pid.as_raw())
        };
        loop {
            match waitpid(scope, Some(WaitPidFlag::WNOHANG)) {
                Ok(WaitStatus::StillAlive) | Err(_) => return,
                Ok(ws) if ws.pid() == Some(pid) => *status = Some(ws),
                Ok(_) => {}
            }
        }
    }
}

/// SIGTERM, then SIGCONT so stopped members can act on it.
fn terminate(pgid: Pid) {
    let _ = killpg(pgid, Signal::SIGTERM);
    let _ = killpg(pgid, Signal::SIGCONT);
}

/// True while any process (zombies included) is in the group.
fn group_alive(pgid: Pid) -> bool {
    !matches!(killpg(pgid, None), Err(Errno::ESRCH))
}
