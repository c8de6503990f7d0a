//! Every command line shown in README.md and docs/*.md works as written (issue 28): the lines of
//! each fenced `sh` block, page by page and in order, run in a fresh clone of this repository,
//! with the built `interview` where `cargo install` puts it. A line that needs a terminal runs at
//! a real pseudo-terminal, answered as a person would. The few lines that cannot run here are in
//! [`EXEMPT`] with why, and each must still be shown (so the list cannot go stale). Also: the
//! pages say no sentence twice, cite lines that exist, and name `brief.json`'s fields as written.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::util::{Interview, Pty, TempRepo, bin, finish_within, prerequisite, stderr, stdout};

/// Lines (by how they start) that cannot run in a test, and why.
const EXEMPT: &[(&str, &str)] = &[
    (
        "cargo install --locked --path .",
        "builds a release binary (minutes); the rest of the Install block runs with the binary these tests built, where `cargo install` puts it",
    ),
    (
        "cargo test",
        "runs these very tests (`.ci/run` runs it as the README gives it)",
    ),
    (
        "interview guard --allow 'target/**' -- cargo build",
        "builds the tool in the clone (minutes); docs/guard.md's other line runs a command under the guard",
    ),
    (
        "interview intent 42 --runner claude",
        "needs Claude Code, logged in",
    ),
    (
        "interview intent 42 --runner codex",
        "needs Codex, logged in",
    ),
    (
        "interview intent 42 --runner openai",
        "needs an OpenAI API key and the network",
    ),
    (
        "interview reflect v1.2",
        "a tag of your own project and a runner (this repository has no tag v1.2; `ollama` needs a model server; docs/runners.md's example runner runs in the_example_runner_of_runners_md_works)",
    ),
    (
        "gh issue view",
        "needs the GitHub CLI, logged in, and the network",
    ),
    ("scripts/devset.sh ", "needs local mirrors of five projects"),
    (
        "DEVSET=examples/tuneset scripts/devset.sh ",
        "needs local mirrors of the tuning pool's projects",
    ),
    (
        "DEVSET=examples/freshset scripts/devset.sh ",
        "needs local mirrors of the fresh set's projects",
    ),
    (
        "INTERVIEW_E2E=1 ",
        "the opt-in tests with the real agent CLIs: they install them from npm and PyPI",
    ),
    (
        "INTERVIEW_E2E_MODEL_URL=",
        "the opt-in test with a real local model: needs a model server",
    ),
    (
        "cargo build && INTERVIEW=target/debug/interview scripts/check-macos-sandbox.sh",
        "macOS only",
    ),
    (
        "shasum -a 256 --check --ignore-missing SHA256SUMS",
        "needs a release's files, downloaded from its page (the release workflow makes them)",
    ),
    (
        "tar xzf interview-0.1.0-",
        "needs a release's files, downloaded from its page",
    ),
    (
        "install -m 755 interview-0.1.0-",
        "needs a release's files, downloaded from its page",
    ),
];

/// Lines that end as they must where they run in the flow, with the exit code and what they say.
const EXPECTED: &[(&str, i32, &str)] = &[(
    "interview resume",
    2,
    "no unfinished session to resume here",
)];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and every page of docs/, by name.
fn pages() -> Vec<(String, String)> {
    let mut names = vec!["README.md".to_string()];
    let mut docs: Vec<String> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| format!("docs/{}", e.file_name().to_string_lossy()))
        .filter(|n| n.ends_with(".md"))
        .collect();
    docs.sort();
    names.extend(docs);
    names
        .into_iter()
        .map(|n| {
            let text = std::fs::read_to_string(root().join(&n)).unwrap();
            (n, text)
        })
        .collect()
}

/// The fenced blocks of `text`: `(info string, lines)`.
fn blocks(text: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        let fence: String = t.chars().take_while(|&c| c == '`').collect();
        if fence.len() < 3 {
            continue;
        }
        let info = t[fence.len()..].trim().to_string();
        let indent = line.len() - t.len();
        let body: Vec<String> = lines
            .by_ref()
            .take_while(|l| !l.trim_start().starts_with(&fence))
            .map(|l| l.get(indent..).unwrap_or(l.trim_start()).to_string())
            .collect();
        out.push((info, body));
    }
    out
}

