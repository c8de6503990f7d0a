//! Starting a runner for one turn: its own session and process group, never the terminal, output captured
//! and capped, a timeout that ends the whole group, and every leftover descendant killed.
//!
//! The tool is a child subreaper, so a process that escaped the group with `setsid` is re-parented
//! to us when its parent dies and is still found (by walking `/proc`) and killed at the end of the
//! turn.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::sys::signal::{Signal, kill, killpg};
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::Pid;

use crate::receipt::sanitize;

/// Everything needed to start a runner once.
#[derive(Debug, Clone)]
pub struct Invocation {
    pub argv: Vec<String>,
    pub cwd: PathBuf,
    pub env: Vec<(String, String)>,
    /// The file given as stdin (the brief, for presets that read it); `None` means null.
    pub stdin: Option<PathBuf>,
    /// Where stdout and stderr go, interleaved, capped at `log_cap` bytes.
    pub log: PathBuf,
    pub log_cap: u64,
    /// Keep up to this many bytes of stdout separately, for runners that print their receipt.
    pub stdout_cap: usize,
    pub timeout: Duration,
    pub grace: Duration,
    /// Also stream the runner's output, sanitised, to our stderr.
    pub verbose: bool,
    /// Where to note the runner's pid and start time, so a later run of the tool can end a runner
    /// orphaned when this one was killed.
    pub pid_file: Option<PathBuf>,
}

/// How the runner ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    Exited(i32),
    Signalled(i32),
    TimedOut,
    /// The person pressed Ctrl+C (or the tool got SIGTERM/SIGHUP) during the turn.
    Interrupted,
}

#[derive(Debug)]
pub struct Outcome {
    pub ending: Ending,
    /// Processes still alive after the runner itself ended (its group and escapees), all killed.
    pub leftovers_killed: usize,
    /// Of those, the ones that had left the runner's process group (`setsid` and the like).
    pub escaped_killed: usize,
    pub stdout: Vec<u8>,
    pub log_truncated: bool,
}

const POLL: Duration = Duration::from_millis(20);

/// Start the runner and wait for it, its group and its escapees to be gone.
pub fn dispatch(inv: &Invocation) -> std::io::Result<Outcome> {
    // Idempotent; makes orphaned descendants ours so they can be found and reaped.
    nix::sys::prctl::set_child_subreaper(true).map_err(std::io::Error::from)?;
    let signals_at_start = crate::signals::count();

    let (program, args) = inv
        .argv
        .split_first()
        .ok_or_else(|| std::io::Error::other("the runner command is empty"))?;
    let mut cmd = Command::new(program);
    cmd.args(args)
        .current_dir(&inv.cwd)
        .envs(inv.env.iter().map(|(k, v)| (k, v)))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // A new session, so a new process group (killed as one) with no controlling terminal: the
    // runner cannot open /dev/tty to read the person's keys or write past the sanitiser.
    //
    // SAFETY: the closure runs in the child between fork and exec. It only calls setsid(2),
    // which POSIX lists as async-signal-safe; it allocates nothing, takes no lock and touches no
    // memory shared with the parent, so nothing can be left inconsistent by the fork.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(&mut cmd, || {
            nix::unistd::setsid()
                .map(|_| ())
                .map_err(std::io::Error::from)
        });
    }
    match &inv.stdin {
        Some(path) => cmd.stdin(File::open(path)?),
        None => cmd.stdin(Stdio::null()),
    };
    let mut child = cmd.spawn().map_err(|e| {
        std::io::Error::new(e.kind(), format!("cannot start runner `{program}`: {e}"))
    })?;
    let pid = Pid::from_raw(child.id() as i32);
    let started = Instant::now();
    if let Some(path) = &inv.pid_file {
        let _ = std::fs::write(
            path,
            format!("{} {}\n", pid, start_time(pid.as_raw()).unwrap_or(0)),
        );
    }

    let log = std::sync::Arc::new(std::sync::Mutex::new(CappedLog::create(inv)?));
    let readers = [
        child
            .stdout
            .take()
            .map(|s| spawn_reader(s, log.clone(), true, inv.verbose)),
        child
            .stderr
            .take()
            .map(|s| spawn_reader(s, log.clone(), false, inv.verbose)),
    ];
    // From here on we reap with waitpid ourselves; `child` is only a handle for its pid.
    drop(child);

    let mut status: Option<WaitStatus> = None;
    let mut ending: Option<Ending> = None;
    let mut term_sent_at: Option<Instant> = None;
    let mut signals_seen = signals_at_start;
    loop {
        reap(pid, &mut status);
        let now_signals = crate::signals::count();
        if now_signals > signals_seen {
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
        if ending.is_none() && started.elapsed() >= inv.timeout {
            ending = Some(Ending::TimedOut);
            terminate(pid);
            term_sent_at = Some(Instant::now());
        }
        if status.is_some() && term_sent_at.is_none() {
            // The runner ended but left members of its group behind: end them too.
            terminate(pid);
            term_sent_at = Some(Instant::now());
        }
        if let Some(at) = term_sent_at
            && at.elapsed() >= inv.grace
        {
            let _ = killpg(pid, Signal::SIGKILL);
        }
        std::thread::sleep(POLL);
    }

    let (leftovers, escaped) = kill_descendants(pid);
    for handle in readers.into_iter().flatten() {
        let _ = handle.join();
    }
    let mut log = match std::sync::Arc::try_unwrap(log) {
        Ok(m) => m.into_inner().unwrap_or_else(|p| p.into_inner()),
        Err(_) => return Err(std::io::Error::other("runner output readers still running")),
    };
    log.finish()?;

    let ending = ending.unwrap_or(match status {
        Some(WaitStatus::Exited(_, code)) => Ending::Exited(code),
        Some(WaitStatus::Signaled(_, sig, _)) => Ending::Signalled(sig as i32),
        _ => Ending::Exited(-1),
    });
    Ok(Outcome {
        ending,
        leftovers_killed: leftovers,
        escaped_killed: escaped,
        stdout: log.stdout,
        log_truncated: log.truncated,
    })
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

/// Reap every exited child without blocking, remembering the runner's own status.
fn reap(runner: Pid, status: &mut Option<WaitStatus>) {
    loop {
        match waitpid(None, Some(WaitPidFlag::WNOHANG)) {
            Ok(WaitStatus::StillAlive) | Err(_) => return,
            Ok(ws) => {
                if ws.pid() == Some(runner) {
                    *status = Some(ws);
                }
            }
        }
    }
}

/// Kill every process descended from us (the runner's leftovers, wherever they went) and reap
/// them. Returns (all killed, those outside the runner's group).
fn kill_descendants(runner_pgid: Pid) -> (usize, usize) {
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
        let mut ignore = None;
        reap(Pid::from_raw(-1), &mut ignore);
    }
    let mut ignore = None;
    reap(Pid::from_raw(-1), &mut ignore);
    (killed.len(), escaped.len())
}

