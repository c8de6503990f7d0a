//! The parsers on lines the real CLIs printed (fixtures/cli-outputs/*-stream.jsonl, recorded by
//! tests/presets_e2e/activity.rs), and on hostile ones.

use super::*;
use crate::ask::progress::activity_text;
use crate::runner::presets::codex::unwrap_shell;

/// Each CLI's reading of its events.
const CLAUDE: Events = crate::runner::presets::claude::activity;
const CODEX: Events = crate::runner::presets::codex::activity;
const GEMINI: Events = crate::runner::presets::gemini::activity;

macro_rules! recorded {
    ($file:literal) => {
        include_str!(concat!("../../../../fixtures/cli-outputs/", $file))
    };
}

/// The words for each line of `text`, in order.
fn each(events: Events, text: &str, root: &str) -> Vec<Option<String>> {
    text.lines()
        .map(|l| words(events, l.as_bytes(), Path::new(root)))
        .collect()
}

fn some(s: &str) -> Option<String> {
    Some(s.to_string())
}

#[test]
fn claude_code_thinks_reads_searches_and_answers() {
    let seen = each(
        CLAUDE,
        recorded!("claude-stream.jsonl"),
        "/tmp/interview-test-cdpX8A",
    );
    assert_eq!(
        seen,
        [
            None,             // system init
            some("thinking"), // system thinking_tokens
            some("thinking"),
            some("reading README.md"),
            None, // the tool's result
            some("searching for `ProjectList`"),
            None,
            some("writing its answer"), // StructuredOutput
            None,
            None, // result
        ]
    );
}

#[test]
fn codex_thinks_and_runs_commands_as_the_model_wrote_them() {
    let seen = each(CODEX, recorded!("codex-stream.jsonl"), "/nowhere");
    assert_eq!(
        seen,
        [
            None,             // thread.started
            None,             // the "Model metadata" error item
            some("thinking"), // turn.started
            some("thinking"), // reasoning
            some("running rg -n ProjectList"),
            None, // the command finished
            some("thinking"),
            some("running cat README.md"),
            None,
            some("writing its answer"),
            None, // turn.completed
        ]
    );
}

#[test]
fn gemini_cli_reads_searches_and_writes() {
    let seen = each(
        GEMINI,
        recorded!("gemini-stream.jsonl"),
        "/tmp/interview-test-XCQeLd",
    );
    assert_eq!(
        seen,
        [
            None, // init
            None, // the brief, as the user's message
            some("reading README.md"),
            None,
            some("searching for `ProjectList`"),
            None,
            some("writing"),
            None, // result
        ]
    );
}

#[test]
fn error_events_are_said_as_errors_in_the_clis_words() {
    // Issue 40: the CLI's message made up from an error was shown as "writing".
    let said = |events: Events, text: &str| -> Vec<String> {
        text.lines()
            .filter_map(|line| words(events, line.as_bytes(), Path::new("/r")))
            .collect()
    };
    let claude = said(CLAUDE, recorded!("claude-stream-server-error.jsonl"));
    assert_eq!(claude, ["error: API Error: 400 stop"]);
    let claude = said(CLAUDE, recorded!("claude-not-logged-in.jsonl"));
    assert_eq!(claude, ["error: Not logged in · Please run /login"]);
    let gemini = said(GEMINI, recorded!("gemini-stream-server-error.jsonl"));
    assert_eq!(gemini.len(), 1, "{gemini:?}");
    assert!(gemini[0].starts_with("error: [API Error:"), "{gemini:?}");
    let codex = said(CODEX, recorded!("codex-offline.log"));
    assert!(
        codex.contains(&"error: Reconnecting... waiting for network (Connection failed: error sending request)".to_string()),
        "{codex:?}"
    );
}

#[test]
fn a_path_outside_the_repository_is_shown_as_it_is_and_the_root_as_a_dot() {
    let line =
        r#"{"type":"tool_use","tool_name":"list_directory","parameters":{"dir_path":"/repo"}}"#;
    assert_eq!(
        words(GEMINI, line.as_bytes(), Path::new("/repo")),
        some("listing .")
    );
    let line =
        r#"{"type":"tool_use","tool_name":"read_file","parameters":{"file_path":"/etc/hosts"}}"#;
    assert_eq!(
        words(GEMINI, line.as_bytes(), Path::new("/repo")),
        some("reading /etc/hosts")
    );
    // A prefix of a name is not the directory.
    let line = r#"{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Read","input":{"file_path":"/repo2/x.rs"}}]}}"#;
    assert_eq!(
        words(CLAUDE, line.as_bytes(), Path::new("/repo")),
        some("reading /repo2/x.rs")
    );
}

