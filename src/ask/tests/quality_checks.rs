//! Unit tests of the quality checks on a round's answers and its skip telemetry.

use super::*;

fn qa(answers: &[(&str, &str, bool, u64)], topics: &[&str]) -> QaSessionResult {
    QaSessionResult {
        answers: answers
            .iter()
            .map(|(t, a, s, ms)| AnswerRecord {
                question_id: t.to_string(),
                answer_text: a.to_string(),
                skipped: *s,
                response_time_ms: *ms,
            })
            .collect(),
        partial: false,
        skipped_all: false,
        abort_reason: None,
        qa_duration_ms: 10_000,
        topics: topics.iter().map(|t| t.to_string()).collect(),
    }
}

#[test]
fn check_partial_implies_fewer_answers_than_questions() {
    let mut r = qa(&[("a", "x", false, 1)], &["a"]);
    r.partial = true;
    r.abort_reason = Some(AbortReason::UserAbort);
    assert!(r.check().is_err());
}

#[test]
fn check_skipped_all_implies_partial() {
    let mut r = qa(&[("a", "", true, 1)], &["a", "b"]);
    r.skipped_all = true;
    assert!(r.check().is_err());
    r.partial = true;
    assert!(r.check().is_ok());
}

#[test]
fn check_allows_skip_all_on_the_last_question() {
    let mut r = qa(&[("a", "x", false, 1), ("b", "", true, 1)], &["a", "b"]);
    r.partial = true;
    r.skipped_all = true;
    assert!(r.check().is_ok());
}

#[test]
fn check_abort_reason_is_null_when_complete() {
    let mut r = qa(&[("a", "x", false, 1)], &["a"]);
    r.abort_reason = Some(AbortReason::UserAbort);
    assert!(r.check().is_err());
}

#[test]
fn check_every_question_id_matches_a_topic() {
    let r = qa(&[("zzz", "x", false, 1)], &["a"]);
    assert!(r.check().is_err());
}

#[test]
fn check_skipped_pairs_with_empty_text() {
    assert!(qa(&[("a", "x", true, 1)], &["a"]).check().is_err());
}

#[test]
fn check_not_skipped_pairs_with_non_empty_text() {
    assert!(qa(&[("a", "", false, 1)], &["a"]).check().is_err());
}

#[test]
fn check_never_more_answers_than_questions() {
    let r = qa(&[("a", "x", false, 1), ("a", "y", false, 1)], &["a"]);
    assert!(r.check().is_err());
}

#[test]
fn check_duration_is_zero_only_on_the_no_questions_path() {
    let mut r = qa(&[("a", "x", false, 0)], &["a"]);
    r.qa_duration_ms = 0;
    assert!(r.check().is_err());
    let none = QaSessionResult {
        abort_reason: Some(AbortReason::NoQuestions),
        ..QaSessionResult::default()
    };
    assert!(none.check().is_ok());
}

#[test]
fn check_duration_covers_the_sum_of_response_times() {
    let mut r = qa(
        &[("a", "x", false, 6000), ("b", "y", false, 6000)],
        &["a", "b"],
    );
    r.qa_duration_ms = 11_999;
    assert!(r.check().is_err());
}

fn gate_skip() -> RoundOutcome {
    run(&[open("a")], &[Type(5, "n")]).outcome.unwrap()
}

#[test]
fn check_skipped_at_the_gate_implies_null_answers() {
    let mut o = gate_skip();
    o.qa_answers = Some(vec![]);
    assert!(o.check().is_err());
}

#[test]
fn check_not_skipped_implies_an_answers_array() {
    let mut o = run(&[open("a")], &[Type(0, "y"), Type(1, "x")])
        .outcome
        .unwrap();
    o.qa_answers = None;
    assert!(o.check().is_err());
}

#[test]
fn check_no_questions_implies_null_telemetry_and_empty_answers() {
    let mut o = run(&[], &[]).outcome.unwrap();
    o.skip_telemetry = gate_skip().skip_telemetry;
    assert!(o.check().is_err());
}

#[test]
fn check_user_skip_entire_implies_an_iso_skipped_at() {
    let mut o = gate_skip();
    o.skip_telemetry.as_mut().unwrap().skipped_at = Some("yesterday".into());
    assert!(o.check().is_err());
}

#[test]
fn check_null_skip_reason_implies_null_skipped_at() {
    let mut o = run(&[open("a")], &[Type(0, "y"), Type(1, "x")])
        .outcome
        .unwrap();
    o.skip_telemetry.as_mut().unwrap().skipped_at = Some("2026-04-29T10:32:00Z".into());
    assert!(o.check().is_err());
}

#[test]
fn check_user_abort_at_the_gate_implies_skipped_and_null_answers() {
    let mut o = run(&[open("a")], &[Interrupt]).outcome.unwrap();
    o.skipped = false;
    assert!(o.check().is_err());
}

#[test]
fn check_workspace_id_is_present_in_skip_telemetry() {
    let mut o = gate_skip();
    o.skip_telemetry.as_mut().unwrap().workspace_id.clear();
    assert!(o.check().is_err());
}
