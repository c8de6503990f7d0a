//! A session: the turn loop (docs/sessions.md, docs/architecture.md), threading subject → brief →
//! runner (inside the guard) → receipt → person → document through the local tier.
//!
//! Its rooms: [`attempt`] is one try at a turn (brief → dispatch → guard → receipt),
//! [`retries`] what happens when a try fails, [`on_change`] the guard's policy, [`person`] what
//! is asked, [`finish`] the document. The state file and the transcript record every step.

mod attempt;
pub(crate) mod carried;
mod failure;
mod finish;
pub(crate) mod history;
pub(crate) mod lock;
mod on_change;
pub(crate) use on_change::OnChange;
mod person;
pub(crate) mod prune;
pub(crate) mod resume;
mod retries;
pub(crate) mod state;
mod synthesis;
mod test_hook;
pub(crate) mod tier;
pub(crate) mod transcript;
mod turn;
mod turn_files;

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::ask::Person;
use crate::document;
use crate::error::{Error, Result};
use crate::receipt::Receipt;
use crate::runner::RunnerSpec;
use crate::runner::dispatch;
use crate::subject::Subject;

use state::{State, Status, SubStep};
use tier::LocalTier;
use transcript::{Transcript, TranscriptEvent};

/// The repository an interview is about.
#[derive(Debug, Clone)]
pub(crate) struct Repo {
    pub worktree: PathBuf,
    pub common_dir: PathBuf,
    pub workspace_id: String,
}

/// Settings of one run, after flags and config files are merged (by the command layer).
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    pub runner: RunnerSpec,
    pub max_turns: u32,
    pub turn_timeout: Duration,
    pub grace: Duration,
    pub retries: u32,
    pub on_change: OnChange,
    /// `None`: the default path; `Some("-")`: standard output.
    pub out: Option<PathBuf>,
    pub yes: bool,
    pub verbose: bool,
    /// How the progress line is shown while a runner works.
    pub progress: crate::ask::progress::ProgressLook,
    /// `--clarify-into FILE` (intent).
    pub clarify_into: Option<PathBuf>,
    /// What the sandbox enforces on this machine; `None`: no sandbox (docs/sandbox.md).
    pub sandbox: Option<crate::sandbox::Support>,
    /// Said once at the first runner's start: what of the sandbox is missing here (with
    /// `--verbose`, what it enforces); `None` with `--sandbox off` or when all is enforced.
    pub sandbox_note: Option<String>,
    /// What the person lists in `runner_env` (their own config only): variables a runner gets
    /// besides the base set and its preset's (docs/sandbox.md).
    pub runner_env: Vec<String>,
    /// `--network`: what network a runner gets under the sandbox.
    pub network: crate::sandbox::Network,
    /// `--runner-disk`: the most a runner may write under the sandbox, in MiB.
    pub runner_disk: u64,
    /// `hide_credentials` of both config files: stores hidden besides the built-in list.
    pub hidden_stores: Vec<PathBuf>,
    /// What the person lists in `allow_hosts` (their own config only): hosts a runner may reach
    /// through the sandbox's proxy besides its preset's.
    pub allow_hosts: Vec<crate::sandbox::hosts::Host>,
}

/// A session's place in the local tier, made before anything is asked (so every answer,
/// even the choice of a work item, has somewhere to go). It is made as a hidden
/// `sessions/.new-<id>/` and becomes `sessions/<id>/` in one rename once its `session.json` and
/// `state.json` are written ([`Prepared::publish`]): no half-made session is ever listed.
#[derive(Debug, Clone)]
pub(crate) struct Prepared {
    pub tier: LocalTier,
    pub id: String,
    pub dir: PathBuf,
    published: bool,
}

/// The prefix of a session directory still being made.
pub(crate) const NEW_PREFIX: &str = ".new-";

impl Prepared {
    pub(crate) fn new(repo: &Repo, kind: &str, subject_id: &str) -> Result<Prepared> {
        let tier = LocalTier::open(&repo.worktree, &repo.common_dir)?;
        let id = tier::session_id(kind, subject_id);
        let dir = tier.sessions().join(format!("{NEW_PREFIX}{id}"));
        std::fs::create_dir_all(dir.join("turns"))
            .map_err(|e| Error::io(format!("cannot create {}", dir.display()), e))?;
        Ok(Prepared {
            tier,
            id,
            dir,
            published: false,
        })
    }

    pub(crate) fn answers_path(&self) -> PathBuf {
        self.dir.join("answers.json")
    }

