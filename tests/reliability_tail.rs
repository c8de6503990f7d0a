//! Reliability, the tail of issue 15: the smaller items (numbers that pick no option, `r` with
//! nothing recommended, a BOM, resumed replays, corrupt counts, odd file names, shallow clones),
//! runner daemons that outlive a kill -9, and random kill -9s while a person types.

use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::util::{Interview, TempRepo, WAIT, alive, answered, pids, stderr, stdout, wait_until};

const HONEST: &str = r#"{ "interview_answers": 1, "gate": "y",
  "answers": { "deployment_target": "2", "users": "analysts", "encoding": "utf-8" } }"#;

/// Run `interview` until it pauses at its `pause_at` step, then kill it with SIGKILL.
fn killed_when_paused(repo: &TempRepo, interview: Interview<'_>) {
    let _ = std::fs::remove_file(repo.pause_mark());
    let mut child = interview
        .command()
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start interview");
    repo.wait_until_paused();
    child.kill().expect("kill -9");
    child.wait().expect("wait");
}

// 13. Smaller items.

#[test]
fn a_number_that_picks_no_option_is_kept_as_text_and_the_person_is_told() {
    let repo = TempRepo::new();
    let mut pty = Interview::of_work_item(&repo)
        .runner("honest.sh")
        .yes()
        .at_terminal();
    pty.answer("[Y]", "y");
    pty.answer("Where will this service run?", "7");
    // The reference keeps an out-of-range number as free text; the person learns that at once.
    pty.expect("7 is not one of the 2 options: it is kept as your answer, as text.");
    pty.answer("Who uses the export?", "analysts");
    pty.answer("[Y]", "y");
    pty.answer("Which encodings must be supported?", "utf-8");
    let (code, screen) = pty.finish();
    assert_eq!(code, 0, "{screen}");
    assert_eq!(repo.recorded_answers()["answers"]["deployment_target"], "7");
}

#[test]
fn r_at_a_question_without_a_recommendation_is_asked_again_at_a_terminal() {
    let repo = TempRepo::new();
    let mut pty = Interview::of_work_item(&repo)
        .runner("honest.sh")
        .yes()
        .at_terminal();
    pty.answer("[Y]", "y");
    pty.answer("Where will this service run?", "r");
    // `users` is open and recommends nothing: `r` is no answer, the question comes again.
    pty.answer("Who uses the export?", "r");
    pty.expect("No option is recommended for this question");
    pty.answer("Who uses the export?", "analysts");
    pty.answer("[Y]", "y");
    pty.answer("Which encodings must be supported?", "utf-8");
    let (code, screen) = pty.finish();
    assert_eq!(code, 0, "{screen}");
    let recorded = repo.recorded_answers();
    assert_eq!(recorded["answers"]["deployment_target"], "r", "{recorded}");
    assert_eq!(recorded["answers"]["users"], "analysts", "{recorded}");
    let users: Vec<_> = repo
        .answers()
        .into_iter()
        .filter(|(topic, _, _)| topic == "users")
        .collect();
    assert_eq!(users, [answered("users", "analysts")]);
}

#[test]
fn at_recommended_without_a_recommendation_in_an_answers_file_names_the_topic() {
    let repo = TempRepo::new();
    let out = Interview::of_work_item(&repo)
        .runner("honest.sh")
        .answers(
            r#"{ "interview_answers": 1, "gate": "y",
              "answers": { "deployment_target": "@recommended", "users": "@recommended" } }"#,
        )
        .yes()
        .run()
        .exits(2);
    assert!(out.stderr.contains("answers `users`"), "{}", out.stderr);
    assert!(
        out.stderr.contains("has no recommended option"),
        "{}",
        out.stderr
    );
}

#[test]
fn an_answers_file_with_a_byte_order_mark_is_accepted() {
    let repo = TempRepo::new();
    let path = repo.scratch("bom.json");
    std::fs::write(&path, format!("\u{feff}{HONEST}")).unwrap();
    let out = Interview::of_work_item(&repo)
        .runner("honest.sh")
        .answers_file(&path)
        .yes()
        .run()
        .exits(0);
    assert_eq!(out.state()["status"], "done");
}

