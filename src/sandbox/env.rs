//! The runner's environment: without handles to servers outside the sandbox that would act for
//! it (terminal multiplexers, the session bus, the Docker daemon, agents), without `GIT_*`
//! (which could point git elsewhere), and with a private temporary directory.
//!
//! Everything else is kept: presets need their API keys and model settings.

use std::ffi::OsString;
use std::path::Path;

/// Variables naming a server that would run commands, open windows or sign for the runner.
pub const SERVER_HANDLES: &[&str] = &[
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

/// Whether a variable of the tool's environment is removed from the runner's.
pub fn removed(name: &str) -> bool {
    SERVER_HANDLES.contains(&name) || name.starts_with("GIT_")
}

/// The runner's environment from the launcher's own (`vars`): without server handles and
/// `GIT_*`, with the temporary-directory variables pointing at `tmp`.
pub fn for_runner(
    vars: impl Iterator<Item = (OsString, OsString)>,
    tmp: &Path,
) -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> = vars
        .filter(|(k, _)| {
            k.to_str()
                .is_some_and(|k| !removed(k) && !TEMP_VARS.contains(&k))
        })
        .collect();
    env.extend(
        TEMP_VARS
            .iter()
            .map(|k| (OsString::from(k), tmp.as_os_str().to_owned())),
    );
    env
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_handles_and_git_variables_go_api_keys_stay() {
        let names = [
            "TMUX",
            "SSH_AUTH_SOCK",
            "GIT_DIR",
            "GIT_CONFIG_GLOBAL",
            "ANTHROPIC_API_KEY",
            "OPENAI_API_KEY",
            "PATH",
            "TMPDIR",
            "CODEX_HOME",
        ];
        let vars = names.map(|k| (OsString::from(k), OsString::from("v")));
        let env = for_runner(vars.into_iter(), Path::new("/tmp/x"));
        let kept: Vec<_> = env.iter().map(|(k, _)| k.to_str().unwrap()).collect();
        assert_eq!(
            kept,
            [
                "ANTHROPIC_API_KEY",
                "OPENAI_API_KEY",
                "PATH",
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
                .all(|(k, v)| !k.to_str().unwrap().starts_with("TM")
                    || v == "/tmp/x"
                    || k == "TMUX")
        );
    }
}
