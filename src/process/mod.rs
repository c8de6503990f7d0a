//! Starting other programs: every child of the tool (runners, `gh`, version probes, the command
//! under `interview guard`) is spawned here, in its own session or process group, with stdin from a
//! file or null, output captured (capped, read while it runs), a timeout, and TERM → CONT → grace
//! → KILL sent to its whole group.
//!
//! A [`Launcher`] (the sandbox's) is the one place that may change what is started: a launcher
//! of its own that confines itself and then executes the program. Nothing of it runs between
//! fork and exec.
//!
//! Not for: deciding what a runner's output means (that is `runner` and `receipt`).

mod output;
mod pid_file;
pub(crate) mod program;
mod tree;
mod wait;

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use nix::unistd::Pid;

pub(crate) use crate::sys::start_time;
pub(crate) use output::{Capture, LineObserver, Sink, Stream};
pub(crate) use tree::end_orphan;
pub(crate) use tree::live_runner;

use pid_file::note_pids;

/// What the child reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Input {
    /// `/dev/null`.
    Null,
    /// This file, opened read-only (never a pipe the child could wait on).
    File(PathBuf),
    /// The tool's own stdin (only for `interview guard -- CMD`, which the person runs).
    Inherit,
}

/// Where one of the child's output streams goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Output {
    Null,
    /// The tool's own stream of the same name.
    Inherit,
    /// The tool's stderr (keeps the tool's stdout for its own output).
    ToStderr,
    /// Read while the child runs and handed to the [`Sink`].
    Pipe,
}

/// How the child is separated from the tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Detach {
    /// A new session (so a new process group) with no controlling terminal: it cannot open
    /// `/dev/tty` to read the person's keys or write past the sanitiser.
    Session,
    /// A new process group in the tool's session (it may still use the terminal it inherits).
    Group,
}

/// How a child ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ending {
    Exited(i32),
    Signalled(i32),
    TimedOut,
    /// It broke the limit it was given ([`Spawn::limit`]) and was killed.
    OverLimit,
    /// The person pressed Ctrl+C (or the tool got SIGTERM/SIGHUP) while it ran.
    Interrupted,
}

impl Ending {
    /// A shell's idea of the exit code: the status, or 128 + the signal.
    pub(crate) fn code(self) -> Option<i32> {
        match self {
            Ending::Exited(code) => Some(code),
            Ending::Signalled(sig) => Some(128 + sig),
            Ending::TimedOut | Ending::OverLimit | Ending::Interrupted => None,
        }
    }
}

/// The sandbox's hook into every spawn (see `docs/architecture.md` and `docs/sandbox.md`): what
/// is started instead of the program, a launcher that confines itself and then executes it.
/// It runs in the tool before the fork, never in the child.
pub(crate) trait Launcher: Send + Sync {
    /// The command line started in place of `argv`.
    fn argv(&self, argv: &[OsString]) -> std::io::Result<Vec<OsString>>;

    /// A descriptor of the tool's the launcher gets as its descriptor 3 (the proxy's socket
    /// pair, sandbox/linux/netns.rs); every other one is closed at exec, as always.
    fn descriptor(&self) -> Option<std::os::fd::RawFd> {
        None
    }
}

/// One program to start, and how.
pub(crate) struct Spawn {
    argv: Vec<OsString>,
    cwd: Option<PathBuf>,
    env: Vec<(OsString, OsString)>,
    /// Start from an empty environment instead of the tool's own.
    env_clear: bool,
    stdin: Input,
    stdout: Output,
    stderr: Output,
    detach: Detach,
    timeout: Option<Duration>,
    grace: Duration,
    interruptible: bool,
    reap_escapees: bool,
    linger: Duration,
    pid_file: Option<PathBuf>,
    launcher: Option<Arc<dyn Launcher>>,
    label: Option<String>,
    observer: Option<(Stream, LineObserver)>,
    limit: Option<(Duration, Limit)>,
}

/// A limit a program must stay within, checked while it runs: true when broken.
pub(crate) type Limit = Box<dyn Fn() -> bool + Send + Sync>;

