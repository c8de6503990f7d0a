//! The sandbox denies by default: a turn can change nothing outside its out/ that outlives it.
//! Attacks that need no write to the repository — a file's times, a setuid shell left in out/,
//! a server reached through its named socket, another process's shared memory — each prevented
//! under the default `--sandbox auto` (Landlock with user namespaces) and shown to get through
//! with `--sandbox off`, so that no test here passes by accident.
//!
//! Run as root, tests/sandbox.rs runs this module again as `nobody`.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use crate::sandbox::{Target, Variant, needs_the_whole_sandbox};
use crate::util::{stderr, stdout};

fn mtime(path: &Path) -> i64 {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).unwrap().mtime()
}

#[test]
fn a_file_outside_the_repository_keeps_its_times() {
    needs_the_whole_sandbox();
    for (variant, prevented) in [(Variant::Default, true), (Variant::Off, false)] {
        let target = Target::new("chmod-utime");
        let rc = target.home.path().join(".bashrc");
        let before = mtime(&rc);
        let out = target.run("sandbox/tries-write.sh", variant.args(), variant.env());
        let screen = format!("{}{}", stdout(&out), stderr(&out));
        let expected = if prevented { "denied\n" } else { "wrote\n" };
        assert_eq!(target.attempt(), expected, "{variant:?}: {screen}");
        assert_eq!(mtime(&rc) == before, prevented, "{variant:?}: {screen}");
    }
}

/// A copy of a shell made setuid (and its directory world-writable) in out/, which is kept after
/// the turn: with the tool run as root, anyone who ran it would be root. Whatever the sandbox,
/// no setuid or setgid bit and no world-writable mode survives the turn.
#[test]
fn no_setuid_file_or_world_writable_directory_outlives_the_turn() {
    needs_the_whole_sandbox();
    for variant in [Variant::Default, Variant::LandlockOnly, Variant::Off] {
        let target = Target::new("setuid-out");
        let out = target.run("sandbox/tries-write.sh", variant.args(), variant.env());
        let screen = format!("{}{}", stdout(&out), stderr(&out));
        // The sandbox refuses the setuid chmod itself (seccomp); without it the bit is set
        // and must not survive the turn.
        let expected = if variant == Variant::Off {
            "wrote\n"
        } else {
            "denied\n"
        };
        assert_eq!(target.attempt(), expected, "{variant:?}: {screen}");
        let dir = target.repo.session_dir().join("turns/001/out");
        let mode = |p: &Path| std::fs::symlink_metadata(p).unwrap().permissions().mode();
        assert_eq!(
            mode(&dir.join("sh")) & 0o6000,
            0,
            "{variant:?}: setuid kept"
        );
        assert_eq!(mode(&dir) & 0o002, 0, "{variant:?}: out/ world-writable");
    }
}

/// The mode of `file` below `levels` directories named `name` in `dir`, reached one directory
/// descriptor at a time (the path is longer than PATH_MAX).
fn mode_below(dir: &Path, name: &str, levels: usize, file: &str) -> u32 {
    use nix::fcntl::{AT_FDCWD, AtFlags, OFlag, openat};
    use nix::sys::stat::{Mode, fstatat};
    let flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_NOFOLLOW;
    let mut at = openat(AT_FDCWD, dir, flags, Mode::empty()).unwrap();
    for _ in 0..levels {
        at = openat(&at, name, flags, Mode::empty()).unwrap();
    }
    fstatat(&at, file, AtFlags::AT_SYMLINK_NOFOLLOW)
        .unwrap()
        .st_mode
        & 0o7777
}

