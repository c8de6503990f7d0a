//! Local telemetry: `.interview/telemetry.jsonl`, never sent anywhere.

use std::path::Path;

use crate::error::Result;

/// `interview stats`: skip rates from the local telemetry (placeholder).
pub fn stats(_worktree: &Path, _json: bool) -> Result<i32> {
    println!("no telemetry yet");
    Ok(0)
}
