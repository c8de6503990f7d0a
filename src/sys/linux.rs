//! Linux: the process table from `/proc`, the switches through `prctl`, descriptors closed with
//! `close_range`.

use std::collections::BTreeMap;
use std::os::fd::RawFd;

use super::ProcInfo;

/// One `/proc/PID/stat` line. The command name may contain spaces and parentheses: the fields
/// are read after the last `)`.
pub(super) fn parse_stat(stat: &str) -> Option<ProcInfo> {
    let rest = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    if fields.len() < 20 {
        return None;
    }
    Some(ProcInfo {
        ppid: fields[1].parse().ok()?,
        pgrp: fields[2].parse().ok()?,
        session: fields[3].parse().ok()?,
        start: fields[19].parse().ok()?,
        zombie: fields[0] == "Z" || fields[0] == "X",
    })
}

pub(super) fn process(pid: i32) -> Option<ProcInfo> {
    parse_stat(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

pub(super) fn processes() -> BTreeMap<i32, ProcInfo> {
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
        if let Some(info) = process(pid) {
            out.insert(pid, info);
        }
    }
    out
}

/// Every process below `pid`, through `/proc/PID/task/TID/children` (each task's children:
/// an orphan re-parented to a subreaper is listed under one of its tasks). `None` when `pid`'s
/// own lists cannot be read (a kernel built without them).
pub(super) fn processes_below(pid: i32) -> Option<BTreeMap<i32, ProcInfo>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![pid];
    let mut first = true;
    while let Some(parent) = stack.pop() {
        let children = children(parent);
        if first && children.is_none() {
            return None;
        }
        first = false;
        for child in children.unwrap_or_default() {
            if child == pid || out.contains_key(&child) {
                continue;
            }
            if let Some(info) = process(child) {
                out.insert(child, info);
                stack.push(child);
            }
        }
    }
    Some(out)
}

/// The children of every task of `pid`; `None` when none of its lists could be read.
fn children(pid: i32) -> Option<Vec<i32>> {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).ok()?;
    let mut read_any = false;
    let mut out = Vec::new();
    for task in tasks.flatten() {
        let Ok(text) = std::fs::read_to_string(task.path().join("children")) else {
            continue;
        };
        read_any = true;
        out.extend(
            text.split_whitespace()
                .filter_map(|p| p.parse::<i32>().ok()),
        );
    }
    read_any.then_some(out)
}

/// Read from `/proc/self/status`, which leaves it as it is.
pub(super) fn umask() -> u32 {
    status_field("Umask:")
        .and_then(|v| u32::from_str_radix(v.trim(), 8).ok())
        .unwrap_or(0o022)
}

/// Whether the kernel has seccomp (its status line is there).
pub(super) fn seccomp() -> bool {
    status_field("Seccomp:").is_some()
}

pub(super) fn forbid_inspection() {
    let _ = nix::sys::prctl::set_dumpable(false);
}

pub(super) fn die_with_parent() -> Result<(), String> {
    nix::sys::prctl::set_pdeathsig(nix::sys::signal::Signal::SIGKILL).map_err(|e| e.to_string())
}

pub(super) fn become_subreaper() -> std::io::Result<()> {
    nix::sys::prctl::set_child_subreaper(true).map_err(std::io::Error::from)
}

/// The `SigPnd` (thread) and `ShdPnd` (process) masks of /proc/self/status, bit n-1 for signal n.
/// Only the test hooks read it on Linux.
#[cfg(any(debug_assertions, feature = "test-hooks"))]
pub(super) fn stop_pending() -> bool {
    use nix::sys::signal::Signal::{SIGHUP, SIGINT, SIGTERM};
    let bit = |sig: nix::sys::signal::Signal| 1u64 << (sig as u32 - 1);
    let stops = bit(SIGTERM) | bit(SIGINT) | bit(SIGHUP);
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return false;
    };
    status
        .lines()
        .filter_map(|l| {
            l.strip_prefix("SigPnd:")
                .or_else(|| l.strip_prefix("ShdPnd:"))
        })
        .filter_map(|mask| u64::from_str_radix(mask.trim(), 16).ok())
        .any(|mask| mask & stops != 0)
}

/// `close_range(first, ~0, 0)` (Linux 5.9), or with `CLOSE_RANGE_CLOEXEC` (5.11) when `cloexec`.
pub(super) fn close_range(first: RawFd, cloexec: bool) -> Result<(), ()> {
    let first = libc::c_uint::try_from(first).map_err(|_| ())?;
    let flags = if cloexec {
        libc::CLOSE_RANGE_CLOEXEC
    } else {
        0
    };
    // SAFETY: close_range only closes (or flags) descriptor numbers; the callers' contracts say
    // no live value still uses one of them.
    let done = unsafe { libc::syscall(libc::SYS_close_range, first, libc::c_uint::MAX, flags) };
    if done == 0 { Ok(()) } else { Err(()) }
}

