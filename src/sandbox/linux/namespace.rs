//! The runner's own user, mount, PID, IPC and UTS namespaces: a private /tmp, /proc and
//! /dev/shm, the worktree, its git directories and the git configuration bound read-only, and
//! (world.rs) every other mount read-only with the servers' sockets out of reach.
//!
//! Runs only in the launcher (a single-threaded process of its own), never in the tool.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::os::fd::AsRawFd;
use std::path::{Component, Path, PathBuf};

use nix::mount::{MsFlags, mount};
use nix::sched::{CloneFlags, unshare};
use nix::unistd::{getgid, getuid};

use super::{mounts, world};
use crate::sandbox::policy::Policy;

/// The user id the runner has inside its namespace when the tool runs as root: not 0, so the
/// runner keeps no capability in the namespace after it executes (and cannot undo the mounts).
const INNER_ID_FOR_ROOT: u32 = 1000;

fn err(what: &str, e: impl std::fmt::Display) -> String {
    format!("{what}: {e}")
}

/// Enter new user, mount, PID, IPC and UTS namespaces (the PID namespace takes effect for the
/// next child) and build the runner's view of the file system: a private /tmp and /dev/shm, the
/// servers' sockets hidden (`sockets`: those found before, see [`world::sockets`]), the turn's
/// writable directories and state views mounted `nosuid,nodev`, and every other mount made
/// read-only, `nosuid` and `nodev`.
pub(super) fn enter(policy: &Policy, sockets: &[PathBuf]) -> Result<(), String> {
    let (uid, gid) = (getuid().as_raw(), getgid().as_raw());
    let mut flags = CloneFlags::CLONE_NEWUSER
        | CloneFlags::CLONE_NEWNS
        | CloneFlags::CLONE_NEWPID
        | CloneFlags::CLONE_NEWIPC
        | CloneFlags::CLONE_NEWUTS;
    if policy.network_off || policy.proxy.as_ref().is_some_and(|p| p.in_namespace) {
        // No interface but a loopback (down, or up with the proxy's bridge only): nothing
        // outside is reachable but through the tool's proxy.
        flags |= CloneFlags::CLONE_NEWNET;
    }
    unshare(flags).map_err(|e| err("cannot create user namespaces (unshare)", e))?;
    let inner = |id: u32| if id == 0 { INNER_ID_FOR_ROOT } else { id };
    std::fs::write("/proc/self/setgroups", "deny")
        .map_err(|e| err("cannot write /proc/self/setgroups", e))?;
    std::fs::write("/proc/self/uid_map", format!("{} {uid} 1\n", inner(uid)))
        .map_err(|e| err("cannot write /proc/self/uid_map", e))?;
    std::fs::write("/proc/self/gid_map", format!("{} {gid} 1\n", inner(gid)))
        .map_err(|e| err("cannot write /proc/self/gid_map", e))?;
    mount(
        None::<&str>,
        "/",
        None::<&str>,
        MsFlags::MS_REC | MsFlags::MS_PRIVATE,
        None::<&str>,
    )
    .map_err(|e| err("cannot make the mounts private", e))?;
    // The state views first: a HOME under /tmp is shown in the private /tmp with them in it.
    mounts::mount_views(&policy.views, throwaway)?;
    private_tmp(policy)?;
    private_home(policy)?;
    world::hide_servers(sockets, &policy.visible)?;
    mounts::hide(&policy.hidden)?;
    world::private_shm()?;
    for path in &policy.writable {
        bind(path, false)?;
    }
    private_tmpdir(policy)?;
    let mut writable: Vec<PathBuf> = policy.writable.clone();
    writable.push(policy.tmp.clone());
    for path in &policy.protected {
        bind(path, true)?;
    }
    let mut keep = writable;
    keep.extend(policy.views.iter().map(|v| v.real.clone()));
    keep.push(PathBuf::from("/dev/shm"));
    world::read_only_rest(&keep)?;
    // The working directory still points into the mounts as they were: enter it again through
    // the new ones (or a relative path would reach the worktree past its read-only bind).
    let cwd = std::env::current_dir().map_err(|e| err("cannot read the working directory", e))?;
    std::env::set_current_dir(&cwd).map_err(|e| err(&format!("cannot enter {}", cwd.display()), e))
}

