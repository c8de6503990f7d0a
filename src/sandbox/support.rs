//! What this machine offers the sandbox: the Landlock ABI and whether unprivileged user
//! namespaces (with PID and mount namespaces in them) can be created on Linux; whether
//! `sandbox-exec` applies a Seatbelt profile on macOS.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Support {
    /// The kernel's Landlock ABI version, when Landlock is usable.
    pub landlock_abi: Option<i32>,
    /// Why Landlock is not usable.
    pub landlock_missing: Option<String>,
    /// Own user, PID and mount namespaces (with a private /proc) can be set up.
    pub namespaces: bool,
    /// Why not.
    pub namespaces_missing: Option<String>,
    /// Linux: the kernel applies seccomp filters (the third wall, linux/seccomp.rs).
    #[serde(default)]
    pub seccomp: bool,
    /// Why not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seccomp_missing: Option<String>,
    /// macOS: `sandbox-exec` applied a profile when probed (see macos/seatbelt.rs).
    #[serde(default)]
    pub seatbelt: bool,
    /// Why not (on macOS).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seatbelt_missing: Option<String>,
}

static PROBED: OnceLock<Support> = OnceLock::new();

impl Support {
    /// Probe once per process (the namespace probe starts our own executable once).
    pub(crate) fn probe() -> Support {
        PROBED.get_or_init(super::platform::probe_support).clone()
    }

    /// Start the probe on a thread of its own, so it runs while the repository is found and the
    /// configuration read; the first [`Support::probe`] waits for it. Not when the sandbox is
    /// turned off on the command line.
    pub(crate) fn prefetch(mode: Option<super::Mode>) {
        if mode != Some(super::Mode::Off) {
            let _ = std::thread::Builder::new()
                .name("sandbox-probe".into())
                .spawn(|| PROBED.get_or_init(super::platform::probe_support));
        }
    }

    /// Abstract UNIX sockets and signals are scoped to the runner (Landlock ABI 6 and later).
    pub(crate) fn scoped(&self) -> bool {
        self.landlock_abi.is_some_and(|abi| abi >= 6)
    }

    /// The person's credential stores are hidden from runners: a mount namespace or Landlock
    /// on Linux, Seatbelt on macOS.
    pub(crate) fn hides_credentials(&self) -> bool {
        self.namespaces || self.seatbelt || self.landlock_abi.is_some()
    }

    /// Writes are confined: Landlock on Linux, Seatbelt on macOS.
    pub(crate) fn confines_writes(&self) -> bool {
        self.landlock_abi.is_some() || self.seatbelt
    }

    /// Why writes are not confined, in a few words.
    pub(crate) fn write_rules_missing(&self) -> String {
        if cfg!(target_os = "macos") {
            let reason = self.seatbelt_missing.as_deref().unwrap_or("not available");
            format!("Seatbelt ({reason})")
        } else {
            let reason = self.landlock_missing.as_deref().unwrap_or("not available");
            format!("Landlock ({reason})")
        }
    }

    /// What of the promise ("a turn can change nothing outside its out/ that outlives it") this
    /// machine cannot keep, in a few words; `None` when everything is enforced.
    pub(crate) fn missing_short(&self) -> Option<String> {
        if cfg!(target_os = "macos") {
            return (!self.seatbelt)
                .then(|| "nothing enforced, changes are only detected".to_string());
        }
        match (self.landlock_abi, self.namespaces) {
            (Some(abi), true) if abi >= 6 && !self.seccomp => Some(
                "no seccomp: named sockets, keyrings and setuid bits not refused by the kernel"
                    .to_string(),
            ),
            (Some(abi), true) if abi >= 6 => None,
            (Some(abi), true) => Some(format!(
                "Landlock ABI {abi}: signals and abstract sockets not scoped"
            )),
            (Some(abi), false) if self.seccomp => Some(format!(
                "Landlock and seccomp only: chmod of your files and the CLI's state not protected, {}",
                network_open(abi)
            )),
            (Some(abi), false) => Some(format!(
                "Landlock only: chmod, sockets and the CLI's state not protected, {}",
                network_open(abi)
            )),
            (None, true) => Some("no Landlock: writes outside the repository not prevented".into()),
            (None, false) => Some("nothing enforced, changes are only detected".into()),
        }
    }

