//! The runner's environment by allow list (docs/sandbox.md, "Its environment"): a hostile runner
//! that writes down every variable it was given finds none of the person's secrets — not
//! `GITHUB_TOKEN`, `AWS_SECRET_ACCESS_KEY`, `NPM_TOKEN`, nor another provider's key — with the
//! default sandbox and with `--sandbox off`; its preset's own key, and what the person lists in
//! `.interview/config.toml`, reach it; what `interview.toml` lists does not.
//!
//! Run as root, tests/sandbox.rs runs this module again as `nobody`.

use crate::sandbox::Variant;
use crate::util::{Interview, TempRepo, fixtures, path_with, stdout};

/// The person's secrets, none of them a runner's business.
const SECRETS: [(&str, &str); 3] = [
    ("GITHUB_TOKEN", "ghp-person-secret"),
    ("AWS_SECRET_ACCESS_KEY", "aws-person-secret"),
    ("NPM_TOKEN", "npm-person-secret"),
];

const NO_QUESTIONS: &str = r#"{ "interview_answers": 1 }"#;

/// The names of the variables the runner wrote down in its `out/env.txt`.
fn given(repo: &TempRepo) -> Vec<String> {
    repo.session_file("turns/001/out/env.txt")
        .lines()
        .filter_map(|line| line.split_once('=').map(|(k, _)| k.to_string()))
        .collect()
}

/// `interview` under `variant`, with the person's secrets and both providers' keys in the tool's
/// environment.
fn with_secrets<'r>(interview: Interview<'r>, variant: Variant) -> Interview<'r> {
    SECRETS
        .iter()
        .chain(&[
            ("OPENAI_API_KEY", "openai-person-key"),
            ("ANTHROPIC_API_KEY", "anthropic-person-key"),
        ])
        .fold(interview.args(variant.args()), |i, (k, v)| i.env(k, v))
}

#[test]
fn a_script_is_given_none_of_the_persons_secrets_nor_a_providers_key() {
    for variant in [Variant::Default, Variant::Off] {
        let repo = TempRepo::new();
        let interview = Interview::of_work_item(&repo)
            .runner("sandbox/prints-env.sh")
            .answers(NO_QUESTIONS)
            .yes()
            .out("-");
        with_secrets(interview, variant).run().exits(0);
        let given = given(&repo);
        for secret in [
            "GITHUB_TOKEN",
            "AWS_SECRET_ACCESS_KEY",
            "NPM_TOKEN",
            "OPENAI_API_KEY",
            "ANTHROPIC_API_KEY",
        ] {
            assert!(
                !given.iter().any(|k| k == secret),
                "{variant:?}: {secret} in {given:?}"
            );
        }
        for needed in [
            "PATH",
            "HOME",
            "INTERVIEW_OUT",
            "INTERVIEW_RECEIPT",
            "TMPDIR",
        ] {
            assert!(
                given.iter().any(|k| k == needed),
                "{variant:?}: no {needed} in {given:?}"
            );
        }
    }
}