/// How a spawned program ended, with what it printed.
#[derive(Debug)]
pub(crate) struct Finished<S> {
    pub ending: Ending,
    pub sink: S,
    /// Processes still alive after the program itself ended (its group and, with
    /// [`Spawn::reap_escapees`], descendants that left it), all killed.
    pub leftovers_killed: usize,
    /// Of those, the ones that had left its process group (`setsid` and the like).
    pub escaped_killed: usize,
    /// False when a pipe was still held open by something outside the group after the grace:
    /// the sink has everything read up to then.
    pub output_complete: bool,
    pub elapsed: Duration,
}

impl Spawn {
    /// `program` with no arguments yet; stdin and both outputs null, a new session, no timeout,
    /// a grace of 5 s.
    pub(crate) fn new(program: impl AsRef<OsStr>) -> Spawn {
        Spawn {
            argv: vec![program.as_ref().to_os_string()],
            cwd: None,
            env: Vec::new(),
            env_clear: false,
            stdin: Input::Null,
            stdout: Output::Null,
            stderr: Output::Null,
            detach: Detach::Session,
            timeout: None,
            grace: Duration::from_secs(5),
            interruptible: false,
            reap_escapees: false,
            linger: Duration::ZERO,
            pid_file: None,
            launcher: None,
            label: None,
            observer: None,
            limit: None,
        }
    }

    /// A command line: its first word is the program. Fails on an empty one.
    pub(crate) fn argv<S: AsRef<OsStr>>(argv: &[S]) -> std::io::Result<Spawn> {
        let (program, args) = argv
            .split_first()
            .ok_or_else(|| std::io::Error::other("the command is empty"))?;
        Ok(Spawn::new(program).args(args))
    }

    pub(crate) fn arg(mut self, arg: impl AsRef<OsStr>) -> Spawn {
        self.argv.push(arg.as_ref().to_os_string());
        self
    }

    pub(crate) fn args<S: AsRef<OsStr>>(mut self, args: impl IntoIterator<Item = S>) -> Spawn {
        self.argv
            .extend(args.into_iter().map(|a| a.as_ref().to_os_string()));
        self
    }

    pub(crate) fn cwd(mut self, dir: impl Into<PathBuf>) -> Spawn {
        self.cwd = Some(dir.into());
        self
    }

    /// Add one variable to the environment the child inherits.
    pub(crate) fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Spawn {
        self.env
            .push((key.as_ref().to_os_string(), value.as_ref().to_os_string()));
        self
    }

    /// Start the child with an empty environment (plus what [`Spawn::env`] adds): for a probe
    /// whose answer nothing of the person's or the repository's settings may steer.
    pub(crate) fn clear_env(mut self) -> Spawn {
        self.env_clear = true;
        self
    }

    pub(crate) fn envs<K: AsRef<OsStr>, V: AsRef<OsStr>>(
        mut self,
        vars: impl IntoIterator<Item = (K, V)>,
    ) -> Spawn {
        for (k, v) in vars {
            self = self.env(k, v);
        }
        self
    }

    pub(crate) fn stdin(mut self, input: Input) -> Spawn {
        self.stdin = input;
        self
    }

    pub(crate) fn stdout(mut self, output: Output) -> Spawn {
        self.stdout = output;
        self
    }

    pub(crate) fn stderr(mut self, output: Output) -> Spawn {
        self.stderr = output;
        self
    }

    pub(crate) fn detach(mut self, detach: Detach) -> Spawn {
        self.detach = detach;
        self
    }

    /// Stop the group (TERM, CONT, grace, KILL) when it has not ended after `timeout`.
    pub(crate) fn timeout(mut self, timeout: Duration) -> Spawn {
        self.timeout = Some(timeout);
        self
    }

    /// How long the group has between SIGTERM and SIGKILL; also how long the pipes are waited
    /// for after the group is gone.
    pub(crate) fn grace(mut self, grace: Duration) -> Spawn {
        self.grace = grace;
        self
    }

