//! Unit tests of the question loop: the intro and time labels, skips, answers and option numbers,
//! `r` and `@recommended`, an interrupt, each answer saved before the next question.

use super::*;

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