/// The open descriptors from `first` on (an older kernel): `/proc/self/fd`, else every number
/// below the limit.
pub(super) fn open_descriptors(first: RawFd) -> Vec<RawFd> {
    match std::fs::read_dir("/proc/self/fd") {
        Ok(entries) => entries
            .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<RawFd>().ok())
            .filter(|&fd| fd >= first)
            .collect(),
        Err(_) => (first..super::descriptor_limit()).collect(),
    }
}

fn status_field(name: &str) -> Option<String> {
    std::fs::read_to_string("/proc/self/status")
        .ok()?
        .lines()
        .find_map(|l| l.strip_prefix(name).map(str::to_string))
}

/// The names `super::security_attributes` reads.
const SECURITY_NAMES: [&str; 3] = [
    "system.posix_acl_access",
    "system.posix_acl_default",
    "security.capability",
];

/// `listxattrat(2)` (Linux 6.13), which `libc` names on no architecture this builds for yet: 465
/// in the table every architecture shares from 424 on (x86-64 and arm64 alike).
const SYS_LISTXATTRAT: libc::c_long = 465;

/// Whether `name` in the open directory `dir` (a link not followed) lists one of the names
/// `super::security_attributes` reads: one `listxattrat` looking up a single component.
/// `None` when the kernel has no `listxattrat` or the list cannot be read here.
pub(super) fn lists_security_attributes(
    dir: std::os::fd::BorrowedFd<'_>,
    name: &[u8],
) -> Option<bool> {
    use std::os::fd::AsRawFd;
    use std::sync::atomic::{AtomicBool, Ordering};
    // Set once the kernel said it has no such call: not asked again for every path.
    static MISSING: AtomicBool = AtomicBool::new(false);
    if MISSING.load(Ordering::Relaxed) {
        return None;
    }
    // NUL-terminated on the stack: called for every tracked file, so no allocation per name
    // (a name is one component, at most 255 bytes).
    let mut c_buf = [0u8; 256];
    if name.len() >= c_buf.len() || name.contains(&0) {
        return None;
    }
    c_buf[..name.len()].copy_from_slice(name);
    let c_name = std::ffi::CStr::from_bytes_until_nul(&c_buf).ok()?;
    let mut names = [0u8; 256];
    // SAFETY: `c_name` is NUL-terminated, `dir` is an open descriptor borrowed for the call,
    // and `names` is writable for the size passed; the call writes at most that many bytes and
    // returns how many (or -1).
    let n = unsafe {
        libc::syscall(
            SYS_LISTXATTRAT,
            dir.as_raw_fd(),
            c_name.as_ptr(),
            libc::AT_SYMLINK_NOFOLLOW as libc::c_uint,
            names.as_mut_ptr(),
            names.len(),
        )
    };
    match usize::try_from(n) {
        Ok(len) => Some(
            names[..len.min(names.len())]
                .split(|b| *b == 0)
                .any(|listed| SECURITY_NAMES.iter().any(|n| n.as_bytes() == listed)),
        ),
        Err(_) => match std::io::Error::last_os_error().raw_os_error() {
            // A file system without extended attributes has none.
            Some(libc::ENOTSUP) => Some(false),
            // A kernel before 6.13: every path is read by its whole path.
            Some(libc::ENOSYS) => {
                MISSING.store(true, Ordering::Relaxed);
                None
            }
            // ERANGE (a long list) or anything else: read by the path.
            _ => None,
        },
    }
}

