//! The sandbox a runner starts in: Landlock write rules, its own PID and mount namespaces where
//! the kernel allows them, and an environment without handles to outside servers.
//!
//! The tool never applies any of this to itself. Every spawn of a runner goes through
//! [`crate::process`], whose confinement hook [`Prepared`] implements: it starts our own
//! executable as a small launcher (`interview __sandbox run POLICY -- RUNNER…`, see [`launch`]),
//! which confines itself and then executes the runner. The launcher is a fresh single-threaded process, so it may fork,
//! allocate and make any system call between the steps; nothing unsafe runs between fork and
//! exec in the multi-threaded tool. See `docs/sandbox.md`.

mod codex;
pub mod env;
pub mod launch;
#[cfg(target_os = "linux")]
mod namespace;
pub mod paths;
#[cfg(target_os = "linux")]
mod rules;
pub mod seatbelt;
mod stop;
pub mod support;
mod test_hook;
pub mod writes;

/// Elsewhere the launcher never asks for namespaces or Landlock (the probe says there are
/// none): these only keep its Linux steps compiling.
#[cfg(not(target_os = "linux"))]
mod namespace {
    const NONE: &str = "user namespaces exist only on Linux";
    pub fn enter(_: &super::launch::Policy) -> Result<(), String> {
        Err(NONE.into())
    }
    pub fn mount_proc() -> Result<(), String> {
        Err(NONE.into())
    }
}
#[cfg(not(target_os = "linux"))]
mod rules {
    pub struct Applied {
        pub enforced: bool,
    }
    pub fn restrict(_: &super::launch::Policy) -> Result<Applied, String> {
        Err("Landlock exists only on Linux".into())
    }
}

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
pub use support::Support;

/// `--sandbox auto|require|off` (config `sandbox`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Use what this machine offers; say once what is enforced.
    #[default]
    Auto,
    /// Refuse to run a turn without Landlock.
    Require,
    /// No sandbox: only the change guard (detection).
    Off,
}

impl Mode {
    pub fn parse_setting(text: &str) -> Option<Mode> {
        match text {
            "auto" => Some(Mode::Auto),
            "require" => Some(Mode::Require),
            "off" => Some(Mode::Off),
            _ => None,
        }
    }
}

/// What a run of the tool applies to every runner it starts: decided once from the mode and the
/// machine's support.
#[derive(Debug, Clone)]
pub struct Confinement {
    pub support: Support,
    /// Never writable: the worktree, its git directories, the git configuration files.
    pub protected: Vec<PathBuf>,
    /// Writable besides the turn's own directories: the preset's state directories.
    pub state: Vec<PathBuf>,
}

/// The one line `auto` prints: what holds on this machine.
pub fn enforced_line(support: &Support) -> String {
    format!("interview: sandbox: {}", support.summary())
}

/// Decide what to apply for `mode`. `Ok(None)`: no sandbox (off, or auto on a machine without
/// Landlock). `require` without Landlock is an error naming the reason.
pub fn decide(mode: Mode) -> Result<Option<Support>> {
    if mode == Mode::Off {
        return Ok(None);
    }
    let support = Support::probe();
    if !support.confines_writes() {
        if mode == Mode::Require {
            return Err(Error::Sandbox(format!(
                "--sandbox require: refusing to run a turn without {}",
                support.write_rules_missing()
            )));
        }
        if !support.namespaces {
            return Ok(None);
        }
    }
    Ok(Some(support))
}

impl Confinement {
    /// The confinement for runners in the repository at `worktree` (git directory `common_dir`),
    /// with the state directories of `preset` writable.
    pub fn new(
        support: Support,
        worktree: &Path,
        common_dir: &Path,
        preset: Option<&str>,
    ) -> Confinement {
        Confinement {
            support,
            protected: paths::protected(worktree, common_dir),
            state: paths::state_dirs(preset),
        }
    }

