//! Local telemetry: `.interview/telemetry.jsonl`, never sent anywhere (docs/person.md, "What stays on your machine").
//!
//! One line per round of questions: how the entry gate was answered, how the loop ended (skip
//! type), the Q&A duration on every path, and positions of skipped questions — never question
//! text or answers. `interview stats` reads it back, tolerating lines it cannot parse.

use std::io::{BufRead, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::ask::clock::{Clock, SystemClock};
use crate::ask::{AbortReason, RoundOutcome, SKIP_ABORT, SKIP_ENTIRE};

/// The file name inside the local tier.
pub(crate) const FILE: &str = "telemetry.jsonl";

/// The `event` value of a round record.
pub(crate) const ROUND_EVENT: &str = "qa_round";

/// How a round ended, by the skip types docs/person.md names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum SkipType {
    /// `n` at the entry gate.
    PreLoop,
    /// `skip all` during the loop.
    MidLoopSkipAll,
    /// Some questions skipped one by one, none by `skip all`.
    PerQuestionOnly,
    /// Every question answered.
    None,
    /// Ctrl+C at the gate or in the loop.
    UserAbort,
    /// The runner asked nothing: no gate was shown.
    NoQuestions,
}

/// What the person did at the entry gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum GateRecord {
    UserSkipEntire,
    UserAbort,
    Proceeded,
}

/// One line of `telemetry.jsonl`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct RoundEvent {
    pub event: String,
    pub ts: String,
    pub workspace_id: Option<String>,
    pub replayed: bool,
    /// `None` when no gate was shown (no questions).
    pub gate: Option<GateRecord>,
    pub gate_response_time_ms: Option<u64>,
    pub skip_type: SkipType,
    /// Questions in the round.
    pub questions: usize,
    /// Questions answered (not skipped).
    pub answered: usize,
    /// 1-based positions of questions skipped (including the one `skip all` was typed at).
    pub skipped_positions: Vec<usize>,
    /// 1-based position where `skip all` was typed.
    pub skip_all_at: Option<usize>,
    /// 1-based position of the question shown when Ctrl+C came (mid-loop aborts only).
    pub abort_at: Option<usize>,
    /// The Q&A session duration (0 when the loop did not run).
    pub qa_duration_ms: u64,
}

impl RoundEvent {
    /// The event for a round's outcome, at time `ts`.
    pub(crate) fn from_outcome(outcome: &RoundOutcome, replayed: bool, ts: String) -> RoundEvent {
        let answers = outcome.qa_answers.as_deref().unwrap_or(&[]);
        let skipped_positions: Vec<usize> = answers
            .iter()
            .enumerate()
            .filter(|(_, a)| a.skipped)
            .map(|(i, _)| i + 1)
            .collect();
        let skip_reason = outcome
            .skip_telemetry
            .as_ref()
            .and_then(|t| t.skip_reason.as_deref());
        let gate = match (&outcome.skip_telemetry, skip_reason) {
            (None, _) => None,
            (Some(_), Some(SKIP_ENTIRE)) => Some(GateRecord::UserSkipEntire),
            (Some(_), Some(SKIP_ABORT)) => Some(GateRecord::UserAbort),
            (Some(_), _) => Some(GateRecord::Proceeded),
        };
        let skip_type = match (outcome.abort_reason, gate) {
            (Some(AbortReason::NoQuestions), _) => SkipType::NoQuestions,
            (Some(AbortReason::UserAbort), _) => SkipType::UserAbort,
            (None, Some(GateRecord::UserSkipEntire)) => SkipType::PreLoop,
            _ if outcome.skipped_all => SkipType::MidLoopSkipAll,
            _ if !skipped_positions.is_empty() => SkipType::PerQuestionOnly,
            _ => SkipType::None,
        };
        let mid_loop_abort =
            outcome.abort_reason == Some(AbortReason::UserAbort) && outcome.qa_answers.is_some();
        RoundEvent {
            event: ROUND_EVENT.into(),
            ts,
            workspace_id: outcome
                .skip_telemetry
                .as_ref()
                .map(|t| t.workspace_id.clone()),
            replayed,
            gate,
            gate_response_time_ms: outcome.gate_response_time_ms,
            skip_type,
            questions: outcome.question_count,
            answered: answers.iter().filter(|a| !a.skipped).count(),
            skip_all_at: outcome.skipped_all.then_some(answers.len()),
            abort_at: mid_loop_abort.then_some(answers.len() + 1),
            skipped_positions,
            qa_duration_ms: outcome.qa_duration_ms,
        }
    }
}

