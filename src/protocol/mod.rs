//! The runner protocol in one place: the environment a runner starts with, the files of a turn,
//! the receipt's limits and its JSON Schema.
//!
//! Everything a runner author reads in `docs/runners.md` and `docs/receipt.md` (and the README's
//! "Runner protocol, in short") is spelled here once; the session builds a runner's environment
//! with [`runner_env`], the brief quotes [`limits`], the checks enforce them, and a test keeps the
//! docs in step with this module.

pub(crate) mod wire;

use std::path::{Path, PathBuf};

/// Where a runner leaves its receipt (`[runner] receipt` in `.interview/config.toml`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ReceiptFrom {
    /// `$INTERVIEW_OUT/receipt.json`.
    File,
    /// Printed on stdout (extracted after the runner ends).
    Stdout,
}

/// The environment variables every runner starts with.
pub(crate) mod env {
    /// Path of `brief.md`: the rules, the facts, the transcript so far.
    pub(crate) const BRIEF: &str = "INTERVIEW_BRIEF";
    /// Path of `brief.json`: the same, structured.
    pub(crate) const CONTEXT: &str = "INTERVIEW_CONTEXT";
    /// The turn's `out/` directory: the only place a runner may write.
    pub(crate) const OUT: &str = "INTERVIEW_OUT";
    /// `$INTERVIEW_OUT/receipt.json`: where a file receipt goes.
    pub(crate) const RECEIPT: &str = "INTERVIEW_RECEIPT";
    /// Path of the receipt's JSON Schema.
    pub(crate) const SCHEMA: &str = "INTERVIEW_SCHEMA";
    /// The turn number, from 1.
    pub(crate) const TURN: &str = "INTERVIEW_TURN";
    /// `1` on the final turn, else `0`.
    pub(crate) const FINAL: &str = "INTERVIEW_FINAL";
    /// The session id.
    pub(crate) const SESSION: &str = "INTERVIEW_SESSION";

    /// Every variable, in the order the docs list them.
    #[cfg(test)]
    pub(crate) const ALL: [&str; 8] = [BRIEF, CONTEXT, OUT, RECEIPT, SCHEMA, TURN, FINAL, SESSION];
}

/// File names inside a turn's directory (`.interview/sessions/<id>/turns/NNN/`).
pub(crate) mod files {
    /// The brief for agents (Markdown).
    pub(crate) const BRIEF_MD: &str = "brief.md";
    /// The brief for scripts (JSON).
    pub(crate) const BRIEF_JSON: &str = "brief.json";
    /// The runner's only writable directory.
    pub(crate) const OUT_DIR: &str = "out";
    /// The receipt's file name inside `out/`.
    pub(crate) const RECEIPT: &str = "receipt.json";
    /// The copy of the receipt's JSON Schema given to the runner.
    pub(crate) const SCHEMA: &str = "receipt.schema.json";
    /// The runner's stdout and stderr, interleaved and capped.
    pub(crate) const RUNNER_LOG: &str = "runner.log";
    /// The running runner's pid and start time, so a later run can end an orphan.
    pub(crate) const RUNNER_PID: &str = "runner.pid";
    /// The wire schema handed to the presets with structured output (`protocol::wire`).
    pub(crate) const WIRE_SCHEMA: &str = "receipt.wire.schema.json";
    /// Gemini CLI's policy for the turn.
    pub(crate) const GEMINI_POLICY: &str = "gemini-policy.toml";
}

/// The receipt's limits: enforced by the checks, quoted in the brief, written by the built-in
/// interviewer, listed in `docs/receipt.md`.
pub(crate) mod limits {
    /// The receipt format version this tool reads and writes.
    pub(crate) const VERSION: i64 = 1;
    pub(crate) const MIN_QUESTIONS: usize = 1;
    pub(crate) const MAX_QUESTIONS: usize = 5;
    pub(crate) const MAX_TOPIC_CHARS: usize = 64;
    pub(crate) const MAX_QUESTION_TEXT_CHARS: usize = 200;
    pub(crate) const SEVERITY_RANGE: std::ops::RangeInclusive<i64> = 1..=10;
    pub(crate) const MIN_OPTIONS: usize = 2;
    pub(crate) const MAX_OPTIONS: usize = 9;
    pub(crate) const MAX_OPTION_CHARS: usize = 200;
    pub(crate) const MAX_TITLE_CHARS: usize = 80;
    pub(crate) const MAX_SUMMARY_CHARS: usize = 2000;
    pub(crate) const MIN_ENTRIES: usize = 1;
    pub(crate) const MAX_ENTRIES: usize = 20;
    pub(crate) const MAX_ENTRY_TITLE_CHARS: usize = 80;
    pub(crate) const MAX_CONTENT_CHARS: usize = 2000;
    pub(crate) const MAX_SOURCES: usize = 20;
    pub(crate) const MAX_SOURCE_CHARS: usize = 300;
    pub(crate) const MIN_COMMIT_HEX: usize = 7;
    pub(crate) const MAX_COMMIT_HEX: usize = 40;
    /// The largest receipt file accepted, in bytes (256 KiB).
    pub(crate) const MAX_RECEIPT_BYTES: u64 = 256 * 1024;
    /// Printed output larger than this is not searched for a receipt (4 MiB).
    pub(crate) const MAX_STDOUT_BYTES: usize = 4 * 1024 * 1024;
    /// `runner.log` keeps at most this much of a runner's output (1 MiB).
    pub(crate) const RUNNER_LOG_BYTES: u64 = 1024 * 1024;
}

