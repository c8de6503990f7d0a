//! Configuration values are typed where they are read: every wrong one — an enumerated value
//! outside its set, an empty `[runner] command`, a key inside a table that does not exist — exits
//! 1 naming the file it is really in, its key and what it may be, before anything is asked or a
//! session is made.

use crate::util::{Interview, TempRepo};

const ANSWERS: &str = r#"{ "interview_answers": 1, "gate": "y", "answers": {} }"#;

/// Run an interview with `text` in `file` (and nothing in the other file): it must exit 1
/// before a session is made. Returns what it printed on stderr.
fn refused(file: &str, text: &str) -> String {
    let repo = TempRepo::new();
    repo.write(file, text);
    let out = Interview::of_work_item(&repo)
        .answers(ANSWERS)
        .yes()
        .run()
        .exits(1);
    assert!(
        !repo.path().join(".interview/sessions").exists()
            || std::fs::read_dir(repo.path().join(".interview/sessions"))
                .unwrap()
                .next()
                .is_none(),
        "a session was made: {}",
        out.stderr
    );
    out.stderr
}

/// `stderr` names `file` — the one the value is in, never the other.
#[track_caller]
fn names_only(stderr: &str, file: &str) {
    assert!(stderr.contains(file), "{file}: {stderr}");
    if file == "interview.toml" {
        assert!(!stderr.contains(".interview/config.toml"), "{stderr}");
    } else {
        assert!(!stderr.contains(" interview.toml"), "{stderr}");
        assert!(!stderr.starts_with("interview.toml"), "{stderr}");
    }
}

#[test]
fn a_sandbox_mode_outside_the_four_exits_1_naming_interview_toml_the_key_and_the_modes() {
    let stderr = refused("interview.toml", "sandbox = \"x\"\n");
    names_only(&stderr, "interview.toml");
    assert!(stderr.contains("sandbox"), "{stderr}");
    for mode in ["auto", "require", "landlock-only", "off"] {
        assert!(stderr.contains(mode), "{mode}: {stderr}");
    }
}

#[test]
fn a_sandbox_mode_in_the_local_file_names_the_local_file() {
    let stderr = refused(".interview/config.toml", "sandbox = \"strict\"\n");
    names_only(&stderr, ".interview/config.toml");
    assert!(stderr.contains("sandbox"), "{stderr}");
}

#[test]
fn an_empty_runner_command_exits_1_naming_the_local_file_and_runner_command() {
    let stderr = refused(".interview/config.toml", "[runner]\ncommand = []\n");
    names_only(&stderr, ".interview/config.toml");
    assert!(stderr.contains("runner.command"), "{stderr}");
}

#[test]
fn a_runner_receipt_other_than_file_or_stdout_exits_1_naming_the_local_file_and_the_key() {
    let stderr = refused(
        ".interview/config.toml",
        "[runner]\ncommand = [\"sh\", \"runner.sh\"]\nreceipt = \"x\"\n",
    );
    names_only(&stderr, ".interview/config.toml");
    assert!(stderr.contains("runner.receipt"), "{stderr}");
    assert!(
        stderr.contains("file") && stderr.contains("stdout"),
        "{stderr}"
    );
}

#[test]
fn an_on_change_outside_its_three_values_names_them() {
    let stderr = refused("interview.toml", "on_change = \"maybe\"\n");
    names_only(&stderr, "interview.toml");
    for value in ["on_change", "fail", "ask", "warn"] {
        assert!(stderr.contains(value), "{value}: {stderr}");
    }
}

#[test]
fn a_runner_command_line_that_does_not_split_names_the_file_not_a_flag() {
    let stderr = refused(".interview/config.toml", "runner = \"sh 'unclosed\"\n");
    names_only(&stderr, ".interview/config.toml");
    assert!(stderr.contains("runner"), "{stderr}");
    assert!(
        !stderr.contains("--runner \""),
        "no flag was given: {stderr}"
    );
}

#[test]
fn an_empty_runner_exits_1_naming_the_file_and_the_key() {
    let stderr = refused(".interview/config.toml", "runner = \"\"\n");
    names_only(&stderr, ".interview/config.toml");
    assert!(stderr.contains("runner: "), "{stderr}");
}

#[test]
fn an_unknown_key_in_the_runner_table_is_named_with_its_table() {
    let stderr = refused(
        ".interview/config.toml",
        "[runner]\ncommand = [\"sh\"]\nrecipe = \"stdout\"\n",
    );
    names_only(&stderr, ".interview/config.toml");
    assert!(stderr.contains("runner.recipe"), "{stderr}");
}

#[test]
fn a_runner_table_without_a_command_says_the_command_is_missing() {
    let stderr = refused(".interview/config.toml", "[runner]\nreceipt = \"file\"\n");
    names_only(&stderr, ".interview/config.toml");
    assert!(stderr.contains("`command`"), "{stderr}");
}

#[test]
fn an_unknown_key_in_the_intent_table_is_named_with_its_table() {
    let stderr = refused("interview.toml", "[intent]\nglob = [\"docs/<id>.md\"]\n");
    names_only(&stderr, "interview.toml");
    assert!(stderr.contains("intent.glob"), "{stderr}");
}
