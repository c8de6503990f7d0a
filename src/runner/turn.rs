//! What a runner needs around it for one turn: its argv with the placeholders filled (once a
//! turn: what the sandbox needs of the CLI it starts is decided from it here too), where it
//! starts, its extra environment, and the files a preset is handed (the wire schema, a policy,
//! the files it may read).
//!
//! Not for: the protocol's own environment (`protocol::runner_env`) or starting it (`dispatch`).

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::RunnerSpec;
use super::presets::{self, Preset};
use crate::error::{Error, Result};
use crate::protocol::{TurnPaths, files, wire};
use crate::sandbox::Agent;

/// At most this many repository files are handed to aider to read.
const MAX_READ_FILES: usize = 20;

/// A turn's runner, ready to start.
#[derive(Debug)]
pub(crate) struct TurnSetup {
    pub argv: Vec<String>,
    /// The worktree, or an empty scratch directory outside it (see [`Preset::scratch_cwd`]).
    pub cwd: PathBuf,
    /// Added to the protocol's environment.
    pub env: Vec<(String, String)>,
    /// The scratch directory, removed when it is dropped (after the turn).
    pub scratch: Option<tempfile::TempDir>,
    /// What the sandbox must know of the agent CLI the argv starts: the preset's, or the one
    /// whose program a command of one's own starts (its state belongs to the CLI).
    pub agent: Option<Agent>,
}

impl RunnerSpec {
    fn preset_entry(&self) -> Option<&'static Preset> {
        self.preset.as_deref().and_then(presets::preset)
    }

    /// How the brief tells this runner to return its receipt; `None`: write it to the file.
    pub(crate) fn returns(&self) -> Option<String> {
        self.preset_entry().map(Preset::returns)
    }

    /// How this runner streams the agent's activity, when it is a preset whose CLI does.
    pub(crate) fn events(&self) -> Option<presets::Events> {
        self.preset_entry().and_then(|p| p.events)
    }

    /// How this runner's CLI says a failure a retry cannot fix, when it is a preset.
    pub(crate) fn unfixable(&self) -> Option<presets::Recognise> {
        self.preset_entry().map(|p| p.unfixable)
    }

    /// How this runner's receipts are written.
    pub(crate) fn form(&self) -> crate::receipt::Form {
        match self.preset_entry().and_then(|p| p.wire) {
            Some(_) => crate::receipt::Form::Wire,
            None => crate::receipt::Form::Strict,
        }
    }

    /// Write what the preset is handed this turn and fill in its argv. `facts` are the
    /// subject's (they name the files aider may read).
    pub(crate) fn prepare_turn(
        &self,
        paths: &TurnPaths,
        worktree: &Path,
        facts: &Value,
    ) -> Result<TurnSetup> {
        let preset = self.preset_entry();
        let family = preset.and_then(|p| p.wire).unwrap_or(wire::Family::OpenAi);
        let wire_path = paths.dir.join(files::WIRE_SCHEMA);
        let wire_text = wire::schema_text(family);
        write(&wire_path, &wire_text)?;
        let policy = paths.dir.join(files::GEMINI_POLICY);
        if let Some(text) = preset.and_then(|p| p.policy) {
            write(&policy, text)?;
        }
        let scratch = match preset {
            Some(p) if p.scratch_cwd => Some(
                tempfile::Builder::new()
                    .prefix(&format!("interview-{}-", p.name))
                    .tempdir()
                    .map_err(|e| Error::io("cannot make the runner's scratch directory", e))?,
            ),
            _ => None,
        };
        let read_files = if preset.is_some_and(|p| p.reads_files) {
            files_to_read(facts, worktree)
        } else {
            Vec::new()
        };
        let shown = |p: &Path| p.display().to_string();
        // `{self}`: this executable, for the runners built into it.
        let this = std::env::current_exe()
            .map_err(|e| Error::io("cannot find the interview executable", e))?;
        let vars = [
            ("{self}", shown(&this)),
            ("{schema_text}", crate::protocol::schema_for_cli()),
            ("{schema}", shown(&paths.schema)),
            ("{wire_schema_text}", wire_text),
            ("{wire_schema}", shown(&wire_path)),
            ("{policy}", shown(&policy)),
            ("{worktree}", shown(worktree)),
            ("{out}", shown(&paths.out)),
            ("{brief}", shown(&paths.brief_md)),
            ("{receipt}", shown(&paths.receipt)),
        ];
        let mut argv = Vec::new();
        for arg in self.argv.iter().chain(&self.extra_args) {
            if arg == "{read_files}" {
                for file in &read_files {
                    argv.push("--read".to_string());
                    argv.push(shown(file));
                }
                continue;
            }
            argv.push(fill(arg, &vars));
        }
        let agent = preset
            .or_else(|| presets::by_program(&argv))
            .map(|p| p.agent);
        Ok(TurnSetup {
            argv,
            cwd: scratch
                .as_ref()
                .map(|d| d.path().to_path_buf())
                .unwrap_or_else(|| worktree.to_path_buf()),
            env: preset
                .map(|p| {
                    p.env
                        .iter()
                        .map(|(k, v)| (k.to_string(), v.to_string()))
                        .collect()
                })
                .unwrap_or_default(),
            scratch,
            agent,
        })
    }
}

