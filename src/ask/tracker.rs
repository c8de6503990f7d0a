//! The tracker choice of `intent` (several places hold the work item), put to the person as a
//! Choose box: the subject finder leaves the choice to its caller.

use super::{AskError, Decision, DecisionId, Person, choose};
use crate::error::{Error, Result};
use crate::subject::{PickTracker, TrackerChoice};

impl<P: Person> PickTracker for P {
    fn pick(&mut self, choice: &TrackerChoice) -> Result<usize> {
        let decision = Decision {
            id: DecisionId::Tracker,
            context: choice.context.clone(),
            options: choice.options.clone(),
            recommended: choice.recommended,
            reason: choice.reason.clone(),
        };
        let picked = choose(self, &decision).map_err(tracker_error)?;
        self.say(&format!(
            "Using {}.",
            crate::receipt::sanitize_line(&decision.options[picked]).0
        ));
        Ok(picked)
    }
}

fn tracker_error(e: AskError) -> Error {
    match e {
        AskError::Interrupted => Error::Interrupted { session: None },
        AskError::MissingDecision { id } => Error::MissingAnswer {
            message: format!(
                "the answers file has no decision `{id}` (which tracker holds the work item); add \"decisions\": {{ \"{id}\": \"A\" }} or pass --from FILE"
            ),
        },
        AskError::NoPerson(message) => Error::Usage(message),
        other => Error::TrackerChoice(other.into()),
    }
}
