//! How a failed turn is told: the reason, the last lines the runner wrote to its standard error,
//! where its `runner.log` is, and one summary when it failed the same way every time
//! (docs/sessions.md, "Retries and the circuit breaker").

use std::path::Path;

use super::state::SubStep;

/// Most lines of the runner's standard error shown with a failure.
const TAIL_LINES: usize = 5;
/// Longest line shown, in characters.
const LINE_MAX: usize = 200;

/// The last few non-empty lines of `tail` (the end of the runner's standard error), sanitised
/// and kept short. A first line cut by the capture is dropped.
pub(super) fn stderr_lines(tail: &[u8], cut: bool) -> Vec<String> {
    let text = String::from_utf8_lossy(tail);
    let mut lines: Vec<&str> = text.lines().collect();
    if cut && lines.len() > 1 {
        lines.remove(0);
    }
    let kept: Vec<String> = lines
        .iter()
        .map(|l| crate::receipt::sanitize_line(l).0.trim_end().to_string())
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            if l.chars().count() > LINE_MAX {
                let mut short: String = l.chars().take(LINE_MAX - 1).collect();
                short.push('…');
                short
            } else {
                l
            }
        })
        .collect();
    kept[kept.len().saturating_sub(TAIL_LINES)..].to_vec()
}

/// The indented block of stderr lines that follows a failure, or nothing.
fn tail_block(lines: &[String]) -> String {
    if lines.is_empty() {
        return String::new();
    }
    let mut out = String::from("\n  the runner's last lines on stderr:");
    for l in lines {
        out.push_str("\n    ");
        out.push_str(l);
    }
    out
}

/// One failed attempt, said as it happens: in full the first time, in one line when it failed
/// exactly as the attempt before.
pub(super) fn attempt_failed(
    turn: u32,
    attempt: u32,
    allowed: u32,
    reason: &str,
    stderr: &[String],
    same_as_before: bool,
) -> String {
    let reason = crate::receipt::sanitize(reason).0;
    if same_as_before {
        return format!("Turn {turn} failed again the same way (attempt {attempt} of {allowed}).");
    }
    format!(
        "Turn {turn} failed (attempt {attempt} of {allowed}): {reason}{}",
        tail_block(stderr)
    )
}

/// `1 time`, `4 times`.
pub(super) fn times(n: u32) -> String {
    if n == 1 {
        "1 time".into()
    } else {
        format!("{n} times")
    }
}

/// The retries are used up (or a retry cannot help: `permanent` says why, `fix` what fixes
/// it): how often and how it failed, where the log is, what it last said.
#[allow(clippy::too_many_arguments)]
pub(super) fn exhausted(
    turn: u32,
    attempts: u32,
    all_the_same: bool,
    reason: &str,
    log: &Path,
    stderr: &[String],
    permanent: Option<&str>,
    fix: Option<&str>,
) -> String {
    let reason = crate::receipt::sanitize(reason).0;
    let head = if all_the_same && attempts > 1 {
        format!("the runner failed {attempts} times the same way at turn {turn}: {reason}")
    } else if attempts > 1 {
        format!(
            "the runner failed {attempts} times in a row at turn {turn}; last failure: {reason}"
        )
    } else {
        format!("the runner failed {} at turn {turn}: {reason}", times(1))
    };
    let why = permanent
        .map(|w| format!("\n  not retried: {w}, which a retry cannot fix"))
        .unwrap_or_default();
    let why = match fix {
        Some(fix) => format!("{why}\n  to fix it: {fix}"),
        None => why,
    };
    format!(
        "{head}{why}\n  its log: {}{}",
        crate::receipt::sanitize_line(&log.display().to_string()).0,
        tail_block(stderr)
    )
}