/// Append the round's record to `tier/telemetry.jsonl` (`tier` is the `.interview/` directory,
/// which must exist: this never creates the local tier).
pub(crate) fn record_round(
    tier: &Path,
    outcome: &RoundOutcome,
    replayed: bool,
) -> std::io::Result<()> {
    let event = RoundEvent::from_outcome(outcome, replayed, SystemClock::new().now_iso());
    append(tier, &event)
}

/// Append one event as one line.
pub(crate) fn append(tier: &Path, event: &RoundEvent) -> std::io::Result<()> {
    let mut line = serde_json::to_string(event).map_err(std::io::Error::other)?;
    line.push('\n');
    // Never appended through a link, nor blocked on a FIFO, put in its place.
    let mut f = match crate::input::open_append(&tier.join(FILE)) {
        Ok(f) => f,
        Err(crate::input::InputError::Io(e)) => return Err(e),
        Err(_) => return Err(std::io::Error::other("not a regular file")),
    };
    // One write of one line: O_APPEND keeps concurrent sessions' lines whole.
    f.write_all(line.as_bytes())
}

/// Skip rates and counts read back from the telemetry file.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub(crate) struct Stats {
    /// Rounds typed by a person (replayed rounds are counted apart and left out of every rate).
    pub rounds: usize,
    pub replayed_rounds: usize,
    pub no_questions: usize,
    /// Rounds whose entry gate was shown: the denominator of the gate rates.
    pub gate_shown: usize,
    /// `n` at the entry gate.
    pub pre_loop_skips: usize,
    pub pre_loop_skip_rate: Option<f64>,
    /// `skip all` in the loop, counted apart from pre-loop skips.
    pub mid_loop_skip_all: usize,
    pub mid_loop_skip_all_rate: Option<f64>,
    pub user_aborts: usize,
    pub per_question_only: usize,
    pub all_answered: usize,
    pub questions_presented: usize,
    pub questions_skipped: usize,
    pub question_skip_rate: Option<f64>,
    pub qa_duration_ms_total: u64,
    /// Lines that are not a round record this version understands.
    pub unreadable_lines: usize,
    /// Their 1-based line numbers (the first 20).
    pub unreadable_line_numbers: Vec<usize>,
    /// The runners' turns, from the sessions' state files (not from the telemetry file).
    pub runner: RunnerStats,
}

/// How long the runners ran and what their CLIs reported using, over every session.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub(crate) struct RunnerStats {
    /// Runs of a runner (attempts at a turn).
    pub runs: usize,
    pub duration_ms_total: u64,
    /// Runs whose CLI reported tokens or cost.
    pub runs_with_usage: usize,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cost_usd: f64,
}

impl RunnerStats {
    /// The report for a person (nothing when no runner ran).
    pub(crate) fn render(&self) -> String {
        if self.runs == 0 {
            return String::new();
        }
        let mut out = format!(
            "Runner turns: {} ({:.1} s in all)\n",
            self.runs,
            self.duration_ms_total as f64 / 1000.0
        );
        if self.runs_with_usage > 0 {
            out.push_str(&format!(
                "  reported by the CLI in {} of them: {} tokens in, {} out, ${:.4}\n",
                self.runs_with_usage, self.input_tokens, self.output_tokens, self.cost_usd
            ));
        }
        out
    }
}

fn rate(part: usize, whole: usize) -> Option<f64> {
    (whole > 0).then(|| part as f64 / whole as f64)
}