/// Every placeholder replaced, in one pass (a value is never expanded again).
fn fill(arg: &str, vars: &[(&str, String)]) -> String {
    let mut out = String::new();
    let mut rest = arg;
    'outer: while !rest.is_empty() {
        for (name, value) in vars {
            if let Some(after) = rest.strip_prefix(name) {
                out.push_str(value);
                rest = after;
                continue 'outer;
            }
        }
        let mut chars = rest.chars();
        if let Some(c) = chars.next() {
            out.push(c);
        }
        rest = chars.as_str();
    }
    out
}

/// Write one of the files a turn hands its runner: atomically, not synced (each attempt writes
/// it afresh; after a crash the turn is run again).
fn write(path: &Path, text: &str) -> Result<()> {
    use crate::atomic::Durability;
    crate::atomic::write_via(path, text.as_bytes(), None, None, Durability::Replaced)
        .map_err(|e| Error::io(format!("cannot write {}", path.display()), e))
}

/// The repository files the subject's facts name (the work item; the most churned files of a
/// range), as absolute paths: regular files only, never through a symbolic link.
pub(super) fn files_to_read(facts: &Value, worktree: &Path) -> Vec<PathBuf> {
    let mut named: Vec<&str> = Vec::new();
    if let Some(p) = facts.get("path").and_then(Value::as_str) {
        named.push(p);
    }
    if let Some(churn) = facts.get("churn").and_then(Value::as_array) {
        named.extend(
            churn
                .iter()
                .filter_map(|c| c.get("path").and_then(Value::as_str)),
        );
    }
    let mut out: Vec<PathBuf> = Vec::new();
    for name in named {
        if out.len() >= MAX_READ_FILES {
            break;
        }
        if let Some(path) = inside(worktree, name)
            && !out.contains(&path)
        {
            out.push(path);
        }
    }
    out
}

