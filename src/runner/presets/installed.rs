//! `interview runners`: which presets' CLIs are installed, at which version, and what each runs.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::{PRESETS, Preset, envelope::excerpt};
use crate::process::{Capture, Ending, Output, Spawn};
use crate::receipt::sanitize_line;

/// How long a probe that overran its timeout has to end before it is killed.
const VERSION_GRACE: Duration = Duration::from_millis(200);

/// How long `interview runners` waits for `<cli> --version`.
pub(crate) const VERSION_TIMEOUT: Duration = Duration::from_secs(5);

/// The text of `interview runners` for a given PATH, in `repository` (whose programs are never
/// found).
pub(crate) fn render_list(path_var: &OsStr, repository: &Path, timeout: Duration) -> String {
    let mut out = String::from(
        "Runners (choose with --runner NAME, or runner = \"NAME\" in interview.toml):\n\n",
    );
    out.push_str(&format!(
        "builtin  embedded, version {}\n         runs: interview runner builtin\n{}\n",
        env!("CARGO_PKG_VERSION"),
        variables_of(&[])
    ));
    out.push_str(&crate::interviewer::model::describe(|name| {
        super::preset(name).map_or_else(String::new, variables_line)
    }));
    for preset in PRESETS {
        let status = match find_on_path(preset.program, path_var, repository) {
            None => format!(
                "not installed ({} not found on PATH)\n         install: {}",
                preset.program, preset.install
            ),
            Some(found) => {
                let version = version_of(&found, timeout);
                let mut said = format!(
                    "installed at {}, version {version}",
                    sanitize_line(&found.display().to_string()).0,
                );
                if let Some(drift) = drift(preset, &version) {
                    said.push_str(&format!("\n         warning: {drift}"));
                }
                said
            }
        };
        let spec = preset.spec();
        out.push_str(&format!(
            "{:<8} {status}\n         runs: {}\n         brief: {}; receipt: printed on stdout; flags checked with {} {}\n{}\n",
            preset.name,
            shell_words(&spec.argv),
            if spec.brief_on_stdin {
                "on stdin"
            } else {
                "as {brief}, stdin null"
            },
            preset.program,
            preset.checked,
            variables_line(preset)
        ));
    }
    out.push_str(
        "Placeholders are filled in each turn: {schema} (receipt JSON Schema file), {schema_text} \
         (its text), {wire_schema} and {wire_schema_text} (the schema as the model services accept \
         it), {out} (the turn's out dir), {brief} (the brief file), {receipt}, {worktree}, {policy} \
         (Gemini CLI's policy file), {read_files} (--read FILE for each file the facts name).\n",
    );
    out.push_str(&format!(
        "\nEvery runner's environment (docs/sandbox.md): {}; the protocol's INTERVIEW_*; its \
         preset's variables above; what runner_env in .interview/config.toml lists. Nothing \
         else. Its network (one that keeps it) reaches only its preset's hosts above and what \
         allow_hosts in .interview/config.toml lists, through the tool's proxy.\n",
        crate::sandbox::env::BASE.join(", ")
    ));
    out
}

/// The lines naming the variables a preset's runner gets besides the base set (names only),
/// and the hosts its network reaches through the sandbox's proxy.
fn variables_line(preset: &Preset) -> String {
    format!(
        "{}         hosts: {}\n",
        variables_of(preset.agent.variables),
        hosts_of(preset).join(", ")
    )
}

/// The hosts a preset's runner may reach through the sandbox's proxy (its base-URL override's
/// host included), as the person would write them.
pub(crate) fn hosts_of(preset: &Preset) -> Vec<String> {
    (preset.agent.hosts)(&preset.argv())
        .iter()
        .map(crate::sandbox::hosts::Host::shown)
        .collect()
}

fn variables_of(names: &[&str]) -> String {
    match names {
        [] => "         variables: none but the base set\n".to_string(),
        names => format!("         variables: {}\n", names.join(", ")),
    }
}