/// Setuid copies of a shell where a walk by path does not reach: behind a directory of mode
/// 0111 and one of mode 0000 (as a normal user), and 8000 bytes deep (past PATH_MAX). Whatever
/// the sandbox, none keeps its setuid bit after the turn.
#[test]
fn no_setuid_file_survives_behind_a_closed_directory_or_past_path_max() {
    needs_the_whole_sandbox();
    for variant in [Variant::Default, Variant::LandlockOnly, Variant::Off] {
        let target = Target::new("setuid-hidden");
        let out = target.run("sandbox/tries-write.sh", variant.args(), variant.env());
        let screen = format!("{}{}", stdout(&out), stderr(&out));
        if variant == Variant::Off {
            assert_eq!(target.attempt(), "wrote\n", "{variant:?}: {screen}");
        }
        let dir = target.repo.session_dir().join("turns/001/out");
        for hidden in ["search-only", "closed"] {
            let sh = dir.join(hidden).join("inner/sh");
            if let Ok(meta) = std::fs::symlink_metadata(&sh) {
                let mode = meta.permissions().mode();
                assert_eq!(mode & 0o6000, 0, "{variant:?}: {hidden}: setuid kept");
            } else {
                assert_ne!(
                    target.attempt(),
                    "wrote\n",
                    "{variant:?}: {hidden} not entered"
                );
            }
        }
        if target.attempt() == "wrote\n" {
            let deep = mode_below(&dir, &"d".repeat(200), 40, "sh");
            assert_eq!(deep & 0o6000, 0, "{variant:?}: setuid kept past PATH_MAX");
        }
    }
}

/// A FIFO and a socket left in out/ (something that reads out/ later could block on one or
/// reach a server through the other): removed after the turn, and named.
#[test]
fn fifos_and_sockets_left_in_out_are_removed_and_named() {
    needs_the_whole_sandbox();
    for variant in [Variant::Default, Variant::Off] {
        let target = Target::new("special-out");
        let out = target.run("sandbox/tries-write.sh", variant.args(), variant.env());
        let screen = format!("{}{}", stdout(&out), stderr(&out));
        let dir = target.repo.session_dir().join("turns/001/out");
        assert!(
            std::fs::symlink_metadata(dir.join("pipe")).is_err(),
            "{variant:?}: FIFO kept"
        );
        assert!(
            std::fs::symlink_metadata(dir.join("sub/sock")).is_err(),
            "{variant:?}: socket kept"
        );
        if target.attempt() == "wrote\n" {
            assert!(
                screen.contains("\"pipe\" (a FIFO)") && screen.contains("\"sub/sock\" (a socket)"),
                "{variant:?}: not named: {screen}"
            );
        } else {
            assert_ne!(variant, Variant::Off, "{screen}");
        }
    }
}

/// The runner's private TMPDIR is removed after the turn though it left a read-only directory
/// and one of mode 0000 in it.
#[test]
fn the_private_tmpdir_goes_whatever_modes_the_runner_left() {
    needs_the_whole_sandbox();
    for variant in [Variant::Default, Variant::LandlockOnly] {
        let target = Target::new("tmpdir-modes");
        let out = target.run("sandbox/tries-write.sh", variant.args(), variant.env());
        let screen = format!("{}{}", stdout(&out), stderr(&out));
        assert_eq!(target.attempt(), "wrote\n", "{variant:?}: {screen}");
        let tmpdir =
            std::fs::read_to_string(target.repo.session_dir().join("turns/001/out/tmpdir.txt"))
                .unwrap();
        let tmpdir = Path::new(tmpdir.trim());
        assert!(
            tmpdir.starts_with("/") && tmpdir.file_name().is_some(),
            "{tmpdir:?}"
        );
        assert!(
            std::fs::symlink_metadata(tmpdir).is_err(),
            "{variant:?}: {} is left: {screen}",
            tmpdir.display()
        );
    }
}

/// A server listening on a named socket in HOME (ssh-agent, gpg-agent, an editor's server): the
/// runner cannot connect to it, so it cannot ask it to act outside the sandbox.
#[test]
fn a_named_socket_outside_the_sandbox_cannot_be_reached() {
    needs_the_whole_sandbox();
    for (variant, prevented) in [(Variant::Default, true), (Variant::Off, false)] {
        let target = Target::new("socket");
        // In its own directory, as ssh-agent and gpg-agent keep theirs.
        let dir = target.home.path().join(".gnupg");
        std::fs::create_dir(&dir).unwrap();
        let socket = dir.join("S.agent");
        let listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        listener.set_nonblocking(true).unwrap();
        let env = [("SANDBOX_SOCKET", socket.to_str().unwrap())];
        let mut envs: Vec<(&str, &str)> = variant.env().to_vec();
        envs.extend(env);
        let out = target.run("sandbox/tries-write.sh", variant.args(), &envs);
        let screen = format!("{}{}", stdout(&out), stderr(&out));
        let reached = listener.accept().is_ok();
        assert_eq!(reached, !prevented, "{variant:?}: {screen}");
        let expected = if prevented { "denied\n" } else { "wrote\n" };
        assert_eq!(target.attempt(), expected, "{variant:?}: {screen}");
    }
}

