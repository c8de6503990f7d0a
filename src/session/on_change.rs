//! The on-change policy: what happens when the guard found that the runner changed the
//! repository during a turn — warn, stop, or ask the person (docs/guard.md, "Policy").

use super::Session;
use super::state::Status;
use super::transcript::TranscriptEvent;
use super::turn_files::TurnFiles;
use crate::ask::{Decision, DecisionId, Options};
use crate::error::{Error, Result};
use crate::guard::{GuardReport, GuardScope};
use crate::receipt;

/// What to do when the runner (or a guarded command) changed the repository (`--on-change`,
/// `on_change` in the configuration).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum OnChange {
    Fail,
    Ask,
    Warn,
}

impl OnChange {
    /// The value as it is written in a configuration file and on the command line.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            OnChange::Fail => "fail",
            OnChange::Ask => "ask",
            OnChange::Warn => "warn",
        }
    }
}

/// What the person may do about a change the runner made (`--on-change ask`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AfterChange {
    Stop,
    Restore,
    Accept,
}

impl Options for AfterChange {
    const ALL: &'static [AfterChange] =
        &[AfterChange::Stop, AfterChange::Restore, AfterChange::Accept];
}

impl Session<'_> {
    /// Apply the `--on-change` policy to a non-empty guard report.
    pub(super) fn on_guard_change(
        &mut self,
        turn: u32,
        scope: &GuardScope,
        files: &TurnFiles,
        report: &GuardReport,
    ) -> Result<()> {
        let shown = receipt::sanitize(&report.to_string()).0;
        self.transcript.record(&TranscriptEvent::GuardViolation {
            turn,
            changes: report,
        })?;
        // An interrupted turn cannot ask: its change stops the session (or is warned of, as
        // the person chose), never left for a resume to take as its starting point.
        let policy = match (self.settings.on_change, crate::signals::interrupted()) {
            (OnChange::Ask, true) => OnChange::Fail,
            (policy, _) => policy,
        };
        match policy {
            OnChange::Warn => {
                self.person.say(&format!(
                    "Warning: the runner changed the repository during turn {turn}:\n{shown}"
                ));
                Ok(())
            }
            OnChange::Fail => {
                self.state.status = Status::Failed;
                self.state.blockers.push(blocker(turn, "stopped"));
                self.state.note(
                    format!("the change guard stopped turn {turn}"),
                    "review the changes, then start again",
                );
                self.save()?;
                Err(Error::GuardViolation { report: shown })
            }
            OnChange::Ask => self.ask_after_change(turn, scope, files, report, shown),
        }
    }

    /// `--on-change ask`: the person stops, restores or accepts what the runner changed.
    fn ask_after_change(
        &mut self,
        turn: u32,
        scope: &GuardScope,
        files: &TurnFiles,
        report: &GuardReport,
        shown: String,
    ) -> Result<()> {
        self.person.say(&format!(
            "The runner changed the repository during turn {turn}:\n{shown}"
        ));
        let decision = Decision {
            id: DecisionId::Guard,
            context: format!("the runner changed the repository in turn {turn}"),
            options: AfterChange::ALL
                .iter()
                .map(|o| match o {
                    AfterChange::Stop => "Stop and keep the changes for review".into(),
                    AfterChange::Restore => "Restore hooks and git metadata from the copies taken before the turn, then stop".into(),
                    AfterChange::Accept => "Accept the changes and continue the interview".into(),
                })
                .collect(),
            recommended: AfterChange::Stop.index(),
            reason: "nothing is lost and you can look at what the runner did".into(),
        };
        match self.decide(&decision)? {
            AfterChange::Accept => {
                self.person
                    .say("Accepted the changes; the interview goes on.");
                Ok(())
            }
            AfterChange::Restore => self.restore_and_stop(turn, scope, files, report, shown),
            AfterChange::Stop => {
                self.state.status = Status::Failed;
                self.state
                    .blockers
                    .push(blocker(turn, "stopped for review"));
                self.save()?;
                Err(Error::GuardViolation { report: shown })
            }
        }
    }

    /// Hooks and git metadata put back from the copies taken before the turn, then the session
    /// stops; copies the runner could have rewritten are not trusted.
    fn restore_and_stop(
        &mut self,
        turn: u32,
        scope: &GuardScope,
        files: &TurnFiles,
        report: &GuardReport,
        shown: String,
    ) -> Result<()> {
        let copies = self.shown(&files.restore);
        if report
            .changes
            .iter()
            .any(|c| c.subject.starts_with(&copies))
        {
            self.state.status = Status::Failed;
            self.state.blockers.push(blocker(
                turn,
                "the runner touched the copies; nothing restored",
            ));
            self.save()?;
            self.person.say(&format!(
                "The runner changed the copies in {copies}: nothing was restored. Repair the repository by hand."
            ));
            return Err(Error::GuardViolation { report: shown });
        }
        let summary = crate::guard::restore(scope, &files.restore)
            .map_err(|e| Error::guard_at("restore failed", e))?;
        self.person.say(&format!("Restored: {summary}"));
        self.state.status = Status::Failed;
        self.state.blockers.push(blocker(
            turn,
            "restored hooks and git metadata, then stopped",
        ));
        self.save()?;
        Err(Error::GuardViolation { report: shown })
    }
}

/// The blocker a change the runner made leaves: how the session stopped, and where to look.
fn blocker(turn: u32, how: &str) -> String {
    format!(
        "Turn {turn}: the runner changed the repository ({how}); see turns/{turn:03}/guard.json"
    )
}
