//! Tests of the receipt checks' sanitising and reporting: every text sanitised, all violations
//! reported together (the first 20), and the wire forms (the other form's fields null).

use super::*;

#[test]
fn every_text_is_sanitised_and_counted() {
    let mut r = done(vec![json!({
        "title": "Ti\u{1b}]8;;http://x\u{7}tle", "content": "abc\u{202e}def\r", "clarity": "inferred"
    })]);
    r["summary"] = json!("sum\u{e0041}mary");
    let ctx = first_turn();
    let (receipt, report) = parse_and_check(&r.to_string(), &ctx).unwrap();
    let Receipt::Done(d) = receipt else { panic!() };
    assert_eq!(d.entries[0].title, "Title");
    assert_eq!(d.entries[0].content, "abc<U+202E>def");
    assert_eq!(d.summary, "sum<U+E0041>mary");
    assert_eq!(
        report,
        SanitizeReport {
            escape_sequences: 1,
            control_chars: 1,
            bidi_controls: 1,
            zero_width: 0,
            tag_chars: 1
        }
    );
}

#[test]
fn all_violations_are_reported_together() {
    let err = check(&ask(vec![
        question("Bad"),
        question("ok"),
        json!({"topic": "x"}),
    ]))
    .unwrap_err();
    assert!(err.contains("$.questions[0].topic:"), "{err}");
    assert!(
        err.contains("$.questions[2].question_text: missing field"),
        "{err}"
    );
    assert!(
        err.contains("$.questions[2].severity: missing field"),
        "{err}"
    );
}

#[test]
fn quoted_values_in_messages_are_sanitised() {
    let err = check(&ask(vec![question("\u{1b}]52;c;AAAA\u{7}Evil")])).unwrap_err();
    assert!(
        !err.chars().any(crate::receipt::sanitize::is_forbidden),
        "{err:?}"
    );
    assert!(err.contains("\"Evil\""), "{err}");
}

fn any_context_check(text: &str) {
    let asked = topics(&["old_topic"]);
    let ctx = CheckContext {
        final_turn: false,
        asked_topics: &asked,
        answered_topics: &asked,
        repo_root: repo().dir.path(),
        work_item: None,
    };
    let _ = parse_and_check(text, &ctx);
}

proptest! {
    #[test]
    fn parse_and_check_never_panics_on_arbitrary_strings(text in any::<String>()) {
        any_context_check(&text);
    }

    #[test]
    fn parse_and_check_never_panics_on_mangled_receipts(
        cut in 0usize..400,
        insert in any::<char>(),
        at in 0usize..400,
    ) {
        let base = json!({ "receipt": "done", "version": 1, "title": "T", "summary": "S",
            "entries": [ { "title": "E", "content": "C", "clarity": "confirmed", "sources": ["src/lib.rs:1", "qa:old_topic"] } ] })
            .to_string();
        let mut chars: Vec<char> = base.chars().collect();
        let at = at % (chars.len() + 1);
        chars.insert(at, insert);
        let cut = cut % chars.len();
        chars.remove(cut);
        let text: String = chars.into_iter().collect();
        any_context_check(&text);
    }

    #[test]
    fn accepted_receipts_contain_no_forbidden_code_point(text in "[a-z \u{1b}\u{202e}\u{200b}\r\n\u{9b}]{1,40}") {
        let r = done(vec![json!({ "title": "t", "content": text, "clarity": "inferred" })]);
        if let Ok(Receipt::Done(d)) = check(&r) {
            prop_assert!(!d.entries[0].content.chars().any(crate::receipt::sanitize::is_forbidden));
        }
    }
}

#[test]
fn a_receipt_broken_everywhere_lists_the_first_20_problems() {
    let entries: Vec<_> = (0..20)
        .map(|_| json!({ "title": "", "content": "", "clarity": "x" }))
        .collect();
    let ctx = first_turn();
    let err = parse_and_check(&done(entries).to_string(), &ctx).unwrap_err();
    assert_eq!(err.violations().len(), 40);
    let shown = err.to_string();
    assert_eq!(shown.matches("$.entries[").count(), 20, "{shown}");
    assert!(shown.ends_with("; and 20 more problems"), "{shown}");
}

fn wire_check(value: &serde_json::Value) -> Result<Receipt, ReceiptError> {
    let ctx = first_turn();
    parse_and_check_as(&value.to_string(), &ctx, Form::Wire).map(|(r, _)| r)
}

#[test]
fn a_wire_ask_receipt_with_the_done_fields_null_is_the_strict_receipt() {
    let wire = json!({ "receipt": "ask", "version": 1, "title": null, "summary": null,
        "entries": null, "questions": [{ "topic": "deployment_target",
        "question_text": "Where?", "severity": 7, "options": null, "recommended": null }] });
    let Receipt::Ask(ask) = wire_check(&wire).unwrap() else {
        panic!("not an ask receipt");
    };
    assert_eq!(ask.questions[0].topic, "deployment_target");
    assert_eq!(ask.questions[0].options, None);
    // The same text as a strict receipt is refused: the wire form is only for wire presets.
    let err = check(&wire).unwrap_err();
    assert!(err.to_string().contains("$.title: unknown field"), "{err}");
}

#[test]
fn a_wire_done_receipt_with_questions_null_is_the_strict_receipt() {
    let wire = json!({ "receipt": "done", "version": 1, "questions": null, "title": "T",
        "summary": null, "entries": [{ "title": "t", "content": "", "clarity": "inferred",
        "sources": null }] });
    assert!(matches!(wire_check(&wire).unwrap(), Receipt::Done(_)));
}

#[test]
fn a_wire_receipt_with_a_field_of_the_other_form_set_is_refused_by_its_path() {
    let wire = json!({ "receipt": "done", "version": 1, "questions": [], "title": "T",
        "summary": null, "entries": [{ "title": "t", "content": "", "clarity": "inferred",
        "sources": null }] });
    let err = wire_check(&wire).unwrap_err();
    assert!(
        err.to_string()
            .contains("$.questions: must be null in a \"done\" receipt"),
        "{err}"
    );
    // Unknown fields stay unknown in the wire form too.
    let wire = json!({ "receipt": "ask", "version": 1, "questions": [{ "topic": "a",
        "question_text": "Q?", "severity": 1 }], "extra": null });
    let err = wire_check(&wire).unwrap_err();
    assert!(err.to_string().contains("$.extra: unknown field"), "{err}");
}
