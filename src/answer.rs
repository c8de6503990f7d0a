//! An answer as it is recorded: the data the person's side produces and the brief, the state,
//! the transcript, the answers file and the built-in interviewer read.
//!
//! Not for: asking (that is `ask`) or deciding what an answer means (the runner does).

use serde::{Deserialize, Serialize};

/// One answer record: the four fields written for each question, in the state, the transcript
/// and the answers file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnswerRecord {
    pub question_id: String,
    pub answer_text: String,
    pub skipped: bool,
    pub response_time_ms: u64,
}
