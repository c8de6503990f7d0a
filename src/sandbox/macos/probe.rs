//! What this Mac offers the sandbox: whether `sandbox-exec` applies a Seatbelt profile.

use crate::sandbox::support::Support;
use crate::sandbox::test_hook::simulated_missing;

/// Probe what this machine offers (once per process: [`Support::probe`]).
pub(in crate::sandbox) fn probe_support() -> Support {
    let (seatbelt, seatbelt_missing) = match simulated_missing("SEATBELT") {
        Some(reason) => (false, Some(reason)),
        None => match probe_seatbelt() {
            Ok(()) => (true, None),
            Err(reason) => (false, Some(reason)),
        },
    };
    Support {
        landlock_abi: None,
        landlock_missing: Some("Landlock exists only on Linux".into()),
        namespaces: false,
        namespaces_missing: Some("user namespaces exist only on Linux".into()),
        seccomp: false,
        seccomp_missing: None,
        seatbelt,
        seatbelt_missing,
    }
}

/// Start `/usr/bin/true` under `sandbox-exec` with a profile of the kind a turn gets (every
/// rule of it, for a throwaway writable directory): Seatbelt works here, and this macOS reads
/// our profile, when it exits 0 (it does not inside another sandbox, for one).
fn probe_seatbelt() -> Result<(), String> {
    use super::seatbelt::SANDBOX_EXEC;
    use crate::process::{Ending, Spawn};
    use crate::sandbox::writes::{DEVICES, Writes};
    use std::path::Path;
    if !Path::new(SANDBOX_EXEC).exists() {
        return Err(format!("{SANDBOX_EXEC} is missing"));
    }
    let dir = tempfile::tempdir().map_err(|e| format!("cannot make a directory to probe: {e}"))?;
    let root = std::fs::canonicalize(dir.path()).map_err(|e| e.to_string())?;
    let writes = Writes {
        protected: vec![root.join("protected")],
        roots: vec![root],
        devices: DEVICES.iter().map(|d| Path::new("/dev").join(d)).collect(),
    };
    let profile = super::seatbelt::profile(&writes, None)?;
    let finished = Spawn::new(SANDBOX_EXEC)
        .args(["-p", profile.as_str(), "--", "/usr/bin/true"])
        .timeout(std::time::Duration::from_secs(10))
        .grace(std::time::Duration::from_secs(1))
        .capture(0, 4096)
        .map_err(|e| format!("cannot run {SANDBOX_EXEC}: {e}"))?;
    if finished.ending == Ending::Exited(0) {
        return Ok(());
    }
    let text = String::from_utf8_lossy(&finished.sink.stderr);
    let reason = text.lines().last().unwrap_or("it failed").trim();
    Err(format!(
        "{SANDBOX_EXEC}: {}",
        reason
            .chars()
            .filter(|c| !c.is_control())
            .collect::<String>()
    ))
}
