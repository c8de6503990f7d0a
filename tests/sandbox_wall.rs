//! The third wall (seccomp, beside Landlock and the namespaces): what a block list of socket
//! paths missed and what Landlock alone let through, each refused with the default sandbox —
//! a server's socket however it is spelled, the session keyring, a setuid file made by `open`,
//! a block device in out/ — and each shown to get through with `--sandbox off`, so that no test
//! here passes by accident.
//!
//! Run as root, tests/sandbox.rs runs this module again as `nobody`.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use crate::sandbox::{Target, Variant, is_root, needs_the_whole_sandbox};
use crate::util::{fixtures, stderr, stdout};

fn run(target: &Target, variant: Variant, env: &[(&str, &str)]) -> String {
    let mut envs: Vec<(&str, &str)> = variant.env().to_vec();
    envs.extend_from_slice(env);
    let out = target.run("sandbox/tries-write.sh", variant.args(), &envs);
    format!("{}{}", stdout(&out), stderr(&out))
}

/// A server bound by a relative name (`cd dir && bind("S")`): the kernel lists it as `S`, so
/// no list of socket paths can hide it. The runner reaches it by the same relative name.
#[test]
fn a_server_bound_by_a_relative_name_cannot_be_reached() {
    needs_the_whole_sandbox();
    for (variant, prevented) in [
        (Variant::Default, true),
        (Variant::LandlockOnly, true),
        (Variant::Off, false),
    ] {
        let target = Target::new("socket-relative");
        let dir = target.home.path().join("my agent");
        std::fs::create_dir(&dir).unwrap();
        let mut server = Command::new("python3")
            .args([
                "-c",
                "import os,socket,sys\n\
                 os.chdir(sys.argv[1]); s=socket.socket(socket.AF_UNIX); s.bind('S'); s.listen()\n\
                 print('ready', flush=True); s.settimeout(60); c,_=s.accept(); c.recv(64); print('reached', flush=True)",
            ])
            .arg(&dir)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(server.stdout.take().unwrap()).lines();
        assert_eq!(lines.next().unwrap().unwrap(), "ready");
        let screen = run(
            &target,
            variant,
            &[("SANDBOX_SOCKET_DIR", dir.to_str().unwrap())],
        );
        let reached = target.attempt() == "wrote\n";
        // A server that was reached says so and exits by itself; one that was not is stopped.
        if !reached {
            let _ = server.kill();
        }
        let said = lines.next().and_then(|l| l.ok());
        let _ = server.kill();
        let _ = server.wait();
        let errors =
            std::fs::read_to_string(target.repo.session_dir().join("turns/001/out/errors.txt"))
                .unwrap_or_default();
        assert_eq!(reached, !prevented, "{variant:?}: {errors}\n{screen}");
        assert_eq!(
            said.as_deref() == Some("reached"),
            !prevented,
            "{variant:?}: {screen}"
        );
    }
}

/// A server's socket renamed after it was bound, to a path with a space: what the kernel lists
/// is the old name. Bound before the turn, it is reached by its new name only without the wall.
#[test]
fn a_server_socket_renamed_after_binding_cannot_be_reached() {
    needs_the_whole_sandbox();
    for (variant, prevented) in [
        (Variant::Default, true),
        (Variant::LandlockOnly, true),
        (Variant::Off, false),
    ] {
        let target = Target::new("socket");
        let first = target.home.path().join("agent.sock");
        let listener = std::os::unix::net::UnixListener::bind(&first).unwrap();
        listener.set_nonblocking(true).unwrap();
        let renamed = target.home.path().join("ssh agent.sock");
        std::fs::rename(&first, &renamed).unwrap();
        let screen = run(
            &target,
            variant,
            &[("SANDBOX_SOCKET", renamed.to_str().unwrap())],
        );
        assert_eq!(
            listener.accept().is_ok(),
            !prevented,
            "{variant:?}: {screen}"
        );
        let expected = if prevented { "denied\n" } else { "wrote\n" };
        assert_eq!(target.attempt(), expected, "{variant:?}: {screen}");
    }
}

/// The session keyring is the person's: a runner can neither read a key from it nor plant one
/// that outlives the turn.
#[test]
fn the_session_keyring_is_out_of_reach() {
    needs_the_whole_sandbox();
    let fixtures_dir = fixtures().join("runners/sandbox");
    for (variant, prevented) in [
        (Variant::Default, true),
        (Variant::LandlockOnly, true),
        (Variant::Off, false),
    ] {
        let target = Target::new("keyring");
        let screen = {
            let mut envs: Vec<(&str, &str)> = variant.env().to_vec();
            envs.push(("SANDBOX_FIXTURES", fixtures_dir.to_str().unwrap()));
            let out = target.run("sandbox/tries-write.sh", variant.args(), &envs);
            format!("{}{}", stdout(&out), stderr(&out))
        };
        let expected = if prevented { "denied\n" } else { "wrote\n" };
        assert_eq!(target.attempt(), expected, "{variant:?}: {screen}");
    }
}

