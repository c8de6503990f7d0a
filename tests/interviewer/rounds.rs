//! The built-in interviewer over several rounds: topics beyond the first round asked in the next,
//! a re-run asking only what the earlier interview left open, and replaying `@recommended`.

use super::*;

// ---------------------------------------------------------------------------------------------
// rounds and re-runs

#[test]
fn topics_beyond_the_first_round_are_asked_in_the_next() {
    let (repo, subject) = repo_with(&[], fixture_text("intents/vague-export.md").as_str());
    let first = match decide(&repo, &context(&subject, false, vec![])) {
        Receipt::Ask(a) => a.questions,
        Receipt::Done(d) => panic!("{d:?}"),
    };
    assert_eq!(first.len(), 5);
    let answers = first
        .iter()
        .map(|q| interview::testing::AnswerRecord {
            question_id: q.topic.clone(),
            answer_text: "an answer".into(),
            skipped: false,
            response_time_ms: 1,
        })
        .collect();
    let round = Round {
        turn: 1,
        questions: first.clone(),
        answers,
        gate_skipped: false,
        skipped_all: false,
    };
    let second = match decide(&repo, &context(&subject, false, vec![round])) {
        Receipt::Ask(a) => a.questions,
        Receipt::Done(d) => panic!("the rest was dropped: {d:?}"),
    };
    assert!(!second.is_empty());
    for q in &second {
        assert!(
            !topic_list(&first).contains(&q.topic.as_str()),
            "{} again",
            q.topic
        );
    }
}

#[test]
fn a_re_run_puts_to_the_person_only_what_the_earlier_interview_left_open() {
    let (repo, _) = repo_with(&[], "x\n");
    repo.write("item.md", &fixture_text("intents/vague-export.md"));
    // First interview: the first round answered, the second skipped at its gate.
    let first = Interview::intent(&repo, "7")
        .from("item.md")
        .preset("builtin")
        .answers(
            r#"{ "interview_answers": 1, "gate": ["y", "n"], "answers": {
                 "vague_tbd": "report-<month>.csv", "open_point_1": "Next to the month picker",
                 "acceptance_criteria": "March matches the fixture", "vague_fast": "under_1s",
                 "vague_etc": "CSV only" } }"#,
        )
        .yes()
        .run()
        .exits(0);
    let doc = repo.read("docs/interviews/intent-7.md");
    assert!(doc.contains("## Open questions"), "{doc}");
    drop(first);
    let earlier = repo.session_ids();
    // The re-run at a terminal carries the earlier answers into the very questions the
    // interviewer asks again (the same rounds as a replay: the document is a function of the
    // item, the repository and the answers) and puts only the open ones to the person.
    let mut pty = Interview::intent(&repo, "7")
        .from("item.md")
        .preset("builtin")
        .yes()
        .out("-")
        .at_terminal();
    let mut shown = pty.expect("Already answered in an earlier interview, not asked again");
    shown.push_str(&pty.answer("N to skip entirely.", "n"));
    let (code, rest) = pty.finish();
    shown.push_str(&rest);
    assert_eq!(code, 0, "{shown}");
    // Two sessions may start in the same second: read the new one by its id.
    let id = repo
        .session_ids()
        .into_iter()
        .find(|id| !earlier.contains(id))
        .expect("the re-run's session");
    let state: serde_json::Value =
        serde_json::from_str(&repo.read(&format!(".interview/sessions/{id}/state.json"))).unwrap();
    let rounds = state["rounds"].as_array().unwrap();
    let carried_round = &rounds[0];
    let answered: Vec<&str> = carried_round["answers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["question_id"].as_str().unwrap())
        .collect();
    assert_eq!(
        answered,
        [
            "vague_tbd",
            "open_point_1",
            "acceptance_criteria",
            "vague_fast",
            "vague_etc"
        ],
        "{state}"
    );
    assert_eq!(
        carried_round["gate_skipped"], false,
        "no gate for carried answers"
    );
    let put: Vec<&str> = rounds[1]["questions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["topic"].as_str().unwrap())
        .collect();
    assert!(put.contains(&"vague_maybe"), "{put:?}");
    assert!(!put.iter().any(|t| answered.contains(t)), "{put:?}");
    assert_eq!(rounds[1]["gate_skipped"], true, "{state}");
    assert!(
        !shown.contains("Answered in an earlier interview"),
        "{shown}"
    );
}

// ---------------------------------------------------------------------------------------------
// replaying `@recommended`

#[test]
fn replaying_at_recommended_without_a_recommendation_is_an_error_naming_the_topic() {
    let repo = TempRepo::new();
    repo.write("item.md", &fixture_text("intents/questions-left.md"));
    let out = Interview::intent(&repo, "7")
        .from("item.md")
        .preset("builtin")
        .answers(
            r#"{ "interview_answers": 1, "answers": { "open_point_1": "1", "open_point_2": "@recommended" } }"#,
        )
        .yes()
        .out("-")
        .run();
    assert_eq!(out.code, 2, "{}", out.screen());
    assert!(out.stderr.contains("`open_point_2`"), "{}", out.stderr);
    assert!(
        out.stderr.contains("no recommended option"),
        "{}",
        out.stderr
    );
    assert!(!out.stdout.contains("A: @recommended"));
}