/// The same through `$XDG_RUNTIME_DIR` (where the session bus, the systemd user instance,
/// podman and editors keep their sockets): the directory itself is hidden.
#[test]
fn the_runtime_directory_is_hidden() {
    needs_the_whole_sandbox();
    for (variant, prevented) in [(Variant::Default, true), (Variant::Off, false)] {
        let target = Target::new("socket");
        let runtime = target.home.path().join("run-user");
        std::fs::create_dir(&runtime).unwrap();
        std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o700)).unwrap();
        let socket = runtime.join("bus");
        let listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        listener.set_nonblocking(true).unwrap();
        let mut envs: Vec<(&str, &str)> = variant.env().to_vec();
        envs.push(("SANDBOX_SOCKET", socket.to_str().unwrap()));
        envs.push(("XDG_RUNTIME_DIR", runtime.to_str().unwrap()));
        let out = target.run("sandbox/tries-write.sh", variant.args(), &envs);
        let screen = format!("{}{}", stdout(&out), stderr(&out));
        assert_eq!(
            listener.accept().is_ok(),
            !prevented,
            "{variant:?}: {screen}"
        );
    }
}

/// Another process's System V shared memory is not even visible: the runner has its own IPC
/// namespace.
#[test]
fn another_processs_shared_memory_is_out_of_reach() {
    needs_the_whole_sandbox();
    let made = Command::new("ipcmk")
        .args(["-M", "4096"])
        .output()
        .expect("ipcmk (util-linux) makes a shared memory segment");
    let text = stdout(&made);
    let id = text
        .split_whitespace()
        .last()
        .unwrap_or_else(|| panic!("ipcmk printed no id: {text}"))
        .to_string();
    for (variant, prevented) in [(Variant::Default, true), (Variant::Off, false)] {
        let target = Target::new("sysv-shm");
        let mut envs: Vec<(&str, &str)> = variant.env().to_vec();
        envs.push(("SANDBOX_SHMID", &id));
        let out = target.run("sandbox/tries-write.sh", variant.args(), &envs);
        let screen = format!("{}{}", stdout(&out), stderr(&out));
        let expected = if prevented { "denied\n" } else { "wrote\n" };
        assert_eq!(target.attempt(), expected, "{variant:?}: {screen}");
    }
    let _ = Command::new("ipcrm").args(["-m", &id]).status();
}

/// A file in the machine's /dev/shm (another program's shared memory) cannot even be read: the
/// runner's /dev/shm is its own.
#[test]
fn the_machines_dev_shm_is_out_of_reach() {
    needs_the_whole_sandbox();
    let name = format!("interview-test-{}", std::process::id());
    let path = Path::new("/dev/shm").join(&name);
    std::fs::write(&path, "mine\n").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o666)).unwrap();
    for (variant, prevented) in [(Variant::Default, true), (Variant::Off, false)] {
        std::fs::write(&path, "mine\n").unwrap();
        let target = Target::new("dev-shm");
        let mut envs: Vec<(&str, &str)> = variant.env().to_vec();
        envs.push(("SANDBOX_SHM_NAME", &name));
        let out = target.run("sandbox/tries-write.sh", variant.args(), &envs);
        let screen = format!("{}{}", stdout(&out), stderr(&out));
        let expected = if prevented { "denied\n" } else { "wrote\n" };
        assert_eq!(target.attempt(), expected, "{variant:?}: {screen}");
    }
    let _ = std::fs::remove_file(&path);
}
