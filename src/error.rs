//! The one error type of the tool and the one place that maps outcomes to exit codes.
//!
//! Each variant names what failed; its `Display` is the message the person reads. A module with
//! its own error type (the guard, the person's side, input files, JSON) is kept as the source,
//! not flattened to text: boxed, since this module sits below all others and names none.

use std::path::PathBuf;

/// A lower module's own error (`GuardError`, `AskError`, `InputError`), kept whole as a source.
pub(crate) type Source = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Exit codes, as the README and docs/ci.md list them.
pub(crate) mod code {
    pub(crate) const DONE: i32 = 0;
    pub(crate) const ERROR: i32 = 1;
    pub(crate) const USAGE: i32 = 2;
    pub(crate) const GUARD: i32 = 3;
    pub(crate) const RUNNER_FAILED: i32 = 4;
    pub(crate) const MISSING_ANSWER: i32 = 5;
    pub(crate) const CIRCUIT_OPEN: i32 = 6;
    /// `--check`: the replayed document differs from the committed one.
    pub(crate) const CHECK_DIFFERS: i32 = 7;
    pub(crate) const INTERRUPTED: i32 = 130;
    /// The reader of standard output went away while a document was printed (the session is
    /// left to resume): 128 + SIGPIPE, as if killed by it. A command that only prints ends 0.
    pub(crate) const CLOSED_OUTPUT: i32 = 141;
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
    /// The change guard could not do its work (snapshot, copies, restore).
    #[error(transparent)]
    Guard(Source),
    /// The same, at a named point of a session (`before turn 2`, `restore failed`).
    #[error("{when}: {source}")]
    GuardAt {
        when: String,
        #[source]
        source: Source,
    },
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
    /// A value of the tool's own could not be written as JSON; `what` says which.
    #[error("{what}: {source}")]
    Json {
        what: String,
        #[source]
        source: serde_json::Error,
    },
    /// A runner's brief could not be opened.
    #[error("cannot read the brief {}: {source}", .path.display())]
    BriefUnreadable {
        path: PathBuf,
        #[source]
        source: Source,
    },
    #[error("the brief context {} is larger than 32 MiB", .path.display())]
    BriefTooLarge { path: PathBuf },
    #[error("the brief context {} is not a valid brief.json: {source}", .path.display())]
    BriefInvalid {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    /// The model runner's conversation ended without a receipt; the text says why.
    #[error("{0}")]
    ModelTurn(String),
    /// The runner's program could not be started (not installed, not executable); `message`
    /// says so and what to do.
    #[error("{message}")]
    RunnerNotStarted {
        message: String,
        #[source]
        source: std::io::Error,
    },
    /// A worker thread gathering the subject's facts panicked; `0` says which worker.
    #[error("{0} stopped unexpectedly")]
    WorkerStopped(&'static str),
    /// Asking the person failed in a way they cannot fix (input closed, a bug in the loop).
    #[error(transparent)]
    Ask(Source),
    /// Standard input closed while a session waited for an answer.
    #[error("standard input closed while waiting for an answer; the answers so far are saved")]
    InputClosed,
    /// `intent`: which tracker holds the work item could not be asked.
    #[error("cannot ask which work item to use: {0}")]
    TrackerChoice(#[source] Source),
    /// The finished document could not be written where asked; the session keeps the answers.
    #[error(
        "cannot write {path}: {why}. The answers are kept in session {session}: finish with \
         `interview resume {session} --out PATH` (a file path this run can write)"
    )]
    DocumentNotWritten {
        path: String,
        why: String,
        session: String,
    },
    /// `--clarify-into FILE`: the file could not be read.
    #[error("cannot read {path}: {source}; no clarifications were added")]
    ClarifyUnreadable {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// `--clarify-into FILE`: the file is not text.
    #[error("{path} is not UTF-8 text; no clarifications were added")]
    ClarifyNotText { path: String },
    /// The turn loop ended without a document (the final turn only accepts `done`).
    #[error("the interview ended without a document")]
    NoDocument,
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
            | Error::GuardAt { .. }
            | Error::State(_)
            | Error::Busy(_)
            | Error::Sandbox(_)
            | Error::Json { .. }
            | Error::BriefUnreadable { .. }
            | Error::BriefTooLarge { .. }
            | Error::BriefInvalid { .. }
            | Error::ModelTurn(_)
            | Error::RunnerNotStarted { .. }
            | Error::WorkerStopped(_)
            | Error::Ask(_)
            | Error::InputClosed
            | Error::TrackerChoice(_)
            | Error::DocumentNotWritten { .. }
            | Error::ClarifyUnreadable { .. }
            | Error::ClarifyNotText { .. }
            | Error::NoDocument => code::ERROR,
            Error::ClosedOutput => code::CLOSED_OUTPUT,
        }
    }

    pub fn io(what: impl Into<String>, source: std::io::Error) -> Self {
        Error::Io {
            what: what.into(),
            source,
        }
    }

    /// The guard failed at a named point of a session (`before turn 2`).
    pub(crate) fn guard_at(when: impl Into<String>, source: impl Into<Source>) -> Self {
        Error::GuardAt {
            when: when.into(),
            source: source.into(),
        }
    }

    /// The runner's program could not be started; `message` says why and what to do.
    pub(crate) fn runner_not_started(message: String, source: std::io::Error) -> Self {
        Error::RunnerNotStarted { message, source }
    }

    pub(crate) fn json(what: impl Into<String>, source: serde_json::Error) -> Self {
        Error::Json {
            what: what.into(),
            source,
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