#[test]
fn a_resumed_replay_does_not_call_the_answers_given_before_stale() {
    let repo = TempRepo::new();
    let path = repo.scratch("answers.json");
    std::fs::write(&path, HONEST).unwrap();
    killed_when_paused(
        &repo,
        Interview::of_work_item(&repo)
            .runner("honest.sh")
            .answers_file(&path)
            .yes()
            .pause_at("dispatch@2"),
    );
    let out = Interview::resume(&repo)
        .answers_file(&path)
        .yes()
        .run()
        .exits(0);
    assert!(!out.stderr.contains("never asked"), "{}", out.stderr);
    // A topic that really is stale is still named.
    let stale = repo.scratch("stale.json");
    std::fs::write(
        &stale,
        r#"{ "interview_answers": 1, "gate": "y",
          "answers": { "deployment_target": "2", "users": "analysts", "encoding": "utf-8",
                       "colour": "blue" } }"#,
    )
    .unwrap();
    killed_when_paused(
        &repo,
        Interview::of_work_item(&repo)
            .runner("honest.sh")
            .answers_file(&stale)
            .yes()
            .out("docs/second.md")
            .pause_at("dispatch@2"),
    );
    let out = Interview::resume(&repo)
        .answers_file(&stale)
        .yes()
        .run()
        .exits(0);
    assert!(
        out.stderr
            .contains("answers for topics never asked: colour"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_corrupt_max_turns_is_reported_not_allocated() {
    let repo = TempRepo::new();
    killed_when_paused(
        &repo,
        Interview::of_work_item(&repo)
            .runner("honest.sh")
            .answers(HONEST)
            .yes()
            .pause_at("dispatch@1"),
    );
    let state_path = repo.session_dir().join("state.json");
    let mut state = repo.state();
    // Far beyond any interview, yet small enough that the tool before the fix (which listed
    // every turn up to it) shows the bug without exhausting the test machine's memory.
    state["max_turns"] = serde_json::json!(100_000);
    std::fs::write(&state_path, state.to_string()).unwrap();
    let started = Instant::now();
    for args in [&["status"][..], &["status", "--json"], &["status", "--all"]] {
        let out = repo.run(args);
        assert!(
            !stderr(&out).contains("panicked"),
            "{args:?}: {}",
            stderr(&out)
        );
        let shown = format!("{}{}", stdout(&out), stderr(&out));
        assert!(shown.contains("corrupt"), "{args:?}: {shown}");
        assert!(shown.contains("`max_turns` is 100000"), "{args:?}: {shown}");
    }
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn a_file_name_that_is_not_utf8_does_not_break_the_work_item_lookup() {
    use std::os::unix::ffi::OsStrExt;
    let repo = TempRepo::new();
    repo.write("docs/intents/42.md", "# Export to CSV\n\nUsers want CSV.\n");
    let odd = std::ffi::OsStr::from_bytes(b"42-caf\xe9.md");
    std::fs::write(
        repo.path().join("docs/intents").join(odd),
        "# Not this one\n",
    )
    .unwrap();
    let out = Interview::intent(&repo, "42")
        .runner("honest.sh")
        .answers(HONEST)
        .yes()
        .run()
        .exits(0);
    let title = out.state()["subject_title"].to_string();
    assert!(title.contains("Export to CSV"), "{title}");
}

#[test]
fn a_shallow_clones_missing_history_is_named_as_such() {
    let origin = TempRepo::new();
    for n in 1..=4 {
        origin.write("notes.txt", &format!("change {n}\n"));
        origin.git(&["add", "notes.txt"]);
        origin.git(&["commit", "-q", "-m", &format!("change {n}")]);
    }
    let url = format!("file://{}", origin.path().display());
    let target = origin.scratch("shallow");
    origin.git(&[
        "clone",
        "-q",
        "--depth",
        "1",
        &url,
        target.to_str().unwrap(),
    ]);
    let answers = origin.scratch("answers.json");
    std::fs::write(&answers, r#"{ "interview_answers": 1, "gate": "n" }"#).unwrap();
    let out = origin
        .cmd()
        .current_dir(&target)
        .args(["reflect", "HEAD~2", "--yes", "--answers"])
        .arg(&answers)
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_ne!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("shallow clone"), "{err}");
    assert!(err.contains("git fetch --deepen"), "{err}");
    assert!(!err.contains("has no tags"), "{err}");
}

/// A process a test must not leave behind, even when it fails: killed on drop while it is still
/// the same process (same start time in /proc).
struct Leftover(i32, Option<String>);

impl Leftover {
    fn of(pid: i32) -> Leftover {
        Leftover(pid, Leftover::start(pid))
    }

    fn start(pid: i32) -> Option<String> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        let rest = stat.rsplit_once(')')?.1.to_string();
        rest.split_whitespace().nth(19).map(str::to_string)
    }
}

impl Drop for Leftover {
    fn drop(&mut self) {
        if self.1.is_some() && Leftover::start(self.0) == self.1 {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(self.0),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
    }
}

// 12. A runner's daemon outlives a kill -9 of the tool: `resume` ends it.

#[test]
fn resume_ends_a_setsid_daemon_left_by_a_tool_killed_with_sigkill() {
    let repo = TempRepo::new();
    let pid_file = repo.scratch("test-pids");
    let mark = repo.scratch("resumed");
    let mut tool = Interview::of_work_item(&repo)
        .runner("setsid-daemon-stays.sh")
        // No PID namespace: what the tool itself does must be enough.
        .without_sandbox()
        .answers(HONEST)
        .yes()
        .env("TEST_PIDS", &pid_file)
        .env("TEST_MARK", &mark)
        .command()
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start interview");
    wait_until(WAIT, "the daemon to start", || pids(&pid_file).len() == 1);
    let daemon = pids(&pid_file)[0];
    let _ends_it_anyway = Leftover::of(daemon);
    // The tool notes its runner's descendants as they appear; wait for the daemon's line.
    let noted = repo.session_dir().join("turns/001/runner.pid");
    wait_until(WAIT, "the daemon to be noted", || {
        std::fs::read_to_string(&noted)
            .unwrap_or_default()
            .lines()
            .any(|l| l.split_whitespace().next() == Some(daemon.to_string().as_str()))
    });
    tool.kill().expect("kill -9");
    tool.wait().expect("wait");
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        alive(daemon),
        "the daemon {daemon} died with the tool: nothing to test"
    );
    std::fs::write(&mark, "").unwrap();
    Interview::resume(&repo)
        .without_sandbox()
        .answers(HONEST)
        .yes()
        .env("TEST_PIDS", &pid_file)
        .env("TEST_MARK", &mark)
        .run()
        .exits(0);
    wait_until(WAIT, "the daemon to be ended", || !alive(daemon));
}

// 11. Record and replay.

#[test]
fn a_replay_names_every_topic_of_the_round_it_has_no_answer_for() {
    let repo = TempRepo::new();
    let out = Interview::of_work_item(&repo)
        .runner("honest.sh")
        .answers(r#"{ "interview_answers": 1, "gate": "y", "answers": { "encoding": "utf-8" } }"#)
        .yes()
        .run()
        .exits(5);
    for line in [
        "no answer for 2 topics",
        "`deployment_target`: Where will this service run?",
        "`users`: Who uses the export?",
        r#""deployment_target": "your answer","#,
        r#""users": "your answer""#,
    ] {
        assert!(out.stderr.contains(line), "{line}: {}", out.stderr);
    }
    // A topic after `skip all` is never asked, so it is not missing.
    let repo = TempRepo::new();
    Interview::of_work_item(&repo)
        .runner("honest.sh")
        .answers(r#"{ "interview_answers": 1, "answers": { "deployment_target": "skip all" } }"#)
        .yes()
        .run()
        .exits(0);
}
