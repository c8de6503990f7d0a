//! Sessions already in the local tier: finding them, and what `interview status` and `interview
//! answers` show of them (the status view, a session's answers).

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::state::{State, Status};
use super::tier::TIER_DIR;
use crate::error::{Error, Result};

/// One session directory and its state (or why the state could not be read).
pub(crate) struct Listed {
    pub id: String,
    pub dir: PathBuf,
    pub state: Result<State>,
}

/// Every session of this worktree, oldest first.
pub(crate) fn list(worktree: &Path) -> Vec<Listed> {
    let dir = worktree.join(TIER_DIR).join("sessions");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut out: Vec<Listed> = entries
        .flatten()
        .filter(|e| e.file_type().map(|t| t.is_dir()).unwrap_or(false))
        .filter_map(|e| {
            let id = e.file_name().to_str()?.to_string();
            // A session still being made (or left half-made by a killed run) is not one.
            if id.starts_with('.') {
                return None;
            }
            let dir = e.path();
            let state = State::load(&dir.join("state.json"));
            Some(Listed { id, dir, state })
        })
        .collect();
    // Two sessions begun in the same second are ordered by when each was made (its
    // `session.json`, written once), not by the random part of their ids.
    out.sort_by_cached_key(|l| (stamp(&l.id), made(&l.dir), l.id.clone()));
    out
}

/// When the session at `dir` was made: its `session.json`'s modification time.
fn made(dir: &Path) -> Option<std::time::SystemTime> {
    std::fs::symlink_metadata(dir.join("session.json"))
        .and_then(|m| m.modified())
        .ok()
}

/// The `YYYYMMDDTHHMMSS` part of a session id, for ordering.
fn stamp(id: &str) -> String {
    let mut parts = id.rsplit('-');
    let _hex = parts.next();
    parts.next().unwrap_or("").to_string()
}

/// Tell the person about session directories whose state cannot be read (left by an older
/// tool, or damaged by hand): they are never chosen as "the latest".
fn warn_unreadable(all: &[Listed]) {
    for l in all {
        if let Err(e) = &l.state {
            crate::output::stderr_line(&format!(
                "interview: warning: session {} cannot be read and is skipped: {e}",
                l.id
            ));
        }
    }
}

/// The session named `id`, or the latest one.
pub(crate) fn find(worktree: &Path, id: Option<&str>) -> Result<Listed> {
    let mut all = list(worktree);
    match id {
        Some(id) => {
            let pos = all.iter().position(|l| l.id == id).ok_or_else(|| {
                Error::Usage(format!(
                    "no session `{id}` in {}; `interview status --all` lists them",
                    worktree.join(TIER_DIR).join("sessions").display()
                ))
            })?;
            Ok(all.swap_remove(pos))
        }
        None => {
            // The latest session that can be read; a later one that cannot is named, not chosen.
            let pos = all
                .iter()
                .rposition(|l| l.state.is_ok())
                .or_else(|| all.len().checked_sub(1));
            warn_unreadable(&all[pos.map_or(0, |p| p + 1)..]);
            pos.map(|p| all.swap_remove(p)).ok_or_else(|| {
                Error::Usage("no interview sessions here yet: start one with `interview reflect` or `interview intent`".into())
            })
        }
    }
}

/// Which session `interview answers` prints.
pub(crate) enum Which<'a> {
    Latest,
    Session(&'a str),
    /// The latest session about this subject (`intent 42`).
    Subject {
        kind: &'a str,
        id: &'a str,
    },
}

/// The session `interview answers` prints.
pub(crate) fn find_which(worktree: &Path, which: Which<'_>) -> Result<Listed> {
    match which {
        Which::Latest => find(worktree, None),
        Which::Session(id) => find(worktree, Some(id)),
        Which::Subject { kind, id } => list(worktree)
            .into_iter()
            .rev()
            .find(|l| {
                l.state
                    .as_ref()
                    .is_ok_and(|s| s.kind.as_str() == kind && s.subject_id == id)
            })
            .ok_or_else(|| {
                Error::Usage(format!(
                    "no session about {kind} {id} here; `interview status --all` lists them"
                ))
            }),
    }
}

/// The text of a session's `answers.json`, in the replay format.
pub(crate) fn answers_text(listed: &Listed) -> Result<String> {
    let path = listed.dir.join("answers.json");
    if std::fs::symlink_metadata(&path).is_err() {
        return Err(Error::State(format!(
            "session {} has no answers yet ({})",
            listed.id,
            path.display()
        )));
    }
    super::tier::read_own(&path)
}

