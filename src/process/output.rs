//! A child's piped output: read on threads while it runs, so a full pipe never stalls it, and
//! handed to a [`Sink`] that decides what to keep.

use std::io::Read;
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::Output;

/// Which of the child's streams a chunk came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stream {
    Stdout,
    Stderr,
}

/// Where piped output goes, chunk by chunk, in the order it is read.
pub(crate) trait Sink: Send + 'static {
    fn push(&mut self, stream: Stream, bytes: &[u8]);
}

/// Told each complete line of one stream while the child runs (without its line break), on
/// the thread that reads that stream, after the sink got the bytes. A line longer than
/// [`LINE_CAP`] is not told at all, nor anything read after the sink was taken.
pub(crate) type LineObserver = Box<dyn FnMut(&[u8]) + Send>;

/// The longest line an observer is told, in bytes.
pub(super) const LINE_CAP: usize = 256 * 1024;

/// Cuts a stream into lines for an observer, holding at most [`LINE_CAP`] bytes.
struct Lines {
    observer: LineObserver,
    partial: Vec<u8>,
    /// The line being read is past the cap: drop it up to its end.
    overlong: bool,
}

impl Lines {
    fn new(observer: LineObserver) -> Lines {
        Lines {
            observer,
            partial: Vec::new(),
            overlong: false,
        }
    }

    fn feed(&mut self, mut bytes: &[u8]) {
        while let Some(end) = bytes.iter().position(|&b| b == b'\n') {
            let (line, rest) = (&bytes[..end], &bytes[end + 1..]);
            if !self.overlong && self.partial.len() + line.len() <= LINE_CAP {
                if self.partial.is_empty() {
                    (self.observer)(line);
                } else {
                    self.partial.extend_from_slice(line);
                    (self.observer)(&self.partial);
                }
            }
            self.partial.clear();
            self.overlong = false;
            bytes = rest;
        }
        if self.overlong {
            return;
        }
        if self.partial.len() + bytes.len() > LINE_CAP {
            self.partial = Vec::new();
            self.overlong = true;
        } else {
            self.partial.extend_from_slice(bytes);
        }
    }

    /// The stream ended: a last line without a line break is a line too.
    fn end(&mut self) {
        if !self.overlong && !self.partial.is_empty() {
            (self.observer)(&self.partial);
        }
        self.partial = Vec::new();
    }
}

/// Stdout and stderr kept apart, each up to its cap; the rest is read and dropped.
#[derive(Debug, Default)]
pub(crate) struct Capture {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    stdout_cap: usize,
    stderr_cap: usize,
    /// Bytes read past the caps.
    pub dropped: u64,
}

impl Capture {
    pub(crate) fn new(stdout_cap: usize, stderr_cap: usize) -> Capture {
        Capture {
            stdout_cap,
            stderr_cap,
            ..Capture::default()
        }
    }

    /// True when something was dropped at a cap.
    pub(crate) fn truncated(&self) -> bool {
        self.dropped > 0
    }
}

impl Sink for Capture {
    fn push(&mut self, stream: Stream, bytes: &[u8]) {
        let (buf, cap) = match stream {
            Stream::Stdout => (&mut self.stdout, self.stdout_cap),
            Stream::Stderr => (&mut self.stderr, self.stderr_cap),
        };
        let take = bytes.len().min(cap.saturating_sub(buf.len()));
        buf.extend_from_slice(&bytes[..take]);
        self.dropped += (bytes.len() - take) as u64;
    }
}

pub(super) fn stdio(output: Output) -> std::io::Result<Stdio> {
    Ok(match output {
        Output::Null => Stdio::null(),
        Output::Inherit => Stdio::inherit(),
        Output::Pipe => Stdio::piped(),
        Output::ToStderr => {
            use std::os::fd::AsFd;
            Stdio::from(std::io::stderr().as_fd().try_clone_to_owned()?)
        }
    })
}

/// The reader threads of one child and the sink they share.
pub(super) struct Readers<S> {
    sink: Arc<Mutex<Option<S>>>,
    done: mpsc::Receiver<()>,
    running: usize,
}

impl<S: Sink> Readers<S> {
    /// Read the child's piped streams into `sink`; `observer` is told the lines of its stream.
    pub(super) fn start(
        child: &mut Child,
        sink: S,
        mut observer: Option<(Stream, LineObserver)>,
    ) -> Readers<S> {
        let sink = Arc::new(Mutex::new(Some(sink)));
        let (tx, done) = mpsc::channel();
        let mut running = 0;
        let mut lines_of = |stream: Stream| match observer.take() {
            Some((s, o)) if s == stream => Some(Lines::new(o)),
            other => {
                observer = other;
                None
            }
        };
        if let Some(out) = child.stdout.take() {
            running += 1;
            let lines = lines_of(Stream::Stdout);
            read_into(out, Stream::Stdout, sink.clone(), tx.clone(), lines);
        }
        if let Some(err) = child.stderr.take() {
            running += 1;
            let lines = lines_of(Stream::Stderr);
            read_into(err, Stream::Stderr, sink.clone(), tx.clone(), lines);
        }
        Readers {
            sink,
            done,
            running,
        }
    }

    /// Wait up to `patience` for both pipes to close, then take the sink; `false` when a pipe
    /// was still open (held by a process outside the child's group).
    pub(super) fn finish(self, patience: Duration) -> std::io::Result<(S, bool)> {
        let deadline = Instant::now() + patience;
        let mut left = self.running;
        while left > 0 {
            let wait = deadline.saturating_duration_since(Instant::now());
            match self.done.recv_timeout(wait) {
                Ok(()) => left -= 1,
                Err(_) => break,
            }
        }
        let sink = self
            .sink
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
            .ok_or_else(|| std::io::Error::other("the output was already taken"))?;
        Ok((sink, left == 0))
    }
}

fn read_into<S: Sink>(
    mut source: impl Read + Send + 'static,
    stream: Stream,
    sink: Arc<Mutex<Option<S>>>,
    done: mpsc::Sender<()>,
    mut lines: Option<Lines>,
) {
    std::thread::spawn(move || {
        let mut buf = [0u8; 8192];
        loop {
            match source.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    let mut guard = sink.lock().unwrap_or_else(|p| p.into_inner());
                    match guard.as_mut() {
                        Some(s) => s.push(stream, &buf[..n]),
                        // Given up on: keep draining so the writer never blocks (and tell the
                        // observer nothing more: its child's run is over).
                        None => continue,
                    }
                    // Outside the lock: an observer that is slow (it may draw on a terminal)
                    // never holds up the other stream's reader.
                    drop(guard);
                    if let Some(lines) = lines.as_mut() {
                        lines.feed(&buf[..n]);
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            }
        }
        if let Some(lines) = lines.as_mut() {
            let live = sink.lock().unwrap_or_else(|p| p.into_inner()).is_some();
            if live {
                lines.end();
            }
        }
        let _ = done.send(());
    });
}
