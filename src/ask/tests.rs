//! Unit tests of the entry gate, the question loop, the Choose prompt and the quality checks,
//! with a scripted person and a manual clock so timings are exact.

use super::clock::ManualClock;
use super::*;
use crate::receipt::QuestionOption;
use proptest::prelude::*;

/// One scripted step: how long the person takes, then what they do.
#[derive(Debug, Clone)]
enum Step {
    Type(u64, &'static str),
    Interrupt,
    Close,
}

/// A person following a script, logging what was shown to them.
struct Scripted<'c> {
    clock: &'c ManualClock,
    steps: std::collections::VecDeque<Step>,
    shown: Vec<String>,
    replayed: bool,
}

impl<'c> Scripted<'c> {
    fn new(clock: &'c ManualClock, steps: &[Step]) -> Scripted<'c> {
        Scripted {
            clock,
            steps: steps.iter().cloned().collect(),
            shown: Vec::new(),
            replayed: false,
        }
    }

    fn next(&mut self) -> Result<String, AskError> {
        match self.steps.pop_front() {
            Some(Step::Type(ms, text)) => {
                self.clock.advance(ms);
                Ok(text.to_string())
            }
            Some(Step::Interrupt) => Err(AskError::Interrupted),
            Some(Step::Close) | None => Err(AskError::Closed),
        }
    }
}

impl Person for Scripted<'_> {
    fn gate(&mut self, count: usize) -> Result<String, AskError> {
        self.shown.push(format!("gate {count}"));
        self.next()
    }
    fn intro(&mut self, total: usize) {
        self.shown.push(format!("intro {total}"));
    }
    fn question(
        &mut self,
        index: usize,
        total: usize,
        time_label: &str,
        question: &Question,
    ) -> Result<String, AskError> {
        self.shown.push(format!(
            "q {}/{total}{time_label} {}",
            index + 1,
            question.topic
        ));
        self.next()
    }
    fn decide(&mut self, decision: &Decision) -> Result<String, AskError> {
        self.shown.push(format!("decide {}", decision.id));
        self.next()
    }
    fn say(&mut self, text: &str) {
        self.shown.push(format!("say {text}"));
    }
    fn replayed(&self) -> bool {
        self.replayed
    }
}

fn open(topic: &str) -> Question {
    Question {
        topic: topic.into(),
        question_text: format!("What about {topic}?"),
        severity: 5,
        options: None,
        recommended: None,
    }
}

fn with_options(topic: &str, recommended: Option<&str>) -> Question {
    Question {
        options: Some(vec![
            QuestionOption {
                label: "Kubernetes".into(),
                value: "k8s".into(),
            },
            QuestionOption {
                label: "One VM".into(),
                value: "vm".into(),
            },
        ]),
        recommended: recommended.map(str::to_string),
        ..open(topic)
    }
}

struct Run {
    outcome: Result<RoundOutcome, AskError>,
    shown: Vec<String>,
    persisted: Vec<AnswerRecord>,
}

fn run(questions: &[Question], steps: &[Step]) -> Run {
    let clock = ManualClock::new(1_000_000);
    let mut person = Scripted::new(&clock, steps);
    let mut persisted = Vec::new();
    let outcome = run_round_with(&clock, &mut person, questions, "ws_abc123", &mut |a| {
        persisted.push(a.clone());
        Ok(())
    });
    Run {
        outcome,
        shown: person.shown,
        persisted,
    }
}

fn ok(r: &Run) -> &RoundOutcome {
    r.outcome.as_ref().expect("round succeeds")
}

fn answers(r: &Run) -> Vec<(String, String, bool)> {
    ok(r)
        .qa_answers
        .as_ref()
        .expect("answers")
        .iter()
        .map(|a| (a.question_id.clone(), a.answer_text.clone(), a.skipped))
        .collect()
}

fn ans(topic: &str, text: &str, skipped: bool) -> (String, String, bool) {
    (topic.into(), text.into(), skipped)
}

use Step::*;

// ---- the entry gate and the round's outcome ---------------------------------------------

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

