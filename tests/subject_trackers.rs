//! The trackers of `intent` on generated repositories: a local file found by its id (default
//! and configured globs), several matches chosen by the person or refused without one, a file
//! given with `--from` inside or outside the repository, links out of it not followed, and a
//! GitHub issue read through `gh`.

use std::path::Path;

use interview::testing::{GithubCli, IntentFacts, IntentRequest, WorkItemSource, intent_with};

use crate::util::TempRepo;

fn find(
    repo: &Path,
    id: &str,
    globs: Option<&[String]>,
) -> interview::testing::Result<IntentFacts> {
    let req = IntentRequest {
        id,
        from: None,
        globs,
        github: GithubCli::Off,
    };
    let found = intent_with(repo, &req, None)?;
    Ok(serde_json::from_value(found.subject.facts).unwrap())
}

#[test]
fn the_local_tracker_finds_docs_intents_by_id() {
    let repo = TempRepo::new();
    repo.write("docs/intents/42-export.md", "# Export to CSV\n\nBody.\n");
    let f = find(repo.path(), "42", None).unwrap();
    assert_eq!(f.tracker, "local");
    assert_eq!(f.path.as_deref(), Some("docs/intents/42-export.md"));
    assert_eq!(f.title, "Export to CSV");
}

#[test]
fn default_globs_need_a_separator_after_the_id_below_docs() {
    let repo = TempRepo::new();
    repo.write("docs/specs/deep/7_login.md", "# Login\n");
    repo.write("docs/specs/71-other.md", "# Other\n");
    let f = find(repo.path(), "7", None).unwrap();
    assert_eq!(f.path.as_deref(), Some("docs/specs/deep/7_login.md"));
}

#[test]
fn configured_globs_replace_the_defaults() {
    let repo = TempRepo::new();
    repo.write("docs/intents/42.md", "# Default place\n");
    repo.write("work/items/42.md", "# Configured place\n");
    let globs = vec!["work/items/<id>.md".to_string()];
    let f = find(repo.path(), "42", Some(&globs)).unwrap();
    assert_eq!(f.path.as_deref(), Some("work/items/42.md"));
}

#[test]
fn several_matches_without_a_person_is_an_error_listing_them() {
    let repo = TempRepo::new();
    repo.write("docs/intents/42-a.md", "# A\n");
    repo.write("docs/intents/42-b.md", "# B\n");
    let msg = find(repo.path(), "42", None).unwrap_err().to_string();
    assert!(msg.contains("found in 2 places"), "{msg}");
    assert!(msg.contains("local: docs/intents/42-a.md"), "{msg}");
    assert!(msg.contains("local: docs/intents/42-b.md"), "{msg}");
    assert!(msg.contains("--from FILE"), "{msg}");
}

#[test]
fn several_matches_with_a_person_are_chosen_and_recorded() {
    use interview::testing::{ReplayFile, ReplayPerson};
    let repo = TempRepo::new();
    repo.write("docs/intents/42-a.md", "# A\n");
    repo.write("docs/intents/42-b.md", "# B\n");
    let file = ReplayFile::parse(
        r#"{ "interview_answers": 1, "answers": {}, "decisions": { "tracker": "B" } }"#,
        Path::new("answers.json"),
    )
    .unwrap();
    let mut person = ReplayPerson::new(file, interview::testing::Missing::Fail);
    let req = IntentRequest {
        id: "42",
        from: None,
        globs: None,
        github: GithubCli::Off,
    };
    let found = intent_with(repo.path(), &req, Some(&mut person)).unwrap();
    assert_eq!(found.subject.title, "Intent of 42: B");
    assert_eq!(
        found.decision,
        Some((
            "tracker".to_string(),
            "local: docs/intents/42-b.md".to_string()
        ))
    );
}

#[test]
fn nothing_found_says_everywhere_it_looked() {
    let repo = TempRepo::new();
    let msg = find(repo.path(), "99", None).unwrap_err().to_string();
    assert!(
        msg.contains("local: no file matches docs/intents/99*.md, docs/**/99[-_ .]*.md"),
        "{msg}"
    );
    assert!(msg.contains("--from FILE"), "{msg}");
}

