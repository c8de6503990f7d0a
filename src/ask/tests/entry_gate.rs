//! Unit tests of the entry gate and the round's outcome: skip, proceed, unclear input asked again,
//! an interrupt, and the serialised outcome's fields.

use super::*;

#[test]
fn no_questions_shortcut_shows_no_gate_and_returns_empty_answers() {
    let r = run(&[], &[]);
    assert!(r.shown.is_empty());
    let o = ok(&r);
    assert!(!o.skipped);
    assert_eq!(o.qa_answers, Some(vec![]));
    assert_eq!(o.skip_telemetry, None);
    assert_eq!(o.abort_reason, Some(AbortReason::NoQuestions));
    assert_eq!(o.qa_duration_ms, 0);
}

#[test]
fn gate_skips_on_n_no_and_skip_in_any_case_with_spaces() {
    for raw in ["n", "no", "skip", " N ", "No", "SKIP"] {
        assert_eq!(classify_gate(raw), GateChoice::Skip, "{raw:?}");
    }
}

#[test]
fn gate_proceeds_on_y_yes_and_enter() {
    for raw in ["y", "yes", "", "  ", "Y", "YES "] {
        assert_eq!(classify_gate(raw), GateChoice::Proceed, "{raw:?}");
    }
}

#[test]
fn gate_other_input_is_unclear() {
    for raw in ["maybe", "yy", "skip all", "1"] {
        assert_eq!(classify_gate(raw), GateChoice::Unclear, "{raw:?}");
    }
}

#[test]
fn skip_at_the_gate_is_user_skip_entire_with_response_time_and_timestamp() {
    let r = run(&[open("scope")], &[Type(4210, "n")]);
    let o = ok(&r);
    assert!(o.skipped);
    assert_eq!(o.qa_answers, None);
    assert_eq!(o.abort_reason, None);
    let t = o.skip_telemetry.as_ref().unwrap();
    assert_eq!(t.skip_reason.as_deref(), Some("user_skip_entire"));
    assert_eq!(t.response_time_ms, Some(4210));
    assert_eq!(t.workspace_id, "ws_abc123");
    assert_eq!(t.skipped_at.as_deref(), Some("1970-01-01T00:16:44Z"));
}

#[test]
fn skip_at_the_gate_creates_no_qa_state() {
    let r = run(&[open("scope")], &[Type(10, "no")]);
    assert_eq!(r.shown, vec!["gate 1"]);
    assert!(r.persisted.is_empty());
    assert!(ok(&r).qa_session_result.is_none());
}

#[test]
fn unclear_gate_input_is_asked_again() {
    let r = run(&[open("scope")], &[Type(10, "maybe"), Type(10, "n")]);
    assert_eq!(
        r.shown,
        vec![
            "gate 1".to_string(),
            format!("say {}", render::GATE_REASK),
            "gate 1".into()
        ]
    );
    assert_eq!(
        ok(&r).skip_telemetry.as_ref().unwrap().response_time_ms,
        Some(20),
        "the response time runs from the first presentation"
    );
}

#[test]
fn unclear_replayed_gate_input_is_an_error_not_a_loop() {
    let clock = ManualClock::new(0);
    let mut p = Scripted::new(&clock, &[Type(0, "maybe")]);
    p.replayed = true;
    let e = run_round_with(&clock, &mut p, &[open("a")], "ws", &mut |_| Ok(())).unwrap_err();
    assert!(e.to_string().contains("`gate` is \"maybe\""), "{e}");
}

#[test]
fn interrupt_at_the_gate_is_user_abort_with_no_partial_state() {
    let r = run(&[open("scope")], &[Interrupt]);
    let o = ok(&r);
    assert!(o.skipped);
    assert_eq!(o.qa_answers, None);
    assert_eq!(o.abort_reason, Some(AbortReason::UserAbort));
    let t = o.skip_telemetry.as_ref().unwrap();
    assert_eq!(t.skip_reason.as_deref(), Some("user_abort"));
    assert!(t.skipped_at.is_some());
    assert_eq!(t.response_time_ms, None);
    assert!(r.persisted.is_empty());
    assert_eq!(r.shown, vec!["gate 1"]);
}

#[test]
fn proceeding_forwards_the_loop_result_with_a_null_skip_reason() {
    let r = run(&[open("scope")], &[Type(100, ""), Type(3200, "saas")]);
    let o = ok(&r);
    assert!(!o.skipped);
    assert_eq!(answers(&r), vec![ans("scope", "saas", false)]);
    let t = o.skip_telemetry.as_ref().unwrap();
    assert_eq!(t.skip_reason, None);
    assert_eq!(t.skipped_at, None);
    assert_eq!(t.response_time_ms, None);
    assert_eq!(t.workspace_id, "ws_abc123");
    assert_eq!(o.abort_reason, None);
    assert_eq!(o.gate_response_time_ms, Some(100));
}

#[test]
fn mid_loop_skip_all_sets_skipped_but_keeps_skip_reason_null() {
    let r = run(
        &[open("a"), open("b"), open("c")],
        &[Type(0, "y"), Type(10, "one"), Type(10, "skip all")],
    );
    let o = ok(&r);
    assert!(o.skipped);
    assert!(o.skipped_all);
    assert_eq!(o.skip_telemetry.as_ref().unwrap().skip_reason, None);
    assert_eq!(
        answers(&r),
        vec![ans("a", "one", false), ans("b", "", true)]
    );
}

#[test]
fn the_serialised_round_outcome_has_exactly_the_reference_fields() {
    let r = run(&[open("a")], &[Type(0, "n")]);
    let v = serde_json::to_value(ok(&r)).unwrap();
    let keys: Vec<_> = v.as_object().unwrap().keys().cloned().collect();
    assert_eq!(
        keys,
        vec!["abort_reason", "qa_answers", "skip_telemetry", "skipped"]
    );
}

#[test]
fn an_empty_workspace_id_is_refused_before_the_gate() {
    let clock = ManualClock::new(0);
    let mut p = Scripted::new(&clock, &[Type(0, "y")]);
    assert!(run_round_with(&clock, &mut p, &[open("a")], "", &mut |_| Ok(())).is_err());
    assert!(p.shown.is_empty());
}
