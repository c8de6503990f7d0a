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
        std::fs::read_to_string(self.path().join(rel))
            .unwrap_or_else(|e| panic!("read {rel}: {e}"))
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