#[test]
fn a_shell_wrapper_is_taken_off_only_when_it_is_one() {
    assert_eq!(
        unwrap_shell("/bin/bash -lc 'rg -n \"a b\"'"),
        "rg -n \"a b\""
    );
    assert_eq!(unwrap_shell("sh -c ls"), "ls");
    assert_eq!(unwrap_shell("rg -n x src"), "rg -n x src");
    assert_eq!(unwrap_shell("/bin/bash -lc"), "/bin/bash -lc");
    assert_eq!(unwrap_shell("unbalanced 'quote"), "unbalanced 'quote");
}

/// What the progress line would show for `line`.
fn shown(events: Events, line: &str) -> String {
    activity_text(&words(events, line.as_bytes(), Path::new("/repo")).unwrap_or_default())
}

#[test]
fn escape_bytes_and_control_characters_in_an_event_never_reach_the_line() {
    let lines = [
        (
            CLAUDE,
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Read\u001b[2J","input":{"file_path":"/repo/a\u001b]52;c;QUFB\u0007\rb\n.rs"}}]}}"#,
        ),
        (
            CODEX,
            r#"{"type":"item.started","item":{"type":"command_execution","command":"/bin/bash -lc 'echo \u001b[31mred\u009b2J\u202e'"}}"#,
        ),
        (
            GEMINI,
            r#"{"type":"tool_use","tool_name":"x\u0000\u0008y","parameters":{"command":"a\u001bcb"}}"#,
        ),
    ];
    for (events, line) in lines {
        let text = shown(events, line);
        assert!(!text.is_empty(), "{line}");
        assert!(
            !text.chars().any(|c| c.is_control() || c == '\u{202e}'),
            "{events:?}: {text:?}"
        );
    }
}

#[test]
fn a_huge_value_is_cut_to_a_few_words() {
    let line = serde_json::json!({"type": "tool_use", "tool_name": "read_file",
        "parameters": {"file_path": "x".repeat(200_000)}})
    .to_string();
    let text = shown(GEMINI, &line);
    assert!(text.chars().count() <= 90, "{}", text.chars().count());
    assert!(text.starts_with(" · reading xxx"), "{text}");
}

#[test]
fn what_is_not_an_event_of_the_family_says_nothing_and_never_panics() {
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let deep_object = format!(
        "{{\"type\":\"tool_use\",\"parameters\":{}}}",
        "[".repeat(10_000)
    );
    let bad: Vec<&[u8]> = vec![
        b"",
        b"not json",
        b"{",
        b"{\"type\":",
        b"[1,2,3]",
        b"\"just a string\"",
        b"{\"type\":42}",
        b"{\"type\":\"assistant\",\"message\":\"text\"}",
        b"{\"type\":\"assistant\",\"message\":{\"content\":\"text\"}}",
        b"{\"type\":\"assistant\",\"message\":{\"content\":[]}}",
        b"{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"tool_use\"}]}}",
        b"{\"type\":\"item.started\",\"item\":null}",
        b"{\"type\":\"item.started\",\"item\":{\"type\":\"command_execution\",\"command\":7}}",
        b"{\"type\":\"tool_use\",\"tool_name\":null}",
        b"\xff\xfe{\"type\":\"init\"}",
        b"{\"type\":\"tool_use\",\"tool_name\":\"read_file\",\"parameters\":{\"file_path\":\"\\ud800\"}}",
        deep.as_bytes(),
        deep_object.as_bytes(),
    ];
    for line in bad {
        for events in [CLAUDE, CODEX, GEMINI] {
            let w = words(events, line, Path::new("/repo"));
            assert_eq!(w, None, "{events:?}: {:?}", String::from_utf8_lossy(line));
        }
    }
}

#[test]
fn an_unknown_tool_or_event_is_named_or_ignored() {
    let line = r#"{"type":"assistant","message":{"content":[{"type":"tool_use","name":"mcp__x__y","input":{}}]}}"#;
    assert_eq!(
        words(CLAUDE, line.as_bytes(), Path::new("/r")),
        some("using mcp__x__y")
    );
    let line = r#"{"type":"stream_event","event":{"type":"content_block_delta"}}"#;
    assert_eq!(words(CLAUDE, line.as_bytes(), Path::new("/r")), None);
    let line = r#"{"type":"item.started","item":{"type":"collab_tool_call","tool":"spawn"}}"#;
    assert_eq!(words(CODEX, line.as_bytes(), Path::new("/r")), None);
}

#[test]
fn tool_calls_read_as_a_few_words() {
    assert_eq!(
        tool_activity("Read", Some("src/export.rs")),
        "reading src/export.rs"
    );
    assert_eq!(
        tool_activity("Grep", Some("ProjectList")),
        "searching for `ProjectList`"
    );
    assert_eq!(tool_activity("Bash", Some("ls src")), "running ls src");
    assert_eq!(
        tool_activity("StructuredOutput", None),
        "writing its answer"
    );
    assert_eq!(tool_activity("Frobnicate", None), "using Frobnicate");
    assert_eq!(
        tool_activity("Frobnicate", Some("x")),
        "using Frobnicate: x"
    );
}
