//! The tool's own writes: a document, a `--clarify-into` file, never through a link the
//! repository planted, never into a git directory, never with an exec bit; every output path
//! checked before the first question, and a late failure that keeps the answers.

use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::Path;

use crate::util::*;

const NO_ANSWERS: &str = r#"{ "interview_answers": 1 }"#;
const ALL_ANSWERED: &str = r#"{ "interview_answers": 1, "answers": { "deployment_target": "2", "users": "ops", "encoding": "utf-8" } }"#;

/// Commit the link `rel -> target` in the repository.
fn commit_link(repo: &TempRepo, rel: &str, target: &Path) {
    let at = repo.path().join(rel);
    std::fs::create_dir_all(at.parent().unwrap()).unwrap();
    symlink(target, &at).unwrap();
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "a link"]);
}

/// The honest runner with every question answered: a run that asks before it writes.
fn asking(repo: &TempRepo) -> Interview<'_> {
    Interview::of_work_item(repo)
        .runner("honest.sh")
        .answers(ALL_ANSWERED)
        .yes()
}

/// A run refused before its first question: exit 2 naming `path` and `why`, no runner started.
fn refused_before_asking(out: &Outcome<'_>, path: &str, why: &str) {
    assert!(out.stderr.contains(path), "{}", out.stderr);
    assert!(out.stderr.contains(why), "{}", out.stderr);
    assert!(out.stderr.contains("nothing was asked"), "{}", out.stderr);
}

fn empty(dir: &Path) -> bool {
    std::fs::read_dir(dir).unwrap().next().is_none()
}

#[test]
fn a_committed_link_for_the_documents_folder_receives_nothing() {
    let repo = TempRepo::new();
    let outside = tempfile::tempdir().unwrap();
    commit_link(&repo, "docs/interviews", outside.path());
    let out = asking(&repo).run().exits(2);
    refused_before_asking(&out, "docs/interviews", "symbolic link");
    assert!(
        empty(outside.path()),
        "something was written through the link"
    );
}

#[test]
fn intent_out_through_a_link_to_the_ssh_directory_writes_nothing() {
    let repo = TempRepo::new();
    let ssh = repo.home().join(".ssh");
    std::fs::create_dir_all(&ssh).unwrap();
    commit_link(&repo, "docs/k", &ssh);
    repo.write(
        "interview.toml",
        "intent_out = \"docs/k/authorized_keys\"\n",
    );
    let out = asking(&repo).run().exits(2);
    refused_before_asking(&out, "docs/k", "symbolic link");
    assert!(out.stderr.contains("intent_out"), "{}", out.stderr);
    assert!(!ssh.join("authorized_keys").exists());
}

#[test]
fn a_document_is_never_written_into_the_git_directory() {
    for target in [
        ".git/info/attributes",
        ".GIT/hooks/post-checkout",
        "sub/.git/config",
    ] {
        let repo = TempRepo::new();
        repo.write("interview.toml", &format!("intent_out = \"{target}\"\n"));
        let out = asking(&repo).run().exits(2);
        refused_before_asking(&out, target, "git directory");
        assert!(
            !repo.path().join(".git/info/attributes").exists(),
            "{target}"
        );
        assert!(
            !repo.path().join(".git/hooks/post-checkout").exists(),
            "{target}"
        );
    }
}