// ---- the question loop --------------------------------------------------------------------

#[test]
fn intro_comes_before_the_first_question() {
    let r = run(&[open("a")], &[Type(0, "y"), Type(0, "x")]);
    assert_eq!(r.shown, vec!["gate 1", "intro 1", "q 1/1 a"]);
}

#[test]
fn first_question_has_no_time_label_later_ones_use_the_running_average() {
    let r = run(
        &[open("a"), open("b"), open("c")],
        &[
            Type(0, "y"),
            Type(12_000, "x"),
            Type(8_000, "y"),
            Type(0, "z"),
        ],
    );
    assert_eq!(
        r.shown[2..],
        [
            "q 1/3 a".to_string(),
            // 12 s for 1 question; 2 left → 24 s → 25 s.
            "q 2/3 · about 25 s left b".into(),
            // 20 s for 2 questions; 1 left → 10 s.
            "q 3/3 · about 10 s left c".into(),
        ]
    );
}

#[test]
fn skip_all_and_s_all_end_the_loop_recording_the_current_question_as_skipped() {
    for raw in ["skip all", "s all", " SKIP ALL "] {
        let r = run(&[open("a"), open("b")], &[Type(0, "y"), Type(890, raw)]);
        let qa = ok(&r).qa_session_result.clone().unwrap();
        assert_eq!(answers(&r), vec![ans("a", "", true)], "{raw:?}");
        assert!(qa.partial && qa.skipped_all && qa.abort_reason.is_none());
        assert_eq!(qa.answers[0].response_time_ms, 890);
        assert_eq!(r.shown.len(), 3, "b is never shown");
    }
}

#[test]
fn skip_s_and_enter_skip_only_this_question() {
    for raw in ["skip", "s", "", "  ", "Skip"] {
        let r = run(
            &[open("a"), open("b")],
            &[Type(0, "y"), Type(5, raw), Type(5, "x")],
        );
        assert_eq!(
            answers(&r),
            vec![ans("a", "", true), ans("b", "x", false)],
            "{raw:?}"
        );
        let qa = ok(&r).qa_session_result.clone().unwrap();
        assert!(!qa.partial && !qa.skipped_all);
    }
}

#[test]
fn an_answer_is_recorded_trimmed_with_its_response_time() {
    let r = run(&[open("a")], &[Type(0, "y"), Type(3200, "  saas  ")]);
    let a = &ok(&r).qa_answers.as_ref().unwrap()[0];
    assert_eq!(a.answer_text, "saas");
    assert!(!a.skipped);
    assert_eq!(a.response_time_ms, 3200);
}

#[test]
fn a_number_in_range_picks_that_options_value() {
    let q = with_options("t", None);
    assert_eq!(classify_reply("1", &q), Reply::Answer("k8s".into()));
    assert_eq!(classify_reply(" 2 ", &q), Reply::Answer("vm".into()));
    assert_eq!(classify_reply("02", &q), Reply::Answer("vm".into()));
}

// Issue 24 changed this deliberately: kept as free text, such a number made a mistyped `7` the
// answer.
#[test]
fn an_out_of_range_number_picks_no_option_and_is_no_answer() {
    let q = with_options("t", None);
    for raw in ["0", "3", " 7 ", "99999999999999999999999"] {
        assert_eq!(
            classify_reply(raw, &q),
            Reply::NoSuchOption { options: 2 },
            "{raw}"
        );
    }
}

#[test]
fn a_number_out_of_range_is_asked_again_with_the_valid_range_then_recorded_once_answered() {
    let r = run(
        &[with_options("t", None)],
        &[Type(0, "y"), Type(10, "7"), Type(10, "2")],
    );
    let a = &ok(&r).qa_answers.as_ref().unwrap()[0];
    assert_eq!(a.answer_text, "vm");
    assert!(
        r.shown
            .iter()
            .any(|s| s.contains("say 7 is not an option: type a number from 1 to 2")),
        "{:?}",
        r.shown
    );
}

#[test]
fn a_number_for_an_open_question_is_free_text() {
    assert_eq!(classify_reply("2", &open("t")), Reply::Answer("2".into()));
}