    /// Prepare one start of a runner: a private temporary directory, the launcher's command
    /// line, and the environment changes. `writable` are the turn's own writable directories
    /// (its `out/`). Keep the returned [`Prepared`] until the runner and all it started are gone.
    pub fn prepare(
        &self,
        argv: &[String],
        cwd: &Path,
        writable: &[PathBuf],
    ) -> std::io::Result<Prepared> {
        let tmp = tempfile::Builder::new()
            .prefix("interview-turn-")
            .tempdir_in(self.temp_base())?;
        let tmp_path = std::fs::canonicalize(tmp.path())?;
        let grant = StateGrant::decide(&self.support, argv, &self.state);
        if grant.argv.is_none() {
            codex::warn_once(argv, self.support.confines_writes());
        }
        let argv = grant.argv.as_deref().unwrap_or(argv);
        let program = argv
            .first()
            .ok_or_else(|| std::io::Error::other("the runner command is empty"))?;
        let resolved = resolve_program(program, cwd).ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "not found on PATH (or not executable)",
            )
        })?;
        let mut writable: Vec<PathBuf> = writable
            .iter()
            .filter_map(|p| std::fs::canonicalize(p).ok())
            .chain(grant.writable().cloned())
            .collect();
        writable.sort();
        writable.dedup();
        let mut visible: Vec<PathBuf> = vec![cwd.to_path_buf(), resolved.clone()];
        visible.extend(self.protected.iter().cloned());
        visible.extend(writable.iter().cloned());
        // Readable where they are not writable (`~/.cache` for Codex, see codex.rs).
        visible.extend(
            self.state
                .iter()
                .filter_map(|p| std::fs::canonicalize(p).ok()),
        );
        visible.extend(
            argv.iter()
                .skip(1)
                .map(PathBuf::from)
                .filter(|p| p.is_absolute()),
        );
        if let Ok(exe) = std::env::current_exe() {
            visible.push(exe);
        }
        if let Some(path) = std::env::var_os("PATH") {
            visible.extend(std::env::split_paths(&path).filter(|p| p.is_absolute()));
        }
        if let Some(home) = std::env::var_os("HOME") {
            visible.push(PathBuf::from(home));
        }
        let policy = launch::Policy {
            tool_pid: std::process::id() as i32,
            landlock: self.support.landlock_abi.is_some(),
            namespaces: self.support.namespaces,
            seatbelt: self.support.seatbelt,
            tmp: tmp_path.clone(),
            writable,
            protected: self.protected.clone(),
            visible,
            throwaway: grant.throwaway,
        };
        let exe = std::env::current_exe()?;
        let mut launcher = vec![
            exe.display().to_string(),
            launch::ARG.to_string(),
            "run".to_string(),
            serde_json::to_string(&policy).map_err(std::io::Error::other)?,
            "--".to_string(),
            resolved.display().to_string(),
        ];
        launcher.extend(argv.iter().skip(1).cloned());
        Ok(Prepared {
            argv: launcher,
            _tmp: tmp,
        })
    }
}

/// What a runner may write of its CLI's state on this machine: the one place it is decided, for
/// the launcher's rules ([`Confinement::prepare`]) and for `interview runners` alike.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateGrant {
    /// Writable, and what is written stays: the state directories (and files) that exist, as
    /// canonical paths.
    pub kept: Vec<PathBuf>,
    /// Writable for the turn only: replaced, in the runner's mount namespace, by a throwaway
    /// view of their entries (Codex's home under its permission profile, see codex.rs).
    pub throwaway: Vec<PathBuf>,
    /// The command line started instead of the one given (Codex's read-only sandbox replaced by
    /// the profile), if any.
    pub argv: Option<Vec<String>>,
}

impl StateGrant {
    /// For the runner command line `argv` under `support`, whose CLI's state directories are
    /// `state` ([`paths::state_dirs`]).
    pub fn decide(support: &Support, argv: &[String], state: &[PathBuf]) -> StateGrant {
        // Codex's read-only sandbox cannot start inside ours: with our mount namespace its
        // commands get its network block under our rules instead, and its state becomes a
        // throwaway view (see codex.rs); elsewhere the person is told it runs no command.
        let profiled = (support.landlock_abi.is_some()
            && support.namespaces
            && paths::cli_of(argv) == Some("codex"))
        .then(|| codex::within_ours(argv))
        .flatten();
        match profiled {
            Some(argv) => StateGrant {
                kept: Vec::new(),
                throwaway: paths::codex_home()
                    .and_then(|h| std::fs::canonicalize(h).ok())
                    .filter(|h| h.is_dir())
                    .into_iter()
                    .collect(),
                argv: Some(argv),
            },
            None => StateGrant {
                kept: state
                    .iter()
                    .filter_map(|p| std::fs::canonicalize(p).ok())
                    .collect(),
                throwaway: Vec::new(),
                argv: None,
            },
        }
    }

    /// Everything the runner may write of the state, kept or not.
    pub fn writable(&self) -> impl Iterator<Item = &PathBuf> {
        self.kept.iter().chain(&self.throwaway)
    }
}

impl Confinement {
    /// Where private temporary directories go: the usual place, unless that is inside a
    /// protected path (a TMPDIR pointing into the repository), then /tmp.
    fn temp_base(&self) -> PathBuf {
        let base = std::env::temp_dir();
        let real = std::fs::canonicalize(&base).unwrap_or_else(|_| base.clone());
        if self
            .protected
            .iter()
            .any(|p| base.starts_with(p) || real.starts_with(p))
        {
            PathBuf::from("/tmp")
        } else {
            real
        }
    }
}

/// One prepared start: run `argv` (the launcher) instead; dropping it removes the private
/// TMPDIR.
#[derive(Debug)]
pub struct Prepared {
    pub argv: Vec<String>,
    _tmp: tempfile::TempDir,
}

/// Where `program` is, the way `execvp` would find it: as given when it has a slash (relative to
/// `cwd`), else the first executable file on PATH.
fn resolve_program(program: &str, cwd: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let executable = |p: &Path| {
        std::fs::metadata(p)
            .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
            .unwrap_or(false)
    };
    if program.contains('/') {
        let path = cwd.join(program);
        return executable(&path).then_some(path);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| cwd.join(dir).join(program))
        .find(|p| executable(p))
}

impl crate::process::Confinement for Prepared {
    /// The launcher, which confines itself and then executes the runner.
    fn argv(&self, _argv: &[std::ffi::OsString]) -> std::io::Result<Vec<std::ffi::OsString>> {
        Ok(self.argv.iter().map(Into::into).collect())
    }
}
