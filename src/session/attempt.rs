//! One attempt at a turn: brief → snapshot → dispatch → snapshot → diff → receipt.
//!
//! Everything the tool writes outside the turn's own directory happens before the first
//! snapshot or after the second (docs/guard.md); the receipt is read and checked against all
//! that was asked and answered so far (docs/receipt.md).

use std::collections::BTreeSet;
use std::path::Path;

use super::failure::TurnFailure;
use super::state::{RunRecord, SubStep};
use super::transcript::TranscriptEvent;
use super::turn_files::TurnFiles;
use super::{Session, failure, tier};
use crate::ask::progress::Progress;
use crate::brief::{self, BriefContext, BriefPaths, BriefSubject};
use crate::error::{Error, Result};
use crate::guard::{GuardError, GuardReport, GuardScope, Snapshot};
use crate::protocol::{self, TurnInfo, files as turn_files, limits};
use crate::receipt::{self, CheckContext, Receipt};
use crate::runner::dispatch::{self, Ending, Invocation};
use crate::runner::{Printed, TurnSetup};

/// A turn's own files (brief, schema, guard record) are not synced: every attempt writes them
/// afresh, and a resume after a crash runs the turn again from its brief.
const TURN_FILE: tier::Durability = tier::Durability::Replaced;

impl Session<'_> {
    /// One attempt at a turn. The outer error is fatal; the inner one is a failed turn.
    pub(super) fn attempt(
        &mut self,
        turn: u32,
        final_turn: bool,
        previous_failure: Option<&str>,
    ) -> Result<std::result::Result<Receipt, TurnFailure>> {
        let files = TurnFiles::new(self.turn_dir(turn));
        let (invocation, scratch) =
            self.prepare_turn(turn, final_turn, previous_failure, &files)?;

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
        self.transcript.record(&TranscriptEvent::TurnStart {
            turn,
            r#final: final_turn,
            retry: self.state.retry_count,
        })?;
        let before = self.snapshot_before(turn, &scope, &files)?;
        let outcome = self.run_runner(turn, &invocation, scratch)?;
        let run = self.record_run(turn, &outcome);
        let cut = outcome.stderr_tail.len() >= dispatch::STDERR_TAIL_BYTES;
        let stderr = failure::stderr_lines(&outcome.stderr_tail, cut);
        let after = self.snapshot_after(turn, &scope, &before)?;

        self.set_step(SubStep::Guard)?;
        let report = before.diff(&after);
        write_guard_record(turn, &files, &before, &after, &report)?;
        self.say_what_dispatch_saw(&outcome);
        self.record_turn_end(turn, &outcome, &report, run)?;
        // What the runner changed is dealt with before an interruption ends the turn: a
        // runner that writes and then signals the tool is caught like one that does not.
        if !report.is_empty() {
            self.on_guard_change(turn, &scope, &files, &report)?;
        }
        if outcome.ending == Ending::Interrupted {
            return Err(self.abort("interrupted while the runner worked on turn {turn}", turn));
        }

        self.set_step(SubStep::Receipt)?;
        let taken = match self.judge_ending(&outcome, &files) {
            Some(failure) => Ok(Err(failure)),
            None => self.take_receipt(turn, final_turn, &files, &outcome),
        };
        // What the runner last said on stderr goes with any failure of this attempt (but a line
        // the reason already quotes is not said twice).
        taken.map(|r| {
            r.map_err(|mut failure| {
                failure.stderr = stderr.into_iter().filter(|l| !failure.quotes(l)).collect();
                failure
            })
        })
    }

    /// The turn's directory made afresh (a failed attempt's files set aside), its brief written,
    /// and how the runner is started. What a preset is handed (wire schema, policy) is written
    /// here too, before the snapshot.
    fn prepare_turn(
        &mut self,
        turn: u32,
        final_turn: bool,
        previous_failure: Option<&str>,
        files: &TurnFiles,
    ) -> Result<(Invocation, Option<tempfile::TempDir>)> {
        self.set_aside_previous_attempt(&files.dir)?;
        std::fs::create_dir_all(&files.out)
            .map_err(|e| Error::io(format!("cannot create {}", files.out.display()), e))?;
        self.set_step(SubStep::Brief)?;
        self.write_brief(turn, final_turn, previous_failure, files)?;
        self.invocation(turn, final_turn, files)
    }

    /// The repository as it is before the runner starts, with restore copies kept. A signal
    /// during the snapshot ends the session as aborted (exit 130), as during the runner.
    fn snapshot_before(
        &mut self,
        turn: u32,
        scope: &GuardScope,
        files: &TurnFiles,
    ) -> Result<Snapshot> {
        const BEFORE: &str = "interrupted before the runner started turn {turn}";
        // `git gc --auto` or `git maintenance` that a commit just started: its repacking would
        // look like the runner's writes.
        let common_dir = self.repo.common_dir.clone();
        let person = &mut self.person;
        if !crate::guard::wait_for_git(&common_dir, crate::guard::GIT_WAIT_LIMIT, &mut |s| {
            person.say(s)
        }) {
            return Err(self.abort(BEFORE, turn));
        }
        crate::guard::save_restore_copies(scope, &files.restore)
            .map_err(|e| Error::guard_at(format!("cannot keep copies before turn {turn}"), e))?;
        // Nothing the tool writes in the local tier may still be under way when it is looked at.
        crate::subject::reflect::settle();
        let before = match Snapshot::take(scope) {
            Ok(s) => s,
            Err(GuardError::Interrupted) => return Err(self.abort(BEFORE, turn)),
            Err(e) => return Err(Error::guard_at(format!("before turn {turn}"), e)),
        };
        // A Ctrl+C that came while the brief or the snapshot was being made is not lost.
        if crate::signals::interrupted() {
            return Err(self.abort(BEFORE, turn));
        }
        Ok(before)
    }

    /// The runner started and waited for, with the progress line shown meanwhile; the preset's
    /// scratch directory goes when it ends.
    fn run_runner(
        &mut self,
        turn: u32,
        invocation: &Invocation,
        scratch: Option<tempfile::TempDir>,
    ) -> Result<dispatch::Outcome> {
        let progress = Progress::start(
            self.settings.progress,
            turn,
            self.settings.max_turns,
            self.state.retry_count,
            &self.settings.runner.name,
        );
        let outcome = dispatch::dispatch(invocation, Box::new(progress.reporter()));
        // Gone before anything else is said or asked.
        drop(progress);
        if let Ok(outcome) = &outcome {
            crate::sandbox::proxy::say_refused(&outcome.connections);
        }
        drop(scratch);
        outcome.map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound | std::io::ErrorKind::PermissionDenied => {
                Error::runner_not_started(failure::cannot_start(&invocation.argv[0], &e), e)
            }
            _ => Error::io("runner", e),
        })
    }

    /// How long the runner took and what it used, kept in the state's list of runs.
    fn record_run(&mut self, turn: u32, outcome: &dispatch::Outcome) -> RunRecord {
        let usage = self
            .settings
            .runner
            .usage(&String::from_utf8_lossy(&outcome.stdout));
        let duration_ms = u64::try_from(outcome.elapsed.as_millis()).unwrap_or(u64::MAX);
        let run = RunRecord {
            turn,
            duration_ms,
            usage,
        };
        self.state.runs.push(run.clone());
        run
    }

    /// The repository as the runner left it. A signal now ends the session before its changes
    /// were compared.
    fn snapshot_after(
        &mut self,
        turn: u32,
        scope: &GuardScope,
        before: &Snapshot,
    ) -> Result<Snapshot> {
        match Snapshot::take_after(scope, before) {
            Ok(s) => Ok(s),
            Err(GuardError::Interrupted) => Err(self.abort(
                "interrupted while the change guard checked turn {turn} (its changes were not compared: look at the repository before resuming)",
                turn,
            )),
            Err(e) => Err(Error::guard_at(format!("after turn {turn}"), e)),
        }
    }

    /// What dispatch had to clean up after the runner, told to the person.
    fn say_what_dispatch_saw(&mut self, outcome: &dispatch::Outcome) {
        if outcome.leftovers_killed > 0 {
            self.person.say(&format!(
                "The runner left {} process(es) behind ({} escaped its process group); all were killed.",
                outcome.leftovers_killed, outcome.escaped_killed
            ));
        }
        if !outcome.output_complete {
            self.person.say(
                "The runner's output was still held open by another process after it ended; what was written after that was not read.",
            );
        }
    }

    /// The turn's end in the transcript: the model's tool calls, every connection through the
    /// proxy, and how the runner ended.
    fn record_turn_end(
        &mut self,
        turn: u32,
        outcome: &dispatch::Outcome,
        report: &GuardReport,
        run: RunRecord,
    ) -> Result<()> {
        // What the model runner's model did: each tool call, and what it said of the server.
        self.record_model_events(turn, &outcome.stdout)?;
        // Where the runner's network went through the proxy: every connection, and each refusal.
        for c in &outcome.connections {
            self.transcript.record(&TranscriptEvent::Connection {
                turn,
                host: &c.host,
                port: c.port,
                allowed: c.allowed,
                bytes_up: c.bytes_up,
                bytes_down: c.bytes_down,
            })?;
        }
        self.transcript.record(&TranscriptEvent::TurnEnd {
            turn,
            ending: format!("{:?}", outcome.ending),
            leftovers_killed: outcome.leftovers_killed,
            escaped_killed: outcome.escaped_killed,
            output_complete: outcome.output_complete,
            log_truncated: outcome.log_truncated,
            guard_changes: !report.is_empty(),
            duration_ms: run.duration_ms,
            usage: run.usage.as_ref(),
        })
    }

    /// The model runner's tool calls and notes, into the transcript (nothing for other runners).
    fn record_model_events(&mut self, turn: u32, stdout: &[u8]) -> Result<()> {
        use crate::interviewer::model::events::Event;
        let events = self
            .settings
            .runner
            .model_events(&String::from_utf8_lossy(stdout));
        for event in events {
            let recorded = match &event {
                Event::ToolCall {
                    tool,
                    target,
                    bytes,
                    error,
                } => TranscriptEvent::ToolCall {
                    turn,
                    tool,
                    target,
                    bytes: *bytes,
                    error: error.as_deref(),
                },
                Event::Note { text } => TranscriptEvent::RunnerNote { turn, text },
                _ => continue,
            };
            self.transcript.record(&recorded)?;
        }
        Ok(())
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
            replayed: self.person.replayed(),
        };
        let paths = BriefPaths {
            receipt: files.receipt.display().to_string(),
            context: files.brief_json.display().to_string(),
            schema: files.schema.display().to_string(),
            returns: self.settings.runner.returns(),
        };
        let json = serde_json::to_vec_pretty(&ctx)
            .map_err(|e| Error::json("cannot encode the brief", e))?;
        tier::write_atomic(&files.brief_json, &json, TURN_FILE)?;
        tier::write_atomic(
            &files.brief_md,
            brief::render_markdown(&ctx, &self.subject.facts_markdown, &paths).as_bytes(),
            TURN_FILE,
        )?;
        tier::write_atomic(&files.schema, protocol::SCHEMA.as_bytes(), TURN_FILE)
    }

    /// How the runner is started for this turn: argv with placeholders filled (by the runner's
    /// setup, once), the documented environment, stdin, limits; and a preset's scratch
    /// directory, to keep for the turn.
    fn invocation(
        &self,
        turn: u32,
        final_turn: bool,
        files: &TurnFiles,
    ) -> Result<(Invocation, Option<tempfile::TempDir>)> {
        let spec = &self.settings.runner;
        if let Some(note) = &self.settings.sandbox_note {
            crate::sandbox::say_once(note);
        }
        let mut env = protocol::runner_env(
            &files.paths(),
            &TurnInfo {
                turn,
                final_turn,
                session: &self.state.session,
            },
        );
        let TurnSetup {
            argv,
            cwd,
            env: setup_env,
            scratch,
            agent,
        } = spec.prepare_turn(&files.paths(), &self.repo.worktree, &self.subject.facts)?;
        env.extend(setup_env);
        let allowed_env = crate::sandbox::env::allow_list(
            agent.map_or(&[][..], |a| a.variables),
            &self.settings.runner_env,
            env.iter().map(|(k, _)| k.as_str()),
        );
        let invocation = Invocation {
            argv,
            cwd,
            env,
            allowed_env,
            stdin: spec.brief_on_stdin.then(|| files.brief_md.clone()),
            log: files.log.clone(),
            log_cap: limits::RUNNER_LOG_BYTES,
            stdout_cap: spec.stdout_cap(),
            timeout: self.settings.turn_timeout,
            grace: self.settings.grace,
            verbose: self.settings.verbose,
            pid_file: Some(files.pid.clone()),
            sandbox: self.settings.sandbox.clone().map(|support| {
                crate::sandbox::Confinement {
                    disk_mib: self.settings.runner_disk,
                    extra_hidden: self.settings.hidden_stores.clone(),
                    ..crate::sandbox::Confinement::new(
                        support,
                        &self.repo.worktree,
                        &self.repo.common_dir,
                        agent,
                        self.settings.network,
                    )
                }
                .allowing(self.settings.allow_hosts.clone())
            }),
            // The turn's out/, and the preset's scratch working directory where it has one.
            writable: std::iter::once(files.out.clone())
                .chain(scratch.as_ref().map(|d| d.path().to_path_buf()))
                .collect(),
            activity: spec.events().map(|events| dispatch::Activity {
                events,
                root: self.repo.worktree.clone(),
            }),
            unfixable: spec.unfixable(),
        };
        Ok((invocation, scratch))
    }

    /// A runner that did not end cleanly failed its turn, whatever it wrote; what it said about
    /// it (a preset's error, or its last line) goes with the reason, and a failure a retry
    /// cannot fix that its CLI said (while it ran, or in its log) with the failure.
    fn judge_ending(&self, outcome: &dispatch::Outcome, files: &TurnFiles) -> Option<TurnFailure> {
        if matches!(outcome.ending, Ending::Exited(0) | Ending::Interrupted) {
            return None;
        }
        // The runner could have put a link or a FIFO in the log's place: neither is read.
        let mut full = Vec::new();
        if let Ok(log) = crate::input::open_regular(&files.log, crate::input::Links::Refuse) {
            use std::io::Read;
            let _ = log.take(limits::RUNNER_LOG_BYTES).read_to_end(&mut full);
        }
        let spec = &self.settings.runner;
        let unfixable = outcome
            .unfixable
            .clone()
            .or_else(|| spec.unfixable_in(&String::from_utf8_lossy(&full)));
        if let Some(said) = unfixable.as_ref().filter(|_| outcome.unfixable.is_some()) {
            // Stopped by the tool as soon as it said it.
            let reason = format!("the runner was stopped when it said: {}", said.said);
            return Some(TurnFailure::dispatch(reason).unfixable(unfixable));
        }
        let said = || {
            spec.said_on_failure(
                &String::from_utf8_lossy(&outcome.stdout),
                &String::from_utf8_lossy(&full),
                &String::from_utf8_lossy(&outcome.stderr_tail),
            )
            .map(|s| format!(": {s}"))
            .unwrap_or_default()
        };
        let reason = match outcome.ending {
            Ending::Exited(0) | Ending::Interrupted => return None,
            Ending::Exited(code) => {
                format!("the runner exited with status {code}{}", said())
            }
            Ending::Signalled(sig) if sig == libc::SIGXFSZ && self.settings.sandbox.is_some() => {
                format!(
                    "the runner wrote a file past the cap of {} MiB and was stopped (raise it with --runner-disk MIB)",
                    self.settings.runner_disk
                )
            }
            Ending::Signalled(sig) => format!("the runner was killed by signal {sig}"),
            Ending::OverLimit => format!(
                "the runner wrote more than {} MiB (or {} files) into its out/ and was stopped; what it wrote there is removed (raise it with --runner-disk MIB)",
                self.settings.runner_disk,
                crate::sandbox::leftovers::MAX_ENTRIES
            ),
            Ending::TimedOut => format!(
                "the runner did not finish within {} s and was stopped",
                self.settings.turn_timeout.as_secs()
            ),
        };
        Some(TurnFailure::dispatch(reason).unfixable(unfixable))
    }

    /// Read, sanitise and check the receipt, against everything asked and answered so far.
    fn take_receipt(
        &mut self,
        turn: u32,
        final_turn: bool,
        files: &TurnFiles,
        outcome: &dispatch::Outcome,
    ) -> Result<std::result::Result<Receipt, TurnFailure>> {
        let spec = &self.settings.runner;
        // The runner's spec says where its receipt is: its file, or what it printed.
        let text = spec.receipt_text(
            &files.out,
            Printed {
                kept: &String::from_utf8_lossy(&outcome.stdout),
                bytes: outcome.stdout_printed,
            },
        );
        // A Ctrl+C during the search (which it cuts short) ends the session, not just the turn.
        if crate::signals::interrupted() {
            return Err(self.abort(
                "interrupted while the receipt of turn {turn} was read",
                turn,
            ));
        }
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
        // What the work item states is not evidence of itself (see `docs/receipt.md`).
        let work_item = self.subject.facts.get("path").and_then(|p| p.as_str());
        let check = CheckContext {
            final_turn,
            asked_topics: &asked,
            answered_topics: &answered,
            repo_root: &self.repo.worktree,
            work_item,
        };
        match receipt::parse_and_check_as(&text, &check, spec.form()) {
            Ok((receipt, sanitized)) => {
                self.transcript.record(&TranscriptEvent::Receipt {
                    turn,
                    receipt: &receipt,
                    sanitized: &sanitized,
                })?;
                if !sanitized.is_empty() {
                    self.person
                        .say(&format!("Sanitised the runner's receipt: {sanitized}."));
                }
                Ok(Ok(receipt))
            }
            Err(e) => {
                // The structured list goes into the transcript; the brief gets the text.
                if !e.violations().is_empty() {
                    self.transcript.record(&TranscriptEvent::ReceiptRejected {
                        turn,
                        violations: e.violations(),
                    })?;
                }
                Ok(Err(TurnFailure::receipt(e.to_string())))
            }
        }
    }

    /// Keep a failed attempt's files beside the new one instead of reusing them.
    fn set_aside_previous_attempt(&self, dir: &Path) -> Result<()> {
        if !dir.join(turn_files::OUT_DIR).exists() && !dir.join(turn_files::RUNNER_LOG).exists() {
            return Ok(());
        }
        let mut n = 1;
        while dir.join(format!("attempt-{n}")).exists() {
            n += 1;
        }
        let keep = dir.join(format!("attempt-{n}"));
        std::fs::create_dir_all(&keep)
            .map_err(|e| Error::io(format!("cannot create {}", keep.display()), e))?;
        for name in [
            turn_files::OUT_DIR,
            turn_files::RUNNER_LOG,
            "guard.json",
            turn_files::BRIEF_MD,
            turn_files::BRIEF_JSON,
        ] {
            let from = dir.join(name);
            if from.symlink_metadata().is_ok() {
                std::fs::rename(&from, keep.join(name))
                    .map_err(|e| Error::io(format!("cannot move {}", from.display()), e))?;
            }
        }
        Ok(())
    }
}

/// The guard's record of the turn: both snapshots' digests and what changed between them.
fn write_guard_record(
    turn: u32,
    files: &TurnFiles,
    before: &Snapshot,
    after: &Snapshot,
    report: &GuardReport,
) -> Result<()> {
    let guard_json = serde_json::json!({
        "turn": turn,
        "before": before.digests()?,
        "after": after.digests()?,
        "report": report,
    });
    let guard_bytes = serde_json::to_vec_pretty(&guard_json)
        .map_err(|e| Error::State(format!("cannot encode the guard's record: {e}")))?;
    tier::write_atomic(&files.dir.join("guard.json"), &guard_bytes, TURN_FILE)
}
