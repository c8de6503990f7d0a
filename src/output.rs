//! What the tool prints to standard output and standard error. A reader that went away (EPIPE,
//! `interview status | head -1`) ends the tool quietly with [`Error::ClosedOutput`] instead of
//! a panic; standard error is best effort (docs/sessions.md, "Exit codes").

use std::io::Write;

use crate::error::{Error, Result};

/// Print `text` to standard output and flush it.
pub(crate) fn stdout(text: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|_| out.flush())
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::BrokenPipe => Error::ClosedOutput,
            _ => Error::io("cannot write to standard output", e),
        })
}

/// Print `text` and a newline to standard output.
pub(crate) fn stdout_line(text: &str) -> Result<()> {
    stdout(&format!("{text}\n"))
}

/// Print `text` and a newline to standard error; a closed standard error is ignored.
pub(crate) fn stderr_line(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = err
        .write_all(format!("{text}\n").as_bytes())
        .and_then(|_| err.flush());
}

/// Print a note for the person to standard error: at a terminal wrapped between words to its
/// width (the lines after the first indented two spaces; only a word longer than a whole line is
/// cut), elsewhere one line as it is, so a log keeps it whole and searchable. A closed standard
/// error is ignored.
pub(crate) fn stderr_note(text: &str) {
    let term = console::Term::stderr();
    match term.size_checked() {
        Some((_, cols)) if term.is_term() && cols > 0 => {
            let options = textwrap::Options::new(usize::from(cols))
                .subsequent_indent("  ")
                .word_splitter(textwrap::WordSplitter::NoHyphenation);
            stderr_line(&textwrap::wrap(text, options).join("\n"));
        }
        _ => stderr_line(text),
    }
}

/// Print `text` to standard error as it is; a closed standard error is ignored.
pub(crate) fn stderr(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(text.as_bytes()).and_then(|_| err.flush());
}
