//! The tool's descendants, found through `/proc`: who is still there after a runner ended, and
//! whether a pid noted by an earlier run is still that very process.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use nix::sys::signal::{Signal, kill, killpg};
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::Pid;

/// Kill every process descended from us (the runner's leftovers, wherever they went) and reap
/// them. Returns (all killed, those outside the runner's group).
pub(super) fn kill_descendants(runner_pgid: Pid) -> (usize, usize) {
    let me = nix::unistd::getpid().as_raw();
    let mut killed: BTreeSet<i32> = BTreeSet::new();
    let mut escaped: BTreeSet<i32> = BTreeSet::new();
    for _ in 0..50 {
        let procs = processes();
        let mut found = Vec::new();
        let mut stack = vec![me];
        while let Some(parent) = stack.pop() {
            for (&pid, info) in &procs {
                if info.ppid == parent && pid != me {
                    stack.push(pid);
                    if !info.zombie {
                        found.push((pid, info.pgrp));
                    }
                }
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

/// A process's start time (clock ticks since boot), to tell it from a later one with its pid.
pub fn start_time(pid: i32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = stat.rsplit_once(')')?.1;
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// End the process group of a program noted in `pid_file` by an earlier run of the tool, if that
/// very process is still there. Returns true when it was.
pub fn end_orphan(pid_file: &std::path::Path) -> bool {
    let Some(pid) = live_runner(pid_file) else {
        return false;
    };
    let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
    let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
    true
}

/// The pid of the runner noted in `pid_file`, if that very process is still running.
pub fn live_runner(pid_file: &std::path::Path) -> Option<i32> {
    let text = std::fs::read_to_string(pid_file).ok()?;
    let mut parts = text.split_whitespace();
    let pid = parts.next()?.parse::<i32>().ok()?;
    let start = parts.next()?.parse::<u64>().ok()?;
    (pid > 1 && start_time(pid) == Some(start)).then_some(pid)
}

struct ProcInfo {
    ppid: i32,
    pgrp: i32,
    zombie: bool,
}

fn processes() -> BTreeMap<i32, ProcInfo> {
    let mut out = BTreeMap::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return out;
    };
    for entry in dir.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<i32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // The command name may contain spaces and parentheses: parse after the last ')'.
        let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.len() < 3 {
            continue;
        }
        let (Ok(ppid), Ok(pgrp)) = (fields[1].parse(), fields[2].parse()) else {
            continue;
        };
        out.insert(
            pid,
            ProcInfo {
                ppid,
                pgrp,
                zombie: fields[0] == "Z" || fields[0] == "X",
            },
        );
    }
    out
}