/// The runner's TMPDIR: with a cap, a file system of its own of that size (a full one says "No
/// space left on device" to the runner, never to the person's disk; gone with the namespace),
/// else the directory the tool made, bound `nosuid,nodev`.
fn private_tmpdir(policy: &Policy) -> Result<(), String> {
    if policy.disk_mib == 0 {
        return bind(&policy.tmp, false);
    }
    mount(
        Some("tmpfs"),
        &policy.tmp,
        Some("tmpfs"),
        MsFlags::MS_NOSUID | MsFlags::MS_NODEV,
        Some(format!("mode=0700,size={}m", policy.disk_mib).as_str()),
    )
    .map_err(|e| {
        err(
            &format!("cannot mount the runner's TMPDIR {}", policy.tmp.display()),
            e,
        )
    })
}

/// In the PID namespace's first process: a /proc that shows only the runner's processes.
pub(super) fn mount_proc() -> Result<(), String> {
    mount(
        Some("proc"),
        "/proc",
        Some("proc"),
        MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_NOEXEC,
        None::<&str>,
    )
    .map_err(|e| err("cannot mount a private /proc", e))
}

/// Bind `path` onto itself (with what is mounted below it), `nosuid,nodev`, and read-only if
/// asked. A path that does not exist is skipped: there is nothing to protect or grant.
fn bind(path: &Path, read_only: bool) -> Result<(), String> {
    if std::fs::metadata(path).is_err() {
        return Ok(());
    }
    mount(
        Some(path),
        path,
        None::<&str>,
        MsFlags::MS_BIND | MsFlags::MS_REC,
        None::<&str>,
    )
    .map_err(|e| err(&format!("cannot bind {}", path.display()), e))?;
    // A remount must keep the flags the kernel locked on the original mount.
    let mut flags = MsFlags::MS_BIND
        | MsFlags::MS_REMOUNT
        | MsFlags::MS_NOSUID
        | MsFlags::MS_NODEV
        | world::locked_flags(path);
    if read_only {
        flags |= MsFlags::MS_RDONLY;
    }
    mount(None::<&str>, path, None::<&str>, flags, None::<&str>)
        .map_err(|e| err(&format!("cannot remount {}", path.display()), e))
}

/// Replace /tmp by an empty file system holding only what the runner needs to see there: the
/// private TMPDIR and the top-level entries of /tmp that hold the worktree, the turn's files,
/// the runner's program, HOME and PATH directories. Everything else in /tmp (other people's
/// files, server sockets such as tmux's) is out of reach.
fn private_tmp(policy: &Policy) -> Result<(), String> {
    let mut paths: Vec<PathBuf> = policy.visible.clone();
    paths.push(policy.tmp.clone());
    private_dir(Path::new("/tmp"), &paths)
}

/// Replace HOME, where the tool decided so (home.rs), by an empty file system showing only
/// what the runner needs of it, each path at its place (its parents made empty directories);
/// the credential stores inside what is shown are still covered after (mounts.rs).
fn private_home(policy: &Policy) -> Result<(), String> {
    match &policy.home {
        Some(view) => cover_showing(&view.home, &view.shown),
        None => Ok(()),
    }
}

/// Replace the directory `dir` by an empty file system showing only its entries that hold one
/// of `paths` (as given, or by their real paths); a path that is `dir` itself keeps it whole.
fn private_dir(dir: &Path, paths: &[PathBuf]) -> Result<(), String> {
    // Something needs all of it: keep it as it is.
    let Some(names) = needed_entries(dir, paths) else {
        return Ok(());
    };
    let shown: Vec<PathBuf> = names.into_iter().map(PathBuf::from).collect();
    cover_showing(dir, &shown)
}

/// Cover the directory `dir` with an empty file system and show in it each of `shown` (paths
/// relative to `dir`, each bound at its place, its parents made empty directories). Nothing for
/// a `dir` that is not a directory.
fn cover_showing(dir: &Path, shown: &[PathBuf]) -> Result<(), String> {
    if !std::fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir()) {
        return Ok(());
    }
    let old =
        std::fs::File::open(dir).map_err(|e| err(&format!("cannot open {}", dir.display()), e))?;
    let old_path = PathBuf::from(format!("/proc/self/fd/{}", old.as_raw_fd()));
    mount(
        Some("tmpfs"),
        dir,
        Some("tmpfs"),
        MsFlags::MS_NOSUID | MsFlags::MS_NODEV,
        Some("mode=0755,size=4m"),
    )
    .map_err(|e| err(&format!("cannot mount a private {}", dir.display()), e))?;
    for rel in shown {
        // Only plain names: made relative to `dir` by the tool, never `..` or absolute.
        if !rel.components().all(|c| matches!(c, Component::Normal(_))) {
            continue;
        }
        let target = dir.join(rel);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| err(&format!("cannot create {}", parent.display()), e))?;
        }
        show(&old_path.join(rel), &target)?;
    }
    Ok(())
}

