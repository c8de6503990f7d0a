//! The change guard: snapshots of everything a runner could change in a repository, and their diff.
//!
//! Not for: deciding what to do about a change (the session applies the `--on-change` policy).

pub mod command;

use std::path::PathBuf;

use serde::Serialize;

/// What to snapshot: a worktree, minus directories the tool itself writes during a turn.
#[derive(Debug, Clone)]
pub struct GuardScope {
    /// The worktree root.
    pub worktree: PathBuf,
    /// Absolute paths excluded from the snapshot (the current turn's local-tier directory).
    pub exclude: Vec<PathBuf>,
}

#[derive(Debug, thiserror::Error)]
pub enum GuardError {
    #[error("guard: {0}")]
    Failed(String),
}

/// A snapshot of the repository (placeholder until the guard lands).
#[derive(Debug, Clone, Serialize)]
pub struct Snapshot {}

impl Snapshot {
    pub fn take(_scope: &GuardScope) -> Result<Snapshot, GuardError> {
        Ok(Snapshot {})
    }

    pub fn diff(&self, _after: &Snapshot) -> GuardReport {
        GuardReport::default()
    }
}

/// The categorised difference between two snapshots.
#[derive(Debug, Clone, Default, Serialize)]
pub struct GuardReport {
    pub changes: Vec<String>,
}

impl GuardReport {
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }
}

impl std::fmt::Display for GuardReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for c in &self.changes {
            writeln!(f, "  {c}")?;
        }
        Ok(())
    }
}
