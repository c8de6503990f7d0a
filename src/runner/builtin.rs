//! The built-in interviewer: a deterministic runner without a model, started as a subprocess
//! through the same protocol as any runner (brief in, receipt out).

use crate::error::{Error, Result};

/// `interview runner builtin` (placeholder).
pub fn run() -> Result<i32> {
    Err(Error::Other("the built-in interviewer is not built yet".into()))
}
