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
/// What the wait for one program knows so far.
struct Waiting {
    pid: Pid,
    started: Instant,
    /// How the program itself ended, once reaped.
    status: Option<WaitStatus>,
    /// Why the tool ended it, if it did.
    ending: Option<Ending>,
    term_sent_at: Option<Instant>,
    signals_seen: usize,
    exited_at: Option<Instant>,
    noted_at: Option<Instant>,
    limit_checked: Instant,
}

impl Waiting {
    /// TERM to the whole group (KILL follows after the grace).
    fn terminate(&mut self) {
        terminate(self.pid);
        self.term_sent_at = Some(Instant::now());
    }
}

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
        let mut w = Waiting {
            pid,
            started,
            status: None,
            ending: None,
            term_sent_at: None,
            signals_seen: signals_at_start,
            exited_at: None,
            noted_at: None,
            limit_checked: Instant::now(),
        };
        let ended = EndNotice::new(pid);
        loop {
            self.reap(pid, &mut w.status);
            if w.status.is_some() && w.exited_at.is_none() {
                w.exited_at = Some(Instant::now());
            }
            self.note_descendants(&mut w, noted);
            self.on_interrupt(&mut w);
            if w.status.is_some() && !group_alive(pid) {
                break;
            }
            self.enforce_limits(&mut w);
            if let Some(at) = w.term_sent_at
                && at.elapsed() >= self.grace
            {
                let _ = killpg(pid, Signal::SIGKILL);
            }
            let interval = if started.elapsed() < EARLY {
                EARLY_POLL
            } else {
                POLL
            };
            ended.nap(interval, w.status.is_some());
        }
        w.ending.unwrap_or(match w.status {
            Some(WaitStatus::Exited(_, code)) => Ending::Exited(code),
            Some(WaitStatus::Signaled(_, sig, _)) => Ending::Signalled(sig as i32),
            _ => Ending::Exited(-1),
        })
    }

    /// The runner's descendants (`noted`) are noted in its pid file as they appear so that a
    /// later `resume` can end those that outlive a kill -9 of the tool (a `setsid` daemon is in
    /// no group of the runner's), and the end of the turn those that left our tree (macOS has
    /// no subreaper: an orphan goes to launchd).
    fn note_descendants(
        &self,
        w: &mut Waiting,
        noted: &mut std::collections::BTreeSet<(i32, u64)>,
    ) {
        if let Some(path) = self.pid_file.as_ref().filter(|_| self.reap_escapees)
            && match w.noted_at {
                None => w.started.elapsed() >= FIRST_NOTE,
                Some(at) => at.elapsed() >= NOTE_EVERY,
            }
        {
            w.noted_at = Some(Instant::now());
            let new: Vec<(i32, u64)> = tree::descendants()
                .into_iter()
                .filter(|d| d.0 != w.pid.as_raw() && noted.insert(*d))
                .collect();
            note_pids(path, &new);
        }
    }

    /// The person's interrupt: TERM to the group, and KILL at a second one. Acted on at once,
    /// even in the sandbox launcher's first milliseconds: it hands a stop on to a runner it has
    /// not started yet (src/sandbox/stop.rs).
    fn on_interrupt(&self, w: &mut Waiting) {
        let now_signals = crate::signals::count();
        if self.interruptible && now_signals > w.signals_seen {
            if w.term_sent_at.is_some() {
                // A second Ctrl+C: no more grace.
                let _ = killpg(w.pid, Signal::SIGKILL);
            } else {
                w.ending = Some(Ending::Interrupted);
                w.terminate();
            }
            w.signals_seen = now_signals;
        }
    }

    /// The program's limit (KILL at once), its timeout, and the members of its group it left
    /// behind when it ended (both TERM).
    fn enforce_limits(&self, w: &mut Waiting) {
        if let Some((every, broken)) = &self.limit
            && w.ending.is_none()
            && w.status.is_none()
            && w.limit_checked.elapsed() >= *every
        {
            w.limit_checked = Instant::now();
            if broken() {
                w.ending = Some(Ending::OverLimit);
                let _ = killpg(w.pid, Signal::SIGKILL);
                w.term_sent_at = Some(Instant::now());
            }
        }
        if w.ending.is_none() && self.timeout.is_some_and(|t| w.started.elapsed() >= t) {
            w.ending = Some(Ending::TimedOut);
            w.terminate();
        }
        if w.term_sent_at.is_none() && w.exited_at.is_some_and(|t| t.elapsed() >= self.linger) {
            // The program ended but left members of its group behind: end them too.
            w.terminate();
        }
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

/// What wakes the wait the moment the program ends, rather than at its next poll (a built-in
/// runner or a probe ends within milliseconds): on Linux a pidfd, readable once the program has
/// exited; elsewhere (or where pidfds are refused) nothing, and the wait sleeps its interval.
struct EndNotice {
    /// Taken once it has woken the wait: a program reaped elsewhere leaves it readable for good.
    #[cfg(target_os = "linux")]
    pidfd: std::cell::Cell<Option<std::os::fd::OwnedFd>>,
}

impl EndNotice {
    fn new(pid: Pid) -> EndNotice {
        #[cfg(target_os = "linux")]
        {
            let pidfd = rustix::process::Pid::from_raw(pid.as_raw()).and_then(|p| {
                rustix::process::pidfd_open(p, rustix::process::PidfdFlags::empty()).ok()
            });
            EndNotice {
                pidfd: std::cell::Cell::new(pidfd),
            }
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = pid;
            EndNotice {}
        }
    }

    /// Wait `interval`, or until the program ends if it has not (`reaped`: it has, and what is
    /// left of its group is polled).
    fn nap(&self, interval: Duration, reaped: bool) {
        #[cfg(target_os = "linux")]
        if !reaped && let Some(fd) = self.pidfd.take() {
            use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
            use std::os::fd::AsFd;
            let timeout = PollTimeout::try_from(interval).unwrap_or(PollTimeout::MAX);
            let mut fds = [PollFd::new(fd.as_fd(), PollFlags::POLLIN)];
            match poll(&mut fds, timeout) {
                // Timed out, or a signal came: the loop acts on it, and the pidfd serves the
                // next nap.
                Ok(0) | Err(Errno::EINTR) => self.pidfd.set(Some(fd)),
                // Ended: the loop reaps.
                Ok(_) => {}
                Err(_) => std::thread::sleep(interval),
            }
            return;
        }
        let _ = reaped;
        std::thread::sleep(interval);
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

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// A program that has ended wakes the wait at once, however long its nap would be; one that
    /// was already reaped (or reaped elsewhere) lets the nap run its length, never spin.
    #[test]
    fn the_wait_wakes_when_the_program_ends_not_at_its_next_poll() {
        let mut child = std::process::Command::new("sleep")
            .arg("0.05")
            .spawn()
            .unwrap();
        let pid = Pid::from_raw(child.id() as i32);
        let ended = EndNotice::new(pid);
        let start = Instant::now();
        ended.nap(Duration::from_secs(30), false);
        let woke = start.elapsed();
        assert!(woke < Duration::from_secs(20), "woke after {woke:?}");
        assert!(
            woke >= Duration::from_millis(40),
            "woke before the end: {woke:?}"
        );
        child.wait().unwrap();
        let start = Instant::now();
        ended.nap(Duration::from_millis(30), false);
        ended.nap(Duration::from_millis(30), false);
        assert!(start.elapsed() >= Duration::from_millis(30));
    }
}
