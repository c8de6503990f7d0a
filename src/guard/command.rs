//! `interview guard`: run a command under the guard, or print one snapshot.

use std::path::Path;

use crate::cli::GuardArgs;
use crate::error::{Error, Result};

/// Run `interview guard …`; returns the exit code.
pub fn run(_args: &GuardArgs, _worktree: &Path) -> Result<i32> {
    Err(Error::Other("interview guard: not built yet".into()))
}
