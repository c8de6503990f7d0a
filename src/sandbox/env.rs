//! The runner's environment, by allow list: what a program needs to run ([`BASE`]), its
//! preset's own variables ([`super::Agent::variables`]), what the person lists in their own
//! config (`runner_env`) and what the tool sets for the turn — nothing else, so a runner never
//! reads `GITHUB_TOKEN`, `AWS_SECRET_ACCESS_KEY` or another provider's key. Never a handle to a
//! server outside the sandbox that would act for it (terminal multiplexers, the session bus, the
//! Docker daemon, agents) nor `GIT_*` (which could point git elsewhere), even when listed; and
//! under the sandbox a private temporary directory.
//!
//! Not for: deciding which preset a runner is (its [`super::Agent`] says that).

use std::ffi::OsString;
use std::path::Path;

/// What every runner gets: what a program needs to run (its programs, home, user, locale,
/// terminal, time zone), the proxy and TLS trust settings it is meant to use, the XDG
/// directories (not `XDG_RUNTIME_DIR`, a server handle) and the temporary directory. (The
/// protocol's `INTERVIEW_*` are set by the tool for the turn, so they pass too.) A pattern
/// ending in `*` is a prefix.
pub(crate) const BASE: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "LC_*",
    "TERM",
    "COLORTERM",
    "NO_COLOR",
    "TZ",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
    "no_proxy",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "NODE_EXTRA_CA_CERTS",
    "REQUESTS_CA_BUNDLE",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
    "XDG_CACHE_HOME",
    "XDG_CONFIG_DIRS",
    "XDG_DATA_DIRS",
    "TMPDIR",
    "TMP",
    "TEMP",
    "TEMPDIR",
];

/// Variables naming a server that would run commands, open windows or sign for the runner.
pub(crate) const SERVER_HANDLES: &[&str] = &[
    "TMUX",
    "TMUX_PANE",
    "STY",
    "DBUS_SESSION_BUS_ADDRESS",
    "DBUS_SYSTEM_BUS_ADDRESS",
    "DOCKER_HOST",
    "CONTAINER_HOST",
    "SSH_AUTH_SOCK",
    "SSH_AGENT_PID",
    "GPG_AGENT_INFO",
    "DISPLAY",
    "WAYLAND_DISPLAY",
    "XAUTHORITY",
    "KITTY_LISTEN_ON",
    "KITTY_WINDOW_ID",
    "WEZTERM_UNIX_SOCKET",
    "ZELLIJ",
    "ZELLIJ_SESSION_NAME",
    "NVIM",
    "NVIM_LISTEN_ADDRESS",
    "VSCODE_IPC_HOOK_CLI",
    "VSCODE_GIT_IPC_HANDLE",
    "EMACS_SOCKET_NAME",
    "PULSE_SERVER",
    "XDG_RUNTIME_DIR",
];

/// Variables set to the turn's private temporary directory.
const TEMP_VARS: &[&str] = &["TMPDIR", "TMP", "TEMP", "TEMPDIR", "TMUX_TMPDIR"];

/// Whether a variable of the tool's environment never reaches a runner, listed or not.
pub(crate) fn removed(name: &str) -> bool {
    SERVER_HANDLES.contains(&name) || name.starts_with("GIT_")
}

/// Whether `name` is `pattern`, or starts with it where it ends in `*`.
pub(crate) fn matches(pattern: &str, name: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => name == pattern,
    }
}

/// Why `pattern` cannot be an entry of `runner_env`, if it cannot: a variable's name
/// (`MY_TOKEN`), or a prefix of one followed by `*` (`MOCK_*`).
pub(crate) fn check_pattern(pattern: &str) -> Result<(), String> {
    let name = pattern.strip_suffix('*').unwrap_or(pattern);
    let well_formed = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if well_formed {
        Ok(())
    } else {
        Err(format!(
            "{pattern:?} is not a variable's name or a prefix followed by `*` (e.g. \"MY_TOKEN\", \"MOCK_*\")"
        ))
    }
}

/// The allow list of one runner: [`BASE`], its preset's `variables`, the person's own
/// `runner_env` (`person`) and the names the tool sets for the turn (`set`).
pub(crate) fn allow_list<'a>(
    variables: &[&str],
    person: &[String],
    set: impl IntoIterator<Item = &'a str>,
) -> Vec<String> {
    let mut list: Vec<String> = BASE
        .iter()
        .chain(variables)
        .map(|p| p.to_string())
        .chain(person.iter().cloned())
        .chain(set.into_iter().map(str::to_string))
        .collect();
    list.sort();
    list.dedup();
    list
}

/// Whether the variable `name` reaches a runner with the allow list `allowed` (`None`: a
/// command of the person's own, `interview guard -- CMD`, which keeps all but server handles).
pub(crate) fn passes(name: &str, allowed: Option<&[String]>) -> bool {
    !removed(name) && allowed.is_none_or(|list| list.iter().any(|p| matches(p, name)))
}

/// The absolute paths the runner's variables name (`vars` the tool's environment, `allowed` the
/// runner's allow list): a CA bundle, a `SHELL`, a preset's config directory, a file the person
/// hands their script — each part of a `:`-separated list. Not `HOME`, `PATH` (home.rs reads
/// those), the XDG base directories (a default, not something shown to be needed) or the
/// temporary directories (replaced by the private one).
pub(crate) fn named_paths(
    vars: impl Iterator<Item = (OsString, OsString)>,
    allowed: Option<&[String]>,
) -> Vec<std::path::PathBuf> {
    vars.filter(|(k, _)| {
        k.to_str().is_some_and(|k| {
            passes(k, allowed)
                && !["HOME", "PATH"].contains(&k)
                && !k.starts_with("XDG_")
                && !TEMP_VARS.contains(&k)
        })
    })
    .flat_map(|(_, v)| std::env::split_paths(&v).collect::<Vec<_>>())
    .filter(|p| p.is_absolute())
    .collect()
}

