//! Replaying recorded answers (`--answers FILE`) without a terminal, as CI does.

use crate::util::*;

fn answers_fixture(name: &str) -> String {
    fixtures().join("answers").join(name).display().to_string()
}

/// `intent 7` with the honest runner and stdin closed, replaying `file`, plus `extra`.
fn replay(repo: &TempRepo, file: &str, extra: &[&str]) -> std::process::Output {
    repo.write(
        "item.md",
        "# Export to CSV\n\nUsers want their data as CSV.\n",
    );
    let honest = runner("honest.sh");
    let mut args = vec![
        "intent",
        "7",
        "--from",
        "item.md",
        "--runner",
        &honest,
        "--answers",
        file,
    ];
    args.extend_from_slice(extra);
    repo.run(&args)
}

fn transcript(repo: &TempRepo) -> Vec<serde_json::Value> {
    std::fs::read_to_string(repo.session_dir().join("transcript.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// The transcript's answers: (question_id, answer_text, skipped).
fn answers(repo: &TempRepo) -> Vec<(String, String, bool)> {
    transcript(repo)
        .iter()
        .filter(|e| e["event"] == "answer")
        .map(|e| {
            let a = &e["answer"];
            (
                a["question_id"].as_str().unwrap_or_default().into(),
                a["answer_text"].as_str().unwrap_or_default().into(),
                a["skipped"].as_bool().unwrap_or_default(),
            )
        })
        .collect()
}

fn a(topic: &str, text: &str, skipped: bool) -> (String, String, bool) {
    (topic.into(), text.into(), skipped)
}

#[test]
fn an_answers_file_replays_the_interview_without_a_terminal() {
    let repo = TempRepo::new();
    let out = replay(&repo, &answers_fixture("honest.json"), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        answers(&repo),
        vec![
            a("deployment_target", "vm", false),
            a("users", "analysts", false),
            a("encoding", "", true),
        ]
    );
    assert!(repo.path().join("docs/interviews/intent-7.md").is_file());
}

#[test]
fn replayed_prompts_print_nothing_to_wait_on() {
    let repo = TempRepo::new();
    let out = replay(&repo, &answers_fixture("honest.json"), &[]);
    let screen = stdout(&out);
    assert!(!screen.contains("Press Enter or type Y"), "{screen}");
    assert!(!screen.contains("Choose A, B"), "{screen}");
}

#[test]
fn a_replayed_gate_n_skips_the_round() {
    let repo = TempRepo::new();
    let out = replay(&repo, &answers_fixture("skip-gate.json"), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(answers(&repo).is_empty());
    let end = transcript(&repo)
        .into_iter()
        .find(|e| e["event"] == "round_end")
        .expect("a round");
    assert_eq!(
        end["outcome"]["skip_telemetry"]["skip_reason"],
        "user_skip_entire"
    );
}

#[test]
fn a_missing_answer_exits_5_naming_the_topic_question_and_line_to_add() {
    let repo = TempRepo::new();
    let out = replay(&repo, &answers_fixture("honest-missing.json"), &[]);
    assert_eq!(out.status.code(), Some(5));
    let err = stderr(&out);
    assert!(err.contains("`users`"), "{err}");
    assert!(err.contains("Who uses the export?"), "{err}");
    assert!(err.contains("\"users\": "), "{err}");
    assert!(err.contains("--missing skip"), "{err}");
    // What was replayed before the gap is kept.
    assert_eq!(answers(&repo), vec![a("deployment_target", "k8s", false)]);
}

#[test]
fn missing_skip_skips_questions_the_file_does_not_answer() {
    let repo = TempRepo::new();
    let out = replay(
        &repo,
        &answers_fixture("honest-missing.json"),
        &["--missing", "skip"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        answers(&repo),
        vec![
            a("deployment_target", "k8s", false),
            a("users", "", true),
            a("encoding", "", true),
        ]
    );
}

#[test]
fn answers_for_topics_never_asked_are_warned_about() {
    let repo = TempRepo::new();
    let out = replay(&repo, &answers_fixture("honest-stale.json"), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("old_topic"), "{}", stderr(&out));
}

#[test]
fn a_missing_decision_exits_5_naming_it() {
    let repo = TempRepo::new();
    let out = replay(&repo, &answers_fixture("no-decisions.json"), &[]);
    assert_eq!(out.status.code(), Some(5));
    assert!(stderr(&out).contains("consent"), "{}", stderr(&out));
}

#[test]
fn a_malformed_answers_file_exits_2_naming_file_and_json_path() {
    let repo = TempRepo::new();
    let file = answers_fixture("bad-type.json");
    let out = replay(&repo, &file, &[]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains(&format!("{file}: $.answers.users: ")), "{err}");
}

#[test]
fn a_recorded_session_replays_to_the_same_answers() {
    // Record: a person answers at a terminal.
    let typed = TempRepo::new();
    typed.write(
        "item.md",
        "# Export to CSV\n\nUsers want their data as CSV.\n",
    );
    let honest = runner("honest.sh");
    let mut pty = Pty::spawn(
        &typed,
        &[
            "intent",
            "7",
            "--from",
            "item.md",
            "--runner",
            &honest,
            "--on-change",
            "warn",
        ],
        &[],
    );
    for (prompt, line) in [
        ("N to skip entirely.", ""),
        ("Where will this service run?", "2"),
        ("Who uses the export?", "  analysts "),
        ("N to skip entirely.", "y"),
        ("Which encodings must be supported?", "s"),
    ] {
        pty.expect(prompt);
        pty.expect("> ");
        pty.send_line(line);
    }
    pty.expect("Choose A, B or C: ");
    pty.send_line("a");
    let (code, screen) = pty.finish();
    assert_eq!(code, 0, "{screen}");
    let recorded = std::fs::read_to_string(typed.session_dir().join("answers.json")).unwrap();
    assert!(
        recorded.contains("\"deployment_target\": \"2\""),
        "{recorded}"
    );

    // Replay it in a fresh clone-like repository, as CI would.
    let ci = TempRepo::new();
    ci.write("ci/answers.json", &recorded);
    let path = ci.path().join("ci/answers.json").display().to_string();
    let out = replay(&ci, &path, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(answers(&ci), answers(&typed));
}

#[test]
fn replayed_rounds_are_marked_replayed_in_the_telemetry() {
    let repo = TempRepo::new();
    let out = replay(&repo, &answers_fixture("honest.json"), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read_to_string(repo.path().join(".interview/telemetry.jsonl")).unwrap();
    let rounds: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rounds.len(), 2);
    assert!(rounds.iter().all(|r| r["replayed"] == true), "{text}");
}
