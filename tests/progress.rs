//! The progress line while a runner works, and what the tool writes at terminals that want no
//! escapes (docs/person.md, "While the runner works").

use std::time::{Duration, Instant};

use expectrl::{Expect, Regex};

use crate::util::*;

/// Everything a pseudo-terminal showed, byte for byte, as the test reads it.
struct Screen {
    pty: Pty,
    seen: Vec<u8>,
}

impl Screen {
    fn new(pty: Pty) -> Screen {
        Screen {
            pty,
            seen: Vec::new(),
        }
    }

    /// Wait (at most `within`) for `pattern`; returns the text it matched.
    fn expect(&mut self, pattern: &str, within: Duration) -> String {
        self.pty.session.set_expect_timeout(Some(within));
        let found = match self.pty.session.expect(Regex(pattern)) {
            Ok(found) => found,
            Err(e) => panic!(
                "expected /{pattern}/ within {within:?}: {e}\nshown so far: {:?}",
                String::from_utf8_lossy(&self.seen)
            ),
        };
        self.seen.extend_from_slice(found.before());
        let matched = found.get(0).unwrap_or_default().to_vec();
        self.seen.extend_from_slice(&matched);
        String::from_utf8_lossy(&matched).into_owned()
    }

    fn send_line(&mut self, line: &str) {
        self.pty.send_line(line);
    }

    /// The rest of the output, and the exit code.
    fn finish(mut self) -> (i32, Vec<u8>) {
        self.pty.session.set_expect_timeout(Some(WAIT));
        let (code, rest) = self.pty.finish();
        self.seen.extend_from_slice(rest.as_bytes());
        (code, self.seen)
    }

    /// The screen as a terminal of 40 rows and 80 columns shows it now.
    fn rows(&self) -> Vec<String> {
        let size = |n: u16| std::num::NonZero::new(n).unwrap();
        let mut parser = vt100::Parser::new(size(40), size(80), 0);
        parser.process(&self.seen);
        parser.screen().rows(0, 80).collect()
    }
}

/// `intent 7` at a terminal whose runner works `sleep` seconds before asking one question (with
/// `go`, until the test creates `go` in the turn's `out/`).
fn slow_interview(repo: &TempRepo, sleep: &str, env: &[(&str, &str)]) -> Screen {
    let mut interview = Interview::intent(repo, "7")
        .work_item()
        .runner("sleeps-then-asks.sh")
        .runner_env("TEST_SLEEP", sleep);
    for (k, v) in env {
        interview = interview.env(k, v);
    }
    Screen::new(interview.at_terminal())
}

/// Go through the gate, skip the question, and write the document.
fn answer_to_the_end(screen: &mut Screen) {
    screen.send_line("y");
    screen.expect("First question\\?", WAIT);
    screen.send_line("skip");
    screen.expect("Choose A", WAIT);
    screen.send_line("A");
}

#[test]
fn a_working_runner_shows_a_progress_line_whose_time_moves_then_a_clean_prompt() {
    let repo = TempRepo::new();
    let started = Instant::now();
    // The runner works until the test has seen the time move.
    let mut screen = slow_interview(&repo, "go", &[("TERM", "xterm"), ("NO_COLOR", "")]);
    let first = screen.expect(
        r"turn 1 of 5 · sleeps-then-asks\.sh · \d+s",
        Duration::from_secs(2),
    );
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "the line came late"
    );
    let first_secs: u32 = first
        .rsplit(' ')
        .next()
        .unwrap()
        .trim_end_matches('s')
        .parse()
        .unwrap();
    let later = screen.expect(
        &format!(
            r"turn 1 of 5 · sleeps-then-asks\.sh · [{}-9]s",
            first_secs + 1
        ),
        Duration::from_secs(4),
    );
    assert_ne!(first, later, "the elapsed time does not move");
    std::fs::write(repo.session_dir().join("turns/001/out/go"), "").unwrap();
    screen.expect("Press Enter or type Y", WAIT);
    let rows = screen.rows();
    assert!(
        rows.iter().all(|r| !r.contains("turn 1 of 5")),
        "the progress line is still on the screen:\n{}",
        rows.join("\n")
    );
    assert!(
        rows.iter()
            .any(|r| r.starts_with("📋 The interviewer has 1 clarifying question(s)")),
        "the gate does not start its own line:\n{}",
        rows.join("\n")
    );
    answer_to_the_end(&mut screen);
    let (code, _) = screen.finish();
    assert_eq!(code, 0);
}