/// A process's start time (clock ticks since boot), to tell it from a later one with its pid.
fn start_time(pid: i32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = stat.rsplit_once(')')?.1;
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// End the process group of a runner noted in `pid_file` by an earlier run of the tool, if that
/// very process is still there. Returns true when it was.
pub fn end_orphan(pid_file: &std::path::Path) -> bool {
    let Ok(text) = std::fs::read_to_string(pid_file) else {
        return false;
    };
    let mut parts = text.split_whitespace();
    let (Some(Ok(pid)), Some(Ok(start))) = (
        parts.next().map(str::parse::<i32>),
        parts.next().map(str::parse::<u64>),
    ) else {
        return false;
    };
    if pid <= 1 || start_time(pid) != Some(start) {
        return false;
    }
    let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
    let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
    true
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

/// `runner.log`, with everything past the cap dropped (but still drained from the pipes).
struct CappedLog {
    file: File,
    written: u64,
    cap: u64,
    truncated: bool,
    dropped: u64,
    stdout: Vec<u8>,
    stdout_cap: usize,
}

impl CappedLog {
    fn create(inv: &Invocation) -> std::io::Result<CappedLog> {
        Ok(CappedLog {
            file: File::create(&inv.log)?,
            written: 0,
            cap: inv.log_cap,
            truncated: false,
            dropped: 0,
            stdout: Vec::new(),
            stdout_cap: inv.stdout_cap,
        })
    }

    fn push(&mut self, bytes: &[u8], is_stdout: bool) {
        if is_stdout && self.stdout.len() < self.stdout_cap {
            let room = self.stdout_cap - self.stdout.len();
            self.stdout
                .extend_from_slice(&bytes[..bytes.len().min(room)]);
        }
        let room = self.cap.saturating_sub(self.written) as usize;
        let take = bytes.len().min(room);
        if take > 0 && self.file.write_all(&bytes[..take]).is_ok() {
            self.written += take as u64;
        }
        if take < bytes.len() {
            self.truncated = true;
            self.dropped += (bytes.len() - take) as u64;
        }
    }

    fn finish(&mut self) -> std::io::Result<()> {
        if self.truncated {
            writeln!(
                self.file,
                "\n[interview: output capped at {} bytes; {} more bytes dropped]",
                self.cap, self.dropped
            )?;
        }
        self.file.sync_data()
    }
}

fn spawn_reader(
    mut source: impl Read + Send + 'static,
    log: std::sync::Arc<std::sync::Mutex<CappedLog>>,
    is_stdout: bool,
    verbose: bool,
) -> JoinHandle<()> {
    std::thread::spawn(move || {
        let mut buf = [0u8; 8192];
        loop {
            match source.read(&mut buf) {
                Ok(0) => return,
                Ok(n) => {
                    if let Ok(mut log) = log.lock() {
                        log.push(&buf[..n], is_stdout);
                    }
                    if verbose {
                        let (clean, _) = sanitize(&String::from_utf8_lossy(&buf[..n]));
                        eprint!("{clean}");
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => return,
            }
        }
    })
}
