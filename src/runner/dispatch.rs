//! Starting a runner for one turn: its own session and process group, never the terminal, output
//! captured to `runner.log` and capped, a timeout that ends the whole group, and every leftover
//! descendant killed (see `docs/runners.md`).
//!
//! The spawning itself is [`crate::process`]; this module says how a runner is spawned: as a
//! child subreaper, so a process that escaped the group with `setsid` is re-parented to us when
//! its parent dies and is still found (by walking `/proc`) and killed at the end of the turn.

use std::fs::File;
use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::process::{Input, Output, Sink, Spawn, Stream};
use crate::receipt::sanitize;
use crate::runner::presets::Unfixable;

pub(crate) use crate::process::{Ending, end_orphan};

/// Everything needed to start a runner once.
#[derive(Debug, Clone)]
pub(crate) struct Invocation {
    pub argv: Vec<String>,
    pub cwd: PathBuf,
    /// Set for the runner, on top of what of the tool's own environment `allowed_env` lets
    /// through.
    pub env: Vec<(String, String)>,
    /// The only variables of the tool's environment that reach the runner, as patterns
    /// (`sandbox::env::allow_list`): applied by the sandbox's launcher, or here with
    /// `--sandbox off`.
    pub allowed_env: Vec<String>,
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
    /// Start the runner in the sandbox (see `docs/sandbox.md`); `None`: unconfined.
    pub sandbox: Option<crate::sandbox::Confinement>,
    /// Paths the runner may write under the sandbox (the turn's `out/`).
    pub writable: Vec<PathBuf>,
    /// Read the agent's activity from the events the runner streams on stdout, for the progress
    /// line (not with `verbose`, which shows the output itself).
    pub activity: Option<Activity>,
    /// Recognise, in each line the runner prints on stdout, a failure a retry cannot fix: the
    /// runner is stopped at once (a CLI waiting for a network or a login that will not come).
    pub unfixable: Option<crate::runner::presets::Recognise>,
}

/// What the progress line is told of a streaming runner's work.
#[derive(Debug, Clone)]
pub(crate) struct Activity {
    pub events: crate::runner::presets::Events,
    /// The repository: paths inside it are shown relative to it.
    pub root: PathBuf,
}

#[derive(Debug)]
pub(crate) struct Outcome {
    pub ending: Ending,
    /// Processes still alive after the runner itself ended (its group and escapees), all killed.
    pub leftovers_killed: usize,
    /// Of those, the ones that had left the runner's process group (`setsid` and the like).
    pub escaped_killed: usize,
    /// False when something outside the runner's process group still held its output open
    /// after the grace: what it wrote after that was never read.
    pub output_complete: bool,
    /// What the runner printed on stdout, up to [`Invocation::stdout_cap`] bytes.
    pub stdout: Vec<u8>,
    /// How many bytes it printed on stdout in all (more than `stdout` holds when it went past
    /// the cap: the rest was read and dropped as it came, never kept).
    pub stdout_printed: u64,
    /// The last bytes the runner wrote to its standard error (at most [`STDERR_TAIL_BYTES`]),
    /// for the message of a failed turn.
    pub stderr_tail: Vec<u8>,
    pub log_truncated: bool,
    /// How long the runner ran.
    pub elapsed: Duration,
    /// What its network connected to through the sandbox's proxy, and what it refused.
    pub connections: Vec<crate::sandbox::proxy::Connection>,
    /// The failure a retry cannot fix it printed on stdout, for which it was stopped.
    pub unfixable: Option<crate::runner::presets::Unfixable>,
}

/// Where a streaming runner's activity is told, in a few words ("reading src/export.rs"): the
/// session gives its progress line's. The words come from the runner: the receiver sanitises.
pub(crate) type Report = Box<dyn Fn(&str) + Send>;

