//! Dispatch of a parsed command line to the part of the tool that does it.

use crate::cli::Cli;
use crate::error::Result;

/// Run a command; returns the exit code of a successful run.
pub fn run(_cli: Cli) -> Result<i32> {
    Ok(0)
}
