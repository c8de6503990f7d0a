//! Tests of the receipt checks: one rule per test, each asserting the JSON path it names.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

use proptest::prelude::*;
use serde_json::json;

use super::*;

/// A real git repository with one commit, shared read-only by the tests.
struct Repo {
    dir: tempfile::TempDir,
    head: String,
    tree: String,
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .output()
        .expect("git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

fn repo() -> &'static Repo {
    static REPO: OnceLock<Repo> = OnceLock::new();
    REPO.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        git(p, &["init", "-q", "-b", "main"]);
        git(p, &["config", "user.name", "Test Person"]);
        git(p, &["config", "user.email", "test@example.com"]);
        git(p, &["config", "commit.gpgsign", "false"]);
        std::fs::create_dir_all(p.join("src")).unwrap();
        std::fs::write(
            p.join("src/lib.rs"),
            "pub fn answer() -> u32 {\n    42\n}\n",
        )
        .unwrap();
        std::fs::write(p.join("README.md"), "# test\n\nno final newline").unwrap();
        std::os::unix::fs::symlink("/etc/hostname", p.join("outside.rs")).unwrap();
        std::os::unix::fs::symlink("/etc", p.join("etc")).unwrap();
        git(p, &["add", "src", "README.md"]);
        git(p, &["commit", "-q", "-m", "initial commit"]);
        let head = git(p, &["rev-parse", "HEAD"]);
        let tree = git(p, &["rev-parse", "HEAD^{tree}"]);
        Repo { dir, head, tree }
    })
}

fn topics(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|s| s.to_string()).collect()
}

/// Check `value` on a normal turn where `old_topic` was answered and `skipped_topic` skipped.
fn check_with(value: &serde_json::Value, final_turn: bool) -> Result<Receipt, String> {
    let asked = topics(&["old_topic", "skipped_topic"]);
    let answered = topics(&["old_topic"]);
    let ctx = CheckContext {
        final_turn,
        asked_topics: &asked,
        answered_topics: &answered,
        repo_root: repo().dir.path(),
        work_item: None,
    };
    parse_and_check(&value.to_string(), &ctx)
        .map(|(r, _)| r)
        .map_err(|e| e.to_string())
}

fn check(value: &serde_json::Value) -> Result<Receipt, String> {
    check_with(value, false)
}

/// Assert the receipt is rejected with a message that contains `expected`.
#[track_caller]
fn rejected(value: serde_json::Value, expected: &str) {
    match check(&value) {
        Ok(r) => panic!("accepted, expected {expected:?}: {r:?}"),
        Err(e) => assert!(e.contains(expected), "message {e:?} lacks {expected:?}"),
    }
}

#[track_caller]
fn accepted(value: serde_json::Value) -> Receipt {
    check(&value).unwrap_or_else(|e| panic!("rejected: {e}"))
}

fn question(topic: &str) -> serde_json::Value {
    json!({ "topic": topic, "question_text": "Where will this service run?", "severity": 7 })
}

fn ask(questions: Vec<serde_json::Value>) -> serde_json::Value {
    json!({ "receipt": "ask", "version": 1, "questions": questions })
}

/// An ask receipt with one question whose field `key` is `value`.
fn ask_with(key: &str, value: serde_json::Value) -> serde_json::Value {
    let mut q = question("deployment_target");
    q[key] = value;
    ask(vec![q])
}

fn entry(clarity: &str, sources: serde_json::Value) -> serde_json::Value {
    json!({ "title": "Export format", "content": "CSV with a header row.", "clarity": clarity, "sources": sources })
}

fn done(entries: Vec<serde_json::Value>) -> serde_json::Value {
    json!({ "receipt": "done", "version": 1, "title": "Intent of #42", "summary": "", "entries": entries })
}

/// A done receipt with one entry of `clarity` citing `sources`.
fn done_citing(clarity: &str, sources: &[&str]) -> serde_json::Value {
    done(vec![entry(clarity, json!(sources))])
}

fn design_ask() -> serde_json::Value {
    json!({ "receipt": "ask", "version": 1,
      "questions": [
        { "topic": "deployment_target", "question_text": "Where will this service run?", "severity": 7,
          "options": [ {"label": "Kubernetes", "value": "k8s"}, {"label": "One VM", "value": "vm"} ],
          "recommended": "k8s" } ] })
}

// --- the forms docs/receipt.md shows -------------------------------------------------------

