//! Codex inside our sandbox: its commands run under our file-system rules and its network block.
//!
//! Its own read-only sandbox cannot start there; where the replacement below cannot be made
//! safe, the person is told once that Codex runs no command.
//!
//! Codex runs every command its model asks for (and it reads the repository only through
//! commands: `cat`, `rg`, `sed`) in a sandbox of its own, built with bubblewrap: a user
//! namespace (a write to `/proc/self/uid_map`) and mounts. Landlock refuses both to every
//! process under a ruleset that restricts the file system — mount(2) in any namespace, and the
//! write to `/proc` — so inside ours Codex cannot start a single command ("error building
//! bubblewrap command: Permission denied"). Its `use_legacy_landlock` mode also refuses to
//! start ("filesystem-restricted execution requires bubblewrap"). Giving Codex full access
//! instead would also open the network to its commands.
//!
//! So where our sandbox has Landlock *and* its own mount namespace, `--sandbox read-only` is
//! replaced by a permission profile of Codex's config (`default_permissions`) that leaves the
//! file system to us and keeps the network closed: Codex then starts each command without
//! bubblewrap, under its seccomp filter that refuses network sockets, and our rules keep every
//! write out of the repository, git and HOME. Codex must write its state directory to work, and
//! a command must not (a setting planted in `config.toml` — an MCP server, a hook, a `notify`
//! program — would run the next time Codex starts outside any sandbox): in the mount namespace
//! `$CODEX_HOME` becomes a throwaway directory showing its entries read-only (see
//! `namespace.rs`), and `~/.cache` and `~/.npm` are not writable. Without the mount namespace
//! `/tmp` is shared, where Codex's app-server sockets live (bubblewrap would hide them): there,
//! and for Codex's other modes, the warning is given instead. See docs/sandbox.md.

use std::sync::atomic::{AtomicBool, Ordering};

/// The warning, once per run of the tool.
#[cfg(not(target_os = "macos"))]
pub const WARNING: &str = "interview: warning: Codex cannot start its own sandbox inside \
this one (Landlock refuses the mounts bubblewrap needs), so it runs no command and reads no \
file of the repository; `--sandbox off` gives Codex its own read-only sandbox back (this tool \
then only detects changes), see docs/sandbox.md";
/// The warning on macOS: Seatbelt profiles do not nest, so Codex's own `sandbox-exec` fails
/// inside ours.
#[cfg(target_os = "macos")]
pub const WARNING: &str = "interview: warning: Codex cannot start its own sandbox inside \
this one (a Seatbelt profile cannot be applied inside another), so it runs no command and reads \
no file of the repository; `--sandbox off` gives Codex its own read-only sandbox back (this \
tool then only detects changes), see docs/sandbox.md";

/// The name of the permission profile given to Codex.
pub const PROFILE: &str = "interview-sandboxed";

/// The `-c` overrides that define and select the profile, replacing `--sandbox read-only`.
fn profile_args() -> Vec<String> {
    [
        format!("default_permissions=\"{PROFILE}\""),
        format!("permissions.{PROFILE}.filesystem={{\":root\"=\"write\"}}"),
        format!("permissions.{PROFILE}.network={{enabled=false}}"),
    ]
    .into_iter()
    .flat_map(|kv| ["-c".to_string(), kv])
    .collect()
}

/// `argv` (a Codex command line) with its read-only sandbox (`--sandbox read-only`,
/// `--sandbox=read-only`, `-s read-only`) replaced by the profile, when our sandbox confines
/// it with Landlock and a mount namespace. `None`: nothing to replace (another sandbox mode,
/// or none asked for), and the command line stays as it is.
pub fn within_ours(argv: &[String]) -> Option<Vec<String>> {
    let mut out = Vec::with_capacity(argv.len() + 4);
    let mut replaced = false;
    let mut i = 0;
    while i < argv.len() {
        let arg = argv[i].as_str();
        if arg == "--" {
            out.extend(argv[i..].iter().cloned());
            break;
        }
        let pair = (arg == "--sandbox" || arg == "-s")
            && argv.get(i + 1).is_some_and(|v| v == "read-only");
        if pair || arg == "--sandbox=read-only" {
            out.extend(profile_args());
            replaced = true;
            i += if pair { 2 } else { 1 };
            continue;
        }
        if arg == "--sandbox" || arg == "-s" || arg.starts_with("--sandbox=") {
            return None; // another mode: the person's choice, left alone
        }
        out.push(argv[i].clone());
        i += 1;
    }
    replaced.then_some(out)
}

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
/// starts under Landlock (or Seatbelt). Returns whether it applies to `argv`.
pub fn warn_once(argv: &[String], confined: bool) -> bool {
    static SAID: AtomicBool = AtomicBool::new(false);
    let applies = confined && super::paths::cli_of(argv) == Some("codex") && uses_own_sandbox(argv);
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

    #[test]
    fn the_read_only_mode_is_replaced_by_the_profile_in_each_spelling() {
        let profile = profile_args();
        for spelling in [
            &["--sandbox", "read-only"][..],
            &["--sandbox=read-only"][..],
            &["-s", "read-only"][..],
        ] {
            let mut given = argv(&["codex", "exec", "--json"]);
            given.extend(argv(spelling));
            given.extend(argv(&["--output-schema", "s.json"]));
            let mut want = argv(&["codex", "exec", "--json"]);
            want.extend(profile.iter().cloned());
            want.extend(argv(&["--output-schema", "s.json"]));
            assert_eq!(within_ours(&given), Some(want), "{spelling:?}");
        }
        assert!(
            profile
                .iter()
                .any(|a| a.contains("network={enabled=false}"))
        );
    }

    #[test]
    fn other_modes_and_the_prompt_are_left_alone() {
        for given in [
            argv(&["codex", "exec", "--sandbox", "danger-full-access"]),
            argv(&["codex", "exec", "--sandbox=workspace-write"]),
            argv(&["codex", "exec", "--json"]),
            argv(&["codex", "exec", "--", "--sandbox", "read-only"]),
            argv(&["codex", "exec", "--sandbox"]),
        ] {
            assert_eq!(within_ours(&given), None, "{given:?}");
        }
        // A mode given twice: the other one decides, nothing is replaced.
        assert_eq!(
            within_ours(&argv(&[
                "codex",
                "--sandbox",
                "read-only",
                "--sandbox",
                "danger-full-access"
            ])),
            None
        );
    }
}