/// The JSON Schema (draft 2020-12) of both receipt forms, given to runners as `INTERVIEW_SCHEMA`.
/// It says what a schema can; the checks enforce the rest (see `docs/receipt.md`).
pub const SCHEMA: &str = include_str!("../../schema/receipt.schema.json");

/// The receipt schema as agent CLIs accept it inline: without its `$schema` key (Claude Code
/// 2.1 silently ignores a schema that declares draft 2020-12).
pub(crate) fn schema_for_cli() -> String {
    match serde_json::from_str::<serde_json::Value>(SCHEMA) {
        Ok(serde_json::Value::Object(mut map)) => {
            map.remove("$schema");
            serde_json::Value::Object(map).to_string()
        }
        _ => SCHEMA.to_string(),
    }
}

/// The files of one turn, as the runner is told about them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TurnPaths {
    pub dir: PathBuf,
    pub brief_md: PathBuf,
    pub brief_json: PathBuf,
    pub out: PathBuf,
    pub receipt: PathBuf,
    pub schema: PathBuf,
    pub log: PathBuf,
    pub pid: PathBuf,
}

impl TurnPaths {
    /// The protocol's files in the turn directory `dir`.
    pub(crate) fn new(dir: &Path) -> TurnPaths {
        let out = dir.join(files::OUT_DIR);
        TurnPaths {
            brief_md: dir.join(files::BRIEF_MD),
            brief_json: dir.join(files::BRIEF_JSON),
            receipt: out.join(files::RECEIPT),
            schema: dir.join(files::SCHEMA),
            log: dir.join(files::RUNNER_LOG),
            pid: dir.join(files::RUNNER_PID),
            out,
            dir: dir.to_path_buf(),
        }
    }
}

/// What a runner is told about its turn, beyond the files.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TurnInfo<'a> {
    pub turn: u32,
    pub final_turn: bool,
    pub session: &'a str,
}