/// The first `N.N.N` in a version line (`2.1.332 (Claude Code)`, `codex-cli 0.171.0`).
pub(super) fn version_number(line: &str) -> Option<&str> {
    line.split(|c: char| c.is_whitespace() || c == '(' || c == ')' || c == 'v')
        .find(|w| {
            let parts: Vec<&str> = w.split('.').collect();
            parts.len() >= 2
                && parts
                    .iter()
                    .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        })
}

/// What to say when the installed version is not the one the preset's flags were checked with.
pub(crate) fn drift(preset: &Preset, version_line: &str) -> Option<String> {
    let installed = version_number(version_line)?;
    (installed != preset.checked).then(|| {
        format!(
            "the preset was verified with {} {}, not {installed}: its flags or output may have \
             changed (see docs/runners.md)",
            preset.program, preset.checked
        )
    })
}

fn shell_words(argv: &[String]) -> String {
    argv.iter()
        .map(|a| {
            shlex::try_quote(a)
                .map(|q| q.into_owned())
                .unwrap_or_else(|_| format!("{a:?}"))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Find `program` in `path_var` by the one lookup of every child the tool starts
/// ([`crate::process::program`]): absolute directories only, none inside `repository`.
pub(crate) fn find_on_path(program: &str, path_var: &OsStr, repository: &Path) -> Option<PathBuf> {
    crate::process::program::find_in(program.as_ref(), path_var, repository, repository)
}

/// The first line `<program> --version` prints, sanitised; waits at most `timeout`, with stdin
/// null and its own process group (killed whole when it does not answer in time).
pub(crate) fn version_of(program: &Path, timeout: Duration) -> String {
    match run_version(program, timeout) {
        Ok(v) => v,
        Err(why) => format!("unknown ({why})"),
    }
}

fn run_version(program: &Path, timeout: Duration) -> std::result::Result<String, String> {
    let finished = Spawn::new(program)
        .arg("--version")
        .stdout(Output::Pipe)
        .timeout(timeout)
        .grace(VERSION_GRACE)
        .run_into(Capture::new(4096, 0))
        .map_err(|e| format!("cannot start it: {e}"))?;
    let status = match finished.ending {
        Ending::TimedOut => {
            return Err(format!(
                "no answer to --version within {} s",
                timeout.as_secs_f32()
            ));
        }
        Ending::Exited(0) => None,
        Ending::Exited(code) => Some(format!("exit status: {code}")),
        Ending::Signalled(sig) => Some(format!("signal: {sig}")),
        Ending::Interrupted => Some("an interrupt".to_string()),
        Ending::OverLimit => Some("over its limit".to_string()),
    };
    let text = String::from_utf8_lossy(&finished.sink.stdout);
    let first = text.lines().map(str::trim).find(|l| !l.is_empty());
    match (first, status) {
        (_, Some(status)) => Err(format!("--version failed with {status}")),
        (Some(line), None) => Ok(excerpt(line)),
        (None, None) => Err("--version printed nothing".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;
    use std::time::Instant;

    #[test]
    fn path_search_skips_relative_and_empty_entries() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        let exe = bin.join("claude");
        std::fs::write(&exe, "#!/bin/sh\necho 1.0\n").unwrap();
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
        let cwd = std::env::current_dir().unwrap();
        let relative = pathdiff(&bin, &cwd);
        let only_relative = format!("{}::.", relative.display());
        assert_eq!(
            find_on_path(
                "claude",
                OsStr::new(&only_relative),
                Path::new("/no-repository")
            ),
            None
        );
        let absolute = format!(":{}", bin.display());
        assert_eq!(
            find_on_path("claude", OsStr::new(&absolute), Path::new("/no-repository")),
            Some(exe)
        );
    }

    /// `to` relative to `from` (both absolute), through `..` components.
    fn pathdiff(to: &Path, from: &Path) -> PathBuf {
        let mut rel = PathBuf::new();
        for _ in from.components().skip(1) {
            rel.push("..");
        }
        rel.join(to.strip_prefix("/").unwrap())
    }

    #[test]
    fn path_search_skips_files_that_are_not_executable() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("codex"), "not a program").unwrap();
        assert_eq!(
            find_on_path("codex", dir.path().as_os_str(), Path::new("/no-repository")),
            None
        );
    }

    fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    }

    #[test]
    fn a_version_other_than_the_checked_one_is_a_warning() {
        let claude = super::super::preset("claude").unwrap();
        assert_eq!(version_number("2.1.332 (Claude Code)"), Some("2.1.332"));
        assert_eq!(version_number("codex-cli 0.171.0"), Some("0.171.0"));
        assert_eq!(version_number("aider 0.86.2"), Some("0.86.2"));
        assert_eq!(version_number("unknown (no answer)"), None);
        assert_eq!(
            drift(claude, &format!("{} (Claude Code)", claude.checked)),
            None
        );
        let said = drift(claude, "2.2.0 (Claude Code)").unwrap();
        assert!(
            said.contains("verified with claude 2.1.332, not 2.2.0"),
            "{said}"
        );
        assert_eq!(drift(claude, "unknown (--version failed)"), None);
        let dir = tempfile::tempdir().unwrap();
        script(dir.path(), "claude", "echo '9.9.9 (Claude Code)'");
        let text = render_list(
            dir.path().as_os_str(),
            Path::new("/no-repository"),
            Duration::from_secs(5),
        );
        assert!(
            text.contains("warning: the preset was verified with claude 2.1.332, not 9.9.9"),
            "{text}"
        );
    }

    #[test]
    fn version_is_the_first_line_printed() {
        let dir = tempfile::tempdir().unwrap();
        let p = script(dir.path(), "gemini", "printf '\\n0.61.0\\nmore\\n'");
        assert_eq!(version_of(&p, Duration::from_secs(5)), "0.61.0");
    }

    #[test]
    fn a_version_that_does_not_come_in_time_is_unknown_and_its_group_is_killed() {
        let dir = tempfile::tempdir().unwrap();
        let pidfile = dir.path().join("pid");
        let p = script(
            dir.path(),
            "claude",
            &format!("sleep 30 & echo $! > {}; wait", pidfile.display()),
        );
        let started = Instant::now();
        let v = version_of(&p, Duration::from_millis(500));
        assert!(
            v.starts_with("unknown (no answer to --version within"),
            "{v}"
        );
        assert!(started.elapsed() < Duration::from_secs(5));
        let pid: i32 = std::fs::read_to_string(&pidfile)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        std::thread::sleep(Duration::from_millis(100));
        let alive = crate::sys::alive(pid);
        assert!(!alive, "the sleeping grandchild {pid} survived");
    }

    #[test]
    fn a_failing_version_is_unknown() {
        let dir = tempfile::tempdir().unwrap();
        let p = script(dir.path(), "aider", "echo oops; exit 3");
        let v = version_of(&p, Duration::from_secs(5));
        assert!(v.starts_with("unknown (--version failed"), "{v}");
    }

    #[test]
    fn the_list_with_nothing_installed_says_so_for_every_preset() {
        let dir = tempfile::tempdir().unwrap();
        let text = render_list(
            dir.path().as_os_str(),
            Path::new("/no-repository"),
            Duration::from_secs(1),
        );
        for p in PRESETS {
            assert!(
                text.contains(&format!(
                    "{:<8} not installed ({} not found on PATH)",
                    p.name, p.program
                )),
                "{text}"
            );
        }
        assert!(text.contains("builtin  embedded"), "{text}");
    }

    #[test]
    fn a_missing_cli_is_given_the_command_that_installs_the_checked_version() {
        let dir = tempfile::tempdir().unwrap();
        let text = render_list(
            dir.path().as_os_str(),
            Path::new("/no-repository"),
            Duration::from_secs(1),
        );
        for install in [
            "install: npm install -g @anthropic-ai/claude-code@2.1.332",
            "install: npm install -g @openai/codex@0.171.0",
            "install: npm install -g @google/gemini-cli@0.61.0",
            "install: pipx install aider-chat==0.86.2 (or: python3 -m pip install aider-install",
        ] {
            assert!(text.contains(install), "{install}:\n{text}");
        }
        for p in PRESETS {
            assert!(p.install.contains(p.checked), "{}", p.name);
        }
    }
}
