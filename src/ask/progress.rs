//! The progress line while a runner works: turn n of N, the runner's name, elapsed time and the
//! agent's current activity in a few words. Written to standard error, redrawn in place only at
//! a terminal, and gone before anything else is shown (docs/person.md).
//!
//! Not for: the question loop's own progress header (that is `render::question`).

use std::ffi::OsStr;
use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle, TermLike};

use crate::ask::ColorChoice;

/// How the progress line is shown, decided once per run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ProgressLook {
    /// Redrawn in place with the terminal's own escapes (a capable terminal, colour allowed).
    Live,
    /// Redrawn in place with carriage returns and spaces only: no escape byte is written
    /// (`TERM=dumb`, `NO_COLOR`, `--color never`).
    Plain,
    /// One plain line when a turn starts (standard error is not a terminal).
    Line,
    /// Nothing (`--verbose` streams the runner's own output instead).
    Off,
}

impl ProgressLook {
    /// Decide from the command line and this process's standard error and environment.
    pub(crate) fn resolve(color: ColorChoice, verbose: bool) -> ProgressLook {
        ProgressLook::decide(
            color,
            verbose,
            std::io::stderr().is_terminal(),
            std::env::var_os("TERM").as_deref(),
            std::env::var_os("NO_COLOR").as_deref(),
        )
    }

    /// The rule itself. Escapes are used only at a terminal whose `TERM` is set and not `dumb`,
    /// and only while colour is allowed: `NO_COLOR` (unless `--color always`) and
    /// `--color never` mean no escape byte at all.
    pub(crate) fn decide(
        color: ColorChoice,
        verbose: bool,
        stderr_is_terminal: bool,
        term: Option<&OsStr>,
        no_color: Option<&OsStr>,
    ) -> ProgressLook {
        if verbose {
            return ProgressLook::Off;
        }
        if !stderr_is_terminal {
            return ProgressLook::Line;
        }
        let capable = term.is_some_and(|t| !t.is_empty() && t != "dumb");
        let no_color_set = no_color.is_some_and(|v| !v.is_empty());
        let escapes = capable
            && match color {
                ColorChoice::Always => true,
                ColorChoice::Never => false,
                ColorChoice::Auto => !no_color_set,
            };
        if escapes {
            ProgressLook::Live
        } else {
            ProgressLook::Plain
        }
    }
}

/// How often the line is redrawn (the elapsed time and the spinner move).
const TICK: Duration = Duration::from_millis(250);

/// Longest activity text kept, in characters (the line is also cut to the terminal's width).
const ACTIVITY_MAX: usize = 80;

/// The progress line of one runner turn. Cleared when dropped, so no prompt, message or error
/// that follows the turn ever shares its line.
#[derive(Debug)]
pub(crate) struct Progress {
    /// The line while it is shown; shared with [`Progress::reporter`], emptied when dropped.
    bar: Arc<Mutex<Option<ProgressBar>>>,
}

impl Progress {
    /// Start showing "turn `turn` of `max_turns` · `runner` · elapsed" on standard error.
    /// `retry` counts the attempts before this one (0 for the first).
    pub(crate) fn start(
        look: ProgressLook,
        turn: u32,
        max_turns: u32,
        retry: u32,
        runner: &str,
    ) -> Progress {
        let runner = crate::receipt::sanitize_line(runner).0;
        let target = match look {
            ProgressLook::Off => return Progress::none(),
            ProgressLook::Line => {
                let _ = writeln!(
                    std::io::stderr(),
                    "{}: waiting for {runner}…",
                    turn_words(turn, max_turns, retry)
                );
                return Progress::none();
            }
            ProgressLook::Live => ProgressDrawTarget::stderr(),
            ProgressLook::Plain => ProgressDrawTarget::term_like(Box::new(PlainTerminal::new())),
        };
        let bar = Progress::bar(look, target, &turn_words(turn, max_turns, retry), &runner);
        Progress {
            bar: Arc::new(Mutex::new(Some(bar))),
        }
    }

    fn none() -> Progress {
        Progress {
            bar: Arc::new(Mutex::new(None)),
        }
    }

    /// What the runner is told to report its agent's activity through ("reading src/export.rs"):
    /// shown after the elapsed time while this line is shown, nothing once it is gone or when
    /// there is none. The text comes from the runner, so it is sanitised and kept short like
    /// any runner text. Callable from any thread.
    pub(crate) fn reporter(&self) -> impl Fn(&str) + Send + 'static {
        let bar = Arc::clone(&self.bar);
        move |text: &str| {
            if let Some(bar) = bar.lock().unwrap_or_else(|p| p.into_inner()).as_ref() {
                bar.set_message(activity_text(text));
            }
        }
    }

    /// A progress line drawn to `target` (for tests of the drawing itself).
    fn bar(
        look: ProgressLook,
        target: ProgressDrawTarget,
        turn: &str,
        runner: &str,
    ) -> ProgressBar {
        let ticks: &[&str] = match look {
            ProgressLook::Live => &["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏", "·"],
            _ => &["-", "\\", "|", "/", "·"],
        };
        let style = ProgressStyle::with_template(&template(turn, runner))
            .unwrap_or_else(|_| ProgressStyle::default_spinner())
            .tick_strings(ticks);
        let bar = ProgressBar::with_draw_target(None, target).with_style(style);
        bar.enable_steady_tick(TICK);
        bar
    }
}

/// "turn 2 of 5", and "(retry 1)" after a failed attempt.
fn turn_words(turn: u32, max_turns: u32, retry: u32) -> String {
    if retry == 0 {
        format!("turn {turn} of {max_turns}")
    } else {
        format!("turn {turn} of {max_turns} (retry {retry})")
    }
}

