//! `interview stats [--json]`: skip rates and Q&A durations from the local telemetry.

use std::path::Path;

use crate::error::Result;

pub fn run(cwd: &Path, json: bool) -> Result<i32> {
    let repo = super::discover(cwd)?;
    crate::telemetry::stats(&repo.worktree, json)
}