/// The entries of `dir` that hold one of `paths` (as given, or by their real paths), by name;
/// `None` when a path is `dir` itself (or above it): then it is needed whole. The one rule of
/// what a replaced directory shows (/tmp).
fn needed_entries(dir: &Path, paths: &[PathBuf]) -> Option<BTreeSet<OsString>> {
    let mut names = BTreeSet::new();
    let real = paths.iter().filter_map(|p| std::fs::canonicalize(p).ok());
    for path in paths.iter().cloned().chain(real) {
        if dir.starts_with(&path) {
            return None;
        }
        let Ok(rest) = path.strip_prefix(dir) else {
            continue;
        };
        match rest.components().next() {
            Some(Component::Normal(name)) => {
                names.insert(name.to_owned());
            }
            _ => return None,
        }
    }
    Some(names)
}

/// Show the entry `source` (of a directory now covered by a new file system) at `target`: a link
/// as the same link, anything else bound there. Whether it was bound (a link, or an entry gone
/// meanwhile, is not).
fn show(source: &Path, target: &Path) -> Result<bool, String> {
    let Ok(meta) = std::fs::symlink_metadata(source) else {
        return Ok(false);
    };
    if meta.file_type().is_symlink() {
        if let Ok(to) = std::fs::read_link(source) {
            let _ = std::os::unix::fs::symlink(to, target);
        }
        return Ok(false);
    }
    if meta.is_dir() {
        std::fs::create_dir(target)
    } else {
        std::fs::File::create(target).map(|_| ())
    }
    .map_err(|e| err(&format!("cannot create {}", target.display()), e))?;
    mount(
        Some(source),
        target,
        None::<&str>,
        MsFlags::MS_BIND | MsFlags::MS_REC,
        None::<&str>,
    )
    .map_err(|e| err(&format!("cannot bind {}", target.display()), e))?;
    Ok(true)
}

/// Entries of a throwaway directory the program must write and that are not shown: Codex's
/// databases and temporary files (it makes new ones), its installation id.
fn rewritten(name: &str) -> bool {
    name == "tmp"
        || name == ".tmp"
        || name == "installation_id"
        || [".sqlite", ".sqlite-wal", ".sqlite-shm", ".sqlite-journal"]
            .iter()
            .any(|end| name.ends_with(end))
}

/// Replace the directory `dir` by a new, empty file system (gone with the namespace) that shows
/// each of its entries read-only, but for the [`rewritten`] ones: the runner writes there
/// freely, and nothing it writes reaches the real directory or outlives the turn. The fallback
/// of a state view where overlayfs cannot be mounted (see state.rs).
fn throwaway(dir: &Path) -> Result<(), String> {
    let old =
        std::fs::File::open(dir).map_err(|e| err(&format!("cannot open {}", dir.display()), e))?;
    let old_path = PathBuf::from(format!("/proc/self/fd/{}", old.as_raw_fd()));
    let names: Vec<OsString> = std::fs::read_dir(&old_path)
        .map_err(|e| err(&format!("cannot list {}", dir.display()), e))?
        .flatten()
        .map(|e| e.file_name())
        .filter(|n| !n.to_str().is_some_and(rewritten))
        .collect();
    mount(
        Some("tmpfs"),
        dir,
        Some("tmpfs"),
        MsFlags::MS_NOSUID | MsFlags::MS_NODEV,
        Some("mode=0700,size=256m"),
    )
    .map_err(|e| err(&format!("cannot mount a throwaway {}", dir.display()), e))?;
    for name in names {
        let target = dir.join(&name);
        if !show(&old_path.join(&name), &target)? {
            continue;
        }
        let kept = world::locked_flags(&target);
        mount(
            None::<&str>,
            &target,
            None::<&str>,
            MsFlags::MS_BIND | MsFlags::MS_REMOUNT | MsFlags::MS_RDONLY | kept,
            None::<&str>,
        )
        .map_err(|e| err(&format!("cannot remount {} read-only", target.display()), e))?;
    }
    Ok(())
}
