//! Unit tests of the answers file: strict parsing, writing, replaying and recording.

use super::file::{MAX_BYTES, ReplayError};
use super::*;
use crate::ask::Missing;
use crate::ask::clock::ManualClock;
use crate::ask::{AbortReason, DecisionId, run_round_with};
use proptest::prelude::*;

fn parse(text: &str) -> Result<ReplayFile, ReplayError> {
    ReplayFile::parse(text, Path::new("ci/answers.json"))
}

fn err(text: &str) -> ReplayError {
    parse(text).unwrap_err()
}

fn q(topic: &str) -> Question {
    Question {
        topic: topic.into(),
        question_text: format!("What about {topic}?"),
        severity: 5,
        options: Some(vec![
            crate::receipt::QuestionOption {
                label: "One".into(),
                value: "one".into(),
            },
            crate::receipt::QuestionOption {
                label: "Two".into(),
                value: "two".into(),
            },
        ]),
        recommended: Some("one".into()),
    }
}

#[test]
fn the_design_example_parses() {
    let f = parse(
        r#"{ "interview_answers": 1,
             "gate": "y",
             "answers": { "deployment_target": "2", "project_type": "saas", "naming": "skip",
                          "scope": "@recommended" },
             "decisions": { "guard": "A" } }"#,
    )
    .unwrap();
    assert_eq!(f.gate, vec!["y"]);
    assert_eq!(f.answers["deployment_target"], "2");
    assert_eq!(f.decisions["guard"], "A");
}