/// A `bin` dir with `codex` standing in for the real CLI: it writes down its environment, then
/// replays what the real Codex printed.
fn codex_writing_down_its_environment() -> tempfile::TempDir {
    let bin = tempfile::tempdir().unwrap();
    let codex = bin.path().join("codex");
    std::fs::write(
        &codex,
        format!(
            "#!/bin/sh\nenv > \"$INTERVIEW_OUT/env.txt\"\nexec {} \"$@\"\n",
            fixtures().join("cli-outputs/replay-codex.sh").display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&codex, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

#[test]
fn the_codex_preset_is_given_its_own_key_and_not_anthropics() {
    for variant in [Variant::Default, Variant::Off] {
        let repo = TempRepo::new();
        let bin = codex_writing_down_its_environment();
        let interview = Interview::of_work_item(&repo)
            .preset("codex")
            .answers(r#"{ "interview_answers": 1, "gate": "y", "answers": { "deployment_target": "2" } }"#)
            .yes()
            .out("-")
            .env("PATH", path_with(bin.path()))
            .env("CODEX_HOME", repo.home());
        with_secrets(interview, variant).run().exits(0);
        let given = given(&repo);
        for own in ["OPENAI_API_KEY", "CODEX_HOME"] {
            assert!(
                given.iter().any(|k| k == own),
                "{variant:?}: no {own} in {given:?}"
            );
        }
        for foreign in [
            "ANTHROPIC_API_KEY",
            "GITHUB_TOKEN",
            "AWS_SECRET_ACCESS_KEY",
            "NPM_TOKEN",
        ] {
            assert!(
                !given.iter().any(|k| k == foreign),
                "{variant:?}: {foreign} in {given:?}"
            );
        }
    }
}

#[test]
fn runner_env_passes_from_the_persons_config_and_not_from_interview_toml() {
    for variant in [Variant::Default, Variant::Off] {
        let repo = TempRepo::new();
        repo.write(
            ".interview/config.toml",
            "runner_env = [\"MY_TOKEN\", \"MOCK_*\"]\n",
        );
        repo.write(
            "interview.toml",
            "runner_env = [\"AWS_SECRET_ACCESS_KEY\"]\n",
        );
        let interview = Interview::of_work_item(&repo)
            .runner("sandbox/prints-env.sh")
            .answers(NO_QUESTIONS)
            .yes()
            .out("-")
            .env("MY_TOKEN", "mine")
            .env("MOCK_REPLY", "scripted")
            .env("MOCKINGBIRD", "not a MOCK_ variable");
        let outcome = with_secrets(interview, variant).run().exits(0);
        let given = given(&repo);
        for listed in ["MY_TOKEN", "MOCK_REPLY"] {
            assert!(
                given.iter().any(|k| k == listed),
                "{variant:?}: no {listed} in {given:?}"
            );
        }
        for unlisted in ["AWS_SECRET_ACCESS_KEY", "MOCKINGBIRD", "GITHUB_TOKEN"] {
            assert!(
                !given.iter().any(|k| k == unlisted),
                "{variant:?}: {unlisted} in {given:?}"
            );
        }
        assert!(
            outcome
                .stderr
                .contains("interview.toml: runner_env = [\"AWS_SECRET_ACCESS_KEY\"] is ignored"),
            "{}",
            outcome.stderr
        );
    }
}

#[test]
fn runners_shows_each_presets_variables_by_name_never_their_values() {
    let repo = TempRepo::new();
    let out = repo
        .cmd()
        .args(["runners", "--json"])
        .env("PATH", "/nonexistent")
        .env("ANTHROPIC_API_KEY", "anthropic-person-key")
        .output()
        .unwrap();
    let text = stdout(&out);
    assert!(!text.contains("anthropic-person-key"), "{text}");
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let variables = |name: &str| -> Vec<String> {
        let runner = json["runners"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == name)
            .unwrap_or_else(|| panic!("{name} listed"));
        serde_json::from_value(runner["variables"].clone()).unwrap()
    };
    assert!(variables("claude").contains(&"ANTHROPIC_*".to_string()));
    assert!(variables("codex").contains(&"OPENAI_API_KEY".to_string()));
    assert!(
        !variables("codex")
            .iter()
            .any(|v| v.starts_with("ANTHROPIC"))
    );
    assert!(variables("openai").contains(&"OPENAI_API_KEY".to_string()));
    assert!(variables("builtin").is_empty());
    let base: Vec<String> =
        serde_json::from_value(json["sandbox"]["base_variables"].clone()).unwrap();
    assert!(base.contains(&"PATH".to_string()) && !base.iter().any(|v| v.contains("TOKEN")));
    let text = stdout(
        &repo
            .cmd()
            .arg("runners")
            .env("PATH", "/nonexistent")
            .output()
            .unwrap(),
    );
    assert!(
        text.contains(
            "variables: OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_ORGANIZATION, OPENAI_PROJECT, CODEX_*\n"
        ),
        "{text}"
    );
}
