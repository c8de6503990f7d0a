//! Tests of the receipt checks on a done receipt: its title, summary and entries.

use super::*;

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