/// Why a retry cannot fix a runner's failure, when what it said shows it: the API refused the
/// request itself (400: invalid, a prompt or context too long), refused the credentials
/// (401, 403), or nothing listened where it connects. `None` for a failure a retry may fix: a
/// timeout, a 5xx, a 429 (rate limit, overload), a killed runner, anything unrecognised.
pub(super) fn not_fixable_by_retry(reason: &str, stderr: &[String]) -> Option<&'static str> {
    let text = std::iter::once(reason)
        .chain(stderr.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join("\n")
        .to_lowercase();
    let has = |needles: &[&str]| needles.iter().any(|n| text.contains(n));
    let code = |c: &str| {
        text.split(|ch: char| !ch.is_ascii_alphanumeric())
            .any(|w| w == c)
    };
    // A transient sign wins: the same request may pass later.
    if code("429")
        || ["500", "502", "503", "504", "529"].iter().any(|c| code(c))
        || has(&[
            "rate limit",
            "rate_limit",
            "overloaded",
            "timed out",
            "timeout",
        ])
    {
        return None;
    }
    if has(&[
        "prompt is too long",
        "context length",
        "context_length_exceeded",
        "context window",
        "maximum context",
        "too many tokens",
    ]) {
        return Some("the request is too long for the model");
    }
    if has(&["connection refused", "connectionrefused", "econnrefused"]) {
        return Some("the connection was refused");
    }
    let api = has(&["api", "http", "status"]);
    if api && (code("401") || code("403"))
        || has(&[
            "unauthorized",
            "authentication_error",
            "invalid api key",
            "invalid x-api-key",
            "permission_error",
        ])
    {
        return Some("the API refused the credentials");
    }
    if api && code("400") || has(&["invalid_request_error", "invalid request"]) {
        return Some("the API refused the request as invalid");
    }
    None
}

/// A runner program that could not be started at all: not there, or not runnable.
pub(super) fn cannot_start(program: &str, error: &std::io::Error) -> String {
    let program = format!("`{}`", crate::receipt::sanitize_line(program).0);
    match error.kind() {
        std::io::ErrorKind::NotFound => format!(
            "cannot start the runner {program}: no such program (not installed, or not on PATH); \
             `interview runners` lists the presets and which are installed"
        ),
        std::io::ErrorKind::PermissionDenied => format!(
            "cannot start the runner {program}: it is not executable; \
             `interview runners` lists the presets and which are installed"
        ),
        _ => format!("cannot start the runner {program}: {error}"),
    }
}

/// Why one attempt at a turn failed.
#[derive(Debug)]
pub(super) struct TurnFailure {
    pub(super) sub_step: SubStep,
    reason: String,
    /// The last lines of the runner's standard error (sanitised).
    pub(super) stderr: Vec<String>,
    /// What its CLI said of a failure a retry cannot fix, and what fixes it.
    pub(super) unfixable: Option<crate::runner::Unfixable>,
}

