//! The ids of the decisions the tool asks (the Choose box): the one home for the strings used in
//! answers files (`decisions.<id>`), the state file's key decisions and the transcript.
//!
//! See docs/person.md (decisions) and docs/ci.md (the answers file).

use serde::{Deserialize, Serialize};

/// A decision the tool asks; its string form is stable on disk and in answers files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DecisionId {
    /// Write the finished document (the consent gate).
    Consent,
    /// The document's path already exists.
    Overwrite,
    /// The runner changed the repository (`--on-change ask`).
    Guard,
    /// An unfinished session on the same subject exists.
    Unfinished,
    /// Several trackers hold the work item.
    Tracker,
    /// The runner failed its turn with the retries used up.
    RunnerFailed,
    /// `interview resume` of a session blocked by the circuit breaker.
    CircuitBreaker,
    /// A key decision only: a failed session's blocker, kept when it was resumed.
    Resume,
}

impl DecisionId {
    /// Every id, in a stable order.
    pub const ALL: [DecisionId; 8] = [
        DecisionId::Consent,
        DecisionId::Overwrite,
        DecisionId::Guard,
        DecisionId::Unfinished,
        DecisionId::Tracker,
        DecisionId::RunnerFailed,
        DecisionId::CircuitBreaker,
        DecisionId::Resume,
    ];

    /// The id as written on disk and in answers files.
    pub const fn as_str(self) -> &'static str {
        match self {
            DecisionId::Consent => "consent",
            DecisionId::Overwrite => "overwrite",
            DecisionId::Guard => "guard",
            DecisionId::Unfinished => "unfinished",
            DecisionId::Tracker => "tracker",
            DecisionId::RunnerFailed => "runner_failed",
            DecisionId::CircuitBreaker => "circuit_breaker",
            DecisionId::Resume => "resume",
        }
    }
}

impl std::fmt::Display for DecisionId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<str> for DecisionId {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for DecisionId {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

#[cfg(test)]
mod tests {
    use super::DecisionId;

    #[test]
    fn the_serde_form_is_the_string_form() {
        for id in DecisionId::ALL {
            let json = serde_json::to_string(&id).unwrap();
            assert_eq!(json, format!("\"{}\"", id.as_str()));
            let back: DecisionId = serde_json::from_str(&json).unwrap();
            assert_eq!(back, id);
        }
    }
}