/// The command lines of a shell block: continuations joined, comments dropped.
fn command_lines(body: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut pending = String::new();
    for line in body {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let code = line.split("  #").next().unwrap_or(line).trim_end();
        if let Some(head) = code.strip_suffix('\\') {
            pending.push_str(head.trim_end());
            pending.push(' ');
            continue;
        }
        pending.push_str(code);
        out.push(std::mem::take(&mut pending));
    }
    out
}

/// What the pages show: `(page, its command lines in order)`, and `(page, a shell script
/// shown whole, `#!` first)`.
struct Shown {
    commands: Vec<(String, Vec<String>)>,
    scripts: Vec<(String, String)>,
}

/// Every page's command lines, in order, and the shell scripts it shows whole.
fn shown() -> Shown {
    let mut commands = Vec::new();
    let mut scripts = Vec::new();
    for (page, text) in pages() {
        let mut lines = Vec::new();
        for (info, body) in blocks(&text) {
            if matches!(info.as_str(), "sh" | "bash" | "shell") {
                if body.first().is_some_and(|l| l.starts_with("#!")) {
                    scripts.push((page.clone(), body.join("\n") + "\n"));
                } else {
                    lines.extend(command_lines(&body));
                }
            } else if info.is_empty() || info == "text" {
                // A command shown in a block without `sh` would escape this test.
                for l in &body {
                    let l = l.trim_start();
                    assert!(
                        !(l.starts_with("interview ") || l.starts_with("cargo ")),
                        "{page}: a command line in a block not marked `sh`: {l}"
                    );
                }
            }
        }
        commands.push((page, lines));
    }
    Shown { commands, scripts }
}

fn exempt(line: &str) -> bool {
    EXEMPT.iter().any(|(start, _)| line.starts_with(start))
}

/// The environment of a person who ran `cargo install`: `interview` in `~/.cargo/bin`, on PATH.
struct Person {
    home: tempfile::TempDir,
}

impl Person {
    fn new() -> Person {
        let home = tempfile::Builder::new()
            .prefix("interview-home-")
            .tempdir()
            .unwrap();
        let bin_dir = home.path().join(".cargo/bin");
        std::fs::create_dir_all(&bin_dir).unwrap();
        std::os::unix::fs::symlink(bin(), bin_dir.join("interview")).unwrap();
        Person { home }
    }

    fn command(&self, dir: &Path, line: &str) -> Command {
        let home = self.home.path();
        let mut cmd = Command::new("/bin/sh");
        cmd.args(["-c", line])
            .current_dir(dir)
            .env_clear()
            .env("HOME", home)
            .env(
                "PATH",
                format!(
                    "{}:/usr/local/bin:/usr/bin:/bin",
                    home.join(".cargo/bin").display()
                ),
            )
            .env("TMPDIR", home)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("LC_ALL", "C.UTF-8")
            .env("MANPAGER", "cat")
            .env("PAGER", "cat")
            .env("NO_COLOR", "1")
            .env("TERM", "dumb");
        cmd
    }

    /// Run `line` without a terminal; `(exit code, stdout, stderr)`.
    fn run(&self, dir: &Path, line: &str) -> (i32, String, String) {
        let child = self
            .command(dir, line)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let out = finish_within(child, Duration::from_secs(180), line);
        (out.status.code().unwrap_or(-1), stdout(&out), stderr(&out))
    }

    /// Run `line` at a terminal, answering as a person: yes at the gate, words to every
    /// question, A at every decision; `(exit code, screen)`.
    fn at_terminal(&self, dir: &Path, line: &str) -> (i32, String) {
        Pty::command(self.command(dir, line)).answer_as_a_person()
    }
}