/// `open(O_CREAT)` with mode 04755 makes a setuid file in one step, without a `chmod`: refused.
#[test]
fn a_setuid_file_cannot_be_created_by_open() {
    needs_the_whole_sandbox();
    for (variant, prevented) in [
        (Variant::Default, true),
        (Variant::LandlockOnly, true),
        (Variant::Off, false),
    ] {
        let target = Target::new("setuid-create");
        let screen = run(&target, variant, &[]);
        let expected = if prevented { "denied\n" } else { "wrote\n" };
        assert_eq!(target.attempt(), expected, "{variant:?}: {screen}");
    }
}

/// As root without namespaces (a default Docker container), a block device node in out/ would
/// reach the disk: no device node is made, with Landlock alone too. (An unprivileged user can
/// never make one: there the attempt is refused in every variant.)
#[test]
fn no_device_node_is_made_in_out() {
    needs_the_whole_sandbox();
    for (variant, prevented) in [
        (Variant::Default, true),
        (Variant::LandlockOnly, true),
        (Variant::Off, !is_root()),
    ] {
        let target = Target::new("mknod-block");
        let screen = run(&target, variant, &[]);
        let expected = if prevented { "denied\n" } else { "wrote\n" };
        assert_eq!(target.attempt(), expected, "{variant:?}: {screen}");
        let node = target.repo.session_dir().join("turns/001/out/disk");
        if prevented {
            assert!(
                std::fs::symlink_metadata(&node).is_err(),
                "{variant:?}: {screen}"
            );
        }
    }
}

/// Run the attack `attack` (a fixture of runners/sandbox/ reading its scripts from
/// `SANDBOX_FIXTURES`) with `args` and `env` beside the variant's, and check that it got through
/// exactly when it was not `prevented`, saying what the runner wrote to its errors.
fn attempt_with_fixtures(
    attack: &str,
    variant: Variant,
    args: &[&str],
    env: &[(&str, &str)],
    prevented: bool,
) {
    let fixtures_dir = fixtures().join("runners/sandbox");
    let target = Target::new(attack);
    let mut envs: Vec<(&str, &str)> = variant.env().to_vec();
    envs.push(("SANDBOX_FIXTURES", fixtures_dir.to_str().unwrap()));
    envs.extend_from_slice(env);
    let args: Vec<&str> = variant.args().iter().chain(args).copied().collect();
    let out = target.run("sandbox/tries-write.sh", &args, &envs);
    let screen = format!("{}{}", stdout(&out), stderr(&out));
    let errors =
        std::fs::read_to_string(target.repo.session_dir().join("turns/001/out/errors.txt"))
            .unwrap_or_default();
    let expected = if prevented { "denied\n" } else { "wrote\n" };
    assert_eq!(
        target.attempt(),
        expected,
        "{attack}, {variant:?} {args:?}: {errors}\n{screen}"
    );
}

/// Sockets by allow list, not by a list of what to refuse: a script is granted no family at
/// all (but a UNIX pair of its own), and `--network on` adds IPv4, IPv6 and the routing netlink
/// only — never VSOCK (the hypervisor's host, past every network namespace), netlink's
/// diagnostics (every socket of the machine and who holds it), packet sockets or any other.
#[test]
fn no_socket_family_is_opened_that_was_not_granted() {
    needs_the_whole_sandbox();
    let on: &[&str] = &["--network", "on"];
    for (variant, extra, prevented) in [
        (Variant::Default, &[][..], true),
        (Variant::Default, on, true),
        (Variant::LandlockOnly, &[][..], true),
        (Variant::LandlockOnly, on, true),
        (Variant::Off, &[][..], false),
    ] {
        attempt_with_fixtures("families", variant, extra, &[], prevented);
    }
}

/// System calls by allow list, not by a list of what to refuse: a call no runner is shown to
/// need fails as if the kernel had none, whoever runs it and in whichever mode — System V
/// shared memory, queues and semaphores (under Landlock alone, the machine's), comparing or
/// taking other processes' descriptors, a thread's robust futex list, the kernel log, turning
/// address randomisation off. Without the sandbox each works.
#[test]
fn a_system_call_off_the_allow_list_is_absent() {
    needs_the_whole_sandbox();
    for (variant, prevented) in [
        (Variant::Default, true),
        (Variant::LandlockOnly, true),
        (Variant::Off, false),
    ] {
        attempt_with_fixtures("syscalls", variant, &[], &[], prevented);
    }
}

/// A runner holds no capability: started by root with Landlock alone (no user namespace) it is
/// still root, and would keep the machine's routes, clock and every user's private files; in its
/// namespaces it keeps no bounding set to regain one from. Without the sandbox root's are kept.
#[test]
fn the_runner_holds_no_capability() {
    needs_the_whole_sandbox();
    for (variant, prevented) in [
        (Variant::Default, true),
        (Variant::LandlockOnly, true),
        (Variant::Off, false),
    ] {
        // Where the launcher holds CAP_SETPCAP (in its namespaces, or as root) the bounding
        // set is emptied too; an unprivileged launcher without namespaces has none to give.
        let bounding = variant != Variant::LandlockOnly || is_root();
        let env = [("SANDBOX_BOUNDING_EMPTIED", if bounding { "1" } else { "0" })];
        attempt_with_fixtures("capabilities", variant, &[], &env, prevented);
    }
}

