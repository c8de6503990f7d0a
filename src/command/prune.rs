//! `interview prune [--older-than DAYS] [--keep N] [--unfinished]`: remove finished sessions
//! (docs/sessions.md).

use std::path::Path;
use std::time::{Duration, SystemTime};

use crate::error::{Error, Result};
use crate::session::prune::{self, PruneRule};

const DAY_SECS: u64 = 24 * 60 * 60;

pub(super) fn run(
    cwd: &Path,
    older_than_days: Option<u64>,
    keep: Option<usize>,
    unfinished: bool,
) -> Result<i32> {
    let repo = super::discover(cwd)?;
    let older_than = match older_than_days {
        Some(days) => Some(Duration::from_secs(days.checked_mul(DAY_SECS).ok_or_else(
            || {
                Error::Usage(format!(
                    "--older-than {days} is more days than a clock can count"
                ))
            },
        )?)),
        None => None,
    };
    let rule = PruneRule {
        older_than,
        keep: keep.unwrap_or(0),
        unfinished,
    };
    // No run of the tool works in the tier while prune deletes in it.
    let _lock = match prune::has_tier(&repo.worktree)? {
        true => Some(super::lock(&repo, "prune")?),
        false => None,
    };
    let pruned = prune::prune(&repo.worktree, rule, SystemTime::now())?;
    super::print_bytes(prune::report(&pruned).as_bytes(), "what prune removed")
}