#[test]
fn overwriting_the_pre_commit_hook_is_refused_and_the_hook_is_kept() {
    let repo = TempRepo::new();
    let hook = repo.path().join(".git/hooks/pre-commit");
    std::fs::write(&hook, "#!/bin/sh\nexit 0\n").unwrap();
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = Interview::of_work_item(&repo)
        .runner("done-at-once.sh")
        .answers(r#"{ "interview_answers": 1, "decisions": { "overwrite": "A" } }"#)
        .yes()
        .out(".git/hooks/pre-commit")
        .run()
        .exits(2);
    refused_before_asking(&out, ".git/hooks/pre-commit", "git directory");
    assert_eq!(
        std::fs::read_to_string(&hook).unwrap(),
        "#!/bin/sh\nexit 0\n"
    );
}

#[test]
fn an_overwritten_executable_document_loses_its_exec_bit() {
    let repo = TempRepo::new();
    repo.write("scripts/notes.md", "#!/bin/sh\necho hi\n");
    let path = repo.path().join("scripts/notes.md");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    Interview::of_work_item(&repo)
        .runner("done-at-once.sh")
        .answers(r#"{ "interview_answers": 1, "decisions": { "overwrite": "A" } }"#)
        .yes()
        .out("scripts/notes.md")
        .run()
        .exits(0);
    assert!(repo.read("scripts/notes.md").contains("The readme"));
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode & 0o7111, 0, "the document kept an exec bit: {mode:o}");
}

#[test]
fn reflect_out_through_a_link_writes_nothing() {
    let repo = TempRepo::new();
    repo.commit_files(&["one", "two"]);
    let outside = tempfile::tempdir().unwrap();
    commit_link(&repo, "notes", outside.path());
    repo.write("interview.toml", "reflect_out = \"notes/{id}.md\"\n");
    let out = Interview::reflect(&repo, "HEAD~1")
        .answers(NO_ANSWERS)
        .yes()
        .run()
        .exits(2);
    refused_before_asking(&out, "notes", "symbolic link");
    assert!(out.stderr.contains("reflect_out"), "{}", out.stderr);
    assert!(empty(outside.path()));
}

#[test]
fn a_clarify_into_link_is_refused_before_asking() {
    let repo = TempRepo::new();
    let outside = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(outside.path(), "# theirs\n").unwrap();
    commit_link(&repo, "spec.md", outside.path());
    let out = asking(&repo)
        .args(["--clarify-into", "spec.md"])
        .run()
        .exits(2);
    refused_before_asking(&out, "spec.md", "symbolic link");
    assert!(out.stderr.contains("--clarify-into"), "{}", out.stderr);
    assert_eq!(
        std::fs::read_to_string(outside.path()).unwrap(),
        "# theirs\n"
    );
}

/// The person's own absolute `--out` may be outside the repository (their choice, on their
/// command line), but never in a git directory there either.
#[test]
fn the_person_s_absolute_out_may_leave_the_repository_but_not_into_a_git_directory() {
    let repo = TempRepo::new();
    let mine = repo.scratch("notes/intent-7.md");
    Interview::of_work_item(&repo)
        .runner("done-at-once.sh")
        .answers(NO_ANSWERS)
        .yes()
        .out(mine.to_str().unwrap())
        .run()
        .exits(0);
    assert!(
        std::fs::read_to_string(&mine)
            .unwrap()
            .contains("The readme")
    );
    let other = TempRepo::new();
    let hook = other.path().join(".git/hooks/pre-commit");
    let out = Interview::of_work_item(&repo)
        .runner("done-at-once.sh")
        .answers(NO_ANSWERS)
        .yes()
        .out(hook.to_str().unwrap())
        .run()
        .exits(2);
    refused_before_asking(&out, "pre-commit", "git directory");
    assert!(!hook.exists());
}

#[test]
fn a_bad_out_is_refused_before_the_first_question() {
    let repo = TempRepo::new();
    repo.write("docs/interviews/keep.md", "x\n");
    for (out, why) in [
        ("README.md/x.md", "not a directory"),
        ("docs/interviews", "is a directory"),
        ("/proc/x.md", "no file can be written"),
    ] {
        let run = asking(&repo).out(out).run().exits(2);
        refused_before_asking(&run, out, why);
        assert!(
            !repo.path().join(".interview/sessions").exists() || repo.session_ids().is_empty(),
            "{out}: a session was left"
        );
    }
    repo.write("interview.toml", "intent_out = \"README.md/{id}.md\"\n");
    let run = asking(&repo).run().exits(2);
    refused_before_asking(&run, "README.md/7.md", "not a directory");
    assert!(run.stderr.contains("interview.toml"), "{}", run.stderr);
}

#[test]
fn a_write_that_fails_at_the_end_keeps_the_answers_and_says_how_to_finish() {
    let repo = TempRepo::new();
    // Stopped where the document is about to be written; its folder then becomes a file.
    killed_when_paused(
        &repo,
        asking(&repo)
            .out("docs/new/intent-7.md")
            .pause_at("consent@3"),
    );
    repo.write("docs/new", "a file now\n");
    let id = repo.session_ids().pop().unwrap();
    let out = Interview::resume(&repo).answers(ALL_ANSWERED).yes().run();
    assert_ne!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("answers are kept"), "{}", out.stderr);
    let hint = format!("interview resume {id} --out");
    assert!(out.stderr.contains(&hint), "{}", out.stderr);
    let done = Interview::resume(&repo)
        .arg(&id)
        .answers(ALL_ANSWERED)
        .yes()
        .out("docs/elsewhere.md")
        .run()
        .exits(0);
    let doc = repo.read("docs/elsewhere.md");
    assert!(
        doc.contains("The repository has a README"),
        "{doc}\n{}",
        done.stderr
    );
}
