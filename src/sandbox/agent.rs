//! What the sandbox must know of the agent CLI a runner starts: the state it writes as it works,
//! its credential files, and — for a CLI whose own sandbox cannot start inside ours — how its
//! command line hands its commands to ours instead.
//!
//! The CLIs themselves are described by their presets (`runner/presets/`), which give the
//! sandbox an [`Agent`]; nothing here names a CLI.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// The TCP ports a runner connects to, from its command line.
pub(crate) type Ports = fn(&[String]) -> Vec<u16>;

/// One agent CLI, as the sandbox sees it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Agent {
    /// The state directories (and files) it writes as it works, given HOME (the one list of
    /// them; docs/sandbox.md shows it). `~/.cache` and `~/.npm` are added for every CLI.
    pub state: fn(&Path) -> Vec<PathBuf>,
    /// Its credential files, given HOME: the one state a turn's view passes on, to the next
    /// turns of the same session only, never to the person's file (state.rs).
    pub credentials: fn(&Path) -> Vec<Credential>,
    /// The person's own files it reads besides its state, given HOME (its configuration in
    /// HOME): shown to it read-only where HOME is shown by allow list (home.rs).
    pub reads: fn(&Path) -> Vec<PathBuf>,
    /// It reads the repository's own ignore files (`core.excludesFile` of its configuration) to
    /// hide what they ignore, and never shows their text (the model runner's tools): those are
    /// shown to it where HOME is shown by allow list, and to no other runner.
    pub reads_repository_ignores: bool,
    /// Set for a CLI that starts its commands in a sandbox of its own, which cannot start inside
    /// ours.
    pub nested: Option<Nested>,
    /// The TCP ports a runner of this kind may connect to, given its command line (the model
    /// runner: its server's port); `None`: the network is not restricted (an agent CLI reaches
    /// its service and its tools reach theirs). Enforced with Landlock ABI 4 and later.
    pub connects: Option<Ports>,
    /// The variables of the person's environment it reads (its API key, base URL, model,
    /// configuration directory), as names or prefixes ending in `*`: with the base set
    /// (`sandbox::env::BASE`) the only ones that reach it (docs/sandbox.md shows them).
    pub variables: &'static [&'static str],
    /// The hosts it may reach through the proxy, given its command line: its provider's API and
    /// login hosts, and a base-URL override's host (docs/sandbox.md lists them).
    pub hosts: fn(&[String]) -> Vec<super::hosts::Host>,
    /// Its configuration files, given HOME (settings, hooks, MCP servers, model providers, an
    /// environment it loads): where there is no throwaway view of its state (no mount
    /// namespace), each is put back after the turn as it was before it (restore.rs).
    pub settings: fn(&Path) -> Vec<PathBuf>,
}

/// One credential file of a CLI: where it is, and what the person is told when the CLI
/// refreshed it during an interview.
#[derive(Debug, Clone)]
pub(crate) struct Credential {
    pub path: PathBuf,
    pub login: Login,
}

/// A CLI's login, as the person knows it. No check of the file can tell the CLI's own refresh
/// from another account's tokens a runner wrote there (its account fields are the file's own
/// word), so a changed login is never written back to the person's file: it is kept for the
/// rest of the session only (state.rs), and the person is told at the end with these words.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Login {
    /// The CLI's name: "Codex".
    pub cli: &'static str,
    /// Its program: "codex".
    pub program: &'static str,
    /// What logs in again: "run `codex login`".
    pub relogin: &'static str,
}

/// A CLI whose own sandbox cannot start inside ours (see docs/sandbox.md, "Codex inside the
/// sandbox").
#[derive(Debug, Clone, Copy)]
pub(crate) struct Nested {
    /// The command line with its own read-only sandbox replaced by one that leaves the file
    /// system to ours, where ours has Landlock and a mount namespace; `None`: nothing to
    /// replace (another mode, the person's choice), the command line stays as it is.
    pub within_ours: fn(&[String]) -> Option<Vec<String>>,
    /// Whether the command line starts its commands in the CLI's own sandbox.
    pub uses_own_sandbox: fn(&[String]) -> bool,
    /// Said once on stderr when its own sandbox is needed and cannot start.
    pub warning: &'static str,
    /// Its home: under the replacement the only state it needs, shown as a throwaway view.
    pub home: fn() -> Option<PathBuf>,
}