    /// Write the session's files and move it into place: after this it is listed, resumable
    /// and complete.
    /// `replayed`: the answers come from a file ([`tier::Durability::of_session`]).
    pub(crate) fn publish(
        mut self,
        subject: &Subject,
        settings: &Settings,
        replayed: bool,
    ) -> Result<Prepared> {
        let durability = tier::Durability::of_session(replayed);
        SessionFile {
            session_file: 1,
            subject: subject.clone(),
            runner: settings.runner.clone(),
            out: settings.out.clone(),
            clarify_into: settings.clarify_into.clone(),
        }
        .save(&self.dir, durability)?;
        State {
            replayed,
            ..State::new(self.id.clone(), subject, settings)
        }
        .save(&self.dir.join("state.json"), durability)?;
        let place = self.tier.sessions().join(&self.id);
        std::fs::rename(&self.dir, &place)
            .map_err(|e| Error::io(format!("cannot create {}", place.display()), e))?;
        // The session's name is on the disk before anything is asked in it.
        if durability == tier::Durability::Synced {
            crate::atomic::sync_dir(&self.tier.sessions());
        }
        self.dir = place;
        self.published = true;
        Ok(self)
    }

    /// Remove the directory again when the session never started (e.g. an unknown tag).
    pub(crate) fn discard(self) {
        if !self.published {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// Remove what runs killed while making a session left behind (`sessions/.new-*`, temporary
/// files in the tier's `tmp/`). Only called with the worktree's lock held, so none of them is
/// in use now.
pub(crate) fn clean_unpublished(tier: &LocalTier) {
    if let Ok(entries) = std::fs::read_dir(tier.root.join(tier::TMP_DIR)) {
        for e in entries.flatten() {
            let _ = std::fs::remove_file(e.path());
        }
    }
    let Ok(entries) = std::fs::read_dir(tier.sessions()) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        if name.to_string_lossy().starts_with(NEW_PREFIX) && e.file_type().is_ok_and(|t| t.is_dir())
        {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// `session.json`: what a session is about and how it runs, written once, read by `resume`.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct SessionFile {
    pub session_file: u32,
    pub subject: Subject,
    pub runner: RunnerSpec,
    pub out: Option<PathBuf>,
    pub clarify_into: Option<PathBuf>,
}

impl SessionFile {
    pub(crate) fn load(dir: &Path) -> Result<SessionFile> {
        let path = dir.join("session.json");
        let text = tier::read_own(&path)?;
        serde_json::from_str(&text).map_err(|e| {
            Error::State(format!(
                "{} is corrupt or truncated (line {}, column {}): {e}",
                path.display(),
                e.line(),
                e.column()
            ))
        })
    }

    fn save(&self, dir: &Path, durability: tier::Durability) -> Result<()> {
        let json = serde_json::to_vec_pretty(self)
            .map_err(|e| Error::State(format!("cannot encode the session: {e}")))?;
        tier::write_atomic(&dir.join("session.json"), &json, durability)
    }
}

/// A running session.
pub(crate) struct Session<'p> {
    repo: Repo,
    tier: LocalTier,
    dir: PathBuf,
    state: State,
    subject: Subject,
    settings: Settings,
    person: &'p mut dyn Person,
    transcript: Transcript,
    /// "Already answered in an earlier interview" was said in this run: a later round's
    /// carried answers are listed under a shorter line.
    carried_said: bool,
    /// The sandbox of every runner this run starts: built at its first turn (when the runner's
    /// command line names its agent CLI) and handed to each turn after (docs/sandbox.md).
    confinement: std::cell::OnceCell<Option<crate::sandbox::Confinement>>,
}

impl<'p> Session<'p> {
    /// Start a new session on `subject` in the directory `prepare` made for it.
    pub(crate) fn create(
        repo: Repo,
        prepared: Prepared,
        subject: Subject,
        settings: Settings,
        person: &'p mut dyn Person,
    ) -> Result<Session<'p>> {
        let replayed = person.replayed();
        let prepared = if prepared.published {
            prepared
        } else {
            prepared.publish(&subject, &settings, replayed)?
        };
        let Prepared { tier, id, dir, .. } = prepared;
        let state = State {
            replayed,
            ..State::new(id, &subject, &settings)
        };
        let transcript = Transcript::open(&dir.join("transcript.jsonl"), replayed)?;
        let session = Session {
            repo,
            tier,
            dir,
            state,
            subject,
            settings,
            person,
            transcript,
            carried_said: false,
            confinement: std::cell::OnceCell::new(),
        };
        let mut session = session;
        session.transcript.record(&TranscriptEvent::SessionStart {
            session: &session.state.session,
            kind: session.subject.kind,
            subject: &session.subject.id,
            runner: &session.settings.runner.name,
            replayed,
        })?;
        // A re-run at a terminal starts from the earlier answers; a replay from its file only.
        if !replayed {
            let document = session.document_path();
            let carried = carried::earlier_answers(
                &session.repo.worktree,
                session.subject.kind,
                &session.subject.id,
                document.as_deref(),
            );
            if let Some(first) = carried.first() {
                session.person.say(&format!(
                    "{} answer(s) carried from {}: only what is still open is asked.",
                    carried.len(),
                    first.from
                ));
                session.record(|s| s.carried = carried)?;
            }
        }
        Ok(session)
    }

    /// Pick up an existing session where it stopped.
    pub(crate) fn open(
        repo: Repo,
        dir: PathBuf,
        state: State,
        subject: Subject,
        settings: Settings,
        person: &'p mut dyn Person,
    ) -> Result<Session<'p>> {
        let tier = LocalTier::open(&repo.worktree, &repo.common_dir)?;
        let transcript = Transcript::open(&dir.join("transcript.jsonl"), person.replayed())?;
        let mut session = Session {
            repo,
            tier,
            dir,
            state,
            subject,
            settings,
            person,
            transcript,
            carried_said: false,
            confinement: std::cell::OnceCell::new(),
        };
        // A runner orphaned when an earlier run of the tool was killed is ended first.
        let pid_file = session
            .turn_dir(session.state.turn)
            .join(crate::protocol::files::RUNNER_PID);
        if dispatch::end_orphan(&pid_file) {
            session.person.say(&format!(
                "Ended the runner of turn {} left over from the interrupted run.",
                session.state.turn
            ));
        }
        session.remove_killed_writes();
        // A smaller --max-turns on resume makes the current turn the final one, never skips it.
        session.settings.max_turns = session.settings.max_turns.max(session.state.turn);
        session.state.max_turns = session.settings.max_turns;
        session.state.retries = session.settings.retries;
        session.state.status = Status::InProgress;
        session.save()?;
        session.transcript.record(&TranscriptEvent::SessionResume {
            turn: session.state.turn,
            sub_step: session.state.sub_step,
        })?;
        Ok(session)
    }

    /// Save the state, synced when a person answers: what it records survives a power loss.
    /// The answers recorded so far are written first (a replayed round's lines wait for this
    /// save, [`Person::settle`]): `answers.json` is never behind the state.
    fn save(&mut self) -> Result<()> {
        self.person.settle().map_err(|e| match e {
            crate::ask::AskError::Io(e) => Error::io("saving the answers", e),
            e => Error::Ask(e.into()),
        })?;
        self.state.save(
            &self.dir.join("state.json"),
            tier::Durability::of_session(self.person.replayed()),
        )
    }

    /// Change the state with `change`, then save it synced: the way anything a resume needs is
    /// recorded (an answer, a decision, a round's end, a failure, a status the session ends in,
    /// a document about to be written).
    fn record(&mut self, change: impl FnOnce(&mut State)) -> Result<()> {
        change(&mut self.state);
        self.save()
    }

    /// Change the state with `change`, then save it without syncing: for what only says how far
    /// the current turn got (its sub-step, the person being waited for, a try that worked),
    /// which a resume does again from the turn's brief. A power loss leaves this save or an
    /// earlier one; the next [`Session::record`] makes it durable with its own
    /// (docs/architecture.md, "Durability").
    fn record_step(&mut self, change: impl FnOnce(&mut State)) -> Result<()> {
        change(&mut self.state);
        self.state
            .save(&self.dir.join("state.json"), tier::Durability::Replaced)
    }

    /// Record the sub-step the turn is at ([`Session::record_step`]): every sub-step is redone
    /// from the brief on resume, or (the questions, the consent gate) needs only what a synced
    /// save of its own records (the round's answers, the document being written).
    fn set_step(&mut self, step: SubStep) -> Result<()> {
        self.record_step(|s| s.sub_step = step)?;
        test_hook::pause(step, self.state.turn);
        Ok(())
    }

    /// Run the turn loop to its end. A run that ends in an error leaving the session as if it
    /// still went on (an output that cannot be written, a runner that cannot start) marks it
    /// failed, and closed when no answer is in it: there is nothing to resume.
    pub(crate) fn run(&mut self) -> Result<()> {
        let result = self.run_turns();
        self.end_logins();
        if let Err(e) = &result
            && matches!(
                self.state.status,
                Status::InProgress | Status::WaitingForPerson
            )
            // Not for a run that was only called wrongly (no terminal, a bad flag): called
            // right, the session goes on.
            && !matches!(
                e,
                Error::Interrupted { .. } | Error::ClosedOutput | Error::Usage(_)
            )
        {
            let why = e.to_string();
            let why = why.lines().next().unwrap_or("").to_string();
            let answered = self
                .state
                .rounds
                .iter()
                .any(|r| r.answers.iter().any(|a| !a.skipped));
            let session = self.state.session.clone();
            let _ = self.record(|s| {
                s.status = Status::Failed;
                if answered {
                    s.note(
                        format!("the run failed: {why}"),
                        format!("fix it, then `interview resume {session}` (the answers are kept)"),
                    );
                } else {
                    s.note(
                        format!("the run failed before any answer: {why}"),
                        "nothing: the session is closed; start the interview again",
                    );
                    s.closed = Some(why.clone());
                }
            });
        }
        result
    }

    /// Tell the person of each login the agent CLI refreshed during this run, which was kept
    /// for the run's turns only and never written to their own file, and remove it
    /// (docs/sandbox.md, "State directories of the presets").
    fn end_logins(&mut self) {
        let store = self.dir.join(crate::sandbox::state::LOGINS_DIR);
        let lines = match self.confinement.get() {
            Some(Some(confinement)) => confinement.end_logins(),
            // Left by a run killed before it could remove it (no turn ran in this one).
            None => crate::sandbox::state::end(&store, None, None),
            // No sandbox, so no view and no login kept: nothing there is the tool's to say.
            Some(None) => {
                let _ = crate::sandbox::leftovers::remove(&store);
                Vec::new()
            }
        };
        for line in lines {
            self.person.say(&line);
        }
    }

    fn run_turns(&mut self) -> Result<()> {
        // Killed after the document was written: the session only has to be marked done.
        if self.state.sub_step == SubStep::Consent
            && let Some(written) = self.document_written()
        {
            return self.finish_written(written);
        }
        // A session resumed in the middle of its questions finishes them first.
        if self.state.sub_step == SubStep::Questions
            && self.state.rounds.last().map(|r| r.turn) == Some(self.state.turn)
        {
            let turn = self.state.turn;
            let ended_early = self.ask_remaining(turn)?;
            self.next_turn(ended_early)?;
        }
        while self.state.turn <= self.settings.max_turns {
            let turn = self.state.turn;
            let final_turn = self.state.final_next || turn == self.settings.max_turns;
            let receipt = self.turn_with_retries(turn, final_turn)?;
            match receipt {
                Receipt::Ask(ask) => {
                    let ended_early = self.ask_round(turn, ask.questions)?;
                    self.next_turn(ended_early)?;
                }
                Receipt::Done(done) => return self.finish(done),
            }
        }
        // Unreachable in practice: the final turn only accepts `done`.
        Err(Error::NoDocument)
    }

    /// The end of a round: its outcome (kept in the last round by [`Session::put_questions`]),
    /// whether the next turn is the final one, and the next turn, in one synced save.
    fn next_turn(&mut self, final_next: bool) -> Result<()> {
        self.record(|s| {
            s.final_next |= final_next;
            s.turn += 1;
            s.sub_step = SubStep::Brief;
            s.status = Status::InProgress;
        })
    }

    /// Where the document goes, relative to the worktree when given so (the default place
    /// when no `--out`); `None` when it is printed.
    fn document_path(&self) -> Option<PathBuf> {
        match &self.settings.out {
            Some(p) if p.as_os_str() == "-" => None,
            Some(p) => Some(p.clone()),
            None => Some(PathBuf::from(document::default_out_path(
                self.subject.kind,
                self.subject.document_name(),
            ))),
        }
    }

    fn turn_dir(&self, turn: u32) -> PathBuf {
        self.dir.join("turns").join(format!("{turn:03}"))
    }

    /// A path as the person should see it: relative to the worktree when inside it.
    fn shown(&self, p: &Path) -> String {
        p.strip_prefix(&self.repo.worktree)
            .unwrap_or(p)
            .display()
            .to_string()
    }
}
