//! The sandbox a runner starts in: Landlock write rules, its own PID and mount namespaces where
//! the kernel allows them (`linux/`), a Seatbelt profile on macOS (`macos/`), and an environment
//! by allow list. What is decided here, in the tool, is the same on both platforms.
//!
//! The tool never applies any of this to itself. Every spawn of a runner goes through
//! `crate::process`, whose launcher hook [`turn::Prepared`] implements: it starts our own
//! executable as a small launcher (`interview __sandbox run POLICY -- RUNNER…`, see [`launch`]),
//! which confines itself and then executes the runner. The launcher is a fresh single-threaded process, so it may fork,
//! allocate and make any system call between the steps; nothing unsafe runs between fork and
//! exec in the multi-threaded tool. See `docs/sandbox.md`.

pub(crate) mod agent;
pub(crate) mod env;
pub(crate) mod git_config;
pub(crate) mod home;
pub(crate) mod hosts;
pub(crate) mod launch;
pub(crate) mod leftovers;
pub(crate) mod paths;
pub(crate) mod policy;
pub(crate) mod proxy;
mod restore;
pub(crate) mod secrets;
pub(crate) mod state;
mod stop;
pub(crate) mod support;
mod test_hook;
mod turn;
pub(crate) mod writes;

// The walls each platform applies, behind one seam (as `crate::sys`): the same calls answered
// by `linux/` (Landlock, namespaces, seccomp) and `macos/` (Seatbelt). The Seatbelt profile is
// data, so its tests run on Linux too.
#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
use linux as platform;
#[cfg(any(target_os = "macos", test))]
mod macos;
#[cfg(target_os = "macos")]
use macos as platform;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
pub(crate) use agent::{Agent, Credential, Login, Nested};
pub(crate) use support::Support;

/// `--sandbox auto|require|landlock-only|off` (config `sandbox`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Mode {
    /// Use what this machine offers; say once what is enforced.
    #[default]
    Auto,
    /// Refuse to run a turn without everything the promise needs: Landlock and user namespaces.
    Require,
    /// As `require`, but accept Landlock alone (without user namespaces: `chmod`, named
    /// sockets and the CLI's state directories are then not protected).
    LandlockOnly,
    /// No sandbox: only the change guard (detection).
    Off,
}

/// `--network auto|on|off` (config `network`): the network a runner gets under the sandbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Network {
    /// None for the built-in interviewer and a command of your own (a script); an agent CLI
    /// keeps its own, and the model runner its server's port.
    #[default]
    Auto,
    /// Not restricted (but the model runner's ports).
    On,
    /// None for any runner: no TCP or UDP socket, and on Linux a network namespace of its own.
    Off,
}

/// What a run of the tool applies to every runner it starts: decided once from the mode and the
/// machine's support.
#[derive(Debug, Clone)]
pub(crate) struct Confinement {
    pub support: Support,
    /// Never writable: the worktree, its git directories, the git configuration files.
    pub protected: Vec<PathBuf>,
    /// What git's configuration names for a runner to read (paths.rs).
    pub(crate) named_by_git: paths::NamedByGit,
    /// The person's global git configuration, only its allowed keys (git_config.rs): what a
    /// runner's git reads instead of the person's files; `None`: a command of the person's own
    /// (`interview guard -- CMD`), which reads their files.
    pub(crate) git_config: Option<Vec<u8>>,
    /// Writable besides the turn's own directories: the preset's state directories.
    pub state: Vec<PathBuf>,
    /// The agent CLI the runner's command line starts: its credentials, and its own sandbox
    /// handed to ours.
    pub cli: Option<Agent>,
    /// The person's credential stores are hidden (secrets.rs): from every runner, not from a
    /// command of the person's own (`interview guard -- CMD`).
    pub hides_credentials: bool,
    /// The runner gets no network at all (see [`Network`]).
    pub network_off: bool,
    /// `--network` as asked: `on` leaves the network of a runner that keeps one unrestricted;
    /// otherwise it goes through the proxy to its allowed hosts only (hosts.rs).
    pub network: Network,
    /// Hosts the person's own config adds (`allow_hosts`) to every runner's.
    pub allow_hosts: Vec<hosts::Host>,
    /// The hosts of the agent CLI (its preset's, and those its configuration names), read once
    /// when the run's confinement is built, before its first turn: never from a file a runner
    /// could have written since the run began.
    pub(crate) cli_hosts: Vec<hosts::Host>,
    /// The most a runner may write, in MiB (`--runner-disk`; see `Policy::disk_mib`).
    pub disk_mib: u64,
    /// Credential stores the person's configuration adds to the built-in list.
    pub extra_hidden: Vec<PathBuf>,
    /// Where the session keeps the logins its CLI refreshed during a turn, for its next turns
    /// (`state::LOGINS_DIR` in its local tier; hidden from every runner); `None`: a changed
    /// login is discarded after the turn. Never the person's own file (state.rs).
    pub logins: Option<PathBuf>,
    /// What the run found on disk and in its environment for every runner it starts.
    pub(crate) located: Located,
}

