//! `interview runner NAME` (hidden): run a built-in runner, started by the tool as a subprocess.

use crate::error::{Error, Result};

pub fn run(name: &str) -> Result<i32> {
    match name {
        "builtin" => crate::runner::builtin::run().map(|()| crate::error::code::DONE),
        other => Err(Error::Usage(format!("unknown built-in runner `{other}`"))),
    }
}