    /// End the group when the tool is interrupted (Ctrl+C, SIGTERM, SIGHUP): the first signal
    /// stops it with the grace, a second kills it at once.
    pub(crate) fn interruptible(mut self) -> Spawn {
        self.interruptible = true;
        self
    }

    /// Become a child subreaper and, once the program has ended, kill every descendant of the
    /// tool, even those that left the group with `setsid`. Only for the runner: it assumes no
    /// other child of the tool is running at the same time.
    pub(crate) fn reap_escapees(mut self) -> Spawn {
        self.reap_escapees = true;
        self
    }

    /// After the program has ended, give what is left in its group this long to finish on its
    /// own before it is ended (`interview guard -- CMD`: a background write is waited for).
    pub(crate) fn linger(mut self, linger: Duration) -> Spawn {
        self.linger = linger;
        self
    }

    /// Note the child's pid and start time in this file, for [`end_orphan`].
    pub(crate) fn pid_file(mut self, path: impl Into<PathBuf>) -> Spawn {
        self.pid_file = Some(path.into());
        self
    }

    /// Confine the child: start it through the sandbox's launcher.
    pub(crate) fn confine(mut self, launcher: Arc<dyn Launcher>) -> Spawn {
        self.launcher = Some(launcher);
        self
    }

    /// How messages name the program (default: `` `program` ``).
    pub(crate) fn label(mut self, label: impl Into<String>) -> Spawn {
        self.label = Some(label.into());
        self
    }

    /// Tell `observer` each line of the piped `stream` while the child runs (the reader that
    /// feeds the sink cuts the lines: there is no second reader). Lines past [`output::LINE_CAP`] are
    /// not told.
    /// Check `broken` about every `every` while the program runs; when it holds, kill the whole
    /// group at once (no grace: it is filling the disk) and end [`Ending::OverLimit`].
    pub(crate) fn limit(mut self, every: Duration, broken: Limit) -> Spawn {
        self.limit = Some((every, broken));
        self
    }

    pub(crate) fn observe_lines(mut self, stream: Stream, observer: LineObserver) -> Spawn {
        self.observer = Some((stream, observer));
        self
    }

    fn shown(&self) -> String {
        self.label
            .clone()
            .unwrap_or_else(|| format!("`{}`", self.argv[0].to_string_lossy()))
    }

    /// Run to the end, capturing piped stdout and stderr up to the given sizes each.
    pub(crate) fn capture(
        self,
        stdout_cap: usize,
        stderr_cap: usize,
    ) -> std::io::Result<Finished<Capture>> {
        let spawn = self.stdout(Output::Pipe).stderr(Output::Pipe);
        spawn.run_into(Capture::new(stdout_cap, stderr_cap))
    }

    /// Run to the end, handing piped output to `sink` as it comes.
    pub(crate) fn run_into<S: Sink>(mut self, sink: S) -> std::io::Result<Finished<S>> {
        if self.reap_escapees {
            // Idempotent; makes orphaned descendants ours so they can be found and reaped.
            crate::sys::become_subreaper()?;
        }
        // An interruptible program (the runner) is interrupted by any interrupt since the tool
        // started: the session checks for one just before a turn, and one that arrives
        // between that check and this spawn must not be taken as seen.
        let signals_at_start = if self.interruptible {
            0
        } else {
            crate::signals::count()
        };
        let mut cmd = self.command().map_err(|e| {
            std::io::Error::new(e.kind(), format!("cannot start {}: {e}", self.shown()))
        })?;
        let mut child = spawn_retrying(&mut cmd).map_err(|e| {
            std::io::Error::new(e.kind(), format!("cannot start {}: {e}", self.shown()))
        })?;
        let pid = Pid::from_raw(child.id() as i32);
        let started = Instant::now();
        if let Some(path) = &self.pid_file {
            // A fresh file: the runner's line comes first.
            let _ = std::fs::remove_file(path);
            note_pids(
                path,
                &[(pid.as_raw(), start_time(pid.as_raw()).unwrap_or(0))],
            );
        }
        let readers = output::Readers::start(&mut child, sink, self.observer.take());
        // From here on we reap with waitpid ourselves; `child` is only a handle for its pid.
        drop(child);

        let mut noted = std::collections::BTreeSet::new();
        let ending = self.wait(pid, started, signals_at_start, &mut noted);
        let (leftovers, escaped) = if self.reap_escapees {
            tree::kill_descendants(pid, &noted)
        } else {
            (0, 0)
        };
        let (sink, output_complete) = readers.finish(self.grace)?;
        Ok(Finished {
            ending,
            sink,
            leftovers_killed: leftovers,
            escaped_killed: escaped,
            output_complete,
            elapsed: started.elapsed(),
        })
    }

