//! The model's tools: their definitions as the chat-completions API takes them (strict JSON
//! schemas), one call run against the worktree or its history, and the per-turn budget of
//! calls, bytes and seconds. Every tool reads; none writes, runs a program or reaches the
//! network — there is no such tool to call.
//!
//! Not for: talking to the model (`chat.rs`).

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::history::{self, History};
use super::worktree::{ToolResult, Worktree};

/// What one turn may spend on tools.
#[derive(Debug, Clone, Copy)]
pub(super) struct Limits {
    pub calls: usize,
    pub bytes: usize,
    pub seconds: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            calls: 60,
            bytes: 1024 * 1024,
            seconds: 300,
        }
    }
}

/// What is left of a turn's budget.
#[derive(Debug)]
pub(super) struct Budget {
    limits: Limits,
    calls: usize,
    bytes: usize,
    /// Time spent running tools (not the model's own: a CPU model may think for minutes).
    running: Duration,
}

impl Budget {
    pub(super) fn new(limits: Limits) -> Budget {
        Budget {
            limits,
            calls: 0,
            bytes: 0,
            running: Duration::ZERO,
        }
    }

    /// Why no more tool calls are run, once the budget is spent.
    pub(super) fn spent(&self) -> Option<String> {
        if self.calls >= self.limits.calls {
            return Some(format!("{} tool calls", self.limits.calls));
        }
        if self.bytes >= self.limits.bytes {
            return Some(format!("{} bytes of tool results", self.limits.bytes));
        }
        if self.running >= Duration::from_secs(self.limits.seconds) {
            return Some(format!("{} seconds", self.limits.seconds));
        }
        None
    }

    pub(super) fn calls(&self) -> usize {
        self.calls
    }
}

/// One tool call as the model made it.
#[derive(Debug, Clone)]
pub(super) struct Call {
    pub id: String,
    pub name: String,
    /// The arguments as the model wrote them (a JSON object in a string).
    pub arguments: String,
}

/// What running a call gave: the text for the model, and what the person is shown.
#[derive(Debug)]
pub(super) struct Ran {
    pub content: String,
    pub target: String,
    pub error: Option<String>,
}

/// Where the tools look.
pub(super) struct Tools {
    worktree: Worktree,
    history: Option<History>,
}

impl Tools {
    pub(super) fn new(worktree: Worktree) -> Tools {
        let history = History::open(worktree.root());
        Tools { worktree, history }
    }

    /// Run one call within `budget`. A refused or failed call is an `error: …` result the
    /// model reads and can act on; it never ends the turn.
    pub(super) fn run(&self, call: &Call, budget: &mut Budget) -> Ran {
        let args: Result<Value, String> = serde_json::from_str::<Value>(&call.arguments)
            .map_err(|e| format!("the arguments are not valid JSON ({e}); send one JSON object"))
            .and_then(|v| {
                if v.is_object() {
                    Ok(v)
                } else {
                    Err("the arguments must be one JSON object".into())
                }
            });
        let target = args
            .as_ref()
            .ok()
            .map(|a| target_of(&call.name, a))
            .unwrap_or_default();
        let result: ToolResult = match (budget.spent(), args) {
            (Some(why), _) => Err(format!(
                "the budget of this turn is spent ({why}): no more tool calls; return the receipt now"
            )),
            (None, Err(e)) => Err(e),
            (None, Ok(args)) => {
                let began = Instant::now();
                let result = self.dispatch(&call.name, &args);
                budget.running += began.elapsed();
                result
            }
        };
        budget.calls += 1;
        let (content, error) = match result {
            Ok(text) => (text, None),
            Err(e) => (format!("error: {e}"), Some(e)),
        };
        budget.bytes += content.len();
        Ran {
            content,
            target,
            error,
        }
    }

    fn dispatch(&self, name: &str, args: &Value) -> ToolResult {
        let text = |key: &str| args.get(key).and_then(Value::as_str);
        let number = |key: &str| args.get(key).and_then(Value::as_u64);
        let need = |key: &str| text(key).ok_or_else(|| format!("`{key}` is missing"));
        let git = || {
            self.history
                .as_ref()
                .ok_or_else(|| "this is not a git repository (or it cannot be opened)".to_string())
        };
        match name {
            "list_directory" => self.worktree.list(text("path").unwrap_or(".")),
            "read_file" => {
                self.worktree
                    .read(need("path")?, number("start_line"), number("end_line"))
            }
            "search" => self.worktree.search(
                need("pattern")?,
                text("path"),
                args.get("fixed_string").and_then(Value::as_bool) == Some(true),
            ),
            "git_log" => {
                let path = match text("path") {
                    Some(p) => Some(self.tracked_path(p)?),
                    None => None,
                };
                git()?.log(path.as_deref(), number("max_count").unwrap_or(20) as usize)
            }
            "git_show" => {
                let path = match text("path") {
                    Some(p) => Some(self.tracked_path(p)?),
                    None => None,
                };
                git()?.show(need("commit")?, path.as_deref())
            }
            "git_blame" => {
                let path = self.tracked_path(need("path")?)?;
                let start = number("start_line").unwrap_or(1);
                let end = number("end_line").unwrap_or(start + 49);
                let clamp = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
                git()?.blame(&path, clamp(start), clamp(end))
            }
            other => Err(format!(
                "there is no tool {other:?}; the tools are {}",
                NAMES.join(", ")
            )),
        }
    }