/// Found once, when the run's confinement is built: none of it changes within a run, and no
/// turn can change it (docs/sandbox.md, "Built once per run").
#[derive(Debug, Clone)]
pub(crate) struct Located {
    /// Where private temporary directories go (see [`Located::temp_base`]).
    temp_base: PathBuf,
    /// Our own executable, the launcher.
    exe: Option<PathBuf>,
    /// Left visible where a mount namespace hides the rest: `PATH`'s absolute directories and
    /// where their links under HOME lead (home.rs).
    visible: Vec<PathBuf>,
    /// `HOME`, as the environment names it.
    home: Option<PathBuf>,
}

impl Located {
    fn find(protected: &[PathBuf]) -> Located {
        let mut visible = Vec::new();
        if let Some(path) = std::env::var_os("PATH") {
            visible.extend(std::env::split_paths(&path).filter(|p| p.is_absolute()));
        }
        let home = std::env::var_os("HOME").map(PathBuf::from);
        if let Some(home) = &home {
            visible.extend(self::home::path_links(home, &visible));
        }
        Located {
            temp_base: Located::temp_base(protected),
            exe: std::env::current_exe().ok(),
            visible,
            home,
        }
    }

    /// Where private temporary directories go: the usual place, unless that is inside a
    /// protected path (a TMPDIR pointing into the repository), then /tmp.
    fn temp_base(protected: &[PathBuf]) -> PathBuf {
        let base = std::env::temp_dir();
        let real = std::fs::canonicalize(&base).unwrap_or_else(|_| base.clone());
        if protected
            .iter()
            .any(|p| base.starts_with(p) || real.starts_with(p))
        {
            PathBuf::from("/tmp")
        } else {
            real
        }
    }
}

/// `--runner-disk`'s default: what a runner may write, in MiB.
pub(crate) const DISK_MIB: u64 = 1024;

/// The one line said at the first runner's start when something of the sandbox is missing on
/// this machine (nothing when all is enforced; `interview runners` has the details).
pub(crate) fn missing_line(support: &Support) -> Option<String> {
    support
        .missing_short()
        .map(|what| format!("interview: sandbox: {what}; see `interview runners`"))
}

/// What to say of the sandbox at the first runner's start: [`missing_line`], or with `verbose`
/// everything that is enforced.
pub(crate) fn note(support: &Support, verbose: bool) -> Option<String> {
    if verbose {
        Some(format!("interview: sandbox: {}", support.summary()))
    } else {
        missing_line(support)
    }
}

/// Say `note` once per run of the tool (at a terminal wrapped to its width).
pub(crate) fn say_once(note: &str) {
    use std::sync::atomic::{AtomicBool, Ordering};
    static SAID: AtomicBool = AtomicBool::new(false);
    if !SAID.swap(true, Ordering::SeqCst) {
        crate::output::stderr_note(note);
    }
}