/// The runner's environment from the launcher's own (`vars`), under the sandbox: what
/// [`passes`] `allowed`, with the temporary-directory variables pointing at `tmp`.
pub(crate) fn for_runner(
    vars: impl Iterator<Item = (OsString, OsString)>,
    tmp: &Path,
    allowed: Option<&[String]>,
) -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> = vars
        .filter(|(k, _)| {
            k.to_str()
                .is_some_and(|k| passes(k, allowed) && !TEMP_VARS.contains(&k))
        })
        .collect();
    env.extend(
        TEMP_VARS
            .iter()
            .map(|k| (OsString::from(k), tmp.as_os_str().to_owned())),
    );
    env
}

/// The proxy variables of `env` replaced by the tool's proxy at `url`, with nothing exempt
/// from it (`NO_PROXY` empty): every client the runner starts goes through it.
pub(crate) fn through_proxy(env: &mut Vec<(OsString, OsString)>, url: &str) {
    const PROXIED: &[&str] = &[
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
    ];
    env.retain(|(k, _)| {
        k.to_str()
            .is_none_or(|k| !PROXIED.contains(&k) && !k.eq_ignore_ascii_case("no_proxy"))
    });
    env.extend(
        PROXIED
            .iter()
            .map(|k| (OsString::from(k), OsString::from(url))),
    );
    env.extend(["NO_PROXY", "no_proxy"].map(|k| (OsString::from(k), OsString::new())));
}

/// The runner's environment from the tool's own (`vars`) with `--sandbox off`: what
/// [`passes`] `allowed`, the person's temporary directory kept.
pub(crate) fn unconfined(
    vars: impl Iterator<Item = (OsString, OsString)>,
    allowed: &[String],
) -> Vec<(OsString, OsString)> {
    vars.filter(|(k, _)| k.to_str().is_some_and(|k| passes(k, Some(allowed))))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: [&str; 14] = [
        "TMUX",
        "SSH_AUTH_SOCK",
        "GIT_DIR",
        "GIT_CONFIG_GLOBAL",
        "ANTHROPIC_API_KEY",
        "OPENAI_API_KEY",
        "GITHUB_TOKEN",
        "AWS_SECRET_ACCESS_KEY",
        "PATH",
        "LC_ALL",
        "TMPDIR",
        "CODEX_HOME",
        "MOCK_REPLY",
        "XDG_RUNTIME_DIR",
    ];

    fn kept(env: &[(OsString, OsString)]) -> Vec<&str> {
        env.iter().map(|(k, _)| k.to_str().unwrap()).collect()
    }

    fn vars() -> impl Iterator<Item = (OsString, OsString)> {
        NAMES
            .map(|k| (OsString::from(k), OsString::from("v")))
            .into_iter()
    }

    #[test]
    fn a_preset_gets_the_base_set_and_its_own_variables_and_nothing_else() {
        let allowed = allow_list(&["CODEX_*", "OPENAI_API_KEY"], &[], []);
        let env = for_runner(vars(), Path::new("/tmp/x"), Some(&allowed));
        assert_eq!(
            kept(&env),
            [
                "OPENAI_API_KEY",
                "PATH",
                "LC_ALL",
                "CODEX_HOME",
                "TMPDIR",
                "TMP",
                "TEMP",
                "TEMPDIR",
                "TMUX_TMPDIR"
            ]
        );
        assert!(
            env.iter()
                .all(|(k, v)| !k.to_str().unwrap().starts_with("TM") || v == "/tmp/x")
        );
    }

    #[test]
    fn a_script_gets_what_the_person_lists_but_never_a_server_handle_or_git() {
        let person = ["MOCK_*".to_string(), "TMUX".into(), "GIT_*".into()];
        let allowed = allow_list(&[], &person, ["INTERVIEW_OUT"]);
        let env = unconfined(vars(), &allowed);
        assert_eq!(kept(&env), ["PATH", "LC_ALL", "TMPDIR", "MOCK_REPLY"]);
    }

    #[test]
    fn a_command_of_the_persons_own_keeps_all_but_server_handles_and_git() {
        let env = for_runner(vars(), Path::new("/tmp/x"), None);
        assert_eq!(
            kept(&env),
            [
                "ANTHROPIC_API_KEY",
                "OPENAI_API_KEY",
                "GITHUB_TOKEN",
                "AWS_SECRET_ACCESS_KEY",
                "PATH",
                "LC_ALL",
                "CODEX_HOME",
                "MOCK_REPLY",
                "TMPDIR",
                "TMP",
                "TEMP",
                "TEMPDIR",
                "TMUX_TMPDIR"
            ]
        );
    }

    #[test]
    fn a_pattern_is_a_name_or_a_prefix_and_a_star() {
        for good in ["MY_TOKEN", "MOCK_*", "_X", "a1"] {
            assert_eq!(check_pattern(good), Ok(()), "{good}");
        }
        for bad in ["", "*", "1X", "MY TOKEN", "A*B", "X=1", "A**"] {
            assert!(check_pattern(bad).is_err(), "{bad}");
        }
        assert!(matches("MOCK_*", "MOCK_REPLY") && !matches("MOCK_*", "MOCK"));
        assert!(matches("TZ", "TZ") && !matches("TZ", "TZX"));
    }
}
