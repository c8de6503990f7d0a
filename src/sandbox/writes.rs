//! What a runner may write, decided once from the launcher's [`Policy`]: the one source both
//! the Landlock rules (rules.rs, Linux) and the Seatbelt profile (seatbelt.rs, macOS) are built
//! from. Pure: it compiles and is tested on every platform.

use std::path::{Path, PathBuf};

use super::policy::Policy;

/// Devices a runner may write (and read): the harmless ones every program expects.
pub const DEVICES: &[&str] = &["null", "zero", "full", "random", "urandom"];

/// Entries of /dev never granted, not even for reading: the terminals (reading one would steal
/// the person's keys, an ioctl on one could inject them).
#[cfg(any(target_os = "linux", test))]
pub fn terminal(name: &str) -> bool {
    name == "pts"
        || name == "ptmx"
        || name == "console"
        || name.starts_with("tty")
        || name.starts_with("pty")
        || name.starts_with("vcs")
        || name.starts_with("hvc")
}

/// The write decision for one start of a runner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Writes {
    /// Writable with everything below them: the turn's `out/`, the preset's state directories
    /// (kept or throwaway) and the private TMPDIR.
    pub roots: Vec<PathBuf>,
    /// Never writable, even below a root: the worktree, its git directories, the git
    /// configuration files.
    pub protected: Vec<PathBuf>,
    /// The entries of /dev in [`DEVICES`].
    pub devices: Vec<PathBuf>,
}

impl Writes {
    pub fn decide(policy: &Policy) -> Writes {
        let mut roots: Vec<PathBuf> = policy
            .writable
            .iter()
            .chain(policy.views.iter().map(|v| &v.real))
            .chain(std::iter::once(&policy.tmp))
            .cloned()
            .collect();
        roots.sort();
        roots.dedup();
        Writes {
            roots,
            protected: policy.protected.clone(),
            devices: DEVICES.iter().map(|d| Path::new("/dev").join(d)).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminals_are_named_on_linux_and_macos() {
        for name in [
            "tty", "tty1", "ttys003", "ttyp0", "ptmx", "pts", "ptyp0", "console",
        ] {
            assert!(terminal(name), "{name}");
        }
        for name in DEVICES {
            assert!(!terminal(name), "{name}");
        }
    }
}