/// `worktree/rel` when `rel` is a plain relative path whose every component is a real
/// directory or, last, a regular file (no symbolic link, no `..`, nothing under `.git`).
fn inside(worktree: &Path, rel: &str) -> Option<PathBuf> {
    let rel = Path::new(rel);
    let mut at = worktree.to_path_buf();
    let parts: Vec<_> = rel.components().collect();
    for (i, part) in parts.iter().enumerate() {
        let std::path::Component::Normal(name) = part else {
            return None;
        };
        if i == 0 && crate::own_writes::names::is_protected(name) {
            return None;
        }
        at.push(name);
        let meta = at.symlink_metadata().ok()?;
        let last = i + 1 == parts.len();
        if (last && !meta.is_file()) || (!last && !meta.is_dir()) {
            return None;
        }
    }
    (!parts.is_empty()).then_some(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(name: &str) -> RunnerSpec {
        presets::lookup(name).unwrap()
    }

    fn setup(name: &str, dir: &Path, facts: &Value) -> TurnSetup {
        let turn = dir.join("turn");
        std::fs::create_dir_all(turn.join("out")).unwrap();
        spec(name)
            .prepare_turn(&TurnPaths::new(&turn), dir, facts)
            .unwrap()
    }

    #[test]
    fn codex_gets_the_wire_schema_file_and_starts_in_the_worktree() {
        let dir = tempfile::tempdir().unwrap();
        let s = setup("codex", dir.path(), &Value::Null);
        let i = s.argv.iter().position(|a| a == "--output-schema").unwrap();
        let file = PathBuf::from(&s.argv[i + 1]);
        assert_eq!(file, dir.path().join("turn").join(files::WIRE_SCHEMA));
        let text = std::fs::read_to_string(file).unwrap();
        assert_eq!(text, wire::schema_text(wire::Family::OpenAi));
        assert_eq!(s.cwd, dir.path());
        assert!(s.scratch.is_none());
    }

    #[test]
    fn claude_gets_the_wire_schema_inline() {
        let dir = tempfile::tempdir().unwrap();
        let s = setup("claude", dir.path(), &Value::Null);
        let i = s.argv.iter().position(|a| a == "--json-schema").unwrap();
        assert_eq!(s.argv[i + 1], wire::schema_text(wire::Family::Anthropic));
        assert_eq!(spec("claude").form(), crate::receipt::Form::Wire);
    }

    #[test]
    fn gemini_starts_in_an_empty_scratch_directory_with_its_policy_and_the_worktree_included() {
        let dir = tempfile::tempdir().unwrap();
        let s = setup("gemini", dir.path(), &Value::Null);
        let scratch = s.scratch.as_ref().unwrap().path().to_path_buf();
        assert_eq!(s.cwd, scratch);
        assert!(!scratch.starts_with(dir.path()));
        assert_eq!(std::fs::read_dir(&scratch).unwrap().count(), 0);
        let pair = |flag: &str| {
            let i = s.argv.iter().position(|a| a == flag).expect(flag);
            s.argv[i + 1].clone()
        };
        assert_eq!(
            pair("--include-directories"),
            dir.path().display().to_string()
        );
        let policy = std::fs::read_to_string(pair("--policy")).unwrap();
        assert_eq!(
            Some(policy.as_str()),
            spec("gemini").preset_entry().unwrap().policy
        );
        for tool in [
            "exit_plan_mode",
            "write_file",
            "replace",
            "run_shell_command",
            "invoke_agent",
        ] {
            assert!(policy.contains(&format!("\"{tool}\"")), "{tool}");
        }
        drop(s);
        assert!(!scratch.exists(), "the scratch directory outlived the turn");
        assert_eq!(spec("gemini").form(), crate::receipt::Form::Strict);
    }

    #[test]
    fn aider_reads_the_files_the_facts_name_but_never_through_a_link() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("docs/intents")).unwrap();
        std::fs::write(dir.path().join("docs/intents/42.md"), "# 42\n").unwrap();
        std::fs::write(dir.path().join("src.rs"), "fn main() {}\n").unwrap();
        std::os::unix::fs::symlink("/etc/passwd", dir.path().join("secret")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("docs"), dir.path().join("linked")).unwrap();
        let facts = serde_json::json!({
            "path": "docs/intents/42.md",
            "churn": [{"path": "src.rs"}, {"path": "secret"}, {"path": "linked/intents/42.md"},
                      {"path": "../outside"}, {"path": ".git/config"}, {"path": "missing.rs"}]
        });
        let s = setup("aider", dir.path(), &facts);
        let reads: Vec<&String> = s
            .argv
            .windows(2)
            .filter(|w| w[0] == "--read")
            .map(|w| &w[1])
            .collect();
        assert_eq!(
            reads,
            [
                &dir.path().join("docs/intents/42.md").display().to_string(),
                &dir.path().join("src.rs").display().to_string()
            ]
        );
        assert!(!s.argv.iter().any(|a| a.contains('{')), "{:?}", s.argv);
        assert!(
            s.env
                .contains(&("COLUMNS".to_string(), "100000".to_string()))
        );
        assert!(s.scratch.is_some());
    }

    #[test]
    fn extra_args_follow_the_preset_and_placeholders_are_filled_once() {
        let dir = tempfile::tempdir().unwrap();
        let mut spec = spec("claude");
        spec.extra_args = vec!["--model".into(), "{out}".into()];
        let turn = dir.path().join("turn");
        std::fs::create_dir_all(&turn).unwrap();
        let s = spec
            .prepare_turn(&TurnPaths::new(&turn), dir.path(), &Value::Null)
            .unwrap();
        assert_eq!(
            &s.argv[s.argv.len() - 2..],
            ["--model", &turn.join("out").display().to_string()]
        );
        assert_eq!(
            fill(
                "{out}{brief}",
                &[("{out}", "{brief}".into()), ("{brief}", "b".into())]
            ),
            "{brief}b"
        );
    }
}
