//! `interview prune`: removing finished sessions from the local tier (docs/sessions.md).
//!
//! Only a finished session goes: done, given up at the circuit breaker, or closed because it
//! could not go on; with `--unfinished`, also an unfinished one that holds no answer. One with
//! answers that can still be resumed, one whose state cannot be read, and one whose runner is
//! still running are always kept. Nothing outside `.interview/sessions/` is touched, and no link is followed.

use std::path::Path;
use std::time::{Duration, SystemTime};

use super::history::{self, Listed};
use super::state::{State, Status};
use super::tier::TIER_DIR;
use crate::error::{Error, Result};

/// Which finished sessions to remove.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct PruneRule {
    /// Only sessions whose state was last written more than this long ago.
    pub older_than: Option<Duration>,
    /// Keep this many of the most recent finished sessions, whatever their age.
    pub keep: usize,
    /// Also remove unfinished sessions that hold no answer (`--unfinished`).
    pub unfinished: bool,
}

/// What one prune did.
#[derive(Debug, Default)]
pub(crate) struct Pruned {
    /// `(session id, status word)` of each session removed, oldest first.
    pub removed: Vec<(String, &'static str)>,
    /// Finished sessions kept by the rule.
    pub kept_finished: usize,
    /// Sessions kept because they are unfinished, unreadable or running.
    pub kept_unfinished: usize,
}

/// True for a session that is over and cannot be continued: done, given up at the circuit
/// breaker, or closed because it could not go on.
pub(crate) fn finished(state: &State) -> bool {
    state.status == Status::Done
        || (state.abandoned && matches!(state.status, Status::Failed | Status::Aborted))
        || state.closed.is_some()
}

/// True for an unfinished session with no answer in it: removing it loses nothing typed.
fn without_answers(state: &State) -> bool {
    state.status != Status::Done
        && state
            .rounds
            .iter()
            .all(|r| r.answers.iter().all(|a| a.skipped) && !r.gate_skipped)
}

/// True while a runner of the session is still running (a turn's `runner.pid` names a live
/// process).
fn running(dir: &Path) -> bool {
    let Ok(turns) = std::fs::read_dir(dir.join("turns")) else {
        return false;
    };
    turns.flatten().any(|turn| {
        let pid = turn.path().join(crate::protocol::files::RUNNER_PID);
        crate::process::live_runner(&pid).is_some()
    })
}

/// When the session's state was last written (its `state.json`, not followed if a link).
fn last_changed(dir: &Path) -> Option<SystemTime> {
    std::fs::symlink_metadata(dir.join("state.json"))
        .and_then(|m| m.modified())
        .ok()
}

/// Whether the worktree has a local tier to prune: `false` when there is none; an error when
/// `.interview` or its `sessions/` is a link or not a directory (a repository could ship one),
/// which is not ours to delete in.
pub(crate) fn has_tier(worktree: &Path) -> Result<bool> {
    for dir in [
        worktree.join(TIER_DIR),
        worktree.join(TIER_DIR).join("sessions"),
    ] {
        match std::fs::symlink_metadata(&dir) {
            Ok(m) if m.file_type().is_symlink() || !m.is_dir() => {
                return Err(Error::State(format!(
                    "{} is not a plain directory; prune removes nothing there",
                    dir.display()
                )));
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
            Err(e) => return Err(Error::io(format!("cannot read {}", dir.display()), e)),
        }
    }
    Ok(true)
}

/// Remove the finished sessions of `worktree` that `rule` selects. The caller holds the
/// worktree's lock, so no session is being run meanwhile.
pub(crate) fn prune(worktree: &Path, rule: PruneRule, now: SystemTime) -> Result<Pruned> {
    if !has_tier(worktree)? {
        return Ok(Pruned::default());
    }
    let mut pruned = Pruned::default();
    let mut candidates: Vec<(Listed, SystemTime, &'static str)> = Vec::new();
    for listed in history::list(worktree) {
        if let Err(e) = &listed.state {
            crate::output::stderr_line(&format!(
                "interview: warning: session {} cannot be read and is kept: {e}",
                listed.id
            ));
        }
        let word = match &listed.state {
            Ok(state) if finished(state) && !running(&listed.dir) => {
                if state.abandoned {
                    "given up"
                } else if state.closed.is_some() {
                    "closed"
                } else {
                    "finished"
                }
            }
            Ok(state) if rule.unfinished && without_answers(state) && !running(&listed.dir) => {
                "unfinished, no answer"
            }
            _ => {
                pruned.kept_unfinished += 1;
                continue;
            }
        };
        let changed = last_changed(&listed.dir).unwrap_or(now);
        candidates.push((listed, changed, word));
    }
    // The most recent first, so `keep` keeps those.
    candidates.sort_by(|a, b| b.1.cmp(&a.1).then(b.0.id.cmp(&a.0.id)));
    let mut removed = Vec::new();
    for (i, (listed, changed, word)) in candidates.into_iter().enumerate() {
        let old_enough = rule
            .older_than
            .is_none_or(|age| now.duration_since(changed).is_ok_and(|d| d > age));
        if i < rule.keep || !old_enough {
            pruned.kept_finished += 1;
            continue;
        }
        std::fs::remove_dir_all(&listed.dir)
            .map_err(|e| Error::io(format!("cannot remove {}", listed.dir.display()), e))?;
        removed.push((listed.id, word));
    }
    removed.reverse();
    pruned.removed = removed;
    Ok(pruned)
}

/// What a prune says it did.
pub(crate) fn report(pruned: &Pruned) -> String {
    let mut out = String::new();
    if pruned.removed.is_empty() {
        out.push_str("Nothing to prune: no finished session matches.\n");
    } else {
        // Said as what they were: unfinished sessions are counted as unfinished.
        let unfinished = pruned
            .removed
            .iter()
            .filter(|(_, word)| word.starts_with("unfinished"))
            .count();
        let finished = pruned.removed.len() - unfinished;
        let what = match (finished, unfinished) {
            (f, 0) => format!("{f} finished session(s)"),
            (0, u) => format!("{u} unfinished session(s) without an answer"),
            (f, u) => format!(
                "{} session(s): {f} finished, {u} unfinished without an answer",
                f + u
            ),
        };
        out.push_str(&format!("Removed {what}:\n"));
        for (id, word) in &pruned.removed {
            out.push_str(&format!("  {id}  ({word})\n"));
        }
    }
    let mut kept = Vec::new();
    if pruned.kept_finished > 0 {
        kept.push(format!("{} finished", pruned.kept_finished));
    }
    if pruned.kept_unfinished > 0 {
        kept.push(format!(
            "{} unfinished or running (`--unfinished` removes those without an answer)",
            pruned.kept_unfinished
        ));
    }
    if !kept.is_empty() {
        out.push_str(&format!("Kept {}.\n", kept.join(", ")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn removed(words: &[&'static str]) -> Pruned {
        Pruned {
            removed: words
                .iter()
                .enumerate()
                .map(|(i, w)| (format!("s{i}"), *w))
                .collect(),
            ..Pruned::default()
        }
    }

    #[test]
    fn removed_sessions_are_counted_as_what_they_were() {
        let unfinished = report(&removed(&[
            "unfinished, no answer",
            "unfinished, no answer",
        ]));
        assert!(
            unfinished.starts_with("Removed 2 unfinished session(s) without an answer:\n"),
            "{unfinished}"
        );
        let both = report(&removed(&["finished", "unfinished, no answer", "closed"]));
        assert!(
            both.starts_with("Removed 3 session(s): 2 finished, 1 unfinished without an answer:\n"),
            "{both}"
        );
        let finished = report(&removed(&["finished", "given up"]));
        assert!(
            finished.starts_with("Removed 2 finished session(s):\n"),
            "{finished}"
        );
    }
}