/// The environment a runner starts with (added to the tool's own).
pub(crate) fn runner_env(paths: &TurnPaths, info: &TurnInfo<'_>) -> Vec<(String, String)> {
    let shown = |p: &Path| p.display().to_string();
    [
        (env::BRIEF, shown(&paths.brief_md)),
        (env::CONTEXT, shown(&paths.brief_json)),
        (env::OUT, shown(&paths.out)),
        (env::RECEIPT, shown(&paths.receipt)),
        (env::SCHEMA, shown(&paths.schema)),
        (env::TURN, info.turn.to_string()),
        (
            env::FINAL,
            if info.final_turn { "1" } else { "0" }.to_string(),
        ),
        (env::SESSION, info.session.to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

#[cfg(test)]
mod tests {
    use super::limits::*;
    use super::*;

    const README: &str = include_str!("../../README.md");
    const RUNNERS: &str = include_str!("../../docs/runners.md");
    const RECEIPT: &str = include_str!("../../docs/receipt.md");

    /// The README's section between `## Runner protocol, in short` and the next `## `.
    fn readme_protocol() -> &'static str {
        let start = README
            .find("## Runner protocol, in short")
            .expect("README has a \"Runner protocol, in short\" section");
        let rest = &README[start + 3..];
        &rest[..rest.find("\n## ").unwrap_or(rest.len())]
    }

    #[test]
    fn every_variable_is_documented_in_the_readme_and_in_runners_md() {
        for name in env::ALL {
            assert!(
                readme_protocol().contains(&format!("`{name}`")),
                "README's runner protocol lacks {name}"
            );
            assert!(
                RUNNERS.contains(&format!("| `{name}` |")),
                "docs/runners.md's table lacks {name}"
            );
        }
    }

    #[test]
    fn the_environment_has_every_variable_once_with_the_turns_files() {
        let paths = TurnPaths::new(Path::new("/s/turns/002"));
        let env = runner_env(
            &paths,
            &TurnInfo {
                turn: 2,
                final_turn: true,
                session: "intent-1-x",
            },
        );
        let names: Vec<&str> = env.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(names, env::ALL);
        let get = |k: &str| env.iter().find(|(n, _)| n == k).unwrap().1.as_str();
        assert_eq!(get(env::RECEIPT), "/s/turns/002/out/receipt.json");
        assert_eq!(get(env::OUT), "/s/turns/002/out");
        assert_eq!(get(env::BRIEF), "/s/turns/002/brief.md");
        assert_eq!(get(env::CONTEXT), "/s/turns/002/brief.json");
        assert_eq!(get(env::SCHEMA), "/s/turns/002/receipt.schema.json");
        assert_eq!(get(env::FINAL), "1");
        assert_eq!(get(env::TURN), "2");
        assert_eq!(get(env::SESSION), "intent-1-x");
    }

    #[test]
    fn every_file_name_is_documented() {
        for name in [
            files::BRIEF_MD,
            files::BRIEF_JSON,
            files::RECEIPT,
            files::RUNNER_LOG,
        ] {
            assert!(RUNNERS.contains(name), "docs/runners.md never names {name}");
        }
        assert!(README.contains(&format!("{}/", files::OUT_DIR)));
        assert!(README.contains(files::RUNNER_LOG));
        assert!(RECEIPT.contains(&format!("$INTERVIEW_OUT/{}", files::RECEIPT)));
    }

    /// Each limit as docs/receipt.md states it.
    #[test]
    fn every_limit_is_stated_in_receipt_md() {
        let rows = [
            format!("| `version` | the integer `{VERSION}` |"),
            format!("| `questions` | {MIN_QUESTIONS} to {MAX_QUESTIONS} questions |"),
            format!("{{0,{}}}$", MAX_TOPIC_CHARS - 1),
            format!("| `questions[i].question_text` | 1 to {MAX_QUESTION_TEXT_CHARS} characters"),
            format!(
                "an integer from {} (matters little) to {} (blocks the work)",
                SEVERITY_RANGE.start(),
                SEVERITY_RANGE.end()
            ),
            format!("otherwise {MIN_OPTIONS} to {MAX_OPTIONS} options"),
            format!("| `options[j].label` | 1 to {MAX_OPTION_CHARS} characters"),
            format!("| `options[j].value` | 1 to {MAX_OPTION_CHARS} characters"),
            format!("| `title` | 1 to {MAX_TITLE_CHARS} characters"),
            format!("at most {MAX_SUMMARY_CHARS} characters"),
            format!("| `entries` | {MIN_ENTRIES} to {MAX_ENTRIES} entries |"),
            format!("| `entries[i].title` | 1 to {MAX_ENTRY_TITLE_CHARS} characters"),
            format!("| `entries[i].content` | at most {MAX_CONTENT_CHARS} characters"),
            format!("at most {MAX_SOURCES}, each 1 to {MAX_SOURCE_CHARS} characters"),
            format!("`commit:<hex>` — {MIN_COMMIT_HEX} to {MAX_COMMIT_HEX} hex digits"),
            format!(
                "at most {} KiB ({} bytes)",
                MAX_RECEIPT_BYTES / 1024,
                group_thousands(MAX_RECEIPT_BYTES)
            ),
            format!("Printed output over {} MiB", MAX_STDOUT_BYTES >> 20),
        ];
        for row in rows {
            assert!(
                RECEIPT.contains(&row),
                "docs/receipt.md does not say {row:?}"
            );
        }
        assert!(RUNNERS.contains(&format!("capped at {} MiB", RUNNER_LOG_BYTES >> 20)));
        assert!(RUNNERS.contains(&format!("up to {} MiB", MAX_STDOUT_BYTES >> 20)));
    }

    fn group_thousands(n: u64) -> String {
        let digits = n.to_string();
        let mut out = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                out.push(' ');
            }
            out.push(c);
        }
        out
    }

    #[test]
    fn the_schema_for_clis_drops_only_the_draft_declaration() {
        let full: serde_json::Value = serde_json::from_str(SCHEMA).unwrap();
        let inline: serde_json::Value = serde_json::from_str(&schema_for_cli()).unwrap();
        assert!(full.get("$schema").is_some());
        assert!(inline.get("$schema").is_none());
        let mut without = full.clone();
        without.as_object_mut().unwrap().remove("$schema");
        assert_eq!(inline, without);
    }
}
