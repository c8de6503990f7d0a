//! The on-change policy: what happens when the guard found that the runner changed the
//! repository during a turn — warn, stop, or ask the person (docs/guard.md, "Policy").

use super::Session;
use super::attempt::TurnFiles;
use super::state::Status;
use super::transcript::TranscriptEvent;
use crate::ask::{Decision, DecisionId, Options};
use crate::error::{Error, Result};
use crate::guard::{GuardReport, GuardScope};
use crate::receipt;

/// What to do when the runner (or a guarded command) changed the repository (`--on-change`,
/// `on_change` in the configuration).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OnChange {
    Fail,
    Ask,
    Warn,
}

impl OnChange {
    /// The value as it is written in a configuration file and on the command line.
    pub fn as_str(self) -> &'static str {
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
        let blocker = |how: &str| {
            format!(
                "Turn {turn}: the runner changed the repository ({how}); see turns/{turn:03}/guard.json"
            )
        };
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
                self.state.blockers.push(blocker("stopped"));
                self.state.note(
                    format!("the change guard stopped turn {turn}"),
                    "review the changes, then start again",
                );
                self.save()?;
                Err(Error::GuardViolation { report: shown })
            }
            OnChange::Ask => {
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
                let choice = self.decide(&decision)?;
                match choice {
                    AfterChange::Accept => {
                        self.person
                            .say("Accepted the changes; the interview goes on.");
                        Ok(())
                    }
                    AfterChange::Restore => {
                        // Copies the runner could have rewritten are not trusted.
                        let copies = self.shown(&files.restore);
                        if report
                            .changes
                            .iter()
                            .any(|c| c.subject.starts_with(&copies))
                        {
                            self.state.status = Status::Failed;
                            self.state
                                .blockers
                                .push(blocker("the runner touched the copies; nothing restored"));
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
                        self.state
                            .blockers
                            .push(blocker("restored hooks and git metadata, then stopped"));
                        self.save()?;
                        Err(Error::GuardViolation { report: shown })
                    }
                    AfterChange::Stop => {
                        self.state.status = Status::Failed;
                        self.state.blockers.push(blocker("stopped for review"));
                        self.save()?;
                        Err(Error::GuardViolation { report: shown })
                    }
                }
            }
        }
    }
}