impl TurnFailure {
    pub(super) fn dispatch(reason: String) -> Self {
        TurnFailure {
            sub_step: SubStep::Dispatch,
            reason,
            stderr: Vec::new(),
            unfixable: None,
        }
    }
    pub(super) fn unfixable(self, unfixable: Option<crate::runner::Unfixable>) -> Self {
        TurnFailure { unfixable, ..self }
    }
    pub(super) fn receipt(reason: String) -> Self {
        TurnFailure {
            sub_step: SubStep::Receipt,
            reason,
            stderr: Vec::new(),
            unfixable: None,
        }
    }
    pub(super) fn reason(&self) -> String {
        self.reason.clone()
    }
    /// Whether the reason already quotes `line` (or its beginning, when it was shortened).
    pub(super) fn quotes(&self, line: &str) -> bool {
        let start: String = line.trim().chars().take(60).collect();
        !start.is_empty() && self.reason.contains(&start)
    }
    /// Where in the turn it failed, in words (never the state file's sub-step names).
    pub(super) fn sub_step_name(&self) -> &'static str {
        match self.sub_step {
            SubStep::Dispatch => "while the runner worked",
            _ => "reading the runner's answer",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_lines_are_kept_sanitised() {
        let tail = b"one\ntwo\n\nthree\nfour\nfive\nsix \x1b[31mred\x1b[0m\n";
        assert_eq!(
            stderr_lines(tail, false),
            vec!["two", "three", "four", "five", "six red"]
        );
    }

    #[test]
    fn a_line_cut_by_the_capture_is_dropped() {
        assert_eq!(stderr_lines(b"ut line\nwhole\n", true), vec!["whole"]);
        assert_eq!(stderr_lines(b"only\n", true), vec!["only"]);
    }

    #[test]
    fn long_lines_are_shortened() {
        let long = "x".repeat(1000);
        let lines = stderr_lines(long.as_bytes(), false);
        assert_eq!(lines[0].chars().count(), LINE_MAX);
        assert!(lines[0].ends_with('…'));
    }

    #[test]
    fn a_first_failure_shows_the_stderr_tail() {
        let text = attempt_failed(
            1,
            1,
            4,
            "the runner exited with status 2",
            &["can't open file 'my_runner.py'".into()],
            false,
        );
        assert_eq!(
            text,
            "Turn 1 failed (attempt 1 of 4): the runner exited with status 2\n  \
             the runner's last lines on stderr:\n    can't open file 'my_runner.py'"
        );
    }

    #[test]
    fn a_repeated_failure_is_one_line() {
        let text = attempt_failed(1, 2, 4, "x", &["y".into()], true);
        assert_eq!(text, "Turn 1 failed again the same way (attempt 2 of 4).");
    }

    #[test]
    fn identical_failures_are_summarised() {
        let text = exhausted(
            1,
            4,
            true,
            "the runner exited with status 2",
            Path::new(".interview/sessions/s/turns/001/runner.log"),
            &[],
            None,
            None,
        );
        assert_eq!(
            text,
            "the runner failed 4 times the same way at turn 1: the runner exited with status 2\n  \
             its log: .interview/sessions/s/turns/001/runner.log"
        );
        let text = exhausted(1, 4, false, "r", Path::new("l"), &[], None, None);
        assert!(text.starts_with("the runner failed 4 times in a row at turn 1; last failure: r"));
    }

    #[test]
    fn failures_a_retry_cannot_fix_are_told_from_transient_ones() {
        let permanent = [
            "the runner exited with status 1: API Error: 400 {\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"prompt is too long: 210000 tokens > 200000 maximum\"}}",
            "the runner exited with status 1: API Error: 401 authentication_error",
            "the runner exited with status 1: HTTP status 403 Forbidden",
            "the runner exited with status 1: connect ECONNREFUSED 127.0.0.1:443",
        ];
        for reason in permanent {
            assert!(not_fixable_by_retry(reason, &[]).is_some(), "{reason}");
        }
        let transient = [
            "the runner did not finish within 600 s and was stopped",
            "the runner was killed by signal 9",
            "the runner exited with status 1: API Error: 529 overloaded_error",
            "the runner exited with status 1: API Error: 429 rate_limit_error",
            "the runner exited with status 1: API Error: 500 internal server error",
            "the runner exited with status 2",
        ];
        for reason in transient {
            assert_eq!(not_fixable_by_retry(reason, &[]), None, "{reason}");
        }
        // What the runner said on stderr counts as much as the reason.
        assert!(
            not_fixable_by_retry(
                "the runner exited with status 1",
                &["Prompt is too long".into()]
            )
            .is_some()
        );
    }

    #[test]
    fn a_single_failure_is_counted() {
        let text = exhausted(
            1,
            1,
            true,
            "r",
            Path::new("l"),
            &[],
            Some("the connection was refused"),
            None,
        );
        assert!(text.starts_with("the runner failed 1 time at turn 1: r\n  not retried: the connection was refused, which a retry cannot fix"), "{text}");
    }

    #[test]
    fn a_missing_program_points_to_interview_runners() {
        let e = std::io::Error::from(std::io::ErrorKind::NotFound);
        let text = cannot_start("claude", &e);
        assert!(text.contains("no such program"), "{text}");
        assert!(text.contains("`interview runners`"), "{text}");
    }
}
