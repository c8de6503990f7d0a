//! Settings: `interview.toml` at the repository root (shared), `.interview/config.toml` (local
//! overrides), then flags. Unknown keys are errors naming the file and the key.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Deserializer, de};

use crate::error::{Error, Result};
use crate::protocol::ReceiptFrom;
use crate::sandbox::Mode;
use crate::session::OnChange;

mod guard_allow;

/// A configuration file larger than this is refused.
const MAX_CONFIG_BYTES: u64 = 256 * 1024;

/// One settings file, every field optional so files can be layered. Every value is typed here,
/// at the edge: a wrong one fails to parse, and [`read_file`] names the file and the key.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ConfigFile {
    pub runner: Option<RunnerSetting>,
    pub max_turns: Option<u32>,
    pub turn_timeout: Option<u64>,
    pub grace: Option<u64>,
    pub retries: Option<u32>,
    pub on_change: Option<OnChange>,
    pub reflect_out: Option<String>,
    pub intent_out: Option<String>,
    pub intent: Option<IntentConfig>,
    /// `bell = false`: never ring the terminal bell before a decision (as `--no-bell`).
    pub bell: Option<bool>,
    /// `auto`, `require`, `landlock-only` or `off` (`off` only from the local file: see
    /// docs/sandbox.md).
    pub sandbox: Option<Mode>,
    /// Globs of worktree paths `interview guard -- CMD` lets the command write (`target/**`).
    pub guard_allow: Option<Vec<String>>,
    /// Arguments added after the runner's own, e.g. `["--model", "NAME"]` (from `interview.toml`
    /// only a model choice: see docs/runners.md).
    pub runner_args: Option<Vec<String>>,
    /// Variables of the person's environment a runner gets besides the base set and its
    /// preset's own, as names or prefixes ending in `*` (`["MY_TOKEN", "MOCK_*"]`; only from
    /// the local file: see docs/sandbox.md).
    #[serde(default, deserialize_with = "variable_patterns")]
    pub runner_env: Option<Vec<String>>,
    /// More credential stores no runner reads, besides the built-in list (absolute, or under
    /// HOME as `~/…`). Both files may add; neither can remove (docs/sandbox.md).
    #[serde(default, deserialize_with = "store_paths")]
    pub hide_credentials: Option<Vec<String>>,
    /// Hosts every runner that keeps the network may reach through the sandbox's proxy besides
    /// its preset's (`["api.example.com", "127.0.0.1:8080"]`; only from the local file: see
    /// docs/sandbox.md).
    #[serde(default, deserialize_with = "host_names")]
    pub allow_hosts: Option<Vec<String>>,
}

fn host_names<'de, D: Deserializer<'de>>(
    d: D,
) -> std::result::Result<Option<Vec<String>>, D::Error> {
    let names = Vec::<String>::deserialize(d)?;
    if let Some(bad) = names
        .iter()
        .find(|n| crate::sandbox::hosts::Host::parse(n).is_none())
    {
        return Err(serde::de::Error::custom(format!(
            "{bad:?} is not a host (a name or an address, with an optional :PORT, or *.domain)"
        )));
    }
    Ok(Some(names))
}

fn store_paths<'de, D: Deserializer<'de>>(
    d: D,
) -> std::result::Result<Option<Vec<String>>, D::Error> {
    let paths = Vec::<String>::deserialize(d)?;
    if let Some(bad) = paths
        .iter()
        .find(|p| !(p.starts_with('/') || p.starts_with("~/")))
    {
        return Err(serde::de::Error::custom(format!(
            "{bad:?} is neither an absolute path nor one under HOME (`~/…`)"
        )));
    }
    Ok(Some(paths))
}

impl ConfigFile {
    /// `hide_credentials` with `~/` made HOME (`home`); a `~/` path without a HOME is left out.
    pub(crate) fn hidden_stores(&self, home: Option<&std::path::Path>) -> Vec<std::path::PathBuf> {
        self.hide_credentials
            .iter()
            .flatten()
            .filter_map(|p| match p.strip_prefix("~/") {
                Some(rest) => home.map(|h| h.join(rest)),
                None => Some(std::path::PathBuf::from(p)),
            })
            .collect()
    }
}

fn variable_patterns<'de, D: Deserializer<'de>>(
    d: D,
) -> std::result::Result<Option<Vec<String>>, D::Error> {
    let patterns = Vec::<String>::deserialize(d)?;
    for pattern in &patterns {
        crate::sandbox::env::check_pattern(pattern).map_err(de::Error::custom)?;
    }
    Ok(Some(patterns))
}