/// A fresh clone of this repository holding the worktree as it is (its tracked files, edits
/// included, committed on top), with its history.
fn fresh_clone(person: &Person, name: &str) -> PathBuf {
    let dir = person.home.path().join(name);
    git(
        &root(),
        &[
            "clone",
            "-q",
            // Its own copies of the objects: hard links to this repository's would change
            // (their link count) whenever this repository packs its loose objects, and the
            // guard would rightly see the clone's object store change during a turn.
            "--no-hardlinks",
            &root().display().to_string(),
            &dir.display().to_string(),
        ],
    );
    let tracked = git(&root(), &["ls-files", "-z"]);
    for rel in tracked.split('\0').filter(|r| !r.is_empty()) {
        let from = root().join(rel);
        if from.is_file() {
            let to = dir.join(rel);
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::copy(&from, &to).unwrap();
        }
    }
    git(&dir, &["add", "-A"]);
    git(
        &dir,
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
            // No `git gc --auto` started in the background by this commit: it would repack the
            // object store during the first interview, and the guard would rightly see it.
            "-c",
            "gc.auto=0",
            "-c",
            "maintenance.auto=false",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "the worktree",
        ],
    );
    dir
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", stderr(&out));
    stdout(&out)
}

#[test]
fn every_command_line_of_the_readme_and_docs_works_as_written() {
    let commits = git(&root(), &["rev-list", "--count", "HEAD"]);
    if !prerequisite(
        commits.trim().parse::<u32>().unwrap_or(0) > 20,
        "this repository's history of more than 20 commits (`interview reflect HEAD~20`)",
    ) {
        return;
    }
    let man = Command::new("man").arg("-w").arg("man").output();
    if !prerequisite(man.is_ok_and(|o| o.status.success()), "man (man-db)") {
        return;
    }
    let commands = shown().commands;
    let all: Vec<&String> = commands.iter().flat_map(|(_, l)| l).collect();
    for (start, why) in EXEMPT {
        assert!(
            all.iter().any(|l| l.starts_with(start)),
            "the exemption of {start:?} ({why}) matches no line shown any more: remove it"
        );
    }
    let person = Person::new();
    let mut failed = Vec::new();
    let mut ran = 0;
    for (page, lines) in &commands {
        if lines.iter().all(|l| exempt(l)) {
            continue;
        }
        // Each page's flow in its own clone, as a reader following that page would.
        let clone = fresh_clone(&person, &page.replace('/', "-"));
        for line in lines.iter().filter(|l| !exempt(l)) {
            ran += 1;
            let (mut code, out, mut err) = person.run(&clone, line);
            // Refused for want of a terminal (to ask on, or as /dev/tty for `--from -`).
            if code == 2 && err.contains("terminal") {
                let (c, screen) = person.at_terminal(&clone, line);
                (code, err) = (c, screen);
            }
            let expected = EXPECTED.iter().find(|(l, ..)| l == line);
            let ok = match expected {
                Some((_, want, says)) => code == *want && err.contains(says),
                None => code == 0,
            };
            if !ok {
                failed.push(format!("{page}: `{line}` exited {code}:\n{out}{err}"));
            }
        }
    }
    assert!(ran > 20, "only {ran} lines ran");
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
}

