//! Tests of the receipt checks on an ask receipt: the number of questions, topics, question text,
//! severity, options and the recommendation.

use super::*;

#[test]
fn ask_needs_at_least_one_question() {
    rejected(ask(vec![]), "$.questions: 0 questions; ask 1 to 5 per turn");
}

#[test]
fn ask_allows_at_most_five_questions() {
    let qs = (0..6).map(|i| question(&format!("topic_{i}"))).collect();
    rejected(ask(qs), "$.questions: 6 questions; ask 1 to 5 per turn");
}

#[test]
fn five_questions_pass() {
    let qs = (0..5).map(|i| question(&format!("topic_{i}"))).collect();
    accepted(ask(qs));
}

#[test]
fn a_topic_must_match_the_pattern() {
    let qs = vec![question("ok_topic"), question("Deploy")];
    let err = check(&ask(qs)).unwrap_err();
    assert_eq!(
        err,
        "$.questions[1].topic: \"Deploy\" does not match ^[a-z][a-z0-9_]{0,63}$"
    );
}

#[test]
fn a_topic_may_have_64_characters_but_not_65() {
    accepted(ask(vec![question(&format!("a{}", "b".repeat(63)))]));
    rejected(
        ask(vec![question(&format!("a{}", "b".repeat(64)))]),
        "$.questions[0].topic:",
    );
}

#[test]
fn a_topic_with_a_hidden_character_is_rejected() {
    rejected(
        ask(vec![question("deploy\u{200b}")]),
        "$.questions[0].topic: \"deploy<U+200B>\" does not match",
    );
}

#[test]
fn topics_are_unique_within_a_receipt() {
    rejected(
        ask(vec![question("same"), question("same")]),
        "$.questions[1].topic: \"same\" is already used by $.questions[0].topic",
    );
}

#[test]
fn a_topic_asked_before_is_rejected() {
    rejected(
        ask(vec![question("skipped_topic")]),
        "$.questions[0].topic: \"skipped_topic\" was already asked",
    );
}

#[test]
fn question_text_must_not_be_empty() {
    rejected(
        ask_with("question_text", json!("  ")),
        "$.questions[0].question_text: must not be empty",
    );
}

#[test]
fn question_text_has_at_most_200_characters() {
    accepted(ask_with("question_text", json!("é".repeat(200))));
    rejected(
        ask_with("question_text", json!("é".repeat(201))),
        "$.questions[0].question_text: 201 characters, over the limit of 200",
    );
}

#[test]
fn question_text_is_measured_after_sanitising() {
    let text = format!("{}\u{1b}[31m\u{1b}[0m", "x".repeat(200));
    let value = ask_with("question_text", json!(text));
    let ctx = first_turn();
    let (r, report) = parse_and_check(&value.to_string(), &ctx).unwrap();
    let Receipt::Ask(a) = r else { panic!() };
    assert_eq!(a.questions[0].question_text, "x".repeat(200));
    assert_eq!(report.escape_sequences, 2);
}

#[test]
fn question_text_is_one_line() {
    rejected(
        ask_with("question_text", json!("Where?\nReally?")),
        "$.questions[0].question_text: must be one line",
    );
}

#[test]
fn severity_is_an_integer_from_1_to_10() {
    accepted(ask_with("severity", json!(1)));
    accepted(ask_with("severity", json!(10)));
    for bad in [json!(0), json!(11), json!(7.5), json!("7"), json!(-1)] {
        rejected(
            ask_with("severity", bad),
            "$.questions[0].severity: expected an integer from 1 to 10",
        );
    }
}

#[test]
fn options_may_be_absent_or_null() {
    accepted(ask(vec![question("free_text")]));
    accepted(ask_with("options", json!(null)));
}

#[test]
fn options_need_two_to_nine_entries() {
    let opt = |i: usize| json!({ "label": format!("L{i}"), "value": format!("v{i}") });
    rejected(
        ask_with("options", json!([opt(0)])),
        "$.questions[0].options: 1 options; give 2 to 9",
    );
    let ten: Vec<_> = (0..10).map(opt).collect();
    rejected(
        ask_with("options", json!(ten)),
        "$.questions[0].options: 10 options; give 2 to 9",
    );
    let nine: Vec<_> = (0..9).map(opt).collect();
    accepted(ask_with("options", json!(nine)));
}

#[test]
fn option_labels_must_not_be_empty() {
    rejected(
        ask_with(
            "options",
            json!([{"label": "A", "value": "a"}, {"label": "", "value": "b"}]),
        ),
        "$.questions[0].options[1].label: must not be empty",
    );
}

#[test]
fn option_values_are_unique() {
    rejected(
        ask_with(
            "options",
            json!([{"label": "A", "value": "k8s"}, {"label": "B", "value": "k8s"}]),
        ),
        "$.questions[0].options[1].value: \"k8s\" repeats $.questions[0].options[0].value",
    );
}

#[test]
fn an_option_has_only_label_and_value() {
    rejected(
        ask_with(
            "options",
            json!([{"label": "A", "value": "a", "hint": "x"}, {"label": "B", "value": "b"}]),
        ),
        "$.questions[0].options[0].hint: unknown field",
    );
}

#[test]
fn recommended_must_be_an_option_value() {
    let mut r = design_ask();
    r["questions"][0]["recommended"] = json!("Kubernetes");
    rejected(
        r,
        "$.questions[0].recommended: \"Kubernetes\" is not one of the option values (\"k8s\", \"vm\")",
    );
}

#[test]
fn recommended_needs_options() {
    rejected(
        ask_with("recommended", json!("k8s")),
        "$.questions[0].recommended: needs `options`",
    );
}

#[test]
fn ask_on_the_final_turn_is_rejected() {
    let err = check_with(&design_ask(), true).unwrap_err();
    assert_eq!(
        err,
        "$.receipt: questions are not allowed on the final turn; finish with a \"done\" receipt"
    );
}

#[test]
fn done_on_the_final_turn_passes() {
    assert!(check_with(&done_citing("inferred", &[]), true).is_ok());
}
