//! Unit tests of the entry gate, the question loop, the Choose prompt and the quality checks,
//! with a scripted person and a manual clock so timings are exact.
//!
//! Here the scripted person and the helpers; the tests are in `tests/`.

use super::clock::ManualClock;
use super::*;
use crate::receipt::QuestionOption;
use proptest::prelude::*;

mod choose_prompt;
mod entry_gate;
mod properties;
mod quality_checks;
mod question_loop;

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
