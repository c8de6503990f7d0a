//! Git's own work on its store in the background: `git gc --auto` and `git maintenance`, which a
//! `git commit` starts detached. A turn waits for it to end before the first snapshot, so the
//! guard does not take git's repacking for the runner's writes (and stop a good interview).

use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

use crate::input::{Links, read_regular};

/// How long a turn waits for git before it goes on (the guard then reports what git changed).
pub(crate) const WAIT_LIMIT: Duration = Duration::from_secs(120);

/// A `gc.pid` older than this is stale, as git itself decides (`gc.c`: 12 hours).
const GC_PID_STALE: Duration = Duration::from_secs(12 * 3600);

/// A `maintenance.lock` older than this is taken for one a crash left behind (it names no
/// process to ask).
const MAINTENANCE_LOCK_STALE: Duration = Duration::from_secs(600);

/// What git is doing to the store of `common_dir` right now, in words for the person: `git gc`
/// while `gc.pid` (younger than git's own 12 hours) names a process alive here — its host name
/// is not compared, so another machine's gc on a shared repository is not waited for — and
/// `git maintenance` while its lock is fresh. Links are not followed: git writes both as plain
/// files.
pub(super) fn git_at_work(common_dir: &Path) -> Option<String> {
    let young = |path: &Path, limit: Duration| {
        std::fs::symlink_metadata(path)
            .ok()
            .filter(|m| m.is_file())
            .and_then(|m| m.modified().ok())
            .and_then(|t| SystemTime::now().duration_since(t).ok())
            .is_some_and(|age| age < limit)
    };
    let gc_pid = common_dir.join("gc.pid");
    if young(&gc_pid, GC_PID_STALE)
        && let Ok(bytes) = read_regular(&gc_pid, 4096, Links::Refuse)
        && let Some(pid) = String::from_utf8_lossy(&bytes)
            .split_whitespace()
            .next()
            .and_then(|p| p.parse::<i32>().ok())
            .filter(|p| *p > 0)
        && crate::sys::alive(pid)
    {
        return Some(format!("git gc, pid {pid}"));
    }
    let lock = common_dir.join("objects").join("maintenance.lock");
    young(&lock, MAINTENANCE_LOCK_STALE).then(|| "git maintenance".to_string())
}

/// Wait while git works on the store of `common_dir`, at most `limit`; `say` is told once what
/// is waited for. False when a signal came (the caller ends the turn as interrupted).
pub(crate) fn wait_for_git(common_dir: &Path, limit: Duration, say: &mut dyn FnMut(&str)) -> bool {
    let Some(what) = git_at_work(common_dir) else {
        return true;
    };
    say(&format!(
        "Waiting for git's own work on its store ({what}) to end, so the guard does not take its changes for the runner's…"
    ));
    let start = Instant::now();
    while start.elapsed() < limit && git_at_work(common_dir).is_some() {
        if crate::signals::interrupted() {
            return false;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_live_gc_pid_or_a_fresh_maintenance_lock_is_git_at_work_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let git = dir.path();
        assert_eq!(git_at_work(git), None);
        std::fs::write(git.join("gc.pid"), format!("{} host\n", std::process::id())).unwrap();
        let said = git_at_work(git).unwrap();
        assert!(said.contains(&std::process::id().to_string()), "{said}");
        // A process that is gone, or a file that names none.
        std::fs::write(git.join("gc.pid"), "999999999 host\n").unwrap();
        assert_eq!(git_at_work(git), None);
        std::fs::write(git.join("gc.pid"), "not a pid\n").unwrap();
        assert_eq!(git_at_work(git), None);
        // A link is not followed, even to a live pid.
        std::fs::remove_file(git.join("gc.pid")).unwrap();
        let elsewhere = git.join("elsewhere");
        std::fs::write(&elsewhere, format!("{} host\n", std::process::id())).unwrap();
        std::os::unix::fs::symlink(&elsewhere, git.join("gc.pid")).unwrap();
        assert_eq!(git_at_work(git), None);
        std::fs::create_dir(git.join("objects")).unwrap();
        let lock = git.join("objects/maintenance.lock");
        std::fs::write(&lock, "").unwrap();
        assert_eq!(git_at_work(git).as_deref(), Some("git maintenance"));
        let old = filetime::FileTime::from_unix_time(1_000_000_000, 0);
        filetime::set_file_mtime(&lock, old).unwrap();
        assert_eq!(git_at_work(git), None, "a lock a crash left behind");
    }

    #[test]
    fn the_wait_ends_when_git_is_done_or_at_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let git = dir.path().to_path_buf();
        std::fs::write(git.join("gc.pid"), format!("{} host\n", std::process::id())).unwrap();
        let mut said = Vec::new();
        let start = Instant::now();
        assert!(wait_for_git(&git, Duration::from_millis(300), &mut |s| {
            said.push(s.to_string())
        }));
        assert!(start.elapsed() >= Duration::from_millis(300));
        assert_eq!(said.len(), 1, "{said:?}");
        let remover = {
            let pid_file = git.join("gc.pid");
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(200));
                std::fs::remove_file(pid_file).unwrap();
            })
        };
        let start = Instant::now();
        assert!(wait_for_git(&git, Duration::from_secs(60), &mut |_| {}));
        assert!(start.elapsed() < Duration::from_secs(30));
        remover.join().unwrap();
    }
}
