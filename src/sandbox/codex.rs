//! Codex inside our sandbox: why it runs no command there, said once.
//!
//! Codex runs every command its model asks for (and it reads the repository only through
//! commands: `cat`, `rg`, `sed`) in a sandbox of its own, built with bubblewrap: a user
//! namespace (a write to `/proc/self/uid_map`) and mounts. Landlock refuses both to every
//! process under a ruleset that restricts the file system — mount(2) in any namespace, and the
//! write to `/proc` — so inside ours Codex cannot start a single command ("error building
//! bubblewrap command: Permission denied"). Its `use_legacy_landlock` mode also refuses to
//! start ("filesystem-restricted execution requires bubblewrap"). Giving Codex full access
//! instead would also open the network to its commands, so the tool keeps both sandboxes and
//! says what that costs. See docs/sandbox.md.

use std::sync::atomic::{AtomicBool, Ordering};

/// The warning, once per run of the tool.
pub const WARNING: &str = "interview: warning: Codex cannot start its own sandbox inside \
this one (Landlock refuses the mounts bubblewrap needs), so it runs no command and reads no \
file of the repository; `--sandbox off` gives Codex its own read-only sandbox back (this tool \
then only detects changes), see docs/sandbox.md";

/// Whether a Codex command line (`codex exec …`) starts its commands in Codex's own sandbox:
/// every mode but full access does.
pub fn uses_own_sandbox(argv: &[String]) -> bool {
    let mut args = argv.iter().skip(1).take_while(|a| *a != "--");
    let mut own = true;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--dangerously-bypass-approvals-and-sandbox" | "--yolo" => own = false,
            "--sandbox" | "-s" => own = args.next().is_none_or(|m| m != "danger-full-access"),
            a if a.starts_with("--sandbox=") => own = a != "--sandbox=danger-full-access",
            _ => {}
        }
    }
    own
}

/// Say [`WARNING`] on stderr the first time a Codex command line that needs its own sandbox
/// starts under Landlock. Returns whether it applies to `argv`.
pub fn warn_once(argv: &[String], landlock: bool) -> bool {
    static SAID: AtomicBool = AtomicBool::new(false);
    let applies = landlock && super::paths::cli_of(argv) == Some("codex") && uses_own_sandbox(argv);
    if applies && !SAID.swap(true, Ordering::Relaxed) {
        crate::output::stderr_line(WARNING);
    }
    applies
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn every_mode_but_full_access_uses_codexs_own_sandbox() {
        for own in [
            &["codex", "exec", "--sandbox", "read-only"][..],
            &["codex", "exec", "--sandbox=workspace-write"][..],
            &["codex", "exec", "-s", "read-only"][..],
            &["codex", "exec", "--json"][..],
            &["codex", "exec", "--", "--sandbox", "danger-full-access"][..],
            &[
                "codex",
                "--sandbox",
                "danger-full-access",
                "-s",
                "read-only",
            ][..],
        ] {
            assert!(uses_own_sandbox(&argv(own)), "{own:?}");
        }
        for not in [
            &["codex", "exec", "--sandbox", "danger-full-access"][..],
            &["codex", "exec", "--sandbox=danger-full-access"][..],
            &[
                "codex",
                "exec",
                "--dangerously-bypass-approvals-and-sandbox",
            ][..],
        ] {
            assert!(!uses_own_sandbox(&argv(not)), "{not:?}");
        }
    }

    #[test]
    fn only_codex_under_landlock_is_warned_about() {
        let codex = argv(&["/opt/bin/codex", "exec", "--sandbox", "read-only"]);
        assert!(warn_once(&codex, true));
        assert!(!warn_once(&codex, false));
        assert!(!warn_once(&argv(&["claude", "-p"]), true));
        assert!(!warn_once(
            &argv(&["codex", "exec", "--sandbox", "danger-full-access"]),
            true
        ));
    }
}
