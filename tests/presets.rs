//! Runner presets through the real binary: `interview runners`, the codex preset's wiring, and a
//! whole interview with the real Codex and Claude Code CLIs against a loopback mock model server
//! (`INTERVIEW_E2E=1`, see docs/runners.md).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::util::*;

#[test]
fn runners_lists_every_preset_as_not_installed_when_none_is_on_path() {
    let repo = TempRepo::new();
    let empty = tempfile::tempdir().unwrap();
    let out = repo
        .cmd()
        .arg("runners")
        .env("PATH", empty.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("builtin  embedded"), "{text}");
    for name in ["claude", "codex", "gemini", "aider"] {
        assert!(
            text.contains(&format!(
                "{name:<8} not installed ({name} not found on PATH)"
            )),
            "{text}"
        );
    }
    assert!(
        text.contains("runs: codex exec --json --ephemeral --skip-git-repo-check --sandbox read-only --disable plugins --output-schema '{wire_schema}'"),
        "{text}"
    );
}

#[test]
fn runners_never_runs_a_program_from_a_relative_path_entry() {
    let repo = TempRepo::new();
    // A `codex` inside the repository, reachable only through the relative PATH entry `bin`.
    repo.write("bin/codex", "#!/bin/sh\ntouch ran-from-repo\necho 9.9.9\n");
    let mut perms = std::fs::metadata(repo.path().join("bin/codex"))
        .unwrap()
        .permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(repo.path().join("bin/codex"), perms).unwrap();
    let out = repo
        .cmd()
        .arg("runners")
        .env("PATH", "bin")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("codex    not installed"),
        "{}",
        stdout(&out)
    );
    assert!(!repo.path().join("ran-from-repo").exists());
}

// ---------------------------------------------------------------------------------------------
// End to end with a real agent CLI.

/// A real CLI the end-to-end tests install, pinned to the version the preset was checked with.
struct RealCli {
    /// The preset and the executable's name.
    name: &'static str,
    package: &'static str,
    version: &'static str,
    /// Environment variable with an installed copy to use instead (a `bin` dir or the program).
    use_installed: &'static str,
}

const CODEX: RealCli = RealCli {
    name: "codex",
    package: "@openai/codex",
    version: "0.171.0",
    use_installed: "INTERVIEW_E2E_CODEX",
};

const CLAUDE: RealCli = RealCli {
    name: "claude",
    package: "@anthropic-ai/claude-code",
    version: "2.1.197",
    use_installed: "INTERVIEW_E2E_CLAUDE",
};

const ASK: &str = r#"{"receipt":"ask","version":1,"questions":[{"topic":"deployment_target","question_text":"Where will this service run?","severity":7,"options":[{"label":"Kubernetes","value":"k8s"},{"label":"One VM","value":"vm"}],"recommended":"k8s"}]}"#;

const DONE: &str = r#"{"receipt":"done","version":1,"title":"Intent of the CSV export","summary":"The export runs on one VM.","entries":[{"title":"It runs on one VM","content":"The person chose one VM over Kubernetes.","clarity":"declared-by-user","sources":["qa:deployment_target"]},{"title":"The repository has a README","content":"It starts with a title.","clarity":"confirmed","sources":["README.md:1"]}]}"#;

/// Why the end-to-end test of `cli` cannot run here, if it cannot.
fn e2e_skip_reason(cli: &RealCli) -> Option<String> {
    if std::env::var("INTERVIEW_E2E").as_deref() != Ok("1") {
        return Some(format!(
            "set INTERVIEW_E2E=1 to install the real {} CLI from npm and run it",
            cli.name
        ));
    }
    if std::env::var_os(cli.use_installed).is_none() && !on_path("npm") {
        return Some(format!(
            "npm is not installed, so {}@{} cannot be installed",
            cli.package, cli.version
        ));
    }
    if !on_path("python3") {
        return Some("python3 is not installed, so the mock model server cannot run".into());
    }
    None
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join(program).is_file()))
        .unwrap_or(false)
}

/// The directory holding the CLI's executable: the one named by `cli.use_installed`, or a fresh
/// `npm install` of the pinned version into `prefix`.
fn install(cli: &RealCli, prefix: &Path) -> PathBuf {
    if let Some(given) = std::env::var_os(cli.use_installed) {
        let given = PathBuf::from(given);
        return if given.is_dir() {
            given
        } else {
            given.parent().unwrap().to_path_buf()
        };
    }
    let started = Instant::now();
    let out = Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--prefix"])
        .arg(prefix)
        .arg(format!("{}@{}", cli.package, cli.version))
        .stdin(Stdio::null())
        .output()
        .expect("run npm");
    assert!(
        out.status.success(),
        "npm install {}@{} failed:\n{}",
        cli.package,
        cli.version,
        stderr(&out)
    );
    eprintln!(
        "installed {}@{} in {:.1} s",
        cli.package,
        cli.version,
        started.elapsed().as_secs_f32()
    );
    prefix.join("node_modules/.bin")
}