#[test]
fn only_the_version_is_required() {
    let f = parse(r#"{"interview_answers": 1}"#).unwrap();
    assert_eq!(f, ReplayFile::default());
}

#[test]
fn a_missing_version_is_refused() {
    let e = err(r#"{"answers": {}}"#);
    assert_eq!(e.path, "$");
    assert!(e.message.contains("interview_answers"));
}

#[test]
fn an_unknown_version_is_refused_naming_it() {
    let e = err(r#"{"interview_answers": 2}"#);
    assert_eq!(e.path, "$.interview_answers");
    assert!(e.message.contains("unknown version 2"));
}

#[test]
fn an_unknown_key_is_refused_naming_its_path() {
    let e = err(r#"{"interview_answers": 1, "answer": {}}"#);
    assert_eq!(e.path, "$.answer");
    assert!(e.message.contains("unknown key"));
}

#[test]
fn a_non_string_answer_is_refused_naming_its_path() {
    let e = err(r#"{"interview_answers": 1, "answers": {"scope": 2}}"#);
    assert_eq!(e.path, "$.answers.scope");
    assert!(e.message.contains("expected a string"));
}

#[test]
fn answers_must_be_an_object() {
    let e = err(r#"{"interview_answers": 1, "answers": ["x"]}"#);
    assert_eq!(e.path, "$.answers");
}

#[test]
fn an_answer_key_that_is_not_a_topic_is_refused() {
    let e = err(r#"{"interview_answers": 1, "answers": {"Scope": "x"}}"#);
    assert_eq!(e.path, "$.answers.Scope");
}

#[test]
fn a_decision_must_be_one_letter_a_to_d() {
    assert!(parse(r#"{"interview_answers": 1, "decisions": {"g": "b"}}"#).is_ok());
    for bad in [r#""E""#, r#""AB""#, r#""""#, "1"] {
        let e = err(&format!(
            r#"{{"interview_answers": 1, "decisions": {{"g": {bad}}}}}"#
        ));
        assert_eq!(e.path, "$.decisions.g", "{bad}");
    }
}

#[test]
fn a_gate_must_be_a_gate_answer() {
    let e = err(r#"{"interview_answers": 1, "gate": "maybe"}"#);
    assert_eq!(e.path, "$.gate");
}

#[test]
fn a_gate_may_list_one_answer_per_round() {
    let f = parse(r#"{"interview_answers": 1, "gate": ["y", "n"]}"#).unwrap();
    assert_eq!(f.gate, vec!["y", "n"]);
    let e = err(r#"{"interview_answers": 1, "gate": ["y", 3]}"#);
    assert_eq!(e.path, "$.gate[1]");
}

#[test]
fn a_key_given_twice_is_refused_naming_its_path() {
    let e = err(r#"{"interview_answers": 1, "answers": {"scope": "a", "scope": "b"}}"#);
    assert_eq!(e.path, "$.answers.scope");
    let e = err(r#"{"interview_answers": 1, "interview_answers": 1}"#);
    assert_eq!(e.path, "$.interview_answers");
}

#[test]
fn invalid_json_and_non_objects_are_refused_at_the_root() {
    assert_eq!(err("{").path, "$");
    assert_eq!(err("[]").path, "$");
}

#[test]
fn errors_name_the_file() {
    let e = err("{}");
    assert!(e.to_string().starts_with("ci/answers.json: $: "), "{e}");
}

#[test]
fn load_refuses_an_oversized_file() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("a.json");
    std::fs::write(&p, vec![b' '; (MAX_BYTES + 1) as usize]).unwrap();
    assert!(
        ReplayFile::load(&p)
            .unwrap_err()
            .message
            .contains("at most")
    );
}

#[test]
fn load_reports_a_missing_file() {
    let e = ReplayFile::load(Path::new("/nonexistent/answers.json")).unwrap_err();
    assert!(e.message.contains("cannot read"));
}

#[test]
fn written_files_read_back_the_same() {
    let mut f = ReplayFile::default();
    f.record_gate("y");
    f.record_answer("scope", "2");
    f.record_answer("naming", "  my name ");
    f.record_decision("guard", "a");
    let text = f.to_json_pretty().unwrap();
    assert!(text.starts_with("{\n  \"interview_answers\": 1,\n  \"gate\": \"y\",\n"));
    assert_eq!(parse(&text).unwrap(), f);
}

#[test]
fn differing_gates_are_written_as_a_list() {
    let mut f = ReplayFile::default();
    f.record_gate("y");
    f.record_gate("n");
    assert!(f.to_json_pretty().unwrap().contains("\"gate\": [\n"));
}

fn replay(
    file: &str,
    missing: Missing,
    questions: &[Question],
) -> (Result<RoundOutcomeT, AskError>, ReplayPerson) {
    let mut p = ReplayPerson::new(parse(file).unwrap(), missing);
    let clock = ManualClock::new(0);
    let r = run_round_with(&clock, &mut p, questions, "ws", &mut |_| Ok(()));
    (r, p)
}

type RoundOutcomeT = crate::ask::RoundOutcome;

fn texts(o: &RoundOutcomeT) -> Vec<String> {
    o.qa_answers
        .as_ref()
        .unwrap()
        .iter()
        .map(|a| a.answer_text.clone())
        .collect()
}

#[test]
fn replayed_values_go_through_the_same_classification() {
    let (r, _) = replay(
        r#"{"interview_answers": 1, "answers": {"a": "2", "b": "@recommended", "c": "skip", "d": " free "}}"#,
        Missing::Fail,
        &[q("a"), q("b"), q("c"), q("d")],
    );
    assert_eq!(texts(&r.unwrap()), vec!["two", "one", "", "free"]);
}

#[test]
fn the_gate_defaults_to_yes() {
    let (r, _) = replay(
        r#"{"interview_answers": 1, "answers": {"a": "x"}}"#,
        Missing::Fail,
        &[q("a")],
    );
    assert!(!r.unwrap().skipped);
}

#[test]
fn a_replayed_n_gate_skips_the_round() {
    let (r, _) = replay(
        r#"{"interview_answers": 1, "gate": "n"}"#,
        Missing::Fail,
        &[q("a")],
    );
    let o = r.unwrap();
    assert!(o.skipped);
    assert_eq!(o.qa_answers, None);
}

#[test]
fn a_missing_answer_fails_naming_topic_and_question() {
    let (r, _) = replay(r#"{"interview_answers": 1}"#, Missing::Fail, &[q("scope")]);
    match r.unwrap_err() {
        AskError::MissingAnswer {
            topic,
            question_text,
            ..
        } => {
            assert_eq!(topic, "scope");
            assert_eq!(question_text, "What about scope?");
        }
        e => panic!("unexpected {e}"),
    }
}

#[test]
fn missing_skip_skips_and_records_the_topic() {
    let (r, p) = replay(r#"{"interview_answers": 1}"#, Missing::Skip, &[q("scope")]);
    let o = r.unwrap();
    assert!(o.qa_answers.unwrap()[0].skipped);
    assert_eq!(p.missing_topics(), vec!["scope"]);
}

#[test]
fn unused_topics_are_reported() {
    let (_, p) = replay(
        r#"{"interview_answers": 1, "answers": {"a": "x", "stale": "y"}}"#,
        Missing::Fail,
        &[q("a")],
    );
    assert_eq!(p.unused_topics(), vec!["stale"]);
}

#[test]
fn a_missing_decision_is_an_error_naming_it() {
    let mut p = ReplayPerson::new(parse(r#"{"interview_answers": 1}"#).unwrap(), Missing::Fail);
    let d = Decision {
        id: DecisionId::Guard,
        context: "c".into(),
        options: vec!["a".into(), "b".into()],
        recommended: 0,
        reason: "r".into(),
    };
    assert!(matches!(
        crate::ask::choose(&mut p, &d),
        Err(AskError::MissingDecision { id }) if id == "guard"
    ));
    let mut p = ReplayPerson::new(
        parse(r#"{"interview_answers": 1, "decisions": {"guard": "b"}}"#).unwrap(),
        Missing::Fail,
    );
    assert_eq!(crate::ask::choose(&mut p, &d).unwrap(), 1);
}

#[test]
fn a_replayed_skip_all_ends_the_round_like_typed() {
    let (r, _) = replay(
        r#"{"interview_answers": 1, "answers": {"a": "skip all"}}"#,
        Missing::Fail,
        &[q("a"), q("b")],
    );
    let o = r.unwrap();
    assert!(o.skipped_all);
    assert_eq!(o.abort_reason, None::<AbortReason>);
}

/// The lines of a [`ReplayPerson`] as a person types them (not replayed).
struct Typed(ReplayPerson);

impl Person for Typed {
    fn gate(&mut self, count: usize) -> Result<String, AskError> {
        self.0.gate(count)
    }
    fn intro(&mut self, total: usize) {
        self.0.intro(total)
    }
    fn question(
        &mut self,
        index: usize,
        total: usize,
        time_label: &str,
        question: &Question,
    ) -> Result<String, AskError> {
        self.0.question(index, total, time_label, question)
    }
    fn decide(&mut self, decision: &crate::ask::Decision) -> Result<String, AskError> {
        self.0.decide(decision)
    }
    fn say(&mut self, text: &str) {
        self.0.say(text)
    }
    fn replayed(&self) -> bool {
        false
    }
}

#[test]
fn the_recorder_writes_each_line_as_typed_before_it_is_used() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("answers.json");
    let mut source = Typed(ReplayPerson::new(
        parse(r#"{"interview_answers": 1, "answers": {"a": "2", "b": "skip all"}}"#).unwrap(),
        Missing::Fail,
    ));
    let mut rec = RecordingPerson::new(&mut source, ReplayFile::default(), path.clone());
    let clock = ManualClock::new(0);
    let mut seen_on_disk = Vec::new();
    let o = run_round_with(
        &clock,
        &mut rec,
        &[q("a"), q("b"), q("c")],
        "ws",
        &mut |a| {
            let f = ReplayFile::load(&path).unwrap();
            seen_on_disk.push(f.answers.get(&a.question_id).cloned());
            Ok(())
        },
    )
    .unwrap();
    assert!(o.skipped_all);
    assert_eq!(
        seen_on_disk,
        vec![Some("2".to_string()), Some("skip all".to_string())]
    );
    let f = ReplayFile::load(&path).unwrap();
    assert_eq!(f.gate, vec!["y"]);
    assert_eq!(f.answers.len(), 2, "c was never asked");
}

/// Replayed lines (still in the file they came from) are written when the session settles
/// them, not one by one; what a run leaves unsettled is written when the recorder goes.
#[test]
fn the_recorder_writes_replayed_lines_when_settled() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("answers.json");
    let text = r#"{"interview_answers": 1, "answers": {"a": "2", "b": "own words"}}"#;
    let mut source = ReplayPerson::new(parse(text).unwrap(), Missing::Fail);
    let mut rec = RecordingPerson::new(&mut source, ReplayFile::default(), path.clone());
    let mut written_during = Vec::new();
    run_round_with(
        &ManualClock::new(0),
        &mut rec,
        &[q("a"), q("b")],
        "ws",
        &mut |_| {
            written_during.push(path.exists());
            Ok(())
        },
    )
    .unwrap();
    assert_eq!(written_during, vec![false, false]);
    rec.settle().unwrap();
    let f = ReplayFile::load(&path).unwrap();
    assert_eq!(f.gate, vec!["y"]);
    assert_eq!(f.answers.len(), 2);

    // Unsettled (a run that stops on an error): written as the recorder is dropped.
    std::fs::remove_file(&path).unwrap();
    let mut source = ReplayPerson::new(parse(text).unwrap(), Missing::Fail);
    let mut rec = RecordingPerson::new(&mut source, ReplayFile::default(), path.clone());
    run_round_with(&ManualClock::new(0), &mut rec, &[q("a")], "ws", &mut |_| {
        Ok(())
    })
    .unwrap();
    assert!(!path.exists());
    drop(rec);
    assert_eq!(ReplayFile::load(&path).unwrap().answers.len(), 1);
}

#[test]
fn replaying_a_recording_gives_the_same_answers() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("answers.json");
    let questions = [q("a"), q("b"), q("c")];
    let original = r#"{"interview_answers": 1, "answers": {"a": "2", "b": "r", "c": "own words"}}"#;
    let mut source = ReplayPerson::new(parse(original).unwrap(), Missing::Fail);
    let first = {
        let mut rec = RecordingPerson::new(&mut source, ReplayFile::default(), path.clone());
        run_round_with(
            &ManualClock::new(0),
            &mut rec,
            &questions,
            "ws",
            &mut |_| Ok(()),
        )
        .unwrap()
    };
    let (second, _) = replay(
        &std::fs::read_to_string(&path).unwrap(),
        Missing::Fail,
        &questions,
    );
    assert_eq!(texts(&first), texts(&second.unwrap()));
}

proptest! {
    #[test]
    fn parsing_arbitrary_text_never_panics(text in ".{0,200}") {
        let _ = parse(&text);
    }

    #[test]
    fn parsing_arbitrary_json_never_panics(
        key in "[a-z_]{1,10}", value in prop_oneof![Just("1".to_string()), Just("\"x\"".to_string()), Just("{}".to_string()), Just("[]".to_string()), Just("null".to_string())]
    ) {
        let _ = parse(&format!(r#"{{"interview_answers": 1, "{key}": {value}}}"#));
        let _ = parse(&format!(r#"{{"interview_answers": 1, "answers": {{"{key}": {value}}}}}"#));
        let _ = parse(&format!(r#"{{"interview_answers": 1, "decisions": {{"{key}": {value}}}}}"#));
    }

    #[test]
    fn recorded_files_always_parse_back(
        answers in prop::collection::btree_map("[a-z][a-z0-9_]{0,10}", ".{0,20}", 0..5),
        gates in prop::collection::vec(prop::sample::select(vec!["y", "n", "", "YES", "skip"]), 0..3),
    ) {
        let mut f = ReplayFile::default();
        for g in &gates { f.record_gate(g); }
        for (t, a) in &answers { f.record_answer(t, a); }
        // Identical gates are written once: the last one repeats on replay.
        let mut expected = f.clone();
        if expected.gate.iter().all(|g| Some(g) == expected.gate.first()) {
            expected.gate.truncate(1);
        }
        prop_assert_eq!(parse(&f.to_json_pretty().unwrap()).unwrap(), expected);
    }
}