/// Decide what to apply for `mode`. `Ok(None)`: no sandbox (off, or auto on a machine without
/// Landlock or namespaces). `require` without Landlock and namespaces, and `landlock-only`
/// without Landlock, are errors naming the reason.
pub(crate) fn decide(mode: Mode) -> Result<Option<Support>> {
    if mode == Mode::Off {
        return Ok(None);
    }
    let support = Support::probe();
    if !support.confines_writes() {
        if matches!(mode, Mode::Require | Mode::LandlockOnly) {
            return Err(Error::Sandbox(format!(
                "--sandbox {}: refusing to run a turn without {}",
                mode.name(),
                support.write_rules_missing()
            )));
        }
        if !support.namespaces {
            return Ok(None);
        }
    }
    if mode == Mode::Require && !support.seccomp && cfg!(target_os = "linux") {
        let reason = support
            .seccomp_missing
            .clone()
            .unwrap_or_else(|| "not available".into());
        return Err(Error::Sandbox(format!(
            "--sandbox require: refusing to run a turn without a seccomp filter ({reason}): \
             without it a server's named socket, the kernel keyrings and setuid bits are not \
             refused by the kernel; `--sandbox auto` runs with what there is"
        )));
    }
    if mode == Mode::Require && !support.namespaces && cfg!(target_os = "linux") {
        let reason = support
            .namespaces_missing
            .clone()
            .unwrap_or_else(|| "user namespaces are not allowed".into());
        return Err(Error::Sandbox(format!(
            "--sandbox require: refusing to run a turn without user namespaces ({reason}): \
             Landlock alone cannot keep chmod, named sockets and the CLI's state directories \
             from outliving the turn; `--sandbox landlock-only` accepts that"
        )));
    }
    Ok(Some(support))
}

impl Mode {
    /// The name as typed (`--sandbox NAME`, config `sandbox`).
    pub(crate) fn name(self) -> &'static str {
        match self {
            Mode::Auto => "auto",
            Mode::Require => "require",
            Mode::LandlockOnly => "landlock-only",
            Mode::Off => "off",
        }
    }
}

impl Confinement {
    /// The confinement for runners in the repository at `worktree` (git directory `common_dir`)
    /// started as `argv`, which start the agent CLI `cli`, with its state directories writable.
    pub(crate) fn new(
        support: Support,
        worktree: &Path,
        common_dir: &Path,
        (cli, argv): (Option<Agent>, &[String]),
        network: Network,
    ) -> Confinement {
        let network_off = match network {
            Network::Off => true,
            Network::On => false,
            Network::Auto => cli.is_none(),
        };
        let protected = paths::protected(worktree, common_dir);
        Confinement {
            support,
            located: Located::find(&protected),
            named_by_git: paths::named_by_git(worktree, common_dir),
            git_config: Some(git_config::read(worktree)),
            protected,
            state: agent::state_dirs(cli.as_ref()),
            cli_hosts: cli.map(|c| (c.hosts)(argv)).unwrap_or_default(),
            cli,
            hides_credentials: true,
            network_off,
            network,
            allow_hosts: Vec::new(),
            disk_mib: DISK_MIB,
            extra_hidden: Vec::new(),
            logins: None,
        }
    }

    /// The same, where the person's own config allows `hosts` too: a script's network with
    /// `--network auto` is then on, through the proxy, to those hosts only.
    pub(crate) fn allowing(mut self, hosts: Vec<hosts::Host>) -> Confinement {
        if self.network == Network::Auto && self.cli.is_none() && !hosts.is_empty() {
            self.network_off = false;
        }
        self.allow_hosts = hosts;
        self
    }

    /// The hosts a runner may reach through the proxy: its CLI's, as read when the run began,
    /// and the person's. `None`: it is not proxied (no network at all, or `--network on`).
    pub(crate) fn egress(&self) -> Option<Vec<hosts::Host>> {
        if self.network_off || self.network == Network::On {
            return None;
        }
        let mut allowed = self.cli_hosts.clone();
        allowed.extend(self.allow_hosts.iter().cloned());
        allowed.sort();
        allowed.dedup();
        Some(allowed)
    }

