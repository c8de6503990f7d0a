//! What a session syncs to the disk (docs/architecture.md, "Durability"): what the person typed
//! or decided, before the tool goes on, and little else; and what the unsynced steps can leave
//! behind is resumed from, or reported, never taken for something else.

use std::process::{Command, Stdio};

use crate::util::*;

/// What the sync-counting tests need (`.ci/run` installs it).
const STRACE: &str =
    "strace that may trace a child and name its files, as root (.ci/run installs it)";

/// `interview` as `strace -f -y -e trace=fsync,fdatasync -o TRACE` runs it.
fn under_strace(interview: Interview<'_>, trace: &std::path::Path) -> Command {
    tracing(interview, &["-e", "trace=fsync,fdatasync"], trace)
}

/// `interview` as `strace -f -y OPTIONS -o TRACE` runs it.
fn tracing(interview: Interview<'_>, options: &[&str], trace: &std::path::Path) -> Command {
    let inner = interview.command();
    let mut cmd = Command::new("strace");
    cmd.args(["-f", "-qq", "-y"])
        .args(options)
        .arg("-o")
        .arg(trace)
        .arg(inner.get_program())
        .args(inner.get_args());
    if let Some(dir) = inner.get_current_dir() {
        cmd.current_dir(dir);
    }
    for (key, value) in inner.get_envs() {
        match value {
            Some(value) => cmd.env(key, value),
            None => cmd.env_remove(key),
        };
    }
    cmd
}

/// The lines of each sync call a traced run made (each with the file it synced, in `<…>`).
fn sync_lines(trace: &std::path::Path) -> Vec<String> {
    let text = std::fs::read_to_string(trace).expect("the strace output");
    // A call another thread interrupted is printed twice: `fsync(… <unfinished ...>` and
    // `<... fsync resumed>`; only the first names the call.
    text.lines()
        .filter(|l| l.contains("fsync(") || l.contains("fdatasync("))
        .map(str::to_string)
        .collect()
}

/// Run `interview` under `strace -f -y OPTIONS`, stdin closed; it must exit 0. The trace's text.
fn traced(interview: Interview<'_>, options: &[&str], trace: &std::path::Path) -> String {
    let out = tracing(interview, options, trace)
        .stdin(Stdio::null())
        .output()
        .expect("run interview under strace");
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout:\n{}\nstderr:\n{}",
        stdout(&out),
        stderr(&out)
    );
    std::fs::read_to_string(trace).expect("the strace output")
}

/// Run `interview` under `strace -f -y -e trace=fsync,fdatasync`: the lines of each sync call
/// it or any of its children made (each with the file it synced, in `<…>`).
fn syncs_of(interview: Interview<'_>, trace: &std::path::Path) -> Vec<String> {
    traced(interview, &["-e", "trace=fsync,fdatasync"], trace);
    sync_lines(trace)
}

/// How many of `syncs` are of the session's transcript, and of the session's directory.
fn transcript_and_directory_syncs(repo: &TempRepo, syncs: &[String]) -> (usize, usize) {
    let transcript = syncs
        .iter()
        .filter(|l| l.contains("fdatasync(") && l.contains("/transcript.jsonl>"))
        .count();
    let session = repo.session_dir();
    let id = session.file_name().unwrap().to_string_lossy();
    let directory = syncs
        .iter()
        .filter(|l| l.contains(&format!("/{id}>)")))
        .count();
    (transcript, directory)
}

