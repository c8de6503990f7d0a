//! What the launcher applies, decided by the tool and handed to the launcher as JSON: the one
//! input of every confinement step (namespaces, Landlock, Seatbelt, the write decision).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::state::View;

/// What the launcher applies, decided by the tool.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct Policy {
    /// The tool's pid: the launcher's parent, checked after it asks to die with it.
    pub tool_pid: i32,
    pub landlock: bool,
    pub namespaces: bool,
    /// macOS: start the runner under `sandbox-exec` with the profile of macos/seatbelt.rs.
    #[serde(default)]
    pub seatbelt: bool,
    /// The private temporary directory (writable).
    pub tmp: PathBuf,
    /// Writable: the turn's out/ and the preset's state directories.
    pub writable: Vec<PathBuf>,
    /// Bound read-only in the mount namespace (Landlock never grants them anyway).
    pub protected: Vec<PathBuf>,
    /// Paths that must stay visible when /tmp (or HOME) is replaced.
    pub visible: Vec<PathBuf>,
    /// HOME by allow list: only what the runner is shown to need of it (home.rs); `None`:
    /// shown as it is.
    #[serde(default)]
    pub home: Option<super::home::HomeView>,
    /// The preset's state, shown copy-on-write for the turn (see state.rs).
    #[serde(default)]
    pub views: Vec<View>,
    /// Linux: install the seccomp filter (linux/seccomp.rs) before executing the runner.
    #[serde(default)]
    pub seccomp: bool,
    /// The runner may create UNIX sockets (a preset shown to need one); refused otherwise.
    #[serde(default)]
    pub unix_sockets: bool,
    /// The person's credential stores (secrets.rs): hidden from the runner.
    #[serde(default)]
    pub hidden: Vec<PathBuf>,
    /// No network: no TCP or UDP socket (seccomp), and its own network namespace.
    #[serde(default)]
    pub network_off: bool,
    /// The most a runner may write, in MiB: the size of its TMPDIR (a file system of its own
    /// with namespaces) and of each file it writes anywhere; 0: no cap.
    #[serde(default)]
    pub disk_mib: u64,
    /// The only TCP ports the runner may connect to (and none it may bind); `None`: the
    /// network is not restricted (see [`super::Agent::connects`]).
    #[serde(default)]
    pub connect_ports: Option<Vec<u16>>,
    /// The variables of the launcher's environment that reach the runner, as patterns (a
    /// trailing `*` is a prefix; see [`super::env`]); `None`: all but server handles (a command
    /// of the person's own, `interview guard -- CMD`).
    #[serde(default)]
    pub env: Option<Vec<String>>,
    /// The network only through the tool's proxy (proxy.rs); `None`: not proxied.
    #[serde(default)]
    pub proxy: Option<ProxyPlan>,
    /// The runner's git configuration, written by the tool (git_config.rs): its
    /// `GIT_CONFIG_GLOBAL`, set after the allow list of its environment; `None`: not set.
    #[serde(default)]
    pub git_config: Option<PathBuf>,
    /// Variables set after the allow list, each to a directory of the turn's TMPDIR: the
    /// caches shared with the person's other programs, moved there where they are not writable
    /// (no mount namespace; see `StateGrant::private_caches`).
    #[serde(default)]
    pub caches: Vec<(String, PathBuf)>,
}

/// Where the runner's proxy is: the port its `HTTPS_PROXY`/`HTTP_PROXY`/`ALL_PROXY` name on
/// 127.0.0.1, and the loopback ports forwarded as they are.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct ProxyPlan {
    pub port: u16,
    pub forwards: Vec<u16>,
    /// Linux with namespaces: the launcher makes these listeners in the runner's own network
    /// namespace and hands them to the tool (linux/netns.rs); otherwise the tool listens on the
    /// host's 127.0.0.1 itself and the runner shares its network.
    pub in_namespace: bool,
}

impl ProxyPlan {
    /// The proxy's URL, as the runner's variables name it.
    pub(crate) fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}
