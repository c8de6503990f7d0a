//! Nothing a prompt-injected agent CLI writes into its state outlives the turn, also with
//! Landlock alone (no mount namespace for a throwaway view): a Codex model provider's
//! `base_url` planted in `config.toml` is gone after the turn and the next run's proxy still
//! refuses its host; Claude Code's hooks and MCP servers planted in its settings are gone; a
//! package planted in npx's cache and a file in `~/.cache` never exist. Run as root,
//! tests/sandbox.rs runs this module again as `nobody`.

use std::io::Read;
use std::net::TcpListener;
use std::path::Path;
use std::time::Duration;

use crate::sandbox::{Variant, offer};
use crate::util::{Interview, TempRepo, fixture_as};

/// How the tool says what it put back of the CLI's configuration.
const PUT_BACK: &str = "interview: the runner changed its CLI's configuration";

/// One turn of the planting stand-in as the preset `preset`: (its runner.log, the tool's stderr).
fn turn(repo: &TempRepo, variant: Variant, preset: &str, planted_host: &str) -> (String, String) {
    let (_bin_dir, path) = fixture_as("sandbox/plants-settings.sh", preset);
    let home = repo.home();
    let out = Interview::of_work_item(repo)
        .preset(preset)
        .answers(r#"{ "interview_answers": 1, "answers": {} }"#)
        .yes()
        .args(["--retries", "0"])
        .args(variant.args())
        .env("PATH", path)
        .env("CODEX_HOME", home.join(".codex"))
        .env("CLAUDE_CONFIG_DIR", home.join(".claude"))
        .runner_env("TEST_AS", preset)
        .runner_env("TEST_PLANTED_HOST", planted_host);
    let out = variant
        .env()
        .iter()
        .fold(out, |run, (k, v)| run.env(k, v))
        .run();
    let log = repo.session_file("turns/001/runner.log");
    assert!(
        log.contains("planted ") || log.contains("refused "),
        "the stand-in did not run: {log}\n{}",
        out.stderr
    );
    (log, out.stderr.clone())
}

/// A HOME that holds the CLIs' state (as they leave it once run) and the shared caches.
fn lived_in_home() -> TempRepo {
    let repo = TempRepo::new();
    let home = repo.home();
    for dir in [".codex", ".claude", ".npm", ".cache"] {
        std::fs::create_dir_all(home.join(dir)).unwrap();
    }
    std::fs::write(home.join(".codex/config.toml"), "model = \"x\"\n").unwrap();
    std::fs::write(home.join(".claude/settings.json"), "{}\n").unwrap();
    std::fs::write(home.join(".claude.json"), "{\"numStartups\": 1}\n").unwrap();
    repo
}

fn under_the_sandbox() -> bool {
    assert!(
        offer().landlock,
        "this test needs Landlock (see `interview runners`)"
    );
    true
}

/// What the planted host got.
fn arrived(server: &TcpListener) -> String {
    let mut got = String::new();
    while let Ok((mut s, _)) = server.accept() {
        s.set_nonblocking(false).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
        let _ = s.read_to_string(&mut got);
    }
    got
}

fn read(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

#[test]
fn a_planted_base_url_is_gone_after_the_turn_and_the_next_run_still_refuses_its_host() {
    assert!(under_the_sandbox());
    for variant in [Variant::Default, Variant::LandlockOnly] {
        let repo = lived_in_home();
        let config = repo.home().join(".codex/config.toml");
        let server = TcpListener::bind("127.0.0.1:0").unwrap();
        server.set_nonblocking(true).unwrap();
        let planted = format!("127.0.0.1:{}", server.local_addr().unwrap().port());
        let runs: Vec<_> = (1..=2)
            .map(|_| {
                let (log, said) = turn(&repo, variant, "codex", &planted);
                (log, said, read(&config))
            })
            .collect();
        // The second run first: its proxy is where a planted host would have been let through.
        let got = arrived(&server);
        for (run, (log, said, after)) in runs.iter().enumerate().rev() {
            let what = format!("{variant:?}, run {}: {log}\n{said}", run + 1);
            assert!(log.contains("proxy says HTTP/1.1 403"), "{what}");
            assert_eq!(got, "", "{what}");
            assert_eq!(after.as_deref(), Some("model = \"x\"\n"), "{what}");
            if variant == Variant::LandlockOnly {
                assert!(log.contains("planted "), "{what}");
                let lines: Vec<_> = said.lines().filter(|l| l.starts_with(PUT_BACK)).collect();
                assert_eq!(lines.len(), 1, "{what}");
                assert!(lines[0].contains("config.toml (put back)"), "{what}");
            }
        }
    }
}

#[test]
fn planted_hooks_mcp_servers_and_cached_packages_are_gone_after_the_turn() {
    assert!(under_the_sandbox());
    for variant in [Variant::Default, Variant::LandlockOnly] {
        let repo = lived_in_home();
        let home = std::fs::canonicalize(repo.home()).unwrap();
        let (log, said) = turn(&repo, variant, "claude", "");
        let what = format!("{variant:?}: {log}\n{said}");
        assert_eq!(
            read(&home.join(".claude/settings.json")).as_deref(),
            Some("{}\n"),
            "{what}"
        );
        assert_eq!(
            read(&home.join(".claude/settings.local.json")),
            None,
            "{what}"
        );
        assert_eq!(
            read(&home.join(".claude.json")).as_deref(),
            Some("{\"numStartups\": 1}\n"),
            "{what}"
        );
        for planted in [".npm/_npx/evil/package.json", ".cache/x"] {
            assert!(!home.join(planted).exists(), "{planted}: {what}");
        }
        if variant == Variant::LandlockOnly {
            // The settings were written and put back (said in one line); the caches refused.
            for path in [
                ".claude/settings.json",
                ".claude/settings.local.json",
                ".claude.json",
            ] {
                let path = home.join(path).display().to_string();
                assert!(log.contains(&format!("planted {path}")), "{what}");
            }
            let lines: Vec<_> = said.lines().filter(|l| l.starts_with(PUT_BACK)).collect();
            assert_eq!(lines.len(), 1, "{what}");
            assert!(
                lines[0].contains("settings.local.json (removed: not there before the turn)"),
                "{what}"
            );
            assert!(
                log.contains(&format!("refused {}", home.join(".cache/x").display())),
                "{what}"
            );
        }
    }
}