#[test]
fn a_replayed_session_syncs_only_what_lies_outside_the_local_tier() {
    if !prerequisite(strace_sees_the_tool(), STRACE) {
        return;
    }
    let repo = TempRepo::new();
    repo.commit_files(&["a", "b", "c"]);
    // As `scripts/bench-reflect.sh` runs it: the built-in interviewer, a replay, no document file.
    let interview = Interview::reflect(&repo, "HEAD~3")
        .preset("builtin")
        .answers(r#"{ "interview_answers": 1, "answers": {} }"#)
        .args(["--missing", "skip"])
        .yes()
        .out("-");
    let syncs = syncs_of(interview, &repo.scratch("syncs.txt"));

    assert_eq!(repo.state()["status"], "done");
    assert_eq!(repo.state()["turn"], 2, "a two-turn session");
    let answers = repo.events("answer").len();
    let decisions = repo.events("decision").len();
    let rounds = repo.events("round_end").len();
    assert!(
        answers > 0 && rounds == 1,
        "{answers} answers, {rounds} rounds"
    );

    // Nothing is typed in a replay: the session's own files are renamed into place, never
    // synced (the answers file still holds every answer; a crash is answered by replaying
    // again). What lies outside the local tier still is: here only the first run's line in
    // .git/info/exclude (the file, then its directory), since the document goes to stdout.
    // (Before these rules the same session made 96 sync calls.)
    let outside: Vec<&String> = syncs
        .iter()
        .filter(|l| !l.contains("/.interview"))
        .collect();
    assert!(
        syncs.len() <= 2 && outside.len() == syncs.len(),
        "{} sync calls for {answers} answers, {decisions} decisions and {rounds} round(s):\n{}",
        syncs.len(),
        syncs.join("\n")
    );
}

/// A replayed round writes the session's `answers.json` once, at its end, and saves the state
/// once for it, not once per line: each replacement frees a file the file system skips over
/// while it is "recently deleted" (ext4 without a journal), which made a replayed `reflect`
/// slower. What the files hold in the end is the same.
#[test]
fn a_replayed_round_writes_the_answers_and_the_state_once() {
    if !prerequisite(strace_sees_the_tool(), STRACE) {
        return;
    }
    let repo = TempRepo::new();
    let trace = repo.scratch("renames.txt");
    let text = traced(
        Interview::of_work_item(&repo)
            .runner("honest.sh")
            .answers(
                r#"{ "interview_answers": 1, "gate": "y", "answers": { "deployment_target": "2", "users": "analysts", "encoding": "utf-8" } }"#,
            )
            .yes(),
        &["-e", "trace=rename,renameat,renameat2"],
        &trace,
    );
    let onto = |name: &str| {
        text.lines()
            .filter(|l| l.contains("rename") && l.contains(&format!("/{name}\"")))
            .count()
    };
    let rounds = repo.events("round_end").len();
    let lines = repo.events("answer").len() + rounds; // each answer, and each round's gate
    assert!(rounds == 2 && lines == 5, "{rounds} rounds, {lines} lines");
    // One write per round (its end), where there was one per line before (5).
    assert!(
        onto("answers.json") <= rounds,
        "answers.json written {} times for {rounds} rounds:\n{text}",
        onto("answers.json")
    );
    let recorded = repo.recorded_answers();
    assert_eq!(recorded["gate"], "y", "{recorded}");
    assert_eq!(recorded["answers"]["users"], "analysts", "{recorded}");
    assert_eq!(recorded["answers"]["encoding"], "utf-8", "{recorded}");
    let state = repo.state();
    assert_eq!(state["status"], "done");
    assert_eq!(state["rounds"][0]["answers"].as_array().unwrap().len(), 2);
    assert_eq!(state["rounds"][1]["answers"].as_array().unwrap().len(), 1);
}

/// A replayed session never saves its state twice in a row with the same bytes (an unsynced
/// save of what `state.json` already holds would only cost a new file): under `strace`, the
/// bytes of each state written to a temporary file are compared with the last ones.
#[test]
fn a_replayed_session_never_writes_the_same_state_twice_in_a_row() {
    if !prerequisite(strace_sees_the_tool(), STRACE) {
        return;
    }
    let repo = TempRepo::new();
    repo.commit_files(&["a", "b", "c"]);
    let trace = repo.scratch("writes.txt");
    let text = traced(
        Interview::reflect(&repo, "HEAD~3")
            .preset("builtin")
            .answers(r#"{ "interview_answers": 1, "answers": {} }"#)
            .args(["--missing", "skip"])
            .yes()
            .out("-"),
        &["-e", "trace=write", "-s", "10000000"],
        &trace,
    );
    // The state's writes: to a temporary file of the session, holding its `sub_step`.
    let states: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("/.tmp-") && l.contains("sub_step"))
        .map(|l| l.split_once(", \"").map_or(l, |(_, rest)| rest))
        .collect();
    assert!(states.len() >= 8, "{} state writes:\n{text}", states.len());
    let twice: Vec<_> = states.windows(2).filter(|w| w[0] == w[1]).collect();
    assert!(
        twice.is_empty(),
        "{} of {} state writes repeat the one before, e.g.:\n{}",
        twice.len(),
        states.len(),
        twice[0][0]
    );
}

/// What a person types is on the disk before the next question is shown: each answer's
/// transcript line, and each answer's answers.json and state.json renames (a sync of the
/// session's directory). At a real terminal, under `strace`.
#[test]
fn typed_answers_are_synced_one_by_one() {
    if !prerequisite(strace_sees_the_tool(), STRACE) {
        return;
    }
    let repo = TempRepo::new();
    let trace = repo.scratch("typed-syncs.txt");
    let mut cmd = under_strace(
        Interview::of_work_item(&repo)
            .runner("honest.sh")
            .args(["--max-turns", "2"])
            .yes(),
        &trace,
    );
    // At the terminal as a person meets it (as `Interview::at_terminal` starts it).
    cmd.env("NO_COLOR", "1").env("TERM", "dumb");
    let mut session = expectrl::Session::spawn(cmd).expect("spawn at a pty");
    session.set_expect_timeout(Some(WAIT));
    let mut pty = Pty { session };
    pty.answer("N to skip entirely.", "y");
    pty.answer("Where will this service run?", "2");
    pty.answer("Who uses the export?", "ops");
    let (code, rest) = pty.finish();
    assert_eq!(code, 0, "{rest}");
    assert_eq!(repo.state()["status"], "done");
    let answers = repo.events("answer").len();
    assert_eq!(answers, 2, "{:?}", repo.events("answer"));
    let syncs = sync_lines(&trace);
    let (transcript, directory) = transcript_and_directory_syncs(&repo, &syncs);
    let rounds = repo.events("round_end").len();
    assert!(
        transcript > answers + rounds,
        "the transcript was synced {transcript} times for {answers} typed answers:\n{}",
        syncs.join("\n")
    );
    assert!(
        directory >= 2 * answers,
        "the session's directory was synced {directory} times for {answers} typed answers:\n{}",
        syncs.join("\n")
    );
}

/// Run `honest.sh` on the shared work item, answering the first round, stopped still once that
/// round is over (before the next turn is saved) and killed there with SIGKILL.
fn killed_after_the_first_round(repo: &TempRepo) {
    killed_when_paused(
        repo,
        Interview::of_work_item(repo)
            .runner("honest.sh")
            .answers(
                r#"{ "interview_answers": 1, "answers": { "deployment_target": "1", "users": "ops" } }"#,
            )
            .yes()
            .pause_at("round_end@1"),
    );
    std::fs::remove_file(repo.pause_mark()).unwrap();
}

#[test]
fn a_kill_after_a_round_ends_resumes_at_the_next_turn_without_asking_again() {
    let repo = TempRepo::new();
    killed_after_the_first_round(&repo);
    // The round's end is saved with the next turn: the state still has turn 1's last answer.
    let state = repo.state();
    assert_eq!(state["turn"], 1);
    assert_eq!(state["rounds"][0]["answers"].as_array().unwrap().len(), 2);

    // Only turn 2's question is answered: asking turn 1's again would find no answer.
    let out = Interview::resume(&repo)
        .answers(r#"{ "interview_answers": 1, "answers": { "encoding": "utf-8" } }"#)
        .yes()
        .run()
        .exits(0);
    assert!(
        !out.screen().contains("Where will this service run?"),
        "{}",
        out.screen()
    );
    let state = repo.state();
    assert_eq!(state["status"], "done");
    assert_eq!(state["rounds"][0]["answers"][0]["answer_text"], "k8s");
    assert_eq!(state["rounds"][0]["answers"][1]["answer_text"], "ops");
    assert_eq!(state["rounds"][1]["answers"][0]["answer_text"], "utf-8");
    assert_eq!(repo.answers().len(), 3, "{:?}", repo.answers());
    assert!(repo.read(DOCUMENT).contains("Export is for analysts"));
}

#[test]
fn a_state_file_a_power_loss_emptied_is_reported_by_name_and_left_alone() {
    // A power loss right after an unsynced save can leave, on a file system that does not
    // flush a file renamed over another, an empty state file or one of zero bytes.
    for (what, leftover) in [("empty", Vec::new()), ("zeroed", vec![0u8; 700])] {
        let repo = TempRepo::new();
        killed_after_the_first_round(&repo);
        let session = repo.session_dir();
        let id = session.file_name().unwrap().to_string_lossy().into_owned();
        let path = session.join("state.json");
        std::fs::write(&path, &leftover).unwrap();
        let status = repo.run(&["status", &id]);
        let resume = Interview::resume(&repo)
            .arg(&id)
            .answers(r#"{ "interview_answers": 1, "answers": { "encoding": "utf-8" } }"#)
            .yes()
            .run();
        for (command, code, err) in [
            ("status", status.status.code(), stderr(&status)),
            ("resume", Some(resume.code), resume.stderr.clone()),
        ] {
            assert_eq!(code, Some(1), "{what}, {command}: {err}");
            assert!(
                err.contains("state.json") && err.contains("corrupt or truncated"),
                "{what}, {command}: {err}"
            );
            assert!(!err.contains("panicked"), "{what}, {command}: {err}");
        }
        assert_eq!(std::fs::read(&path).unwrap(), leftover, "{what}: rewritten");
    }
}
