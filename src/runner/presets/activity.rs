//! What an agent CLI is doing now, read from one line of the events it streams on stdout
//! (Claude Code `stream-json`, Codex `exec --json`, Gemini CLI `stream-json`), in a few words
//! for the progress line: "reading src/export.rs", "searching for `ProjectList`", "running rg
//! …", "thinking" (see `docs/person.md`).
//!
//! Only shown, never trusted: a line that is not an event of the family says nothing, and the
//! words are sanitised by the progress line like any runner text. Not for: the receipt (that
//! is `envelope`, which reads the whole output after the CLI ended).

use std::path::Path;

use serde_json::Value;

/// How a preset's CLI streams its events: the words for one line that looks like a JSON object
/// (`None` when it is no event of the CLI's, or one that changes nothing). A path inside the
/// root given is shown relative to it.
pub(crate) type Events = fn(&str, &Path) -> Option<String>;

/// The words for one line of the CLI's stdout, or `None` when it says nothing new (not an
/// event, not JSON, an event that changes nothing). A path inside `root` is shown relative to
/// it.
pub(crate) fn words(events: Events, line: &[u8], root: &Path) -> Option<String> {
    let line = std::str::from_utf8(line).ok()?.trim();
    if !line.starts_with('{') {
        return None;
    }
    events(line, root)
}

/// A few words for an agent's tool call, as its CLI names the tool: `Read` of `src/x.rs` is
/// "reading src/x.rs", `Grep` of `ProjectList` is "searching for `ProjectList`". A tool not
/// known here is named as it is ("using WebFetch").
pub(super) fn tool_activity(tool: &str, target: Option<&str>) -> String {
    let verb = match tool.to_ascii_lowercase().as_str() {
        "read" | "read_file" | "readfile" | "read_many_files" | "view" | "cat" | "notebookread" => {
            "reading"
        }
        "grep" | "grep_search" | "search" | "search_file_content" | "ripgrep" | "rg" => {
            "searching for"
        }
        "glob" | "ls" | "list_directory" | "find" | "list" => "listing",
        "bash" | "shell" | "exec" | "run_shell_command" | "command" | "local_shell" => "running",
        "edit" | "write" | "multiedit" | "write_file" | "replace" | "apply_patch" => "editing",
        "webfetch" | "web_fetch" | "fetch" => "fetching",
        "websearch" | "web_search" | "google_web_search" => "searching the web for",
        "todowrite" | "update_plan" | "plan" => "planning",
        "structuredoutput" | "structured_output" => "writing its answer",
        _ => "",
    };
    let target = target.map(str::trim).filter(|t| !t.is_empty());
    match (verb, target) {
        ("searching for" | "searching the web for", Some(t)) => format!("{verb} `{t}`"),
        ("writing its answer" | "planning", _) => verb.to_string(),
        ("", Some(t)) => format!("using {tool}: {t}"),
        ("", None) => format!("using {tool}"),
        (verb, Some(t)) => format!("{verb} {t}"),
        (verb, None) => verb.to_string(),
    }
}

/// What a tool call works on, from its input: a pattern, a path (relative to `root` when
/// inside it), a command, a query or an address, the first of those it has.
pub(super) fn target(input: &Value, root: &Path) -> Option<String> {
    const PATHS: &[&str] = &[
        "file_path",
        "absolute_path",
        "notebook_path",
        "path",
        "dir_path",
    ];
    const OTHERS: &[&str] = &["command", "query", "url", "description"];
    let text = |key: &&str| input.get(*key).and_then(Value::as_str);
    // A search in a directory: the pattern is what it looks for.
    if let Some(pattern) = text(&"pattern") {
        return Some(pattern.to_string());
    }
    if let Some(path) = PATHS.iter().find_map(text) {
        return Some(relative(path, root));
    }
    OTHERS.iter().find_map(text).map(str::to_string)
}

/// `path` relative to `root` when it is inside it (`.` for the root itself).
fn relative(path: &str, root: &Path) -> String {
    match Path::new(path).strip_prefix(root) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".into(),
        Ok(rel) => rel.display().to_string(),
        Err(_) => path.to_string(),
    }
}

#[cfg(test)]
mod tests;
