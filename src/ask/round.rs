//! One round of questions: the entry gate, then the question loop (docs/person.md), each step
//! reported as it happens so the session saves it before it takes effect.

use super::clock::Clock;
use super::{
    AbortReason, AnswerRecord, AskError, GateChoice, MAX_REASKS, Person, QaSessionResult, Reply,
    RoundOutcome, SKIP_ABORT, SKIP_ENTIRE, SkipTelemetry, bad_replay_value, classify_gate,
    classify_reply, inconsistent, render,
};
use crate::receipt::Question;

/// One step of a round, reported as it happens so the caller can save it before it takes
/// effect (a kill right after it loses nothing).
#[derive(Debug, Clone, Copy)]
pub(crate) enum RoundStep<'a> {
    /// The person passed the entry gate.
    GatePassed,
    /// The person skipped the round at the gate.
    GateSkipped,
    /// An answer (or a skip) to one question; `skip_all` when it was `skip all` and the round
    /// ends with it.
    Answer {
        record: &'a AnswerRecord,
        skip_all: bool,
    },
}

/// Run one round on `clock`: the entry gate, then the question loop. `on_answer` is called as
/// each answer is given, so the caller can persist it before the next question is shown.
#[cfg(test)]
pub(crate) fn run_round_with(
    clock: &dyn Clock,
    person: &mut dyn Person,
    questions: &[Question],
    workspace_id: &str,
    on_answer: &mut dyn FnMut(&AnswerRecord) -> std::io::Result<()>,
) -> Result<RoundOutcome, AskError> {
    run_round_steps(
        clock,
        person,
        questions,
        workspace_id,
        &mut |step| match step {
            RoundStep::Answer { record, .. } => on_answer(record),
            _ => Ok(()),
        },
    )
}

