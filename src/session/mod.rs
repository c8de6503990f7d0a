//! A session: the turn loop of DESIGN §1, the local tier, the state file and the transcript.
//!
//! One turn: brief → snapshot → dispatch → snapshot → diff → receipt → questions → answers.

mod finish;
pub mod history;
mod person;
pub mod resume;
pub mod state;
pub mod tier;
pub mod transcript;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::ask::{Decision, Person};
use crate::brief::{self, BriefContext, BriefPaths, BriefSubject};
use crate::cli::OnChange;

use crate::error::{Error, Result};
use crate::guard::{GuardScope, Snapshot};
use crate::receipt::{self, CheckContext, Receipt};
use crate::runner::dispatch::{self, Ending, Invocation};
use crate::runner::{ReceiptFrom, RunnerSpec, TurnVars};
use crate::subject::Subject;

use state::{RetryEntry, State, Status, SubStep, now_iso};
use tier::LocalTier;
use transcript::Transcript;

/// The repository an interview is about.
#[derive(Debug, Clone)]
pub struct Repo {
    pub worktree: PathBuf,
    pub common_dir: PathBuf,
    pub workspace_id: String,
}

/// Settings of one run, after flags and config files are merged.
#[derive(Debug, Clone)]
pub struct Settings {
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
    /// `--clarify-into FILE` (intent).
    pub clarify_into: Option<PathBuf>,
}

const LOG_CAP: u64 = 1024 * 1024;
const STDOUT_CAP: usize = 4 * 1024 * 1024;

/// How a finished interview ended well.
#[derive(Debug)]
pub struct Finished {
    pub document: Option<PathBuf>,
}

/// A session's place in the local tier, made before anything is asked (so every answer,
/// even the choice of a work item, has somewhere to go).
#[derive(Debug, Clone)]
pub struct Prepared {
    pub tier: LocalTier,
    pub id: String,
    pub dir: PathBuf,
}

impl Prepared {
    pub fn new(repo: &Repo, kind: &str, subject_id: &str) -> Result<Prepared> {
        let tier = LocalTier::open(&repo.worktree, &repo.common_dir)?;
        let id = tier::session_id(kind, subject_id);
        let dir = tier.sessions().join(&id);
        std::fs::create_dir_all(dir.join("turns"))
            .map_err(|e| Error::io(format!("cannot create {}", dir.display()), e))?;
        Ok(Prepared { tier, id, dir })
    }

    pub fn answers_path(&self) -> PathBuf {
        self.dir.join("answers.json")
    }

    /// Remove the directory again when the session never started (e.g. an unknown tag).
    pub fn discard(self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// `session.json`: what a session is about and how it runs, written once, read by `resume`.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct SessionFile {
    pub session_file: u32,
    pub subject: Subject,
    pub runner: RunnerSpec,
    pub out: Option<PathBuf>,
    pub clarify_into: Option<PathBuf>,
}

impl SessionFile {
    pub fn load(dir: &Path) -> Result<SessionFile> {
        let path = dir.join("session.json");
        let text = std::fs::read_to_string(&path)
            .map_err(|e| Error::io(format!("cannot read {}", path.display()), e))?;
        serde_json::from_str(&text).map_err(|e| {
            Error::State(format!(
                "{} is corrupt or truncated (line {}, column {}): {e}",
                path.display(),
                e.line(),
                e.column()
            ))
        })
    }
}

/// For the resume tests: `INTERVIEW_TEST_PAUSE=<sub-step>@<turn>` makes the tool stop still at
/// that point (after saving the state), touching `INTERVIEW_TEST_PAUSE_MARK`, until it is killed.
fn test_pause(step: SubStep, turn: u32) {
    let Ok(spec) = std::env::var("INTERVIEW_TEST_PAUSE") else {
        return;
    };
    let want = format!("{}@{turn}", history::sub_step_word(step));
    if spec != want {
        return;
    }
    if let Ok(mark) = std::env::var("INTERVIEW_TEST_PAUSE_MARK") {
        let _ = std::fs::write(mark, &want);
    }
    loop {
        std::thread::sleep(Duration::from_secs(1));
    }
}

/// A running session.
pub struct Session<'p> {
    repo: Repo,
    tier: LocalTier,
    dir: PathBuf,
    state: State,
    subject: Subject,
    settings: Settings,
    person: &'p mut dyn Person,
    transcript: Transcript,
}

