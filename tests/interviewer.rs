//! The built-in intent interviewer on generated repositories with real-looking code: per kind
//! of work item, its questions name files and identifiers that exist and cite them; bug reports
//! get no feature boilerplate, refactors no end-user questions, a dependency swap the candidates
//! it lists; and the documents it leads to are honest (`pulldown-cmark` reads their structure).

use std::collections::BTreeSet;

use interview::testing::{BRIEF_VERSION, BriefContext, BriefSubject, Round};
use interview::testing::{CheckContext, Clarity, Done, Question, Receipt};
use interview::testing::{GithubCli, IntentRequest, Subject, intent_with};
use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};

use crate::util::{Interview, TempRepo, fixtures};

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

pub(crate) fn topic_list(qs: &[Question]) -> Vec<&str> {
    qs.iter().map(|q| q.topic.as_str()).collect()
}

pub(crate) fn question<'q>(qs: &'q [Question], topic: &str) -> &'q Question {
    qs.iter()
        .find(|q| q.topic == topic)
        .unwrap_or_else(|| panic!("no {topic} in {:?}", topic_list(qs)))
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

// ---------------------------------------------------------------------------------------------
// feature

const CLI_RS: &str = r#"//! Command line.
use clap::Parser;

#[derive(Parser)]
pub struct Cli {
    /// When to use colour.
    #[arg(long, value_enum)]
    pub color: Color,
    /// Where the export goes.
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
}
"#;

const EXPORT_RS: &str = r#"//! Exports.
use crate::model::Project;

/// Write the projects as JSON.
pub fn export_json(projects: &[Project], out: &mut dyn std::io::Write) -> std::io::Result<()> {
    serde_json::to_writer(out, projects)?;
    Ok(())
}
"#;