/// Run one round on `clock`: the entry gate, then the question loop, reporting every step (the gate's too) to `on_step` as it happens.
pub(crate) fn run_round_steps(
    clock: &dyn Clock,
    person: &mut dyn Person,
    questions: &[Question],
    workspace_id: &str,
    on_step: &mut dyn FnMut(RoundStep<'_>) -> std::io::Result<()>,
) -> Result<RoundOutcome, AskError> {
    // Step 0: nothing to ask, so no gate and no user decision to record.
    if questions.is_empty() {
        return RoundOutcome {
            skipped: false,
            qa_answers: Some(Vec::new()),
            skip_telemetry: None,
            abort_reason: Some(AbortReason::NoQuestions),
            skipped_all: false,
            qa_duration_ms: 0,
            qa_session_result: None,
            question_count: 0,
            gate_response_time_ms: None,
        }
        .checked();
    }
    if workspace_id.is_empty() {
        return Err(inconsistent("empty workspace_id"));
    }
    let count = questions.len();
    let gate_waited = match entry_gate(clock, person, count, workspace_id, on_step)? {
        Ok(waited) => waited,
        Err(skipped) => return skipped.checked(),
    };

    // Path B: the loop, its result forwarded.
    let qa = question_loop(clock, person, questions, on_step)?;
    RoundOutcome {
        skipped: qa.skipped_all,
        qa_answers: Some(qa.answers.clone()),
        skip_telemetry: Some(SkipTelemetry {
            skip_reason: None,
            skipped_at: None,
            workspace_id: workspace_id.to_string(),
            response_time_ms: None,
        }),
        abort_reason: qa.abort_reason,
        skipped_all: qa.skipped_all,
        qa_duration_ms: qa.qa_duration_ms,
        question_count: count,
        gate_response_time_ms: Some(gate_waited),
        qa_session_result: Some(qa),
    }
    .checked()
}

/// Steps 1–4: the entry gate, asked until the person proceeds (`Ok`: how long they took) or
/// skips the round (`Err`: the round's outcome).
fn entry_gate(
    clock: &dyn Clock,
    person: &mut dyn Person,
    count: usize,
    workspace_id: &str,
    on_step: &mut dyn FnMut(RoundStep<'_>) -> std::io::Result<()>,
) -> Result<Result<u64, RoundOutcome>, AskError> {
    let gate_result =
        |skipped: bool, reason: &str, response: Option<u64>, abort: bool| RoundOutcome {
            skipped,
            qa_answers: None,
            skip_telemetry: Some(SkipTelemetry {
                skip_reason: Some(reason.to_string()),
                skipped_at: Some(clock.now_iso()),
                workspace_id: workspace_id.to_string(),
                response_time_ms: response,
            }),
            abort_reason: abort.then_some(AbortReason::UserAbort),
            skipped_all: false,
            qa_duration_ms: 0,
            qa_session_result: None,
            question_count: count,
            gate_response_time_ms: response,
        };

    // Steps 1–3: the entry gate. Patience is left to the person: no timeout.
    let gate_presented_at = clock.now_ms();
    loop {
        let raw = match person.gate(count) {
            Ok(raw) => raw,
            // Step 4: an interrupt at the gate leaves zero partial state.
            Err(AskError::Interrupted) => {
                return Ok(Err(gate_result(true, SKIP_ABORT, None, true)));
            }
            Err(e) => return Err(e),
        };
        match classify_gate(&raw) {
            GateChoice::Skip => {
                on_step(RoundStep::GateSkipped)?;
                let waited = clock.now_ms().saturating_sub(gate_presented_at);
                return Ok(Err(gate_result(true, SKIP_ENTIRE, Some(waited), false)));
            }
            GateChoice::Proceed => {
                on_step(RoundStep::GatePassed)?;
                break;
            }
            GateChoice::Unclear if person.replayed() => {
                return Err(bad_replay_value(
                    "gate",
                    &raw,
                    "y, yes, n, no, skip or \"\"",
                ));
            }
            GateChoice::Unclear => person.say(render::GATE_REASK),
        }
    }
    Ok(Ok(clock.now_ms().saturating_sub(gate_presented_at)))
}

/// The question loop (intro, each question with its progress and time label, the replies,
/// the result) for a non-empty list of questions.
fn question_loop(
    clock: &dyn Clock,
    person: &mut dyn Person,
    questions: &[Question],
    on_step: &mut dyn FnMut(RoundStep<'_>) -> std::io::Result<()>,
) -> Result<QaSessionResult, AskError> {
    let session_start = clock.now_ms();
    let total = questions.len();
    let mut result = QaSessionResult {
        topics: questions.iter().map(|q| q.topic.clone()).collect(),
        ..QaSessionResult::default()
    };
    // The loop ran, so its duration is at least 1 ms: 0 is reserved for "no questions".
    let finish = |mut r: QaSessionResult| -> Result<QaSessionResult, AskError> {
        r.qa_duration_ms = clock.now_ms().saturating_sub(session_start).max(1);
        r.check()
            .map_err(|e| inconsistent(format!("qa_session_result: {e}")))?;
        Ok(r)
    };
    person.round_questions(questions);
    person.intro(total);
    for (i, q) in questions.iter().enumerate() {
        let label = render::time_label(i, total, clock.now_ms().saturating_sub(session_start));
        let question_start = clock.now_ms();
        let Some(reply) = reply_to(person, i, total, &label, q)? else {
            // Step 4: never discard partial answers on abort.
            result.partial = true;
            result.abort_reason = Some(AbortReason::UserAbort);
            return finish(result);
        };
        let response_time_ms = clock.now_ms().saturating_sub(question_start);
        let record = answer_record(q, &reply, response_time_ms);
        on_step(RoundStep::Answer {
            record: &record,
            skip_all: reply == Reply::SkipAll,
        })?;
        result.answers.push(record);
        if reply == Reply::SkipAll {
            result.partial = true;
            result.skipped_all = true;
            return finish(result);
        }
    }
    finish(result)
}

/// The person's reply to question `i`, asked again (up to [`MAX_REASKS`] times) while it names
/// no option there is; `None`: the person interrupted.
fn reply_to(
    person: &mut dyn Person,
    i: usize,
    total: usize,
    label: &str,
    q: &Question,
) -> Result<Option<Reply>, AskError> {
    let mut reasks = 0;
    loop {
        let raw = match person.question(i, total, label, q) {
            Ok(raw) => raw,
            Err(AskError::Interrupted) => return Ok(None),
            Err(e) => return Err(e),
        };
        match classify_reply(&raw, q) {
            Reply::NoRecommendation if person.replayed() => {
                return Err(AskError::BadReplayValue(format!(
                    "{}answers `{}` with \"{}\", but that question (\"{}\") has no \
                     recommended option; replay an option number, a value or the answer itself",
                    replay_file(person),
                    q.topic,
                    raw.trim(),
                    q.question_text
                )));
            }
            Reply::NoSuchOption { options } if person.replayed() => {
                return Err(AskError::BadReplayValue(format!(
                    "{}answers `{}` with \"{}\", but that question (\"{}\") has {options} \
                     options: replay a number from 1 to {options}, an option's value or the \
                     answer itself",
                    replay_file(person),
                    q.topic,
                    raw.trim(),
                    q.question_text
                )));
            }
            Reply::NoRecommendation | Reply::NoSuchOption { .. } if reasks >= MAX_REASKS => {
                return Ok(Some(Reply::Skip));
            }
            Reply::NoRecommendation => {
                reasks += 1;
                let has_options = q.options.as_ref().is_some_and(|o| !o.is_empty());
                person.say(if has_options {
                    "No option is recommended for this question: type an option's number, \
                     your own answer, or skip."
                } else {
                    "No option is recommended for this question: type your own answer, or skip."
                });
            }
            Reply::NoSuchOption { options } => {
                reasks += 1;
                person.say(&render::no_such_option(raw.trim(), options));
            }
            reply => return Ok(Some(reply)),
        }
    }
}

/// What is recorded of a reply: its text, or a skip.
fn answer_record(q: &Question, reply: &Reply, response_time_ms: u64) -> AnswerRecord {
    AnswerRecord {
        question_id: q.topic.clone(),
        answer_text: match reply {
            Reply::Answer(text) => text.clone(),
            Reply::Skip | Reply::SkipAll | Reply::NoRecommendation | Reply::NoSuchOption { .. } => {
                String::new()
            }
        },
        skipped: !matches!(reply, Reply::Answer(_)),
        response_time_ms,
    }
}

/// "the answers file FILE " (or "the answers file " when the source has no name), to start a
/// replay error with.
fn replay_file(person: &dyn Person) -> String {
    match person.replay_file() {
        Some(file) => format!("the answers file {} ", file.display()),
        None => "the answers file ".to_string(),
    }
}