/// One row of the status box.
#[derive(Debug, Serialize)]
pub(crate) struct TurnRow {
    pub turn: u32,
    /// `done`, `in_progress`, `not_started`, `failed`, `skipped`.
    pub status: &'static str,
    /// What the turn produced, e.g. `2 questions (1 answered, 1 skipped)`.
    pub detail: String,
    /// How long the runner ran for this turn, all attempts together.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// Tokens and cost of this turn, all attempts together, where the CLI reported them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<crate::runner::Usage>,
}

/// The stable `--json` form of `interview status`.
#[derive(Debug, Serialize)]
pub(crate) struct StatusJson<'a> {
    pub status_version: u32,
    pub session: &'a str,
    pub kind: &'a str,
    pub subject: &'a str,
    pub runner: &'a str,
    pub status: Status,
    pub turn: u32,
    pub max_turns: u32,
    pub sub_step: super::state::SubStep,
    pub retry_count: u32,
    pub retries: u32,
    pub turns: Vec<TurnRow>,
    pub action: String,
    pub key_decisions: &'a [super::state::KeyDecision],
    pub last_session: Option<&'a super::state::LastSession>,
    pub blockers: &'a [String],
    /// Why the latest attempt failed, in the runner's words where it gave them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_failure: Option<&'a str>,
    pub document: Option<&'a str>,
    /// Present while a run of the tool works on this session.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub running: Option<Running>,
    /// Why the session could not go on, when it was closed for that.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub closed: Option<&'a str>,
    /// For people: the question the session waits at (1-based) and how many the round has.
    #[serde(skip)]
    pub at_question: Option<(usize, usize)>,
}

/// The run of the tool that holds the worktree's lock for a session.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Running {
    pub pid: Option<u32>,
    pub command: String,
}

pub(crate) fn status_word(s: Status) -> &'static str {
    match s {
        Status::InProgress => "in progress",
        Status::WaitingForPerson => "waiting for you",
        Status::Done => "finished",
        Status::Failed => "failed",
        Status::Aborted => "stopped",
    }
}

/// A sub-step in words for people ("the runner's work"), as `status` says where a session is.
fn step_words(s: super::state::SubStep) -> &'static str {
    use super::state::SubStep::*;
    match s {
        Brief => "preparing the brief",
        Dispatch => "while the runner worked",
        Guard => "checking the repository after the runner",
        Receipt => "reading the runner's answer",
        Questions => "asking you questions",
        Synthesis => "writing the document",
        Consent => "asking whether to write the document",
    }
}

/// Where the session stands, in one phrase for people: "finished at turn 3 of 5", "waiting for
/// you at question 3 of 4", "stopped at turn 2 (while the runner worked)".
pub(crate) fn place(v: &StatusJson<'_>) -> String {
    let turn = v.turn.min(v.max_turns);
    let waiting = match (v.sub_step, v.at_question) {
        (super::state::SubStep::Questions, Some((q, n))) => {
            format!("waiting for you at question {q} of {n} (turn {turn})")
        }
        (super::state::SubStep::Consent, _) => {
            "waiting for you to decide whether to write the document".to_string()
        }
        _ => format!("waiting for your decision at turn {turn}"),
    };
    let step = step_words(v.sub_step);
    if v.closed.is_some() && v.running.is_none() {
        return format!("closed at turn {turn} ({step}): it could not go on");
    }
    match (v.status, v.running.is_some()) {
        (Status::Done, _) => format!("finished at turn {turn} of {}", v.max_turns),
        (Status::WaitingForPerson, true) => waiting,
        (Status::WaitingForPerson, false) => format!("stopped while {waiting}"),
        (Status::InProgress, true) => format!("working on turn {turn} of {} ({step})", v.max_turns),
        (Status::Failed, _) => format!("failed at turn {turn} ({step})"),
        (Status::Aborted | Status::InProgress, _) => format!("stopped at turn {turn} ({step})"),
    }
}

