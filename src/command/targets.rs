//! Every place a run will write a document or clarifications, checked before the first question
//! (docs/sessions.md, "Where the document goes"): a refused one ends the run with exit 2 naming
//! the path, where it was set, and why.

use std::path::PathBuf;

use crate::error::{Error, Result};
use crate::own_writes::Beneath;
use crate::session::Repo;

/// Check each `(where it was set, path)`; `None` and `-` (standard output) are skipped. With
/// `probe` (only once the worktree's lock is held) the directory is also made to take a file.
pub(super) fn check(repo: &Repo, targets: &[(String, Option<PathBuf>)], probe: bool) -> Result<()> {
    let beneath = Beneath::new(&repo.worktree, &repo.common_dir);
    for (source, path) in targets {
        let Some(path) = path.as_deref().filter(|p| p.as_os_str() != "-") else {
            continue;
        };
        let checked = beneath
            .check(path)
            .and_then(|()| if probe { beneath.probe(path) } else { Ok(()) });
        if let Err(why) = checked {
            return Err(Error::Usage(format!(
                "{source} {}: {why}; nothing was asked and nothing written (choose another path)",
                path.display()
            )));
        }
    }
    Ok(())
}
