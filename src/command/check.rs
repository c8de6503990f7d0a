//! `--check` (with `--answers`): replay, write nothing, and compare the replayed document with
//! the committed one, as `cargo fmt --check` does: exit 7 with a unified diff and the command
//! that refreshes it when they differ (docs/ci.md).

use std::path::{Path, PathBuf};

use crate::error::{Error, Result, code};

/// Where a checked replay writes its document (a directory of its own, outside the
/// repository, removed when the check ends), and the committed document it is compared with.
pub(super) struct Check {
    _dir: tempfile::TempDir,
    /// The replay's document.
    pub replayed: PathBuf,
    /// The committed document as the person names it (`docs/interviews/intent-42.md`).
    committed: PathBuf,
    /// The same, from the worktree.
    full: PathBuf,
}

impl Check {
    /// A check of the document at `committed` (relative to the worktree, or absolute).
    pub(super) fn new(worktree: &Path, committed: &Path) -> Result<Check> {
        if committed.as_os_str() == "-" {
            return Err(Error::Usage(
                "--check compares with a committed document: --out - names none; name the \
                 document with --out PATH, or leave --out out for its default place"
                    .into(),
            ));
        }
        let dir = tempfile::Builder::new()
            .prefix("interview-check-")
            .tempdir()
            .map_err(|e| Error::io("cannot make a directory for the checked replay", e))?;
        let name = committed
            .file_name()
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("document.md"));
        Ok(Check {
            replayed: dir.path().join(name),
            _dir: dir,
            committed: committed.to_path_buf(),
            full: worktree.join(committed),
        })
    }

    /// Compare the replay's document with the committed one: exit 0 when they are the same;
    /// else the unified diff on standard output, what to do on standard error, exit 7.
    /// `refresh` is the command line that re-records at a terminal, `answers` the file.
    pub(super) fn compare(&self, refresh: &str, answers: &Path) -> Result<i32> {
        let replayed = std::fs::read_to_string(&self.replayed).map_err(|e| {
            Error::io(
                format!(
                    "cannot read the replayed document {}",
                    self.replayed.display()
                ),
                e,
            )
        })?;
        let shown = self.committed.display().to_string();
        let committed = match std::fs::read_to_string(&self.full) {
            Ok(text) => Some(text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(Error::io(format!("cannot read {shown}"), e)),
        };
        if committed.as_deref() == Some(replayed.as_str()) {
            crate::output::stderr_line(&format!(
                "{shown} is what the answers give: the replay is identical."
            ));
            return Ok(code::DONE);
        }
        let old = committed.as_deref().unwrap_or("");
        let diff = similar::TextDiff::from_lines(old, replayed.as_str())
            .unified_diff()
            .context_radius(3)
            .header(&format!("a/{shown}"), &format!("b/{shown} (replayed)"))
            .to_string();
        crate::output::stdout(&diff)?;
        let what = match committed {
            Some(_) => format!("{shown} differs from what the answers give (the diff is above)"),
            None => format!("{shown} does not exist; the answers give the document above"),
        };
        crate::output::stderr_line(&format!(
            "interview: {what}.\n  Refresh it at a terminal, then record the answers and commit both:\n    {refresh}\n    interview answers {} -o {}",
            subject_of(refresh),
            answers.display()
        ));
        Ok(code::CHECK_DIFFERS)
    }
}

/// `intent 42` of `interview intent 42 --from item.md`.
fn subject_of(refresh: &str) -> String {
    refresh
        .split_whitespace()
        .skip(1)
        .take(2)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The command line the person ran, as it is run at a terminal to refresh the document: without
/// the replay's own flags (`--answers FILE`, `--check`, `--yes`, `--out PATH`, `--missing
/// MODE`, `--any-subject`).
pub(super) fn refresh_command(args: impl IntoIterator<Item = String>) -> String {
    const WITH_VALUE: &[&str] = &["--answers", "--out", "--missing"];
    const ALONE: &[&str] = &["--check", "--yes", "--any-subject"];
    let mut out = vec!["interview".to_string()];
    let mut args = args.into_iter().skip(1);
    while let Some(a) = args.next() {
        let flag = a.split('=').next().unwrap_or("");
        if WITH_VALUE.contains(&a.as_str()) {
            args.next();
        } else if !(ALONE.contains(&a.as_str()) || WITH_VALUE.contains(&flag) && a.contains('=')) {
            out.push(shlex::try_quote(&a).map_or(a.clone(), |q| q.into_owned()));
        }
    }
    out.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_refresh_command_is_the_replay_without_its_own_flags() {
        let typed = "interview intent 42 --from item.md --runner builtin --answers ci/a.json \
                     --check --yes --out=docs/x.md --missing skip";
        assert_eq!(
            refresh_command(typed.split(' ').map(String::from)),
            "interview intent 42 --from item.md --runner builtin"
        );
        assert_eq!(
            subject_of("interview intent 42 --from item.md"),
            "intent 42"
        );
    }
}