/// Build the status view of a state.
pub(crate) fn view(state: &State) -> StatusJson<'_> {
    let mut turns = Vec::new();
    let last_turn = state.max_turns.max(state.turn.min(state.max_turns));
    for t in 1..=last_turn {
        let round = state.rounds.iter().find(|r| r.turn == t);
        let detail = match round {
            Some(r) => {
                let answered = r.answers.iter().filter(|a| !a.skipped).count();
                let skipped = r.answers.iter().filter(|a| a.skipped).count();
                let mut d = format!(
                    "{} question(s): {answered} answered, {skipped} skipped",
                    r.questions.len()
                );
                if r.gate_skipped {
                    d = format!("{} question(s): skipped at the gate", r.questions.len());
                }
                d
            }
            None if t == state.turn && state.status == Status::Done => "document".into(),
            None => String::new(),
        };
        let status = if t < state.turn {
            "done"
        } else if t == state.turn {
            match state.status {
                Status::Done => "done",
                Status::Failed => "failed",
                _ => "in_progress",
            }
        } else if state.status == Status::Done {
            "skipped"
        } else {
            "not_started"
        };
        let runs: Vec<_> = state.runs.iter().filter(|r| r.turn == t).collect();
        let duration_ms = (!runs.is_empty()).then(|| runs.iter().map(|r| r.duration_ms).sum());
        let mut usage: Option<crate::runner::Usage> = None;
        for u in runs.iter().filter_map(|r| r.usage.as_ref()) {
            usage.get_or_insert_with(Default::default).add(u);
        }
        turns.push(TurnRow {
            turn: t,
            status,
            detail,
            duration_ms,
            usage,
        });
    }
    StatusJson {
        status_version: 1,
        session: &state.session,
        kind: state.kind.as_str(),
        subject: &state.subject_id,
        runner: &state.runner,
        status: state.status,
        turn: state.turn,
        max_turns: state.max_turns,
        sub_step: state.sub_step,
        retry_count: state.retry_count,
        retries: state.retries,
        turns,
        action: action(state),
        key_decisions: &state.key_decisions,
        last_session: state.last_session.as_ref(),
        blockers: &state.blockers,
        last_failure: state.last_failure.as_deref(),
        document: state.document.as_deref(),
        running: None,
        closed: state.closed.as_deref(),
        at_question: state
            .rounds
            .iter()
            .rfind(|r| r.turn == state.turn)
            .filter(|r| r.answers.len() < r.questions.len())
            .map(|r| (r.answers.len() + 1, r.questions.len())),
    }
}

fn action(state: &State) -> String {
    if let Some(why) = &state.closed {
        return format!(
            "nothing to resume: closed, it could not go on ({why}); `interview prune` removes it"
        );
    }
    match state.status {
        Status::Done => match &state.document {
            Some(d) => format!("nothing: the document is at {d}"),
            None => "nothing: the interview is finished".into(),
        },
        Status::Failed if state.retry_count >= state.retries => format!(
            "acknowledge the blocker, then `interview resume {}` retries turn {} afresh",
            state.session, state.turn
        ),
        Status::Failed => format!(
            "`interview resume {}` continues at turn {}",
            state.session, state.turn
        ),
        Status::Aborted | Status::InProgress | Status::WaitingForPerson => format!(
            "`interview resume {}` continues at turn {} ({})",
            state.session,
            state.turn,
            step_words(state.sub_step)
        ),
    }
}

pub(crate) fn sub_step_word(s: super::state::SubStep) -> &'static str {
    use super::state::SubStep::*;
    match s {
        Brief => "brief",
        Dispatch => "dispatch",
        Guard => "guard",
        Receipt => "receipt",
        Questions => "questions",
        Synthesis => "synthesis",
        Consent => "consent",
    }
}

/// True for a session that can still be continued.
pub(crate) fn unfinished(state: &State) -> bool {
    !matches!(state.status, Status::Done) && !state.abandoned && state.closed.is_none()
}

/// The latest unfinished session, for `interview resume` without an id.
pub(crate) fn latest_unfinished(worktree: &Path) -> Result<Listed> {
    let mut all = list(worktree);
    // An unreadable one later than the chosen one is named, not chosen.
    let pos = all
        .iter()
        .rposition(|l| l.state.as_ref().is_ok_and(unfinished));
    warn_unreadable(&all[pos.map_or(0, |p| p + 1)..]);
    pos.map(|p| all.swap_remove(p)).ok_or_else(|| {
        Error::Usage(
            "no unfinished session to resume here; `interview status --all` lists sessions".into(),
        )
    })
}

/// The latest unfinished session about the same subject, if any.
pub(crate) fn unfinished_for(worktree: &Path, kind: &str, subject_id: &str) -> Option<Listed> {
    list(worktree).into_iter().rev().find(|l| {
        l.state
            .as_ref()
            .map(|s| unfinished(s) && s.kind.as_str() == kind && s.subject_id == subject_id)
            .unwrap_or(false)
    })
}
