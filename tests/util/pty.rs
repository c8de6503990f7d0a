//! The real binary at a real pseudo-terminal (expectrl), as a person meets it.

use std::ffi::OsString;
use std::process::Command;

use super::{TempRepo, bin};

/// The real binary at a real pseudo-terminal.
pub(crate) struct Pty {
    pub session: expectrl::session::OsSession,
}

impl Pty {
    /// Start `interview ARGS` in `repo` at a new pseudo-terminal, with extra environment.
    /// Interviews are started with [`super::Interview::at_terminal`]; this is for the rest.
    pub(crate) fn spawn(repo: &TempRepo, args: &[&str], env: &[(&str, &str)]) -> Pty {
        let env: Vec<(OsString, OsString)> =
            env.iter().map(|(k, v)| (k.into(), v.into())).collect();
        Pty::spawn_os(repo, args.iter().map(OsString::from), &env)
    }

    /// As [`Pty::spawn`], at a terminal `cols` columns wide that echoes what is typed, as a
    /// person's does (set with `stty` before the tool starts, so it never sees another width).
    pub(crate) fn spawn_sized(
        repo: &TempRepo,
        args: &[&str],
        env: &[(&str, &str)],
        cols: u16,
    ) -> Pty {
        let env: Vec<(OsString, OsString)> =
            env.iter().map(|(k, v)| (k.into(), v.into())).collect();
        Pty::spawn_os_sized(repo, args.iter().map(OsString::from), &env, Some(cols))
    }

    pub(super) fn spawn_os(
        repo: &TempRepo,
        args: impl IntoIterator<Item = OsString>,
        env: &[(OsString, OsString)],
    ) -> Pty {
        Pty::spawn_os_sized(repo, args, env, None)
    }

    pub(super) fn spawn_os_sized(
        repo: &TempRepo,
        args: impl IntoIterator<Item = OsString>,
        env: &[(OsString, OsString)],
        cols: Option<u16>,
    ) -> Pty {
        let mut cmd = match cols {
            None => Command::new(bin()),
            Some(cols) => {
                let mut sh = Command::new("/bin/sh");
                // The size is set from this side once the spawn returned (the pty library sets
                // its own 80x24 from the parent after the fork, which raced a size the child set
                // itself): the child waits, at most 10 s, until it sees the size asked for.
                sh.arg("-c")
                    .arg(
                        "i=0; while [ \"$(stty size)\" != \"50 $0\" ] && [ $i -lt 1000 ]; do \
                         sleep 0.01; i=$((i+1)); done; stty echo && exec \"$@\"",
                    )
                    .arg(cols.to_string())
                    .arg(bin());
                sh
            }
        };
        cmd.args(args)
            .current_dir(repo.path())
            .env("HOME", repo.home())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("NO_COLOR", "1")
            .env("TERM", "dumb");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut session = expectrl::Session::spawn(cmd).expect("spawn at a pty");
        if let Some(cols) = cols {
            session
                .get_process_mut()
                .set_window_size(cols, 50)
                .expect("size the pty");
        }
        session.set_expect_timeout(Some(std::time::Duration::from_secs(30)));
        Pty { session }
    }

    /// Start any command at a new pseudo-terminal as it is set up (directory, environment),
    /// e.g. a shell line of the documentation that needs a terminal.
    pub(crate) fn command(cmd: Command) -> Pty {
        let mut session = expectrl::Session::spawn(cmd).expect("spawn at a pty");
        session.set_expect_timeout(Some(std::time::Duration::from_secs(60)));
        Pty { session }
    }

    /// Wait until the screen shows `text`; returns everything shown before it.
    pub(crate) fn expect(&mut self, text: &str) -> String {
        use expectrl::Expect;
        match self.session.expect(text) {
            Ok(found) => String::from_utf8_lossy(found.before()).into_owned(),
            Err(e) => panic!("expected {text:?} on the terminal: {e}"),
        }
    }

    pub(crate) fn send_line(&mut self, line: &str) {
        use expectrl::Expect;
        self.session.send_line(line).expect("send a line");
    }

    /// Wait for `prompt`, then type `line`; returns what was shown before the prompt.
    pub(crate) fn answer(&mut self, prompt: &str, line: &str) -> String {
        let shown = self.expect(prompt);
        self.send_line(line);
        shown
    }

    /// Press Ctrl+C.
    pub(crate) fn ctrl_c(&mut self) {
        use expectrl::Expect;
        self.session
            .send(expectrl::ControlCode::EndOfText)
            .expect("send Ctrl+C");
    }

    /// The pid of the `interview` process at this terminal.
    pub(crate) fn pid(&self) -> i32 {
        self.session.get_process().pid().as_raw()
    }

    /// Kill the tool with SIGKILL (no chance to save anything) and wait for it.
    pub(crate) fn kill9(self) {
        let pid = nix::unistd::Pid::from_raw(self.pid());
        nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL).expect("kill -9");
        let _ = self.session.get_process().wait();
    }

    /// Answer a whole interview as a person would — yes at the gate, words to every question, A
    /// at every decision — until the program ends; its exit code and what it showed last.
    pub(crate) fn answer_as_a_person(mut self) -> (i32, String) {
        use expectrl::{Expect, Regex};
        let pattern = r"(\[Y\] Answer questions now|Q&A Progress|Choose A, B)[\s\S]*?(> |: )";
        while let Ok(found) = self.session.expect(Regex(pattern)) {
            let reply = match found.get(1).unwrap_or_default() {
                b"[Y] Answer questions now" => "y",
                b"Q&A Progress" => "the analysts",
                _ => "A",
            };
            if self.session.send_line(reply).is_err() {
                break;
            }
        }
        self.finish()
    }

    /// Read the rest of the output and return it with the exit code.
    pub(crate) fn finish(mut self) -> (i32, String) {
        use expectrl::Expect;
        let rest = match self.session.expect(expectrl::Eof) {
            Ok(found) => String::from_utf8_lossy(found.as_bytes()).into_owned(),
            Err(_) => {
                // Never hang the test binary on a child that does not end: kill it.
                let pid = nix::unistd::Pid::from_raw(self.pid());
                let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL);
                String::from("<the program did not end within the expect timeout and was killed>")
            }
        };
        let status = self.session.get_process().wait().expect("wait");
        let code = match status {
            expectrl::process::unix::WaitStatus::Exited(_, code) => code,
            expectrl::process::unix::WaitStatus::Signaled(_, sig, _) => 128 + sig as i32,
            other => panic!("unexpected status {other:?}"),
        };
        (code, rest)
    }
}
