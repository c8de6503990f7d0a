//! `interview answers [SESSION]`: a session's answers in the replay format (docs/ci.md).

use std::path::Path;

use crate::error::Result;

pub fn run(cwd: &Path, session: Option<&str>) -> Result<i32> {
    let repo = super::discover(cwd)?;
    crate::session::history::print_answers(&repo, session)
}
