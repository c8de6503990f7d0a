//! What a runner's output says, read the way its spec declares: the receipt (from its file, or
//! from what it printed, out of its CLI's envelope), the tokens and cost it reported, a failure
//! a retry cannot fix, what it said when it failed, and the model runner's events.
//!
//! Not for: checking the receipt (that is `receipt`), or starting the runner (`dispatch`).

use std::path::Path;

use super::presets::{self, Unfixable, Usage};
use super::{ReceiptFrom, RunnerSpec};
use crate::interviewer::model::events::{self, Event};
use crate::protocol::limits;
use crate::receipt::{self, ReceiptError};

/// What a runner printed on stdout, as dispatch kept it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Printed<'a> {
    /// Up to the cap.
    pub kept: &'a str,
    /// How many bytes it printed in all.
    pub bytes: u64,
}

impl RunnerSpec {
    /// The receipt's text, from where this runner declares it: the file in `out`, or what it
    /// printed (unwrapped from its CLI's envelope, for a preset).
    pub(crate) fn receipt_text(
        &self,
        out: &Path,
        printed: Printed<'_>,
    ) -> Result<String, ReceiptError> {
        match self.receipt {
            ReceiptFrom::File => receipt::read(out),
            // Past the cap the rest was dropped as it was read: what is kept is not searched.
            ReceiptFrom::Stdout if printed.bytes > limits::MAX_STDOUT_BYTES as u64 => {
                Err(ReceiptError::OutputTooLarge {
                    size: usize::try_from(printed.bytes).unwrap_or(usize::MAX),
                    max: limits::MAX_STDOUT_BYTES,
                })
            }
            ReceiptFrom::Stdout => presets::extract(self.preset.as_deref(), printed.kept),
        }
    }

    /// How much of stdout dispatch keeps for this runner: all a printed receipt may take, or
    /// nothing when the receipt is a file.
    pub(crate) fn stdout_cap(&self) -> usize {
        match self.receipt {
            ReceiptFrom::Stdout => limits::MAX_STDOUT_BYTES,
            ReceiptFrom::File => 0,
        }
    }

    /// The tokens and cost its CLI printed for the turn (`None` unless a preset's CLI did).
    pub(crate) fn usage(&self, stdout: &str) -> Option<Usage> {
        presets::usage(self.preset.as_deref(), stdout)
    }

    /// The first failure a retry cannot fix that its CLI said in `log` (a preset's only).
    pub(crate) fn unfixable_in(&self, log: &str) -> Option<Unfixable> {
        presets::unfixable(self.preset.as_deref(), log)
    }

    /// What the runner said of its failure. A preset's CLI says why in its JSON, somewhere in
    /// the log; a runner of one's own says it last on stderr (the log interleaves stdout, so
    /// its last line is chance), unless it is an agent CLI run as a command of one's own,
    /// which still says why in its JSON.
    pub(crate) fn said_on_failure(
        &self,
        stdout: &str,
        log: &str,
        stderr_tail: &str,
    ) -> Option<String> {
        match self.preset.as_deref() {
            Some(preset) => presets::said_on_failure(Some(preset), stdout, log),
            None => presets::json_error(log)
                .or_else(|| presets::said_on_failure(None, stdout, stderr_tail)),
        }
    }

    /// The model runner's tool calls and notes in what it printed (none for other runners).
    pub(crate) fn model_events(&self, stdout: &str) -> Vec<Event> {
        events::of_runner(self.preset.as_deref(), stdout)
    }
}
