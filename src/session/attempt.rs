//! One attempt at a turn: brief → snapshot → dispatch → snapshot → diff → receipt.
//!
//! Everything the tool writes outside the turn's own directory happens before the first
//! snapshot or after the second (docs/guard.md); the receipt is read and checked against all
//! that was asked and answered so far (docs/receipt.md).

use std::path::Path;

use super::failure::TurnFailure;
use super::state::{RunRecord, SubStep};
use super::transcript::TranscriptEvent;
use super::turn::{TURN_FILE, Turn};
use super::turn_files::TurnFiles;
use super::{Session, failure, tier};
use crate::ask::progress::Progress;
use crate::error::{Error, Result};
use crate::guard::{GuardError, GuardReport, GuardScope, Snapshot};
use crate::protocol::files as turn_files;
use crate::receipt::Receipt;
use crate::runner::dispatch::{self, Ending, Invocation};

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
        // So is the session's copy of a login its CLI refreshed, which the sandbox keeps as the
        // turn ends (no runner can write the worktree under it).
        let mut exclude = files.written_during_turn();
        exclude.push(self.dir.join(crate::sandbox::state::LOGINS_DIR));
        let scope = GuardScope {
            worktree: self.repo.worktree.clone(),
            exclude,
            memo: Some(self.tier.root.clone()),
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
        // After the turn's last snapshot, as every write of the tool's outside the turn's own
        // directory: what the next turn's first snapshot need not ask again. Losing it costs
        // only time.
        if let Some(tier) = &scope.memo {
            let _ = after.remember(tier);
        }

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
        let taken = match self.turn(turn, final_turn, &files).judge_ending(&outcome) {
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
        let this = self.turn(turn, final_turn, files);
        this.write_brief(&self.state.rounds, self.person.replayed(), previous_failure)?;
        this.invocation(&self.state.session)
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
        // What the turn before copied and is still the same is linked, not copied again; a
        // first turn links what the last session's latest turn copied.
        let earlier = match turn {
            1 => super::turn_files::latest_copies(&self.tier.sessions(), &self.dir),
            _ => Some(TurnFiles::new(self.turn_dir(turn - 1)).restore),
        };
        crate::guard::save_restore_copies_after(scope, &files.restore, earlier.as_deref())
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

    /// Read, sanitise and check the receipt, against everything asked and answered so far.
    fn take_receipt(
        &mut self,
        turn: u32,
        final_turn: bool,
        files: &TurnFiles,
        outcome: &dispatch::Outcome,
    ) -> Result<std::result::Result<Receipt, TurnFailure>> {
        let text = self.turn(turn, final_turn, files).receipt_text(outcome);
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
        let checked = self
            .turn(turn, final_turn, files)
            .check_receipt(&text, &self.state.rounds);
        match checked {
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

    /// The turn as the attempt sees it, reading the session's repository, subject and settings.
    fn turn<'s>(&'s self, number: u32, final_turn: bool, files: &'s TurnFiles) -> Turn<'s> {
        Turn {
            number,
            final_turn,
            files,
            repo: &self.repo,
            subject: &self.subject,
            settings: &self.settings,
            session_dir: &self.dir,
            confinement: &self.confinement,
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
