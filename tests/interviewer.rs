//! The built-in intent interviewer on generated repositories with real-looking code: per kind
//! of work item, its questions name files and identifiers that exist and cite them; bug reports
//! get no feature boilerplate, refactors no end-user questions, a dependency swap the candidates
//! it lists; and the documents it leads to are honest (`pulldown-cmark` reads their structure).
//!
//! The tests are in `interviewer/` (`kinds.rs`, `rounds.rs`, `honest.rs`); here are the helpers
//! they and the other `interviewer_*` modules share.

use std::collections::BTreeSet;

use interview::testing::{BRIEF_VERSION, BriefContext, BriefSubject, Round};
use interview::testing::{CheckContext, Clarity, Done, Question, Receipt};
use interview::testing::{GithubCli, IntentRequest, Subject, intent_with};
use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};

use crate::util::{Interview, TempRepo, fixtures};

mod honest;
mod kinds;
mod rounds;

fn fixture_text(rel: &str) -> String {
    std::fs::read_to_string(fixtures().join(rel)).unwrap()
}

/// A repository with the given files, committed, and the work item at `docs/intents/7-item.md`.
pub(crate) fn repo_with(files: &[(&str, &str)], item: &str) -> (TempRepo, Subject) {
    let repo = TempRepo::new();
    for (path, text) in files {
        repo.write(path, text);
    }
    repo.write("docs/intents/7-item.md", item);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "the code"]);
    let req = IntentRequest {
        id: "7",
        from: None,
        globs: None,
        github: GithubCli::Off,
    };
    let subject = intent_with(repo.path(), &req, None)
        .expect("the work item")
        .subject;
    (repo, subject)
}

pub(crate) fn context(subject: &Subject, final_turn: bool, rounds: Vec<Round>) -> BriefContext {
    BriefContext {
        interview_brief: BRIEF_VERSION,
        kind: subject.kind,
        subject: BriefSubject {
            id: subject.id.clone(),
            title: subject.title.clone(),
            facts: subject.facts.clone(),
        },
        turn: u32::try_from(rounds.len()).unwrap() + 1,
        max_turns: 5,
        final_turn,
        previous_failure: None,
        rounds,
        replayed: false,
    }
}

/// The built-in interviewer's receipt for `ctx`, through the tool's own checks with the work
/// item as the session names it (its lines are no evidence).
pub(crate) fn decide(repo: &TempRepo, ctx: &BriefContext) -> Receipt {
    let receipt = interview::testing::decide(ctx, repo.path());
    let json = interview::testing::receipt_json(&receipt).unwrap();
    let mut asked = BTreeSet::new();
    let mut answered = BTreeSet::new();
    for r in &ctx.rounds {
        asked.extend(r.questions.iter().map(|q| q.topic.clone()));
        answered.extend(
            r.answers
                .iter()
                .filter(|a| !a.skipped)
                .map(|a| a.question_id.clone()),
        );
    }
    let check = CheckContext {
        final_turn: ctx.final_turn,
        asked_topics: &asked,
        answered_topics: &answered,
        repo_root: repo.path(),
        work_item: Some("docs/intents/7-item.md"),
    };
    match interview::testing::parse_and_check(&json, &check) {
        Ok((r, _)) => r,
        Err(e) => panic!("the receipt fails the checks: {e}\n{json}"),
    }
}

/// Every topic the interviewer has for the item: the first round, then what the final
/// document lists as not asked.
pub(crate) fn all_questions(repo: &TempRepo, subject: &Subject) -> (Vec<Question>, Done) {
    let first = match decide(repo, &context(subject, false, vec![])) {
        Receipt::Ask(a) => a.questions,
        Receipt::Done(_) => Vec::new(),
    };
    let d = match decide(repo, &context(subject, true, vec![])) {
        Receipt::Done(d) => d,
        Receipt::Ask(_) => panic!("the final turn asked"),
    };
    (first, d)
}

/// What the document says of the item's kind (its "What kind of work item this is" entry).
pub(crate) fn kind_entry(d: &Done) -> String {
    d.entries
        .iter()
        .find(|e| e.title == "What kind of work item this is")
        .map(|e| e.content.clone())
        .unwrap_or_else(|| panic!("no kind entry: {d:?}"))
}

/// The document reads the item as the kind `prefix` begins (its kind entry starts with it).
pub(crate) fn assert_kind(d: &Done, prefix: &str) {
    let entry = kind_entry(d);
    assert!(entry.starts_with(prefix), "{entry}");
}

/// None of `topics` is among the questions.
pub(crate) fn assert_not_asked(qs: &[Question], topics: &[&str]) {
    let asked = topic_list(qs);
    for topic in topics {
        assert!(!asked.contains(topic), "{topic} in {asked:?}");
    }
}

pub(crate) fn topic_list(qs: &[Question]) -> Vec<&str> {
    qs.iter().map(|q| q.topic.as_str()).collect()
}

pub(crate) fn question<'q>(qs: &'q [Question], topic: &str) -> &'q Question {
    qs.iter()
        .find(|q| q.topic == topic)
        .unwrap_or_else(|| panic!("no {topic} in {:?}", topic_list(qs)))
}

/// The first question about a message the item quotes (`message_…`).
pub(crate) fn message_question(qs: &[Question]) -> &Question {
    qs.iter()
        .find(|q| q.topic.starts_with("message_"))
        .unwrap_or_else(|| panic!("no message question in {:?}", topic_list(qs)))
}

pub(crate) fn option_values(q: &Question) -> Vec<&str> {
    q.options
        .iter()
        .flatten()
        .map(|o| o.value.as_str())
        .collect()
}

/// Every `path:line` in a text, checked to exist in the repository.
pub(crate) fn assert_cited_lines_exist(repo: &TempRepo, text: &str) -> usize {
    let mut n = 0;
    for word in text.split(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | ',' | ';')) {
        let word = word.trim_end_matches(['.', '?', ':']);
        if let Some((path, line)) = word.rsplit_once(':')
            && path.contains('.')
            && let Ok(line) = line.parse::<usize>()
        {
            let text = repo.read(path);
            assert!(text.lines().count() >= line, "{word} does not exist");
            n += 1;
        }
    }
    n
}

/// No confirmed entry rests on the work item alone, and every one cites lines that exist.
pub(crate) fn assert_honest(repo: &TempRepo, d: &Done) {
    for e in d.entries.iter().filter(|e| e.clarity == Clarity::Confirmed) {
        assert!(
            e.sources
                .iter()
                .any(|s| !s.starts_with("docs/intents/7-item.md")),
            "confirmed from the item alone: {e:?}"
        );
        for s in &e.sources {
            assert!(assert_cited_lines_exist(repo, s) > 0, "{s}");
        }
    }
}

pub(crate) const END_USER: &[&str] = &[
    "users",
    "acceptance_criteria",
    "data_format",
    "error_handling",
];