/// Start the runner and wait for it, its group and its escapees to be gone; `report` is told
/// what the agent does while it runs (with [`Invocation::activity`]).
pub(crate) fn dispatch(inv: &Invocation, report: Report) -> std::io::Result<Outcome> {
    let mut spawn = runner_spawn(inv)?;
    // What the runner may leave in out/ (and its scratch directory) in all: checked while it
    // runs, so that it cannot fill the disk, and once more at the end.
    let cap = inv
        .sandbox
        .as_ref()
        .filter(|s| s.disk_mib > 0)
        .map(|s| s.disk_mib.saturating_mul(1024 * 1024));
    // A failure a retry cannot fix, as soon as the runner prints it: it is stopped like a
    // runner over its cap.
    let unfixable: Arc<Mutex<Option<Unfixable>>> = Arc::default();
    if cap.is_some() || inv.unfixable.is_some() {
        let dirs = inv.writable.clone();
        let seen = unfixable.clone();
        spawn = spawn.limit(
            Duration::from_millis(250),
            Box::new(move || {
                seen.lock().is_ok_and(|s| s.is_some())
                    || cap.is_some_and(|cap| crate::sandbox::leftovers::over_cap(&dirs, cap))
            }),
        );
    }
    let mut proxy = None;
    if let Some(sandbox) = &inv.sandbox {
        // Owns the private TMPDIR, removed when the spawn (and all the runner started) is done.
        let prepared =
            sandbox.prepare(&inv.argv, &inv.cwd, &inv.writable, Some(&inv.allowed_env))?;
        proxy = prepared.proxy();
        spawn = spawn.confine(std::sync::Arc::new(prepared));
    }
    spawn = watch_stdout(spawn, inv, report, unfixable.clone());
    let mut finished = spawn.run_into(CappedLog::create(inv)?);
    // The runner and all it started are gone: what is still open through the proxy is ended.
    let connections = proxy.map(|p| p.stop()).unwrap_or_default();
    let unfixable = unfixable.lock().ok().and_then(|mut s| s.take());
    if let (Some(cap), Ok(f)) = (cap, finished.as_mut())
        && unfixable.is_none()
    {
        empty_outputs_over_cap(f, &inv.writable, cap);
    }
    // Whatever the runner left in its own directories: no setuid bit, nothing others may write,
    // no device, FIFO or socket.
    for note in crate::sandbox::leftovers::settle_outputs(&inv.writable) {
        crate::output::stderr_line(&format!("interview: warning: {note}"));
    }
    let finished = finished?;
    let mut log = finished.sink;
    log.finish()?;
    Ok(Outcome {
        ending: finished.ending,
        leftovers_killed: finished.leftovers_killed,
        escaped_killed: finished.escaped_killed,
        output_complete: finished.output_complete,
        stdout: log.stdout,
        stdout_printed: log.stdout_printed,
        stderr_tail: log.stderr_tail,
        log_truncated: log.truncated,
        elapsed: finished.elapsed,
        connections,
        unfixable,
    })
}

/// How the runner is spawned: in its own process group, reaping escapees, interruptible,
/// with its environment, stdin, pipes, timeout and pid file.
fn runner_spawn(inv: &Invocation) -> std::io::Result<Spawn> {
    let mut spawn = Spawn::argv(&inv.argv)?.cwd(&inv.cwd);
    if inv.sandbox.is_none() {
        // No launcher to leave the rest out: the same allow list, applied here.
        spawn = spawn.clear_env().envs(crate::sandbox::env::unconfined(
            std::env::vars_os(),
            &inv.allowed_env,
        ));
    }
    spawn = spawn
        .envs(inv.env.iter().map(|(k, v)| (k, v)))
        .stdin(match &inv.stdin {
            Some(path) => Input::File(path.clone()),
            None => Input::Null,
        })
        .stdout(Output::Pipe)
        .stderr(Output::Pipe)
        .timeout(inv.timeout)
        .grace(inv.grace)
        .interruptible()
        .reap_escapees()
        .label(format!("runner `{}`", inv.argv[0]));
    if let Some(path) = &inv.pid_file {
        spawn = spawn.pid_file(path);
    }
    Ok(spawn)
}

/// Each line the runner prints on stdout, read as it comes: for a failure a retry cannot fix
/// (kept in `unfixable`) and for the agent's activity (told to `report`).
fn watch_stdout(
    spawn: Spawn,
    inv: &Invocation,
    report: Report,
    unfixable: Arc<Mutex<Option<Unfixable>>>,
) -> Spawn {
    let activity = inv.activity.clone().filter(|_| !inv.verbose);
    if activity.is_none() && inv.unfixable.is_none() {
        return spawn;
    }
    let recognise = inv.unfixable;
    spawn.observe_lines(
        Stream::Stdout,
        Box::new(move |line: &[u8]| {
            if let (Some(recognise), Ok(mut seen)) = (recognise, unfixable.lock())
                && seen.is_none()
            {
                *seen = recognise(String::from_utf8_lossy(line).trim());
            }
            if let Some(activity) = &activity
                && let Some(words) =
                    crate::runner::presets::activity_words(activity.events, line, &activity.root)
            {
                report(&words);
            }
        }),
    )
}

