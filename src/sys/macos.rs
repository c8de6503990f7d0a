//! macOS: the process table from `libproc` (`proc_listallpids`, `proc_pidinfo`), and no
//! `prctl`: the switches that have no counterpart do nothing (see each in `super`).

use std::collections::BTreeMap;
use std::os::fd::RawFd;
use std::sync::OnceLock;

use super::ProcInfo;

pub(super) fn process(pid: i32) -> Option<ProcInfo> {
    if pid <= 0 {
        return None;
    }
    let mut info = std::mem::MaybeUninit::<libc::proc_bsdinfo>::zeroed();
    let size = std::mem::size_of::<libc::proc_bsdinfo>() as libc::c_int;
    // SAFETY: `info` is a writable buffer of exactly `size` bytes, as PROC_PIDTBSDINFO asks;
    // proc_pidinfo writes at most `size` bytes into it and returns how many it wrote.
    let written = unsafe {
        libc::proc_pidinfo(
            pid,
            libc::PROC_PIDTBSDINFO,
            0,
            info.as_mut_ptr().cast(),
            size,
        )
    };
    if written != size {
        return None;
    }
    // SAFETY: proc_pidinfo filled the whole struct (checked above), and every field of
    // proc_bsdinfo is a plain integer or byte array, valid for any bit pattern (it was zeroed).
    let info = unsafe { info.assume_init() };
    // Another session's id may be refused (EPERM): its group stands in, which is what a
    // session leader's is.
    // SAFETY: getsid only reads the pid it is given.
    let session = match unsafe { libc::getsid(pid) } {
        -1 => info.pbi_pgid as i32,
        sid => sid,
    };
    Some(ProcInfo {
        ppid: info.pbi_ppid as i32,
        pgrp: info.pbi_pgid as i32,
        session,
        start: info
            .pbi_start_tvsec
            .saturating_mul(1_000_000)
            .saturating_add(info.pbi_start_tvusec),
        zombie: info.pbi_status == libc::SZOMB,
    })
}

pub(super) fn processes() -> BTreeMap<i32, ProcInfo> {
    let mut out = BTreeMap::new();
    // The table may grow between the count and the listing: room for a few more.
    // SAFETY: a null buffer with size 0 asks only for the number of pids.
    let count = unsafe { libc::proc_listallpids(std::ptr::null_mut(), 0) };
    if count <= 0 {
        return out;
    }
    let mut pids: Vec<libc::pid_t> = vec![0; count as usize + 64];
    let bytes = (pids.len() * std::mem::size_of::<libc::pid_t>()) as libc::c_int;
    // SAFETY: `pids` is a writable buffer of `bytes` bytes; proc_listallpids writes at most that
    // many and returns the number of pids it wrote.
    let listed = unsafe { libc::proc_listallpids(pids.as_mut_ptr().cast(), bytes) };
    if listed <= 0 {
        return out;
    }
    pids.truncate((listed as usize).min(pids.len()));
    for pid in pids {
        if let Some(info) = process(pid) {
            out.insert(pid, info);
        }
    }
    out
}

/// macOS has no way to read the umask without setting it: it is read once (see
/// [`super::at_start`]) and the same value put back at once.
pub(super) fn umask() -> u32 {
    static UMASK: OnceLock<u32> = OnceLock::new();
    *UMASK.get_or_init(|| {
        // SAFETY: umask only swaps the process's file-creation mask; the old one is restored on
        // the next line, and this runs once, before any other thread exists (`at_start`).
        let old = unsafe { libc::umask(0o022) };
        // SAFETY: as above.
        unsafe { libc::umask(old) };
        u32::from(old)
    })
}

pub(super) fn forbid_inspection() {}

pub(super) fn die_with_parent() -> Result<(), String> {
    Ok(())
}

pub(super) fn become_subreaper() -> std::io::Result<()> {
    Ok(())
}

/// `sigpending`: what is pending on this thread or the process.
pub(super) fn stop_pending() -> bool {
    let mut set = std::mem::MaybeUninit::<libc::sigset_t>::zeroed();
    // SAFETY: `set` is a writable sigset_t; sigpending fills it and reads nothing else.
    if unsafe { libc::sigpending(set.as_mut_ptr()) } != 0 {
        return false;
    }
    // SAFETY: sigpending succeeded, so the set is initialised.
    let set = unsafe { set.assume_init() };
    [libc::SIGTERM, libc::SIGINT, libc::SIGHUP]
        .into_iter()
        // SAFETY: sigismember only reads the initialised set.
        .any(|sig| unsafe { libc::sigismember(&set, sig) } == 1)
}

/// macOS has no `close_range`: the callers walk [`open_descriptors`].
pub(super) fn close_range(_first: RawFd, _cloexec: bool) -> Result<(), ()> {
    Err(())
}

/// Every number from `first` below the descriptor limit.
pub(super) fn open_descriptors(first: RawFd) -> Vec<RawFd> {
    (first..super::descriptor_limit()).collect()
}

/// macOS keeps ACLs outside the extended attributes (`acl_get_link_np`) and has no file
/// capabilities: nothing to read (docs/guard.md says what is not recorded there).
pub(super) fn security_attributes(
    _path: &std::path::Path,
    _follow: bool,
) -> std::io::Result<Vec<(&'static str, Vec<u8>)>> {
    Ok(Vec::new())
}

/// Nothing is read on macOS (above): none listed.
pub(super) fn lists_security_attributes(
    _dir: std::os::fd::BorrowedFd<'_>,
    _name: &[u8],
) -> Option<bool> {
    Some(false)
}
