//! No capability reaches the runner: the launcher empties its own sets right before the runner
//! is executed, so that a runner started by root (with Landlock alone, where it keeps the real
//! root's user) holds none of root's powers beyond its files' modes — not `CAP_NET_ADMIN` (the
//! machine's routes and firewall), `CAP_SYS_TIME` (its clock), `CAP_DAC_OVERRIDE` (every user's
//! private files), `CAP_CHOWN` or any other — and, inside its user namespace, none of the
//! namespace's either.
//!
//! Allowed by construction: every set is emptied, none is listed. The permitted, effective,
//! inheritable and ambient sets always can be; the bounding set (what an executed program
//! could ever be given) where the launcher holds `CAP_SETPCAP` — as root, and inside its user
//! namespace. An unprivileged launcher without namespaces holds nothing to give, and
//! `no_new_privs` (set here, and by Landlock and the seccomp filter) keeps an executed setuid
//! program or file capability from adding any.

/// `_LINUX_CAPABILITY_VERSION_3`: two 32-bit words per set.
const VERSION_3: u32 = 0x2008_0522;

#[repr(C)]
struct Header {
    version: u32,
    pid: libc::c_int,
}

#[repr(C)]
#[derive(Clone, Copy, Default)]
struct Data {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

fn errno() -> std::io::Error {
    std::io::Error::last_os_error()
}

/// Empty this (single-threaded) process's capability sets and set `no_new_privs`; an error
/// names the step that failed. Afterwards it holds no capability, and what it executes gains
/// none.
pub(super) fn drop_all() -> Result<(), String> {
    // SAFETY: prctl with integer arguments only; no memory is passed.
    if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
        return Err(format!("cannot set no_new_privs: {}", errno()));
    }
    // SAFETY: as above. EINVAL: a kernel before 4.3 has no ambient set, so nothing to clear.
    let cleared = unsafe {
        libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL,
            0,
            0,
            0,
        )
    };
    if cleared != 0 && errno().raw_os_error() != Some(libc::EINVAL) {
        return Err(format!(
            "cannot clear the ambient capabilities: {}",
            errno()
        ));
    }
    // The bounding set, one capability at a time until the kernel knows no more (EINVAL).
    for cap in 0.. {
        // SAFETY: as above.
        let held = unsafe { libc::prctl(libc::PR_CAPBSET_READ, cap, 0, 0, 0) };
        if held < 0 {
            break;
        }
        // SAFETY: as above. EPERM: no CAP_SETPCAP, so nothing is held that it would guard.
        if held == 1 && unsafe { libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0) } != 0 {
            let e = errno();
            if e.raw_os_error() != Some(libc::EPERM) {
                return Err(format!(
                    "cannot drop capability {cap} from the bounding set: {e}"
                ));
            }
        }
    }
    let header = Header {
        version: VERSION_3,
        pid: 0,
    };
    let empty = [Data::default(); 2];
    // SAFETY: `header` and `empty` are live, properly aligned `#[repr(C)]` values of the
    // layout capset(2) reads for version 3 (a header, then two data words); the kernel only
    // reads them, and lowering one's own sets is always allowed.
    if unsafe { libc::syscall(libc::SYS_capset, &header, empty.as_ptr()) } != 0 {
        return Err(format!(
            "cannot drop the runner's capabilities: {}",
            errno()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether any capability is held in the permitted, effective or inheritable set, in the
    /// ambient set, or (for root) in the bounding set; without allocating (run after a fork).
    fn holds_any() -> bool {
        let header = Header {
            version: VERSION_3,
            pid: 0,
        };
        let mut sets = [Data::default(); 2];
        // SAFETY: live, aligned `#[repr(C)]` values of capget(2)'s version-3 layout; the
        // kernel writes two data words into `sets`.
        if unsafe { libc::syscall(libc::SYS_capget, &header, sets.as_mut_ptr()) } != 0 {
            return true;
        }
        let held = |cap: libc::c_int, which: libc::c_int| {
            // SAFETY: prctl with integer arguments only.
            unsafe { libc::prctl(which, cap, 0, 0, 0) == 1 }
        };
        let root = nix::unistd::geteuid().is_root();
        sets.iter()
            .any(|d| d.effective | d.permitted | d.inheritable != 0)
            || (0..64).any(|cap| {
                // SAFETY: prctl with integer arguments only.
                let ambient = unsafe {
                    libc::prctl(libc::PR_CAP_AMBIENT, libc::PR_CAP_AMBIENT_IS_SET, cap, 0, 0)
                } == 1;
                ambient || (root && held(cap, libc::PR_CAPBSET_READ))
            })
    }

    #[test]
    fn after_dropping_everything_no_capability_is_held_and_none_can_be_gained() {
        // In a child: the test process keeps its own.
        // SAFETY: the child makes system calls only (no allocation) and exits.
        match unsafe { libc::fork() } {
            0 => {
                let dropped = drop_all();
                // SAFETY: prctl with integer arguments only.
                let nnp = unsafe { libc::prctl(libc::PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) };
                let code = match dropped {
                    Ok(()) if nnp != 1 => 3,
                    Ok(()) if holds_any() => 1,
                    Ok(()) => 0,
                    Err(_) => 2,
                };
                // SAFETY: ends the child without running the parent's destructors.
                unsafe { libc::_exit(code) }
            }
            pid if pid > 0 => {
                let mut status = 0;
                // SAFETY: waits for our own child; `status` is a live c_int.
                unsafe { libc::waitpid(pid, &mut status, 0) };
                assert!(libc::WIFEXITED(status));
                assert_eq!(
                    libc::WEXITSTATUS(status),
                    0,
                    "1: a capability kept, 2: an error, 3: no no_new_privs"
                );
            }
            _ => panic!("fork failed"),
        }
    }
}
