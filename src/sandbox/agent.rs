//! What the sandbox must know of the agent CLI a runner starts: the state it writes as it works,
//! its credential files (and whose login each holds), and — for a CLI whose own sandbox cannot start inside ours — how its
//! command line hands its commands to ours instead.
//!
//! The CLIs themselves are described by their presets (`runner/presets/`), which give the
//! sandbox an [`Agent`]; nothing here names a CLI.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::Value;

/// The TCP ports a runner connects to, from its command line.
pub(crate) type Ports = fn(&[String]) -> Vec<u16>;

/// One agent CLI, as the sandbox sees it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Agent {
    /// The state directories (and files) it writes as it works, given HOME (the one list of
    /// them; docs/sandbox.md shows it). `~/.cache` and `~/.npm` are added for every CLI.
    pub state: fn(&Path) -> Vec<PathBuf>,
    /// Its credential files, given HOME: the only state a turn may leave behind, copied back from
    /// its throwaway view when the CLI refreshed the same login during the turn.
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
}

/// One credential file of a CLI: where it is, and what a login in it looks like.
#[derive(Debug, Clone)]
pub(crate) struct Credential {
    pub path: PathBuf,
    pub login: Login,
}

/// The format of a CLI's login file, as its preset knows it: enough to tell a refresh of the
/// same login from another account's login put in its place.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Login {
    /// The top-level keys the CLI writes there: a refresh may add one of these, no other.
    pub keys: &'static [&'static str],
    /// The account the login names, from the parsed file (the fields that name it, as
    /// `field=value`); `None` when the file is not a login of this format or names no account.
    pub account: fn(&Value) -> Option<Vec<String>>,
}

impl Login {
    /// Whether `new`, the file after the turn, is `old`, the file before it, refreshed: both
    /// JSON objects, the same top-level keys (but new ones the CLI writes), the same account.
    /// `Err` says why not, for the person.
    pub(crate) fn refreshes(&self, old: Option<&[u8]>, new: &[u8]) -> Result<(), &'static str> {
        let old: Value = match old.map(serde_json::from_slice) {
            None => return Err("there was no login there before the turn"),
            Some(Ok(old)) => old,
            Some(Err(_)) => {
                return Err("the login before the turn was not JSON, so whose it is is unknown");
            }
        };
        let new: Value = serde_json::from_slice(new).map_err(|_| "it is not JSON")?;
        let (Some(before), Some(after)) = (old.as_object(), new.as_object()) else {
            return Err("its shape changed");
        };
        let added = after
            .keys()
            .any(|k| !before.contains_key(k) && !self.keys.contains(&k.as_str()));
        let dropped = before.keys().any(|k| !after.contains_key(k));
        let account = (self.account)(&new);
        if added || dropped || account.is_none() {
            return Err("its shape changed");
        }
        match (self.account)(&old) {
            None => Err("the login before the turn names no account to compare with"),
            Some(before) if account.as_ref() != Some(&before) => Err("it names another account"),
            Some(_) => Ok(()),
        }
    }
}

/// The claims of a JSON Web Token (its payload, base64url-decoded; the signature is not checked:
/// the token only says which account a file names).
pub(crate) fn jwt_claims(token: &str) -> Option<Value> {
    let payload = token.split('.').nth(1)?;
    let mut bytes = Vec::with_capacity(payload.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in payload.bytes().take_while(|&c| c != b'=') {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' | b'+' => 62,
            b'_' | b'/' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            bytes.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    serde_json::from_slice(&bytes).ok()
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

/// The state directories (and files) `cli` writes as it works: its own, `~/.cache` and `~/.npm`
/// (nothing without a CLI or without HOME). What of them a runner is granted on this machine —
/// only those that exist, and under a [`Nested`] replacement none but a throwaway view of its
/// home — is [`super::StateGrant::decide`].
pub(crate) fn state_dirs(cli: Option<&Agent>) -> Vec<PathBuf> {
    let (Some(cli), Some(home)) = (cli, std::env::var_os("HOME").map(PathBuf::from)) else {
        return Vec::new();
    };
    let mut dirs = (cli.state)(&home);
    dirs.push(home.join(".cache"));
    dirs.push(home.join(".npm"));
    dirs
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
