//! Tests of the receipt checks on an entry's sources: `path:line` citations, commits, answered
//! topics (`qa:`), their number and length, and the work item that is no evidence of itself.

use super::*;

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
