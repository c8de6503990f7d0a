//! The built-in interviewer, run as the subprocess `interview runner builtin` with hand-made
//! `brief.json` files, exactly as the turn loop starts it. Its receipts go through the tool's
//! own receipt checks.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Stdio;

use interview::testing::AnswerRecord;
use interview::testing::{BRIEF_VERSION, BriefContext, BriefSubject, Round};
use interview::testing::{CheckContext, Clarity, Done, Question, Receipt};
use interview::testing::{GithubCli, IntentRequest, Kind, Subject, intent_with};

use crate::util::{TempRepo, bin, fixtures, stderr};

/// Run the built-in interviewer in `repo` on `ctx`; returns the receipt's text.
fn run_builtin(repo: &TempRepo, ctx: &BriefContext) -> String {
    let turn = tempfile::tempdir().unwrap();
    let out = turn.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let context = turn.path().join("brief.json");
    std::fs::write(&context, serde_json::to_string_pretty(ctx).unwrap()).unwrap();
    std::fs::write(turn.path().join("brief.md"), "# brief\n").unwrap();
    let receipt = out.join("receipt.json");
    let status = std::process::Command::new(bin())
        .args(["runner", "builtin"])
        .current_dir(repo.path())
        .env("INTERVIEW_BRIEF", turn.path().join("brief.md"))
        .env("INTERVIEW_CONTEXT", &context)
        .env("INTERVIEW_OUT", &out)
        .env("INTERVIEW_RECEIPT", &receipt)
        .env("INTERVIEW_TURN", ctx.turn.to_string())
        .env("INTERVIEW_FINAL", if ctx.final_turn { "1" } else { "0" })
        .env("INTERVIEW_SESSION", "intent-test-20250101T000000-00000000")
        .stdin(Stdio::null())
        .status()
        .expect("run interview runner builtin");
    assert!(status.success(), "the built-in interviewer failed");
    let written: Vec<_> = std::fs::read_dir(&out).unwrap().collect();
    assert_eq!(written.len(), 1, "it writes the receipt and nothing else");
    std::fs::read_to_string(receipt).expect("a receipt")
}

/// Check the receipt with the tool's own rules and return it.
fn checked(repo: &TempRepo, ctx: &BriefContext, text: &str) -> Receipt {
    let mut asked = BTreeSet::new();
    let mut answered = BTreeSet::new();
    for round in &ctx.rounds {
        for q in &round.questions {
            asked.insert(q.topic.clone());
        }
        for a in round.answers.iter().filter(|a| !a.skipped) {
            answered.insert(a.question_id.clone());
        }
    }
    // As the session checks it: the work item's own lines are no evidence.
    let work_item = ctx.subject.facts.get("path").and_then(|p| p.as_str());
    let check = CheckContext {
        final_turn: ctx.final_turn,
        asked_topics: &asked,
        answered_topics: &answered,
        repo_root: repo.path(),
        work_item,
    };
    match interview::testing::parse_and_check(text, &check) {
        Ok((receipt, _)) => receipt,
        Err(e) => panic!("the receipt fails the checks: {e}\n{text}"),
    }
}

fn context(subject: &Subject, turn: u32, final_turn: bool, rounds: Vec<Round>) -> BriefContext {
    BriefContext {
        interview_brief: BRIEF_VERSION,
        kind: subject.kind,
        subject: BriefSubject {
            id: subject.id.clone(),
            title: subject.title.clone(),
            facts: subject.facts.clone(),
        },
        turn,
        max_turns: 5,
        final_turn,
        previous_failure: None,
        rounds,
        replayed: false,
    }
}

/// A repository holding fixture work item `name` as `docs/intents/7-<name>`; its subject.
fn intent_subject(name: &str) -> (TempRepo, Subject) {
    let repo = TempRepo::new();
    let text = std::fs::read_to_string(fixtures().join("intents").join(name)).unwrap();
    repo.write(&format!("docs/intents/7-{name}"), &text);
    let req = IntentRequest {
        id: "7",
        from: None,
        globs: None,
        github: GithubCli::Off,
    };
    let found = intent_with(repo.path(), &req, None).expect("the work item");
    (repo, found.subject)
}

