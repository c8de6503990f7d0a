//! The person at a terminal: prompts go to standard output, lines come from standard input.
//!
//! Signal handlers use `SA_RESTART`, so a blocking read would never return on Ctrl+C. A prompt
//! therefore polls its input in 100 ms steps and gives up with [`AskError::Interrupted`] as soon
//! as `crate::signals::count()` has grown since the prompt was shown. Input is read unbuffered
//! by std (our own buffer), so a line already read but not yet used is never hidden from `poll`.

use std::io::Write;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::Mutex;

use nix::errno::Errno;
use nix::poll::{PollFd, PollFlags, poll};

use crate::ask::style::Style;
use crate::ask::{AskError, Decision, Person, render};
use crate::receipt::Question;

const POLL_MS: u16 = 100;

/// The terminal that controls this process (`/dev/tty`), opened to ask on: for a run whose
/// standard input carries the work item. Never made the controlling terminal by opening it.
pub(crate) fn controlling_terminal() -> std::io::Result<std::fs::File> {
    use std::io::IsTerminal;
    use std::os::unix::fs::OpenOptionsExt;
    let tty = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(nix::libc::O_NOCTTY)
        .open("/dev/tty")?;
    if !tty.is_terminal() {
        return Err(std::io::Error::other("/dev/tty is not a terminal"));
    }
    Ok(tty)
}

/// Bytes read from an input but not yet handed out as lines.
#[derive(Debug, Default)]
pub(crate) struct LineReader {
    buf: Vec<u8>,
    eof: bool,
}

/// Standard input's reader: one per process, so bytes read ahead survive between prompts.
static STDIN: Mutex<LineReader> = Mutex::new(LineReader {
    buf: Vec::new(),
    eof: false,
});

impl LineReader {
    /// The next line of `fd` without its line ending. Waits in poll steps; returns
    /// `Interrupted` once `crate::signals::count()` differs from `base`, `Closed` at end of
    /// input (a last line without newline is still returned first).
    pub(crate) fn next_line(
        &mut self,
        fd: BorrowedFd<'_>,
        base: usize,
    ) -> Result<String, AskError> {
        loop {
            if crate::signals::count() != base {
                return Err(AskError::Interrupted);
            }
            if let Some(pos) = self.buf.iter().position(|b| *b == b'\n') {
                let mut line: Vec<u8> = self.buf.drain(..=pos).collect();
                line.pop();
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                return Ok(String::from_utf8_lossy(&line).into_owned());
            }
            if self.eof {
                if self.buf.is_empty() {
                    return Err(AskError::Closed);
                }
                let line = std::mem::take(&mut self.buf);
                return Ok(String::from_utf8_lossy(&line).into_owned());
            }
            let mut fds = [PollFd::new(fd, PollFlags::POLLIN)];
            match poll(&mut fds, POLL_MS) {
                Ok(0) | Err(Errno::EINTR) => continue,
                Ok(_) => {}
                Err(e) => return Err(AskError::Io(e.into())),
            }
            let mut chunk = [0u8; 4096];
            match nix::unistd::read(fd, &mut chunk) {
                Ok(0) => self.eof = true,
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                Err(Errno::EINTR) | Err(Errno::EAGAIN) => {}
                // A terminal that went away (hang-up) reads as end of input.
                Err(Errno::EIO) => self.eof = true,
                Err(e) => return Err(AskError::Io(e.into())),
            }
        }
    }
}

enum Input {
    Stdin,
    Fd(OwnedFd, LineReader),
}

/// Standard output written one whole prompt at a time. `std::io::Stdout` is line-buffered: a
/// prompt reached the terminal in two writes (up to its last newline, then "> "), and a key
/// typed as the question appeared was echoed between them — the cursor was left after a "> "
/// on a line of its own, and the next progress line was drawn from there and wrapped.
struct WholeWrites<W: Write> {
    inner: W,
    pending: Vec<u8>,
}

impl WholeWrites<Box<dyn Write>> {
    /// Standard output's descriptor written directly (a duplicate of it, after what std still
    /// buffers is flushed); std's own stdout where it cannot be duplicated.
    fn stdout() -> WholeWrites<Box<dyn Write>> {
        let stdout = std::io::stdout();
        let inner: Box<dyn Write> = match stdout.as_fd().try_clone_to_owned() {
            Ok(fd) => Box::new(std::fs::File::from(fd)),
            Err(_) => Box::new(stdout),
        };
        WholeWrites::new(inner)
    }
}

impl<W: Write> WholeWrites<W> {
    fn new(inner: W) -> WholeWrites<W> {
        WholeWrites {
            inner,
            pending: Vec::new(),
        }
    }
}

