//! The third wall on Linux, beside Landlock and the namespaces: a seccomp filter the runner
//! starts under (applied by the launcher last, right before it executes the runner, and
//! inherited by everything the runner starts).
//!
//! It is an allow list: a runner makes only the system calls `syscalls.rs` names, those it is
//! shown to need; any other fails with `ENOSYS`, as on a kernel without it. Of the calls it may
//! make, the filter then refuses by their arguments, whatever a path is spelled like and
//! whichever namespace a server lives in: a socket of any family not granted (by allow list:
//! IPv4, IPv6 and the routing netlink with the network, UNIX sockets to a preset that says it
//! needs them, nothing else; so no server is reached through a named or abstract UNIX socket,
//! nor the hypervisor's host through VSOCK), setting a setuid or setgid bit (`chmod` and
//! friends, and `open`/`creat` creating such a file), making device nodes, a new user
//! namespace, typing into the terminal, and a personality other than the usual ones (turning
//! address randomisation off). The calls no runner needs that a program commonly tries — the
//! kernel keyrings, tracing or reading other processes, BPF, performance counters,
//! `userfaultfd`, `io_uring`, mounting, modules, `setns`, extended attributes — are named too,
//! so that they fail as refused (`EPERM`, `EOPNOTSUPP`) rather than absent. The file system and
//! the network are Landlock's and the namespaces' to confine.
//!
//! Refused calls fail with `EPERM` (the program sees "Operation not permitted" and goes on);
//! `clone3` and `openat2`, whose arguments a filter cannot read, fail with `ENOSYS`, on which
//! the C libraries fall back to `clone` and `openat`, which it can. A system call of another
//! architecture (32-bit `int 0x80` on x86-64) ends the process; one of the x32 ABI fails.

use std::collections::BTreeMap;

use super::syscalls::SYS_FCHMODAT2;
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// What a runner may keep of what the filter otherwise refuses.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Allowed {
    /// `socket(AF_UNIX, …)`: for a preset shown to need a UNIX socket of its own.
    pub unix_sockets: bool,
    /// `socket(AF_INET, …)` and `socket(AF_INET6, …)`: TCP and UDP (`--network`).
    pub network: bool,
}

/// The system calls refused outright, by name (for the docs and the tests) and number.
fn refused_outright() -> Vec<(&'static str, i64)> {
    let mut calls = vec![
        ("add_key", libc::SYS_add_key),
        ("keyctl", libc::SYS_keyctl),
        ("request_key", libc::SYS_request_key),
        ("ptrace", libc::SYS_ptrace),
        ("process_vm_readv", libc::SYS_process_vm_readv),
        ("process_vm_writev", libc::SYS_process_vm_writev),
        ("bpf", libc::SYS_bpf),
        ("perf_event_open", libc::SYS_perf_event_open),
        ("userfaultfd", libc::SYS_userfaultfd),
        ("io_uring_setup", libc::SYS_io_uring_setup),
        ("io_uring_enter", libc::SYS_io_uring_enter),
        ("io_uring_register", libc::SYS_io_uring_register),
        ("mount", libc::SYS_mount),
        ("umount2", libc::SYS_umount2),
        ("pivot_root", libc::SYS_pivot_root),
        ("open_tree", libc::SYS_open_tree),
        ("move_mount", libc::SYS_move_mount),
        ("fsopen", libc::SYS_fsopen),
        ("fsconfig", libc::SYS_fsconfig),
        ("fsmount", libc::SYS_fsmount),
        ("fspick", libc::SYS_fspick),
        ("setns", libc::SYS_setns),
        ("kexec_load", libc::SYS_kexec_load),
        ("kexec_file_load", libc::SYS_kexec_file_load),
        ("init_module", libc::SYS_init_module),
        ("finit_module", libc::SYS_finit_module),
        ("delete_module", libc::SYS_delete_module),
        ("open_by_handle_at", libc::SYS_open_by_handle_at),
        ("swapon", libc::SYS_swapon),
        ("swapoff", libc::SYS_swapoff),
        ("reboot", libc::SYS_reboot),
        ("acct", libc::SYS_acct),
    ];
    #[cfg(target_arch = "x86_64")]
    calls.extend([("iopl", libc::SYS_iopl), ("ioperm", libc::SYS_ioperm)]);
    calls
}

