//! Shared helpers for the integration tests: temporary git repositories and the real binary.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The real `interview` executable built by cargo.
pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_interview"))
}

/// The `fixtures/` directory of this repository.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// A runner fixture by file name, as an absolute path.
pub fn runner(name: &str) -> String {
    fixtures().join("runners").join(name).display().to_string()
}

/// A git repository in a temporary directory, with one commit.
pub struct TempRepo {
    pub dir: tempfile::TempDir,
}

impl TempRepo {
    pub fn new() -> TempRepo {
        let dir = tempfile::Builder::new()
            .prefix("interview-test-")
            .tempdir()
            .expect("tempdir");
        let repo = TempRepo { dir };
        repo.git(&["init", "-q", "-b", "main"]);
        repo.git(&["config", "user.name", "Test Person"]);
        repo.git(&["config", "user.email", "test@example.com"]);
        repo.git(&["config", "commit.gpgsign", "false"]);
        repo.write("README.md", "# test repo\n\nline two\n");
        repo.write("src/lib.rs", "pub fn answer() -> u32 {\n    42\n}\n");
        repo.git(&["add", "-A"]);
        repo.git(&["commit", "-q", "-m", "initial commit"]);
        repo
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn write(&self, rel: &str, text: &str) {
        let p = self.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path().join(rel)).unwrap_or_else(|e| panic!("read {rel}: {e}"))
    }

    /// Run git in the repository (test set-up only; the tool itself never runs git).
    pub fn git(&self, args: &[&str]) -> String {
        let out = Command::new("git")
            .args(args)
            .current_dir(self.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", self.path().join(".git"))
            .output()
            .expect("git");
        assert!(
            out.status.success(),
            "git {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// A command for the real binary, run in this repository with a clean environment.
    pub fn cmd(&self) -> Command {
        let mut c = Command::new(bin());
        c.current_dir(self.path())
            .env_remove("NO_COLOR")
            .env("HOME", self.path().join(".git"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .stdin(Stdio::null());
        c
    }

    /// Run the binary with `args` and stdin closed.
    pub fn run(&self, args: &[&str]) -> Output {
        self.cmd().args(args).output().expect("run interview")
    }

    /// The single session directory under `.interview/sessions`.
    pub fn session_dir(&self) -> PathBuf {
        let dir = self.path().join(".interview/sessions");
        let mut entries: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        entries.pop().expect("a session directory")
    }
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Whether a process with this pid still exists (and is not a zombie).
pub fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat.rsplit(')').next().unwrap_or("").trim_start();
            !state.starts_with('Z') && !state.starts_with('X')
        }
        Err(_) => false,
    }
}

/// The real binary at a real pseudo-terminal.
pub struct Pty {
    pub session: expectrl::session::OsSession,
}

impl Pty {
    /// Start `interview ARGS` in `repo` at a new pseudo-terminal, with extra environment.
    pub fn spawn(repo: &TempRepo, args: &[&str], env: &[(&str, &str)]) -> Pty {
        let mut cmd = Command::new(bin());
        cmd.args(args)
            .current_dir(repo.path())
            .env("HOME", repo.path().join(".git"))
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("NO_COLOR", "1")
            .env("TERM", "dumb");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut session = expectrl::Session::spawn(cmd).expect("spawn at a pty");
        session.set_expect_timeout(Some(std::time::Duration::from_secs(30)));
        Pty { session }
    }

    /// Wait until the screen shows `text`; returns everything shown before it.
    pub fn expect(&mut self, text: &str) -> String {
        use expectrl::Expect;
        match self.session.expect(text) {
            Ok(found) => String::from_utf8_lossy(found.before()).into_owned(),
            Err(e) => panic!("expected {text:?} on the terminal: {e}"),
        }
    }

    pub fn send_line(&mut self, line: &str) {
        use expectrl::Expect;
        self.session.send_line(line).expect("send a line");
    }

    /// Press Ctrl+C.
    pub fn ctrl_c(&mut self) {
        use expectrl::Expect;
        self.session
            .send(expectrl::ControlCode::EndOfText)
            .expect("send Ctrl+C");
    }

    /// The pid of the `interview` process at this terminal.
    pub fn pid(&self) -> i32 {
        self.session.get_process().pid().as_raw()
    }

    /// Kill the tool with SIGKILL (no chance to save anything) and wait for it.
    pub fn kill9(self) {
        let pid = nix::unistd::Pid::from_raw(self.pid());
        nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL).expect("kill -9");
        let _ = self.session.get_process().wait();
    }

    /// Read the rest of the output and return it with the exit code.
    pub fn finish(mut self) -> (i32, String) {
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

impl TempRepo {
    /// The work item most interview tests use, at `item.md`.
    pub fn work_item(&self) {
        self.write(
            "item.md",
            "# Export to CSV\n\nUsers want their data as CSV.\n",
        );
    }

    /// The latest session's `state.json`.
    pub fn state(&self) -> serde_json::Value {
        let path = self.session_dir().join("state.json");
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    /// The latest session's transcript events named `event`.
    pub fn events(&self, event: &str) -> Vec<serde_json::Value> {
        std::fs::read_to_string(self.session_dir().join("transcript.jsonl"))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .filter(|v| v["event"] == event)
            .collect()
    }

    /// `interview intent 7 --from item.md --runner R --answers FILE EXTRA…` without a terminal,
    /// FILE holding `answers_json`, with extra environment.
    pub fn replay(
        &self,
        runner_name: &str,
        answers_json: &str,
        extra: &[&str],
        env: &[(&str, &str)],
    ) -> Output {
        self.work_item();
        let answers = self.path().join(".git/test-answers.json");
        std::fs::write(&answers, answers_json).unwrap();
        // Temporary files of runners stay inside the test's own directory.
        let mut cmd = self.cmd();
        cmd.env("TMPDIR", self.path().join(".git"));
        cmd.args([
            "intent",
            "7",
            "--from",
            "item.md",
            "--runner",
            &runner(runner_name),
            "--answers",
        ])
        .arg(&answers)
        .args(extra);
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.output().expect("run interview")
    }
}

impl TempRepo {
    /// `interview intent 7 --from item.md --runner R EXTRA…` at a pseudo-terminal, with the
    /// usual work item written first.
    pub fn intent_at_pty(&self, runner_name: &str, extra: &[&str], env: &[(&str, &str)]) -> Pty {
        self.work_item();
        let r = runner(runner_name);
        let mut args = vec!["intent", "7", "--from", "item.md", "--runner", &r];
        args.extend_from_slice(extra);
        Pty::spawn(self, &args, env)
    }
}
