//! The system calls a runner may make at all: the seccomp filter's allow list. A call not named
//! here fails with `ENOSYS` ("this kernel has no such call"), which is what a program meets on
//! an older kernel and falls back from; the filters in `seccomp.rs` then refuse, by their
//! arguments, what a listed call must not do (a socket family not granted, a set-id bit, a new
//! user namespace, typing into the terminal).
//!
//! What the runners are shown to need — a shell, git, Python, Node.js, the agent CLIs and the
//! model runner's tools — is files and directories of their own, memory, threads and child
//! processes, signals, time, waiting on descriptors, and sockets. Left out, so refused by
//! construction: whatever reaches beyond the runner's own processes or the kernel's state —
//! the kernel log (`syslog`), file handles (`name_to_handle_at`), other processes' memory,
//! descriptors or memory policy (`process_vm_*`, `pidfd_getfd`, `kcmp`, `process_madvise`,
//! `move_pages`, `migrate_pages`, `get_robust_list`), System V and POSIX message queues, shared
//! memory and semaphores (which, under Landlock alone, are the machine's), fanotify, quotas,
//! the clock, the host name, swap, reboot, modules, mounts, namespaces, keyrings, tracing, BPF,
//! performance counters, `io_uring` and `userfaultfd`; and every call added to Linux after this
//! list was written.

/// `fchmodat2` (Linux 6.6): the same number on every architecture.
pub(super) const SYS_FCHMODAT2: i64 = 452;

/// Calls with the same number on every architecture we build for (the generic table).
macro_rules! calls {
    ($($name:ident),* $(,)?) => {
        [$((stringify!($name), libc::$name)),*]
    };
}

/// Files and directories (Landlock and the mount namespace decide which).
const FILES: &[(&str, i64)] = &calls![
    SYS_read,
    SYS_write,
    SYS_readv,
    SYS_writev,
    SYS_pread64,
    SYS_pwrite64,
    SYS_preadv,
    SYS_pwritev,
    SYS_preadv2,
    SYS_pwritev2,
    SYS_lseek,
    SYS_openat,
    SYS_close,
    SYS_close_range,
    SYS_dup,
    SYS_dup3,
    SYS_fcntl,
    SYS_flock,
    SYS_fsync,
    SYS_fdatasync,
    SYS_sync,
    SYS_syncfs,
    SYS_sync_file_range,
    SYS_truncate,
    SYS_ftruncate,
    SYS_fallocate,
    SYS_fadvise64,
    SYS_readahead,
    SYS_copy_file_range,
    SYS_sendfile,
    SYS_splice,
    SYS_tee,
    SYS_vmsplice,
    SYS_getdents64,
    SYS_getcwd,
    SYS_chdir,
    SYS_fchdir,
    SYS_mkdirat,
    SYS_unlinkat,
    SYS_renameat,
    SYS_renameat2,
    SYS_linkat,
    SYS_symlinkat,
    SYS_readlinkat,
    SYS_faccessat,
    SYS_faccessat2,
    SYS_fchmod,
    SYS_fchmodat,
    SYS_fchown,
    SYS_fchownat,
    SYS_newfstatat,
    SYS_fstat,
    SYS_statx,
    SYS_statfs,
    SYS_fstatfs,
    SYS_utimensat,
    SYS_umask,
    SYS_mknodat,
    SYS_getxattr,
    SYS_lgetxattr,
    SYS_fgetxattr,
    SYS_listxattr,
    SYS_llistxattr,
    SYS_flistxattr,
    SYS_inotify_init1,
    SYS_inotify_add_watch,
    SYS_inotify_rm_watch,
    SYS_memfd_create,
];

/// Memory of its own.
const MEMORY: &[(&str, i64)] = &calls![
    SYS_brk,
    SYS_mmap,
    SYS_munmap,
    SYS_mremap,
    SYS_mprotect,
    SYS_madvise,
    SYS_mincore,
    SYS_msync,
    SYS_mlock,
    SYS_mlock2,
    SYS_munlock,
    SYS_mlockall,
    SYS_munlockall,
    SYS_membarrier,
    SYS_pkey_alloc,
    SYS_pkey_free,
    SYS_pkey_mprotect,
    SYS_get_mempolicy,
    SYS_set_mempolicy,
    SYS_mbind,
];

/// Processes and threads of its own, and who it is.
const PROCESSES: &[(&str, i64)] = &calls![
    SYS_clone,
    SYS_execve,
    SYS_execveat,
    SYS_exit,
    SYS_exit_group,
    SYS_wait4,
    SYS_waitid,
    SYS_kill,
    SYS_tkill,
    SYS_tgkill,
    SYS_pidfd_open,
    SYS_pidfd_send_signal,
    SYS_getpid,
    SYS_getppid,
    SYS_gettid,
    SYS_getpgid,
    SYS_setpgid,
    SYS_getsid,
    SYS_setsid,
    SYS_getuid,
    SYS_geteuid,
    SYS_getgid,
    SYS_getegid,
    SYS_getresuid,
    SYS_getresgid,
    SYS_getgroups,
    SYS_setuid,
    SYS_setgid,
    SYS_setreuid,
    SYS_setregid,
    SYS_setresuid,
    SYS_setresgid,
    SYS_setfsuid,
    SYS_setfsgid,
    SYS_setgroups,
    SYS_capget,
    SYS_capset,
    SYS_prctl,
    SYS_personality,
    SYS_set_tid_address,
    SYS_set_robust_list,
    SYS_rseq,
    SYS_futex,
    SYS_futex_waitv,
    SYS_sched_yield,
    SYS_sched_getaffinity,
    SYS_sched_setaffinity,
    SYS_sched_getparam,
    SYS_sched_setparam,
    SYS_sched_getscheduler,
    SYS_sched_setscheduler,
    SYS_sched_get_priority_max,
    SYS_sched_get_priority_min,
    SYS_sched_rr_get_interval,
    SYS_sched_getattr,
    SYS_sched_setattr,
    SYS_getpriority,
    SYS_setpriority,
    SYS_ioprio_get,
    SYS_ioprio_set,
    SYS_getrlimit,
    SYS_setrlimit,
    SYS_prlimit64,
    SYS_getrusage,
    SYS_times,
    SYS_sysinfo,
    SYS_uname,
    SYS_getcpu,
    SYS_getrandom,
    // Confining itself further (a sandbox of its own only narrows this one).
    SYS_seccomp,
    SYS_landlock_create_ruleset,
    SYS_landlock_add_rule,
    SYS_landlock_restrict_self,
];