/// The caches under HOME that every CLI's tools write, shared with the person's other programs
/// (npx runs what is in `~/.npm/_npx`, pre-commit what is in `~/.cache`), and the variables that
/// move each one, with where under the turn's TMPDIR they point where the shared one is not
/// writable (no mount namespace for a throwaway view).
pub(crate) const SHARED_CACHES: &[(&str, &[(&str, &str)])] = &[
    (
        ".cache",
        &[
            ("XDG_CACHE_HOME", ".cache"),
            ("PIP_CACHE_DIR", ".cache/pip"),
        ],
    ),
    (".npm", &[("npm_config_cache", ".npm")]),
];

/// The state directories (and files) `cli` writes as it works: its own, and the
/// [`SHARED_CACHES`] (nothing without a CLI or without HOME). What of them a runner is granted on this machine —
/// only those that exist, and under a [`Nested`] replacement none but a throwaway view of its
/// home — is [`super::StateGrant::decide`].
pub(crate) fn state_dirs(cli: Option<&Agent>) -> Vec<PathBuf> {
    let (Some(cli), Some(home)) = (cli, std::env::var_os("HOME").map(PathBuf::from)) else {
        return Vec::new();
    };
    let mut dirs = (cli.state)(&home);
    dirs.extend(SHARED_CACHES.iter().map(|(dir, _)| home.join(dir)));
    dirs
}

/// The [`SHARED_CACHES`] under HOME that exist, as real paths.
pub(crate) fn shared_caches() -> Vec<PathBuf> {
    let Some(home) = std::env::var_os("HOME").map(PathBuf::from) else {
        return Vec::new();
    };
    SHARED_CACHES
        .iter()
        .filter_map(|(dir, _)| std::fs::canonicalize(home.join(dir)).ok())
        .collect()
}

/// The configuration files of `cli` ([`Agent::settings`]), by the real path of their directory
/// (the file need not exist yet).
pub(crate) fn settings(cli: Option<&Agent>) -> Vec<PathBuf> {
    let (Some(cli), Some(home)) = (cli, std::env::var_os("HOME").map(PathBuf::from)) else {
        return Vec::new();
    };
    (cli.settings)(&home).into_iter().map(real_dir).collect()
}

/// `path` with its directory's links resolved (itself, a file, as it is).
fn real_dir(path: PathBuf) -> PathBuf {
    match (
        path.parent().and_then(|d| std::fs::canonicalize(d).ok()),
        path.file_name(),
    ) {
        (Some(dir), Some(name)) => dir.join(name),
        _ => path,
    }
}

/// The credential files of `cli`, by the real path of their directory (the state directories
/// are granted by their real paths; the file need not exist yet).
pub(crate) fn credentials(cli: Option<&Agent>) -> Vec<Credential> {
    let (Some(cli), Some(home)) = (cli, std::env::var_os("HOME").map(PathBuf::from)) else {
        return Vec::new();
    };
    let canonical = |p: PathBuf| match (
        p.parent().and_then(|d| std::fs::canonicalize(d).ok()),
        p.file_name(),
    ) {
        (Some(dir), Some(name)) => dir.join(name),
        _ => p,
    };
    (cli.credentials)(&home)
        .into_iter()
        .map(|c| Credential {
            path: canonical(c.path),
            login: c.login,
        })
        .collect()
}

/// Say the CLI's warning on stderr the first time a command line of a [`Nested`] CLI that needs
/// its own sandbox starts under Landlock (or Seatbelt). Returns whether it applies to `argv`.
pub(crate) fn warn_once(cli: Option<&Agent>, argv: &[String], confined: bool) -> bool {
    static SAID: AtomicBool = AtomicBool::new(false);
    let Some(nested) = cli.and_then(|c| c.nested) else {
        return false;
    };
    let applies = confined && (nested.uses_own_sandbox)(argv);
    if applies && !SAID.swap(true, Ordering::Relaxed) {
        crate::output::stderr_line(nested.warning);
    }
    applies
}
