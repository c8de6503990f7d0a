//! The real Claude Code and Codex under the default sandbox, against the loopback mock model
//! (`INTERVIEW_E2E=1`).

use super::*;

/// The real Claude Code and Codex complete an interview under the default sandbox, against the
/// loopback mock model. Runs with `INTERVIEW_E2E=1` and `INTERVIEW_E2E_CLAUDE` /
/// `INTERVIEW_E2E_CODEX` naming the directory that holds the installed CLI (docs/runners.md);
/// skipped otherwise, saying why.
#[test]
fn the_real_clis_complete_an_interview_under_the_sandbox() {
    use crate::util::mock_model::{MockModel, Reply, Rule};
    if std::env::var_os("INTERVIEW_E2E").is_none() {
        crate::util::not_run("INTERVIEW_E2E is not set");
        return;
    }
    let done = serde_json::json!({
        "receipt": "done", "version": 1, "questions": null, "title": "Intent of 7",
        "summary": "Short.",
        "entries": [{ "title": "The item", "content": "Users want CSV.", "clarity": "inferred",
                      "sources": null }]
    });
    for (cli, var, endpoint) in [
        ("claude", "INTERVIEW_E2E_CLAUDE", "/v1/messages"),
        ("codex", "INTERVIEW_E2E_CODEX", "/v1/responses"),
    ] {
        let Some(dir) = std::env::var_os(var) else {
            crate::util::not_run(&format!(
                "{cli} under the sandbox: {var} does not name the CLI's directory"
            ));
            continue;
        };
        let mock = MockModel::start(vec![Rule {
            when: None,
            reply: Reply::Receipt(done.clone()),
        }]);
        let repo = TempRepo::new();
        let home = tempfile::Builder::new()
            .prefix("interview-home-")
            .tempdir()
            .unwrap();
        let codex_home = home.path().join(".codex");
        std::fs::create_dir_all(&codex_home).unwrap();
        std::fs::create_dir_all(home.path().join(".claude")).unwrap();
        std::fs::write(
            codex_home.join("config.toml"),
            format!(
                "model = \"mock-model\"\nmodel_provider = \"mock\"\n[model_providers.mock]\nname = \"mock\"\nbase_url = \"{}/v1\"\nwire_api = \"responses\"\nrequest_max_retries = 0\nstream_max_retries = 0\n[analytics]\nenabled = false\n",
                mock.url()
            ),
        )
        .unwrap();
        let path = format!(
            "{}:{}",
            Path::new(&dir).display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let out = Interview::intent(&repo, "7")
            .work_item()
            .preset(cli)
            .answers(r#"{ "interview_answers": 1 }"#)
            .yes()
            .out("-")
            .args(["--retries", "0"])
            .env("HOME", home.path())
            .env("CODEX_HOME", &codex_home)
            .env("PATH", path)
            .env("ANTHROPIC_BASE_URL", mock.url())
            .env("ANTHROPIC_API_KEY", "dummy")
            .env("CLAUDE_CODE_MAX_RETRIES", "0")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("DISABLE_TELEMETRY", "1")
            .env("DISABLE_AUTOUPDATER", "1")
            .env("DISABLE_ERROR_REPORTING", "1")
            .run();
        let screen = out.screen();
        assert_eq!(out.code, 0, "{cli}: {screen}");
        assert!(out.stdout.contains("Users want CSV."), "{cli}: {screen}");
        // Everything enforced: nothing to say about the sandbox (docs/sandbox.md, "Choosing").
        if offer().landlock && offer().namespaces {
            assert!(!screen.contains("interview: sandbox:"), "{screen}");
        }
        assert!(mock.count(endpoint) >= 1, "{cli}: {:?}", mock.summary());
        eprintln!("{cli} under the sandbox: done ({:?})", mock.summary());
    }
}