    /// A path as git names it (`/`-separated, relative to the root): the same rules as the
    /// worktree's, but the file need not exist any more.
    fn tracked_path(&self, path: &str) -> std::result::Result<String, String> {
        let parts: Vec<&str> = path
            .trim()
            .split('/')
            .filter(|p| !p.is_empty() && *p != ".")
            .collect();
        if path.trim().starts_with('/') || parts.contains(&"..") {
            return Err(format!(
                "{path:?} leaves the repository: give a path relative to the repository root"
            ));
        }
        if parts
            .iter()
            .any(|p| p.eq_ignore_ascii_case(".git") || p.eq_ignore_ascii_case(".interview"))
        {
            return Err(format!("{path:?} is inside a directory that is not shown"));
        }
        if parts.is_empty() {
            return Err("the path is empty".into());
        }
        Ok(parts.join("/"))
    }
}

/// The tools' names, in the order they are offered.
pub(super) const NAMES: [&str; 6] = [
    "list_directory",
    "read_file",
    "search",
    "git_log",
    "git_show",
    "git_blame",
];

/// What the person is shown of a call: its path or pattern.
fn target_of(name: &str, args: &Value) -> String {
    let text = |key: &str| args.get(key).and_then(Value::as_str).unwrap_or("");
    match name {
        "search" => text("pattern").to_string(),
        "git_show" => match text("path") {
            "" => text("commit").to_string(),
            p => format!("{} {p}", text("commit")),
        },
        _ => text("path").to_string(),
    }
}

/// One tool's definition: its every property required, its parameters closed.
fn function(name: &str, description: &str, props: Value) -> Value {
    let required: Vec<String> = props
        .as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default();
    json!({
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "strict": true,
            "parameters": {
                "type": "object",
                "properties": props,
                "required": required,
                "additionalProperties": false,
            },
        },
    })
}

/// The tool definitions, strict: every object closed, every property required (optional ones
/// nullable), as OpenAI's strict function calling demands and every other server accepts.
pub(super) fn definitions() -> Value {
    let string = |d: &str| json!({"type": "string", "description": d});
    let maybe_string = |d: &str| json!({"type": ["string", "null"], "description": d});
    let maybe_int = |d: &str| json!({"type": ["integer", "null"], "description": d});
    json!([
        function(
            "list_directory",
            "List one directory of the repository (files the ignore files hide are left out; directories end in /).",
            json!({"path": string("Directory relative to the repository root; \".\" for the root.")}),
        ),
        function(
            "read_file",
            "Read a text file of the repository, or a range of its lines (numbered). At most 32 KiB per call; files over 4 MiB and binary files are refused.",
            json!({
                "path": string("File relative to the repository root."),
                "start_line": maybe_int("First line (1-based), or null for the start."),
                "end_line": maybe_int("Last line, or null for the end."),
            }),
        ),
        function(
            "search",
            "Search the repository's text files for a regular expression (Rust regex syntax); returns path:line: text, at most 200 lines.",
            json!({
                "pattern": string("The regular expression, or the exact text when fixed_string is true."),
                "path": maybe_string("A file or directory to search in, or null for the whole repository."),
                "fixed_string": {"type": "boolean", "description": "Search for the exact text instead of a regular expression."},
            }),
        ),
        function(
            "git_log",
            &format!(
                "The commits of HEAD's history, newest first (at most {}), optionally only those that changed one path.",
                history::MAX_LOG_COMMITS
            ),
            json!({
                "path": maybe_string("A path relative to the repository root, or null for every commit."),
                "max_count": maybe_int("How many commits, or null for 20."),
            }),
        ),
        function(
            "git_show",
            "One commit: author, date, message and the files it changed; with a path, the lines it changed there.",
            json!({
                "commit": string("A commit: an id, a branch, a tag, HEAD~2 …"),
                "path": maybe_string("A path whose changed lines to show, or null."),
            }),
        ),
        function(
            "git_blame",
            &format!(
                "For a range of lines of a file at HEAD (at most {}), the commit that last changed each.",
                history::MAX_BLAME_LINES
            ),
            json!({
                "path": string("File relative to the repository root."),
                "start_line": maybe_int("First line (1-based), or null for 1."),
                "end_line": maybe_int("Last line, or null for 50 lines from the first."),
            }),
        ),
    ])
}