#[test]
fn a_signed_or_mixed_number_is_free_text() {
    let q = with_options("t", None);
    for raw in ["-1", "+1", "1.0", "1a", "١"] {
        assert_eq!(classify_reply(raw, &q), Reply::Answer(raw.into()), "{raw}");
    }
}

#[test]
fn r_and_at_recommended_pick_the_recommended_option() {
    let q = with_options("t", Some("vm"));
    for raw in ["r", "R", "@recommended", " @Recommended "] {
        assert_eq!(classify_reply(raw, &q), Reply::Answer("vm".into()), "{raw}");
    }
}

#[test]
fn r_without_a_recommendation_is_no_answer() {
    for raw in ["r", "@recommended", " @RECOMMENDED "] {
        assert_eq!(
            classify_reply(raw, &with_options("t", None)),
            Reply::NoRecommendation,
            "{raw}"
        );
        assert_eq!(classify_reply(raw, &open("t")), Reply::NoRecommendation);
    }
}

#[test]
fn r_without_a_recommendation_asks_again_at_a_terminal() {
    let r = run(
        &[with_options("deploy", None)],
        &[Type(10, "y"), Type(10, "r"), Type(10, "2")],
    );
    assert_eq!(answers(&r), vec![("deploy".into(), "vm".into(), false)]);
    let asked = r.shown.iter().filter(|s| s.starts_with("q 1/1")).count();
    assert_eq!(asked, 2, "{:?}", r.shown);
    assert!(
        r.shown
            .iter()
            .any(|s| s.starts_with("say No option is recommended")),
        "{:?}",
        r.shown
    );
    assert!(r.persisted.iter().all(|a| a.answer_text != "r"));
}

#[test]
fn r_at_a_question_without_options_asks_for_no_options_number() {
    let r = run(
        &[open("users")],
        &[Type(10, "y"), Type(10, "r"), Type(10, "analysts")],
    );
    assert_eq!(
        answers(&r),
        vec![("users".into(), "analysts".into(), false)]
    );
    let said: Vec<_> = r
        .shown
        .iter()
        .filter(|s| s.starts_with("say No option"))
        .collect();
    assert_eq!(said.len(), 1, "{:?}", r.shown);
    assert!(!said[0].contains("number"), "{said:?}");
}

#[test]
fn r_without_a_recommendation_is_an_error_in_a_replay() {
    let clock = ManualClock::new(1_000_000);
    let mut person = Scripted::new(&clock, &[Type(0, "y"), Type(0, "@recommended")]);
    person.replayed = true;
    let outcome = run_round_with(
        &clock,
        &mut person,
        &[open("scope")],
        "ws_abc123",
        &mut |_| Ok(()),
    );
    match outcome {
        Err(AskError::BadReplayValue(message)) => {
            assert!(message.contains("`scope`"), "{message}");
            assert!(message.contains("no recommended option"), "{message}");
        }
        other => panic!("expected an error naming the topic, got {other:?}"),
    }
}

#[test]
fn r_forever_without_a_recommendation_ends_as_a_skip() {
    let steps: Vec<Step> = std::iter::once(Type(0, "y"))
        .chain(std::iter::repeat_n(Type(0, "r"), MAX_REASKS + 1))
        .collect();
    let r = run(&[open("scope")], &steps);
    assert_eq!(answers(&r), vec![("scope".into(), String::new(), true)]);
}

#[test]
fn interrupt_mid_loop_keeps_the_partial_answers() {
    let r = run(
        &[open("a"), open("b"), open("c")],
        &[Type(0, "y"), Type(6200, "library"), Interrupt],
    );
    let o = ok(&r);
    assert_eq!(o.abort_reason, Some(AbortReason::UserAbort));
    assert!(!o.skipped);
    assert_eq!(answers(&r), vec![ans("a", "library", false)]);
    let qa = o.qa_session_result.as_ref().unwrap();
    assert!(qa.partial && !qa.skipped_all);
    assert_eq!(qa.abort_reason, Some(AbortReason::UserAbort));
    assert_eq!(qa.qa_duration_ms, 6200);
    assert_eq!(r.persisted.len(), 1);
}

