//! One writer per worktree: `.interview/lock`, an advisory lock (flock) held for the whole run
//! of `intent`, `reflect`, `resume` and `guard`. Sessions live in one worktree's local tier, so
//! this is also one writer per session. The file names its holder, for the error a second run
//! prints and for `interview status` (docs/sessions.md, "One run at a time").

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use fs4::{FileExt, TryLockError};

use crate::error::{Error, Result};

/// The lock file's name in the local tier.
pub(crate) const LOCK_FILE: &str = "lock";
/// How long a run waits for a holder that is already gone (its process exited and the kernel is
/// releasing the lock); a live holder is reported at once.
const GONE_HOLDER_WAIT: Duration = Duration::from_secs(2);

/// Who holds the lock, as its file says.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Holder {
    pub pid: Option<u32>,
    pub session: Option<String>,
    pub command: String,
}

impl Holder {
    fn parse(text: &str) -> Holder {
        let mut h = Holder::default();
        for line in text.lines() {
            match line.split_once('=') {
                Some(("pid", v)) => h.pid = v.trim().parse().ok(),
                Some(("session", v)) if !v.trim().is_empty() => h.session = Some(v.trim().into()),
                Some(("command", v)) => h.command = v.trim().to_string(),
                _ => {}
            }
        }
        h
    }

    fn render(&self) -> String {
        format!(
            "pid={}\nsession={}\ncommand={}\n",
            self.pid.map(|p| p.to_string()).unwrap_or_default(),
            self.session.as_deref().unwrap_or(""),
            self.command
        )
    }

    /// For a person: `pid 123, session intent-42-…, \`interview intent 42\``.
    pub(crate) fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(pid) = self.pid {
            parts.push(format!("pid {pid}"));
        }
        if let Some(s) = &self.session {
            parts.push(format!("session {s}"));
        }
        if !self.command.is_empty() {
            parts.push(format!("`interview {}`", self.command));
        }
        parts.join(", ")
    }
}

/// The held lock of a worktree; released when dropped (or when the process ends, however).
#[derive(Debug)]
pub(crate) struct WorktreeLock {
    file: File,
    holder: Holder,
    path: PathBuf,
}

fn open(path: &Path, write: bool) -> std::io::Result<File> {
    let mut o = OpenOptions::new();
    o.read(true);
    if write {
        o.write(true).create(true).mode(0o644);
    }
    // Never follow a link planted in the tier's place of the lock, never block on a FIFO.
    o.custom_flags(libc_flags::NOFOLLOW | libc_flags::NONBLOCK);
    o.open(path)
}

mod libc_flags {
    pub(super) const NOFOLLOW: i32 = nix::fcntl::OFlag::O_NOFOLLOW.bits();
    pub(super) const NONBLOCK: i32 = nix::fcntl::OFlag::O_NONBLOCK.bits();
}

impl WorktreeLock {
    /// Take the lock of the local tier at `tier_root` for `command` (e.g. `intent 42`), or fail
    /// at once naming the run that holds it.
    pub(crate) fn acquire(tier_root: &Path, command: &str) -> Result<WorktreeLock> {
        let path = tier_root.join(LOCK_FILE);
        let refuse = |what: &str| {
            Error::State(format!(
                "{} is {what}; it was left as it is: remove it and run again",
                path.display()
            ))
        };
        let file = open(&path, true).map_err(|e| match e.raw_os_error() {
            Some(nix::libc::ELOOP) => refuse("a symbolic link, which is never followed"),
            _ => Error::io(format!("cannot open {}", path.display()), e),
        })?;
        if !file.metadata().is_ok_and(|m| m.is_file()) {
            return Err(refuse("not a regular file"));
        }
        let start = Instant::now();
        loop {
            match FileExt::try_lock(&file) {
                Ok(()) => break,
                Err(TryLockError::WouldBlock) => {
                    let holder = read_holder(&file);
                    let gone = holder
                        .pid
                        .is_some_and(|pid| !i32::try_from(pid).is_ok_and(crate::sys::alive));
                    // A holder that took the lock an instant ago has not written its name yet.
                    let unnamed = holder.pid.is_none();
                    if (gone || unnamed) && start.elapsed() < GONE_HOLDER_WAIT {
                        std::thread::sleep(Duration::from_millis(20));
                        continue;
                    }
                    let who = match holder.describe() {
                        d if d.is_empty() => "it is starting and has not named itself yet".into(),
                        d => d,
                    };
                    return Err(Error::Busy(format!(
                        "another interview is running in this worktree ({who}); wait for it to end, or stop it"
                    )));
                }
                Err(TryLockError::Error(e)) => {
                    return Err(Error::io(format!("cannot lock {}", path.display()), e));
                }
            }
        }
        let mut lock = WorktreeLock {
            file,
            holder: Holder {
                pid: Some(std::process::id()),
                session: None,
                command: command.to_string(),
            },
            path,
        };
        lock.write_holder()?;
        Ok(lock)
    }