/// A runner that wrote past its cap (stopped for it, or found over it at the end) ends over
/// the limit, and nothing of it outlives the turn: the receipt, if any, is not read.
fn empty_outputs_over_cap<S>(
    finished: &mut crate::process::Finished<S>,
    writable: &[PathBuf],
    cap: u64,
) {
    if finished.ending == Ending::OverLimit || crate::sandbox::leftovers::over_cap(writable, cap) {
        finished.ending = Ending::OverLimit;
        for dir in writable {
            crate::sandbox::leftovers::empty(dir);
        }
    }
}

/// `runner.log`, with everything past the cap dropped (but still drained from the pipes), and
/// written a line at a time through [`sanitize`]: the person is pointed at it after a failed
/// turn, and `cat` must not let the runner set their clipboard, title or screen.
struct CappedLog {
    file: File,
    /// The end of what came, not yet a whole line.
    pending: Vec<u8>,
    written: u64,
    cap: u64,
    truncated: bool,
    dropped: u64,
    stdout: Vec<u8>,
    stdout_cap: usize,
    stdout_printed: u64,
    stderr_tail: Vec<u8>,
    verbose: bool,
}

/// A line longer than this is written in parts.
const PENDING_MOST: usize = 64 * 1024;

/// How much of the end of a runner's standard error is kept for a failed turn's message.
pub(crate) const STDERR_TAIL_BYTES: usize = 4096;

impl CappedLog {
    fn create(inv: &Invocation) -> std::io::Result<CappedLog> {
        Ok(CappedLog {
            file: File::create(&inv.log)?,
            pending: Vec::new(),
            written: 0,
            cap: inv.log_cap,
            truncated: false,
            dropped: 0,
            stdout: Vec::new(),
            stdout_cap: inv.stdout_cap,
            stdout_printed: 0,
            stderr_tail: Vec::new(),
            verbose: inv.verbose,
        })
    }

    fn push(&mut self, bytes: &[u8], is_stdout: bool) {
        if !is_stdout {
            self.stderr_tail.extend_from_slice(bytes);
            let over = self.stderr_tail.len().saturating_sub(STDERR_TAIL_BYTES);
            self.stderr_tail.drain(..over);
        }
        if is_stdout {
            self.stdout_printed += bytes.len() as u64;
        }
        if is_stdout && self.stdout.len() < self.stdout_cap {
            let room = self.stdout_cap - self.stdout.len();
            self.stdout
                .extend_from_slice(&bytes[..bytes.len().min(room)]);
        }
        let room = self.cap.saturating_sub(self.written) as usize;
        let take = bytes.len().min(room);
        self.pending.extend_from_slice(&bytes[..take]);
        self.written += take as u64;
        if let Some(end) = self.pending.iter().rposition(|&b| b == b'\n') {
            let lines: Vec<u8> = self.pending.drain(..=end).collect();
            self.write_clean(&lines);
        } else if self.pending.len() >= PENDING_MOST {
            let part = std::mem::take(&mut self.pending);
            self.write_clean(&part);
        }
        if take < bytes.len() {
            self.truncated = true;
            self.dropped += (bytes.len() - take) as u64;
        }
    }

    /// Write `bytes` to the log without escape sequences or control characters (but line
    /// breaks and tabs), bidi controls shown as `<U+XXXX>`.
    fn write_clean(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        let (clean, _) = sanitize(&String::from_utf8_lossy(bytes));
        let _ = self.file.write_all(clean.as_bytes());
    }

    /// End the log with the note of what the cap dropped. It is not synced: a crash runs the
    /// turn again with a new log; the session syncs it where a blocker names it.
    fn finish(&mut self) -> std::io::Result<()> {
        let rest = std::mem::take(&mut self.pending);
        self.write_clean(&rest);
        if self.truncated {
            writeln!(
                self.file,
                "\n[interview: output capped at {} bytes; {} more bytes dropped]",
                self.cap, self.dropped
            )?;
        }
        Ok(())
    }
}

impl Sink for CappedLog {
    fn push(&mut self, stream: Stream, bytes: &[u8]) {
        CappedLog::push(self, bytes, stream == Stream::Stdout);
        if self.verbose {
            let (clean, _) = sanitize(&String::from_utf8_lossy(bytes));
            crate::output::stderr(&clean);
        }
    }
}