/// `S_ISUID` and `S_ISGID`: the bits that give a file's owner's rights to whoever runs it.
const SET_ID_BITS: [u64; 2] = [libc::S_ISUID as u64, libc::S_ISGID as u64];
/// `O_CREAT`, and `O_TMPFILE`'s own bit: the flags with which `open` honours its mode.
const CREATING: [u64; 2] = [
    libc::O_CREAT as u64,
    (libc::O_TMPFILE & !libc::O_DIRECTORY) as u64,
];
/// `setxattrat` and `removexattrat` (Linux 6.13): the same numbers on every architecture.
const SYS_SETXATTRAT: i64 = 463;
const SYS_REMOVEXATTRAT: i64 = 466;
/// Typing into a terminal's input, and the console's own requests: the generic ioctl numbers
/// (x86-64 and aarch64 share them).
const TIOCSTI: u64 = 0x5412;
const TIOCLINUX: u64 = 0x541C;

/// `PER_LINUX`, `PER_LINUX32`, `UNAME26`, both, and `0xffffffff` (asks, sets nothing).
const USUAL_PERSONALITIES: [u64; 5] = [0, 0x0008, 0x0002_0000, 0x0002_0008, 0xffff_ffff];

fn when(arg: u8, op: SeccompCmpOp, value: u64) -> SeccompCondition {
    // Only fails for an argument index above 5; ours are constants below it.
    SeccompCondition::new(arg, SeccompCmpArgLen::Dword, op, value)
        .expect("a valid seccomp condition")
}

fn rule(conditions: Vec<SeccompCondition>) -> SeccompRule {
    SeccompRule::new(conditions).expect("a non-empty seccomp rule")
}

/// A rule per set-id bit: the mode argument `arg` has it.
fn sets_an_id_bit(arg: u8) -> Vec<SeccompRule> {
    SET_ID_BITS
        .iter()
        .map(|&bit| rule(vec![when(arg, SeccompCmpOp::MaskedEq(bit), bit)]))
        .collect()
}

/// A rule per (creating flag, set-id bit): `open` creating a setuid or setgid file.
fn creates_with_an_id_bit(flags: u8, mode: u8) -> Vec<SeccompRule> {
    let mut rules = Vec::new();
    for &flag in &CREATING {
        for &bit in &SET_ID_BITS {
            rules.push(rule(vec![
                when(flags, SeccompCmpOp::MaskedEq(flag), flag),
                when(mode, SeccompCmpOp::MaskedEq(bit), bit),
            ]));
        }
    }
    rules
}

/// `mknod` of a character or block device, or of anything with a set-id bit.
fn makes_a_device(mode: u8) -> Vec<SeccompRule> {
    let kind = libc::S_IFMT as u64;
    let mut rules: Vec<SeccompRule> = [libc::S_IFCHR, libc::S_IFBLK]
        .iter()
        .map(|&t| rule(vec![when(mode, SeccompCmpOp::MaskedEq(kind), t as u64)]))
        .collect();
    rules.extend(sets_an_id_bit(mode));
    rules
}

/// `socket()` by allow list: a family is refused unless granted — UNIX sockets to a preset shown
/// to need them; IPv4 and IPv6, and the routing netlink a resolver asks for the machine's
/// addresses, to a runner with the network. Every other family (VSOCK to the hypervisor's host,
/// SMC, RDS, TIPC, netlink's other protocols, packet sockets, the kernel's crypto …) is refused
/// whatever the runner is granted: none is shown to be needed.
fn sockets(allowed: Allowed) -> Vec<SeccompRule> {
    let mut granted = Vec::new();
    if allowed.unix_sockets {
        granted.push(libc::AF_UNIX);
    }
    if allowed.network {
        granted.extend([libc::AF_INET, libc::AF_INET6, libc::AF_NETLINK]);
    }
    if granted.is_empty() {
        // No rule: every socket() is refused.
        return Vec::new();
    }
    let mut refused = vec![rule(
        granted
            .iter()
            .map(|&family| when(0, SeccompCmpOp::Ne, family as u64))
            .collect(),
    )];
    if allowed.network {
        refused.push(rule(vec![
            when(0, SeccompCmpOp::Eq, libc::AF_NETLINK as u64),
            when(2, SeccompCmpOp::Ne, libc::NETLINK_ROUTE as u64),
        ]));
        // IPv4 and IPv6 are TCP and UDP only: another protocol (MPTCP, SCTP, UDP-Lite, ICMP) is
        // one Landlock's port rules do not see, and without a network namespace it would reach
        // any host past the proxy. A socket type other than a stream or a datagram (with its
        // flags) is refused, since `SOCK_SEQPACKET` with protocol 0 is SCTP.
        for family in [libc::AF_INET, libc::AF_INET6] {
            let mut odd_type = vec![when(0, SeccompCmpOp::Eq, family as u64)];
            for kind in [libc::SOCK_STREAM, libc::SOCK_DGRAM] {
                for flags in [
                    0,
                    libc::SOCK_NONBLOCK,
                    libc::SOCK_CLOEXEC,
                    libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC,
                ] {
                    odd_type.push(when(1, SeccompCmpOp::Ne, (kind | flags) as u64));
                }
            }
            refused.push(rule(odd_type));
            refused.push(rule(vec![
                when(0, SeccompCmpOp::Eq, family as u64),
                when(2, SeccompCmpOp::Ne, 0),
                when(2, SeccompCmpOp::Ne, libc::IPPROTO_TCP as u64),
                when(2, SeccompCmpOp::Ne, libc::IPPROTO_UDP as u64),
            ]));
        }
    }
    refused
}

