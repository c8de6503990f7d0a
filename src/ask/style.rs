//! How prompts look at this terminal: bold text and the bell, decided once from `--color`,
//! `--no-bell`, `NO_COLOR` and whether standard output is a terminal.

use std::ffi::OsStr;
use std::io::IsTerminal;

/// When to use colour and bold text (`--color`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// Resolved presentation settings for the person's side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Style {
    /// Use bold (ANSI SGR) for the progress header, the question and the decision box.
    pub bold: bool,
    /// Ring the terminal bell (`\x07`) before a decision box.
    pub bell: bool,
}

impl Style {
    /// Plain text, no bell: for files, pipes and tests.
    pub(crate) const PLAIN: Style = Style {
        bold: false,
        bell: false,
    };

    /// Resolve from the command line and this process's standard output and environment.
    pub(crate) fn resolve(color: ColorChoice, no_bell: bool) -> Style {
        let no_color = std::env::var_os("NO_COLOR");
        let term = std::env::var_os("TERM");
        Style::decide(
            color,
            no_bell,
            std::io::stdout().is_terminal(),
            term.as_deref(),
            no_color.as_deref(),
        )
    }

    /// The rule itself: `auto` styles only a terminal whose `TERM` is set and not `dumb`, and
    /// only while `NO_COLOR` is unset or empty; `always` is the person's explicit wish and
    /// overrides all three (the NO_COLOR convention); `never` never styles. The bell rings only
    /// at a terminal and without `--no-bell` (or `bell = false`).
    pub(crate) fn decide(
        color: ColorChoice,
        no_bell: bool,
        stdout_is_terminal: bool,
        term: Option<&OsStr>,
        no_color: Option<&OsStr>,
    ) -> Style {
        let no_color_set = no_color.is_some_and(|v| !v.is_empty());
        let capable = term.is_some_and(|t| !t.is_empty() && t != "dumb");
        let bold = match color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => stdout_is_terminal && capable && !no_color_set,
        };
        Style {
            bold,
            bell: stdout_is_terminal && !no_bell,
        }
    }

    /// `text` in bold when styling is on.
    pub(crate) fn bold(&self, text: &str) -> String {
        if self.bold {
            format!("\x1b[1m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
}

/// How many columns the text for the person is wrapped to: the width of the terminal standard
/// output is, else `COLUMNS` when it is a number, else 80.
pub(crate) fn terminal_width() -> usize {
    width_from(
        console::Term::stdout().size_checked().map(|(_, cols)| cols),
        std::env::var("COLUMNS").ok().as_deref(),
    )
}

/// The rule of [`terminal_width`]: a terminal's own width wins over `COLUMNS`.
pub(crate) fn width_from(terminal_cols: Option<u16>, columns: Option<&str>) -> usize {
    match terminal_cols {
        Some(cols) if cols > 0 => usize::from(cols),
        _ => columns
            .and_then(|c| c.trim().parse::<usize>().ok())
            .filter(|&c| c > 0)
            .unwrap_or(80),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(s: &str) -> Option<&OsStr> {
        Some(OsStr::new(s))
    }

    #[test]
    fn auto_does_not_style_a_dumb_or_unknown_terminal() {
        for term in [os("dumb"), os(""), None] {
            assert!(!Style::decide(ColorChoice::Auto, false, true, term, None).bold);
        }
        assert!(Style::decide(ColorChoice::Always, false, true, os("dumb"), None).bold);
    }

    #[test]
    fn auto_styles_a_terminal() {
        assert!(Style::decide(ColorChoice::Auto, false, true, os("xterm"), None).bold);
    }

    #[test]
    fn auto_does_not_style_a_pipe() {
        assert!(!Style::decide(ColorChoice::Auto, false, false, os("xterm"), None).bold);
    }

    #[test]
    fn no_color_set_turns_auto_styling_off() {
        assert!(!Style::decide(ColorChoice::Auto, false, true, os("xterm"), os("1")).bold);
    }

    #[test]
    fn empty_no_color_is_treated_as_unset() {
        assert!(Style::decide(ColorChoice::Auto, false, true, os("xterm"), os("")).bold);
    }

    #[test]
    fn color_always_overrides_no_color_and_pipes() {
        assert!(Style::decide(ColorChoice::Always, false, false, os("xterm"), os("1")).bold);
    }

    #[test]
    fn color_never_never_styles() {
        assert!(!Style::decide(ColorChoice::Never, false, true, os("xterm"), None).bold);
    }

    #[test]
    fn bell_rings_only_at_a_terminal() {
        assert!(Style::decide(ColorChoice::Auto, false, true, os("xterm"), None).bell);
        assert!(!Style::decide(ColorChoice::Auto, false, false, os("xterm"), None).bell);
    }

    #[test]
    fn no_bell_silences_the_bell() {
        assert!(!Style::decide(ColorChoice::Auto, true, true, os("xterm"), None).bell);
    }

    #[test]
    fn bold_wraps_in_sgr_only_when_styled() {
        assert_eq!(Style::PLAIN.bold("x"), "x");
        let s = Style {
            bold: true,
            bell: false,
        };
        assert_eq!(s.bold("x"), "\x1b[1mx\x1b[0m");
    }
}
