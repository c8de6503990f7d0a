//! A failure a retry cannot fix, as each real agent CLI says it when it is not logged in, has
//! no key, no state directory, no network or refuses its arguments (recorded in
//! fixtures/cli-outputs/ with a fresh HOME and no network): shown once at a terminal with the
//! CLI's words and the command that fixes it, never retried, and a CLI that would wait for a
//! network or a browser is stopped at once (docs/runners.md, "Failures a retry cannot fix").

use std::time::{Duration, Instant};

use crate::util::*;

/// `intent 7 --runner CLI` at a terminal, where `CLI` replays `recorded` and then exits with
/// `status` (or waits, with `wait`): what the terminal showed until the decision, and how long
/// that took. The session is stopped (B) and the repository handed back to read.
fn fails_at_terminal(cli: &str, recorded: &str, status: &str) -> (String, Duration, TempRepo) {
    let repo = TempRepo::new();
    let bin = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(
        fixtures().join("cli-outputs/replay-unfixable.sh"),
        bin.path().join(cli),
    )
    .unwrap();
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let started = Instant::now();
    let mut pty = Interview::of_work_item(&repo)
        .preset(cli)
        .env("PATH", &path)
        .runner_env("REPLAY", recorded)
        .runner_env("REPLAY_STATUS", status)
        .at_terminal_sized(300);
    let shown = pty.answer("Choose A, B or C", "B");
    let took = started.elapsed();
    let (code, _) = pty.finish();
    assert_eq!(code, 4, "{shown}");
    (shown, took, repo)
}

/// It failed once, not retried, naming what is wrong, in the CLI's own words, and the fix.
#[track_caller]
fn told_once(shown: &str, what: &str, said: &str, fix: &str) {
    assert!(
        shown.contains("The runner failed 1 time at turn 1"),
        "{shown}"
    );
    assert!(!shown.contains("attempt 2"), "retried:\n{shown}");
    assert!(
        shown.contains(&format!("not retried: {what}, which a retry cannot fix")),
        "{shown}"
    );
    assert!(shown.contains(said), "not in its words ({said}):\n{shown}");
    assert!(
        shown.contains(&format!("to fix it: {fix}")),
        "no fix ({fix}):\n{shown}"
    );
    assert!(
        shown.contains("Recommendation: B"),
        "a retry is recommended:\n{shown}"
    );
}

#[test]
fn claude_not_logged_in_fails_once_naming_claude_login() {
    let (shown, _, repo) = fails_at_terminal("claude", "claude-not-logged-in.jsonl", "1");
    told_once(
        &shown,
        "Claude Code is not logged in",
        "Not logged in · Please run /login",
        "run `claude /login`",
    );
    // Its error event is said as one on the progress line, not as "writing".
    assert!(shown.contains("error: Not logged in"), "{shown}");
    let log = repo.session_dir().join("turns/001/attempt-1");
    assert!(!log.exists(), "a second attempt was made");
}

#[test]
fn codex_without_its_state_directory_fails_once_naming_codex_login() {
    let (shown, _, _repo) = fails_at_terminal("codex", "codex-no-state-dir.log", "1");
    told_once(
        &shown,
        "Codex has no state directory (~/.codex, or $CODEX_HOME): it was never logged in here",
        "Read-only file system (os error 30)",
        "run `codex login`",
    );
}

#[test]
fn codex_waiting_for_a_network_is_stopped_at_once() {
    let (shown, took, _repo) = fails_at_terminal("codex", "codex-offline.log", "wait");
    told_once(
        &shown,
        "Codex cannot reach its server (no network)",
        "Reconnecting... waiting for network",
        "connect this machine to the network",
    );
    assert!(
        shown.contains("the runner was stopped when it said"),
        "{shown}"
    );
    // Not the turn's 600 s timeout: stopped when it said so.
    assert!(took < Duration::from_secs(60), "took {took:?}");
}

#[test]
fn gemini_not_signed_in_fails_once_naming_how_to_sign_in() {
    let (shown, _, _repo) = fails_at_terminal("gemini", "gemini-no-auth.log", "41");
    told_once(
        &shown,
        "Gemini CLI is not signed in",
        "Please set an Auth method",
        "run `gemini` once and choose how to sign in (or set GEMINI_API_KEY)",
    );
}

#[test]
fn aider_without_a_key_is_stopped_before_it_waits_for_a_browser() {
    let (shown, took, _repo) = fails_at_terminal("aider", "aider-no-key.txt", "wait");
    told_once(
        &shown,
        "aider has no API key",
        "No LLM model was specified and no API keys were provided",
        "set your provider's key variable (`export ANTHROPIC_API_KEY=…`",
    );
    assert!(took < Duration::from_secs(60), "took {took:?}");
}

#[test]
fn a_cli_refusing_its_arguments_fails_once_naming_its_help() {
    let (shown, _, _repo) = fails_at_terminal("claude", "claude-usage-error.txt", "1");
    told_once(
        &shown,
        "Claude Code refused its arguments",
        "error: unknown option '--bogus-flag'",
        "check the arguments after `--` against `claude --help`",
    );
}