#[test]
fn a_feature_is_asked_about_the_flags_and_code_it_names_with_the_convention_recommended() {
    let (repo, subject) = repo_with(
        &[
            ("src/cli.rs", CLI_RS),
            ("src/export.rs", EXPORT_RS),
            (
                "docs/cli.md",
                "# CLI\n\n`--color` picks when to use colour.\n",
            ),
        ],
        "# Add a `--format` flag to the export\n\nThe export writes JSON through `export_json`. \
         Add `--format csv` so it can write CSV too; it must respect `--color` like today.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let all: Vec<&str> = topic_list(&first);
    // The new flag follows the flags there are, recommended.
    let convention = question(&first, "new_flag_format");
    assert!(
        convention.question_text.contains("src/cli.rs:"),
        "{}",
        convention.question_text
    );
    assert_eq!(convention.recommended.as_deref(), Some("follow_convention"));
    // The existing flag it names, where it is defined.
    let color = question(&first, "flag_color");
    assert!(
        color.question_text.contains("src/cli.rs:8"),
        "{}",
        color.question_text
    );
    // The existing code it names, as the pattern to follow.
    let follow = question(&first, "follow_export_json");
    assert!(
        follow.question_text.contains("src/export.rs:5"),
        "{}",
        follow.question_text
    );
    assert_eq!(follow.recommended.as_deref(), Some("follow_pattern"));
    for q in &first {
        assert_cited_lines_exist(&repo, &q.question_text);
    }
    assert!(all.len() <= 5);
    // The repository facts are confirmed, citing code, never the item.
    assert_honest(&repo, &d);
    let confirmed: Vec<&str> = d
        .entries
        .iter()
        .filter(|e| e.clarity == Clarity::Confirmed)
        .flat_map(|e| e.sources.iter().map(String::as_str))
        .collect();
    assert!(confirmed.contains(&"src/cli.rs:8"), "{confirmed:?}");
    assert!(confirmed.contains(&"src/export.rs:5"), "{confirmed:?}");
}

// ---------------------------------------------------------------------------------------------
// bug

const CONFIG_RS: &str = r#"//! Reading the configuration file.
use std::path::Path;

pub fn load_config(path: &Path) -> Result<Config, Error> {
    let text = std::fs::read_to_string(path)?;
    toml::from_str(&text).map_err(|_| Error::new("could not parse config file"))
}
"#;

const CONFIG_TEST: &str = r#"use app::config::load_config;

#[test]
fn loads_the_example() {
    load_config("examples/app.toml".as_ref()).unwrap();
}
"#;

const BUG: &str = "# Crash when the config has a trailing comma\n\n## Steps to reproduce\n\n\
1. Put `a = [1, 2,]` in `app.toml`\n2. Run `app --config app.toml`\n\n```\n$ app --config app.toml\n\
error: could not parse config file `app.toml`\n\
thread 'main' panicked at /home/me/src/app-1.3.0/src/config.rs:6:20\n```\n\n## Expected behaviour\n\nIt loads, as it did before 1.3.\n";

#[test]
fn a_bug_report_is_asked_what_a_maintainer_asks_and_no_feature_boilerplate() {
    let (repo, subject) = repo_with(
        &[
            ("src/config.rs", CONFIG_RS),
            ("tests/config.rs", CONFIG_TEST),
        ],
        BUG,
    );
    repo.git(&["tag", "v1.2.0"]);
    repo.write("CHANGELOG.md", "# 1.3.0\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "1.3.0"]);
    repo.git(&["tag", "v1.3.0"]);
    let (first, d) = all_questions(&repo, &subject);
    let every: Vec<String> = first
        .iter()
        .map(|q| q.topic.clone())
        .chain(d.entries.iter().map(|e| e.title.clone()))
        .collect();
    for boilerplate in END_USER.iter().chain(&["scope"]) {
        assert!(
            !every.iter().any(|t| t == boilerplate),
            "feature question {boilerplate} asked of a bug: {every:?}"
        );
    }
    let head = question(&first, "reproduces_on_head");
    assert!(
        head.question_text.contains("HEAD ("),
        "{}",
        head.question_text
    );
    // The version the item names is a tag; the older tags are the options.
    let version = question(&first, "first_bad_version");
    assert!(
        version.question_text.contains("v1.3.0"),
        "{}",
        version.question_text
    );
    assert!(option_values(version).contains(&"v1_2_0"), "{version:?}");
    // The test that already calls what the item names is the recommended place.
    let test = question(&first, "regression_test");
    assert!(
        test.question_text.contains("tests/config.rs"),
        "{}",
        test.question_text
    );
    assert_eq!(test.recommended.as_deref(), Some("tests_config_rs"));
    // Where the message comes from is confirmed, citing the code that produces it.
    assert_honest(&repo, &d);
    let message = d
        .entries
        .iter()
        .find(|e| e.title.contains("could not parse config file"))
        .expect("the message's place");
    assert_eq!(message.clarity, Clarity::Confirmed);
    assert!(
        message.sources.contains(&"src/config.rs:6".to_string()),
        "{message:?}"
    );
    assert!(
        d.entries
            .iter()
            .any(|e| e.content.contains("Read as a bug report")),
        "{d:?}"
    );
    // The trace's file, found under its local prefix, at the line it points at.
    let traced = d
        .entries
        .iter()
        .find(|e| e.title == "`src/config.rs:6` in the repository")
        .unwrap_or_else(|| panic!("the traced line: {d:?}"));
    assert_eq!(traced.clarity, Clarity::Confirmed);
    assert!(traced.content.contains("toml::from_str"), "{traced:?}");
}

// ---------------------------------------------------------------------------------------------
// refactor

#[test]
fn a_refactor_gets_no_end_user_questions_and_is_asked_about_its_call_sites() {
    let session = "pub struct Session {\n    pub turn: u32,\n}\n\nimpl Session {\n    pub fn new() -> Session {\n        Session { turn: 0 }\n    }\n}\n";
    let (repo, subject) = repo_with(
        &[
            ("src/session.rs", session),
            (
                "src/run.rs",
                "use crate::session::Session;\n\npub fn run() {\n    let s = Session::new();\n    drop(s);\n}\n",
            ),
            (
                "src/status.rs",
                "use crate::session::Session;\n\npub fn show(s: &Session) -> u32 {\n    s.turn\n}\n",
            ),
            (
                "tests/session.rs",
                "#[test]\nfn starts_at_turn_zero() {\n    assert_eq!(app::Session::new().turn, 0);\n}\n",
            ),
        ],
        "# refactor: split `Session` into state and files\n\n`Session` does too much. Move the file handling out.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    for q in &first {
        assert!(
            !END_USER.contains(&q.topic.as_str()),
            "{} asked of a refactor",
            q.topic
        );
    }
    let preserved = question(&first, "behaviour_preserved");
    assert_eq!(preserved.recommended.as_deref(), Some("identical"));
    let sites = question(&first, "call_sites");
    assert!(
        sites.question_text.contains("src/run.rs:"),
        "{}",
        sites.question_text
    );
    assert_cited_lines_exist(&repo, &sites.question_text);
    let api = question(&first, "public_api");
    assert!(
        api.question_text.contains("src/session.rs:1"),
        "{}",
        api.question_text
    );
    assert_eq!(api.recommended.as_deref(), Some("keep_compatible"));
    let tests = question(&first, "tests_pin_behaviour");
    assert_eq!(tests.recommended.as_deref(), Some("tests_session_rs"));
    assert_honest(&repo, &d);
}

// ---------------------------------------------------------------------------------------------
// dependency

const LOCK: &str = "version = 3\n\n[[package]]\nname = \"ansi_term\"\nversion = \"0.12.1\"\n\n\
[[package]]\nname = \"app\"\nversion = \"0.1.0\"\ndependencies = [\n \"ansi_term\",\n \"nu-ansi-term\",\n]\n\n\
[[package]]\nname = \"nu-ansi-term\"\nversion = \"0.50.1\"\n";

#[test]
fn a_dependency_swap_offers_the_candidates_it_lists() {
    let (repo, subject) = repo_with(
        &[
            (
                "Cargo.toml",
                "[package]\nname = \"app\"\nrust-version = \"1.70\"\n\n[dependencies]\nansi_term = \"0.12\"\nnu-ansi-term = \"0.50\"\n",
            ),
            ("Cargo.lock", LOCK),
            (
                "src/paint.rs",
                "use ansi_term::Colour;\n\npub fn red(s: &str) -> String {\n    Colour::Red.paint(s).to_string()\n}\n",
            ),
            (
                "src/status.rs",
                "pub fn bold(s: &str) -> String {\n    ansi_term::Style::new().bold().paint(s).to_string()\n}\n",
            ),
        ],
        "# RUSTSEC-2021-0139: `ansi_term` is unmaintained\n\nThe crate is deprecated.\n\n## Possible alternatives\n\n\
- [anstyle](https://crates.io/crates/anstyle)\n- [nu-ansi-term](https://crates.io/crates/nu-ansi-term)\n- [yansi](https://crates.io/crates/yansi)\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let replacement = question(&first, "replacement");
    assert_eq!(
        option_values(replacement),
        ["anstyle", "nu_ansi_term", "yansi", "keep"],
        "{replacement:?}"
    );
    // One of them is in the dependency tree already: recommended, with the reason.
    assert_eq!(replacement.recommended.as_deref(), Some("nu_ansi_term"));
    assert!(replacement.question_text.contains("already in Cargo.lock"));
    let uses = question(&first, "dependency_uses");
    assert!(
        uses.question_text.contains("src/paint.rs:1"),
        "{}",
        uses.question_text
    );
    assert!(
        uses.question_text.contains("in 2 files ("),
        "{}",
        uses.question_text
    );
    for q in &first {
        assert!(
            !END_USER.contains(&q.topic.as_str()),
            "{} asked of a swap",
            q.topic
        );
    }
    let all: Vec<String> = d.entries.iter().map(|e| e.content.clone()).collect();
    assert!(
        all.iter().any(|c| c.contains("Cargo.toml:3")),
        "the minimum Rust version is cited: {all:?}"
    );
    assert_honest(&repo, &d);
}

// ---------------------------------------------------------------------------------------------
// docs and performance

#[test]
fn a_docs_change_is_asked_which_pages_hold_what_it_names() {
    let (repo, subject) = repo_with(
        &[
            ("README.md", "# app\n\nRun `app --config FILE`.\n"),
            (
                "docs/config.md",
                "# Configuration\n\n`--config` names the file.\n",
            ),
            ("src/cli.rs", CLI_RS),
        ],
        "# docs: explain what `--config` accepts\n\nThe documentation never says which keys the file may hold.\n",
    );
    let (first, _) = all_questions(&repo, &subject);
    let pages = question(&first, "doc_pages");
    assert!(
        pages.question_text.contains("README.md:3"),
        "{}",
        pages.question_text
    );
    assert!(
        pages.question_text.contains("docs/config.md:3"),
        "{}",
        pages.question_text
    );
    assert_eq!(pages.recommended.as_deref(), Some("all"));
}

#[test]
fn performance_work_is_asked_for_a_target_and_offered_the_existing_benchmark() {
    let (repo, subject) = repo_with(
        &[
            (
                "Cargo.toml",
                "[package]\nname = \"app\"\n\n[[bench]]\nname = \"walk\"\nharness = false\n",
            ),
            (
                "src/walk.rs",
                "pub fn walk_tree(root: &str) -> usize {\n    root.len()\n}\n",
            ),
        ],
        "# `status` is slow on big repositories\n\n`walk_tree` seems to be the hot spot.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let target = question(&first, "perf_target");
    assert!(target.options.is_some());
    let bench = question(&first, "benchmark");
    assert!(
        bench.question_text.contains("Cargo.toml:4"),
        "{}",
        bench.question_text
    );
    assert_eq!(bench.recommended.as_deref(), Some("existing_bench"));
    let topics: Vec<&str> = topic_list(&first);
    assert!(!topics.contains(&"vague_fast"), "{topics:?}");
    assert!(
        d.summary.contains("actual timings (nothing is measured)"),
        "{}",
        d.summary
    );
}

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

// ---------------------------------------------------------------------------------------------
// honest documents

/// The headings of a Markdown document, as a CommonMark parser (with tables) reads them; the
/// raw HTML it finds; and the contents of its code blocks.
struct Structure {
    headings: Vec<(HeadingLevel, String)>,
    html: Vec<String>,
    code: Vec<String>,
    tables: usize,
    lists: usize,
}

fn structure(md: &str) -> Structure {
    let mut s = Structure {
        headings: Vec::new(),
        html: Vec::new(),
        code: Vec::new(),
        tables: 0,
        lists: 0,
    };
    let mut heading: Option<(HeadingLevel, String)> = None;
    let mut code: Option<String> = None;
    for event in Parser::new_ext(md, Options::ENABLE_TABLES) {
        match event {
            Event::Start(Tag::Heading { level, .. }) => heading = Some((level, String::new())),
            Event::End(TagEnd::Heading(_)) => s.headings.extend(heading.take()),
            Event::Start(Tag::CodeBlock(_)) => code = Some(String::new()),
            Event::End(TagEnd::CodeBlock) => s.code.extend(code.take()),
            Event::Start(Tag::Table(_)) => s.tables += 1,
            Event::Start(Tag::List(_)) => s.lists += 1,
            Event::Html(h) | Event::InlineHtml(h) => s.html.push(h.to_string()),
            Event::Text(t) | Event::Code(t) => {
                if let Some((_, h)) = heading.as_mut() {
                    h.push_str(&t);
                }
                if let Some(c) = code.as_mut() {
                    c.push_str(&t);
                }
            }
            _ => {}
        }
    }
    s
}

const HOSTILE: &str = "# Export\n\nA line that wants to be a heading\n---\n\nAnother one\n===\n\n\
# A heading inside the item\n\n<script>alert(1)</script>\n\n<div>\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n\
- a list item\n1. a numbered one\n> a quote\n\n    indented code stays code\n\nRepro:\n\n```sh\n\
cargo run -- --export\n# not a heading in code\n```\n\nShould the export include archived projects?\n\n\
```\nan unclosed fence\n## still code\n";

#[test]
fn no_text_from_the_item_creates_structure_and_its_code_blocks_survive() {
    let repo = TempRepo::new();
    repo.write("item.md", HOSTILE);
    let out = Interview::intent(&repo, "7")
        .from("item.md")
        .preset("builtin")
        .answers(
            r###"{ "interview_answers": 1, "gate": "y", "answers": {
                 "open_point_1": "Yes\n---\n# Not a heading <b>bold</b>",
                 "acceptance_criteria": "skip", "error_handling": "skip", "data_format": "skip",
                 "scope": "skip", "vague_fast": "skip" } }"###,
        )
        .args(["--missing", "skip"])
        .yes()
        .out("-")
        .run()
        .exits(0);
    let md = out.stdout.clone();
    let s = structure(&md);
    // Only the tool's own headings: the title, its groups, its entries, the work item.
    let groups = [
        "Confirmed",
        "Declared by the person",
        "Inferred",
        "Open questions",
        "The work item",
    ];
    for (level, text) in &s.headings {
        match level {
            HeadingLevel::H1 => assert_eq!(text, "Intent of 7: Export"),
            HeadingLevel::H2 => assert!(groups.contains(&text.as_str()), "{text}\n{md}"),
            HeadingLevel::H3 => {}
            other => panic!("a {other:?} heading {text:?} the tool did not write\n{md}"),
        }
    }
    let h1 = s
        .headings
        .iter()
        .filter(|(l, _)| *l == HeadingLevel::H1)
        .count();
    assert_eq!(h1, 1, "{md}");
    for (_, text) in &s.headings {
        assert!(
            !text.contains("heading inside") && !text.contains("wants to be"),
            "{text}"
        );
        assert!(!text.contains("Not a heading"), "{text}");
    }
    let h3 = s
        .headings
        .iter()
        .filter(|(l, _)| *l == HeadingLevel::H3)
        .count();
    let entries: usize = md.matches("\n### ").count();
    assert_eq!(h3, entries, "every H3 is one the tool wrote\n{md}");
    assert!(s.html.is_empty(), "raw HTML: {:?}\n{md}", s.html);
    assert_eq!(s.tables, 0, "{md}");
    assert_eq!(s.lists, 0, "{md}");
    // The item's code blocks, whole, and the unclosed one closed by the tool.
    assert!(
        s.code
            .iter()
            .any(|c| c == "cargo run -- --export\n# not a heading in code\n"),
        "{:?}",
        s.code
    );
    assert!(
        s.code.iter().any(|c| c == "indented code stays code\n"),
        "{:?}",
        s.code
    );
    assert!(
        s.code
            .iter()
            .any(|c| c == "an unclosed fence\n## still code\n"),
        "{:?}",
        s.code
    );
    // Every line of the item's prose is there.
    for line in [
        "A line that wants to be a heading",
        "a list item",
        "alert(1)",
    ] {
        assert!(md.contains(line), "{line} lost\n{md}");
    }
    assert!(!md.contains(".."), "{md}");
}

#[test]
fn the_summary_never_claims_fewer_open_points_than_it_lists() {
    let repo = TempRepo::new();
    repo.write("item.md", &fixture_text("intents/vague-export.md"));
    let out = Interview::intent(&repo, "7")
        .from("item.md")
        .preset("builtin")
        .answers(r#"{ "interview_answers": 1, "gate": "n" }"#)
        .yes()
        .out("-")
        .run()
        .exits(0);
    let md = out.stdout;
    let listed = md.split("## Open questions").nth(1).map_or(0, |rest| {
        rest.split("\n## ")
            .next()
            .unwrap_or("")
            .matches("\n### ")
            .count()
    });
    assert!(listed > 0, "{md}");
    let open = format!(
        "{listed} open question{}",
        if listed == 1 { "" } else { "s" }
    );
    assert!(md.contains(&format!("In this document: {open},")), "{md}");
    assert!(
        md.contains(&format!("{open}; not checked by the built-in interviewer:")),
        "{md}"
    );
    assert!(!md.contains("*Intent: Intent of"), "{md}");
    assert!(!md.contains(".."), "{md}");
}

#[test]
fn a_runner_cannot_confirm_what_the_item_says_by_citing_it() {
    let repo = TempRepo::new();
    repo.write(
        "item.md",
        "# Export\n\nThere has been a regression since 1.3.\n",
    );
    let out = Interview::intent(&repo, "7")
        .from("item.md")
        .runner("confirms-the-item.sh")
        .answers(r#"{ "interview_answers": 1 }"#)
        .yes()
        .out("-")
        .run();
    assert_ne!(out.code, 0, "{}", out.screen());
    let rejected = out.events("receipt_rejected");
    assert!(!rejected.is_empty(), "{}", out.stderr);
    assert!(
        rejected[0].to_string().contains("cites only the work item"),
        "{}",
        rejected[0]
    );
}

#[test]
fn a_flag_the_new_one_extends_is_asked_about_as_related_not_as_asked_for() {
    let app = "pub fn build() -> App {\n    App::new(\"app\")\n        .arg(Arg::new(\"exclude\").long(\"exclude\").takes_value(true))\n}\n";
    let (repo, subject) = repo_with(
        &[
            ("src/app.rs", app),
            ("CHANGELOG.md", "# 1.0\n\n- `--exclude` added\n"),
        ],
        "# Add `--exclude-regex`\n\nA regex twin of the existing `--exclude` glob option.\n",
    );
    let (first, _) = all_questions(&repo, &subject);
    let related = question(&first, "flag_exclude");
    assert!(
        related.question_text.contains("src/app.rs:3"),
        "{}",
        related.question_text
    );
    assert!(
        !topic_list(&first).contains(&"existing_exclude"),
        "{:?}",
        topic_list(&first)
    );
    // A changelog is history: not a page to update.
    for q in &first {
        assert!(
            !q.question_text.contains("CHANGELOG.md"),
            "{}",
            q.question_text
        );
    }
}