impl<W: Write> Write for WholeWrites<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.pending.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        // What others printed through std's stdout goes first, in order.
        std::io::stdout().flush()?;
        let pending = std::mem::take(&mut self.pending);
        self.inner.write_all(&pending)?;
        self.inner.flush()
    }
}

/// A [`Person`] at a terminal.
pub(crate) struct TerminalPerson {
    style: Style,
    out: Box<dyn Write>,
    input: Input,
    /// The signal count already turned into an `Interrupted`.
    acted_on: usize,
}

impl TerminalPerson {
    /// Prompts on standard output, lines from standard input.
    pub(crate) fn new(style: Style) -> TerminalPerson {
        TerminalPerson {
            style,
            out: Box::new(WholeWrites::stdout()),
            input: Input::Stdin,
            acted_on: crate::signals::count(),
        }
    }

    /// Prompts to `out`, lines from `input` (the same waiting and interrupt rules apply).
    pub(crate) fn with_io(style: Style, out: Box<dyn Write>, input: OwnedFd) -> TerminalPerson {
        TerminalPerson {
            style,
            out,
            input: Input::Fd(input, LineReader::default()),
            acted_on: crate::signals::count(),
        }
    }

    fn show(&mut self, text: &str) -> Result<(), AskError> {
        self.out
            .write_all(text.as_bytes())
            .and_then(|()| self.out.flush())
            .map_err(|e| {
                AskError::Io(std::io::Error::new(
                    e.kind(),
                    format!("writing a prompt to the terminal: {e}"),
                ))
            })
    }

    /// Show `prompt`, then wait for one line. An interrupting signal not yet acted on wins over
    /// any line: one that arrived between two prompts (while an answer was being saved, or as
    /// the prompt appeared) is never lost.
    fn prompt(&mut self, prompt: &str) -> Result<String, AskError> {
        let base = self.acted_on;
        self.flush_pending();
        self.show(prompt)?;
        let line = match &mut self.input {
            Input::Fd(fd, reader) => reader.next_line(fd.as_fd(), base),
            Input::Stdin => {
                let mut reader = STDIN.lock().unwrap_or_else(|p| p.into_inner());
                reader.next_line(std::io::stdin().as_fd(), base)
            }
        };
        if matches!(line, Err(AskError::Interrupted)) {
            self.acted_on = crate::signals::count();
        }
        if matches!(line, Err(AskError::Interrupted) | Err(AskError::Closed)) {
            // The cursor is still on the prompt line: end it so what follows starts clean.
            let _ = self.show("\n");
        }
        line
    }
}

impl TerminalPerson {
    /// Drop keys already queued on the terminal (typed ahead, or injected with TIOCSTI by
    /// someone else) before a prompt appears: only what is typed once it is shown answers it.
    fn flush_pending(&self) {
        let stdin = std::io::stdin();
        let fd = match &self.input {
            Input::Fd(fd, _) => fd.as_fd(),
            Input::Stdin => stdin.as_fd(),
        };
        if nix::unistd::isatty(fd).unwrap_or(false) {
            let _ = nix::sys::termios::tcflush(fd, nix::sys::termios::FlushArg::TCIFLUSH);
        }
    }
}

use crate::ask::style::terminal_width;

/// Shown where the person types.
const PROMPT: &str = "> ";

impl Person for TerminalPerson {
    fn gate(&mut self, count: usize) -> Result<String, AskError> {
        self.prompt(&format!(
            "\n{}{PROMPT}",
            render::gate(count, terminal_width())
        ))
    }

    fn intro(&mut self, total: usize) {
        let _ = self.show(&format!("\n{}", render::intro(total, terminal_width())));
    }

    fn question(
        &mut self,
        index: usize,
        total: usize,
        time_label: &str,
        question: &Question,
    ) -> Result<String, AskError> {
        let text = render::question(
            &self.style,
            index,
            total,
            time_label,
            question,
            terminal_width(),
        );
        self.prompt(&format!("\n{text}{PROMPT}"))
    }

    fn decide(&mut self, decision: &Decision) -> Result<String, AskError> {
        let bell = if self.style.bell { "\x07" } else { "" };
        let text = render::decision(&self.style, decision, terminal_width());
        self.prompt(&format!("{bell}\n{text}"))
    }

    fn say(&mut self, text: &str) {
        let _ = self.show(&format!("{text}\n"));
    }