/// The line's indicatif template. Braces in the runner's name are not read as template keys.
fn template(turn: &str, runner: &str) -> String {
    let runner = runner.replace('{', "(").replace('}', ")");
    format!("{{spinner}} {turn} · {runner} · {{elapsed}}{{wide_msg}}")
}

impl Drop for Progress {
    fn drop(&mut self) {
        let bar = self.bar.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(bar) = bar {
            bar.finish_and_clear();
        }
    }
}

/// The activity as shown after the elapsed time: one sanitised line, at most
/// [`ACTIVITY_MAX`] characters, introduced by " · " (empty when there is nothing to say).
pub(crate) fn activity_text(text: &str) -> String {
    let clean = crate::receipt::sanitize_line(text).0;
    let words: Vec<&str> = clean.split_whitespace().collect();
    let one = words.join(" ");
    if one.is_empty() {
        return String::new();
    }
    let mut short: String = one.chars().take(ACTIVITY_MAX).collect();
    if one.chars().count() > ACTIVITY_MAX {
        short.pop();
        short.push('…');
    }
    format!(" · {short}")
}

/// Standard error as a terminal that knows no escapes: the line is redrawn with a carriage
/// return and cleared with spaces.
#[derive(Debug)]
struct PlainTerminal {
    width: u16,
}

impl PlainTerminal {
    fn new() -> PlainTerminal {
        let (_, cols) = console::Term::stderr().size();
        PlainTerminal {
            // One column short of the edge, so a terminal without pending wrap never wraps.
            width: cols.saturating_sub(1).max(20),
        }
    }
}

impl TermLike for PlainTerminal {
    fn width(&self) -> u16 {
        self.width
    }

    fn height(&self) -> u16 {
        1
    }

    // The line is a single line: there is nowhere to move but its start.
    fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
        self.write_str("\r")
    }

    fn write_line(&self, s: &str) -> std::io::Result<()> {
        self.write_str(&format!("{s}\n"))
    }

    fn write_str(&self, s: &str) -> std::io::Result<()> {
        std::io::stderr().write_all(s.as_bytes())
    }

    fn clear_line(&self) -> std::io::Result<()> {
        self.write_str(&format!("\r{}\r", " ".repeat(usize::from(self.width))))
    }

    fn flush(&self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(s: &str) -> Option<&OsStr> {
        Some(OsStr::new(s))
    }

    #[test]
    fn verbose_shows_no_progress_line() {
        let look = ProgressLook::decide(ColorChoice::Auto, true, true, os("xterm"), None);
        assert_eq!(look, ProgressLook::Off);
    }

    #[test]
    fn a_pipe_gets_one_plain_line() {
        let look = ProgressLook::decide(ColorChoice::Always, false, false, os("xterm"), None);
        assert_eq!(look, ProgressLook::Line);
    }

    #[test]
    fn a_capable_terminal_is_redrawn_with_escapes() {
        let look = ProgressLook::decide(ColorChoice::Auto, false, true, os("xterm"), None);
        assert_eq!(look, ProgressLook::Live);
    }

    #[test]
    fn dumb_or_unknown_terminals_get_no_escapes() {
        for term in [os("dumb"), os(""), None] {
            let look = ProgressLook::decide(ColorChoice::Always, false, true, term, None);
            assert_eq!(look, ProgressLook::Plain, "TERM={term:?}");
        }
    }

    #[test]
    fn no_color_and_color_never_mean_no_escapes() {
        let look = ProgressLook::decide(ColorChoice::Auto, false, true, os("xterm"), os("1"));
        assert_eq!(look, ProgressLook::Plain);
        let look = ProgressLook::decide(ColorChoice::Never, false, true, os("xterm"), None);
        assert_eq!(look, ProgressLook::Plain);
        let look = ProgressLook::decide(ColorChoice::Always, false, true, os("xterm"), os("1"));
        assert_eq!(look, ProgressLook::Live);
    }

    #[test]
    fn activity_is_sanitised_kept_on_one_line_and_short() {
        let text = activity_text("reading \x1b[2Jsrc/x.rs\n\tnow");
        assert_eq!(text, " · reading src/x.rs now");
        let long = activity_text(&"a".repeat(500));
        assert_eq!(long.chars().count(), " · ".chars().count() + ACTIVITY_MAX);
        assert!(long.ends_with('…'));
        assert_eq!(activity_text(" \n "), "");
    }

    #[test]
    fn activity_without_a_progress_line_does_nothing() {
        let progress = Progress::start(ProgressLook::Off, 1, 5, 0, "sh");
        progress.reporter()("reading src/x.rs");
        assert!(progress.bar.lock().unwrap().is_none());
    }

    #[test]
    fn activity_reported_after_the_line_is_gone_draws_nothing() {
        let bar = ProgressBar::hidden();
        let progress = Progress {
            bar: Arc::new(Mutex::new(Some(bar.clone()))),
        };
        let report = progress.reporter();
        report("reading a.rs");
        assert_eq!(bar.message(), " · reading a.rs");
        drop(progress);
        report("reading b.rs");
        assert_eq!(bar.message(), " · reading a.rs");
    }

    #[test]
    fn the_line_names_turn_runner_elapsed_and_activity() {
        assert_eq!(
            template(&turn_words(2, 5, 0), "claude"),
            "{spinner} turn 2 of 5 · claude · {elapsed}{wide_msg}"
        );
        assert_eq!(turn_words(2, 5, 1), "turn 2 of 5 (retry 1)");
    }

    #[test]
    fn braces_in_a_runner_name_are_not_template_keys() {
        assert_eq!(
            template("turn 1 of 5", "sh {elapsed}"),
            "{spinner} turn 1 of 5 · sh (elapsed) · {elapsed}{wide_msg}"
        );
    }
}
