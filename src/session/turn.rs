//! A turn as one attempt at it sees it: what it reads (the repository, the subject, the run's
//! settings) and writes (only the turn's own directory) — the brief, how the runner is started,
//! how its ending is judged, and the receipt read and checked against all that was asked and
//! answered. The session around it keeps the state, the transcript and the person.

use std::collections::BTreeSet;
use std::path::Path;

use super::failure::TurnFailure;
use super::turn_files::TurnFiles;
use super::{Repo, Settings, tier};
use crate::brief::{self, BriefContext, BriefPaths, BriefSubject, Round};
use crate::error::{Error, Result};
use crate::protocol::{self, TurnInfo, limits};
use crate::receipt::{self, CheckContext, Receipt, ReceiptError, SanitizeReport};
use crate::runner::dispatch::{self, Ending, Invocation};
use crate::runner::{Printed, TurnSetup};
use crate::subject::Subject;

/// A turn's own files (brief, schema, guard record) are not synced: every attempt writes them
/// afresh, and a resume after a crash runs the turn again from its brief.
pub(super) const TURN_FILE: tier::Durability = tier::Durability::Replaced;

/// One turn: its number, whether it is the final one, its files, and what it reads.
pub(super) struct Turn<'s> {
    pub(super) number: u32,
    pub(super) final_turn: bool,
    pub(super) files: &'s TurnFiles,
    pub(super) repo: &'s Repo,
    pub(super) subject: &'s Subject,
    pub(super) settings: &'s Settings,
    /// The session's directory in the local tier.
    pub(super) session_dir: &'s Path,
    /// The run's sandbox, built at its first turn (see [`Turn::confinement`]).
    pub(super) confinement: &'s std::cell::OnceCell<Option<crate::sandbox::Confinement>>,
}

impl Turn<'_> {
    /// The run's confinement, built at its first turn, before its runner starts (the agent CLI
    /// is the runner's, the same every turn; `argv` its command line) and handed to each after
    /// (docs/sandbox.md).
    fn confinement(
        &self,
        agent: Option<crate::sandbox::Agent>,
        argv: &[String],
    ) -> Option<crate::sandbox::Confinement> {
        let built = self.confinement.get_or_init(|| {
            self.settings.sandbox.clone().map(|support| {
                crate::sandbox::Confinement {
                    disk_mib: self.settings.runner_disk,
                    extra_hidden: self.settings.hidden_stores.clone(),
                    logins: Some(self.session_dir.join(crate::sandbox::state::LOGINS_DIR)),
                    ..crate::sandbox::Confinement::new(
                        support,
                        &self.repo.worktree,
                        &self.repo.common_dir,
                        (agent, argv),
                        self.settings.network,
                    )
                }
                .allowing(self.settings.allow_hosts.clone())
            })
        });
        built.clone()
    }

    /// `brief.json`, `brief.md` and the receipt schema for this turn.
    pub(super) fn write_brief(
        &self,
        rounds: &[Round],
        replayed: bool,
        previous_failure: Option<&str>,
    ) -> Result<()> {
        let files = self.files;
        let ctx = BriefContext {
            interview_brief: brief::BRIEF_VERSION,
            kind: self.subject.kind,
            subject: BriefSubject {
                id: self.subject.id.clone(),
                title: self.subject.title.clone(),
                facts: self.subject.facts.clone(),
            },
            turn: self.number,
            max_turns: self.settings.max_turns,
            final_turn: self.final_turn,
            previous_failure: previous_failure.map(str::to_string),
            rounds: rounds.to_vec(),
            replayed,
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
    pub(super) fn invocation(
        &self,
        session: &str,
    ) -> Result<(Invocation, Option<tempfile::TempDir>)> {
        let files = self.files;
        let spec = &self.settings.runner;
        if let Some(note) = &self.settings.sandbox_note {
            crate::sandbox::say_once(note);
        }
        let mut env = protocol::runner_env(
            &files.paths(),
            &TurnInfo {
                turn: self.number,
                final_turn: self.final_turn,
                session,
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
        let sandbox = self.confinement(agent, &argv);
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
            sandbox,
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
    pub(super) fn judge_ending(&self, outcome: &dispatch::Outcome) -> Option<TurnFailure> {
        let files = self.files;
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

    /// The receipt's text, from where the runner's spec says it is: its file, or what it
    /// printed.
    pub(super) fn receipt_text(&self, outcome: &dispatch::Outcome) -> Result<String, ReceiptError> {
        self.settings.runner.receipt_text(
            &self.files.out,
            Printed {
                kept: &String::from_utf8_lossy(&outcome.stdout),
                bytes: outcome.stdout_printed,
            },
        )
    }

    /// The receipt parsed, sanitised and checked against everything asked and answered in
    /// `rounds`.
    pub(super) fn check_receipt(
        &self,
        text: &str,
        rounds: &[Round],
    ) -> Result<(Receipt, SanitizeReport), ReceiptError> {
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
            final_turn: self.final_turn,
            asked_topics: &asked,
            answered_topics: &answered,
            repo_root: &self.repo.worktree,
            work_item,
        };
        receipt::parse_and_check_as(text, &check, self.settings.runner.form())
    }
}
