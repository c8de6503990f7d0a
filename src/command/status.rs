//! `interview status [SESSION] [--all] [--json]`: where a session stands (docs/sessions.md).

use std::path::Path;

use crate::error::Result;

pub fn run(cwd: &Path, session: Option<&str>, all: bool, json: bool) -> Result<i32> {
    let repo = super::discover(cwd)?;
    crate::session::history::status(&repo, session, all, json)
}