#[test]
fn from_a_file_outside_the_repository_shows_only_its_name() {
    let repo = TempRepo::new();
    let outside = tempfile::tempdir().unwrap();
    let item = outside.path().join("item.md");
    std::fs::write(&item, "# Outside\n").unwrap();
    let source = WorkItemSource::File(item);
    let req = IntentRequest {
        id: "5",
        from: Some(&source),
        globs: None,
        github: GithubCli::Off,
    };
    let found = intent_with(repo.path(), &req, None).unwrap();
    let f: IntentFacts = serde_json::from_value(found.subject.facts).unwrap();
    assert_eq!(found.tracker, "from");
    assert_eq!(f.source, "item.md");
    assert_eq!(f.path, None);
}

#[test]
fn from_a_file_inside_the_repository_can_be_cited() {
    let repo = TempRepo::new();
    repo.write("notes/item.md", "# Inside\n");
    let source = WorkItemSource::File(repo.path().join("notes/item.md"));
    let req = IntentRequest {
        id: "5",
        from: Some(&source),
        globs: None,
        github: GithubCli::Off,
    };
    let found = intent_with(repo.path(), &req, None).unwrap();
    let f: IntentFacts = serde_json::from_value(found.subject.facts).unwrap();
    assert_eq!(f.path.as_deref(), Some("notes/item.md"));
}

#[test]
fn symlinks_leading_out_of_the_repository_are_not_followed() {
    let repo = TempRepo::new();
    let outside = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(outside.path().join("intents")).unwrap();
    std::fs::write(outside.path().join("intents/42.md"), "# Secret\n").unwrap();
    std::fs::create_dir_all(repo.path().join("docs")).unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("intents"),
        repo.path().join("docs/intents"),
    )
    .unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("intents/42.md"),
        repo.path().join("docs/42-x.md"),
    )
    .unwrap();
    assert!(find(repo.path(), "42", None).is_err());
}

#[test]
fn ids_with_path_separators_are_refused() {
    let repo = TempRepo::new();
    let msg = find(repo.path(), "../42", None).unwrap_err().to_string();
    assert!(msg.contains("not usable"), "{msg}");
}

/// A stand-in `gh` that prints one issue: the real CLI needs the network and a login.
fn fake_gh(dir: &Path, title: &str) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join("gh");
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\n[ \"$1 $2 $3 $4 $5\" = \"issue view 42 --json title,body\" ] || exit 1\nprintf '%s' '{{\"title\":\"{title}\",\"body\":\"From GitHub.\"}}'\n"
        ),
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

#[test]
fn the_github_tracker_reads_the_issue_through_gh() {
    let repo = TempRepo::new();
    let bin = tempfile::tempdir().unwrap();
    let req = IntentRequest {
        id: "42",
        from: None,
        globs: None,
        github: GithubCli::At(fake_gh(bin.path(), "Export on GitHub")),
    };
    let found = intent_with(repo.path(), &req, None).unwrap();
    assert_eq!(found.tracker, "github");
    assert_eq!(found.subject.title, "Intent of 42: Export on GitHub");
}

#[test]
fn a_local_file_and_a_github_issue_are_two_trackers_to_choose_from() {
    let repo = TempRepo::new();
    repo.write("docs/intents/42.md", "# Local\n");
    let bin = tempfile::tempdir().unwrap();
    let req = IntentRequest {
        id: "42",
        from: None,
        globs: None,
        github: GithubCli::At(fake_gh(bin.path(), "Remote")),
    };
    let msg = intent_with(repo.path(), &req, None)
        .unwrap_err()
        .to_string();
    assert!(msg.contains("local: docs/intents/42.md"), "{msg}");
    assert!(msg.contains("github: issue 42 (Remote)"), "{msg}");
}

#[test]
fn a_failing_gh_is_reported_where_it_looked() {
    let repo = TempRepo::new();
    let bin = tempfile::tempdir().unwrap();
    let req = IntentRequest {
        id: "43",
        from: None,
        globs: None,
        github: GithubCli::At(fake_gh(bin.path(), "x")),
    };
    let msg = intent_with(repo.path(), &req, None)
        .unwrap_err()
        .to_string();
    assert!(msg.contains("github: `gh issue view 43` failed"), "{msg}");
}
