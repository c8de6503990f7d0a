//! One way to run an interview in a test: a builder that reads like the command line a person
//! types, run without a terminal ([`Interview::run`], stdin closed) or at a pseudo-terminal
//! ([`Interview::at_terminal`]).
//!
//! ```ignore
//! let out = Interview::of_work_item(&repo).runner("honest.sh")
//!     .answers(r#"{ "interview_answers": 1, "gate": "n" }"#).yes().run().exits(0);
//! assert_eq!(out.state()["status"], "done");
//! ```

use std::ffi::{OsStr, OsString};
use std::process::Command;

use super::{AnswerEvent, Pty, TempRepo, WORK_ITEM, runner};

/// `interview <subcommand> …` in a test repository, built up flag by flag.
#[must_use = "an interview does nothing until .run() or .at_terminal()"]
pub(crate) struct Interview<'r> {
    repo: &'r TempRepo,
    args: Vec<OsString>,
    env: Vec<(OsString, OsString)>,
}

impl<'r> Interview<'r> {
    fn new(repo: &'r TempRepo, args: &[&str]) -> Interview<'r> {
        Interview {
            repo,
            args: args.iter().map(OsString::from).collect(),
            env: Vec::new(),
        }
    }

    /// `interview intent ID`.
    pub(crate) fn intent(repo: &'r TempRepo, id: &str) -> Interview<'r> {
        Interview::new(repo, &["intent", id])
    }

    /// `interview intent 7 --from item.md` on the shared work item ([`WORK_ITEM`]), which most
    /// interview tests use.
    pub(crate) fn of_work_item(repo: &'r TempRepo) -> Interview<'r> {
        Interview::intent(repo, "7").work_item()
    }

    /// `interview reflect REV`.
    pub(crate) fn reflect(repo: &'r TempRepo, rev: &str) -> Interview<'r> {
        Interview::new(repo, &["reflect", rev])
    }

    /// `interview resume`.
    pub(crate) fn resume(repo: &'r TempRepo) -> Interview<'r> {
        Interview::new(repo, &["resume"])
    }

    /// Write the shared work item ([`WORK_ITEM`]) at `item.md` and add `--from item.md`.
    pub(crate) fn work_item(self) -> Self {
        self.repo.write("item.md", WORK_ITEM);
        self.from("item.md")
    }

    /// `--from PATH`.
    pub(crate) fn from(self, path: impl AsRef<OsStr>) -> Self {
        self.arg("--from").arg(path)
    }

    /// `--runner` with the fixture runner `fixtures/runners/NAME`, by absolute path.
    pub(crate) fn runner(self, fixture: &str) -> Self {
        let path = runner(fixture);
        self.arg("--runner").arg(path)
    }

    /// `--runner NAME` as given: a preset (`codex`, `builtin`) or a command.
    pub(crate) fn preset(self, name: &str) -> Self {
        self.arg("--runner").arg(name)
    }

    /// Replay `json`: it is written to a scratch file outside the repository and passed as `--answers`.
    pub(crate) fn answers(self, json: &str) -> Self {
        let file = self.repo.scratch("test-answers.json");
        std::fs::write(&file, json).unwrap();
        self.answers_file(file)
    }

    /// `--answers PATH` with a file that is already there.
    pub(crate) fn answers_file(self, path: impl AsRef<OsStr>) -> Self {
        self.arg("--answers").arg(path)
    }

    /// `--yes`.
    pub(crate) fn yes(self) -> Self {
        self.arg("--yes")
    }

    /// `--out PATH`.
    pub(crate) fn out(self, path: &str) -> Self {
        self.arg("--out").arg(path)
    }

    /// `--sandbox off`: for the tests of what the guard and the process control do where no
    /// sandbox prevents a change or keeps the runner's processes together (the sandbox itself
    /// is tests/sandbox.rs).
    pub(crate) fn without_sandbox(self) -> Self {
        self.args(["--sandbox", "off"])
    }

    /// One more argument, as typed.
    pub(crate) fn arg(mut self, arg: impl AsRef<OsStr>) -> Self {
        self.args.push(arg.as_ref().to_owned());
        self
    }

    /// More arguments, as typed.
    pub(crate) fn args<I: IntoIterator<Item = S>, S: AsRef<OsStr>>(self, args: I) -> Self {
        args.into_iter().fold(self, |me, a| me.arg(a))
    }

    /// An environment variable for the tool (and so for its runner).
    pub(crate) fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Self {
        self.env
            .push((key.as_ref().to_owned(), value.as_ref().to_owned()));
        self
    }

    /// A variable for the runner: in the tool's environment, and handed on to the runner in the
    /// person's own config ([`TempRepo::hand_to_runner`]).
    pub(crate) fn runner_env(self, key: &str, value: impl AsRef<OsStr>) -> Self {
        self.repo.hand_to_runner(&[key]);
        self.env(key, value)
    }

    /// Make the tool stop still at `step` (`<sub-step>@<turn>`, e.g. `dispatch@2`) after saving
    /// its state, touching [`TempRepo::pause_mark`], until it is killed (the resume tests'
    /// hook; wait for it with [`TempRepo::wait_until_paused`]).
    pub(crate) fn pause_at(self, step: &str) -> Self {
        let mark = self.repo.pause_mark();
        self.env("INTERVIEW_TEST_PAUSE", step)
            .env("INTERVIEW_TEST_PAUSE_MARK", mark)
    }

    /// The command [`Interview::run`] runs (stdin closed, HOME and TMPDIR the scratch
    /// directory), for a test that wires the standard streams itself or does not wait.
    pub(crate) fn command(self) -> Command {
        let mut cmd = self.repo.cmd();
        // Temporary files of runners stay inside the test's own directory.
        cmd.env("TMPDIR", self.repo.home());
        cmd.args(&self.args);
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        cmd
    }

    /// Run it with stdin closed (no terminal) and wait for it to end.
    pub(crate) fn run(self) -> Outcome<'r> {
        let repo = self.repo;
        let out = self.command().output().expect("run interview");
        Outcome {
            repo,
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// Start it at a new pseudo-terminal (`NO_COLOR=1`, `TERM=dumb`), for a test to play the
    /// person.
    pub(crate) fn at_terminal(self) -> Pty {
        Pty::spawn_os(self.repo, self.args, &self.env)
    }

    /// As [`Interview::at_terminal`], at a terminal `cols` columns wide.
    pub(crate) fn at_terminal_sized(self, cols: u16) -> Pty {
        Pty::spawn_os_sized(self.repo, self.args, &self.env, Some(cols))
    }
}

/// What a finished [`Interview::run`] left: its exit code and output, and the repository to
/// read the session from.
pub(crate) struct Outcome<'r> {
    pub repo: &'r TempRepo,
    /// The exit code (-1 if a signal ended it).
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Outcome<'_> {
    /// Assert the exit code, showing both streams if it is another.
    #[track_caller]
    pub(crate) fn exits(self, code: i32) -> Self {
        assert_eq!(
            self.code, code,
            "exit code\nstdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        self
    }

    /// Everything printed: stdout, then stderr.
    pub(crate) fn screen(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }

    /// The latest session's `state.json`.
    pub(crate) fn state(&self) -> serde_json::Value {
        self.repo.state()
    }

    /// The latest session's transcript events named `event`.
    pub(crate) fn events(&self, event: &str) -> Vec<serde_json::Value> {
        self.repo.events(event)
    }

    /// The latest session's `answer` events, in order.
    pub(crate) fn answers(&self) -> Vec<AnswerEvent> {
        self.repo.answers()
    }
}