/// A rule refusing a call whose argument `arg` names a process other than the caller (`0`):
/// without a PID namespace (Landlock alone) the person's shell, editor or the tool itself would
/// be in reach of `prlimit` (a file size limit of 0 kills the tool at its next write), of its
/// priority and of its scheduling.
fn another_process(arg: u8) -> Vec<SeccompRule> {
    vec![rule(vec![when(arg, SeccompCmpOp::Ne, 0)])]
}

/// The refusing rules, keyed by system call number (every rule of a call is one way to match).
fn rules(allowed: Allowed) -> BTreeMap<i64, Vec<SeccompRule>> {
    let mut map: BTreeMap<i64, Vec<SeccompRule>> = refused_outright()
        .into_iter()
        .map(|(_, nr)| (nr, Vec::new()))
        .collect();
    map.insert(libc::SYS_socket, sockets(allowed));
    // A pair of connected sockets of its own reaches nothing; only UNIX ones are granted.
    map.insert(
        libc::SYS_socketpair,
        vec![rule(vec![when(0, SeccompCmpOp::Ne, libc::AF_UNIX as u64)])],
    );
    map.insert(libc::SYS_prlimit64, another_process(0));
    map.insert(libc::SYS_setpriority, another_process(1));
    map.insert(libc::SYS_ioprio_set, another_process(1));
    for call in [
        libc::SYS_sched_setaffinity,
        libc::SYS_sched_setparam,
        libc::SYS_sched_setscheduler,
        libc::SYS_sched_setattr,
    ] {
        map.insert(call, another_process(0));
    }
    map.insert(libc::SYS_fchmod, sets_an_id_bit(1));
    map.insert(libc::SYS_fchmodat, sets_an_id_bit(2));
    map.insert(SYS_FCHMODAT2, sets_an_id_bit(2));
    map.insert(libc::SYS_openat, creates_with_an_id_bit(2, 3));
    map.insert(libc::SYS_mknodat, makes_a_device(2));
    // A new user namespace would hand the runner every capability inside it.
    map.insert(
        libc::SYS_unshare,
        vec![rule(vec![when(
            0,
            SeccompCmpOp::MaskedEq(libc::CLONE_NEWUSER as u64),
            libc::CLONE_NEWUSER as u64,
        )])],
    );
    map.insert(
        libc::SYS_clone,
        vec![rule(vec![when(
            0,
            SeccompCmpOp::MaskedEq(libc::CLONE_NEWUSER as u64),
            libc::CLONE_NEWUSER as u64,
        )])],
    );
    // The usual personalities (Linux, 32-bit Linux, an old kernel's version, and the query);
    // any other sets flags such as `ADDR_NO_RANDOMIZE` for what the runner executes.
    map.insert(
        libc::SYS_personality,
        vec![rule(
            USUAL_PERSONALITIES
                .iter()
                .map(|&p| when(0, SeccompCmpOp::Ne, p))
                .collect(),
        )],
    );
    map.insert(
        libc::SYS_ioctl,
        [TIOCSTI, TIOCLINUX]
            .iter()
            .map(|&req| rule(vec![when(1, SeccompCmpOp::Eq, req)]))
            .collect(),
    );
    #[cfg(target_arch = "x86_64")]
    {
        map.insert(libc::SYS_chmod, sets_an_id_bit(1));
        map.insert(libc::SYS_open, creates_with_an_id_bit(1, 2));
        map.insert(libc::SYS_creat, sets_an_id_bit(1));
        map.insert(libc::SYS_mknod, makes_a_device(1));
    }
    map
}

