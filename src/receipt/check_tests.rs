//! Tests of the receipt checks: one rule per test, each asserting the JSON path it names.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

use proptest::prelude::*;
use serde_json::json;

use super::*;

#[path = "check_tests/ask_rules.rs"]
mod ask_rules;
#[path = "check_tests/done_rules.rs"]
mod done_rules;
#[path = "check_tests/reporting.rs"]
mod reporting;
#[path = "check_tests/source_rules.rs"]
mod source_rules;

/// A real git repository with one commit, shared read-only by the tests.
struct Repo {
    dir: tempfile::TempDir,
    head: String,
    tree: String,
}

/// No topic asked or answered yet.
static NOTHING_ASKED: BTreeSet<String> = BTreeSet::new();

/// The checks' context of a first turn: nothing asked or answered yet, the shared test
/// repository's files citable, no work item.
fn first_turn() -> CheckContext<'static> {
    CheckContext {
        final_turn: false,
        asked_topics: &NOTHING_ASKED,
        answered_topics: &NOTHING_ASKED,
        repo_root: repo().dir.path(),
        work_item: None,
    }
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
    let ctx = first_turn();
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
    let ctx = first_turn();
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
    let ctx = first_turn();
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
