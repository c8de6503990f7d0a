//! `interview status [SESSION] [--all] [--json]`: where a session stands (docs/sessions.md), as
//! the status box, a list of every session, or JSON.

use std::path::Path;

use serde::Serialize;

use crate::error::{Error, Result};
use crate::session::history::{Listed, Running, StatusJson, find, list, place, status_word, view};
use crate::session::state::State;
use crate::session::tier::TIER_DIR;

pub(super) fn run(cwd: &Path, id: Option<&str>, all: bool, json: bool) -> Result<i32> {
    let repo = super::discover(cwd)?;
    if all {
        print_all(&repo.worktree, json)?;
        return Ok(0);
    }
    if id.is_none() && list(&repo.worktree).is_empty() {
        // Nothing went wrong: there is just nothing to show yet (as JSON: no session, as with
        // `--all --json`).
        crate::output::stdout_line(if json {
            "[]"
        } else {
            "No interview sessions here yet: start one with `interview intent ID` or \
             `interview reflect TAG`."
        })?;
        return Ok(0);
    }
    let listed = find(&repo.worktree, id)?;
    let state = listed.state?;
    let mut view = view(&state);
    let tier_root = repo.worktree.join(TIER_DIR);
    if let Some(h) = crate::session::lock::holder(&tier_root)
        && h.session.as_deref() == Some(state.session.as_str())
    {
        view.action = format!(
            "nothing yet: {} is running now; wait for it to end",
            h.describe()
        );
        view.running = Some(Running {
            pid: h.pid,
            command: h.command,
        });
    }
    if json {
        crate::output::stdout_line(&to_json(&view)?)?;
    } else {
        crate::output::stdout(&render(&view, crate::ask::style::terminal_width()))?;
    }
    Ok(0)
}

/// `--all`: every session of the worktree, one line each (or a JSON list), the running one
/// said so.
fn print_all(worktree: &Path, json: bool) -> Result<()> {
    let sessions = list(worktree);
    let running = crate::session::lock::holder(&worktree.join(TIER_DIR)).and_then(|h| h.session);
    let word = |l: &Listed, s: &State| {
        if running.as_deref() == Some(l.id.as_str()) {
            "running"
        } else if s.closed.is_some() {
            "closed"
        } else {
            status_word(s.status)
        }
    };
    if json {
        let rows: Vec<_> = sessions
            .iter()
            .map(|l| match &l.state {
                Ok(s) => {
                    let mut row = serde_json::json!({
                        "session": l.id, "status": s.status, "kind": s.kind,
                        "subject": s.subject_id, "turn": s.turn,
                    });
                    if let Some(why) = &s.closed {
                        row["closed"] = serde_json::json!(why);
                    }
                    row
                }
                Err(e) => serde_json::json!({ "session": l.id, "error": e.to_string() }),
            })
            .collect();
        crate::output::stdout_line(&to_json(&rows)?)?;
    } else if sessions.is_empty() {
        crate::output::stdout_line("No interview sessions here yet.")?;
    } else {
        let mut text = String::new();
        for l in &sessions {
            match &l.state {
                Ok(s) => text.push_str(&format!(
                    "{:<58} {:<18} turn {}/{}\n",
                    l.id,
                    word(l, s),
                    s.turn.min(s.max_turns),
                    s.max_turns
                )),
                Err(e) => text.push_str(&format!("{:<58} unreadable: {e}\n", l.id)),
            }
        }
        crate::output::stdout(&text)?;
    }
    Ok(())
}

fn to_json(value: &impl Serialize) -> Result<String> {
    serde_json::to_string_pretty(value)
        .map_err(|e| Error::State(format!("cannot encode the status as JSON: {e}")))
}

/// The narrowest the status box's rules are.
const RULE_MIN: usize = 51;