#[test]
fn the_design_ask_example_passes() {
    let Receipt::Ask(a) = accepted(design_ask()) else {
        panic!("not ask")
    };
    assert_eq!(a.questions.len(), 1);
    let q = &a.questions[0];
    assert_eq!(q.topic, "deployment_target");
    assert_eq!(q.severity, 7);
    assert_eq!(q.options.as_ref().map(Vec::len), Some(2));
    assert_eq!(q.recommended.as_deref(), Some("k8s"));
}

#[test]
fn the_design_done_example_passes() {
    let value = json!({ "receipt": "done", "version": 1, "title": "Intent of #42: export to CSV",
      "summary": "What the export must do.",
      "entries": [
        { "title": "Runs on k8s", "content": "…", "clarity": "declared-by-user", "sources": ["qa:old_topic"] },
        { "title": "Answer is 42", "content": "…", "clarity": "confirmed", "sources": ["src/lib.rs:2"] },
        { "title": "Which encodings must be supported?", "content": "…", "clarity": "open-question", "sources": [] } ] });
    let Receipt::Done(d) = accepted(value) else {
        panic!("not done")
    };
    assert_eq!(d.title, "Intent of #42: export to CSV");
    assert_eq!(d.entries.len(), 3);
    assert_eq!(d.entries[1].clarity, Clarity::Confirmed);
    assert_eq!(d.entries[1].sources, vec!["src/lib.rs:2".to_string()]);
}

// --- JSON and shape ------------------------------------------------------------------------

