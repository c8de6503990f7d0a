//! The lines each change of a range adds and deletes, file by file on every core: a path's
//! changes are taken newest first, so the blob read as the old side of one change is the new
//! side of the next, and each version of a file is read once (not once per change it is in).

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::error::{Error, Result};

use super::diff::{FileChange, LineFacts, line_facts, load_side};

/// Paths handed to a worker at a time.
const PATHS_AT_ONCE: usize = 16;

/// The lines of every change of `changes` (one list per commit, newest first in history
/// order; `None` for a commit not diffed here), in the same shape: one worker per handle of
/// `repos`.
pub(super) fn lines_of(
    changes: &[Option<Vec<FileChange>>],
    repos: Vec<gix::Repository>,
) -> Result<Vec<Vec<LineFacts>>> {
    // Each path's changes, newest first: `(commit, change)` indices.
    let mut by_path: HashMap<&str, Vec<(usize, usize)>> = HashMap::new();
    for (h, list) in changes.iter().enumerate() {
        for (c, change) in list.iter().flatten().enumerate() {
            by_path.entry(&change.path).or_default().push((h, c));
        }
    }
    let mut groups: Vec<Vec<(usize, usize)>> = by_path.into_values().collect();
    // The longest first, so no worker is left with a long one at the end.
    groups.sort_by_key(|g| std::cmp::Reverse(g.len()));
    let next = AtomicUsize::new(0);
    let found: Vec<Result<Vec<(usize, usize, LineFacts)>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = repos
            .into_iter()
            .map(|repo| {
                let (groups, next) = (&groups, &next);
                scope.spawn(move || -> Result<Vec<(usize, usize, LineFacts)>> {
                    let mut done = Vec::new();
                    loop {
                        let start = next.fetch_add(PATHS_AT_ONCE, Ordering::Relaxed);
                        let Some(taken) =
                            groups.get(start..(start + PATHS_AT_ONCE).min(groups.len()))
                        else {
                            return Ok(done);
                        };
                        if taken.is_empty() {
                            return Ok(done);
                        }
                        for group in taken {
                            path_lines(&repo, changes, group, &mut done)?;
                        }
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    Err(Error::WorkerStopped(
                        "a worker counting the lines of changes",
                    ))
                })
            })
            .collect()
    });
    let mut out: Vec<Vec<LineFacts>> = changes
        .iter()
        .map(|list| {
            list.iter()
                .flatten()
                .map(|_| LineFacts::default())
                .collect()
        })
        .collect();
    for batch in found {
        for (h, c, lines) in batch? {
            out[h][c] = lines;
        }
    }
    Ok(out)
}

/// The lines of one path's changes (newest first), each version of the file read once.
fn path_lines(
    repo: &gix::Repository,
    changes: &[Option<Vec<FileChange>>],
    group: &[(usize, usize)],
    done: &mut Vec<(usize, usize, LineFacts)>,
) -> Result<()> {
    // The old side of the change just counted: the new side of the next (older) one.
    let mut kept: Option<(gix::ObjectId, Vec<u8>)> = None;
    for &(h, c) in group {
        let Some(change) = changes[h].as_ref().and_then(|list| list.get(c)) else {
            continue;
        };
        if change.mode_only() {
            done.push((h, c, LineFacts::default()));
            continue;
        }
        let after = match (change.new, kept.take()) {
            (Some((id, _)), Some((kept_id, data))) if id == kept_id => data,
            (side, _) => load_side(repo, change, side)?,
        };
        let before = load_side(repo, change, change.old)?;
        done.push((h, c, line_facts(&before, &after)));
        kept = change.old.map(|(id, _)| (id, before));
    }
    Ok(())
}