/// The attributes `super::security_attributes` names: one `llistxattr` (`listxattr` with
/// `follow`), and a `getxattr` only for those listed, so a path without any costs one call.
pub(super) fn security_attributes(
    path: &std::path::Path,
    follow: bool,
) -> std::io::Result<Vec<(&'static str, Vec<u8>)>> {
    use std::io::Error;
    use std::os::unix::ffi::OsStrExt;
    let c_path = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|_| Error::from(std::io::ErrorKind::InvalidInput))?;
    let list = |buf: &mut [u8]| {
        // SAFETY: `c_path` is NUL-terminated and `buf` is writable for `buf.len()` bytes, the
        // size passed; the call writes at most that many and returns how many (or -1).
        let n = unsafe {
            if follow {
                libc::listxattr(c_path.as_ptr(), buf.as_mut_ptr().cast(), buf.len())
            } else {
                libc::llistxattr(c_path.as_ptr(), buf.as_mut_ptr().cast(), buf.len())
            }
        };
        usize::try_from(n).map_err(|_| Error::last_os_error())
    };
    let get = |name: &std::ffi::CStr, buf: &mut [u8]| {
        // SAFETY: as for `list`; `name` is NUL-terminated too.
        let n = unsafe {
            if follow {
                libc::getxattr(
                    c_path.as_ptr(),
                    name.as_ptr(),
                    buf.as_mut_ptr().cast(),
                    buf.len(),
                )
            } else {
                libc::lgetxattr(
                    c_path.as_ptr(),
                    name.as_ptr(),
                    buf.as_mut_ptr().cast(),
                    buf.len(),
                )
            }
        };
        usize::try_from(n).map_err(|_| Error::last_os_error())
    };
    // Most paths have no extended attribute at all: one call with a small buffer. A longer
    // list is asked for its size first (and again if it grew in between).
    let mut names = vec![0u8; 256];
    let len = loop {
        match list(&mut names) {
            Ok(n) => break n,
            Err(e) if e.raw_os_error() == Some(libc::ERANGE) => {
                let need = list(&mut [])?;
                names.resize(need.max(names.len() * 2), 0);
            }
            Err(e) if matches!(e.raw_os_error(), Some(libc::ENOTSUP)) => return Ok(Vec::new()),
            Err(e) => return Err(e),
        }
    };
    let mut found = Vec::new();
    for listed in names[..len].split(|b| *b == 0) {
        let Some(name) = SECURITY_NAMES.iter().find(|n| n.as_bytes() == listed) else {
            continue;
        };
        let c_name = std::ffi::CString::new(*name).map_err(|_| Error::other("xattr name"))?;
        let mut value = vec![0u8; 256];
        let got = loop {
            match get(&c_name, &mut value) {
                Ok(n) => break Some(n),
                Err(e) if e.raw_os_error() == Some(libc::ERANGE) => {
                    let need = get(&c_name, &mut [])?;
                    value.resize(need.max(value.len() * 2), 0);
                }
                // Removed since it was listed.
                Err(e) if e.raw_os_error() == Some(libc::ENODATA) => break None,
                Err(e) => return Err(e),
            }
        };
        if let Some(n) = got {
            value.truncate(n);
            found.push((*name, value));
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_line_is_read_after_the_last_parenthesis_of_the_name() {
        let line =
            "4242 (a) b (c)) S 1 4242 4240 0 -1 4194560 100 0 0 0 0 0 0 0 20 0 1 0 987654 0 0";
        let info = parse_stat(line).unwrap();
        assert_eq!(
            info,
            ProcInfo {
                ppid: 1,
                pgrp: 4242,
                session: 4240,
                start: 987654,
                zombie: false
            }
        );
        let zombie = line.replace(") S ", ") Z ");
        assert!(parse_stat(&zombie).unwrap().zombie);
        assert_eq!(parse_stat("4242 (cut"), None);
    }

    #[test]
    fn an_inherited_descriptor_is_marked_close_on_exec() {
        use std::os::fd::AsRawFd;
        let file = tempfile::tempfile().unwrap();
        // A copy without close-on-exec, as a parent's `9<>file` would leave it.
        // SAFETY: dup returns a new descriptor this test owns and closes below.
        let fd = unsafe { libc::dup(file.as_raw_fd()) };
        assert!(fd > 2);
        // SAFETY: reading the flags of a descriptor this test owns.
        let flags = || unsafe { libc::fcntl(fd, libc::F_GETFD) };
        assert_eq!(flags() & libc::FD_CLOEXEC, 0);
        super::super::keep_descriptors_from_children(fd);
        assert_eq!(flags() & libc::FD_CLOEXEC, libc::FD_CLOEXEC);
        assert!(open_descriptors(fd).contains(&fd));
        // SAFETY: closing the descriptor dup made above.
        unsafe { libc::close(fd) };
    }

    /// The children lists give every process below us, grandchildren too,
    /// whichever thread started them (this test runs on one of the harness's).
    #[test]
    fn the_processes_below_are_the_children_and_theirs() {
        let me = std::process::id() as i32;
        let mut child = std::process::Command::new("sh")
            .args(["-c", "sleep 30 & echo $!; wait"])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(child.stdout.as_mut().unwrap()),
            &mut line,
        )
        .unwrap();
        let grandchild: i32 = line.trim().parse().unwrap();
        let below = processes_below(me).expect("this kernel lists children");
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(grandchild),
            nix::sys::signal::Signal::SIGKILL,
        );
        let _ = child.kill();
        let _ = child.wait();
        let shell = child.id() as i32;
        assert_eq!(below.get(&shell).map(|i| i.ppid), Some(me), "{below:?}");
        assert_eq!(
            below.get(&grandchild).map(|i| i.ppid),
            Some(shell),
            "{below:?}"
        );
        assert!(!below.contains_key(&me));
        assert!(!below.contains_key(&1));
    }

    #[test]
    fn this_process_is_alive_with_a_start_time_and_its_parent() {
        let me = std::process::id() as i32;
        let info = process(me).unwrap();
        assert_eq!(info.ppid, nix::unistd::getppid().as_raw());
        assert!(!info.zombie);
        assert!(processes().contains_key(&me));
    }
}
