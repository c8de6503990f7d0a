//! The tool's descendants, found through the process table ([`crate::sys`]): who is still there after a runner ended, and
//! whether a pid noted by an earlier run is still that very process.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use nix::sys::signal::{Signal, kill};
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::Pid;

use crate::sys::{ProcInfo, process, processes, processes_below, start_time};

/// Kill every process descended from us (the runner's leftovers, wherever they went) and every
/// process `noted` as one while the runner ran that is still that very process (same start
/// time), and reap them. Returns (all killed, those outside the runner's group).
///
/// On Linux the tool is a subreaper, so the noted ones are still below it; macOS has no
/// subreaper, so an orphan (re-parented to launchd) is found only as noted, or as a member of
/// the runner's session or group.
pub(super) fn kill_descendants(runner_pgid: Pid, noted: &BTreeSet<(i32, u64)>) -> (usize, usize) {
    let me = nix::unistd::getpid().as_raw();
    let mut killed: BTreeSet<i32> = BTreeSet::new();
    let mut escaped: BTreeSet<i32> = BTreeSet::new();
    for _ in 0..50 {
        let procs = processes_below(me);
        let mut found: BTreeMap<i32, i32> = living_descendants(&procs, me)
            .into_iter()
            .map(|(pid, info)| (pid, info.pgrp))
            .collect();
        for &(pid, start) in noted {
            let info = procs.get(&pid).cloned().or_else(|| process(pid));
            if let Some(info) = info.filter(|p| p.start == start && !p.zombie) {
                found.insert(pid, info.pgrp);
            }
        }
        #[cfg(not(target_os = "linux"))]
        for (&pid, info) in &procs {
            let runner = runner_pgid.as_raw();
            if pid != me && !info.zombie && (info.pgrp == runner || info.session == runner) {
                found.insert(pid, info.pgrp);
            }
        }
        if found.is_empty() {
            break;
        }
        for (pid, pgrp) in found {
            let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
            killed.insert(pid);
            if pgrp != runner_pgid.as_raw() {
                escaped.insert(pid);
            }
        }
        std::thread::sleep(Duration::from_millis(10));
        reap_all();
    }
    reap_all();
    (killed.len(), escaped.len())
}

fn reap_all() {
    while let Ok(ws) = waitpid(None, Some(WaitPidFlag::WNOHANG)) {
        if ws == WaitStatus::StillAlive {
            return;
        }
    }
}

/// The tool's living descendants (not zombies) as `(pid, start time)`, for the pid file.
pub(super) fn descendants() -> Vec<(i32, u64)> {
    let me = nix::unistd::getpid().as_raw();
    let procs = processes_below(me);
    living_descendants(&procs, me)
        .into_iter()
        .map(|(pid, info)| (pid, info.start))
        .collect()
}

/// Every descendant of `me` in `procs` that is not a zombie, parents before their children.
fn living_descendants(procs: &BTreeMap<i32, ProcInfo>, me: i32) -> Vec<(i32, &ProcInfo)> {
    let mut found = Vec::new();
    let mut stack = vec![me];
    while let Some(parent) = stack.pop() {
        for (&pid, info) in procs {
            if info.ppid == parent && pid != me {
                stack.push(pid);
                if !info.zombie {
                    found.push((pid, info));
                }
            }
        }
    }
    found
}

/// The `(pid, start time)` lines of a pid file: the runner first, then the descendants noted
/// while it ran. Lines that do not parse are ignored.
fn noted(pid_file: &std::path::Path) -> Vec<(i32, u64)> {
    let Ok(text) = super::pid_file::read_pid_file(pid_file) else {
        return Vec::new();
    };
    text.lines()
        .filter_map(|line| {
            let mut parts = line.split_whitespace();
            let pid = parts.next()?.parse::<i32>().ok()?;
            let start = parts.next()?.parse::<u64>().ok()?;
            (pid > 1).then_some((pid, start))
        })
        .collect()
}

/// End what a runner noted in `pid_file` by an earlier run of the tool left running: the runner's
/// group, every noted descendant that is still that very process (same start time), and every
/// process in a session or group of theirs or descended from them that started after the
/// runner. A pid reused by an unrelated process is never touched: its start time differs.
/// Returns true when something was ended.
pub(crate) fn end_orphan(pid_file: &std::path::Path) -> bool {
    let noted = noted(pid_file);
    let Some(&(_, runner_start)) = noted.first() else {
        return false;
    };
    let mut ended = false;
    // The resuming tool's own session and group are never widened to, nor the tool itself.
    let me = nix::unistd::getpid().as_raw();
    let own_session = nix::unistd::getsid(None).map(|p| p.as_raw()).unwrap_or(me);
    let own_group = nix::unistd::getpgrp().as_raw();
    // Stop them first, so none forks while the rest are found; then kill them all.
    let mut stopped: BTreeSet<i32> = BTreeSet::new();
    for _ in 0..50 {
        let procs = processes();
        let alive = |pid: i32, start: u64| procs.get(&pid).is_some_and(|p| p.start == start);
        let mut targets: BTreeSet<i32> = noted
            .iter()
            .filter(|&&(pid, start)| alive(pid, start))
            .map(|&(pid, _)| pid)
            .collect();
        targets.extend(stopped.iter().filter(|pid| procs.contains_key(pid)));
        // Widen to the sessions, groups and children of the noted ones, until nothing is added.
        loop {
            let mut sessions: BTreeSet<i32> = targets.iter().map(|p| procs[p].session).collect();
            let mut groups: BTreeSet<i32> = targets.iter().map(|p| procs[p].pgrp).collect();
            sessions.remove(&own_session);
            groups.remove(&own_group);
            let more: Vec<i32> = procs
                .iter()
                .filter(|(pid, info)| {
                    !targets.contains(pid)
                        && info.start >= runner_start
                        && (sessions.contains(&info.session)
                            || groups.contains(&info.pgrp)
                            || targets.contains(&info.ppid))
                })
                .map(|(&pid, _)| pid)
                .collect();
            if more.is_empty() {
                break;
            }
            targets.extend(more);
        }
        targets.remove(&me);
        targets.retain(|p| !procs[p].zombie);
        let fresh: Vec<i32> = targets.difference(&stopped).copied().collect();
        if fresh.is_empty() {
            break;
        }
        for pid in fresh {
            let _ = kill(Pid::from_raw(pid), Signal::SIGSTOP);
            stopped.insert(pid);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    for &pid in &stopped {
        let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
        ended = true;
    }
    // Not reaped here: they are not our children (orphans go to init), and waiting for any
    // child would take the exit status of a child of ours that someone else waits for.
    ended
}

/// The pid of the runner noted in `pid_file`, if that very process is still running.
pub(crate) fn live_runner(pid_file: &std::path::Path) -> Option<i32> {
    let &(pid, start) = noted(pid_file).first()?;
    (start_time(pid) == Some(start)).then_some(pid)
}
