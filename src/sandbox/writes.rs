//! What a runner may write, decided once from the launcher's [`Policy`]: the one source both
//! the Landlock rules (linux/landlock.rs) and the Seatbelt profile (macos/seatbelt.rs) are built
//! from. Pure: it compiles and is tested on every platform.

use std::path::{Path, PathBuf};

use super::policy::Policy;

/// The only devices a runner may open (read and write): the harmless ones every program
/// expects. An allow list: a terminal, the console's memory or a disk is never among them.
pub(crate) const DEVICES: &[&str] = &["null", "zero", "full", "random", "urandom"];

/// The write decision for one start of a runner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Writes {
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
    pub(crate) fn decide(policy: &Policy) -> Writes {
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
    fn no_terminal_console_or_disk_is_among_the_devices() {
        for name in DEVICES {
            for bad in [
                "tty", "pt", "console", "vcs", "hvc", "sd", "nvme", "vd", "mem", "kmsg",
            ] {
                assert!(!name.starts_with(bad), "{name}");
            }
        }
    }
}