fn questions(receipt: &Receipt) -> Vec<Question> {
    match receipt {
        Receipt::Ask(ask) => ask.questions.clone(),
        Receipt::Done(_) => Vec::new(),
    }
}

fn done(receipt: Receipt) -> Done {
    match receipt {
        Receipt::Done(d) => d,
        Receipt::Ask(a) => panic!("expected done, got ask: {a:?}"),
    }
}

fn topics(qs: &[Question]) -> Vec<String> {
    qs.iter().map(|q| q.topic.clone()).collect()
}

fn answer(topic: &str, text: &str) -> AnswerRecord {
    AnswerRecord {
        question_id: topic.into(),
        answer_text: text.into(),
        skipped: false,
        response_time_ms: 1,
    }
}

fn skip(topic: &str) -> AnswerRecord {
    AnswerRecord {
        question_id: topic.into(),
        answer_text: String::new(),
        skipped: true,
        response_time_ms: 1,
    }
}

fn round(qs: Vec<Question>, answers: Vec<AnswerRecord>) -> Round {
    Round {
        turn: 1,
        questions: qs,
        answers,
        gate_skipped: false,
        skipped_all: false,
    }
}

#[test]
fn a_vague_work_item_gets_the_five_most_severe_questions() {
    let (repo, subject) = intent_subject("vague-export.md");
    let ctx = context(&subject, 1, false, vec![]);
    let qs = questions(&checked(&repo, &ctx, &run_builtin(&repo, &ctx)));
    assert_eq!(
        topics(&qs),
        vec![
            "vague_tbd",
            "open_point_1",
            "acceptance_criteria",
            "vague_fast",
            "vague_etc"
        ]
    );
    let severities: Vec<u8> = qs.iter().map(|q| q.severity).collect();
    assert!(
        severities.windows(2).all(|w| w[0] >= w[1]),
        "{severities:?}"
    );
}

#[test]
fn questions_with_a_known_answer_space_offer_options() {
    let (repo, subject) = intent_subject("vague-export.md");
    let ctx = context(&subject, 1, false, vec![]);
    let qs = questions(&checked(&repo, &ctx, &run_builtin(&repo, &ctx)));
    let fast = qs.iter().find(|q| q.topic == "vague_fast").unwrap();
    assert!(fast.options.as_ref().is_some_and(|o| o.len() >= 2));
    let acceptance = qs
        .iter()
        .find(|q| q.topic == "acceptance_criteria")
        .unwrap();
    assert!(acceptance.options.is_none(), "free text: no known answers");
}

#[test]
fn a_precise_work_item_goes_straight_to_done() {
    let (repo, subject) = intent_subject("precise-export.md");
    let ctx = context(&subject, 1, false, vec![]);
    let d = done(checked(&repo, &ctx, &run_builtin(&repo, &ctx)));
    // What the item states is quoted in the document, never confirmed by citing the item.
    for e in &d.entries {
        assert!(
            e.clarity != Clarity::Confirmed
                || e.sources.iter().any(|s| !s.starts_with("docs/intents/")),
            "{e:?}"
        );
        assert!(e.clarity != Clarity::OpenQuestion, "nothing is open: {e:?}");
    }
}

#[test]
fn a_mostly_precise_work_item_gets_only_what_it_misses() {
    let (repo, subject) = intent_subject("no-acceptance.md");
    let ctx = context(&subject, 1, false, vec![]);
    let qs = questions(&checked(&repo, &ctx, &run_builtin(&repo, &ctx)));
    // It states users, behaviour, errors, format and scope: none of that is asked.
    for stated in [
        "users",
        "error_handling",
        "data_format",
        "scope",
        "behaviour_preserved",
    ] {
        assert!(!topics(&qs).contains(&stated.to_string()), "{stated} asked");
    }
}