/// The start line says what is missing when the kernel has no seccomp, and `--sandbox require`
/// refuses to run a turn then.
#[test]
fn require_refuses_a_machine_without_seccomp() {
    needs_the_whole_sandbox();
    let target = Target::new("tracked");
    let out = target.run(
        "sandbox/tries-write.sh",
        &["--sandbox", "require"],
        &[("INTERVIEW_TEST_SANDBOX_NO_SECCOMP", "1")],
    );
    let screen = format!("{}{}", stdout(&out), stderr(&out));
    assert_eq!(out.status.code(), Some(1), "{screen}");
    assert!(screen.contains("without a seccomp filter"), "{screen}");
    let out = target.run(
        "sandbox/tries-write.sh",
        &[],
        &[("INTERVIEW_TEST_SANDBOX_NO_SECCOMP", "1")],
    );
    let screen = format!("{}{}", stdout(&out), stderr(&out));
    assert!(screen.contains("no seccomp"), "{screen}");
}

/// A runner cannot fill the person's disk: no file it writes grows past `--runner-disk` (here
/// 1 MiB; the write fails, and the file at the cap fails the turn, out/ emptied), in out/ or
/// anywhere, and its TMPDIR holds no more than that. Without the sandbox the same writes go
/// through.
#[test]
fn a_runner_writes_no_more_than_its_disk_cap() {
    needs_the_whole_sandbox();
    for (variant, capped) in [
        (Variant::Default, true),
        (Variant::LandlockOnly, true),
        (Variant::Off, false),
    ] {
        let target = Target::new("fill-out");
        let mut args = variant.args().to_vec();
        args.extend(["--runner-disk", "1"]);
        let out = target.run("sandbox/tries-write.sh", &args, variant.env());
        let screen = format!("{}{}", stdout(&out), stderr(&out));
        let big = target.repo.session_dir().join("turns/001/out/big");
        let size = std::fs::metadata(&big).map(|m| m.len()).unwrap_or(0);
        if capped {
            assert!(
                screen.contains("wrote more than 1 MiB"),
                "{variant:?}: {screen}"
            );
            assert_eq!(size, 0, "{variant:?}: {size} bytes left\n{screen}");
        } else {
            assert_eq!(target.attempt(), "wrote\n", "{variant:?}: {screen}");
            assert_eq!(size, 3 * 1024 * 1024, "{variant:?}: {screen}");
        }
    }
    for (variant, capped) in [(Variant::Default, true), (Variant::Off, false)] {
        let target = Target::new("fill-tmp");
        let mut args = variant.args().to_vec();
        args.extend(["--runner-disk", "1"]);
        let out = target.run("sandbox/tries-write.sh", &args, variant.env());
        let screen = format!("{}{}", stdout(&out), stderr(&out));
        let expected = if capped { "denied\n" } else { "wrote\n" };
        assert_eq!(target.attempt(), expected, "{variant:?} TMPDIR: {screen}");
    }
}

/// Many files, each below the cap, add up: a runner leaving more than `--runner-disk` in out/
/// fails its turn with the reason, and what it wrote there is removed; one that keeps writing is
/// stopped while it runs, long before its timeout. Without the sandbox nothing is capped.
#[test]
fn what_a_runner_leaves_in_out_is_capped_in_all() {
    needs_the_whole_sandbox();
    for (variant, capped) in [(Variant::Default, true), (Variant::Off, false)] {
        let target = Target::new("fill-out-many");
        let mut args = variant.args().to_vec();
        args.extend(["--runner-disk", "1"]);
        let out = target.run("sandbox/tries-write.sh", &args, variant.env());
        let screen = format!("{}{}", stdout(&out), stderr(&out));
        let part = target.repo.session_dir().join("turns/001/out/part5");
        if capped {
            assert!(screen.contains("wrote more than 1 MiB"), "{screen}");
            assert!(!part.exists(), "{screen}");
            assert_ne!(out.status.code(), Some(0), "{screen}");
        } else {
            assert_eq!(out.status.code(), Some(0), "{screen}");
            assert!(part.exists(), "{screen}");
        }
    }
    let target = Target::new("fill-out-forever");
    let start = std::time::Instant::now();
    let out = target.run("sandbox/tries-write.sh", &["--runner-disk", "1"], &[]);
    let screen = format!("{}{}", stdout(&out), stderr(&out));
    assert!(screen.contains("wrote more than 1 MiB"), "{screen}");
    assert!(
        start.elapsed() < std::time::Duration::from_secs(60),
        "{screen}"
    );
}
