//! The tool's own files in the local tier read safely: a FIFO or a symbolic link put in place of
//! a session's `state.json`, `session.json`, `answers.json` or transcript (by a runner working
//! without the sandbox, say) never blocks a command, is never followed, and is named in a clear
//! error; a repository that commits `.interview` as a link gets nothing written through it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::util::*;

const ANSWERS: &str = r#"{ "interview_answers": 1, "gate": "y",
  "answers": { "deployment_target": "2", "users": "analysts", "encoding": "utf-8" } }"#;

/// An answers file outside the repository, for a resume without a terminal.
fn answers_file(repo: &TempRepo) -> String {
    let file = repo.scratch("replay.json");
    std::fs::write(&file, ANSWERS).unwrap();
    file.display().to_string()
}

/// A finished interview of the shared work item; returns its session directory.
fn finished_session(repo: &TempRepo) -> PathBuf {
    Interview::of_work_item(repo)
        .runner("honest.sh")
        .answers(ANSWERS)
        .yes()
        .run()
        .exits(0);
    repo.session_dir()
}

/// Put a FIFO (no writer will ever come) in place of `file`.
fn plant_fifo(file: &Path) {
    std::fs::remove_file(file).unwrap();
    nix::unistd::mkfifo(file, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
}

/// Put a link in place of `file`, to a copy of it outside the repository (so a command that
/// followed it would find a readable file and carry on as if nothing were wrong).
fn plant_link(repo: &TempRepo, file: &Path) {
    let copy = repo.scratch(&format!(
        "elsewhere-{}",
        file.file_name().unwrap().to_string_lossy()
    ));
    std::fs::copy(file, &copy).unwrap();
    std::fs::remove_file(file).unwrap();
    std::os::unix::fs::symlink(&copy, file).unwrap();
}

/// Run `interview ARGS` with stdin closed; it must end within 30 s (it is killed otherwise and
/// the test fails: a command that blocks on a FIFO never ends by itself).
fn run_bounded(repo: &TempRepo, args: &[&str]) -> Output {
    let child = Command::new(bin())
        .args(args)
        .current_dir(repo.path())
        .env("HOME", repo.home())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    finish_within(child, WAIT, &format!("`interview {}`", args.join(" ")))
}

/// What each command says about the session whose `state.json` is `what`.
fn every_command_refuses_the_state(repo: &TempRepo, id: &str, what: &str) {
    let said = |o: &Output| format!("{}{}", stdout(o), stderr(o));
    let naming = format!("{id}/state.json: it is {what}");
    for args in [
        vec!["status"],
        vec!["status", id],
        vec!["status", id, "--json"],
        vec!["resume", id, "--yes"],
    ] {
        let out = run_bounded(repo, &args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", said(&out));
        assert!(said(&out).contains(&naming), "{args:?}: {}", said(&out));
    }
    // `answers` needs only the session's answers file, which is still a regular one.
    for args in [vec!["answers"], vec!["answers", id]] {
        let out = run_bounded(repo, &args);
        assert!(out.status.success(), "{args:?}: {}", said(&out));
        assert!(
            stdout(&out).contains("\"analysts\""),
            "{args:?}: {}",
            said(&out)
        );
    }
    // Without a session named: said as the reason it is skipped.
    let out = run_bounded(repo, &["resume", "--yes"]);
    assert_eq!(out.status.code(), Some(2), "{}", said(&out));
    assert!(said(&out).contains(&naming), "{}", said(&out));
    let out = run_bounded(repo, &["status", "--all"]);
    assert!(out.status.success(), "{}", said(&out));
    assert!(stdout(&out).contains("unreadable"), "{}", said(&out));
    // Kept by prune, and said why.
    let out = run_bounded(repo, &["prune"]);
    assert!(out.status.success(), "{}", said(&out));
    assert!(said(&out).contains(&naming), "{}", said(&out));
    assert!(repo.path().join(".interview/sessions").join(id).is_dir());
}

#[test]
fn a_fifo_in_place_of_the_state_blocks_no_command() {
    let repo = TempRepo::new();
    let dir = finished_session(&repo);
    let id = dir.file_name().unwrap().to_string_lossy().into_owned();
    plant_fifo(&dir.join("state.json"));
    every_command_refuses_the_state(&repo, &id, "a FIFO, not a regular file");
}

#[test]
fn a_link_in_place_of_the_state_is_never_followed() {
    let repo = TempRepo::new();
    let dir = finished_session(&repo);
    let id = dir.file_name().unwrap().to_string_lossy().into_owned();
    plant_link(&repo, &dir.join("state.json"));
    every_command_refuses_the_state(&repo, &id, "a symbolic link, which is never followed");
}

#[test]
fn a_fifo_or_a_link_in_place_of_a_sessions_other_files_is_named() {
    for plant in ["fifo", "link"] {
        let repo = TempRepo::new();
        let dir = finished_session(&repo);
        let id = dir.file_name().unwrap().to_string_lossy().into_owned();
        let answers = dir.join("answers.json");
        std::fs::copy(&answers, repo.scratch("kept-answers.json")).unwrap();
        match plant {
            "fifo" => plant_fifo(&answers),
            _ => plant_link(&repo, &answers),
        }
        let out = run_bounded(&repo, &["answers", &id]);
        assert_eq!(out.status.code(), Some(1), "{plant}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(&format!("{id}/answers.json: it is")),
            "{plant}: {}",
            stderr(&out)
        );
        // An unfinished session whose session.json, answers or transcript was replaced.
        let st = dir.join("state.json");
        let text = std::fs::read_to_string(&st).unwrap();
        std::fs::write(&st, text.replace("\"done\"", "\"aborted\"")).unwrap();
        let replay = answers_file(&repo);
        let resume = ["resume", &id, "--yes", "--answers", &replay];
        let out = run_bounded(&repo, &resume);
        assert_eq!(out.status.code(), Some(1), "{plant}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("answers.json: it is"),
            "{plant}: {}",
            stderr(&out)
        );
        for name in ["session.json", "transcript.jsonl"] {
            std::fs::remove_file(&answers).unwrap();
            std::fs::copy(repo.scratch("kept-answers.json"), &answers).unwrap();
            let file = dir.join(name);
            std::fs::copy(&file, repo.scratch(&format!("kept-{name}"))).unwrap();
            match plant {
                "fifo" => plant_fifo(&file),
                _ => plant_link(&repo, &file),
            }
            let out = run_bounded(&repo, &resume);
            assert_eq!(
                out.status.code(),
                Some(1),
                "{plant} {name}: {}",
                stderr(&out)
            );
            assert!(
                stderr(&out).contains(name),
                "{plant} {name}: {}",
                stderr(&out)
            );
            std::fs::remove_file(&file).unwrap();
            std::fs::copy(repo.scratch(&format!("kept-{name}")), &file).unwrap();
        }
    }
}

#[test]
fn a_link_in_place_of_the_local_tier_gets_nothing_written_through_it() {
    for committed in [false, true] {
        a_link_in_place_of_the_local_tier(committed);
    }
}

fn a_link_in_place_of_the_local_tier(committed: bool) {
    let repo = TempRepo::new();
    let elsewhere = repo.scratch("elsewhere-tier");
    std::fs::create_dir_all(elsewhere.join("tmp")).unwrap();
    std::fs::write(elsewhere.join("tmp/keep.txt"), "someone's file").unwrap();
    std::os::unix::fs::symlink(&elsewhere, repo.path().join(".interview")).unwrap();
    if committed {
        repo.git(&["add", "-f", ".interview"]);
        repo.git(&["commit", "-q", "-m", "a tier elsewhere"]);
    }
    repo.write("item.md", WORK_ITEM);
    std::fs::write(repo.scratch("none.json"), r#"{ "interview_answers": 1 }"#).unwrap();
    let out = run_bounded(
        &repo,
        &[
            "intent",
            "7",
            "--from",
            "item.md",
            "--runner",
            &runner("done-at-once.sh"),
            "--yes",
            "--answers",
            repo.scratch("none.json").to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let said = match committed {
        true => "the repository commits .interview, inside the local tier",
        false => ".interview is a symbolic link, not a directory",
    };
    assert!(stderr(&out).contains(said), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(elsewhere.join("tmp/keep.txt")).unwrap(),
        "someone's file"
    );
    assert!(!elsewhere.join("sessions").exists());
}

#[test]
fn a_fifo_or_a_link_in_place_of_the_telemetry_blocks_neither_stats_nor_a_run() {
    for plant in ["fifo", "link"] {
        let repo = TempRepo::new();
        finished_session(&repo);
        let telemetry = repo.path().join(".interview/telemetry.jsonl");
        match plant {
            "fifo" => plant_fifo(&telemetry),
            _ => plant_link(&repo, &telemetry),
        }
        let out = run_bounded(&repo, &["stats"]);
        assert_eq!(out.status.code(), Some(1), "{plant}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("telemetry.jsonl: it is"),
            "{plant}: {}",
            stderr(&out)
        );
        // A run appends nothing through it and does not wait on it.
        let replay = answers_file(&repo);
        let out = run_bounded(
            &repo,
            &[
                "intent",
                "7",
                "--from",
                "item.md",
                "--runner",
                &runner("honest.sh"),
                "--answers",
                &replay,
                "--yes",
                "--out",
                "docs/again.md",
            ],
        );
        assert!(out.status.success(), "{plant}: {}", stderr(&out));
        if plant == "link" {
            let copy = repo.scratch("elsewhere-telemetry.jsonl");
            let lines = std::fs::read_to_string(copy).unwrap().lines().count();
            assert_eq!(lines, 2, "{plant}: appended through the link");
        }
    }
}

#[test]
fn a_fifo_or_a_link_in_place_of_the_lock_stops_a_run_at_once_naming_it() {
    for (plant, what) in [
        ("fifo", "not a regular file"),
        ("link", "a symbolic link, which is never followed"),
    ] {
        let repo = TempRepo::new();
        finished_session(&repo);
        let lock = repo.path().join(".interview/lock");
        match plant {
            "fifo" => plant_fifo(&lock),
            _ => plant_link(&repo, &lock),
        }
        let replay = answers_file(&repo);
        let out = run_bounded(&repo, &["resume", "--yes", "--answers", &replay]);
        assert_eq!(out.status.code(), Some(1), "{plant}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(&format!(".interview/lock is {what}")),
            "{plant}: {}",
            stderr(&out)
        );
        let out = run_bounded(&repo, &["status"]);
        assert!(out.status.success(), "{plant}: {}", stderr(&out));
    }
}

#[test]
fn a_session_the_repository_commits_is_never_run_resumed_or_pruned() {
    let origin = TempRepo::new();
    origin.write("item.md", WORK_ITEM);
    origin.git(&["add", "item.md"]);
    origin.git(&["commit", "-q", "-m", "work item"]);
    // A real session, stopped before its first runner started…
    let mut child = Interview::intent(&origin, "7")
        .from("item.md")
        .runner("honest.sh")
        .answers(ANSWERS)
        .yes()
        .pause_at("dispatch@1")
        .command()
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    origin.wait_until_paused();
    child.kill().unwrap();
    child.wait().unwrap();
    // …whose runner is made a command of the repository's choosing, then committed.
    let marker = origin.scratch("the-repository-ran-this");
    let file = origin.session_dir().join("session.json");
    let mut session: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    session["runner"]["name"] = "x".into();
    session["runner"]["preset"] = serde_json::Value::Null;
    session["runner"]["argv"] =
        serde_json::json!(["sh", "-c", format!("touch '{}'", marker.display())]);
    std::fs::write(&file, session.to_string()).unwrap();
    std::fs::remove_file(origin.path().join(".interview/lock")).unwrap();
    origin.git(&["add", "-f", ".interview"]);
    origin.git(&["commit", "-q", "-m", "ship a session"]);
    let clone = TempRepo::new();
    std::fs::remove_dir_all(clone.path()).unwrap();
    let (from, to) = (
        origin.path().to_str().unwrap(),
        clone.path().to_str().unwrap(),
    );
    origin.git(&["clone", "-q", from, to]);
    let replay = answers_file(&clone);
    let sessions = clone.session_ids();
    for args in [
        vec!["resume", "--yes", "--answers", &replay, "--sandbox", "off"],
        vec![
            "intent",
            "7",
            "--from",
            "item.md",
            "--yes",
            "--answers",
            &replay,
            "--sandbox",
            "off",
        ],
        vec!["prune"],
    ] {
        let out = run_bounded(&clone, &args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("the repository commits .interview/sessions/"),
            "{args:?}: {}",
            stderr(&out)
        );
        assert!(
            stderr(&out).contains("git rm -r .interview"),
            "{}",
            stderr(&out)
        );
        assert!(!marker.exists(), "{args:?} ran the repository's command");
        assert_eq!(clone.session_ids(), sessions);
    }
}