/// `runner = "NAME"`, `runner = "CMD ARGS"` or `[runner] command = [...] receipt = "file"`.
#[derive(Debug, Clone)]
pub(crate) enum RunnerSetting {
    /// A preset's name or a command line (one that splits into words: checked when read).
    Name(String),
    Table(RunnerTable),
}

/// `[runner]`: a program of the person's own and where it leaves its receipt.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RunnerTable {
    /// The program and its arguments; never empty.
    #[serde(deserialize_with = "non_empty_argv")]
    pub command: Vec<String>,
    #[serde(default = "receipt_in_a_file")]
    pub receipt: ReceiptFrom,
}

fn receipt_in_a_file() -> ReceiptFrom {
    ReceiptFrom::File
}

fn non_empty_argv<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<Vec<String>, D::Error> {
    let argv = Vec::<String>::deserialize(d)?;
    match argv.first() {
        Some(program) if !program.trim().is_empty() => Ok(argv),
        _ => Err(de::Error::custom(
            "must name a program and its arguments, e.g. [\"python3\", \"tools/runner.py\"]",
        )),
    }
}

// By hand rather than `untagged`, which would swallow what is wrong inside a `[runner]` table.
impl<'de> Deserialize<'de> for RunnerSetting {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Setting;
        impl<'de> de::Visitor<'de> for Setting {
            type Value = RunnerSetting;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a preset's name, a command line, or a [runner] table")
            }
            fn visit_str<E: de::Error>(self, text: &str) -> std::result::Result<RunnerSetting, E> {
                match shlex::split(text) {
                    Some(words) if !words.is_empty() => Ok(RunnerSetting::Name(text.to_string())),
                    Some(_) => Err(E::custom(
                        "is empty; name a preset (\"builtin\", \"claude\", …) or a command line",
                    )),
                    None => Err(E::custom(format!(
                        "{text:?} is not a command line (check the quoting)"
                    ))),
                }
            }
            fn visit_map<A: de::MapAccess<'de>>(
                self,
                map: A,
            ) -> std::result::Result<RunnerSetting, A::Error> {
                RunnerTable::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(RunnerSetting::Table)
            }
        }
        d.deserialize_any(Setting)
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct IntentConfig {
    /// Globs for the local tracker; `<id>` is replaced by the work item id.
    pub globs: Option<Vec<String>>,
}

/// What the repository's own file may not set, found by the command layer (which knows the
/// runners): the key, and why.
pub(crate) struct Refused {
    pub key: &'static str,
    pub why: String,
}

/// The merged settings of both files (local overrides shared).
#[derive(Debug, Clone, Default)]
pub(crate) struct Config {
    pub file: ConfigFile,
    /// The local file's own settings, to tell which file set a key.
    local: ConfigFile,
    shared_path: PathBuf,
    local_path: PathBuf,
}

impl Config {
    /// Read both files. `repository_may` refuses what `interview.toml` may not set (a runner
    /// of the repository's own, arguments beyond a model choice), before the local file is read.
    pub(crate) fn load(
        worktree: &Path,
        repository_may: impl FnOnce(&ConfigFile) -> std::result::Result<(), Refused>,
    ) -> Result<Config> {
        let shared_path = worktree.join("interview.toml");
        let local_path = worktree.join(".interview").join("config.toml");
        let mut shared = read_file(&shared_path)?;
        only_tighter(&mut shared, worktree);
        if let Err(refused) = repository_may(&shared) {
            return Err(Error::Config {
                path: shared_path,
                message: format!("{}: {}", refused.key, refused.why),
            });
        }
        // A committed `.interview/` (`.Interview/` on macOS) is never read as the local tier.
        if std::fs::symlink_metadata(&local_path).is_ok() {
            crate::session::tier::refuse_committed(worktree)?;
        }
        let local = read_file(&local_path)?;
        Ok(Config {
            file: merge(shared, local.clone()),
            local,
            shared_path,
            local_path,
        })
    }

    /// The file that set a key: the local one when `set_locally` says so, else the shared one.
    pub(crate) fn file_of(&self, set_locally: impl Fn(&ConfigFile) -> bool) -> &Path {
        if set_locally(&self.local) {
            &self.local_path
        } else {
            &self.shared_path
        }
    }

