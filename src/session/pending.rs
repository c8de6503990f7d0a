//! Temporary stand-ins for parts being built in parallel (guard restore, receipt schema and
//! stdout extraction, telemetry). Removed as each lands.

use std::path::Path;

use crate::ask::RoundOutcome;
use crate::guard::{GuardError, GuardScope};
use crate::receipt::ReceiptError;

pub const SCHEMA: &str = "{}";

pub fn extract_from_stdout(_stdout: &str) -> Result<String, ReceiptError> {
    Err(ReceiptError::Invalid(
        "stdout receipts are not supported yet".into(),
    ))
}

pub fn save_restore_copies(_scope: &GuardScope, _dir: &Path) -> Result<(), GuardError> {
    Ok(())
}

pub fn restore(_scope: &GuardScope, _dir: &Path) -> Result<String, GuardError> {
    Ok("nothing".into())
}

pub fn record_round(_tier: &Path, _outcome: &RoundOutcome, _replayed: bool) -> std::io::Result<()> {
    Ok(())
}
