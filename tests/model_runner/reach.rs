//! The model runner under the sandbox reaches its server's port and no other, and
//! `interview runners` names its server without its key, password or query.

use super::*;

/// A port something listens on that is not the model's server.
#[cfg(target_os = "linux")]
fn other_listener() -> (std::net::TcpListener, u16) {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    (l, port)
}

#[cfg(target_os = "linux")]
#[test]
fn under_the_sandbox_the_model_runner_reaches_its_servers_port_and_no_other() {
    let (_other, port) = other_listener();
    let run = |sandbox: &str| {
        // A repository per run: the latest session is found by its id, and two sessions begun
        // in the same second sort by their random part.
        let repo = TempRepo::new();
        let mock = MockChat::start(vec![Step::Receipt(wire(ASK)), Step::Receipt(wire(DONE))]);
        let out = against(interview(&repo).args(["--sandbox", sandbox]), &mock, &[])
            .runner_env("INTERVIEW_TEST_MODEL_CONNECT", port.to_string())
            .run()
            .exits(0);
        let notes = out.events("runner_note");
        notes[0]["text"].as_str().unwrap().to_string()
    };
    let abi = support_line("Landlock");
    if !prerequisite(
        abi.contains("ABI")
            && !abi.contains("ABI 1")
            && !abi.contains("ABI 2")
            && !abi.contains("ABI 3"),
        "Landlock ABI 4 or later (TCP ports)",
    ) {
        return;
    }
    let confined = run("auto");
    assert!(
        confined.contains(&format!("test connect to port {port}: refused")),
        "{confined}"
    );
    let open = run("off");
    assert!(
        open.contains(&format!("test connect to port {port}: connected")),
        "{open}"
    );
}

/// The line of `interview runners` about `what` in the sandbox's part.
#[cfg(target_os = "linux")]
fn support_line(what: &str) -> String {
    let out = std::process::Command::new(bin())
        .arg("runners")
        .output()
        .expect("interview runners");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find(|l| l.trim_start().starts_with(what))
        .unwrap_or("")
        .to_string()
}

#[test]
fn interview_runners_names_the_model_runners_server_without_its_key() {
    let repo = TempRepo::new();
    let out = repo
        .cmd()
        .arg("runners")
        .env("OPENAI_API_KEY", "sk-never-shown")
        .env("OPENAI_BASE_URL", "http://127.0.0.1:8080/v1")
        .output()
        .unwrap();
    let text = stdout(&out);
    assert!(
        text.contains("openai   embedded: any OpenAI-compatible server, http://127.0.0.1:8080/v1, OPENAI_API_KEY set"),
        "{text}"
    );
    assert!(
        text.contains("ollama   embedded: http://localhost:11434/v1, no key"),
        "{text}"
    );
    assert!(!text.contains("sk-never-shown"), "{text}");
}

#[test]
fn interview_runners_shows_no_password_or_query_of_the_servers_address_as_text_or_json() {
    let repo = TempRepo::new();
    let address = "https://me:pa55word@models.example.com/v1?api-key=k3y";
    let run = |json: bool| {
        let mut cmd = repo.cmd();
        cmd.arg("runners")
            .env("PATH", "/nonexistent")
            .env("OPENAI_API_KEY", "sk-never-shown")
            .env("OPENAI_BASE_URL", address)
            .env("OPENAI_MODEL", "small-model");
        if json {
            cmd.arg("--json");
        }
        stdout(&cmd.output().unwrap())
    };
    let text = run(false);
    assert!(
        text.contains("https://…@models.example.com/v1?…, OPENAI_API_KEY set"),
        "{text}"
    );
    let json: Value = serde_json::from_str(&run(true)).expect("runners --json prints JSON");
    let names: Vec<&str> = json["runners"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["name"].as_str())
        .collect();
    assert_eq!(
        names,
        [
            "builtin", "openai", "ollama", "claude", "codex", "gemini", "aider"
        ]
    );
    let openai = &json["runners"][1];
    assert_eq!(openai["embedded"], true);
    assert_eq!(openai["base_url"], "https://…@models.example.com/v1?…");
    assert_eq!(openai["key_set"], true);
    assert_eq!(openai["model"], "small-model");
    assert_eq!(json["runners"][2]["key_set"], false, "ollama sends no key");
    for shown in [&text, &json.to_string()] {
        for secret in ["pa55word", "k3y", "sk-never-shown", "me:"] {
            assert!(!shown.contains(secret), "{secret} shown: {shown}");
        }
    }
}
