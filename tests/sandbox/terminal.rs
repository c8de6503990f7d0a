//! The person's terminal out of a sandboxed runner's reach: a tmux server outside the tool's
//! process tree, raw escapes through /proc, keys injected with TIOCSTI or typed ahead during a turn.

use super::*;

/// A tmux server outside the tool's process tree, reachable through an inherited $TMUX or its
/// socket path, would run a command for the runner after the guard's last look.
#[test]
fn a_tmux_server_cannot_write_for_the_runner() {
    if no_landlock("tmux") {
        return;
    }
    if !prerequisite(Command::new("tmux").arg("-V").output().is_ok(), "tmux") {
        return;
    }
    let name = format!("interview-test-{}-{}", std::process::id(), rand_suffix());
    let server = Server::start(&name);
    for variant in [Variant::Default, Variant::LandlockOnly, Variant::Off] {
        let target = Target::new("tmux");
        let tmux = format!("{},{},0", server.socket, server.pid);
        let mut env: Vec<(&str, &str)> =
            vec![("TMUX", &tmux), ("SANDBOX_TMUX_SOCKET", &server.socket)];
        env.extend_from_slice(variant.env());
        let out = target.run("sandbox/tmux.sh", variant.args(), &env);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        // Each command the server took writes one line 1 s after the turn (what is tested):
        // wait for them all.
        let attempt = target.attempt();
        let queued = attempt.matches("wrote via").count();
        wait_until(WAIT, "the server's commands to run", || {
            target
                .repo
                .read("README.md")
                .matches("evil-from-tmux")
                .count()
                >= queued
        });
        let readme = target.repo.read("README.md");
        match variant {
            Variant::Off => {
                // $TMUX is never handed to a runner, even without the sandbox (sandbox_env.rs);
                // its socket path, which nothing hides here, still reaches the server.
                assert!(!attempt.contains("wrote via TMUX"), "{attempt}");
                assert!(attempt.contains("wrote via socket"), "{attempt}");
                assert!(readme.contains("evil-from-tmux"), "off: {readme}");
            }
            Variant::Default if offer().namespaces => {
                assert_eq!(attempt, "done\n");
                assert!(!readme.contains("evil"), "{variant:?}: {readme}");
            }
            _ => {
                // Landlock before ABI 9 cannot stop a connect to a named socket: only the
                // scrubbed $TMUX holds here (docs/sandbox.md, residual risks).
                assert!(!attempt.contains("wrote via TMUX"), "{attempt}");
            }
        }
    }
}

/// A tmux server of the test's own, killed when dropped.
struct Server {
    name: String,
    socket: String,
    pid: String,
}

impl Server {
    fn start(name: &str) -> Server {
        let tmux = |args: &[&str]| {
            let out = Command::new("tmux")
                .args(["-f", "/dev/null", "-L", name])
                .args(args)
                .env_remove("TMUX")
                // tmux runs the session's command with $SHELL, else the account's shell: for
                // nobody that is nologin, the session ends at once and the server with it.
                .env("SHELL", "/bin/sh")
                .output()
                .unwrap();
            assert!(out.status.success(), "tmux {args:?}: {}", stderr(&out));
            stdout(&out).trim().to_string()
        };
        tmux(&["new-session", "-d", "-s", "t", "sleep 120"]);
        let socket = tmux(&["display-message", "-p", "#{socket_path}"]);
        let pid = tmux(&["display-message", "-p", "#{pid}"]);
        Server {
            name: name.to_string(),
            socket,
            pid,
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.name, "kill-server"])
            .output();
    }
}

/// `interview intent 7` on the usual work item with a fixture runner, at a pseudo-terminal.
fn at_terminal(repo: &TempRepo, script: &str, args: &[&str], env: &[(&str, &str)]) -> Pty {
    let mut interview = Interview::intent(repo, "7")
        .work_item()
        .runner(script)
        .args(args);
    for (k, v) in env {
        interview = interview.env(k, v);
    }
    interview.at_terminal()
}

/// Decline at the consent gate ("C"): the run ends well and no document is written, unless a key
/// from elsewhere answered the gate first (`why`).
fn declines_and_writes_nothing(repo: &TempRepo, mut pty: Pty, why: &str) {
    pty.expect("Choose A, B, C or D");
    pty.send_line("C");
    let (code, rest) = pty.finish();
    assert_eq!(code, 0, "{rest}");
    assert!(
        !repo.path().join("docs/interviews/intent-7.md").exists(),
        "{why}"
    );
}

/// Raw escapes written to /proc/PID/fd/2 of the runner's parent and ancestors (the tool's is
/// the person's terminal) never reach the screen.
#[test]
fn a_runner_cannot_write_to_the_terminal_through_proc() {
    if no_landlock("proc fd") {
        return;
    }
    for variant in [Variant::Default, Variant::LandlockOnly, Variant::Off] {
        let repo = TempRepo::new();
        let mut args = vec!["--out", "-", "--yes"];
        args.extend_from_slice(variant.args());
        let pty = at_terminal(&repo, "sandbox/proc-fd.sh", &args, variant.env());
        let (code, screen) = pty.finish();
        assert_eq!(code, 0, "{screen}");
        let attempt =
            std::fs::read_to_string(repo.session_dir().join("turns/001/out/attempt.txt")).unwrap();
        let reached = screen.contains("PROC-WRITE") || screen.contains('\u{1b}');
        if variant == Variant::Off && is_root() {
            // Root may open a non-dumpable process's fds: only the sandbox stops it.
            assert!(
                reached,
                "without the sandbox, as root: {attempt}\n{screen:?}"
            );
        } else {
            // As another user the tool's being non-dumpable already stops it.
            assert!(!reached, "{variant:?}: {attempt}\n{screen:?}");
        }
    }
}

/// Keys queued on the terminal with TIOCSTI during the turn do not answer the decision that
/// follows (the consent gate: A would write the document).
#[test]
fn keys_injected_with_tiocsti_do_not_answer_a_decision() {
    if no_landlock("tiocsti") {
        return;
    }
    if !prerequisite(
        Command::new("python3").arg("-V").output().is_ok(),
        "python3",
    ) {
        return;
    }
    for variant in [Variant::Default, Variant::Off] {
        let repo = TempRepo::new();
        let pty = at_terminal(&repo, "sandbox/tiocsti.sh", variant.args(), &[]);
        declines_and_writes_nothing(
            &repo,
            pty,
            &format!("{variant:?}: the injected A was taken"),
        );
        let attempt =
            std::fs::read_to_string(repo.session_dir().join("turns/001/out/attempt.txt")).unwrap();
        if variant == Variant::Default {
            assert!(!attempt.contains("injected"), "{attempt}");
        } else if is_root() {
            // Without the sandbox root can inject; the flush before the decision drops it.
            assert!(attempt.contains("injected"), "{attempt}");
        }
    }
}

/// Keys typed (or queued) while the runner works are dropped before the decision appears.
#[test]
fn keys_typed_ahead_during_a_turn_do_not_answer_the_next_decision() {
    let repo = TempRepo::new();
    let mut pty = at_terminal(&repo, "sandbox/slow-done.sh", &[], &[]);
    // Typed once the turn has begun; the runner works until they are.
    pty.expect("turn 1 of 5");
    pty.send_line("A");
    std::fs::write(repo.session_dir().join("turns/001/out/go"), "").unwrap();
    declines_and_writes_nothing(&repo, pty, "the key typed ahead answered the consent gate");
}
