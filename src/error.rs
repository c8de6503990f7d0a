//! The one error type of the tool and the one place that maps outcomes to exit codes.

use std::path::PathBuf;

/// Exit codes, as the README and docs/ci.md list them.
pub mod code {
    pub const DONE: i32 = 0;
    pub const ERROR: i32 = 1;
    pub const USAGE: i32 = 2;
    pub const GUARD: i32 = 3;
    pub const RUNNER_FAILED: i32 = 4;
    pub const MISSING_ANSWER: i32 = 5;
    pub const CIRCUIT_OPEN: i32 = 6;
    /// `--check`: the replayed document differs from the committed one.
    pub const CHECK_DIFFERS: i32 = 7;
    pub const INTERRUPTED: i32 = 130;
    /// The reader of standard output went away while a document was printed (the session is
    /// left to resume): 128 + SIGPIPE, as if killed by it. A command that only prints ends 0.
    pub const CLOSED_OUTPUT: i32 = 141;
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    Usage(String),
    #[error("{path}: {message}")]
    Config { path: PathBuf, message: String },
    #[error("{0}")]
    Repo(String),
    #[error("{0}")]
    Subject(String),
    #[error("{what}: {source}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
    #[error("the change guard stopped the interview: the runner changed the repository\n{report}")]
    GuardViolation { report: String },
    /// `interview guard -- CMD`: the command (not a runner) changed the repository.
    #[error("the change guard: the command changed the repository\n{report}")]
    CommandChanged { report: String },
    #[error("{0}")]
    Guard(String),
    /// The runner failed its turn with the retries used up; `message` says how, where its log
    /// is and what it last wrote to stderr.
    #[error("{message}")]
    RunnerFailed {
        turn: u32,
        attempts: u32,
        message: String,
    },
    #[error("{message}")]
    MissingAnswer { message: String },
    #[error("{0}")]
    CircuitOpen(String),
    #[error("interrupted{}", .session.as_ref().map(|s| format!("; the session is saved: continue with `interview resume {s}`")).unwrap_or_default())]
    Interrupted { session: Option<String> },
    /// A signal arrived while the guard took a snapshot (it may have been stuck on a read).
    #[error("interrupted while taking a snapshot of the repository")]
    SnapshotInterrupted,
    #[error("{0}")]
    State(String),
    /// Another run holds the worktree's lock.
    #[error("{0}")]
    Busy(String),
    /// The reader of standard output went away (EPIPE): the tool ends quietly.
    #[error("standard output was closed")]
    ClosedOutput,
    /// `--sandbox require` where the sandbox cannot be had.
    #[error("{0}")]
    Sandbox(String),
    #[error("{0}")]
    Other(String),
}

impl Error {
    /// The exit code for this error: the single place that decides it.
    pub fn code(&self) -> i32 {
        match self {
            Error::Usage(_) => code::USAGE,
            Error::GuardViolation { .. } | Error::CommandChanged { .. } => code::GUARD,
            Error::RunnerFailed { .. } => code::RUNNER_FAILED,
            Error::MissingAnswer { .. } => code::MISSING_ANSWER,
            Error::CircuitOpen(_) => code::CIRCUIT_OPEN,
            Error::Interrupted { .. } | Error::SnapshotInterrupted => code::INTERRUPTED,
            Error::Config { .. }
            | Error::Repo(_)
            | Error::Subject(_)
            | Error::Io { .. }
            | Error::Guard(_)
            | Error::State(_)
            | Error::Busy(_)
            | Error::Sandbox(_)
            | Error::Other(_) => code::ERROR,
            Error::ClosedOutput => code::CLOSED_OUTPUT,
        }
    }

    pub fn io(what: impl Into<String>, source: std::io::Error) -> Self {
        Error::Io {
            what: what.into(),
            source,
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
