//! Generated histories for the reflect tests, written with `git fast-import` so hundreds of
//! commits cost milliseconds: authors, exact times, merges, renames, deletions and mode changes.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::util::TempRepo;

/// One change of a commit.
pub(crate) enum Op {
    /// Write a regular file.
    Write(String, String),
    /// Write an executable file.
    Exec(String, String),
    Delete(String),
    Rename(String, String),
}

pub(crate) fn write(path: &str, text: impl Into<String>) -> Op {
    Op::Write(path.into(), text.into())
}

/// A stream for `git fast-import` that continues `main` of a [`TempRepo`] (tag `v1` marks the
/// base, set by [`History::on`]).
pub(crate) struct History {
    stream: String,
    marks: usize,
    started: bool,
}

/// What a commit is made of.
pub(crate) struct Commit<'a> {
    pub branch: &'a str,
    pub author: (&'a str, &'a str),
    pub when: i64,
    pub message: &'a str,
    /// The first parent when it is not the branch's tip (a new branch).
    pub from: Option<usize>,
    pub merge: Option<usize>,
    pub ops: Vec<Op>,
}

impl<'a> Commit<'a> {
    pub(crate) fn on_main(when: i64, message: &'a str, ops: Vec<Op>) -> Commit<'a> {
        Commit {
            branch: "main",
            author: ("Ada", "ada@example.com"),
            when,
            message,
            from: None,
            merge: None,
            ops,
        }
    }

    pub(crate) fn by(mut self, name: &'a str, email: &'a str) -> Commit<'a> {
        self.author = (name, email);
        self
    }
}

fn data(stream: &mut String, text: &str) {
    stream.push_str(&format!("data {}\n{text}\n", text.len()));
}

impl History {
    /// A history continuing `repo`'s `main`; its current commit is tagged `v1`.
    pub(crate) fn on(repo: &TempRepo) -> History {
        repo.git(&["tag", "v1"]);
        History {
            stream: String::new(),
            marks: 0,
            started: false,
        }
    }

    /// Add a commit; returns its mark (for `from` and `merge`).
    pub(crate) fn commit(&mut self, c: Commit<'_>) -> usize {
        self.marks += 1;
        let mark = self.marks;
        let s = &mut self.stream;
        s.push_str(&format!("commit refs/heads/{}\nmark :{mark}\n", c.branch));
        let (name, email) = c.author;
        s.push_str(&format!("author {name} <{email}> {} +0000\n", c.when));
        s.push_str(&format!("committer {name} <{email}> {} +0000\n", c.when));
        data(s, c.message);
        match c.from {
            Some(from) => s.push_str(&format!("from :{from}\n")),
            None if !self.started && c.branch == "main" => {
                s.push_str("from refs/heads/main^0\n");
            }
            None => {}
        }
        if c.branch == "main" {
            self.started = true;
        }
        if let Some(other) = c.merge {
            s.push_str(&format!("merge :{other}\n"));
        }
        for op in c.ops {
            match op {
                Op::Write(path, text) => {
                    s.push_str(&format!("M 100644 inline {path}\n"));
                    data(s, &text);
                }
                Op::Exec(path, text) => {
                    s.push_str(&format!("M 100755 inline {path}\n"));
                    data(s, &text);
                }
                Op::Delete(path) => s.push_str(&format!("D {path}\n")),
                Op::Rename(from, to) => s.push_str(&format!("R {from} {to}\n")),
            }
        }
        s.push('\n');
        mark
    }

    /// Run `git fast-import` and check `main` out.
    pub(crate) fn import(self, repo: &TempRepo) {
        let mut child = Command::new("git")
            .args(["fast-import", "--quiet", "--force"])
            .current_dir(repo.path())
            .stdin(Stdio::piped())
            .spawn()
            .expect("git fast-import");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(self.stream.as_bytes())
            .expect("the stream");
        assert!(child.wait().expect("fast-import").success());
        repo.git(&["checkout", "-q", "-f", "main"]);
        repo.git(&["reset", "-q", "--hard", "main"]);
    }
}

/// A small deterministic generator (an LCG), so every run builds the same history.
pub(crate) struct Dice(u64);

impl Dice {
    pub(crate) fn new(seed: u64) -> Dice {
        Dice(seed)
    }

    pub(crate) fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) % n as u64) as usize
    }
}