    /// The error for a bad value of `key`, naming the file that set it (exit 1).
    pub(crate) fn bad_value(
        &self,
        key: &str,
        set_locally: impl Fn(&ConfigFile) -> bool,
        why: &str,
    ) -> Error {
        let path = if set_locally(&self.local) {
            &self.local_path
        } else {
            &self.shared_path
        };
        Error::Config {
            path: path.clone(),
            message: format!("{key}: {why}"),
        }
    }
}

/// The repository's own file may only tighten what the person's defaults give: `sandbox` never
/// `off`, `on_change` only `fail`, no `guard_allow` glob that matches a tracked file or the
/// git directory, no `runner_env` (a repository would list `AWS_SECRET_ACCESS_KEY`) and no
/// `allow_hosts` (it would name its own server to send the repository to).
/// Anything looser is ignored with a warning naming the key (docs/config.md, "What the
/// repository may set").
fn only_tighter(shared: &mut ConfigFile, worktree: &Path) {
    let warn = |key: &str, value: &str, why: &str| {
        crate::output::stderr_line(&format!(
            "interview: warning: interview.toml: {key} = {value} is ignored ({why})"
        ));
    };
    if shared.sandbox == Some(Mode::Off) {
        warn(
            "sandbox",
            "\"off\"",
            "a repository cannot turn off its own sandbox; use --sandbox off or .interview/config.toml",
        );
        shared.sandbox = None;
    }
    if let Some(value @ (OnChange::Ask | OnChange::Warn)) = shared.on_change {
        warn(
            "on_change",
            &format!("{:?}", value.as_str()),
            "a repository may only make the guard stricter (\"fail\"); use --on-change or .interview/config.toml",
        );
        shared.on_change = None;
    }
    if let Some(globs) = shared.guard_allow.take() {
        let kept = guard_allow::tighter(worktree, globs, |glob, path| {
            warn(
                "guard_allow",
                &format!("[{glob:?}]"),
                &format!(
                    "it matches {path}, which a repository cannot allow a command to change; use --allow or .interview/config.toml"
                ),
            );
        });
        shared.guard_allow = Some(kept);
    }
    if let Some(names) = shared.runner_env.take() {
        warn(
            "runner_env",
            &format!("{names:?}"),
            "a repository cannot hand your variables to a runner; list them in .interview/config.toml",
        );
    }
    if let Some(hosts) = shared.allow_hosts.take() {
        warn(
            "allow_hosts",
            &format!("{hosts:?}"),
            "a repository cannot open the network to a host; list it in .interview/config.toml",
        );
    }
}

fn read_file(path: &Path) -> Result<ConfigFile> {
    // The repository's own file: capped, and never blocking on a FIFO planted in its place.
    let bytes = match crate::input::read_capped(path, MAX_CONFIG_BYTES) {
        Ok(b) => b,
        Err(crate::input::InputError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(ConfigFile::default());
        }
        Err(e) => {
            return Err(Error::Config {
                path: PathBuf::from(path),
                message: format!("cannot read it: {e}"),
            });
        }
    };
    let text = String::from_utf8(bytes).map_err(|e| Error::Config {
        path: PathBuf::from(path),
        message: format!("not UTF-8 (byte {})", e.utf8_error().valid_up_to()),
    })?;
    let text = crate::input::without_bom(&text);
    toml::from_str(text).map_err(|e| Error::Config {
        path: PathBuf::from(path),
        message: explain(text, &e),
    })
}

/// A parse error as `key: what is wrong (line N)`, the key found from where the error points.
fn explain(text: &str, error: &toml::de::Error) -> String {
    let whole = || error.to_string().trim_end().to_string();
    let Some(span) = error.span() else {
        return whole();
    };
    let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
    match key_at(text, span.start) {
        Some(key) => format!("{key}: {} (line {line})", error.message().trim_end()),
        None => whole(),
    }
}

/// The dotted key (`runner.receipt`) whose entry holds byte `at` of a TOML document.
fn key_at(text: &str, at: usize) -> Option<String> {
    let document = toml::de::DeTable::parse(text).ok()?;
    let mut key = Vec::new();
    entry_at(document.get_ref(), at, &mut key).then(|| key.join("."))
}

/// Whether an entry of `table` (at any depth: a `[table]`'s span is only its header) holds byte
/// `at`; its key is left in `key`.
fn entry_at(table: &toml::de::DeTable, at: usize, key: &mut Vec<String>) -> bool {
    for (name, value) in table.iter() {
        key.push(name.get_ref().to_string());
        let found = match value.get_ref() {
            _ if name.span().contains(&at) => true,
            toml::de::DeValue::Table(inner) => {
                entry_at(inner, at, key) || value.span().contains(&at)
            }
            _ => value.span().contains(&at),
        };
        if found {
            return true;
        }
        key.pop();
    }
    false
}