#[test]
fn the_example_runner_of_runners_md_works() {
    let scripts = shown().scripts;
    let (_, script) = scripts
        .iter()
        .find(|(page, _)| page == "docs/runners.md")
        .expect("docs/runners.md shows an example runner");
    let repo = TempRepo::new();
    let path = repo.scratch("my-runner.sh");
    std::fs::write(&path, script).unwrap();
    let command = format!("sh {}", path.display());
    // Answered, then skipped: the document says what the person said, or that it is open.
    for (answers, says) in [
        (
            r#"{ "interview_answers": 1, "answers": { "deploy": "on one VM" } }"#,
            "declared",
        ),
        (r#"{ "interview_answers": 1, "gate": "n" }"#, "Nobody said."),
    ] {
        let md = Interview::of_work_item(&repo)
            .preset(&command)
            .answers(answers)
            .yes()
            .out("-")
            .run()
            .exits(0)
            .stdout;
        assert!(md.contains(says), "{md}");
    }
}

/// docs/runners.md names `brief.json`'s fields as the file has them (issue 28: it said
/// `final_turn` where the file says `final`).
#[test]
fn docs_name_the_fields_of_brief_json_as_written() {
    let repo = TempRepo::new();
    Interview::of_work_item(&repo)
        .runner("done-at-once.sh")
        .answers(r#"{ "interview_answers": 1 }"#)
        .yes()
        .out("-")
        .run()
        .exits(0);
    let brief = repo.session_json("turns/001/brief.json");
    let keys: BTreeSet<String> = brief.as_object().unwrap().keys().cloned().collect();
    let runners = std::fs::read_to_string(root().join("docs/runners.md")).unwrap();
    let row = runners
        .lines()
        .find(|l| l.starts_with("| `INTERVIEW_CONTEXT` |"))
        .expect("docs/runners.md has the INTERVIEW_CONTEXT row");
    let named: BTreeSet<String> = row
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|w| w.chars().all(|c| c.is_ascii_lowercase() || c == '_') && *w != "true")
        .map(str::to_string)
        .collect();
    assert_eq!(named, keys, "{row}");
}

/// No page says the same sentence twice, even with other words in parentheses (issue 28: two
/// pages repeated a paragraph, one of them with another example in its parentheses).
#[test]
fn no_page_repeats_a_sentence() {
    for (page, text) in pages() {
        let flat = blocks_removed(&text)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let mut seen = BTreeSet::new();
        for sentence in sentences(&flat) {
            let gist = without_parentheses(sentence);
            if gist.len() >= 60 {
                assert!(seen.insert(gist), "{page} says twice: {}", sentence.trim());
            }
        }
    }
}

/// `text` cut after each `.`, `:`, `?` or `!` that a space follows (not inside `item.md`).
fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in text.char_indices() {
        let next = text[i + c.len_utf8()..].chars().next();
        if matches!(c, '.' | ':' | '?' | '!') && next.is_none_or(char::is_whitespace) {
            out.push(&text[start..i + 1]);
            start = i + 1;
        }
    }
    out.push(&text[start..]);
    out
}

/// `text` without what it says in parentheses (nested ones too), its words single-spaced.
fn without_parentheses(text: &str) -> String {
    let mut depth = 0usize;
    let kept: String = text
        .chars()
        .filter(|&c| match c {
            '(' => {
                depth += 1;
                false
            }
            ')' => {
                depth = depth.saturating_sub(1);
                false
            }
            _ => depth == 0,
        })
        .collect();
    kept.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `text` without its fenced blocks.
fn blocks_removed(text: &str) -> String {
    let mut out = String::new();
    let mut fence: Option<String> = None;
    for line in text.lines() {
        let t = line.trim_start();
        let run: String = t.chars().take_while(|&c| c == '`').collect();
        match &fence {
            Some(f) if t.starts_with(f.as_str()) => fence = None,
            Some(_) => {}
            None if run.len() >= 3 => fence = Some(run),
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

/// Every `path:line` the pages cite in this repository exists (issue 28: a sample cited
/// `src/protocol.rs:41`, a file that is no more). `src/export.rs` and `tests/export.rs`
/// illustrate a project of yours.
#[test]
fn cited_lines_of_this_repository_exist() {
    let cite = regex::Regex::new(
        r"\b((?:src|tests|docs|scripts|fixtures|examples)/[A-Za-z0-9_./-]+\.[a-z]+):(\d+)\b",
    )
    .unwrap();
    for (page, text) in pages() {
        for c in cite.captures_iter(&text) {
            let (path, line) = (&c[1], c[2].parse::<usize>().unwrap());
            if matches!(path, "src/export.rs" | "tests/export.rs") {
                continue;
            }
            let file = std::fs::read_to_string(root().join(path))
                .unwrap_or_else(|e| panic!("{page} cites {path}:{line}: {e}"));
            assert!(
                line >= 1 && line <= file.lines().count(),
                "{page} cites {path}:{line}, which has {} lines",
                file.lines().count()
            );
        }
    }
}
