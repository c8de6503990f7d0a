//! `interview runners --json` tells the truth about each preset's state: in every mode this
//! machine can give the sandbox, the paths it lists as `writable_state` are exactly those where a
//! runner's write is kept, `throwaway_state` those it may write but that keep nothing, and
//! `writable_state` is null only where every write gets through. Checked with a stand-in for
//! each CLI that tries a write into every state path any preset has.
//!
//! Run as root, tests/sandbox.rs runs this module again as `nobody`.

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde_json::Value;

use crate::util::{Interview, TempRepo, fixture_as, stdout};

/// Every state path of every preset, under HOME (`CODEX_HOME` and `CLAUDE_CONFIG_DIR` point
/// at theirs); the first [`FILES`] are files, the rest directories.
const STATE: &[&str] = &[
    ".claude.json",
    ".claude.json.backup",
    ".claude",
    ".codex",
    ".gemini",
    ".aider",
    ".cache",
    ".npm",
];
const FILES: usize = 2;

/// The sandbox's modes here: all this machine offers, and with a part of it simulated away.
const MODES: &[(&str, &[(&str, &str)])] = &[
    ("everything offered", &[]),
    (
        "Landlock alone",
        &[("INTERVIEW_TEST_SANDBOX_NO_NAMESPACES", "1")],
    ),
    (
        "no Landlock",
        &[("INTERVIEW_TEST_SANDBOX_NO_LANDLOCK", "1")],
    ),
];

