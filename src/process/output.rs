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
pub enum Stream {
    Stdout,
    Stderr,
}

/// Where piped output goes, chunk by chunk, in the order it is read.
pub trait Sink: Send + 'static {
    fn push(&mut self, stream: Stream, bytes: &[u8]);
}

/// Stdout and stderr kept apart, each up to its cap; the rest is read and dropped.
#[derive(Debug, Default)]
pub struct Capture {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    stdout_cap: usize,
    stderr_cap: usize,
    /// Bytes read past the caps.
    pub dropped: u64,
}

impl Capture {
    pub fn new(stdout_cap: usize, stderr_cap: usize) -> Capture {
        Capture {
            stdout_cap,
            stderr_cap,
            ..Capture::default()
        }
    }

    /// True when something was dropped at a cap.
    pub fn truncated(&self) -> bool {
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
    pub(super) fn start(child: &mut Child, sink: S) -> Readers<S> {
        let sink = Arc::new(Mutex::new(Some(sink)));
        let (tx, done) = mpsc::channel();
        let mut running = 0;
        if let Some(out) = child.stdout.take() {
            running += 1;
            read_into(out, Stream::Stdout, sink.clone(), tx.clone());
        }
        if let Some(err) = child.stderr.take() {
            running += 1;
            read_into(err, Stream::Stderr, sink.clone(), tx.clone());
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
                        // Given up on: keep draining so the writer never blocks.
                        None => continue,
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            }
        }
        let _ = done.send(());
    });
}
