//! Reliability, the tail of issue 15: the smaller items (numbers that pick no option, `r` with
//! nothing recommended, a BOM, resumed replays, corrupt counts, odd file names, shallow clones),
//! runner daemons that outlive a kill -9, and random kill -9s while a person types.

use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::util::{
    Interview, TempRepo, WAIT, alive, answered, killed_when_paused, pids, stderr, stdout,
    wait_until,
};

const HONEST: &str = r#"{ "interview_answers": 1, "gate": "y",
  "answers": { "deployment_target": "2", "users": "analysts", "encoding": "utf-8" } }"#;

// 13. Smaller items.

// Issue 24 changed this rule on purpose: the reference kept an out-of-range number as free
// text (the person was told so); now it is no answer and the question comes again.
#[test]
fn a_number_that_picks_no_option_is_asked_again_and_the_person_is_told() {
    let repo = TempRepo::new();
    let mut pty = Interview::of_work_item(&repo)
        .runner("honest.sh")
        .yes()
        .at_terminal();
    pty.answer("[Y]", "y");
    pty.answer("Where will this service run?", "7");
    pty.expect("7 is not an option: type a number from 1 to 2, your own answer, or skip.");
    pty.answer("Where will this service run?", "2");
    pty.answer("Who uses the export?", "analysts");
    pty.answer("[Y]", "y");
    pty.answer("Which encodings must be supported?", "utf-8");
    let (code, screen) = pty.finish();
    assert_eq!(code, 0, "{screen}");
    assert_eq!(repo.recorded_answers()["answers"]["deployment_target"], "2");
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
/// the same process (same start time).
struct Leftover(i32, Option<u64>);

impl Leftover {
    fn of(pid: i32) -> Leftover {
        Leftover(pid, Leftover::start(pid))
    }

    fn start(pid: i32) -> Option<u64> {
        interview::testing::start_time(pid)
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
        .runner_env("TEST_PIDS", &pid_file)
        .runner_env("TEST_MARK", &mark)
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
    // Nothing to wait for: a death tied to the tool's (a parent-death signal, a namespace
    // ending) lands within milliseconds, and 200 ms lets it show before the test relies on the
    // daemon outliving the tool.
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
        .runner_env("TEST_PIDS", &pid_file)
        .runner_env("TEST_MARK", &mark)
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

/// The README's line that starts with `start`, without its comment, as a person copies it.
fn readme_line(start: &str) -> String {
    let readme = std::fs::read_to_string(crate::util::fixtures().join("../README.md")).unwrap();
    let line = readme
        .lines()
        .find(|l| l.starts_with(start))
        .unwrap_or_else(|| panic!("README.md has no line starting with {start:?}"));
    line.split("  #").next().unwrap().trim().to_string()
}

/// Run a README line in `dir` through the shell, with this build's `interview` first on PATH.
fn shell(repo: &TempRepo, dir: &std::path::Path, line: &str) -> std::process::Output {
    let bin_dir = crate::util::bin().parent().unwrap().to_path_buf();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    std::process::Command::new("sh")
        .args(["-c", line])
        .current_dir(dir)
        .env("PATH", path)
        .env("HOME", repo.home())
        .env("TMPDIR", repo.home())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn the_readmes_record_and_replay_lines_work_as_written() {
    let record = readme_line("interview answers ");
    let replay =
        readme_line("interview intent 42 --from examples/intents/42-export-csv.md --answers ");
    // Where the README records to: a file of the person's, never the repository's own fixture.
    let answers_file = record
        .split_whitespace()
        .skip_while(|w| *w != "-o")
        .nth(1)
        .expect("the README's record line names its file with -o")
        .to_string();
    assert!(!answers_file.starts_with("fixtures/"), "{record}");
    let repo = TempRepo::new();
    // The work item where `intent 42` finds it, and where the README's replay line reads it.
    for path in ["docs/intents/42.md", "examples/intents/42-export-csv.md"] {
        repo.write(path, "# Export to CSV\n\nUsers want their data as CSV.\n");
    }
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "work item 42"]);
    // A person answers at the terminal, then a reflect session is the latest one.
    let (code, screen) =
        crate::util::Pty::spawn(&repo, &["intent", "42"], &[]).answer_as_a_person();
    assert_eq!(code, 0, "{screen}");
    Interview::reflect(&repo, "HEAD")
        .answers(r#"{ "interview_answers": 1, "gate": "n" }"#)
        .yes()
        .run();
    let out = shell(&repo, repo.path(), &record);
    assert!(out.status.success(), "{record}: {}", stderr(&out));
    let fixture = repo.read(&answers_file);
    assert!(fixture.contains("the analysts"), "{fixture}");
    // A failure leaves the fixture as it was (the shell's `>` would have emptied it first).
    let failed = shell(
        &repo,
        repo.path(),
        &record.replace("intent 42", "intent 43"),
    );
    assert_eq!(failed.status.code(), Some(2), "{}", stderr(&failed));
    assert_eq!(repo.read(&answers_file), fixture);
    // Committed, replayed in a fresh clone (as CI does): the person's answers, the same
    // document in every clone.
    repo.git(&["add", &answers_file]);
    repo.git(&["commit", "-q", "-m", "answers of intent 42"]);
    let document = repo.read("docs/interviews/intent-42.md");
    let mut documents = Vec::new();
    for name in ["clone-1", "clone-2"] {
        let clone = repo.scratch(name);
        let (from, to) = (repo.path().to_str().unwrap(), clone.to_str().unwrap());
        repo.git(&["clone", "-q", from, to]);
        let out = shell(&repo, &clone, &replay);
        assert!(out.status.success(), "{replay}: {}", stderr(&out));
        documents
            .push(std::fs::read_to_string(clone.join("docs/interviews/intent-42.md")).unwrap());
    }
    assert_eq!(documents[0], documents[1]);
    assert_eq!(
        documents[0].matches("A: the analysts").count(),
        2,
        "{}",
        documents[0]
    );
    assert_eq!(document.matches("A: the analysts").count(), 2, "{document}");
    // The document written above is not overwritten without a recorded decision: moved away.
    // (Moved before the next run since issue 24: with it in place and nothing open in it, a
    // run at a terminal says so and starts no session.)
    std::fs::rename(
        repo.path().join("docs/interviews/intent-42.md"),
        repo.scratch("intent-42.md"),
    )
    .unwrap();
    // An unfinished session about the same subject does not block the replay either.
    let honest = crate::util::runner("honest.sh");
    let args = [
        "intent",
        "42",
        "--sandbox",
        "off",
        "--runner",
        honest.as_str(),
    ];
    let mut pty = crate::util::Pty::spawn(&repo, &args, &[]);
    pty.answer("[Y]", "y");
    pty.expect("Q&A Progress");
    pty.ctrl_c();
    let (code, screen) = pty.finish();
    assert_eq!(code, 130, "{screen}");
    let out = shell(&repo, repo.path(), &replay);
    assert!(out.status.success(), "{replay}: {}", stderr(&out));
    assert!(
        repo.read("docs/interviews/intent-42.md")
            .starts_with("# Intent of 42: Export to CSV"),
        "{}",
        repo.read("docs/interviews/intent-42.md")
    );
    assert!(!repo.path().join("docs/interviews/intent-42-2.md").exists());
}

#[test]
fn an_answers_file_records_its_subject_and_is_not_replayed_into_another() {
    let repo = TempRepo::new();
    let mut pty = Interview::of_work_item(&repo)
        .runner("honest.sh")
        .without_sandbox()
        .yes()
        .at_terminal();
    pty.answer("[Y]", "y");
    pty.answer("Where will this service run?", "2");
    pty.answer("Who uses the export?", "analysts");
    pty.answer("[Y]", "y");
    pty.answer("Which encodings must be supported?", "utf-8");
    let (code, screen) = pty.finish();
    assert_eq!(code, 0, "{screen}");
    assert_eq!(repo.recorded_answers()["subject"], "intent 7");
    let fixture = repo.scratch("intent-7.json");
    let out = repo.run(&["answers", "intent", "7", "-o", fixture.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let refused = Interview::intent(&repo, "8")
        .work_item()
        .runner("honest.sh")
        .answers_file(&fixture)
        .yes()
        .run()
        .exits(2);
    assert!(
        refused
            .stderr
            .contains("recorded about intent 7, not intent 8"),
        "{}",
        refused.stderr
    );
    assert!(
        refused.stderr.contains("--any-subject"),
        "{}",
        refused.stderr
    );
    Interview::intent(&repo, "8")
        .work_item()
        .runner("honest.sh")
        .answers_file(&fixture)
        .arg("--any-subject")
        .yes()
        .run()
        .exits(0);
    // Into its own subject it replays as recorded.
    Interview::of_work_item(&repo)
        .runner("honest.sh")
        .answers_file(&fixture)
        .out("docs/again.md")
        .yes()
        .run()
        .exits(0);
}
