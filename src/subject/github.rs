//! The `github` tracker of `interview intent`: the work item read with `gh issue view`, run as
//! any other program (its own session, no terminal input, output capped, a timeout), never a
//! `gh` inside the repository.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use crate::process::{Ending, Spawn};

use super::reflect::cap;

/// How long `gh issue view` may take.
const GH_TIMEOUT: Duration = Duration::from_secs(20);

/// Whether and where to find the `gh` CLI for the `github` tracker.
#[derive(Debug, Clone, Default)]
pub enum GithubCli {
    /// Look for `gh` on `PATH`; absent means no `github` tracker.
    #[default]
    Auto,
    /// No `github` tracker.
    Off,
    /// Use this program as `gh`.
    At(PathBuf),
}

/// The `gh` program to use, if any: found by the one lookup ([`crate::process::program`]),
/// never inside the repository at `repo_root`.
fn gh_program(github: &GithubCli, repo_root: &Path) -> Option<PathBuf> {
    match github {
        GithubCli::Off => None,
        GithubCli::At(p) => Some(p.clone()),
        GithubCli::Auto => crate::process::program::find("gh".as_ref(), repo_root, repo_root),
    }
}

/// `Ok(Some((title, body)))` when `gh issue view <id>` finds the issue, `Ok(None)` when there is
/// no `github` tracker here, `Err(why)` when `gh` was asked and could not answer.
pub(super) fn github_lookup(
    repo_root: &Path,
    id: &str,
    github: &GithubCli,
) -> std::result::Result<Option<(String, String)>, String> {
    let Some(gh) = gh_program(github, repo_root) else {
        // Looked for and not there: say so, or "not found" reads as if GitHub had been asked.
        return match github {
            GithubCli::Auto => Err(
                "`gh` (GitHub CLI) is not installed, so GitHub issues were not looked up: \
                 install it from https://cli.github.com and run `gh auth login`"
                    .into(),
            ),
            _ => Ok(None),
        };
    };
    let number = id.strip_prefix('#').unwrap_or(id);
    if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "`{id}` is not an issue number, so gh was not asked"
        ));
    }
    let output = run_gh(
        Spawn::new(&gh)
            .args(["issue", "view", number, "--json", "title,body"])
            .cwd(repo_root)
            .env("GH_PROMPT_DISABLED", "1")
            .env("NO_COLOR", "1")
            .env("GH_NO_UPDATE_NOTIFIER", "1"),
        GH_TIMEOUT,
    )
    .map_err(|why| format!("`gh issue view {number}` {why}"))?;
    #[derive(Deserialize)]
    struct Issue {
        title: String,
        #[serde(default)]
        body: String,
    }
    let issue: Issue = serde_json::from_slice(&output)
        .map_err(|e| format!("`gh issue view {number}` printed no issue JSON ({e})"))?;
    Ok(Some((issue.title, issue.body)))
}

/// The most of `gh`'s output read: an issue is text, not a data set.
const GH_OUTPUT_BYTES: usize = 4 * 1024 * 1024;

/// Run `gh` without the terminal's stdin, in its own session, its output read while it runs;
/// its stdout on success.
fn run_gh(spawn: Spawn, timeout: Duration) -> std::result::Result<Vec<u8>, String> {
    let finished = spawn
        .timeout(timeout)
        .grace(Duration::from_secs(1))
        .capture(GH_OUTPUT_BYTES, 64 * 1024)
        .map_err(|e| format!("could not start: {e}"))?;
    let out = finished.sink;
    match finished.ending {
        Ending::Exited(0) if out.stdout.len() >= GH_OUTPUT_BYTES && out.truncated() => {
            Err(format!("printed more than {} MiB", GH_OUTPUT_BYTES >> 20))
        }
        Ending::Exited(0) => Ok(out.stdout),
        Ending::TimedOut => Err(format!("timed out after {} s", timeout.as_secs())),
        ending => {
            let first = String::from_utf8_lossy(&out.stderr)
                .lines()
                .find(|l| !l.trim().is_empty())
                .map(|l| cap(&crate::receipt::sanitize(l.trim()).0, 160))
                .unwrap_or_else(|| match ending {
                    Ending::Exited(code) => format!("exit status: {code}"),
                    Ending::Signalled(sig) => format!("signal: {sig}"),
                    _ => "interrupted".into(),
                });
            Err(format!("failed: {first}"))
        }
    }
}

#[cfg(test)]
mod gh_tests {
    use std::os::unix::fs::PermissionsExt;
    use std::time::Instant;

    use super::*;

    /// A stand-in `gh`: a shell script run through the real lookup.
    fn fake_gh(dir: &Path, body: &str) -> GithubCli {
        let path = dir.join("gh");
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        GithubCli::At(path)
    }

    #[test]
    fn gh_leaving_a_process_that_holds_its_output_open_does_not_stall_the_lookup() {
        let dir = tempfile::tempdir().unwrap();
        let gh = fake_gh(
            dir.path(),
            "sleep 30 &\necho '{\"title\":\"Export CSV\",\"body\":\"As a user…\"}'",
        );
        let started = Instant::now();
        let found = github_lookup(dir.path(), "42", &gh).unwrap();
        assert_eq!(
            found,
            Some(("Export CSV".to_string(), "As a user…".to_string()))
        );
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{:?}",
            started.elapsed()
        );
    }

    #[test]
    fn gh_printing_more_than_the_cap_is_refused_at_once_not_timed_out() {
        let dir = tempfile::tempdir().unwrap();
        let gh = fake_gh(dir.path(), "head -c 6000000 /dev/zero | tr '\\0' x");
        let started = Instant::now();
        let err = github_lookup(dir.path(), "42", &gh).unwrap_err();
        assert!(err.contains("printed more than 4 MiB"), "{err}");
        assert!(
            started.elapsed() < GH_TIMEOUT / 2,
            "{:?}",
            started.elapsed()
        );
    }

    #[test]
    fn gh_failing_reports_its_first_line_of_stderr() {
        let dir = tempfile::tempdir().unwrap();
        let gh = fake_gh(
            dir.path(),
            "echo 'could not resolve to an issue' >&2\nexit 1",
        );
        let err = github_lookup(dir.path(), "42", &gh).unwrap_err();
        assert_eq!(
            err,
            "`gh issue view 42` failed: could not resolve to an issue"
        );
    }
}