impl Stats {
    /// Read stats from the lines of a telemetry file. Never fails on content.
    pub(crate) fn read(input: impl BufRead) -> std::io::Result<Stats> {
        let mut s = Stats::default();
        for (i, line) in input.split(b'\n').enumerate() {
            let line = line?;
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let event = serde_json::from_slice::<RoundEvent>(&line)
                .ok()
                .filter(|e| e.event == ROUND_EVENT);
            match event {
                Some(e) => s.add(&e),
                None => {
                    s.unreadable_lines += 1;
                    if s.unreadable_line_numbers.len() < 20 {
                        s.unreadable_line_numbers.push(i + 1);
                    }
                }
            }
        }
        s.pre_loop_skip_rate = rate(s.pre_loop_skips, s.gate_shown);
        s.mid_loop_skip_all_rate = rate(s.mid_loop_skip_all, s.gate_shown);
        s.question_skip_rate = rate(s.questions_skipped, s.questions_presented);
        Ok(s)
    }

    fn add(&mut self, e: &RoundEvent) {
        if e.replayed {
            self.replayed_rounds += 1;
            return;
        }
        self.rounds += 1;
        if e.gate.is_some() {
            self.gate_shown += 1;
        }
        match e.skip_type {
            SkipType::PreLoop => self.pre_loop_skips += 1,
            SkipType::MidLoopSkipAll => self.mid_loop_skip_all += 1,
            SkipType::PerQuestionOnly => self.per_question_only += 1,
            SkipType::None => self.all_answered += 1,
            SkipType::UserAbort => self.user_aborts += 1,
            SkipType::NoQuestions => self.no_questions += 1,
        }
        self.questions_presented += e.answered + e.skipped_positions.len();
        self.questions_skipped += e.skipped_positions.len();
        self.qa_duration_ms_total = self.qa_duration_ms_total.saturating_add(e.qa_duration_ms);
    }

    /// The report for a person.
    pub(crate) fn render(&self) -> String {
        let pct = |r: Option<f64>| {
            r.map(|r| format!("  ({:.0}%)", r * 100.0))
                .unwrap_or_default()
        };
        let mut out = format!(
            "Q&A rounds: {}{}\n",
            self.rounds,
            if self.replayed_rounds > 0 {
                format!(
                    " (and {} replayed from answers files, not counted below)",
                    self.replayed_rounds
                )
            } else {
                String::new()
            }
        );
        out.push_str(&format!(
            "  entry gate shown:          {}\n",
            self.gate_shown
        ));
        out.push_str(&format!(
            "  skipped at the gate:       {}{}\n",
            self.pre_loop_skips,
            pct(self.pre_loop_skip_rate)
        ));
        out.push_str(&format!(
            "  \"skip all\" in the loop:    {}{}\n",
            self.mid_loop_skip_all,
            pct(self.mid_loop_skip_all_rate)
        ));
        out.push_str(&format!(
            "  interrupted (Ctrl+C):      {}\n",
            self.user_aborts
        ));
        out.push_str(&format!(
            "  some questions skipped:    {}\n",
            self.per_question_only
        ));
        out.push_str(&format!(
            "  every question answered:   {}\n",
            self.all_answered
        ));
        out.push_str(&format!(
            "  no questions asked:        {}\n",
            self.no_questions
        ));
        out.push_str(&format!(
            "Questions shown: {}, skipped: {}{}\n",
            self.questions_presented,
            self.questions_skipped,
            pct(self.question_skip_rate)
        ));
        let ran = self.rounds - self.no_questions - self.pre_loop_skips;
        if ran > 0 {
            out.push_str(&format!(
                "Q&A time: {} s in total, {} s per round on average\n",
                self.qa_duration_ms_total / 1000,
                self.qa_duration_ms_total / 1000 / ran as u64
            ));
        }
        if self.unreadable_lines > 0 {
            let nums: Vec<String> = self
                .unreadable_line_numbers
                .iter()
                .map(usize::to_string)
                .collect();
            out.push_str(&format!(
                "Ignored {} unreadable line(s) of {FILE} (line {}{})\n",
                self.unreadable_lines,
                nums.join(", "),
                if self.unreadable_lines > nums.len() {
                    ", …"
                } else {
                    ""
                }
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests;