    /// The same, without the CLI's state directories (a command of the person's own, `interview
    /// guard -- CMD`: its CLI's login and own sandbox are still handled; the person's credential
    /// stores stay readable to their own command, and its disk use is not capped).
    pub(crate) fn without_state(mut self) -> Confinement {
        self.state.clear();
        self.hides_credentials = false;
        self.git_config = None;
        // Nor is its disk use capped: a build may write what it must.
        self.disk_mib = 0;
        self
    }
}

/// What a runner may write of its CLI's state on this machine: the one place it is decided, for
/// the launcher's rules ([`Confinement::prepare`]) and for `interview runners` alike.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StateGrant {
    /// Writable, and what is written stays: the state directories (and files) that exist, as
    /// canonical paths.
    pub kept: Vec<PathBuf>,
    /// Writable for the turn only: shown copy-on-write in the runner's mount namespace (see
    /// state.rs); nothing is written back, a login the CLI refreshed is kept for the session.
    pub throwaway: Vec<PathBuf>,
    /// The command line started instead of the one given (a [`Nested`] CLI's read-only sandbox
    /// replaced, Codex's by its profile), if any.
    pub argv: Option<Vec<String>>,
    /// Writable for the turn only without a mount namespace: the CLI's configuration files it
    /// may write, put back after the turn as they were (restore.rs).
    pub restored: Vec<PathBuf>,
    /// Without a mount namespace, the shared caches (`~/.cache`, `~/.npm`) are not writable: the
    /// variables that move them, each with where under the turn's TMPDIR it points.
    pub private_caches: Vec<(&'static str, &'static str)>,
}

impl StateGrant {
    /// For the runner command line `argv` of the agent CLI `cli` under `support`, whose state
    /// directories are `state` (`agent::state_dirs`).
    pub(crate) fn decide(
        support: &Support,
        cli: Option<&Agent>,
        argv: &[String],
        state: &[PathBuf],
    ) -> StateGrant {
        let existing: Vec<PathBuf> = state
            .iter()
            .filter_map(|p| std::fs::canonicalize(p).ok())
            .collect();
        if !support.namespaces {
            // Without a mount namespace there is no view to give: the CLI's own state is
            // writable and kept (the start line and `interview runners` say so), but its
            // configuration files are put back after the turn, and the caches it shares with
            // the person's other programs are moved into the turn's TMPDIR. A nested CLI gets
            // the warning.
            let shared = agent::shared_caches();
            let own: Vec<PathBuf> = existing
                .into_iter()
                .filter(|p| !shared.contains(p))
                .collect();
            let restored: Vec<PathBuf> = agent::settings(cli)
                .into_iter()
                .filter(|s| own.iter().any(|p| s.starts_with(p)))
                .collect();
            return StateGrant {
                kept: own.into_iter().filter(|p| !restored.contains(p)).collect(),
                throwaway: Vec::new(),
                argv: None,
                restored,
                // Not for a command of the person's own (no state granted, its environment kept).
                private_caches: agent::SHARED_CACHES
                    .iter()
                    .filter(|_| cli.is_some() && !state.is_empty())
                    .flat_map(|(_, vars)| vars.iter().copied())
                    .collect(),
            };
        }
        // A nested CLI's (Codex's) read-only sandbox cannot start inside ours: with our mount
        // namespace its commands get its network block under our rules instead.
        let nested = cli.and_then(|c| c.nested);
        let profiled = nested
            .filter(|_| support.landlock_abi.is_some())
            .and_then(|n| (n.within_ours)(argv));
        // Under the replacement it needs only its home (its commands get no `~/.cache`).
        let throwaway = match (&profiled, nested) {
            (Some(_), Some(n)) => (n.home)()
                .and_then(|h| std::fs::canonicalize(h).ok())
                .filter(|h| h.is_dir())
                .into_iter()
                .collect(),
            _ => existing,
        };
        StateGrant {
            kept: Vec::new(),
            throwaway,
            argv: profiled,
            restored: Vec::new(),
            private_caches: Vec::new(),
        }
    }
}

