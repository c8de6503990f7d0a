//! `interview runners`: the runner presets, whether each is installed, and what each runs.

use crate::error::Result;

pub fn run() -> Result<i32> {
    crate::runner::presets::list()
}
