//! The narrow windows around the document: a kill -9 while it is written, or after it was
//! written and before the session was marked done. A resume removes what the kill left and
//! finishes without running the turn again, without asking, and without another document.

use crate::util::*;

const NO_QUESTIONS: &str = r#"{ "interview_answers": 1 }"#;

/// Start the interview of the shared work item with a runner whose document differs on every
/// run, stopped still at `pause` (`written@1`, `renaming@1`), and kill it there with SIGKILL.
fn killed_at(repo: &TempRepo, pause: &str, out: Option<&str>) {
    let mut interview = Interview::of_work_item(repo)
        .runner("done-varies.sh")
        .answers(NO_QUESTIONS)
        .yes()
        .pause_at(pause);
    if let Some(out) = out {
        interview = interview.out(out);
    }
    killed_when_paused(repo, interview);
    std::fs::remove_file(repo.pause_mark()).unwrap();
}

/// The names in `dir` that start with a dot (temporary files), sorted.
fn dotfiles(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with('.'))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

fn documents(repo: &TempRepo) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(repo.path().join("docs/interviews"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_replayed_resume_after_the_write_finishes_without_asking_or_running_the_turn_again() {
    let repo = TempRepo::new();
    killed_at(&repo, "written@1", None);
    let written = repo.read(DOCUMENT);
    assert_ne!(repo.state()["status"], "done");
    assert_eq!(repo.state()["runs"].as_array().unwrap().len(), 1);
    let out = Interview::resume(&repo)
        .answers(NO_QUESTIONS)
        .yes()
        .run()
        .exits(0);
    assert!(!out.screen().contains("overwrite"), "{}", out.screen());
    assert!(
        out.screen().contains(
            "The document was written before the interruption: docs/interviews/intent-7.md"
        ),
        "{}",
        out.screen()
    );
    // The very document the killed run wrote: the runner did not run again.
    assert_eq!(repo.read(DOCUMENT), written);
    assert_eq!(documents(&repo), ["intent-7.md"]);
    let st = repo.state();
    assert_eq!(st["status"], "done");
    assert_eq!(st["document"], "docs/interviews/intent-7.md");
    assert_eq!(st["runs"].as_array().unwrap().len(), 1);
    assert!(st.get("writing").is_none(), "{st:#}");
}

#[test]
fn a_resume_at_a_terminal_after_the_write_asks_nothing() {
    let repo = TempRepo::new();
    // The person consents at the terminal; the kill comes right after the write.
    let mut pty = Interview::of_work_item(&repo)
        .runner("done-varies.sh")
        .pause_at("written@1")
        .at_terminal();
    pty.answer("Choose A", "A");
    repo.wait_until_paused();
    pty.kill9();
    let written = repo.read(DOCUMENT);
    let pty = Interview::resume(&repo).at_terminal();
    let (code, screen) = finish_unless_asked(pty);
    assert_eq!(code, 0, "{screen}");
    assert!(
        screen.contains("The document was written before the interruption"),
        "{screen}"
    );
    assert_eq!(repo.read(DOCUMENT), written);
    assert_eq!(documents(&repo), ["intent-7.md"]);
    assert_eq!(repo.state()["status"], "done");
}

/// The end of a run at the terminal; a decision it asks (consent, overwrite) fails the test
/// at once instead of waiting for an answer that never comes.
fn finish_unless_asked(mut pty: Pty) -> (i32, String) {
    use expectrl::{Expect, Regex};
    if let Ok(found) = pty.session.expect(Regex(r"Choose [A-D]|\[Y\]")) {
        let asked = String::from_utf8_lossy(found.before()).into_owned();
        pty.kill9();
        panic!("the resume asked something:\n{asked}");
    }
    pty.finish()
}

#[test]
fn a_kill_during_the_write_leaves_no_file_in_the_folder_and_the_resume_removes_its_own() {
    let repo = TempRepo::new();
    killed_at(&repo, "renaming@1", None);
    let tmp = repo.path().join(".interview/tmp");
    let left = dotfiles(&tmp);
    assert_eq!(left.len(), 1, "{left:?}");
    assert!(left[0].ends_with("-document"), "{left:?}");
    assert!(!repo.path().join(DOCUMENT).exists());
    assert_eq!(
        dotfiles(&repo.path().join("docs/interviews")),
        Vec::<String>::new()
    );
    Interview::resume(&repo)
        .answers(NO_QUESTIONS)
        .yes()
        .run()
        .exits(0);
    assert_eq!(dotfiles(&tmp), Vec::<String>::new());
    assert_eq!(documents(&repo), ["intent-7.md"]);
    assert_eq!(repo.state()["status"], "done");
}

#[test]
fn a_kill_during_a_write_to_another_file_system_is_cleaned_up_beside_it() {
    use std::os::unix::fs::MetadataExt;
    let repo = TempRepo::new();
    let shm = tempfile::Builder::new()
        .prefix("interview-test-")
        .tempdir_in("/dev/shm");
    if !prerequisite(shm.is_ok(), "a writable /dev/shm") {
        return;
    }
    let shm = shm.unwrap();
    let device = |p: &std::path::Path| std::fs::metadata(p).unwrap().dev();
    if !prerequisite(
        device(shm.path()) != device(repo.path()),
        "/dev/shm on another file system than the repository's",
    ) {
        return;
    }
    let out = shm.path().join("intent-7.md");
    killed_at(&repo, "renaming@1", Some(out.to_str().unwrap()));
    // A rename cannot cross file systems: the temporary file is beside the document.
    let left = dotfiles(shm.path());
    assert_eq!(left.len(), 1, "{left:?}");
    assert!(left[0].starts_with(".tmp-intent-7-"), "{left:?}");
    // A file of another name there is never the tool's to remove.
    std::fs::write(shm.path().join(".tmp-someone-else"), "keep").unwrap();
    Interview::resume(&repo)
        .answers(NO_QUESTIONS)
        .yes()
        .run()
        .exits(0);
    assert_eq!(dotfiles(shm.path()), [".tmp-someone-else"]);
    assert!(
        std::fs::read_to_string(&out)
            .unwrap()
            .starts_with("# Intent of 7")
    );
}

#[test]
fn a_resume_after_the_clarifications_were_written_does_not_add_them_twice() {
    let repo = TempRepo::new();
    repo.write("spec.md", "# Spec\n");
    let answers = r#"{ "interview_answers": 1, "gate": "y",
  "answers": { "deployment_target": "2", "users": "analysts", "encoding": "utf-8" } }"#;
    killed_when_paused(
        &repo,
        Interview::of_work_item(&repo)
            .runner("honest.sh")
            .answers(answers)
            .arg("--clarify-into")
            .arg("spec.md")
            .yes()
            .pause_at("concluded@3"),
    );
    let clarified = repo.read("spec.md");
    assert_eq!(clarified.matches("A: analysts").count(), 1, "{clarified}");
    Interview::resume(&repo)
        .answers(answers)
        .yes()
        .run()
        .exits(0);
    assert_eq!(repo.read("spec.md"), clarified);
    assert_eq!(repo.state()["status"], "done");
}