#[test]
fn invalid_json_names_line_and_column() {
    let asked = BTreeSet::new();
    let ctx = CheckContext {
        final_turn: false,
        asked_topics: &asked,
        answered_topics: &asked,
        repo_root: repo().dir.path(),
        work_item: None,
    };
    let err = parse_and_check("{\n  \"receipt\": \"ask\",\n  oops\n}", &ctx).unwrap_err();
    assert!(
        matches!(
            err,
            ReceiptError::Json {
                line: 3,
                column: 3,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("line 3 column 3"), "{err}");
}

#[test]
fn a_leading_byte_order_mark_is_ignored() {
    let asked = BTreeSet::new();
    let ctx = CheckContext {
        final_turn: false,
        asked_topics: &asked,
        answered_topics: &asked,
        repo_root: repo().dir.path(),
        work_item: None,
    };
    let text = format!("\u{feff}{}", design_ask());
    assert!(parse_and_check(&text, &ctx).is_ok());
}

#[test]
fn the_receipt_must_be_an_object() {
    rejected(
        json!([1, 2]),
        "$: expected a receipt object, found an array",
    );
}

#[test]
fn the_receipt_tag_is_required() {
    rejected(json!({ "version": 1 }), "$.receipt: missing field");
}

#[test]
fn the_receipt_tag_must_be_ask_or_done() {
    rejected(
        json!({ "receipt": "maybe", "version": 1 }),
        "$.receipt: \"maybe\" is not a receipt kind; expected \"ask\" or \"done\"",
    );
}

#[test]
fn version_must_be_1() {
    let mut r = design_ask();
    r["version"] = json!(2);
    rejected(r, "$.version: expected 1, found 2");
}

#[test]
fn version_is_required() {
    let mut r = design_ask();
    r.as_object_mut().unwrap().remove("version");
    rejected(r, "$.version: missing field");
}

#[test]
fn an_unknown_field_is_rejected_with_its_path() {
    rejected(
        ask_with("colour", json!("red")),
        "$.questions[0].colour: unknown field",
    );
}

#[test]
fn an_unknown_top_level_field_is_rejected() {
    let mut r = design_ask();
    r["title"] = json!("not for ask");
    rejected(r, "$.title: unknown field");
}

#[test]
fn a_duplicate_field_is_rejected() {
    let text = r#"{"receipt":"ask","version":1,"questions":[{"topic":"a","topic":"b","question_text":"Q?","severity":1}]}"#;
    let asked = BTreeSet::new();
    let ctx = CheckContext {
        final_turn: false,
        asked_topics: &asked,
        answered_topics: &asked,
        repo_root: repo().dir.path(),
        work_item: None,
    };
    let err = parse_and_check(text, &ctx).unwrap_err().to_string();
    assert!(
        err.contains("$.questions[0].topic: duplicate field"),
        "{err}"
    );
}

#[test]
fn a_wrong_type_is_named() {
    rejected(
        ask_with("question_text", json!(5)),
        "$.questions[0].question_text: expected a string, found a number",
    );
}

#[test]
fn a_missing_required_field_is_named() {
    let mut q = question("deployment_target");
    q.as_object_mut().unwrap().remove("severity");
    rejected(ask(vec![q]), "$.questions[0].severity: missing field");
}

// --- ask -----------------------------------------------------------------------------------

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
    let asked = BTreeSet::new();
    let ctx = CheckContext {
        final_turn: false,
        asked_topics: &asked,
        answered_topics: &asked,
        repo_root: repo().dir.path(),
        work_item: None,
    };
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

// --- done ----------------------------------------------------------------------------------

#[test]
fn done_title_must_not_be_empty() {
    let mut r = done_citing("inferred", &[]);
    r["title"] = json!("");
    rejected(r, "$.title: must not be empty");
}

#[test]
fn done_title_has_at_most_80_characters() {
    let mut r = done_citing("inferred", &[]);
    r["title"] = json!("t".repeat(80));
    accepted(r.clone());
    r["title"] = json!("t".repeat(81));
    rejected(r, "$.title: 81 characters, over the limit of 80");
}

#[test]
fn done_title_is_one_line() {
    let mut r = done_citing("inferred", &[]);
    r["title"] = json!("one\ntwo");
    rejected(r, "$.title: must be one line");
}

#[test]
fn summary_has_at_most_2000_characters() {
    let mut r = done_citing("inferred", &[]);
    r["summary"] = json!("s".repeat(2000));
    accepted(r.clone());
    r["summary"] = json!("s".repeat(2001));
    rejected(r, "$.summary: 2001 characters, over the limit of 2000");
}

#[test]
fn summary_may_be_left_out() {
    let mut r = done_citing("inferred", &[]);
    r.as_object_mut().unwrap().remove("summary");
    let Receipt::Done(d) = accepted(r) else {
        panic!()
    };
    assert_eq!(d.summary, "");
}

#[test]
fn done_needs_at_least_one_entry() {
    rejected(done(vec![]), "$.entries: 0 entries; give 1 to 20");
}

#[test]
fn done_allows_at_most_twenty_entries() {
    accepted(done(vec![entry("inferred", json!([])); 20]));
    rejected(
        done(vec![entry("inferred", json!([])); 21]),
        "$.entries: 21 entries; give 1 to 20",
    );
}

#[test]
fn entry_title_has_1_to_80_characters() {
    let mut e = entry("inferred", json!([]));
    e["title"] = json!("");
    rejected(
        done(vec![e.clone()]),
        "$.entries[0].title: must not be empty",
    );
    e["title"] = json!("t".repeat(81));
    rejected(
        done(vec![e]),
        "$.entries[0].title: 81 characters, over the limit of 80",
    );
}

#[test]
fn entry_content_has_at_most_2000_characters() {
    let mut e = entry("inferred", json!([]));
    e["content"] = json!("c".repeat(2001));
    rejected(
        done(vec![e]),
        "$.entries[0].content: 2001 characters, over the limit of 2000",
    );
}

#[test]
fn entry_content_may_be_empty() {
    let mut e = entry("open-question", json!([]));
    e["content"] = json!("");
    accepted(done(vec![e]));
}

#[test]
fn clarity_must_be_one_of_four() {
    rejected(
        done_citing("certain", &[]),
        "$.entries[0].clarity: \"certain\" is not a clarity; expected one of confirmed, inferred, declared-by-user, open-question",
    );
}

#[test]
fn an_entry_has_no_other_fields() {
    let mut e = entry("inferred", json!([]));
    e["confidence"] = json!(0.9);
    rejected(done(vec![e]), "$.entries[0].confidence: unknown field");
}

// --- sources -------------------------------------------------------------------------------

#[test]
fn confirmed_needs_a_repository_source() {
    rejected(
        done_citing("confirmed", &["https://example.com/spec"]),
        "$.entries[0].sources: a confirmed entry needs at least one source",
    );
}

#[test]
fn confirmed_with_an_existing_file_line_passes() {
    accepted(done_citing("confirmed", &["src/lib.rs:3"]));
}

#[test]
fn a_last_line_without_final_newline_can_be_cited() {
    accepted(done_citing("confirmed", &["README.md:3"]));
}

#[test]
fn a_cited_file_must_exist() {
    rejected(
        done_citing("confirmed", &["src/nope.rs:1"]),
        "$.entries[0].sources[0]: `src/nope.rs` does not exist in the repository",
    );
}

#[test]
fn a_cited_line_must_exist() {
    rejected(
        done_citing("confirmed", &["src/lib.rs:4"]),
        "$.entries[0].sources[0]: `src/lib.rs` has 3 lines, so line 4 does not exist",
    );
}

#[test]
fn line_numbers_start_at_1() {
    rejected(
        done_citing("confirmed", &["src/lib.rs:0"]),
        "$.entries[0].sources[0]: line numbers start at 1",
    );
}

#[test]
fn a_huge_line_number_is_rejected() {
    rejected(
        done_citing("confirmed", &["src/lib.rs:99999999999999999999999"]),
        "$.entries[0].sources[0]: line number",
    );
}

#[test]
fn a_cited_path_must_be_relative() {
    rejected(
        done_citing("confirmed", &["/etc/hostname:1"]),
        "$.entries[0].sources[0]: the path must be relative to the repository root",
    );
}

#[test]
fn a_cited_path_must_not_climb_out() {
    rejected(
        done_citing("confirmed", &["src/../../x:1"]),
        "$.entries[0].sources[0]: the path has a `..` segment",
    );
}

#[test]
fn git_internals_cannot_be_cited() {
    rejected(
        done_citing("confirmed", &[".git/HEAD:1"]),
        "$.entries[0].sources[0]: the path is inside `.git/`",
    );
}

#[test]
fn a_symlink_out_of_the_repository_cannot_be_cited() {
    rejected(
        done_citing("confirmed", &["outside.rs:1"]),
        "$.entries[0].sources[0]: `outside.rs` is a symbolic link",
    );
}

#[test]
fn a_path_through_a_symlinked_directory_cannot_leave_the_repository() {
    rejected(
        done_citing("confirmed", &["etc/hostname:1"]),
        "$.entries[0].sources[0]: `etc/hostname` leads outside the repository",
    );
}

#[test]
fn a_directory_cannot_be_cited() {
    rejected(
        done_citing("confirmed", &["src:1"]),
        "$.entries[0].sources[0]: `src` is not a regular file",
    );
}

#[test]
fn confirmed_with_a_full_commit_id_passes() {
    accepted(done_citing(
        "confirmed",
        &[&format!("commit:{}", repo().head)],
    ));
}

#[test]
fn confirmed_with_a_short_commit_id_passes() {
    accepted(done_citing(
        "confirmed",
        &[&format!("commit:{}", &repo().head[..7])],
    ));
}

#[test]
fn an_unknown_commit_is_rejected() {
    rejected(
        done_citing(
            "confirmed",
            &["commit:0000000000000000000000000000000000000001"],
        ),
        "$.entries[0].sources[0]: `0000000000000000000000000000000000000001` does not name a commit in the repository",
    );
}

#[test]
fn a_cited_commit_must_be_a_commit() {
    rejected(
        done_citing("confirmed", &[&format!("commit:{}", repo().tree)]),
        "is a tree, not a commit",
    );
}

#[test]
fn a_commit_source_needs_7_to_40_hex_digits() {
    for bad in [
        "commit:abc",
        "commit:xyz1234",
        &format!("commit:{}0", repo().head),
    ] {
        rejected(done_citing("confirmed", &[bad]), "$.entries[0].sources[0]:");
    }
}

#[test]
fn declared_by_user_needs_a_qa_source() {
    rejected(
        done_citing("declared-by-user", &["src/lib.rs:1"]),
        "$.entries[0].sources: a declared-by-user entry needs at least one `qa:<topic>` source",
    );
}

#[test]
fn declared_by_user_citing_an_answered_topic_passes() {
    accepted(done_citing("declared-by-user", &["qa:old_topic"]));
}

#[test]
fn a_skipped_topic_cannot_be_cited() {
    rejected(
        done_citing("declared-by-user", &["qa:skipped_topic"]),
        "$.entries[0].sources[0]: the person did not answer \"skipped_topic\"",
    );
}

#[test]
fn any_qa_source_must_name_an_answered_topic() {
    rejected(
        done_citing("inferred", &["qa:never_asked"]),
        "$.entries[0].sources[0]: no question with topic \"never_asked\" was answered",
    );
}

#[test]
fn an_entry_has_at_most_twenty_sources() {
    let many: Vec<&str> = vec!["work item"; 21];
    rejected(
        done_citing("inferred", &many),
        "$.entries[0].sources: 21 sources; give at most 20",
    );
}

#[test]
fn a_source_has_at_most_300_characters() {
    let long = "s".repeat(301);
    rejected(
        done_citing("inferred", &[&long]),
        "$.entries[0].sources[0]: 301 characters, over the limit of 300",
    );
}

#[test]
fn a_source_with_control_characters_is_rejected() {
    rejected(
        done_citing("confirmed", &["src/lib.rs\u{1b}[2K:1"]),
        "$.entries[0].sources[0]: \"src/lib.rs:1\" contains control or invisible characters",
    );
}

// --- sanitising and reporting --------------------------------------------------------------

#[test]
fn every_text_is_sanitised_and_counted() {
    let mut r = done(vec![json!({
        "title": "Ti\u{1b}]8;;http://x\u{7}tle", "content": "abc\u{202e}def\r", "clarity": "inferred"
    })]);
    r["summary"] = json!("sum\u{e0041}mary");
    let asked = BTreeSet::new();
    let ctx = CheckContext {
        final_turn: false,
        asked_topics: &asked,
        answered_topics: &asked,
        repo_root: repo().dir.path(),
        work_item: None,
    };
    let (receipt, report) = parse_and_check(&r.to_string(), &ctx).unwrap();
    let Receipt::Done(d) = receipt else { panic!() };
    assert_eq!(d.entries[0].title, "Title");
    assert_eq!(d.entries[0].content, "abc<U+202E>def");
    assert_eq!(d.summary, "sum<U+E0041>mary");
    assert_eq!(
        report,
        SanitizeReport {
            escape_sequences: 1,
            control_chars: 1,
            bidi_controls: 1,
            zero_width: 0,
            tag_chars: 1
        }
    );
}

#[test]
fn all_violations_are_reported_together() {
    let err = check(&ask(vec![
        question("Bad"),
        question("ok"),
        json!({"topic": "x"}),
    ]))
    .unwrap_err();
    assert!(err.contains("$.questions[0].topic:"), "{err}");
    assert!(
        err.contains("$.questions[2].question_text: missing field"),
        "{err}"
    );
    assert!(
        err.contains("$.questions[2].severity: missing field"),
        "{err}"
    );
}

#[test]
fn quoted_values_in_messages_are_sanitised() {
    let err = check(&ask(vec![question("\u{1b}]52;c;AAAA\u{7}Evil")])).unwrap_err();
    assert!(
        !err.chars().any(crate::receipt::sanitize::is_forbidden),
        "{err:?}"
    );
    assert!(err.contains("\"Evil\""), "{err}");
}

fn any_context_check(text: &str) {
    let asked = topics(&["old_topic"]);
    let ctx = CheckContext {
        final_turn: false,
        asked_topics: &asked,
        answered_topics: &asked,
        repo_root: repo().dir.path(),
        work_item: None,
    };
    let _ = parse_and_check(text, &ctx);
}

proptest! {
    #[test]
    fn parse_and_check_never_panics_on_arbitrary_strings(text in any::<String>()) {
        any_context_check(&text);
    }

    #[test]
    fn parse_and_check_never_panics_on_mangled_receipts(
        cut in 0usize..400,
        insert in any::<char>(),
        at in 0usize..400,
    ) {
        let base = json!({ "receipt": "done", "version": 1, "title": "T", "summary": "S",
            "entries": [ { "title": "E", "content": "C", "clarity": "confirmed", "sources": ["src/lib.rs:1", "qa:old_topic"] } ] })
            .to_string();
        let mut chars: Vec<char> = base.chars().collect();
        let at = at % (chars.len() + 1);
        chars.insert(at, insert);
        let cut = cut % chars.len();
        chars.remove(cut);
        let text: String = chars.into_iter().collect();
        any_context_check(&text);
    }

    #[test]
    fn accepted_receipts_contain_no_forbidden_code_point(text in "[a-z \u{1b}\u{202e}\u{200b}\r\n\u{9b}]{1,40}") {
        let r = done(vec![json!({ "title": "t", "content": text, "clarity": "inferred" })]);
        if let Ok(Receipt::Done(d)) = check(&r) {
            prop_assert!(!d.entries[0].content.chars().any(crate::receipt::sanitize::is_forbidden));
        }
    }
}

#[test]
fn a_receipt_broken_everywhere_lists_the_first_20_problems() {
    let entries: Vec<_> = (0..20)
        .map(|_| json!({ "title": "", "content": "", "clarity": "x" }))
        .collect();
    let asked = BTreeSet::new();
    let ctx = CheckContext {
        final_turn: false,
        asked_topics: &asked,
        answered_topics: &asked,
        repo_root: repo().dir.path(),
        work_item: None,
    };
    let err = parse_and_check(&done(entries).to_string(), &ctx).unwrap_err();
    assert_eq!(err.violations().len(), 40);
    let shown = err.to_string();
    assert_eq!(shown.matches("$.entries[").count(), 20, "{shown}");
    assert!(shown.ends_with("; and 20 more problems"), "{shown}");
}

fn wire_check(value: &serde_json::Value) -> Result<Receipt, ReceiptError> {
    let asked = BTreeSet::new();
    let ctx = CheckContext {
        final_turn: false,
        asked_topics: &asked,
        answered_topics: &asked,
        repo_root: repo().dir.path(),
        work_item: None,
    };
    parse_and_check_as(&value.to_string(), &ctx, Form::Wire).map(|(r, _)| r)
}

#[test]
fn a_wire_ask_receipt_with_the_done_fields_null_is_the_strict_receipt() {
    let wire = json!({ "receipt": "ask", "version": 1, "title": null, "summary": null,
        "entries": null, "questions": [{ "topic": "deployment_target",
        "question_text": "Where?", "severity": 7, "options": null, "recommended": null }] });
    let Receipt::Ask(ask) = wire_check(&wire).unwrap() else {
        panic!("not an ask receipt");
    };
    assert_eq!(ask.questions[0].topic, "deployment_target");
    assert_eq!(ask.questions[0].options, None);
    // The same text as a strict receipt is refused: the wire form is only for wire presets.
    let err = check(&wire).unwrap_err();
    assert!(err.to_string().contains("$.title: unknown field"), "{err}");
}

#[test]
fn a_wire_done_receipt_with_questions_null_is_the_strict_receipt() {
    let wire = json!({ "receipt": "done", "version": 1, "questions": null, "title": "T",
        "summary": null, "entries": [{ "title": "t", "content": "", "clarity": "inferred",
        "sources": null }] });
    assert!(matches!(wire_check(&wire).unwrap(), Receipt::Done(_)));
}

#[test]
fn a_wire_receipt_with_a_field_of_the_other_form_set_is_refused_by_its_path() {
    let wire = json!({ "receipt": "done", "version": 1, "questions": [], "title": "T",
        "summary": null, "entries": [{ "title": "t", "content": "", "clarity": "inferred",
        "sources": null }] });
    let err = wire_check(&wire).unwrap_err();
    assert!(
        err.to_string()
            .contains("$.questions: must be null in a \"done\" receipt"),
        "{err}"
    );
    // Unknown fields stay unknown in the wire form too.
    let wire = json!({ "receipt": "ask", "version": 1, "questions": [{ "topic": "a",
        "question_text": "Q?", "severity": 1 }], "extra": null });
    let err = wire_check(&wire).unwrap_err();
    assert!(err.to_string().contains("$.extra: unknown field"), "{err}");
}

// --- the work item is not evidence of itself ---------------------------------------------

/// Check `value` with `README.md` of the test repository standing for the work item.
fn check_with_item(value: &serde_json::Value) -> Result<Receipt, String> {
    let none = BTreeSet::new();
    let ctx = CheckContext {
        final_turn: false,
        asked_topics: &none,
        answered_topics: &none,
        repo_root: repo().dir.path(),
        work_item: Some("README.md"),
    };
    parse_and_check(&value.to_string(), &ctx)
        .map(|(r, _)| r)
        .map_err(|e| e.to_string())
}

#[test]
fn a_confirmed_entry_citing_only_the_work_item_is_rejected() {
    let e = check_with_item(&done_citing("confirmed", &["README.md:1"])).unwrap_err();
    assert!(
        e.contains("$.entries[0].sources: a confirmed entry cites only the work item"),
        "{e}"
    );
    // The same line is fine as evidence when it is not the work item.
    accepted(done_citing("confirmed", &["README.md:1"]));
}

#[test]
fn a_confirmed_entry_citing_the_work_item_and_the_code_passes() {
    check_with_item(&done_citing("confirmed", &["README.md:1", "src/lib.rs:2"])).unwrap();
    // Any other clarity may cite the item.
    check_with_item(&done_citing("inferred", &["README.md:3"])).unwrap();
}

#[test]
fn a_work_item_citation_must_still_exist() {
    let e = check_with_item(&done_citing("inferred", &["README.md:9"])).unwrap_err();
    assert!(e.contains("$.entries[0].sources[0]"), "{e}");
}