#[test]
fn questions_left_in_the_text_are_asked() {
    let (repo, subject) = intent_subject("questions-left.md");
    let ctx = context(&subject, 1, false, vec![]);
    let qs = questions(&checked(&repo, &ctx, &run_builtin(&repo, &ctx)));
    assert_eq!(topics(&qs), vec!["open_point_1", "open_point_2"]);
    // The whole sentence, and its two alternatives as options.
    assert_eq!(
        qs[0].question_text,
        "Line 6 asks: \"Should the quota be per API key or per IP address?\""
    );
    let labels: Vec<&str> = qs[0]
        .options
        .iter()
        .flatten()
        .map(|o| o.label.as_str())
        .collect();
    assert_eq!(labels, ["per API key", "per IP address"]);
}

#[test]
fn an_empty_work_item_asks_for_the_goal() {
    let (repo, subject) = intent_subject("empty.md");
    let ctx = context(&subject, 1, false, vec![]);
    let qs = questions(&checked(&repo, &ctx, &run_builtin(&repo, &ctx)));
    assert_eq!(topics(&qs), vec!["goal"]);
}

#[test]
fn the_receipt_is_byte_identical_on_the_same_input() {
    let (repo, subject) = intent_subject("vague-export.md");
    let ask = context(&subject, 1, false, vec![]);
    assert_eq!(run_builtin(&repo, &ask), run_builtin(&repo, &ask));
    let qs = questions(&checked(&repo, &ask, &run_builtin(&repo, &ask)));
    let answers = vec![
        answer(&qs[0].topic, "A test exports March"),
        skip(&qs[1].topic),
    ];
    let finish = context(&subject, 2, false, vec![round(qs, answers)]);
    assert_eq!(run_builtin(&repo, &finish), run_builtin(&repo, &finish));
}

#[test]
fn answered_topics_are_declared_by_user_and_skipped_ones_open() {
    let (repo, subject) = intent_subject("vague-export.md");
    let ask = context(&subject, 1, false, vec![]);
    let qs = questions(&checked(&repo, &ask, &run_builtin(&repo, &ask)));
    let answers = vec![
        answer("acceptance_criteria", "Exporting March matches the fixture"),
        skip("vague_tbd"),
        answer("vague_fast", "under_1s"),
    ];
    let ctx = context(&subject, 2, true, vec![round(qs, answers)]);
    let d = done(checked(&repo, &ctx, &run_builtin(&repo, &ctx)));
    let declared: Vec<&str> = d
        .entries
        .iter()
        .filter(|e| e.clarity == Clarity::DeclaredByUser)
        .flat_map(|e| e.sources.iter().map(String::as_str))
        .collect();
    assert_eq!(declared, vec!["qa:acceptance_criteria", "qa:vague_fast"]);
    let fast = d
        .entries
        .iter()
        .find(|e| e.sources == ["qa:vague_fast"])
        .unwrap();
    assert!(
        fast.content.contains("A: Under 1 second (under_1s)"),
        "an option's label is shown: {}",
        fast.content
    );
    let open: Vec<&str> = d
        .entries
        .iter()
        .filter(|e| e.clarity == Clarity::OpenQuestion)
        .map(|e| e.content.as_str())
        .collect();
    assert!(
        open.iter()
            .any(|c| c.starts_with("The person skipped this question")),
        "{open:?}"
    );
    // Questions presented but never answered (the person stopped) stay open too.
    assert!(
        open.iter()
            .any(|c| c.starts_with("The question was never answered")),
        "{open:?}"
    );
}

