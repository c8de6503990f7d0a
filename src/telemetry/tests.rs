//! Unit tests of the telemetry records and `interview stats`.

use super::*;
use crate::ask::clock::ManualClock;
use crate::ask::{AskError, Decision, Person, run_round_with};
use crate::receipt::Question;

/// A person typing a fixed list of lines; `None` is Ctrl+C.
struct Lines(Vec<Option<&'static str>>);

impl Person for Lines {
    fn gate(&mut self, _: usize) -> Result<String, AskError> {
        self.next()
    }
    fn intro(&mut self, _: usize) {}
    fn question(&mut self, _: usize, _: usize, _: &str, _: &Question) -> Result<String, AskError> {
        self.next()
    }
    fn decide(&mut self, _: &Decision) -> Result<String, AskError> {
        self.next()
    }
    fn say(&mut self, _: &str) {}
    fn replayed(&self) -> bool {
        false
    }
}

impl Lines {
    fn next(&mut self) -> Result<String, AskError> {
        if self.0.is_empty() {
            return Err(AskError::Closed);
        }
        self.0
            .remove(0)
            .map(str::to_string)
            .ok_or(AskError::Interrupted)
    }
}

fn questions(n: usize) -> Vec<Question> {
    (0..n)
        .map(|i| Question {
            topic: format!("t{i}"),
            question_text: format!("Secret question text {i}?"),
            severity: 5,
            options: None,
            recommended: None,
        })
        .collect()
}

fn event(n: usize, lines: &[Option<&'static str>]) -> RoundEvent {
    let clock = ManualClock::new(0);
    let mut p = Lines(lines.to_vec());
    let mut step = 0;
    let outcome = run_round_with(&clock, &mut p, &questions(n), "ws1", &mut |_| {
        step += 1;
        Ok(())
    })
    .unwrap();
    RoundEvent::from_outcome(&outcome, false, "2026-01-01T00:00:00Z".into())
}

#[test]
fn skip_at_the_gate_is_a_pre_loop_skip() {
    let e = event(2, &[Some("n")]);
    assert_eq!(e.gate, Some(GateRecord::UserSkipEntire));
    assert_eq!(e.skip_type, SkipType::PreLoop);
    assert_eq!(e.qa_duration_ms, 0);
    assert_eq!(e.questions, 2);
}

#[test]
fn skip_all_in_the_loop_is_a_mid_loop_skip_all_at_its_position() {
    let e = event(3, &[Some("y"), Some("a"), Some("skip all")]);
    assert_eq!(e.gate, Some(GateRecord::Proceeded));
    assert_eq!(e.skip_type, SkipType::MidLoopSkipAll);
    assert_eq!(e.skip_all_at, Some(2));
    assert_eq!(e.skipped_positions, vec![2]);
    assert_eq!(e.answered, 1);
}

#[test]
fn single_skips_are_per_question_only() {
    let e = event(3, &[Some("y"), Some("skip"), Some("a"), Some("")]);
    assert_eq!(e.skip_type, SkipType::PerQuestionOnly);
    assert_eq!(e.skipped_positions, vec![1, 3]);
}

#[test]
fn all_answered_is_none() {
    assert_eq!(event(1, &[Some("y"), Some("a")]).skip_type, SkipType::None);
}

#[test]
fn ctrl_c_at_the_gate_is_a_user_abort_gate_record() {
    let e = event(1, &[None]);
    assert_eq!(e.gate, Some(GateRecord::UserAbort));
    assert_eq!(e.skip_type, SkipType::UserAbort);
    assert_eq!(e.abort_at, None);
}

#[test]
fn ctrl_c_in_the_loop_is_a_user_abort_at_its_position() {
    let e = event(3, &[Some("y"), Some("a"), None]);
    assert_eq!(e.gate, Some(GateRecord::Proceeded));
    assert_eq!(e.skip_type, SkipType::UserAbort);
    assert_eq!(e.abort_at, Some(2));
    assert!(e.qa_duration_ms >= 1);
}

#[test]
fn no_questions_is_recorded_with_zero_duration_and_no_gate() {
    let e = event(0, &[]);
    assert_eq!(e.gate, None);
    assert_eq!(e.skip_type, SkipType::NoQuestions);
    assert_eq!(e.qa_duration_ms, 0);
}

#[test]
fn a_record_never_contains_question_text_or_answers() {
    let e = event(2, &[Some("y"), Some("my secret answer"), Some("skip")]);
    let line = serde_json::to_string(&e).unwrap();
    assert!(!line.contains("Secret question"));
    assert!(!line.contains("my secret answer"));
    assert!(!line.contains("t0"), "not even topics: {line}");
}

#[test]
fn record_round_appends_one_line_per_round() {
    let dir = tempfile::tempdir().unwrap();
    let clock = ManualClock::new(0);
    for lines in [vec![Some("n")], vec![Some("y"), Some("a")]] {
        let mut p = Lines(lines);
        let o = run_round_with(&clock, &mut p, &questions(1), "ws1", &mut |_| Ok(())).unwrap();
        record_round(dir.path(), &o, true).unwrap();
    }
    let text = std::fs::read_to_string(dir.path().join(FILE)).unwrap();
    assert_eq!(text.lines().count(), 2);
    let e: RoundEvent = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert!(e.replayed);
    assert!(crate::ask::clock::is_iso_utc(&e.ts));
}

#[test]
fn record_round_does_not_create_the_local_tier() {
    let dir = tempfile::tempdir().unwrap();
    let o = {
        let mut p = Lines(vec![Some("n")]);
        run_round_with(
            &ManualClock::new(0),
            &mut p,
            &questions(1),
            "ws",
            &mut |_| Ok(()),
        )
        .unwrap()
    };
    assert!(record_round(&dir.path().join("missing"), &o, false).is_err());
    assert!(!dir.path().join("missing").exists());
}

fn lines_of(events: &[RoundEvent]) -> String {
    events
        .iter()
        .map(|e| serde_json::to_string(e).unwrap() + "\n")
        .collect()
}

#[test]
fn stats_count_pre_loop_skips_and_mid_loop_skip_all_separately() {
    let text = lines_of(&[
        event(2, &[Some("n")]),
        event(2, &[Some("y"), Some("skip all")]),
        event(2, &[Some("y"), Some("a"), Some("b")]),
        event(2, &[Some("y"), Some("a"), Some("skip")]),
    ]);
    let s = Stats::read(text.as_bytes()).unwrap();
    assert_eq!(s.rounds, 4);
    assert_eq!(s.gate_shown, 4);
    assert_eq!(s.pre_loop_skips, 1);
    assert_eq!(s.mid_loop_skip_all, 1);
    assert_eq!(s.pre_loop_skip_rate, Some(0.25));
    assert_eq!(s.mid_loop_skip_all_rate, Some(0.25));
    assert_eq!(s.questions_presented, 5);
    assert_eq!(s.questions_skipped, 2);
}

#[test]
fn stats_leave_replayed_rounds_out_of_the_rates() {
    let mut replayed = event(2, &[Some("n")]);
    replayed.replayed = true;
    let s =
        Stats::read(lines_of(&[replayed, event(1, &[Some("y"), Some("a")])]).as_bytes()).unwrap();
    assert_eq!(s.replayed_rounds, 1);
    assert_eq!(s.rounds, 1);
    assert_eq!(s.pre_loop_skip_rate, Some(0.0));
}

#[test]
fn stats_no_questions_rounds_do_not_count_as_gates_shown() {
    let s = Stats::read(lines_of(&[event(0, &[])]).as_bytes()).unwrap();
    assert_eq!(s.no_questions, 1);
    assert_eq!(s.gate_shown, 0);
    assert_eq!(s.pre_loop_skip_rate, None);
}

#[test]
fn stats_count_and_report_unreadable_lines_without_failing() {
    let good = lines_of(&[event(1, &[Some("n")])]);
    let text = format!("{good}not json\n{{\"event\":\"other\"}}\n\n\u{0}\u{ff}garbage\n{good}");
    let s = Stats::read(text.as_bytes()).unwrap();
    assert_eq!(s.rounds, 2);
    assert_eq!(s.unreadable_lines, 3);
    assert_eq!(s.unreadable_line_numbers, vec![2, 3, 5]);
    assert!(s.render().contains("Ignored 3 unreadable line(s)"));
}

#[test]
fn stats_read_invalid_utf8_as_unreadable() {
    let s = Stats::read(&b"\xff\xfe\n"[..]).unwrap();
    assert_eq!(s.unreadable_lines, 1);
}

#[test]
fn stats_render_names_pre_loop_and_mid_loop_separately() {
    let text = lines_of(&[
        event(2, &[Some("n")]),
        event(2, &[Some("y"), Some("s all")]),
    ]);
    let out = Stats::read(text.as_bytes()).unwrap().render();
    assert!(
        out.contains("skipped at the gate:       1  (50%)\n"),
        "{out}"
    );
    assert!(
        out.contains("\"skip all\" in the loop:    1  (50%)\n"),
        "{out}"
    );
    assert!(!out.contains("-loop"), "jargon for people: {out}");
}

proptest::proptest! {
    #[test]
    fn stats_never_fail_on_arbitrary_bytes(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..400)) {
        let s = Stats::read(&bytes[..]).unwrap();
        proptest::prop_assert!(s.rounds == 0 || s.gate_shown <= s.rounds);
    }
}
