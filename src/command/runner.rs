//! `interview runner NAME` (hidden): run a built-in runner, started by the tool as a subprocess.

use crate::error::{Error, Result};

pub(super) fn run(name: &str, args: &[String]) -> Result<i32> {
    match name {
        "builtin" if args.is_empty() => {
            crate::interviewer::builtin::run().map(|()| crate::error::code::DONE)
        }
        model if crate::interviewer::model::NAMES.contains(&model) => {
            crate::interviewer::model::run(model, args).map(|()| crate::error::code::DONE)
        }
        other => Err(Error::Usage(format!("unknown built-in runner `{other}`"))),
    }
}