impl<'p> Session<'p> {
    /// Start a new session on `subject` in the directory `prepare` made for it.
    pub fn create(
        repo: Repo,
        prepared: Prepared,
        subject: Subject,
        settings: Settings,
        person: &'p mut dyn Person,
    ) -> Result<Session<'p>> {
        let Prepared { tier, id, dir } = prepared;
        let state = State {
            version: state::STATE_VERSION,
            session: id,
            kind: subject.kind,
            subject_id: subject.id.clone(),
            subject_title: subject.title.clone(),
            runner: settings.runner.name.clone(),
            status: Status::InProgress,
            turn: 1,
            max_turns: settings.max_turns,
            sub_step: SubStep::Brief,
            retry_count: 0,
            retries: settings.retries,
            retry_log: Vec::new(),
            blockers: Vec::new(),
            key_decisions: Vec::new(),
            last_session: None,
            rounds: Vec::new(),
            document: None,
            final_next: false,
            abandoned: false,
        };
        let transcript = Transcript::open(&dir.join("transcript.jsonl"))?;
        let mut session = Session {
            repo,
            tier,
            dir,
            state,
            subject,
            settings,
            person,
            transcript,
        };
        session.save()?;
        let file = SessionFile {
            session_file: 1,
            subject: session.subject.clone(),
            runner: session.settings.runner.clone(),
            out: session.settings.out.clone(),
            clarify_into: session.settings.clarify_into.clone(),
        };
        let json = serde_json::to_vec_pretty(&file)
            .map_err(|e| Error::State(format!("cannot encode the session: {e}")))?;
        tier::write_atomic(&session.dir.join("session.json"), &json)?;
        session.transcript.event(
            "session_start",
            serde_json::json!({
                "session": session.state.session,
                "kind": session.subject.kind,
                "subject": session.subject.id,
                "runner": session.settings.runner.name,
                "replayed": session.person.replayed(),
            }),
        )?;
        Ok(session)
    }

    /// Pick up an existing session where it stopped.
    pub fn open(
        repo: Repo,
        dir: PathBuf,
        state: State,
        subject: Subject,
        settings: Settings,
        person: &'p mut dyn Person,
    ) -> Result<Session<'p>> {
        let tier = LocalTier::open(&repo.worktree, &repo.common_dir)?;
        let transcript = Transcript::open(&dir.join("transcript.jsonl"))?;
        let mut session = Session {
            repo,
            tier,
            dir,
            state,
            subject,
            settings,
            person,
            transcript,
        };
        // A runner orphaned when an earlier run of the tool was killed is ended first.
        let pid_file = session.turn_dir(session.state.turn).join("runner.pid");
        if dispatch::end_orphan(&pid_file) {
            session.person.say(&format!(
                "Ended the runner of turn {} left over from the interrupted run.",
                session.state.turn
            ));
        }
        // A smaller --max-turns on resume makes the current turn the final one, never skips it.
        session.settings.max_turns = session.settings.max_turns.max(session.state.turn);
        session.state.max_turns = session.settings.max_turns;
        session.state.retries = session.settings.retries;
        session.state.status = Status::InProgress;
        session.save()?;
        session.transcript.event(
            "session_resume",
            serde_json::json!({ "turn": session.state.turn, "sub_step": session.state.sub_step }),
        )?;
        Ok(session)
    }

    pub fn id(&self) -> &str {
        &self.state.session
    }

    fn save(&self) -> Result<()> {
        self.state.save(&self.dir.join("state.json"))
    }

    fn set_step(&mut self, step: SubStep) -> Result<()> {
        self.state.sub_step = step;
        self.save()?;
        test_pause(step, self.state.turn);
        Ok(())
    }

    /// Run the turn loop to its end.
    pub fn run(&mut self) -> Result<Finished> {
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
        Err(Error::Other(
            "the interview ended without a document".into(),
        ))
    }

    fn next_turn(&mut self, final_next: bool) -> Result<()> {
        self.state.final_next |= final_next;
        self.state.turn += 1;
        self.state.sub_step = SubStep::Brief;
        self.state.status = Status::InProgress;
        self.save()
    }

    /// One turn, retried from the same sub-step until it yields a receipt or retries run out.
    fn turn_with_retries(&mut self, turn: u32, final_turn: bool) -> Result<Receipt> {
        let mut previous_failure: Option<String> = None;
        loop {
            match self.attempt(turn, final_turn, previous_failure.as_deref())? {
                Ok(receipt) => {
                    self.state.retry_count = 0;
                    self.state.retry_log.clear();
                    self.save()?;
                    return Ok(receipt);
                }
                Err(failure) => {
                    let reason = failure.reason();
                    self.transcript.event(
                        "turn_failed",
                        serde_json::json!({ "turn": turn, "attempt": self.state.retry_count + 1, "reason": reason }),
                    )?;
                    self.person.say(&format!(
                        "The runner's turn {turn} failed: {}",
                        receipt::sanitize(&reason).0
                    ));
                    if self.state.retry_count >= self.settings.retries {
                        let attempts = self.state.retry_count + 1;
                        self.state.status = Status::Failed;
                        self.state.blockers.push(format!(
                            "The runner `{}` failed {attempts} consecutive times at turn {turn}, sub-step {}. \
                             Last failure: {reason}. Auto-retry exhausted.",
                            self.state.runner,
                            failure.sub_step_name()
                        ));
                        self.state.note(
                            format!("turn {turn} failed {attempts} times"),
                            format!(
                                "look at turns/{turn:03}/runner.log, fix the runner, then `interview resume {}`",
                                self.state.session
                            ),
                        );
                        self.save()?;
                        if self.person.replayed() {
                            return Err(Error::RunnerFailed {
                                turn,
                                attempts,
                                reason,
                            });
                        }
                        let choice = self.decide(&Decision {
                            id: "runner_failed".into(),
                            context: format!(
                                "the runner failed {attempts} times in a row at turn {turn}: {}",
                                receipt::sanitize_line(&reason)
                                    .0
                                    .chars()
                                    .take(160)
                                    .collect::<String>()
                            ),
                            options: vec![
                                "Retry with a fresh brief".into(),
                                "Stop and keep the answers (resume later)".into(),
                                "Abort: investigate and fix the runner by hand".into(),
                            ],
                            recommended: 0,
                            reason: "a fresh brief often resolves persistent failures".into(),
                        })?;
                        match choice {
                            0 => {
                                self.state.status = Status::InProgress;
                                self.state.retry_count = 0;
                                self.state.retry_log.clear();
                                self.state.blockers.pop();
                                self.save()?;
                                previous_failure = None;
                                continue;
                            }
                            1 => {
                                self.state.status = Status::Failed;
                                self.save()?;
                            }
                            _ => {
                                self.state.status = Status::Aborted;
                                self.save()?;
                            }
                        }
                        return Err(Error::RunnerFailed {
                            turn,
                            attempts,
                            reason,
                        });
                    }
                    self.state.retry_count += 1;
                    self.state.retry_log.push(RetryEntry {
                        at: now_iso(),
                        turn,
                        sub_step: failure.sub_step,
                        reason: reason.clone(),
                    });
                    self.save()?;
                    previous_failure = Some(reason);
                }
            }
        }
    }

    fn turn_dir(&self, turn: u32) -> PathBuf {
        self.dir.join("turns").join(format!("{turn:03}"))
    }

    /// One attempt at a turn. The outer error is fatal; the inner one is a failed turn.
    fn attempt(
        &mut self,
        turn: u32,
        final_turn: bool,
        previous_failure: Option<&str>,
    ) -> Result<std::result::Result<Receipt, TurnFailure>> {
        let files = TurnFiles::new(self.turn_dir(turn));
        self.set_aside_previous_attempt(&files.dir)?;
        std::fs::create_dir_all(&files.out)
            .map_err(|e| Error::io(format!("cannot create {}", files.out.display()), e))?;
        self.set_step(SubStep::Brief)?;
        self.write_brief(turn, final_turn, previous_failure, &files)?;

        // Everything the tool writes outside the turn's own directory happens before the first
        // snapshot or after the second: inside that window, any change is the runner's.
        //
        // Of the turn's own directory only what the runner and the dispatch write during the
        // turn is left out: a runner that touches its brief or the restore copies is caught.
        let scope = GuardScope {
            worktree: self.repo.worktree.clone(),
            exclude: files.written_during_turn(),
        };
        self.set_step(SubStep::Dispatch)?;
        self.transcript.event(
            "turn_start",
            serde_json::json!({ "turn": turn, "final": final_turn, "retry": self.state.retry_count }),
        )?;
        crate::guard::save_restore_copies(&scope, &files.restore)
            .map_err(|e| Error::Guard(format!("cannot keep copies before turn {turn}: {e}")))?;
        let before =
            Snapshot::take(&scope).map_err(|e| Error::Guard(format!("before turn {turn}: {e}")))?;
        // A Ctrl+C that came while the brief or the snapshot was being made is not lost.
        if crate::signals::interrupted() {
            return Err(self.abort("interrupted before the runner started turn {turn}", turn));
        }
        let invocation = self.invocation(turn, final_turn, &files);
        let outcome = dispatch::dispatch(&invocation).map_err(|e| Error::io("runner", e))?;
        let after = Snapshot::take_after(&scope, &before)
            .map_err(|e| Error::Guard(format!("after turn {turn}: {e}")))?;

        self.set_step(SubStep::Guard)?;
        let report = before.diff(&after);
        let guard_json = serde_json::json!({
            "turn": turn,
            "before": before.digests()?,
            "after": after.digests()?,
            "report": &report,
        });
        tier::write_atomic(
            &files.dir.join("guard.json"),
            &serde_json::to_vec_pretty(&guard_json).unwrap_or_default(),
        )?;
        if outcome.leftovers_killed > 0 {
            self.person.say(&format!(
                "The runner left {} process(es) behind ({} escaped its process group); all were killed.",
                outcome.leftovers_killed, outcome.escaped_killed
            ));
        }
        self.transcript.event(
            "turn_end",
            serde_json::json!({
                "turn": turn,
                "ending": format!("{:?}", outcome.ending),
                "leftovers_killed": outcome.leftovers_killed,
                "escaped_killed": outcome.escaped_killed,
                "log_truncated": outcome.log_truncated,
                "guard_changes": !report.is_empty(),
            }),
        )?;
        if outcome.ending == Ending::Interrupted {
            return Err(self.abort("interrupted while the runner worked on turn {turn}", turn));
        }
        if !report.is_empty() {
            self.on_guard_change(turn, &scope, &files, &report)?;
        }

        self.set_step(SubStep::Receipt)?;
        if let Some(failure) = self.judge_ending(outcome.ending) {
            return Ok(Err(failure));
        }
        self.take_receipt(turn, final_turn, &files, &outcome.stdout)
    }

    /// `brief.json`, `brief.md` and the receipt schema for this turn.
    fn write_brief(
        &self,
        turn: u32,
        final_turn: bool,
        previous_failure: Option<&str>,
        files: &TurnFiles,
    ) -> Result<()> {
        let ctx = BriefContext {
            interview_brief: brief::BRIEF_VERSION,
            kind: self.subject.kind,
            subject: BriefSubject {
                id: self.subject.id.clone(),
                title: self.subject.title.clone(),
                facts: self.subject.facts.clone(),
            },
            turn,
            max_turns: self.settings.max_turns,
            final_turn,
            previous_failure: previous_failure.map(str::to_string),
            rounds: self.state.rounds.clone(),
        };
        let paths = BriefPaths {
            receipt: files.receipt.display().to_string(),
            context: files.brief_json.display().to_string(),
            schema: files.schema.display().to_string(),
        };
        let json = serde_json::to_vec_pretty(&ctx)
            .map_err(|e| Error::Other(format!("cannot encode the brief: {e}")))?;
        tier::write_atomic(&files.brief_json, &json)?;
        tier::write_atomic(
            &files.brief_md,
            brief::render_markdown(&ctx, &self.subject.facts_markdown, &paths).as_bytes(),
        )?;
        tier::write_atomic(&files.schema, crate::receipt::SCHEMA.as_bytes())
    }

    /// How the runner is started for this turn: argv with placeholders filled, the documented
    /// environment, stdin, limits.
    fn invocation(&self, turn: u32, final_turn: bool, files: &TurnFiles) -> Invocation {
        let spec = &self.settings.runner;
        let shown = |p: &Path| p.display().to_string();
        let env = [
            ("INTERVIEW_BRIEF", shown(&files.brief_md)),
            ("INTERVIEW_CONTEXT", shown(&files.brief_json)),
            ("INTERVIEW_OUT", shown(&files.out)),
            ("INTERVIEW_RECEIPT", shown(&files.receipt)),
            ("INTERVIEW_SCHEMA", shown(&files.schema)),
            ("INTERVIEW_TURN", turn.to_string()),
            (
                "INTERVIEW_FINAL",
                if final_turn { "1" } else { "0" }.to_string(),
            ),
            ("INTERVIEW_SESSION", self.state.session.clone()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        let argv = spec.argv_for_turn(&TurnVars {
            schema: &shown(&files.schema),
            schema_text: &schema_for_cli(),
            out: &shown(&files.out),
            brief: &shown(&files.brief_md),
            receipt: &shown(&files.receipt),
        });
        Invocation {
            argv,
            cwd: self.repo.worktree.clone(),
            env,
            stdin: spec.brief_on_stdin.then(|| files.brief_md.clone()),
            log: files.dir.join("runner.log"),
            log_cap: LOG_CAP,
            stdout_cap: if spec.receipt == ReceiptFrom::Stdout {
                STDOUT_CAP
            } else {
                0
            },
            timeout: self.settings.turn_timeout,
            grace: self.settings.grace,
            verbose: self.settings.verbose,
            pid_file: Some(files.dir.join("runner.pid")),
        }
    }

    /// A runner that did not end cleanly failed its turn, whatever it wrote.
    fn judge_ending(&self, ending: Ending) -> Option<TurnFailure> {
        let reason = match ending {
            Ending::Exited(0) | Ending::Interrupted => return None,
            Ending::Exited(code) => {
                format!("the runner exited with status {code} (see runner.log)")
            }
            Ending::Signalled(sig) => format!("the runner was killed by signal {sig}"),
            Ending::TimedOut => format!(
                "the runner did not finish within {} s and was stopped",
                self.settings.turn_timeout.as_secs()
            ),
        };
        Some(TurnFailure::dispatch(reason))
    }

    /// Read, sanitise and check the receipt, against everything asked and answered so far.
    fn take_receipt(
        &mut self,
        turn: u32,
        final_turn: bool,
        files: &TurnFiles,
        stdout: &[u8],
    ) -> Result<std::result::Result<Receipt, TurnFailure>> {
        let spec = &self.settings.runner;
        let text = match spec.receipt {
            ReceiptFrom::File => receipt::read(&files.out),
            ReceiptFrom::Stdout => crate::runner::presets::extract(
                spec.preset.as_deref(),
                &String::from_utf8_lossy(stdout),
            ),
        };
        let text = match text {
            Ok(t) => t,
            Err(e) => return Ok(Err(TurnFailure::receipt(e.to_string()))),
        };
        let rounds = &self.state.rounds;
        let asked: BTreeSet<String> = rounds
            .iter()
            .flat_map(|r| r.questions.iter().map(|q| q.topic.clone()))
            .collect();
        let answered: BTreeSet<String> = rounds
            .iter()
            .flat_map(|r| r.answers.iter())
            .filter(|a| !a.skipped)
            .map(|a| a.question_id.clone())
            .collect();
        let check = CheckContext {
            final_turn,
            asked_topics: &asked,
            answered_topics: &answered,
            repo_root: &self.repo.worktree,
        };
        match receipt::parse_and_check(&text, &check) {
            Ok((receipt, sanitized)) => {
                self.transcript.event(
                    "receipt",
                    serde_json::json!({ "turn": turn, "receipt": &receipt, "sanitized": &sanitized }),
                )?;
                if !sanitized.is_empty() {
                    self.person
                        .say(&format!("Sanitised the runner's receipt: {sanitized}."));
                }
                Ok(Ok(receipt))
            }
            Err(e) => {
                // The structured list goes into the transcript; the brief gets the text.
                if !e.violations().is_empty() {
                    self.transcript.event(
                        "receipt_rejected",
                        serde_json::json!({ "turn": turn, "violations": e.violations() }),
                    )?;
                }
                Ok(Err(TurnFailure::receipt(e.to_string())))
            }
        }
    }

    /// Keep a failed attempt's files beside the new one instead of reusing them.
    fn set_aside_previous_attempt(&self, dir: &Path) -> Result<()> {
        if !dir.join("out").exists() && !dir.join("runner.log").exists() {
            return Ok(());
        }
        let mut n = 1;
        while dir.join(format!("attempt-{n}")).exists() {
            n += 1;
        }
        let keep = dir.join(format!("attempt-{n}"));
        std::fs::create_dir_all(&keep)
            .map_err(|e| Error::io(format!("cannot create {}", keep.display()), e))?;
        for name in ["out", "runner.log", "guard.json", "brief.md", "brief.json"] {
            let from = dir.join(name);
            if from.symlink_metadata().is_ok() {
                std::fs::rename(&from, keep.join(name))
                    .map_err(|e| Error::io(format!("cannot move {}", from.display()), e))?;
            }
        }
        Ok(())
    }
}

/// The receipt schema as agent CLIs accept it inline: without its `$schema` key (Claude Code
/// 2.1 silently ignores a schema that declares draft 2020-12).
fn schema_for_cli() -> String {
    match serde_json::from_str::<serde_json::Value>(crate::receipt::SCHEMA) {
        Ok(serde_json::Value::Object(mut map)) => {
            map.remove("$schema");
            serde_json::Value::Object(map).to_string()
        }
        _ => crate::receipt::SCHEMA.to_string(),
    }
}

/// The files of one turn in the local tier.
struct TurnFiles {
    dir: PathBuf,
    out: PathBuf,
    restore: PathBuf,
    receipt: PathBuf,
    brief_md: PathBuf,
    brief_json: PathBuf,
    schema: PathBuf,
}

impl TurnFiles {
    fn new(dir: PathBuf) -> TurnFiles {
        let out = dir.join("out");
        TurnFiles {
            restore: dir.join("restore"),
            receipt: out.join(crate::receipt::RECEIPT_FILE),
            brief_md: dir.join("brief.md"),
            brief_json: dir.join("brief.json"),
            schema: dir.join("receipt.schema.json"),
            out,
            dir,
        }
    }
}

impl TurnFiles {
    /// What is written while the runner works: its `out/`, and the log and pid file that
    /// dispatch keeps for it.
    fn written_during_turn(&self) -> Vec<PathBuf> {
        vec![
            self.out.clone(),
            self.dir.join("runner.log"),
            self.dir.join("runner.pid"),
        ]
    }
}

/// Why one attempt at a turn failed.
#[derive(Debug)]
struct TurnFailure {
    sub_step: SubStep,
    reason: String,
}

impl TurnFailure {
    fn dispatch(reason: String) -> Self {
        TurnFailure {
            sub_step: SubStep::Dispatch,
            reason,
        }
    }
    fn receipt(reason: String) -> Self {
        TurnFailure {
            sub_step: SubStep::Receipt,
            reason,
        }
    }
    fn reason(&self) -> String {
        self.reason.clone()
    }
    fn sub_step_name(&self) -> &'static str {
        match self.sub_step {
            SubStep::Dispatch => "dispatch",
            _ => "receipt",
        }
    }
}