/// The status summary box, then key decisions, last session and blockers, for a terminal
/// `width` columns wide (the box's rules fit its text, and its lines wrap at that width).
fn render(v: &StatusJson<'_>, width: usize) -> String {
    use crate::ask::render::BoxLine;
    let title = vec![BoxLine::new(
        // A subject the repository named (a tag, a branch) is shown as text, never obeyed.
        format!(
            " INTERVIEW STATUS ({} {})",
            v.kind,
            crate::receipt::sanitize_line(v.subject).0
        ),
        1,
    )];
    let turns = turn_lines(v);
    let mut now = vec![BoxLine::new(format!(" Now:     {}", place(v)), 10)];
    if v.retry_count > 0 {
        now.push(BoxLine::new(
            format!(" Retry:   {} of {}", v.retry_count, v.retries),
            10,
        ));
    }
    if v.running.is_some() {
        now.push(BoxLine::new(" Running: now", 10));
    }
    now.push(BoxLine::new(format!(" Action:  {}", v.action), 10));
    let mut s = crate::ask::render::framed(
        &crate::ask::Style::PLAIN,
        &[title, turns, now],
        RULE_MIN,
        width,
        false,
    );
    s.push_str(&format!(" Session: {}\n", v.session));
    s.push_str(&after_the_box(v));
    s
}

/// The status box's turn lines: each turn needed, with how it went, then those not needed.
fn turn_lines(v: &StatusJson<'_>) -> Vec<crate::ask::render::BoxLine> {
    use crate::ask::render::BoxLine;
    let mut turns = Vec::new();
    let unneeded: Vec<u32> = v
        .turns
        .iter()
        .filter(|r| r.status == "skipped")
        .map(|r| r.turn)
        .collect();
    for row in v.turns.iter().filter(|r| r.status != "skipped") {
        let word = match row.status {
            "done" => "done".to_string(),
            "failed" => format!("failed (retry {} of {})", v.retry_count, v.retries),
            "in_progress" if v.running.is_some() => "in progress".to_string(),
            "in_progress" => "stopped".to_string(),
            _ => "not started".to_string(),
        };
        let mut detail = if row.detail.is_empty() {
            String::new()
        } else {
            format!("  {}", row.detail)
        };
        if let Some(ms) = row.duration_ms {
            detail.push_str(&format!("  ({:.1} s", ms as f64 / 1000.0));
            if let Some(u) = row.usage.as_ref().filter(|u| !u.is_empty()) {
                detail.push_str(&format!(", {}", u.summary()));
            }
            detail.push(')');
        }
        turns.push(BoxLine::new(
            format!(" Turn {:<3} {word}{detail}", row.turn),
            10,
        ));
    }
    match (unneeded.first(), unneeded.last()) {
        (Some(a), Some(b)) if a == b => turns.push(BoxLine::new(
            format!(" Turn {a}     not needed: the interview finished early"),
            10,
        )),
        (Some(a), Some(b)) => turns.push(BoxLine::new(
            format!(" Turns {a}–{b} not needed: the interview finished early"),
            10,
        )),
        _ => {}
    }
    turns
}

/// What follows the status box: key decisions, the last session, the last failure, blockers.
fn after_the_box(v: &StatusJson<'_>) -> String {
    let mut out = String::new();
    if !v.key_decisions.is_empty() {
        out.push_str("\nKey decisions:\n");
        for d in v.key_decisions {
            out.push_str(&format!("  - {} ({}): {}\n", d.context, d.id, d.choice));
        }
    }
    if let Some(last) = v.last_session {
        out.push_str(&format!(
            "\nLast session ({}): {}; next: {}\n",
            last.at, last.what_happened, last.next
        ));
    }
    if let Some(why) = v.last_failure {
        out.push_str(&format!(
            "\nLast failure: {}\n",
            crate::receipt::sanitize_line(why).0
        ));
    }
    if !v.blockers.is_empty() {
        out.push_str("\nBlockers:\n");
        for b in v.blockers {
            out.push_str(&format!("  - {b}\n"));
        }
    }
    out
}