/// The calls that fail with `ENOSYS` (their arguments are behind a pointer the filter cannot
/// read; the C libraries then fall back to a call it can).
fn unreadable() -> BTreeMap<i64, Vec<SeccompRule>> {
    [libc::SYS_clone3, libc::SYS_openat2]
        .into_iter()
        .map(|nr| (nr, Vec::new()))
        .collect()
}

/// Setting or removing an extended attribute: a file capability (`security.capability`, which a runner
/// running as root could set) or an ACL. `EOPNOTSUPP` is what a file system without them says,
/// which copying tools take in their stride.
fn attributes() -> BTreeMap<i64, Vec<SeccompRule>> {
    [
        libc::SYS_setxattr,
        libc::SYS_lsetxattr,
        libc::SYS_fsetxattr,
        SYS_SETXATTRAT,
        // Removing one: an ACL that narrows a file's mode, or a label.
        libc::SYS_removexattr,
        libc::SYS_lremovexattr,
        libc::SYS_fremovexattr,
        SYS_REMOVEXATTRAT,
    ]
    .into_iter()
    .map(|nr| (nr, Vec::new()))
    .collect()
}

fn arch() -> Result<TargetArch, String> {
    TargetArch::try_from(std::env::consts::ARCH)
        .map_err(|_| format!("no seccomp filter for {}", std::env::consts::ARCH))
}

/// The filters, in the order they are installed (the kernel runs every one; the strictest
/// answer wins).
pub(crate) fn programs(allowed: Allowed) -> Result<Vec<BpfProgram>, String> {
    let arch = arch()?;
    let build = |rules, mismatch, matched| -> Result<BpfProgram, String> {
        SeccompFilter::new(rules, mismatch, matched, arch)
            .and_then(BpfProgram::try_from)
            .map_err(|e| format!("cannot build the seccomp filter: {e}"))
    };
    let compile = |rules, errno: i32| {
        build(
            rules,
            SeccompAction::Allow,
            SeccompAction::Errno(errno as u32),
        )
    };
    // Installed first, so run last: the kernel keeps the first answer of the strictest kind
    // it meets, and the refusals below give their own errno before this one's `ENOSYS`.
    let permitted = super::syscalls::permitted()
        .into_iter()
        .map(|(_, nr)| (nr, Vec::new()))
        .collect();
    let mut programs = vec![
        build(
            permitted,
            SeccompAction::Errno(libc::ENOSYS as u32),
            SeccompAction::Allow,
        )?,
        compile(rules(allowed), libc::EPERM)?,
        compile(unreadable(), libc::ENOSYS)?,
        compile(attributes(), libc::EOPNOTSUPP)?,
    ];
    if cfg!(target_arch = "x86_64") {
        programs.push(no_x32());
    }
    Ok(programs)
}

/// x86-64's x32 ABI reaches the same calls under numbers with bit 30 set, which the rules
/// above do not name: all of them fail. (The architecture check is the first filter's.)
fn no_x32() -> BpfProgram {
    use seccompiler::sock_filter;
    const LD_W_ABS: u16 = 0x20; // BPF_LD | BPF_W | BPF_ABS
    const JGE_K: u16 = 0x35; // BPF_JMP | BPF_JGE | BPF_K
    const RET_K: u16 = 0x06; // BPF_RET | BPF_K
    const X32_BIT: u32 = 0x4000_0000;
    let ins = |code, jt, jf, k| sock_filter { code, jt, jf, k };
    vec![
        ins(LD_W_ABS, 0, 0, 0), // seccomp_data.nr
        ins(JGE_K, 0, 1, X32_BIT),
        ins(RET_K, 0, 0, libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32),
        ins(RET_K, 0, 0, libc::SECCOMP_RET_ALLOW),
    ]
}

/// Install the filters on the calling (single-threaded) process; also sets `no_new_privs`.
pub(crate) fn restrict(allowed: Allowed) -> Result<(), String> {
    for program in programs(allowed)? {
        seccompiler::apply_filter(&program)
            .map_err(|e| format!("cannot apply the seccomp filter: {e}"))?;
    }
    Ok(())
}