/// Signals.
const SIGNALS: &[(&str, i64)] = &calls![
    SYS_rt_sigaction,
    SYS_rt_sigprocmask,
    SYS_rt_sigreturn,
    SYS_rt_sigpending,
    SYS_rt_sigtimedwait,
    SYS_rt_sigqueueinfo,
    SYS_rt_tgsigqueueinfo,
    SYS_rt_sigsuspend,
    SYS_sigaltstack,
    SYS_signalfd4,
    SYS_restart_syscall,
];

/// Time (reading it; sleeping; timers of its own).
const TIME: &[(&str, i64)] = &calls![
    SYS_clock_gettime,
    SYS_clock_getres,
    SYS_clock_nanosleep,
    SYS_nanosleep,
    SYS_gettimeofday,
    SYS_getitimer,
    SYS_setitimer,
    SYS_timer_create,
    SYS_timer_settime,
    SYS_timer_gettime,
    SYS_timer_getoverrun,
    SYS_timer_delete,
    SYS_timerfd_create,
    SYS_timerfd_settime,
    SYS_timerfd_gettime,
];

/// Waiting on descriptors, and descriptors to wait on.
const WAITING: &[(&str, i64)] = &calls![
    SYS_ppoll,
    SYS_pselect6,
    SYS_epoll_create1,
    SYS_epoll_ctl,
    SYS_epoll_pwait,
    SYS_epoll_pwait2,
    SYS_eventfd2,
    SYS_pipe2,
    SYS_ioctl,
];

/// Sockets (`socket` and `socketpair` by family in `seccomp.rs`; the network namespace
/// and Landlock decide what a socket reaches).
const SOCKETS: &[(&str, i64)] = &calls![
    SYS_socket,
    SYS_socketpair,
    SYS_connect,
    SYS_bind,
    SYS_listen,
    SYS_accept,
    SYS_accept4,
    SYS_getsockname,
    SYS_getpeername,
    SYS_sendto,
    SYS_recvfrom,
    SYS_sendmsg,
    SYS_recvmsg,
    SYS_sendmmsg,
    SYS_recvmmsg,
    SYS_shutdown,
    SYS_setsockopt,
    SYS_getsockopt,
];

/// x86-64's older spellings of the same calls, which its programs still make.
#[cfg(target_arch = "x86_64")]
const X86_64_OLDER: &[(&str, i64)] = &calls![
    SYS_open,
    SYS_creat,
    SYS_stat,
    SYS_lstat,
    SYS_access,
    SYS_pipe,
    SYS_dup2,
    SYS_mkdir,
    SYS_rmdir,
    SYS_rename,
    SYS_link,
    SYS_unlink,
    SYS_symlink,
    SYS_readlink,
    SYS_chmod,
    SYS_chown,
    SYS_lchown,
    SYS_utime,
    SYS_utimes,
    SYS_futimesat,
    SYS_getdents,
    SYS_mknod,
    SYS_fork,
    SYS_vfork,
    SYS_getpgrp,
    SYS_poll,
    SYS_select,
    SYS_epoll_create,
    SYS_epoll_wait,
    SYS_eventfd,
    SYS_signalfd,
    SYS_inotify_init,
    SYS_time,
    SYS_alarm,
    SYS_pause,
    SYS_arch_prctl,
];

/// The allow list, by name (for the docs and the tests) and number.
pub(crate) fn permitted() -> Vec<(&'static str, i64)> {
    let mut calls: Vec<(&'static str, i64)> =
        [FILES, MEMORY, PROCESSES, SIGNALS, TIME, WAITING, SOCKETS].concat();
    // Newer than the C library's table: `fchmodat2` (Linux 6.6; the same number everywhere;
    // set-id bits refused in `seccomp.rs`), which the C library tries before `fchmodat`.
    calls.push(("SYS_fchmodat2", SYS_FCHMODAT2));
    #[cfg(target_arch = "x86_64")]
    {
        calls.extend_from_slice(X86_64_OLDER);
        // x86-64's shadow stacks (Linux 6.6): the C library maps one for each new thread of a
        // program built for them.
        calls.push(("SYS_map_shadow_stack", 453));
    }
    calls
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_allow_list_names_each_call_once() {
        let calls = permitted();
        let mut numbers: Vec<i64> = calls.iter().map(|&(_, nr)| nr).collect();
        numbers.sort_unstable();
        numbers.dedup();
        assert_eq!(numbers.len(), calls.len(), "a call is listed twice");
    }
}