    /// One sentence: what is enforced, and what is missing and why.
    pub(crate) fn summary(&self) -> String {
        if cfg!(target_os = "macos") {
            return self.seatbelt_summary();
        }
        let mut held = Vec::new();
        let mut missing = Vec::new();
        match (self.landlock_abi, &self.landlock_missing) {
            (Some(abi), _) => {
                held.push(format!(
                    "Landlock ABI {abi} (writes only to the turn's out/, a private TMPDIR and the preset's state directories)"
                ));
                if abi >= 6 {
                    held.push("abstract sockets and signals scoped".into());
                } else {
                    missing.push("socket and signal scoping (needs Landlock ABI 6)".to_string());
                }
            }
            (None, reason) => missing.push(format!(
                "Landlock ({})",
                reason.as_deref().unwrap_or("not available")
            )),
        }
        match (self.namespaces, self.landlock_abi) {
            (true, _) => held.push(
                "the network only through the tool's proxy to the allowed hosts (own network namespace: no UDP, no DNS)"
                    .into(),
            ),
            (false, Some(abi)) if abi >= 4 => {
                held.push("TCP only to the tool's proxy (Landlock ABI 4)".into());
                missing.push("a network namespace: UDP is open".into());
            }
            (false, _) => missing.push(
                "a network namespace and Landlock ABI 4: the network is not confined".into(),
            ),
        }
        if self.namespaces {
            held.push(
                "own PID, mount and IPC namespaces (every file system read-only but out/ and a private TMPDIR, servers' sockets and the person's credential stores hidden, the CLI's state a throwaway view)"
                    .into(),
            );
        } else {
            missing.push(format!(
                "user namespaces ({}): credential stores readable; chmod, named sockets and the CLI's state are not protected, descendants are swept instead, /tmp and /proc are shared",
                self.namespaces_missing.as_deref().unwrap_or("not allowed")
            ));
        }
        if self.seccomp {
            held.push(
                "a seccomp filter (socket families by allow list: no UNIX sockets, keyrings, setuid or setgid bits, device nodes, file capabilities, tracing, BPF, io_uring or new user namespaces)"
                    .into(),
            );
        } else {
            missing.push(format!(
                "seccomp ({}): a server's named socket, the session keyring and setuid bits are refused only where the namespaces hide them",
                self.seccomp_missing.as_deref().unwrap_or("not available")
            ));
        }
        let mut line = if held.is_empty() {
            "nothing enforced (detection only)".to_string()
        } else {
            held.join("; ")
        };
        if !missing.is_empty() {
            line.push_str(&format!("; missing: {}", missing.join("; ")));
        }
        line
    }
}

/// What of the network Landlock alone leaves open (ABI 4 filters TCP ports, nothing else).
fn network_open(abi: i32) -> &'static str {
    if abi >= 4 { "UDP open" } else { "network open" }
}

impl Support {
    fn seatbelt_summary(&self) -> String {
        if self.seatbelt {
            "Seatbelt (sandbox-exec: writes only to the turn's out/, a private TMPDIR and the preset's state directories; terminals, other processes and most system services out of reach); missing: own PID namespace (descendants are swept at the end of the turn instead)".into()
        } else {
            format!(
                "nothing enforced (detection only); missing: {}",
                self.write_rules_missing()
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_names_what_is_missing_and_why() {
        let s = Support {
            landlock_abi: Some(5),
            landlock_missing: None,
            namespaces: false,
            namespaces_missing: Some("unshare: Operation not permitted".into()),
            seccomp: false,
            seccomp_missing: None,
            seatbelt: false,
            seatbelt_missing: None,
        };
        let line = s.summary();
        assert!(line.starts_with("Landlock ABI 5"), "{line}");
        assert!(
            line.contains("missing: socket and signal scoping"),
            "{line}"
        );
        assert!(
            line.contains("user namespaces (unshare: Operation not permitted)"),
            "{line}"
        );
        assert!(!s.scoped());
        // Landlock filters TCP ports, not UDP: the start line says what is open.
        let short = s.missing_short().unwrap();
        assert!(short.ends_with(", UDP open"), "{short}");
        let old = Support {
            landlock_abi: Some(3),
            ..s
        };
        assert!(old.missing_short().unwrap().ends_with(", network open"));
    }

    #[test]
    fn nothing_available_is_detection_only() {
        let s = Support {
            landlock_abi: None,
            landlock_missing: Some("the kernel is built without Landlock".into()),
            namespaces: false,
            namespaces_missing: Some("x".into()),
            seccomp: false,
            seccomp_missing: None,
            seatbelt: false,
            seatbelt_missing: None,
        };
        assert!(s.summary().starts_with("nothing enforced (detection only); missing: Landlock (the kernel is built without Landlock)"));
    }
}