#[test]
fn without_a_terminal_one_plain_line_and_no_redraws() {
    let repo = TempRepo::new();
    let out = Interview::intent(&repo, "7")
        .work_item()
        .runner("sleeps-then-asks.sh")
        .runner_env("TEST_SLEEP", "2")
        .env("TERM", "xterm")
        .answers(r#"{ "interview_answers": 1, "answers": { "first": "skip" } }"#)
        .yes()
        .run()
        .exits(0);
    assert!(
        out.stderr
            .contains("turn 1 of 5: waiting for sleeps-then-asks.sh…\n"),
        "{}",
        out.stderr
    );
    assert_eq!(
        out.stderr.matches("turn 1 of 5").count(),
        1,
        "{}",
        out.stderr
    );
    for bytes in [&out.stderr, &out.stdout] {
        assert!(!bytes.contains('\r'), "a carriage return: {bytes:?}");
        assert!(!bytes.contains('\x1b'), "an escape: {bytes:?}");
    }
}

#[test]
fn verbose_shows_the_runner_output_and_no_progress_line() {
    let repo = TempRepo::new();
    let out = Interview::intent(&repo, "7")
        .work_item()
        .runner("sleeps-then-asks.sh")
        .runner_env("TEST_SLEEP", "0")
        .answers(r#"{ "interview_answers": 1, "answers": { "first": "skip" } }"#)
        .yes()
        .arg("--verbose")
        .run()
        .exits(0);
    assert!(!out.stderr.contains("waiting for"), "{}", out.stderr);
}

/// A whole interview at a terminal with `env`, its runner working 2 s: every byte it wrote.
fn bytes_at(env: &[(&str, &str)]) -> Vec<u8> {
    let repo = TempRepo::new();
    let mut screen = slow_interview(&repo, "2", env);
    screen.expect(
        r"turn 1 of 5 · sleeps-then-asks\.sh · \d+s",
        Duration::from_secs(3),
    );
    screen.expect("Press Enter or type Y", WAIT);
    answer_to_the_end(&mut screen);
    let (code, bytes) = screen.finish();
    assert_eq!(code, 0, "{}", String::from_utf8_lossy(&bytes));
    bytes
}

#[test]
fn no_color_writes_no_escape_byte() {
    let bytes = bytes_at(&[("TERM", "xterm"), ("NO_COLOR", "1")]);
    assert!(
        !bytes.contains(&0x1b),
        "{:?}",
        String::from_utf8_lossy(&bytes)
    );
}

#[test]
fn term_dumb_writes_no_escape_byte() {
    let bytes = bytes_at(&[("TERM", "dumb"), ("NO_COLOR", "")]);
    assert!(
        !bytes.contains(&0x1b),
        "{:?}",
        String::from_utf8_lossy(&bytes)
    );
}

#[test]
fn a_capable_terminal_gets_bold_prompts() {
    // The counterpart of the two above: the check can fail.
    let bytes = bytes_at(&[("TERM", "xterm"), ("NO_COLOR", "")]);
    assert!(bytes.windows(4).any(|w| w == b"\x1b[1m"));
}

/// A `bin` directory whose `claude` replays the real Claude Code's stream of events slowly
/// (fixtures/cli-outputs/replay-claude-slowly.sh), and PATH with it first.
fn slow_claude() -> (tempfile::TempDir, String) {
    let bin = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(
        fixtures().join("cli-outputs/replay-claude-slowly.sh"),
        bin.path().join("claude"),
    )
    .unwrap();
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    (bin, path)
}

/// `intent 7 --runner claude` with the slow stand-in, answered to the end at a terminal with
/// `env`: every byte it wrote, after seeing each of `words` on the progress line.
fn streamed_at_terminal(
    env: &[(&str, &str)],
    words: &[&str],
) -> (Screen, TempRepo, tempfile::TempDir) {
    let repo = TempRepo::new();
    let (bin, path) = slow_claude();
    let mut interview = Interview::of_work_item(&repo)
        .preset("claude")
        .env("PATH", &path)
        .runner_env("STREAM_HOSTILE", "1");
    for (k, v) in env {
        interview = interview.env(k, v);
    }
    let mut screen = Screen::new(interview.at_terminal());
    for word in words {
        screen.expect(word, Duration::from_secs(20));
    }
    screen.expect("Press Enter or type Y", WAIT);
    (screen, repo, bin)
}

#[test]
fn a_streaming_preset_shows_the_agents_activity_then_a_clean_prompt() {
    let (mut screen, _repo, _bin) = streamed_at_terminal(
        &[("TERM", "xterm"), ("NO_COLOR", "")],
        &[
            r"turn 1 of 5 · claude · \d+s · reading evil \.rs",
            r"turn 1 of 5 · claude · \d+s · thinking",
            r"turn 1 of 5 · claude · \d+s · reading README\.md",
            r"turn 1 of 5 · claude · \d+s · searching for `ProjectList`",
            r"turn 1 of 5 · claude · \d+s · writing its answer",
        ],
    );
    let rows = screen.rows();
    assert!(
        rows.iter()
            .all(|r| !r.contains("turn 1 of 5") && !r.contains("reading")),
        "the progress line is still on the screen:\n{}",
        rows.join("\n")
    );
    assert!(
        rows.iter()
            .any(|r| r.starts_with("📋 The interviewer has 1 clarifying question(s)")),
        "the gate does not start its own line:\n{}",
        rows.join("\n")
    );
    screen.send_line("y");
    screen.expect(r"Where will this service run\?", WAIT);
    screen.send_line("2");
    screen.expect(r"turn 2 of 5 · claude · \d+s · reading README\.md", WAIT);
    screen.expect("Choose A", WAIT);
    screen.send_line("A");
    let (code, bytes) = screen.finish();
    assert_eq!(code, 0, "{}", String::from_utf8_lossy(&bytes));
    let text = String::from_utf8_lossy(&bytes);
    // The runner's escape never reached the terminal, nor the repository's absolute path.
    assert!(!text.contains("pwned"), "{text:?}");
    assert!(!text.contains("reading /"), "{text:?}");
}

#[test]
fn a_streaming_preset_at_a_dumb_terminal_shows_its_activity_without_escapes() {
    let (mut screen, _repo, _bin) = streamed_at_terminal(
        &[("TERM", "dumb"), ("NO_COLOR", "1")],
        &[r"turn 1 of 5 · claude · \d+s · searching for `ProjectList`"],
    );
    screen.send_line("n");
    let (_, bytes) = screen.finish();
    assert!(
        !bytes.contains(&0x1b),
        "{:?}",
        String::from_utf8_lossy(&bytes)
    );
}

#[test]
fn a_streaming_preset_without_a_terminal_shows_no_activity() {
    let repo = TempRepo::new();
    let (_bin, path) = slow_claude();
    let out = Interview::of_work_item(&repo)
        .preset("claude")
        .env("PATH", &path)
        .runner_env("STREAM_PAUSE", "0.05")
        .answers(
            r#"{ "interview_answers": 1, "gate": "y", "answers": { "deployment_target": "2" } }"#,
        )
        .yes()
        .run()
        .exits(0);
    assert!(
        out.stderr.contains("turn 1 of 5: waiting for claude…\n"),
        "{}",
        out.stderr
    );
    for word in ["thinking", "reading", "searching for"] {
        assert!(!out.stderr.contains(word), "{word}: {}", out.stderr);
    }
    assert!(repo.read(DOCUMENT).contains("It runs on one VM"));
}

#[test]
fn a_streaming_preset_with_verbose_shows_its_events_and_no_activity_line() {
    let repo = TempRepo::new();
    let (_bin, path) = slow_claude();
    let mut screen = Screen::new(
        Interview::of_work_item(&repo)
            .preset("claude")
            .env("PATH", &path)
            .runner_env("STREAM_PAUSE", "0.05")
            .env("TERM", "xterm")
            .arg("--verbose")
            .at_terminal(),
    );
    screen.expect(r#""type":"result""#, WAIT);
    screen.expect("Press Enter or type Y", WAIT);
    screen.send_line("n");
    let (_, bytes) = screen.finish();
    let text = String::from_utf8_lossy(&bytes);
    assert!(!text.contains("turn 1 of 5 ·"), "{text}");
    assert!(!text.contains("· reading"), "{text}");
}