/// A repository whose HOME holds every state path, and the environment that names them.
fn home_with_every_state() -> (TempRepo, Vec<(&'static str, String)>) {
    let repo = TempRepo::new();
    for (i, name) in STATE.iter().enumerate() {
        let path = repo.home().join(name);
        if i < FILES {
            std::fs::write(&path, "{}\n").unwrap();
        } else {
            std::fs::create_dir(&path).unwrap();
        }
    }
    let home = repo.home().to_path_buf();
    let env = vec![
        ("CODEX_HOME", home.join(".codex").display().to_string()),
        (
            "CLAUDE_CONFIG_DIR",
            home.join(".claude").display().to_string(),
        ),
    ];
    (repo, env)
}

fn state_paths(repo: &TempRepo) -> Vec<PathBuf> {
    STATE
        .iter()
        .map(|n| std::fs::canonicalize(repo.home().join(n)).unwrap())
        .collect()
}

/// What `interview runners --json` says of `preset`'s state: (writable, throwaway); writable
/// `None` when it says null.
fn listed(
    repo: &TempRepo,
    env: &[(&str, String)],
    mode: &[(&str, &str)],
    preset: &str,
) -> (Option<BTreeSet<PathBuf>>, BTreeSet<PathBuf>) {
    // No CLI on PATH: the listing would run each one's `--version`, outside any sandbox.
    let out = repo
        .cmd()
        .args(["runners", "--json"])
        .env("PATH", "/nonexistent")
        .envs(env.iter().map(|(k, v)| (k, v)))
        .envs(mode.iter().copied())
        .output()
        .expect("interview runners --json");
    let json: Value = serde_json::from_str(&stdout(&out)).expect("runners --json prints JSON");
    let entry = json["runners"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == preset)
        .unwrap_or_else(|| panic!("{preset} is not listed: {json:#}"));
    let paths = |v: &Value| -> BTreeSet<PathBuf> {
        v.as_array()
            .unwrap_or_else(|| panic!("{preset}: not a list: {v}"))
            .iter()
            .map(|p| PathBuf::from(p.as_str().unwrap()))
            .collect()
    };
    let writable = match &entry["writable_state"] {
        Value::Null => None,
        list => Some(paths(list)),
    };
    let throwaway = match &entry["throwaway_state"] {
        Value::Null => BTreeSet::new(),
        list => paths(list),
    };
    (writable, throwaway)
}

/// Run one turn of `preset` with the stand-in, and see which state writes it made and which of
/// those were kept: (kept, written but gone).
fn granted(
    repo: &TempRepo,
    env: &[(&str, String)],
    mode: &[(&str, &str)],
    preset: &str,
) -> (BTreeSet<PathBuf>, BTreeSet<PathBuf>) {
    let (_bin_dir, path) = fixture_as("sandbox/writes-state.sh", preset);
    let all = state_paths(repo);
    let joined: Vec<String> = all.iter().map(|p| p.display().to_string()).collect();
    let before: Vec<String> = STATE
        .iter()
        .take(FILES)
        .map(|n| std::fs::read_to_string(repo.home().join(n)).unwrap())
        .collect();
    let interview = Interview::of_work_item(repo)
        .preset(preset)
        .answers(r#"{ "interview_answers": 1, "answers": {} }"#)
        .yes()
        .args(["--retries", "0"])
        .env("PATH", path)
        .runner_env("TEST_STATE_PATHS", joined.join("\n"));
    let out = env.iter().fold(interview, |run, (k, v)| run.env(k, v));
    let out = mode.iter().fold(out, |run, (k, v)| run.env(k, v)).run();
    let log = repo.session_file("turns/001/runner.log");
    let (mut kept, mut gone) = (BTreeSet::new(), BTreeSet::new());
    for (i, path) in all.iter().enumerate() {
        let shown = path.display().to_string();
        let wrote = log.lines().any(|l| l == format!("wrote {shown}"));
        let refused = log.lines().any(|l| l == format!("refused {shown}"));
        assert!(
            wrote != refused,
            "{preset}: the stand-in did not try {shown}: {log}\n{}",
            out.stderr
        );
        let stays = if i < FILES {
            std::fs::read_to_string(path).unwrap() != before[i]
        } else {
            path.join("state-probe").exists()
        };
        assert!(!stays || wrote, "{preset}: {shown} changed though refused");
        if stays {
            kept.insert(path.clone());
        } else if wrote {
            gone.insert(path.clone());
        }
    }
    (kept, gone)
}

#[test]
fn the_state_runners_lists_is_the_state_the_sandbox_grants_each_preset() {
    for (mode_name, mode) in MODES {
        for preset in ["claude", "codex", "gemini", "aider"] {
            let (repo, env) = home_with_every_state();
            let (writable, throwaway) = listed(&repo, &env, mode, preset);
            let (kept, gone) = granted(&repo, &env, mode, preset);
            let what = format!("{preset}, {mode_name}");
            eprintln!("{what}: kept {kept:?}, throwaway {gone:?}");
            match writable {
                Some(writable) => assert_eq!(writable, kept, "{what}: kept"),
                None => assert_eq!(
                    kept,
                    state_paths(&repo).into_iter().collect(),
                    "{what}: null, yet a write was refused"
                ),
            }
            // Without a mount namespace the listing also names the CLI's configuration files
            // inside its state directories, put back after the turn (sandbox_plants.rs).
            let probed: BTreeSet<PathBuf> = state_paths(&repo).into_iter().collect();
            let throwaway: BTreeSet<PathBuf> = throwaway.intersection(&probed).cloned().collect();
            assert_eq!(throwaway, gone, "{what}: throwaway");
        }
    }
}

/// What the listing says without running anything: where the sandbox has its own mount
/// namespace no preset keeps anything of its state — each state path is a throwaway view — and
/// `~/.cache` is not Codex's to write there.
#[test]
fn runners_says_every_presets_state_is_a_throwaway_view_under_the_namespaces() {
    assert!(
        crate::sandbox::offer().landlock && crate::sandbox::offer().namespaces,
        "this test needs Landlock with user namespaces (see `interview runners`)"
    );
    let (repo, env) = home_with_every_state();
    let (writable, throwaway) = listed(&repo, &env, &[], "codex");
    let home = std::fs::canonicalize(repo.home()).unwrap();
    assert_eq!(writable, Some(BTreeSet::new()));
    assert_eq!(throwaway, BTreeSet::from([home.join(".codex")]));
    let (writable, throwaway) = listed(&repo, &env, &[], "claude");
    assert_eq!(writable, Some(BTreeSet::new()));
    assert!(throwaway.contains(&home.join(".cache")), "{throwaway:?}");
    assert!(
        throwaway.contains(&home.join(".claude.json")),
        "{throwaway:?}"
    );
}

/// Every file under `root` with its content (links as their target), to compare a home before
/// and after a turn.
fn contents(root: &std::path::Path) -> std::collections::BTreeMap<PathBuf, String> {
    walkdir::WalkDir::new(root)
        .follow_links(false)
        .into_iter()
        .flatten()
        .filter(|e| !e.file_type().is_dir())
        .map(|e| {
            let text = if e.file_type().is_symlink() {
                format!("link {:?}", std::fs::read_link(e.path()).unwrap())
            } else {
                std::fs::read_to_string(e.path()).unwrap_or_default()
            };
            (e.path().to_path_buf(), text)
        })
        .collect()
}

/// A prompt injection makes Claude Code plant hooks, an `apiKeyHelper` and an endpoint in its
/// settings, an MCP server, a command, and files in pre-commit's and npx's caches: none of it
/// survives the turn. Nor does the login it refreshed meanwhile reach the person's file
/// (tests/sandbox_login.rs): the person is told it was used for the interview only.
#[test]
fn nothing_planted_in_a_clis_state_survives_not_even_its_refreshed_login() {
    assert!(
        crate::sandbox::offer().landlock && crate::sandbox::offer().namespaces,
        "this test needs Landlock with user namespaces (see `interview runners`)"
    );
    let (repo, env) = home_with_every_state();
    let credentials = repo.home().join(".claude/.credentials.json");
    std::fs::write(&credentials, claude_login("old", "max")).unwrap();
    let home = std::fs::canonicalize(repo.home()).unwrap();
    let state = |home: &std::path::Path| {
        STATE
            .iter()
            .flat_map(|name| contents(&home.join(name)))
            .collect::<std::collections::BTreeMap<_, _>>()
    };
    let before = state(&home);
    let said = turn_of_a_planting_claude(&repo, &env, claude_login("refreshed", "max"));
    assert_eq!(state(&home), before, "{said}");
    assert!(
        said.contains("Claude Code refreshed its login during this interview"),
        "{said}"
    );
}

/// One turn of the stand-in for Claude Code taken over by a prompt injection
/// (`plants-state.sh`), which writes `login` as its login: what the tool said on stderr.
fn turn_of_a_planting_claude(repo: &TempRepo, env: &[(&str, String)], login: String) -> String {
    let (_bin_dir, path) = fixture_as("sandbox/plants-state.sh", "claude");
    let interview = Interview::of_work_item(repo)
        .preset("claude")
        .answers(r#"{ "interview_answers": 1, "answers": {} }"#)
        .yes()
        .args(["--retries", "0"])
        .env("PATH", path)
        .runner_env("TEST_NEW_CREDENTIALS", login);
    let out = env
        .iter()
        .fold(interview, |run, (k, v)| run.env(k, v))
        .run();
    let log = repo.session_file("turns/001/runner.log");
    assert!(
        log.contains("planted"),
        "the stand-in did not run: {log}\n{}",
        out.stderr
    );
    out.stderr
}

/// A Claude Code login as `~/.claude/.credentials.json` holds it, with tokens `token`, on `plan`.
fn claude_login(token: &str, plan: &str) -> String {
    serde_json::json!({"claudeAiOauth": {
        "accessToken": format!("sk-ant-oat01-{token}"),
        "refreshToken": format!("sk-ant-ort01-{token}"),
        "expiresAt": 1767225600000u64,
        "scopes": ["user:inference", "user:profile"],
        "subscriptionType": plan,
    }})
    .to_string()
}

/// The stand-in for Claude Code writes `after` as its login, where `before` was (or nothing):
/// what the person's login file holds after the turn, and what the tool said.
fn login_after_a_turn(before: Option<String>, after: String) -> (Option<String>, String) {
    assert!(
        crate::sandbox::offer().landlock && crate::sandbox::offer().namespaces,
        "this test needs Landlock with user namespaces (see `interview runners`)"
    );
    let (repo, env) = home_with_every_state();
    let credentials = repo.home().join(".claude/.credentials.json");
    if let Some(before) = before {
        std::fs::write(&credentials, before).unwrap();
    }
    let said = turn_of_a_planting_claude(&repo, &env, after);
    (std::fs::read_to_string(&credentials).ok(), said)
}

/// A login created where the person had none does not reach the person's home either.
#[test]
fn a_login_where_there_was_none_is_not_written_to_the_persons_home() {
    let (kept, said) = login_after_a_turn(None, claude_login("theirs", "max"));
    assert_eq!(kept, None, "{said}");
}