    /// Name the session this run works on, from now on.
    pub(crate) fn set_session(&mut self, id: &str) -> Result<()> {
        self.holder.session = Some(id.to_string());
        self.write_holder()
    }

    fn write_holder(&mut self) -> Result<()> {
        let text = self.holder.render();
        let file = &mut self.file;
        // Written over the old text, then cut to length: a reader never finds the file empty
        // once a holder named itself.
        file.rewind()
            .and_then(|_| file.write_all(text.as_bytes()))
            .and_then(|_| file.set_len(text.len() as u64))
            .map_err(|e| Error::io(format!("cannot write {}", self.path.display()), e))
    }
}

/// The holder of the lock at `tier_root`, if a run holds it now.
pub(crate) fn holder(tier_root: &Path) -> Option<Holder> {
    let file = open(&tier_root.join(LOCK_FILE), false).ok()?;
    match FileExt::try_lock_shared(&file) {
        Ok(()) => None,
        Err(TryLockError::WouldBlock) => Some(read_holder(&file)),
        Err(TryLockError::Error(_)) => None,
    }
}

fn read_holder(file: &File) -> Holder {
    let mut text = String::new();
    let mut f = file;
    let _ = f.rewind();
    let _ = f.take(4096).read_to_string(&mut text);
    Holder::parse(&text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_is_refused_naming_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let mut first = WorktreeLock::acquire(dir.path(), "intent 42").unwrap();
        first.set_session("intent-42-x").unwrap();
        let err = WorktreeLock::acquire(dir.path(), "intent 43").unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains(&format!("pid {}", std::process::id())),
            "{msg}"
        );
        assert!(msg.contains("session intent-42-x"), "{msg}");
        assert!(msg.contains("`interview intent 42`"), "{msg}");
        assert_eq!(err.code(), crate::error::code::ERROR);
        let h = holder(dir.path()).expect("held");
        assert_eq!(h.session.as_deref(), Some("intent-42-x"));
        drop(first);
        assert_eq!(holder(dir.path()), None);
        WorktreeLock::acquire(dir.path(), "intent 43").unwrap();
    }

    /// Two runs started at the same instant: the one refused while the other has the lock but
    /// has not written its name yet is never told "()".
    #[test]
    fn a_holder_that_has_not_named_itself_yet_is_said_to_be_starting() {
        let dir = tempfile::tempdir().unwrap();
        let file = open(&dir.path().join(LOCK_FILE), true).unwrap();
        FileExt::try_lock(&file).unwrap();
        let msg = WorktreeLock::acquire(dir.path(), "intent 43")
            .unwrap_err()
            .to_string();
        assert!(!msg.contains("()"), "{msg}");
        assert!(msg.contains("it is starting"), "{msg}");
    }

    #[test]
    fn a_link_in_place_of_the_lock_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("elsewhere");
        std::fs::write(&target, "keep").unwrap();
        std::os::unix::fs::symlink(&target, dir.path().join(LOCK_FILE)).unwrap();
        assert!(WorktreeLock::acquire(dir.path(), "intent 1").is_err());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
    }
}