/// The mock model server, in a network namespace of its own with only loopback when `unshare`
/// allows it (then everything that talks to it joins that namespace through `nsenter`).
struct MockServer {
    child: Child,
    port: u16,
    netns: bool,
    log: PathBuf,
}

impl MockServer {
    fn start(dir: &Path, rules: &serde_json::Value) -> MockServer {
        let script = dir.join("script.json");
        std::fs::write(&script, rules.to_string()).unwrap();
        let port_file = dir.join("port");
        let log = dir.join("requests.log");
        let mock = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e/mock_model.py");
        let netns = Command::new("unshare")
            .args(["-n", "true"])
            .stderr(Stdio::null())
            .status()
            .map(|s| s.success())
            .unwrap_or(false)
            && on_path("nsenter")
            && on_path("ip");
        let mut cmd = if netns {
            let mut c = Command::new("unshare");
            c.args([
                "-n",
                "sh",
                "-c",
                "ip link set lo up && exec \"$0\" \"$@\"",
                "python3",
            ]);
            c
        } else {
            eprintln!("note: unshare -n is not available; the mock listens on 127.0.0.1 only");
            Command::new("python3")
        };
        cmd.arg(&mock)
            .arg("--script")
            .arg(&script)
            .arg("--port-file")
            .arg(&port_file)
            .arg("--log")
            .arg(&log)
            .arg("--lifetime")
            .arg("300")
            .stdin(Stdio::null())
            .stdout(Stdio::null());
        let child = cmd.spawn().expect("start the mock model server");
        let mut port = None;
        wait_until(
            Duration::from_secs(20),
            "the mock model server to start",
            || {
                port = std::fs::read_to_string(&port_file)
                    .ok()
                    .and_then(|text| text.trim().parse().ok());
                port.is_some()
            },
        );
        let port: u16 = port.unwrap();
        eprintln!(
            "mock model server on 127.0.0.1:{port}{}",
            if netns {
                ", in a network namespace with only loopback"
            } else {
                ""
            }
        );
        MockServer {
            child,
            port,
            netns,
            log,
        }
    }

    /// `program` run inside the mock's network namespace (or as it is, without one).
    fn command(&self, program: &Path) -> Command {
        if self.netns {
            let mut c = Command::new("nsenter");
            c.arg("-t")
                .arg(self.child.id().to_string())
                .args(["-n", "--"])
                .arg(program);
            c
        } else {
            Command::new(program)
        }
    }

