//! The agent's activity on the progress line with the real CLIs (`INTERVIEW_E2E=1`): a model
//! that calls read-only tools before it answers, each answer a little slow, at a real
//! pseudo-terminal. `INTERVIEW_E2E_RECORD=DIR` keeps each turn's `runner.log` there (how the
//! samples in fixtures/cli-outputs/*-stream.jsonl were recorded).

use std::time::Duration;

use expectrl::{Expect, Regex};
use serde_json::{Value, json};

use super::*;

/// How long the mock takes over each answer: long enough for a redraw of the progress line.
const THINKING: Duration = Duration::from_millis(900);

/// Turn 1 calls `calls` first, then asks; turn 2 (the answer in its brief) finishes.
fn calling(calls: Vec<(String, Value)>, ask: Value, done: Value) -> MockModel {
    MockModel::start_slow(
        vec![
            Rule {
                when: Some("answered: ".into()),
                reply: Reply::Receipt(done),
            },
            Rule {
                when: None,
                reply: Reply::CallsThen(calls, ask),
            },
        ],
        THINKING,
    )
}

/// `interview intent 7 --runner PRESET` at a pseudo-terminal with the CLI on PATH and `env`;
/// waits for each of `words` on the progress line, answers, and returns all that was shown.
fn watch(
    bench: &Bench,
    cli: &RealCli,
    env: &[(&str, String)],
    flags: &[&str],
    words: &[&str],
) -> String {
    let bin_dir = install(cli);
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let home = bench.home.display().to_string();
    let mut vars: Vec<(&str, String)> = vec![
        ("PATH", path),
        ("HOME", home.clone()),
        ("XDG_CONFIG_HOME", format!("{home}/.config")),
        ("XDG_CACHE_HOME", format!("{home}/.cache")),
        ("TERM", "dumb".into()),
    ];
    vars.extend(env.iter().cloned());
    let vars: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let mut args = vec![
        "intent",
        "7",
        "--from",
        "item.md",
        "--runner",
        cli.name,
        "--turn-timeout",
        "120",
        "--retries",
        "1",
    ];
    args.extend(flags);
    let mut pty = Pty::spawn(&bench.repo, &args, &vars);
    let mut shown = String::new();
    let mut take = |pty: &mut Pty, pattern: &str, within: u64| {
        pty.session
            .set_expect_timeout(Some(Duration::from_secs(within)));
        match pty.session.expect(Regex(pattern)) {
            Ok(found) => {
                shown.push_str(&String::from_utf8_lossy(found.before()));
                shown.push_str(&String::from_utf8_lossy(found.get(0).unwrap_or_default()));
            }
            Err(e) => panic!(
                "{}: expected /{pattern}/ on the terminal: {e}\nshown so far: {shown:?}\n{}",
                cli.name,
                record(bench, cli).unwrap_or_default()
            ),
        }
    };
    for word in words {
        take(&mut pty, word, 90);
    }
    take(&mut pty, "Press Enter or type Y", 90);
    pty.send_line("y");
    take(&mut pty, r"Where will this service run\?", 30);
    pty.send_line("2");
    take(&mut pty, "Choose A", 120);
    pty.send_line("A");
    let (code, rest) = pty.finish();
    shown.push_str(&rest);
    let log = record(bench, cli);
    assert_eq!(
        code,
        0,
        "{}: {shown}\n{}",
        cli.name,
        log.unwrap_or_default()
    );
    shown
}

/// Turn 1's `runner.log`; kept in `INTERVIEW_E2E_RECORD` when that is set.
fn record(bench: &Bench, cli: &RealCli) -> Option<String> {
    let log = bench.repo.session_dir().join("turns/001/runner.log");
    let text = std::fs::read_to_string(&log).ok()?;
    if let Some(dir) = std::env::var_os("INTERVIEW_E2E_RECORD") {
        let to = std::path::Path::new(&dir).join(format!("{}-{}.log", cli.name, cli.version));
        std::fs::write(to, &text).unwrap();
    }
    Some(text)
}

/// What the progress line showed never carried an escape byte or the repository's absolute
/// path, and the screen ends clean (no progress text on the prompt's line).
fn assert_clean(shown: &str, bench: &Bench) {
    assert!(!shown.contains('\x1b'), "an escape byte: {shown:?}");
    let root = bench.repo.path().display().to_string();
    assert!(
        !shown.contains(&format!("reading {root}")),
        "an absolute path: {shown:?}"
    );
}

#[test]
fn claude_shows_what_it_reads_and_searches_while_it_works() {
    e2e!(CLAUDE);
    let bench = Bench::new();
    let readme = bench.repo.path().join("README.md").display().to_string();
    let model = calling(
        vec![
            ("Read".into(), json!({"file_path": readme})),
            ("Grep".into(), json!({"pattern": "ProjectList"})),
        ],
        wire(ASK),
        wire(DONE),
    );
    let shown = watch(
        &bench,
        &CLAUDE,
        &claude_env(&model),
        &[],
        &[
            "thinking",
            "reading README.md",
            "searching for `ProjectList`",
        ],
    );
    assert_clean(&shown, &bench);
}

#[test]
fn codex_shows_the_commands_it_runs_while_it_works() {
    e2e!(CODEX);
    let bench = Bench::new();
    let model = calling(
        vec![
            ("exec_command".into(), json!({"cmd": "rg -n ProjectList"})),
            ("exec_command".into(), json!({"cmd": "cat README.md"})),
        ],
        wire(ASK),
        wire(DONE),
    );
    let shown = watch(
        &bench,
        &CODEX,
        &[("CODEX_HOME", codex_home(&bench, &model))],
        // Under the sandbox (its commands run with Codex's network block under our rules).
        &[],
        &[
            "thinking",
            "running rg -n ProjectList",
            "running cat README.md",
        ],
    );

    assert_clean(&shown, &bench);
}

#[test]
fn gemini_shows_what_it_reads_and_searches_while_it_works() {
    e2e!(GEMINI);
    let bench = Bench::new();
    let readme = bench.repo.path().join("README.md").display().to_string();
    let ask: Value = serde_json::from_str(ASK).unwrap();
    let done: Value = serde_json::from_str(DONE).unwrap();
    let model = calling(
        vec![
            ("read_file".into(), json!({"file_path": readme})),
            ("grep_search".into(), json!({"pattern": "ProjectList"})),
        ],
        ask,
        done,
    );
    std::fs::create_dir_all(bench.home.join(".gemini")).unwrap();
    std::fs::write(
        bench.home.join(".gemini/settings.json"),
        r#"{"security":{"auth":{"selectedType":"gemini-api-key"}},"privacy":{"usageStatisticsEnabled":false}}"#,
    )
    .unwrap();
    std::fs::write(
        bench.home.join(".gemini/.env"),
        format!(
            "GOOGLE_GEMINI_BASE_URL={}\nGEMINI_API_KEY=dummy\n",
            model.url()
        ),
    )
    .unwrap();
    let shown = watch(
        &bench,
        &GEMINI,
        &[],
        &[],
        &["reading README.md", "searching for `ProjectList`"],
    );
    assert_clean(&shown, &bench);
}