impl Confinement {
    /// The person's credential stores this runner must not read: all but its CLI's own login.
    pub(crate) fn hidden(&self) -> Vec<PathBuf> {
        if !self.hides_credentials {
            return Vec::new();
        }
        let home = std::env::var_os("HOME").map(PathBuf::from);
        // The CLI's own login, as named and by its real path.
        let mut own: Vec<PathBuf> = agent::credentials(self.cli.as_ref())
            .into_iter()
            .map(|c| c.path)
            .collect();
        if let (Some(cli), Some(home)) = (&self.cli, &home) {
            own.extend((cli.credentials)(home).into_iter().map(|c| c.path));
        }
        let mut hidden = secrets::hidden(
            home.as_deref(),
            |name| std::env::var_os(name),
            &own,
            &self.extra_hidden,
        );
        // Run as root, a runner reads files as their owner: what only root reads is hidden too.
        if nix::unistd::geteuid().is_root() {
            let mut needed: Vec<PathBuf> = std::env::current_dir().into_iter().collect();
            needed.extend(home.iter().cloned());
            needed.extend(self.located.exe.iter().cloned());
            needed.extend(self.located.visible.iter().cloned());
            needed.push(self.temp_base());
            needed.extend(own);
            let roots: Vec<PathBuf> = secrets::ROOTS_OF_THE_MACHINE
                .iter()
                .map(PathBuf::from)
                .collect();
            let (uid, gid) = (0, nix::unistd::getegid().as_raw());
            hidden.extend(secrets::closed_to_others(&roots, &needed, uid, gid));
            hidden.sort();
            hidden.dedup();
        }
        if self.git_config.is_some() {
            hidden.extend(self.named_by_git.global_outside.iter().cloned());
        }
        // The session's copies of refreshed logins: its own CLI sees them in its view only.
        hidden.extend(self.logins.iter().cloned());
        hidden
    }

    /// When the session's run ends: what to tell the person of the logins its CLI refreshed
    /// (one line each), and their copies removed ([`state::end`]).
    pub(crate) fn end_logins(&self) -> Vec<String> {
        let Some(store) = &self.logins else {
            return Vec::new();
        };
        let home = std::env::var_os("HOME").map(PathBuf::from);
        state::end(store, self.cli.as_ref(), home.as_deref())
    }

    /// Where private temporary directories go (found once, [`Located::temp_base`]).
    fn temp_base(&self) -> PathBuf {
        self.located.temp_base.clone()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    /// The configuration file the test CLI reads its hosts from, one a line.
    static CONFIG: Mutex<Option<PathBuf>> = Mutex::new(None);

    fn configured_hosts(_argv: &[String]) -> Vec<hosts::Host> {
        let path = CONFIG.lock().unwrap().clone().unwrap();
        let text = std::fs::read_to_string(path).unwrap_or_default();
        hosts::parse_all(text.lines())
    }

    /// A turn's runner rewrites its CLI's configuration (a `base_url` of its own): the hosts
    /// of every later turn of the run are still those read before the first.
    #[test]
    fn the_allowed_hosts_are_read_once_before_the_first_turn() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("config");
        std::fs::write(&config, "api.example.com\n").unwrap();
        *CONFIG.lock().unwrap() = Some(config.clone());
        let cli = Agent {
            hosts: configured_hosts,
            ..crate::runner::presets::preset("codex").unwrap().agent
        };
        let support = Support {
            landlock_abi: Some(6),
            landlock_missing: None,
            namespaces: false,
            namespaces_missing: None,
            seccomp: true,
            seccomp_missing: None,
            seatbelt: false,
            seatbelt_missing: None,
        };
        let confinement = Confinement::new(
            support,
            dir.path(),
            &dir.path().join(".git"),
            (Some(cli), &["codex".to_string()]),
            Network::Auto,
        );
        std::fs::write(&config, "api.example.com\n127.0.0.1:7778\n").unwrap();
        let allowed = confinement.egress().expect("proxied");
        assert_eq!(allowed, hosts::parse_all(["api.example.com"]));
        assert_eq!(confinement.clone().egress(), Some(allowed));
    }
}