    fn replayed(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::rc::Rc;

    #[derive(Clone, Default)]
    struct Screen(Rc<RefCell<Vec<u8>>>);

    impl Write for Screen {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.borrow_mut().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Screen {
        fn text(&self) -> String {
            String::from_utf8_lossy(&self.0.borrow()).into_owned()
        }
    }

    /// A person reading from a real pipe that holds `input` and is then closed.
    fn person(input: &[u8], style: Style) -> (TerminalPerson, Screen) {
        let (rd, wr) = nix::unistd::pipe().unwrap();
        let mut w = std::fs::File::from(wr);
        w.write_all(input).unwrap();
        drop(w);
        let screen = Screen::default();
        (
            TerminalPerson::with_io(style, Box::new(screen.clone()), rd),
            screen,
        )
    }

    #[test]
    fn lines_are_returned_without_their_line_ending() {
        let (mut p, _) = person(b"yes\r\n  two  \n", Style::PLAIN);
        assert_eq!(p.gate(1).unwrap(), "yes");
        assert_eq!(p.gate(1).unwrap(), "  two  ");
    }

    #[test]
    fn a_last_line_without_newline_is_still_read() {
        let (mut p, _) = person(b"last", Style::PLAIN);
        assert_eq!(p.gate(1).unwrap(), "last");
    }

    #[test]
    fn end_of_input_is_closed() {
        let (mut p, _) = person(b"", Style::PLAIN);
        assert!(matches!(p.gate(1), Err(AskError::Closed)));
        assert!(matches!(p.gate(1), Err(AskError::Closed)));
    }

    #[test]
    fn invalid_utf8_is_read_lossily_not_rejected() {
        let (mut p, _) = person(b"a\xffb\n", Style::PLAIN);
        assert_eq!(p.gate(1).unwrap(), "a\u{fffd}b");
    }

    #[test]
    fn a_line_arriving_later_is_waited_for() {
        let (rd, wr) = nix::unistd::pipe().unwrap();
        let writer = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(250));
            let mut w = std::fs::File::from(wr);
            w.write_all(b"late\n").unwrap();
        });
        let mut p = TerminalPerson::with_io(Style::PLAIN, Box::new(Screen::default()), rd);
        assert_eq!(p.gate(1).unwrap(), "late");
        writer.join().unwrap();
    }

    /// Every write call the terminal receives, as it received it.
    #[derive(Clone, Default)]
    struct Calls(Rc<RefCell<Vec<Vec<u8>>>>);

    impl Write for Calls {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.borrow_mut().push(buf.to_vec());
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_prompt_reaches_the_terminal_in_one_write() {
        let question = "Which one?\n  1. a\n  2. b\n> ";
        // What std's line-buffered stdout does: two writes, a key's echo can come between.
        let line_buffered = Calls::default();
        let mut out = std::io::LineWriter::new(line_buffered.clone());
        out.write_all(question.as_bytes()).unwrap();
        out.flush().unwrap();
        assert_eq!(line_buffered.0.borrow().len(), 2);

        let calls = Calls::default();
        let (rd, wr) = nix::unistd::pipe().unwrap();
        std::fs::File::from(wr).write_all(b"1\n").unwrap();
        let mut p =
            TerminalPerson::with_io(Style::PLAIN, Box::new(WholeWrites::new(calls.clone())), rd);
        p.show(question).unwrap();
        assert_eq!(*calls.0.borrow(), vec![question.as_bytes().to_vec()]);
        assert_eq!(p.gate(1).unwrap(), "1");
        let gate = calls.0.borrow().last().cloned().unwrap();
        assert!(String::from_utf8_lossy(&gate).ends_with("> "));
        assert_eq!(calls.0.borrow().len(), 2, "the gate in one write too");
    }

    #[test]
    fn gate_prints_the_gate_then_a_prompt() {
        let (mut p, screen) = person(b"\n", Style::PLAIN);
        p.gate(2).unwrap();
        let text = screen.text();
        assert!(text.contains(&render::gate(2, terminal_width())));
        assert!(text.ends_with("> "));
    }

    fn decision() -> Decision {
        Decision {
            id: crate::ask::DecisionId::Guard,
            context: "c".into(),
            options: vec!["a".into(), "b".into()],
            recommended: 0,
            reason: "r".into(),
        }
    }

    #[test]
    fn bell_rings_before_a_decision_box_when_enabled() {
        let style = Style {
            bold: false,
            bell: true,
        };
        let (mut p, screen) = person(b"a\n", style);
        p.decide(&decision()).unwrap();
        assert!(screen.text().starts_with("\x07\n══"));
    }

    #[test]
    fn no_bell_without_the_bell_setting() {
        let (mut p, screen) = person(b"a\n", Style::PLAIN);
        p.decide(&decision()).unwrap();
        assert!(!screen.text().contains('\x07'));
    }
}
