//! `interview answers [SESSION | KIND ID] [-o FILE]`: a session's answers in the replay format
//! (docs/ci.md).

use std::path::Path;

use crate::error::{Error, Result};
use crate::session::history::{self, Which};

pub(super) fn run(cwd: &Path, which: &[String], output: Option<&Path>) -> Result<i32> {
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
    let listed = history::find_which(&repo.worktree, which)?;
    let text = history::answers_text(&listed)?;
    match output {
        None => crate::output::stdout(&text)?,
        Some(file) => {
            // A fixture to commit: the mode it already has, or an ordinary file's.
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(file).map_or(0o644, |m| m.permissions().mode() & 0o777);
            if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir)
                    .map_err(|e| Error::io(format!("cannot create {}", dir.display()), e))?;
            }
            crate::atomic::write_with_mode(file, text.as_bytes(), Some(mode))
                .map_err(|e| Error::io(format!("cannot write {}", file.display()), e))?;
            crate::output::stderr_line(&format!(
                "Wrote the answers of session {} to {}.",
                listed.id,
                file.display()
            ));
        }
    }
    Ok(0)
}
