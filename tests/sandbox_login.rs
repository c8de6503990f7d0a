//! A runner cannot swap the person's agent-CLI login: a login file the CLI (or a command a
//! prompt injection made it run) changed in its throwaway view is never written to the
//! person's file. It is kept for the rest of the session only — the next turn is shown it —
//! removed when the session's run ends, and the person is told once.
//!
//! Run as root, tests/sandbox.rs runs this module again as `nobody`.

use std::path::{Path, PathBuf};

use crate::util::{Interview, TempRepo, fixture_as};

/// The person's Codex login: the red team's victim, whose account fields the swap keeps.
const CODEX_LOGIN: &str = r#"{"OPENAI_API_KEY":null,"tokens":{"id_token":"eyJhbGciOiJub25lIn0.eyJzdWIiOiJhdXRoMHx2aWN0aW0ifQ.c2ln","access_token":"PERSON-access","refresh_token":"PERSON-refresh","account_id":"victim"},"last_refresh":"2026-12-01T00:00:00Z"}"#;

/// The person's Claude Code login, on plan "max".
const CLAUDE_LOGIN: &str = r#"{"claudeAiOauth":{"accessToken":"PERSON-access","refreshToken":"PERSON-refresh","expiresAt":1767225600000,"scopes":["user:inference","user:profile"],"subscriptionType":"max"}}"#;

/// What a two-turn session of the stand-in `cli` (`swaps-login.sh`, a command line starting
/// `cli`) that swaps the login in `file` each turn left: the person's file after it, what turn
/// 2 was shown, what the tool said, and whether the session still holds a copy.
struct Swapped {
    persons_file: Vec<u8>,
    /// Its inode, mode and modification time are those from before the session.
    untouched: bool,
    shown_in_turn_2: String,
    /// What turn 2 read of the session's own copy, beside its turns.
    read_in_turn_2: String,
    said: String,
    copy_left: bool,
}

fn swap(cli: &str, state_var: &str, state_dir: &str, file: &str, login: &str) -> Swapped {
    assert!(
        crate::sandbox::offer().landlock && crate::sandbox::offer().namespaces,
        "this test needs Landlock with user namespaces (see `interview runners`)"
    );
    let repo = TempRepo::new();
    let dir = repo.home().join(state_dir);
    std::fs::create_dir(&dir).unwrap();
    let persons: PathBuf = dir.join(file);
    std::fs::write(&persons, login).unwrap();
    let stat = |p: &Path| {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata(p).unwrap();
        (m.ino(), m.mode(), m.mtime(), m.mtime_nsec())
    };
    let before = stat(&persons);
    let (_bin_dir, path) = fixture_as("sandbox/swaps-login.sh", cli);
    let out = Interview::of_work_item(&repo)
        .preset(&format!("{cli} --stand-in"))
        .answers(
            r#"{ "interview_answers": 1, "gate": "y", "answers": { "deployment_target": "2" } }"#,
        )
        .yes()
        .out("-")
        .args(["--retries", "0", "--max-turns", "2"])
        .env("PATH", path)
        .env(state_var, &dir)
        .runner_env("TEST_LOGIN", std::fs::canonicalize(&persons).unwrap())
        .run();
    let log = |turn: u32| {
        std::fs::read_to_string(
            repo.session_dir()
                .join(format!("turns/00{turn}/runner.log")),
        )
        .unwrap_or_default()
    };
    assert!(
        log(1).contains("swapped") && log(2).contains("swapped"),
        "the stand-in did not swap the login in both turns: {}\n{}\n{}",
        log(1),
        log(2),
        out.stderr
    );
    Swapped {
        persons_file: std::fs::read(&persons).unwrap(),
        untouched: stat(&persons) == before,
        shown_in_turn_2: log(2)
            .lines()
            .find_map(|l| l.strip_prefix("shown: "))
            .unwrap_or_default()
            .to_string(),
        read_in_turn_2: log(2)
            .lines()
            .find_map(|l| l.strip_prefix("read from the session:"))
            .unwrap_or("(nothing said)")
            .to_string(),
        said: out.stderr.clone(),
        copy_left: repo.session_dir().join("logins").exists(),
    }
}

/// The red team's finding 1, for Codex and for Claude Code: the attacker's tokens under the
/// person's account fields never reach the person's file; the next turn of the same session
/// works with the refreshed login; nothing of it is left after the session; the person is told
/// once what happened and what to do.
#[test]
fn a_swapped_login_is_kept_for_the_session_only_and_never_reaches_the_persons_file() {
    for (cli, var, dir, file, login, name, fix) in [
        (
            "codex",
            "CODEX_HOME",
            ".codex",
            "auth.json",
            CODEX_LOGIN,
            "Codex",
            "run `codex login`",
        ),
        (
            "claude",
            "CLAUDE_CONFIG_DIR",
            ".claude",
            ".credentials.json",
            CLAUDE_LOGIN,
            "Claude Code",
            "run `claude /login`",
        ),
    ] {
        let swapped = swap(cli, var, dir, file, login);
        let said = &swapped.said;
        assert_eq!(
            String::from_utf8_lossy(&swapped.persons_file),
            login,
            "{cli}: the person's login changed\n{said}"
        );
        assert!(
            swapped.untouched,
            "{cli}: the person's login file was replaced\n{said}"
        );
        assert!(
            swapped.shown_in_turn_2.contains("ATTACKER-turn-1")
                && !swapped.shown_in_turn_2.contains("PERSON-"),
            "{cli}: turn 2 was not shown the login turn 1 left: {}\n{said}",
            swapped.shown_in_turn_2
        );
        assert_eq!(
            swapped.read_in_turn_2, " ",
            "{cli}: a runner read the session's copy"
        );
        assert!(
            !swapped.copy_left,
            "{cli}: the session kept its copy\n{said}"
        );
        let told: Vec<&str> = said
            .lines()
            .filter(|l| l.contains("refreshed its login"))
            .collect();
        assert_eq!(told.len(), 1, "{cli}: {said}");
        for words in [
            format!("{name} refreshed its login during this interview"),
            format!("not written to ~/{dir}/{file}"),
            fix.to_string(),
        ] {
            assert!(
                told[0].contains(&words),
                "{cli}: {words:?} not in {}",
                told[0]
            );
        }
    }
}