#[test]
fn a_complete_loop_is_not_partial_and_has_no_abort_reason() {
    let r = run(
        &[open("a"), open("b")],
        &[Type(0, "y"), Type(3200, "saas"), Type(1100, "skip")],
    );
    let qa = ok(&r).qa_session_result.clone().unwrap();
    assert!(!qa.partial && !qa.skipped_all);
    assert_eq!(qa.abort_reason, None);
    assert_eq!(qa.qa_duration_ms, 4300);
}

#[test]
fn an_instant_loop_still_lasts_at_least_one_millisecond() {
    let r = run(&[open("a")], &[Type(0, "y"), Type(0, "x")]);
    assert_eq!(ok(&r).qa_duration_ms, 1);
}

#[test]
fn each_answer_is_persisted_before_the_next_question_is_shown() {
    let clock = ManualClock::new(0);
    let log = std::cell::RefCell::new(Vec::<String>::new());
    struct Logging<'a, 'c>(Scripted<'c>, &'a std::cell::RefCell<Vec<String>>);
    impl Person for Logging<'_, '_> {
        fn gate(&mut self, c: usize) -> Result<String, AskError> {
            self.0.gate(c)
        }
        fn intro(&mut self, t: usize) {
            self.0.intro(t)
        }
        fn question(
            &mut self,
            i: usize,
            t: usize,
            l: &str,
            q: &Question,
        ) -> Result<String, AskError> {
            self.1.borrow_mut().push(format!("show {}", q.topic));
            self.0.question(i, t, l, q)
        }
        fn decide(&mut self, d: &Decision) -> Result<String, AskError> {
            self.0.decide(d)
        }
        fn say(&mut self, t: &str) {
            self.0.say(t)
        }
        fn replayed(&self) -> bool {
            false
        }
    }
    let mut p = Logging(
        Scripted::new(&clock, &[Type(0, "y"), Type(1, "x"), Type(1, "y")]),
        &log,
    );
    run_round_with(&clock, &mut p, &[open("a"), open("b")], "ws", &mut |a| {
        log.borrow_mut().push(format!("save {}", a.question_id));
        Ok(())
    })
    .unwrap();
    assert_eq!(*log.borrow(), vec!["show a", "save a", "show b", "save b"]);
}

#[test]
fn a_failed_save_stops_the_round_with_the_error() {
    let clock = ManualClock::new(0);
    let mut p = Scripted::new(&clock, &[Type(0, "y"), Type(1, "x")]);
    let e = run_round_with(&clock, &mut p, &[open("a"), open("b")], "ws", &mut |_| {
        Err(std::io::Error::other("disk full"))
    })
    .unwrap_err();
    assert!(matches!(e, AskError::Io(_)));
    assert_eq!(p.shown.len(), 3, "b is not shown after a failed save");
}

#[test]
fn closed_input_mid_loop_is_an_error_after_saving_what_was_given() {
    let r = run(
        &[open("a"), open("b")],
        &[Type(0, "y"), Type(1, "x"), Close],
    );
    assert!(matches!(r.outcome, Err(AskError::Closed)));
    assert_eq!(r.persisted.len(), 1);
}

// ---- quality checks -----------------------------------------------------------------------

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

// ---- Choose -------------------------------------------------------------------------------

fn decision(n: usize) -> Decision {
    Decision {
        id: DecisionId::Guard,
        context: "the runner changed the repository".into(),
        options: (0..n).map(|i| format!("option {i}")).collect(),
        recommended: 0,
        reason: "safe".into(),
    }
}

#[test]
fn choose_takes_a_letter_in_either_case() {
    let clock = ManualClock::new(0);
    let mut p = Scripted::new(&clock, &[Type(0, " b ")]);
    assert_eq!(choose(&mut p, &decision(3)).unwrap(), 1);
}