#[test]
fn a_skipped_round_leaves_every_question_open() {
    let (repo, subject) = intent_subject("vague-export.md");
    let ask = context(&subject, 1, false, vec![]);
    let qs = questions(&checked(&repo, &ask, &run_builtin(&repo, &ask)));
    let n = qs.len();
    let mut skipped = round(qs, vec![]);
    skipped.gate_skipped = true;
    let ctx = context(&subject, 2, true, vec![skipped]);
    let d = done(checked(&repo, &ctx, &run_builtin(&repo, &ctx)));
    let open = d
        .entries
        .iter()
        .filter(|e| e.clarity == Clarity::OpenQuestion)
        .count();
    assert!(open >= n, "{open} open entries for {n} skipped questions");
    assert!(
        d.entries
            .iter()
            .all(|e| e.clarity != Clarity::DeclaredByUser)
    );
}

#[test]
fn the_final_turn_never_asks() {
    let (repo, subject) = intent_subject("vague-export.md");
    let ctx = context(&subject, 1, true, vec![]);
    let d = done(checked(&repo, &ctx, &run_builtin(&repo, &ctx)));
    assert!(
        d.entries.iter().any(|e| e.clarity == Clarity::OpenQuestion),
        "what it would have asked stays open"
    );
}

#[test]
fn a_topic_asked_before_is_never_asked_again() {
    let (repo, subject) = intent_subject("vague-export.md");
    let first = context(&subject, 1, false, vec![]);
    let qs = questions(&checked(&repo, &first, &run_builtin(&repo, &first)));
    // Even when an earlier round exists and more turns remain, it finishes instead of repeating.
    let ctx = context(&subject, 2, false, vec![round(qs.clone(), vec![])]);
    let receipt = checked(&repo, &ctx, &run_builtin(&repo, &ctx));
    for q in questions(&receipt) {
        assert!(!topics(&qs).contains(&q.topic), "{} asked again", q.topic);
    }
}

// ---------------------------------------------------------------------------------------------
// reflect

fn reflect_repo() -> TempRepo {
    let repo = TempRepo::new();
    repo.git(&["tag", "v1"]);
    for i in 0..3 {
        repo.write(
            "src/lib.rs",
            &format!("pub fn answer() -> u32 {{\n    {i}\n}}\n"),
        );
        repo.git(&["add", "-A"]);
        repo.git(&["commit", "-q", "-m", &format!("Tune the answer {i}")]);
    }
    repo.write("src/todo.rs", "fn f() {}\n// TODO: remove the hack\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "Add the hack"]);
    repo.git(&["revert", "--no-edit", "HEAD~1"]);
    repo.git(&["rm", "-q", "README.md"]);
    repo.git(&["commit", "-q", "-m", "Drop the readme"]);
    repo
}

#[test]
fn reflect_asks_about_what_the_facts_show() {
    let repo = reflect_repo();
    let subject = interview::testing::reflect(repo.path(), "v1").unwrap();
    let ctx = context(&subject, 1, false, vec![]);
    let qs = questions(&checked(&repo, &ctx, &run_builtin(&repo, &ctx)));
    let got = topics(&qs);
    for topic in ["reverts", "untested_changes", "largest_churn"] {
        assert!(got.contains(&topic.to_string()), "{topic} in {got:?}");
    }
    assert!(qs.len() <= 5);
    let reverts = qs.iter().find(|q| q.topic == "reverts").unwrap();
    assert!(
        reverts.question_text.contains("Tune the answer 2"),
        "{}",
        reverts.question_text
    );
}

#[test]
fn reflect_done_cites_commits_and_lines_that_exist() {
    let repo = reflect_repo();
    let subject = interview::testing::reflect(repo.path(), "v1").unwrap();
    let first = context(&subject, 1, false, vec![]);
    let qs = questions(&checked(&repo, &first, &run_builtin(&repo, &first)));
    let answers = vec![answer("reverts", "bug_after_merge")];
    let ctx = context(&subject, 2, false, vec![round(qs, answers)]);
    // `checked` runs the tool's source checks: every path:line and commit cited must exist.
    let d = done(checked(&repo, &ctx, &run_builtin(&repo, &ctx)));
    let sources: Vec<&str> = d
        .entries
        .iter()
        .filter(|e| e.clarity == Clarity::Confirmed)
        .flat_map(|e| e.sources.iter().map(String::as_str))
        .collect();
    assert!(sources.contains(&"src/todo.rs:2"), "{sources:?}");
    assert!(
        sources.iter().any(|s| s.starts_with("commit:")),
        "{sources:?}"
    );
    assert!(
        d.entries
            .iter()
            .any(|e| e.sources == ["qa:reverts"] && e.clarity == Clarity::DeclaredByUser)
    );
}

#[test]
fn an_empty_range_goes_straight_to_done() {
    let repo = TempRepo::new();
    repo.git(&["tag", "v1"]);
    let subject = interview::testing::reflect(repo.path(), "v1").unwrap();
    let ctx = context(&subject, 1, false, vec![]);
    let d = done(checked(&repo, &ctx, &run_builtin(&repo, &ctx)));
    // The range names the commit HEAD was (issue 28: a document says which commits it is about).
    let head = repo.git(&["rev-parse", "HEAD"]);
    assert!(
        d.summary.starts_with(&format!(
            "No commits in v1..{}: HEAD is at or behind the base.",
            &head[..8]
        )),
        "{}",
        d.summary
    );
}

#[test]
fn without_a_context_it_says_how_it_is_started() {
    let repo = TempRepo::new();
    let out = repo
        .cmd()
        .args(["runner", "builtin"])
        .env_remove("INTERVIEW_CONTEXT")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("INTERVIEW_CONTEXT is not set"), "{err}");
}

