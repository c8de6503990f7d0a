//! `--from -`: the work item comes on standard input, the answers from the terminal that
//! controls the run (`/dev/tty`), as a person types `cat item.md | interview intent 7 --from -`.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::util::*;

#[test]
fn the_item_piped_in_and_the_answers_typed_at_the_terminal() {
    let repo = TempRepo::new();
    let item = repo.scratch("item.md");
    std::fs::write(&item, WORK_ITEM).unwrap();
    let line = format!(
        "cat '{}' | exec '{}' intent 7 --from - --runner '{}' --sandbox off --yes",
        item.display(),
        bin().display(),
        runner("honest.sh")
    );
    let mut cmd = Command::new("/bin/sh");
    cmd.args(["-c", &line])
        .current_dir(repo.path())
        .env("HOME", repo.home())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("NO_COLOR", "1")
        .env("TERM", "dumb");
    let mut session = expectrl::Session::spawn(cmd).expect("spawn at a pty");
    session.set_expect_timeout(Some(std::time::Duration::from_secs(30)));
    let mut pty = Pty { session };
    pty.answer("[Y]", "y");
    pty.answer("Where will this service run?", "2");
    pty.answer("Who uses the export?", "analysts");
    pty.answer("[Y]", "y");
    pty.answer("Which encodings must be supported?", "utf-8");
    let (code, screen) = pty.finish();
    assert_eq!(code, 0, "{screen}");
    let document = repo.read(DOCUMENT);
    assert!(
        document.contains("Users want their data as CSV."),
        "{document}"
    );
    assert!(document.contains("As written in stdin"), "{document}");
    let st = repo.state();
    assert_eq!(st["rounds"][0]["answers"][1]["answer_text"], "analysts");
    assert_eq!(st["rounds"][1]["answers"][0]["answer_text"], "utf-8");
}

#[test]
fn the_item_from_the_terminal_itself_is_refused_before_anything_is_asked() {
    let repo = TempRepo::new();
    let honest = runner("honest.sh");
    let args = ["intent", "7", "--from", "-", "--runner", honest.as_str()];
    let answers = repo.scratch("answers.json");
    std::fs::write(&answers, r#"{ "interview_answers": 1 }"#).unwrap();
    // Also with an answers file: a terminal is never read as the work item.
    let replayed = [&args[..], &["--answers", answers.to_str().unwrap()]].concat();
    for args in [&args[..], &replayed[..]] {
        let pty = Pty::spawn(&repo, args, &[]);
        let (code, screen) = pty.finish();
        assert_eq!(code, 2, "{screen}");
        assert!(
            screen.contains("--from -: standard input is a terminal, not the work item"),
            "{screen}"
        );
    }
    assert!(!repo.path().join(".interview/sessions").exists() || repo.session_ids().is_empty());
}

#[test]
fn without_a_terminal_the_item_on_stdin_needs_an_answers_file() {
    let repo = TempRepo::new();
    let run = |extra: &[&str]| {
        // setsid: no controlling terminal, even when the tests run in one.
        let mut child = Command::new("setsid")
            .arg("-w")
            .arg(bin())
            .args([
                "intent",
                "7",
                "--from",
                "-",
                "--runner",
                &runner("honest.sh"),
            ])
            .args(extra)
            .args(["--sandbox", "off", "--yes"])
            .current_dir(repo.path())
            .env("HOME", repo.home())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("setsid");
        child
            .stdin
            .take()
            .unwrap()
            .write_all(WORK_ITEM.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    };
    let out = run(&[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("the work item comes on standard input (--from -), so answers are read from the terminal (/dev/tty), and there is none here"),
        "{}",
        stderr(&out)
    );
    let answers = repo.scratch("answers.json");
    std::fs::write(
        &answers,
        r#"{ "interview_answers": 1, "gate": "y",
  "answers": { "deployment_target": "2", "users": "analysts", "encoding": "utf-8" } }"#,
    )
    .unwrap();
    let out = run(&["--answers", answers.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        repo.read(DOCUMENT)
            .contains("Users want their data as CSV.")
    );
}

#[test]
fn the_docs_line_runs_as_written_at_a_terminal() {
    let docs = std::fs::read_to_string(fixtures().join("../docs/interviews.md")).unwrap();
    // The line as the docs show it: inline in backticks or on its own in a shell block.
    let start = docs
        .find("interview intent 42 --from - <")
        .expect("the docs' line");
    let line = docs[start..]
        .split(['`', '\n'])
        .next()
        .unwrap()
        .trim()
        .to_string();
    let repo = TempRepo::new();
    let example = "examples/intents/42-export-csv.md";
    repo.write(
        example,
        &std::fs::read_to_string(fixtures().join("..").join(example)).unwrap(),
    );
    let path = format!(
        "{}:{}",
        bin().parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = Command::new("/bin/sh");
    cmd.args(["-c", &line])
        .current_dir(repo.path())
        .env("PATH", path)
        .env("HOME", repo.home())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("NO_COLOR", "1")
        .env("TERM", "dumb");
    let mut session = expectrl::Session::spawn(cmd).expect("spawn at a pty");
    session.set_expect_timeout(Some(std::time::Duration::from_secs(60)));
    // Skip every round at its gate; write the document when asked.
    use expectrl::{Expect, Regex};
    let pattern = r"(\[Y\] Answer questions now|Choose A, B)[\s\S]*?(> |: )";
    while let Ok(found) = session.expect(Regex(pattern)) {
        let reply = match found.get(1).unwrap_or_default() {
            b"Choose A, B" => "A",
            _ => "n",
        };
        if session.send_line(reply).is_err() {
            break;
        }
    }
    let (code, screen) = Pty { session }.finish();
    assert_eq!(code, 0, "{line}: {screen}");
    let document = repo.read("docs/interviews/intent-42.md");
    assert!(document.contains("As written in stdin"), "{document}");
}
