//! `interview answers [SESSION | KIND ID] [-o FILE]`: a session's answers in the replay format
//! (docs/ci.md).

use std::path::Path;

use crate::error::{Error, Result};
use crate::session::history::{self, Which};

pub fn run(cwd: &Path, which: &[String], output: Option<&Path>) -> Result<i32> {
    let repo = super::discover(cwd)?;
    let which = match which {
        [] => Which::Latest,
        [session] => Which::Session(session),
        [kind, id] if kind == "intent" || kind == "reflect" => Which::Subject { kind, id },
        [kind, _] => {
            return Err(Error::Usage(format!(
                "`interview answers {kind} …`: name a subject as `intent ID` or `reflect REV`, or give one session id"
            )));
        }
        _ => {
            return Err(Error::Usage(
                "interview answers takes at most two arguments".into(),
            ));
        }
    };
    history::print_answers(&repo, which, output)
}