#[test]
fn the_demo_work_item_in_examples_is_interviewed() {
    let repo = TempRepo::new();
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/intents/42-export-csv.md");
    let source = interview::testing::WorkItemSource::File(example);
    let req = IntentRequest {
        id: "42",
        from: Some(&source),
        globs: None,
        github: GithubCli::Off,
    };
    let subject = intent_with(repo.path(), &req, None).unwrap().subject;
    assert_eq!(subject.kind, Kind::Intent);
    let ctx = context(&subject, 1, false, vec![]);
    let qs = questions(&checked(&repo, &ctx, &run_builtin(&repo, &ctx)));
    assert_eq!(qs.len(), 5);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    /// Whatever a work item says, the built-in interviewer's first receipt passes the strict
    /// checks (and so never panics on it either).
    #[test]
    fn any_work_item_gives_a_receipt_that_passes_the_checks(
        text in "(\\PC{0,40}\n|- [a-z ]{0,20}etc\\.?\n|TBD\n|\\?\n|# [A-Za-z ]{0,20}\n){0,8}",
    ) {
        use interview::testing::{BRIEF_VERSION, BriefContext, BriefSubject};
        let repo = crate::util::TempRepo::new();
        let facts = serde_json::json!({
            "id": "9", "tracker": "from", "source": "item.md", "path": null,
            "title": "Item 9", "text": text, "truncated": false,
        });
        let ctx = BriefContext {
            interview_brief: BRIEF_VERSION,
            kind: interview::testing::Kind::Intent,
            subject: BriefSubject { id: "9".into(), title: "Item 9".into(), facts },
            turn: 1,
            max_turns: 5,
            final_turn: false,
            previous_failure: None,
            rounds: Vec::new(),
            replayed: false,
        };
        let receipt = interview::testing::decide(&ctx, repo.path());
        let json = interview::testing::receipt_json(&receipt).unwrap();
        let none = std::collections::BTreeSet::new();
        let check = interview::testing::CheckContext {
            final_turn: false,
            asked_topics: &none,
            answered_topics: &none,
            repo_root: repo.path(),
            work_item: None,
        };
        let checked = interview::testing::parse_and_check(&json, &check);
        proptest::prop_assert!(checked.is_ok(), "{:?}\n{json}", checked.err());
    }
}