#[test]
fn choose_asks_again_at_a_terminal_on_anything_else() {
    let clock = ManualClock::new(0);
    let mut p = Scripted::new(
        &clock,
        &[Type(0, "x"), Type(0, "D"), Type(0, "ab"), Type(0, "C")],
    );
    assert_eq!(choose(&mut p, &decision(3)).unwrap(), 2);
    assert_eq!(p.shown.iter().filter(|s| s.starts_with("say ")).count(), 3);
}

#[test]
fn choose_refuses_a_bad_replayed_letter_instead_of_looping() {
    let clock = ManualClock::new(0);
    let mut p = Scripted::new(&clock, &[Type(0, "D")]);
    p.replayed = true;
    let e = choose(&mut p, &decision(2)).unwrap_err();
    assert!(e.to_string().contains("decisions.guard"), "{e}");
}

#[test]
fn choose_needs_two_to_four_options() {
    let clock = ManualClock::new(0);
    for n in [0, 1, 5] {
        let mut p = Scripted::new(&clock, &[Type(0, "A")]);
        assert!(choose(&mut p, &decision(n)).is_err(), "{n} options");
    }
}

#[test]
fn choose_interrupt_is_returned() {
    let clock = ManualClock::new(0);
    let mut p = Scripted::new(&clock, &[Interrupt]);
    assert!(matches!(
        choose(&mut p, &decision(2)),
        Err(AskError::Interrupted)
    ));
}

// ---- properties ---------------------------------------------------------------------------

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        (
            0u64..200_000,
            prop::sample::select(vec![
                "",
                "skip",
                "s",
                "skip all",
                "s all",
                "1",
                "2",
                "3",
                "0",
                "r",
                "@recommended",
                "free text",
                "  Y ",
                "n",
            ])
        )
            .prop_map(|(ms, t)| Type(ms, t)),
        Just(Interrupt),
    ]
}

proptest! {
    #[test]
    fn every_round_result_passes_its_quality_checks(
        n in 0usize..6,
        opts in prop::collection::vec(any::<bool>(), 6),
        steps in prop::collection::vec(step(), 0..10),
    ) {
        let questions: Vec<Question> = (0..n)
            .map(|i| {
                let t = format!("t{i}");
                if opts[i] { with_options(&t, Some("vm")) } else { open(&t) }
            })
            .collect();
        let r = run(&questions, &steps);
        match &r.outcome {
            Ok(o) => {
                prop_assert!(o.check().is_ok());
                if let Some(qa) = &o.qa_session_result {
                    prop_assert!(qa.check().is_ok());
                    prop_assert_eq!(&qa.answers, &r.persisted);
                }
            }
            // Only running out of script (Closed) may end a round without a result.
            Err(e) => prop_assert!(matches!(e, AskError::Closed), "{}", e),
        }
    }

    #[test]
    fn classification_never_yields_a_skipped_answer_with_text(raw in ".{0,40}") {
        let q = with_options("t", Some("vm"));
        match classify_reply(&raw, &q) {
            Reply::Answer(text) => prop_assert!(!text.is_empty()),
            Reply::Skip | Reply::SkipAll => {}
            Reply::NoRecommendation => prop_assert!(false, "{raw:?}: this question has a recommendation"),
            Reply::NoSuchOption { options } => {
                prop_assert_eq!(options, 2);
                prop_assert!(raw.trim().bytes().all(|b| b.is_ascii_digit()));
            }
        }
    }

    #[test]
    fn parse_letter_accepts_exactly_the_offered_letters(raw in ".{0,3}", n in 2usize..=4) {
        if let Some(i) = parse_letter(&raw, n) {
            prop_assert!(i < n);
            prop_assert_eq!(raw.trim().to_ascii_uppercase(), render::letter(i).to_string());
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Letters {
    A,
    B,
}

impl Options for Letters {
    const ALL: &'static [Letters] = &[Letters::A, Letters::B];
}

#[test]
fn an_option_is_its_place_and_no_place_past_the_last_is_an_option() {
    assert_eq!(Letters::B.index(), 1);
    assert_eq!(Letters::at(0).unwrap(), Letters::A);
    assert!(matches!(Letters::at(2), Err(AskError::Inconsistent(_))));
}
