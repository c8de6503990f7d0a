//! `interview stats [--json]`: skip rates and Q&A durations from the local telemetry, and the
//! runners' turns from the sessions' state files.

use std::path::Path;

use crate::error::{Error, Result};
use crate::telemetry::{FILE, RunnerStats, Stats};

pub(super) fn run(cwd: &Path, json: bool) -> Result<i32> {
    let repo = super::discover(cwd)?;
    let worktree = &repo.worktree;
    let path = worktree.join(".interview").join(FILE);
    // Only a regular file, never through a link, at most 256 MiB of it.
    let stats = match crate::input::open_regular(&path, crate::input::Links::Refuse) {
        Ok(f) => Stats::read(std::io::BufReader::new(std::io::Read::take(f, 256 << 20)))
            .map_err(|e| Error::io(format!("reading {}", path.display()), e))?,
        Err(e) if !e.is_not_found() => {
            return Err(Error::State(format!("cannot read {}: {e}", path.display())));
        }
        Err(_) => {
            if !json {
                crate::output::stdout_line(&format!(
                    "No telemetry yet: {} does not exist. It is written after each round of questions.",
                    path.display()
                ))?;
                crate::output::stdout(&of_sessions(worktree).render())?;
                return Ok(0);
            }
            Stats::default()
        }
    };
    let mut stats = stats;
    stats.runner = of_sessions(worktree);
    if json {
        let text = serde_json::to_string_pretty(&stats)
            .map_err(|e| Error::json("rendering stats as JSON", e))?;
        crate::output::stdout_line(&text)?;
    } else {
        crate::output::stdout(&format!("{}{}", stats.render(), stats.runner.render()))?;
    }
    Ok(0)
}

/// The runs in every session of the worktree, added up.
fn of_sessions(worktree: &Path) -> RunnerStats {
    let mut s = RunnerStats::default();
    for listed in crate::session::history::list(worktree) {
        let Ok(state) = listed.state else { continue };
        for run in &state.runs {
            s.runs += 1;
            s.duration_ms_total += run.duration_ms;
            if let Some(u) = &run.usage {
                s.runs_with_usage += 1;
                s.input_tokens += u.input_tokens.unwrap_or(0);
                s.output_tokens += u.output_tokens.unwrap_or(0);
                s.cost_usd += u.cost_usd.unwrap_or(0.0);
            }
        }
    }
    s
}