    fn requests(&self) -> Vec<String> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Turn 1 asks; once the brief carries the answer to `deployment_target`, turn 2 finishes. `tool`
/// makes the Anthropic answer a `StructuredOutput` call; the other formats answer in text.
fn interview_rules() -> serde_json::Value {
    serde_json::json!([
        { "when": "deployment_target", "as": "tool", "text": DONE },
        { "when": null, "as": "tool", "text": ASK },
    ])
}

/// Run `interview intent 7 --runner <cli> --answers … --yes` with the real CLI against the mock;
/// returns the repository after checking the interview ended in the expected document.
fn interview_with(
    cli: &RealCli,
    tools: &Path,
    mock: &MockServer,
    env: &[(&str, PathBuf)],
) -> TempRepo {
    let bin_dir = install(cli, &tools.join("npm"));
    let version = Command::new(bin_dir.join(cli.name))
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .expect("<cli> --version");
    let version = stdout(&version).trim().to_string();
    eprintln!("running against {} {version}", cli.name);
    let home = tools.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let repo = TempRepo::new();
    repo.write("item.md", WORK_ITEM);
    let answers = tools.join("answers.json");
    std::fs::write(
        &answers,
        r#"{ "interview_answers": 1, "gate": "y", "answers": { "deployment_target": "2" } }"#,
    )
    .unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let started = Instant::now();
    let mut cmd = mock.command(&bin());
    cmd.args([
        "intent",
        "7",
        "--from",
        "item.md",
        "--runner",
        cli.name,
        "--answers",
    ])
    .arg(&answers)
    .args(["--yes", "--turn-timeout", "120"])
    .current_dir(repo.path())
    .env("PATH", path)
    .env("HOME", &home)
    .env("GIT_CONFIG_NOSYSTEM", "1")
    .stdin(Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run interview");
    eprintln!(
        "interview with {} {version} took {:.1} s",
        cli.name,
        started.elapsed().as_secs_f32()
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout:\n{}\nstderr:\n{}\nrequests: {:?}",
        stdout(&out),
        stderr(&out),
        mock.requests()
    );
    let doc = repo.read(DOCUMENT);
    assert!(doc.contains("It runs on one VM"), "{doc}");
    assert!(doc.contains("README.md:1"), "{doc}");
    let state = repo.state();
    assert_eq!(state["runner"], cli.name);
    assert_eq!(state["status"], "done");
    repo
}

#[test]
fn codex_preset_runs_a_whole_interview_against_a_loopback_mock_model() {
    if let Some(why) = e2e_skip_reason(&CODEX) {
        eprintln!(
            "skipped codex_preset_runs_a_whole_interview_against_a_loopback_mock_model: {why}"
        );
        return;
    }
    let tools = tempfile::tempdir().unwrap();
    let mock = MockServer::start(tools.path(), &interview_rules());
    // Codex's own config (where a user puts a provider): the mock, no login, no retries.
    let codex_home = tools.path().join("codex-home");
    std::fs::create_dir_all(&codex_home).unwrap();
    std::fs::write(
        codex_home.join("config.toml"),
        format!(
            "model = \"mock-model\"\nmodel_provider = \"mock\"\n\n[model_providers.mock]\n\
             name = \"mock\"\nbase_url = \"http://127.0.0.1:{}/v1\"\nwire_api = \"responses\"\n\
             request_max_retries = 0\nstream_max_retries = 0\n\n[analytics]\nenabled = false\n",
            mock.port
        ),
    )
    .unwrap();
    interview_with(&CODEX, tools.path(), &mock, &[("CODEX_HOME", codex_home)]);
    let model_calls = mock
        .requests()
        .iter()
        .filter(|l| l.starts_with("POST /v1/responses"))
        .count();
    assert_eq!(model_calls, 2, "{:?}", mock.requests());
}

#[test]
fn claude_preset_runs_a_whole_interview_against_a_loopback_mock_model() {
    if let Some(why) = e2e_skip_reason(&CLAUDE) {
        eprintln!(
            "skipped claude_preset_runs_a_whole_interview_against_a_loopback_mock_model: {why}"
        );
        return;
    }
    let tools = tempfile::tempdir().unwrap();
    let mock = MockServer::start(tools.path(), &interview_rules());
    let base = PathBuf::from(format!("http://127.0.0.1:{}", mock.port));
    let one = PathBuf::from("1");
    interview_with(
        &CLAUDE,
        tools.path(),
        &mock,
        &[
            ("ANTHROPIC_BASE_URL", base),
            ("ANTHROPIC_API_KEY", PathBuf::from("dummy")),
            ("CLAUDE_CODE_MAX_RETRIES", PathBuf::from("0")),
            ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", one.clone()),
            ("DISABLE_TELEMETRY", one.clone()),
            ("DISABLE_AUTOUPDATER", one.clone()),
            ("DISABLE_ERROR_REPORTING", one),
        ],
    );
    assert!(
        mock.requests()
            .iter()
            .filter(|l| l.starts_with("POST /v1/messages"))
            .count()
            >= 2,
        "{:?}",
        mock.requests()
    );
}

/// A `bin` dir with `codex` standing in for the real CLI by replaying its recorded output.
fn replayed_codex() -> tempfile::TempDir {
    let bin = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(
        fixtures().join("cli-outputs/replay-codex.sh"),
        bin.path().join("codex"),
    )
    .unwrap();
    bin
}

#[test]
fn the_codex_preset_gives_the_brief_on_stdin_and_reads_the_receipt_from_its_events() {
    let repo = TempRepo::new();
    repo.write(
        "answers.json",
        r#"{ "interview_answers": 1, "gate": "y", "answers": { "deployment_target": "2" } }"#,
    );
    let bin = replayed_codex();
    let path = format!(
        "{}:{}",
        bin.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    Interview::of_work_item(&repo)
        .preset("codex")
        .answers_file("answers.json")
        .yes()
        .env("PATH", path)
        .run()
        .exits(0);
    let doc = repo.read(DOCUMENT);
    assert!(doc.contains("It runs on one VM"), "{doc}");
    let argv = repo.session_file("turns/001/out/argv.txt");
    let schema = repo
        .session_dir()
        .join("turns/001/receipt.wire.schema.json");
    assert_eq!(
        argv.lines().collect::<Vec<_>>(),
        [
            "exec",
            "--json",
            "--ephemeral",
            "--skip-git-repo-check",
            "--sandbox",
            "read-only",
            "--disable",
            "plugins",
            "--output-schema",
            &schema.display().to_string(),
        ]
    );
    assert_eq!(repo.session_file("turns/001/out/stdin.txt"), "brief\n");
}