/// Whether this kernel applies seccomp filters and this build has rules for its architecture.
pub(crate) fn available() -> Result<(), String> {
    arch()?;
    if crate::sys::seccomp() {
        Ok(())
    } else {
        Err("the kernel is built without seccomp".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What one system call returned in a child under the filters: `Ok(return value)` or
    /// `Err(errno)`.
    type Call = fn(&Paths) -> libc::c_long;

    /// The paths the calls use, made before the fork (the child allocates nothing).
    struct Paths {
        file: std::ffi::CString,
        new_setuid: std::ffi::CString,
        new_plain: std::ffi::CString,
        node: std::ffi::CString,
    }

    fn errno_of(ret: libc::c_long) -> Result<libc::c_long, i32> {
        if ret < 0 {
            Err(std::io::Error::last_os_error().raw_os_error().unwrap_or(0))
        } else {
            Ok(ret)
        }
    }

    /// Run `call` in a forked child under the filters for `allowed`; its errno (0: it worked).
    fn in_child(allowed: Allowed, dir: &std::path::Path, call: Call) -> i32 {
        let programs = programs(allowed).unwrap();
        let paths = Paths {
            file: c_path(dir, "f"),
            new_setuid: c_path(dir, "new-setuid"),
            new_plain: c_path(dir, "new-plain"),
            node: c_path(dir, "null"),
        };
        // SAFETY: the child makes only system calls (prctl, seccomp, the call under test, _exit)
        // and touches no lock or allocator state the parent's other threads could hold: the
        // programs and paths were made before the fork and are only read.
        match unsafe { libc::fork() } {
            0 => {
                for p in &programs {
                    if seccompiler::apply_filter(p).is_err() {
                        // SAFETY: _exit ends the child without running the parent's handlers.
                        unsafe { libc::_exit(250) };
                    }
                }
                let code = match errno_of(call(&paths)) {
                    Ok(_) => 0,
                    Err(e) => e.min(249),
                };
                // SAFETY: as above.
                unsafe { libc::_exit(code) }
            }
            pid if pid > 0 => {
                let mut status = 0;
                // SAFETY: waits for our own child; `status` is a valid out-pointer.
                unsafe { libc::waitpid(pid, &mut status, 0) };
                assert!(libc::WIFEXITED(status), "the child was killed: {status}");
                libc::WEXITSTATUS(status)
            }
            _ => panic!("fork failed"),
        }
    }

    fn c_path(dir: &std::path::Path, name: &str) -> std::ffi::CString {
        use std::os::unix::ffi::OsStrExt;
        std::ffi::CString::new(dir.join(name).as_os_str().as_bytes()).unwrap()
    }

    fn unix_socket(_: &Paths) -> libc::c_long {
        // SAFETY: valid pointers (NUL-terminated where strings) that outlive the call.
        unsafe { libc::socket(libc::AF_UNIX, libc::SOCK_STREAM, 0) as libc::c_long }
    }
    fn inet_socket(_: &Paths) -> libc::c_long {
        // SAFETY: valid pointers (NUL-terminated where strings) that outlive the call.
        unsafe { libc::socket(libc::AF_INET, libc::SOCK_STREAM, 0) as libc::c_long }
    }
    fn vsock_socket(_: &Paths) -> libc::c_long {
        // SAFETY: valid pointers (NUL-terminated where strings) that outlive the call.
        unsafe { libc::socket(libc::AF_VSOCK, libc::SOCK_STREAM, 0) as libc::c_long }
    }
    fn route_socket(_: &Paths) -> libc::c_long {
        // SAFETY: valid pointers (NUL-terminated where strings) that outlive the call.
        unsafe {
            libc::socket(libc::AF_NETLINK, libc::SOCK_RAW, libc::NETLINK_ROUTE) as libc::c_long
        }
    }
    fn diag_socket(_: &Paths) -> libc::c_long {
        // NETLINK_SOCK_DIAG: every socket of the network namespace, and who holds it.
        // SAFETY: valid pointers (NUL-terminated where strings) that outlive the call.
        unsafe {
            libc::socket(libc::AF_NETLINK, libc::SOCK_RAW, libc::NETLINK_SOCK_DIAG) as libc::c_long
        }
    }
    fn netlink_pair(_: &Paths) -> libc::c_long {
        let mut fds = [0; 2];
        // SAFETY: valid pointers (NUL-terminated where strings) that outlive the call.
        unsafe {
            libc::socketpair(libc::AF_NETLINK, libc::SOCK_RAW, 0, fds.as_mut_ptr()) as libc::c_long
        }
    }
    fn socket_pair(_: &Paths) -> libc::c_long {
        let mut fds = [0; 2];
        // SAFETY: valid pointers (NUL-terminated where strings) that outlive the call.
        unsafe {
            libc::socketpair(libc::AF_UNIX, libc::SOCK_STREAM, 0, fds.as_mut_ptr()) as libc::c_long
        }
    }
    fn add_key(_: &Paths) -> libc::c_long {
        // SAFETY: valid pointers (NUL-terminated where strings) that outlive the call.
        unsafe {
            libc::syscall(
                libc::SYS_add_key,
                c"user".as_ptr(),
                c"planted".as_ptr(),
                c"x".as_ptr(),
                1usize,
                -3i32, // KEY_SPEC_SESSION_KEYRING
            )
        }
    }
    fn keyctl_read(_: &Paths) -> libc::c_long {
        // KEYCTL_GET_KEYRING_ID of the session keyring, without creating one.
        // SAFETY: valid pointers (NUL-terminated where strings) that outlive the call.
        unsafe { libc::syscall(libc::SYS_keyctl, 0, -3i32, 0) }
    }
    fn trace_me(_: &Paths) -> libc::c_long {
        // SAFETY: valid pointers (NUL-terminated where strings) that outlive the call.
        unsafe { libc::ptrace(libc::PTRACE_TRACEME, 0, 0, 0) }
    }
    fn uring(_: &Paths) -> libc::c_long {
        let mut params = [0u8; 120];
        // SAFETY: valid pointers (NUL-terminated where strings) that outlive the call.
        unsafe { libc::syscall(libc::SYS_io_uring_setup, 1u32, params.as_mut_ptr()) }
    }
    fn user_namespace(_: &Paths) -> libc::c_long {
        // SAFETY: valid pointers (NUL-terminated where strings) that outlive the call.
        unsafe { libc::unshare(libc::CLONE_NEWUSER) as libc::c_long }
    }
    fn clone3(_: &Paths) -> libc::c_long {
        // SAFETY: valid pointers (NUL-terminated where strings) that outlive the call.
        unsafe { libc::syscall(libc::SYS_clone3, std::ptr::null::<u8>(), 0usize) }
    }
    fn setuid_chmod(p: &Paths) -> libc::c_long {
        let p = &p.file;
        // SAFETY: valid pointers (NUL-terminated where strings) that outlive the call.
        unsafe { libc::chmod(p.as_ptr(), 0o4755) as libc::c_long }
    }
    fn setgid_chmod(p: &Paths) -> libc::c_long {
        let p = &p.file;
        // SAFETY: valid pointers (NUL-terminated where strings) that outlive the call.
        unsafe { libc::chmod(p.as_ptr(), 0o2755) as libc::c_long }
    }
    fn plain_chmod(p: &Paths) -> libc::c_long {
        let p = &p.file;
        // SAFETY: valid pointers (NUL-terminated where strings) that outlive the call.
        unsafe { libc::chmod(p.as_ptr(), 0o755) as libc::c_long }
    }
    fn setuid_create(p: &Paths) -> libc::c_long {
        let p = &p.new_setuid;
        // SAFETY: valid pointers (NUL-terminated where strings) that outlive the call.
        unsafe { libc::open(p.as_ptr(), libc::O_CREAT | libc::O_WRONLY, 0o4755) as libc::c_long }
    }
    fn plain_create(p: &Paths) -> libc::c_long {
        let p = &p.new_plain;
        // SAFETY: valid pointers (NUL-terminated where strings) that outlive the call.
        unsafe { libc::open(p.as_ptr(), libc::O_CREAT | libc::O_WRONLY, 0o755) as libc::c_long }
    }
    fn char_device(p: &Paths) -> libc::c_long {
        let p = &p.node;
        // SAFETY: valid pointers (NUL-terminated where strings) that outlive the call.
        unsafe {
            libc::mknod(p.as_ptr(), libc::S_IFCHR | 0o600, libc::makedev(1, 3)) as libc::c_long
        }
    }
    fn capability(p: &Paths) -> libc::c_long {
        let p = &p.file;
        let value = [0u8; 20];
        // SAFETY: valid pointers (NUL-terminated where strings) that outlive the call.
        unsafe {
            libc::setxattr(
                p.as_ptr(),
                c"security.capability".as_ptr(),
                value.as_ptr().cast(),
                value.len(),
                0,
            ) as libc::c_long
        }
    }
    fn mptcp_socket(_: &Paths) -> libc::c_long {
        // SAFETY: no pointer is passed.
        unsafe { libc::socket(libc::AF_INET, libc::SOCK_STREAM, 262) as libc::c_long }
    }
    fn seqpacket_socket(_: &Paths) -> libc::c_long {
        // SAFETY: no pointer is passed.
        unsafe { libc::socket(libc::AF_INET6, libc::SOCK_SEQPACKET, 0) as libc::c_long }
    }
    fn tcp_socket_with_flags(_: &Paths) -> libc::c_long {
        // SAFETY: no pointer is passed.
        unsafe {
            let kind = libc::SOCK_STREAM | libc::SOCK_CLOEXEC | libc::SOCK_NONBLOCK;
            libc::socket(libc::AF_INET6, kind, libc::IPPROTO_TCP) as libc::c_long
        }
    }
    fn limits_of_the_parent(_: &Paths) -> libc::c_long {
        let mut old = std::mem::MaybeUninit::<libc::rlimit64>::uninit();
        // SAFETY: `old` is a valid out-pointer; no new limit is passed.
        unsafe {
            let parent = libc::getppid();
            libc::syscall(
                libc::SYS_prlimit64,
                parent,
                libc::RLIMIT_NOFILE,
                std::ptr::null::<libc::rlimit64>(),
                old.as_mut_ptr(),
            )
        }
    }
    fn own_limits(_: &Paths) -> libc::c_long {
        let mut old = std::mem::MaybeUninit::<libc::rlimit>::uninit();
        // SAFETY: `old` is a valid out-pointer.
        unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, old.as_mut_ptr()) as libc::c_long }
    }
    fn parents_priority(_: &Paths) -> libc::c_long {
        // Sets the parent's priority to what it is (the call's reach, not its effect).
        // SAFETY: no pointer is passed.
        unsafe {
            let parent = libc::getppid() as libc::id_t;
            let now = libc::getpriority(libc::PRIO_PROCESS, parent);
            libc::setpriority(libc::PRIO_PROCESS, parent, now) as libc::c_long
        }
    }
    fn remove_attribute(p: &Paths) -> libc::c_long {
        let p = &p.file;
        // SAFETY: valid pointers (NUL-terminated where strings) that outlive the call.
        unsafe {
            libc::removexattr(p.as_ptr(), c"system.posix_acl_access".as_ptr()) as libc::c_long
        }
    }
    fn kernel_log_size(_: &Paths) -> libc::c_long {
        // SYSLOG_ACTION_SIZE_BUFFER: reads nothing, but is the kernel log's door.
        // SAFETY: no pointer is passed.
        unsafe { libc::syscall(libc::SYS_syslog, 10, std::ptr::null::<u8>(), 0) }
    }
    fn shared_memory(_: &Paths) -> libc::c_long {
        // A System V segment: under Landlock alone, the machine's, not the runner's.
        // SAFETY: no pointer is passed.
        unsafe { libc::shmget(libc::IPC_PRIVATE, 4096, libc::IPC_CREAT | 0o600) as libc::c_long }
    }
    fn compare_processes(_: &Paths) -> libc::c_long {
        // KCMP_FILE of our own descriptor 0 with itself.
        // SAFETY: no pointer is passed.
        unsafe {
            let me = libc::getpid();
            libc::syscall(libc::SYS_kcmp, me, me, 0, 0, 0)
        }
    }
    fn no_randomisation(_: &Paths) -> libc::c_long {
        // SAFETY: no pointer is passed.
        unsafe { libc::personality(libc::ADDR_NO_RANDOMIZE as libc::c_ulong) as libc::c_long }
    }
    fn which_personality(_: &Paths) -> libc::c_long {
        // SAFETY: no pointer is passed.
        unsafe { libc::personality(0xffff_ffff) as libc::c_long }
    }
    #[cfg(target_arch = "x86_64")]
    fn x32_socket(_: &Paths) -> libc::c_long {
        // SAFETY: valid pointers (NUL-terminated where strings) that outlive the call.
        unsafe { libc::syscall(libc::SYS_socket | 0x4000_0000, libc::AF_UNIX, 1, 0) }
    }

    #[test]
    fn what_no_runner_needs_is_refused_and_the_rest_works() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f"), "x").unwrap();
        let none = Allowed {
            network: true,
            ..Allowed::default()
        };
        let cases: &[(&str, Call, i32)] = &[
            ("socket(AF_UNIX)", unix_socket, libc::EPERM),
            ("socket(AF_VSOCK)", vsock_socket, libc::EPERM),
            (
                "socket(AF_NETLINK, NETLINK_SOCK_DIAG)",
                diag_socket,
                libc::EPERM,
            ),
            ("socketpair(AF_NETLINK)", netlink_pair, libc::EPERM),
            ("add_key", add_key, libc::EPERM),
            ("keyctl", keyctl_read, libc::EPERM),
            ("ptrace", trace_me, libc::EPERM),
            ("io_uring_setup", uring, libc::EPERM),
            ("unshare(CLONE_NEWUSER)", user_namespace, libc::EPERM),
            ("clone3", clone3, libc::ENOSYS),
            ("chmod 4755", setuid_chmod, libc::EPERM),
            ("chmod 2755", setgid_chmod, libc::EPERM),
            ("open(O_CREAT, 04755)", setuid_create, libc::EPERM),
            ("mknod(S_IFCHR)", char_device, libc::EPERM),
            (
                "setxattr(security.capability)",
                capability,
                libc::EOPNOTSUPP,
            ),
            #[cfg(target_arch = "x86_64")]
            ("x32 socket", x32_socket, libc::ENOSYS),
            // Not on the allow list: absent, whatever the runner's rights.
            ("syslog", kernel_log_size, libc::ENOSYS),
            ("shmget", shared_memory, libc::ENOSYS),
            ("kcmp", compare_processes, libc::ENOSYS),
            (
                "personality(ADDR_NO_RANDOMIZE)",
                no_randomisation,
                libc::EPERM,
            ),
            ("personality(query)", which_personality, 0),
            (
                "socket(AF_INET, SOCK_STREAM, IPPROTO_MPTCP)",
                mptcp_socket,
                libc::EPERM,
            ),
            (
                "socket(AF_INET6, SOCK_SEQPACKET)",
                seqpacket_socket,
                libc::EPERM,
            ),
            (
                "socket(AF_INET6, SOCK_STREAM|SOCK_CLOEXEC|SOCK_NONBLOCK, IPPROTO_TCP)",
                tcp_socket_with_flags,
                0,
            ),
            ("prlimit64(the parent)", limits_of_the_parent, libc::EPERM),
            ("getrlimit", own_limits, 0),
            ("setpriority(the parent)", parents_priority, libc::EPERM),
            ("removexattr", remove_attribute, libc::EOPNOTSUPP),
            ("socket(AF_INET)", inet_socket, 0),
            ("socket(AF_NETLINK, NETLINK_ROUTE)", route_socket, 0),
            ("socketpair(AF_UNIX)", socket_pair, 0),
            ("chmod 755", plain_chmod, 0),
            ("open(O_CREAT, 0755)", plain_create, 0),
        ];
        for (name, call, expected) in cases {
            assert_eq!(in_child(none, dir.path(), *call), *expected, "{name}");
        }
        assert!(
            !dir.path().join("new-setuid").exists(),
            "the setuid file was made"
        );
        assert_eq!(
            in_child(
                Allowed {
                    unix_sockets: true,
                    network: true
                },
                dir.path(),
                unix_socket
            ),
            0,
            "a preset that needs a UNIX socket gets one"
        );
        for (name, call) in [
            ("socket(AF_INET)", inet_socket as Call),
            ("socket(AF_NETLINK, NETLINK_ROUTE)", route_socket),
            ("socket(AF_UNIX)", unix_socket),
        ] {
            assert_eq!(
                in_child(Allowed::default(), dir.path(), call),
                libc::EPERM,
                "--network off: {name}"
            );
        }
        assert_eq!(
            in_child(Allowed::default(), dir.path(), socket_pair),
            0,
            "--network off: socketpair(AF_UNIX)"
        );
        assert_eq!(
            in_child(
                Allowed {
                    unix_sockets: true,
                    network: false
                },
                dir.path(),
                inet_socket
            ),
            libc::EPERM,
            "UNIX sockets granted, the network not"
        );
    }

    #[test]
    fn every_architecture_we_build_for_compiles_its_filters() {
        let programs = programs(Allowed::default()).unwrap();
        assert!(programs.iter().all(|p| !p.is_empty() && p.len() < 4096));
    }
}