fn merge(shared: ConfigFile, local: ConfigFile) -> ConfigFile {
    ConfigFile {
        runner: local.runner.or(shared.runner),
        max_turns: local.max_turns.or(shared.max_turns),
        turn_timeout: local.turn_timeout.or(shared.turn_timeout),
        grace: local.grace.or(shared.grace),
        retries: local.retries.or(shared.retries),
        on_change: local.on_change.or(shared.on_change),
        reflect_out: local.reflect_out.or(shared.reflect_out),
        intent_out: local.intent_out.or(shared.intent_out),
        intent: local.intent.or(shared.intent),
        bell: local.bell.or(shared.bell),
        sandbox: local.sandbox.or(shared.sandbox),
        guard_allow: local.guard_allow.or(shared.guard_allow),
        runner_args: local.runner_args.or(shared.runner_args),
        runner_env: local.runner_env.or(shared.runner_env),
        allow_hosts: local.allow_hosts.or(shared.allow_hosts),
        // Both add: a repository may hide more, never less.
        hide_credentials: match (local.hide_credentials, shared.hide_credentials) {
            (None, None) => None,
            (a, b) => Some(a.into_iter().chain(b).flatten().collect()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_sandbox_mode_is_read_as_written_in_the_docs() {
        for (text, mode) in [
            ("auto", Mode::Auto),
            ("require", Mode::Require),
            ("landlock-only", Mode::LandlockOnly),
            ("off", Mode::Off),
        ] {
            let file: ConfigFile = toml::from_str(&format!("sandbox = {text:?}")).unwrap();
            assert_eq!(file.sandbox, Some(mode), "{text}");
        }
    }

    #[test]
    fn hide_credentials_takes_absolute_and_home_paths_only() {
        let file: ConfigFile =
            toml::from_str(r#"hide_credentials = ["~/keys", "/srv/token"]"#).unwrap();
        assert_eq!(
            file.hidden_stores(Some(std::path::Path::new("/home/ann"))),
            [
                std::path::PathBuf::from("/home/ann/keys"),
                std::path::PathBuf::from("/srv/token")
            ]
        );
        let err = toml::from_str::<ConfigFile>(r#"hide_credentials = ["keys"]"#).unwrap_err();
        assert!(
            err.to_string().contains("neither an absolute path"),
            "{err}"
        );
    }

    #[test]
    fn runner_env_takes_names_and_prefixes_and_nothing_that_matches_everything() {
        let file: ConfigFile = toml::from_str(r#"runner_env = ["MY_TOKEN", "MOCK_*"]"#).unwrap();
        assert_eq!(file.runner_env.unwrap(), ["MY_TOKEN", "MOCK_*"]);
        let text = "runner_env = [\"MY_TOKEN\", \"*\"]\n";
        let error = toml::from_str::<ConfigFile>(text).unwrap_err();
        let said = explain(text, &error);
        assert!(
            said.starts_with("runner_env: \"*\" is not a variable's name"),
            "{said}"
        );
    }

    #[test]
    fn allow_hosts_takes_hosts_and_only_from_the_persons_own_file() {
        let text = "allow_hosts = [\"api.example.com\", \"127.0.0.1:8080\"]\n";
        let mut shared: ConfigFile = toml::from_str(text).unwrap();
        let local: ConfigFile = toml::from_str(text).unwrap();
        assert_eq!(
            merge(ConfigFile::default(), local).allow_hosts.unwrap(),
            ["api.example.com", "127.0.0.1:8080"]
        );
        only_tighter(&mut shared, Path::new("/nonexistent"));
        assert_eq!(merge(shared, ConfigFile::default()).allow_hosts, None);
        let text = "allow_hosts = [\"https://x.test/\"]\n";
        let error = toml::from_str::<ConfigFile>(text).unwrap_err();
        assert!(
            explain(text, &error).starts_with("allow_hosts: \"https://x.test/\" is not a host"),
            "{}",
            explain(text, &error)
        );
    }

    #[test]
    fn a_parse_error_names_the_dotted_key_at_any_depth() {
        let text = "max_turns = 2\n\n[runner]\ncommand = [\"sh\"]\nreceipt = \"x\"\n";
        let error = toml::from_str::<ConfigFile>(text).unwrap_err();
        assert_eq!(
            explain(text, &error),
            "runner.receipt: unknown variant `x`, expected `file` or `stdout` (line 5)"
        );
    }
}