    fn command(&self) -> std::io::Result<Command> {
        let argv = match &self.launcher {
            Some(launcher) => launcher.argv(&self.argv)?,
            None => self.argv.clone(),
        };
        let (program, args) = argv
            .split_first()
            .ok_or_else(|| std::io::Error::other("nothing to start"))?;
        // Found by the one lookup, never by execvp's (which would search an empty or relative
        // PATH entry, that is the repository); the directory it starts in counts as the
        // repository's.
        let named = program.as_encoded_bytes().contains(&b'/');
        let cwd = match &self.cwd {
            Some(dir) => dir.clone(),
            None => std::env::current_dir()?,
        };
        let found = match named {
            true => Some(PathBuf::from(program)),
            false => program::find(program, &cwd, &cwd),
        };
        let program = found.ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!(
                    "{} not found in PATH's absolute directories outside the repository (or not executable)",
                    Path::new(program).display()
                ),
            )
        })?;
        let mut cmd = Command::new(program);
        if self.env_clear {
            cmd.env_clear();
        }
        cmd.args(args).envs(self.env.iter().map(|(k, v)| (k, v)));
        if let Some(dir) = &self.cwd {
            cmd.current_dir(dir);
        }
        match &self.stdin {
            Input::Null => cmd.stdin(Stdio::null()),
            Input::File(path) => cmd.stdin(File::open(path)?),
            Input::Inherit => cmd.stdin(Stdio::inherit()),
        };
        cmd.stdout(output::stdio(self.stdout)?);
        cmd.stderr(output::stdio(self.stderr)?);
        let detach = self.detach;
        let handed = self.launcher.as_ref().and_then(|l| l.descriptor());
        // SAFETY: the closure runs in the child between fork and exec. It calls only setsid(2)
        // or setpgid(2), and dup2(2) or fcntl(2), all async-signal-safe: no allocation, no
        // lock, no memory shared with the parent is touched (`detach` and `handed` are `Copy`
        // values moved in), so nothing can be left inconsistent by the fork.
        unsafe {
            std::os::unix::process::CommandExt::pre_exec(&mut cmd, move || {
                match detach {
                    Detach::Session => nix::unistd::setsid().map(|_| ()),
                    Detach::Group => nix::unistd::setpgid(Pid::from_raw(0), Pid::from_raw(0)),
                }
                .map_err(std::io::Error::from)?;
                if let Some(fd) = handed {
                    const AT: i32 = 3;
                    // dup2 leaves the new descriptor open across exec; onto itself it does
                    // nothing, so there the close-on-exec flag is cleared instead.
                    let done = if fd == AT {
                        nix::libc::fcntl(fd, nix::libc::F_SETFD, 0)
                    } else {
                        nix::libc::dup2(fd, AT)
                    };
                    if done < 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                }
                Ok(())
            });
        }
        Ok(cmd)
    }
}

/// `spawn`, tried again a few times on ETXTBSY (the program is being written: an update in
/// progress, or another thread's fork holding it open for writing).
fn spawn_retrying(cmd: &mut Command) -> std::io::Result<std::process::Child> {
    let mut tries = 0;
    loop {
        match cmd.spawn() {
            Err(e) if e.raw_os_error() == Some(nix::libc::ETXTBSY) && tries < 5 => {
                tries += 1;
                std::thread::sleep(Duration::from_millis(50));
            }
            other => return other,
        }
    }
}

#[cfg(test)]
mod tests;
