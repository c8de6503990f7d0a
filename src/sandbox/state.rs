//! The presets' state as throwaway views: in the runner's mount namespace each state directory
//! of its CLI (`~/.claude`, `~/.gemini`, `~/.cache`, `~/.npm`, …) is shown copy-on-write (an
//! overlay whose upper layer lives in a directory of the turn), and each state file
//! (`~/.claude.json`) as a copy. What the CLI or its commands write there is gone after the turn
//! — a hook, an MCP server, an `apiKeyHelper`, a poisoned cache — except the CLI's own credential
//! files, named one by one, which the tool copies back after the turn when they changed, as
//! regular files only and never through a link ([`write_back`]).
//!
//! The views are mounted by the launcher (`linux/mounts.rs`); the write-back runs in the tool.

use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::agent::Credential;

/// A credential file larger than this is not copied back (they are a few hundred bytes).
const CREDENTIAL_CAP: u64 = 1 << 20;
/// A state file larger than this is shown as an empty file rather than copied.
const FILE_COPY_CAP: u64 = 64 << 20;

/// One state path of the turn and where its writes go.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub(crate) struct View {
    /// The real state directory or file (canonical).
    pub real: PathBuf,
    /// The directory of the turn that takes its writes: an overlay's upper layer (a directory)
    /// or the copy shown in its place (a file).
    pub upper: PathBuf,
    /// The overlay's work directory (directories only).
    pub work: PathBuf,
}

/// Lay out the turn's views of `state` (canonical paths that exist) in `dir`, a new directory
/// of the turn that only the tool's user can enter.
pub(crate) fn plan(state: &[PathBuf], dir: &Path) -> std::io::Result<Vec<View>> {
    let mut views = Vec::new();
    for (i, real) in state.iter().enumerate() {
        let meta = std::fs::symlink_metadata(real)?;
        let (upper, work) = (
            dir.join(format!("upper-{i}")),
            dir.join(format!("work-{i}")),
        );
        if meta.is_dir() {
            std::fs::create_dir(&upper)?;
            std::fs::create_dir(&work)?;
        } else if meta.is_file() {
            copy_capped(real, &upper, meta.len())?;
        } else {
            continue;
        }
        views.push(View {
            real: real.clone(),
            upper,
            work,
        });
    }
    Ok(views)
}

/// A copy of the state file `from` at `to` (empty when it is too large to copy).
fn copy_capped(from: &Path, to: &Path, len: u64) -> std::io::Result<()> {
    let mut out = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(to)?;
    if len <= FILE_COPY_CAP {
        let mut input = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(from)?;
        std::io::copy(&mut (&mut input).take(FILE_COPY_CAP), &mut out)?;
    }
    Ok(())
}

/// After the turn, in the tool: copy each of `credentials` (real paths of the CLI's credential
/// files) back from the view that took the turn's writes, when the runner's CLI refreshed the
/// login there: the same account's login in the same shape, in a file that was there before
/// ([`super::agent::Login::refreshes`]). Only a regular file, at most 1 MiB, reached through no
/// link on either side, replaces the real one (atomically, mode 0600). Returns what was not
/// copied back, and why: one line a file.
pub(crate) fn write_back(views: &[View], credentials: &[Credential]) -> Vec<String> {
    let mut problems = Vec::new();
    for Credential { path, login } in credentials {
        let Some((view, rel)) = views.iter().find_map(|v| {
            let rel = path.strip_prefix(&v.real).ok()?;
            (v.upper.is_dir() && !rel.as_os_str().is_empty()).then_some((v, rel))
        }) else {
            continue;
        };
        let Some(new) = read_plain(&view.upper, rel) else {
            continue; // not written this turn (or not as a plain file)
        };
        let old = read_plain(&view.real, rel);
        if old.as_deref() == Some(new.as_slice()) {
            continue;
        }
        if let Err(why) = login.refreshes(old.as_deref(), &new) {
            problems.push(format!(
                "{} was changed during the turn and not kept: {why}; the login from before the turn stays",
                path.display()
            ));
            continue;
        }
        if let Err(e) = replace(&view.real, rel, &new) {
            problems.push(format!(
                "{} was refreshed during the turn but could not be kept: {e}",
                path.display()
            ));
        }
    }
    problems
}

/// The content of `base/rel` when every component below `base` is a plain directory and the
/// last a regular file of at most [`CREDENTIAL_CAP`] bytes.
fn read_plain(base: &Path, rel: &Path) -> Option<Vec<u8>> {
    let mut at = base.to_path_buf();
    let parts: Vec<_> = rel.components().collect();
    for (i, part) in parts.iter().enumerate() {
        let std::path::Component::Normal(name) = part else {
            return None;
        };
        at.push(name);
        let meta = std::fs::symlink_metadata(&at).ok()?;
        let last = i + 1 == parts.len();
        let plain = if last {
            meta.is_file() && meta.len() <= CREDENTIAL_CAP
        } else {
            meta.is_dir()
        };
        if !plain {
            return None;
        }
    }
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(&at)
        .ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut bytes = Vec::new();
    (&mut file)
        .take(CREDENTIAL_CAP + 1)
        .read_to_end(&mut bytes)
        .ok()?;
    (bytes.len() as u64 <= CREDENTIAL_CAP).then_some(bytes)
}

/// Replace `base/rel` by `bytes`: a new file beside it (never following a link), synced, renamed
/// over it. The directories on the way must be plain directories.
fn replace(base: &Path, rel: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let target = base.join(rel);
    let parent = target
        .parent()
        .ok_or_else(|| std::io::Error::other("no parent directory"))?;
    let mut at = base.to_path_buf();
    for part in rel.parent().into_iter().flat_map(|p| p.components()) {
        at.push(part);
        if !std::fs::symlink_metadata(&at)?.is_dir() {
            return Err(std::io::Error::other(format!(
                "{} is not a plain directory",
                at.display()
            )));
        }
    }
    if std::fs::symlink_metadata(&target).is_ok_and(|m| !m.is_file()) {
        return Err(std::io::Error::other("it is not a regular file"));
    }
    let name = target
        .file_name()
        .ok_or_else(|| std::io::Error::other("no file name"))?;
    let temp = parent.join(format!(
        ".{}.interview-{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&temp)?;
    let written = file
        .write_all(bytes)
        .and_then(|()| file.sync_all())
        .and_then(|()| std::fs::rename(&temp, &target));
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written?;
    if let Ok(dir) = std::fs::File::open(parent) {
        let _ = dir.sync_all();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn view(dir: &Path) -> View {
        std::fs::create_dir_all(dir.join("real")).unwrap();
        std::fs::create_dir_all(dir.join("upper")).unwrap();
        View {
            real: dir.join("real"),
            upper: dir.join("upper"),
            work: dir.join("work"),
        }
    }

    /// The credential file `name` of the preset `cli`, in the view `v` (its directory).
    fn credential(cli: &str, v: &View, name: &str) -> Credential {
        let agent = crate::runner::presets::preset(cli).unwrap().agent;
        let mut found = (agent.credentials)(Path::new("/home/p"));
        found.retain(|c| c.path.ends_with(name));
        let Credential { login, .. } = found.pop().expect("the preset names it");
        Credential {
            path: v.real.join(name),
            login,
        }
    }

    /// A JSON Web Token with `claims` (unsigned: only its claims are read).
    fn jwt(claims: serde_json::Value) -> String {
        const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        let bytes = claims.to_string().into_bytes();
        let mut payload = String::new();
        for chunk in bytes.chunks(3) {
            let n =
                chunk.iter().fold(0u32, |n, &b| (n << 8) | u32::from(b)) << (8 * (3 - chunk.len()));
            for i in 0..=chunk.len() {
                payload.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            }
        }
        format!("eyJhbGciOiJub25lIn0.{payload}.c2ln")
    }

    fn claude(token: &str, plan: &str) -> String {
        json!({"claudeAiOauth": {"accessToken": format!("sk-ant-oat01-{token}"),
            "refreshToken": format!("sk-ant-ort01-{token}"), "expiresAt": 1767225600000u64,
            "scopes": ["user:inference", "user:profile"], "subscriptionType": plan}})
        .to_string()
    }

    fn codex(token: &str, account: &str) -> String {
        let id = jwt(
            json!({"sub": format!("auth0|{account}"), "email": format!("{account}@example.com"),
            "https://api.openai.com/auth": {"chatgpt_account_id": account}}),
        );
        json!({"OPENAI_API_KEY": null, "tokens": {"id_token": id, "access_token": token,
            "refresh_token": token, "account_id": account}, "last_refresh": "2026-12-01T00:00:00Z"})
        .to_string()
    }

    fn gemini(token: &str, account: &str) -> String {
        let id = jwt(json!({"sub": account, "email": format!("{account}@example.com")}));
        json!({"access_token": token, "refresh_token": "1//keep", "scope": "openid",
            "token_type": "Bearer", "id_token": id, "expiry_date": 1767225600000u64})
        .to_string()
    }

    /// Write `before` (if any) and `after` as the credential `name` of `cli`, write back, and
    /// return the real file's content and the problems said.
    fn turn(
        cli: &str,
        name: &str,
        before: Option<&str>,
        after: &str,
    ) -> (Option<String>, Vec<String>) {
        let dir = tempfile::tempdir().unwrap();
        let v = view(dir.path());
        if let Some(parent) = Path::new(name).parent() {
            std::fs::create_dir_all(v.real.join(parent)).unwrap();
            std::fs::create_dir_all(v.upper.join(parent)).unwrap();
        }
        if let Some(before) = before {
            std::fs::write(v.real.join(name), before).unwrap();
        }
        std::fs::write(v.upper.join(name), after).unwrap();
        let problems = write_back(std::slice::from_ref(&v), &[credential(cli, &v, name)]);
        (std::fs::read_to_string(v.real.join(name)).ok(), problems)
    }

    #[test]
    fn a_login_refreshed_by_the_same_account_is_copied_back_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let v = view(dir.path());
        let (old, new) = (claude("old", "max"), claude("new", "max"));
        std::fs::write(v.real.join(".credentials.json"), &old).unwrap();
        std::fs::write(v.real.join("settings.json"), "{}").unwrap();
        std::fs::write(v.upper.join(".credentials.json"), &new).unwrap();
        std::fs::write(v.upper.join("settings.json"), "{\"hooks\":1}").unwrap();
        let credentials = [credential("claude", &v, ".credentials.json")];
        let problems = write_back(std::slice::from_ref(&v), &credentials);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(
            std::fs::read_to_string(v.real.join(".credentials.json")).unwrap(),
            new
        );
        assert_eq!(
            std::fs::read_to_string(v.real.join("settings.json")).unwrap(),
            "{}"
        );
        for (cli, name, old, new) in [
            (
                "codex",
                "auth.json",
                codex("old", "acct-1"),
                codex("new", "acct-1"),
            ),
            (
                "gemini",
                "oauth_creds.json",
                gemini("old", "1234"),
                gemini("new", "1234"),
            ),
        ] {
            assert_eq!(
                turn(cli, name, Some(&old), &new),
                (Some(new.clone()), vec![]),
                "{cli}"
            );
        }
    }

    #[test]
    fn another_accounts_login_is_not_copied_back_and_the_person_is_told() {
        for (cli, name, old, new) in [
            (
                "claude",
                ".credentials.json",
                claude("old", "max"),
                claude("new", "pro"),
            ),
            (
                "codex",
                "auth.json",
                codex("old", "acct-1"),
                codex("new", "acct-2"),
            ),
            (
                "gemini",
                "oauth_creds.json",
                gemini("old", "1234"),
                gemini("new", "5678"),
            ),
        ] {
            let (kept, problems) = turn(cli, name, Some(&old), &new);
            assert_eq!(kept, Some(old), "{cli}");
            assert_eq!(problems.len(), 1, "{cli}: {problems:?}");
            assert!(problems[0].contains(name), "{problems:?}");
            assert!(
                problems[0].contains("it names another account"),
                "{problems:?}"
            );
        }
    }

    #[test]
    fn a_login_where_there_was_none_is_not_copied_back() {
        let (kept, problems) = turn("codex", "auth.json", None, &codex("new", "acct-2"));
        assert_eq!(kept, None);
        assert!(
            problems[0].contains("there was no login there before the turn"),
            "{problems:?}"
        );
    }

    #[test]
    fn a_login_of_another_shape_or_not_json_is_not_copied_back() {
        let old = codex("old", "acct-1");
        let mut planted: serde_json::Value = serde_json::from_str(&codex("new", "acct-1")).unwrap();
        planted["mcp"] = json!({"command": "touch /tmp/pwned"});
        let mut bare: serde_json::Value = serde_json::from_str(&old).unwrap();
        bare["tokens"]["id_token"] = json!("not a token");
        let api_key = json!({"OPENAI_API_KEY": "sk-other", "tokens": null, "last_refresh": null});
        let api_key = api_key.to_string();
        for (new, why) in [
            (planted.to_string(), "its shape changed"),
            (bare.to_string(), "its shape changed"),
            ("{\"token\":".to_string(), "it is not JSON"),
            (api_key, "it names another account"),
        ] {
            let (kept, problems) = turn("codex", "auth.json", Some(&old), &new);
            assert_eq!(kept.as_deref(), Some(old.as_str()), "{new}");
            assert!(problems[0].contains(why), "{new}: {problems:?}");
        }
    }

    #[test]
    fn a_credential_that_is_a_link_is_never_followed() {
        let dir = tempfile::tempdir().unwrap();
        let v = view(dir.path());
        let auth = credential("codex", &v, "auth.json");
        let victim = dir.path().join("authorized_keys");
        std::fs::write(&victim, "keep").unwrap();
        std::os::unix::fs::symlink(&victim, v.upper.join("auth.json")).unwrap();
        assert!(write_back(std::slice::from_ref(&v), std::slice::from_ref(&auth)).is_empty());
        assert!(!v.real.join("auth.json").exists());
        // A link planted at the real place is not written through either.
        std::os::unix::fs::symlink(&victim, v.real.join("auth.json")).unwrap();
        std::fs::remove_file(v.upper.join("auth.json")).unwrap();
        std::fs::write(v.upper.join("auth.json"), codex("new", "acct-1")).unwrap();
        let problems = write_back(std::slice::from_ref(&v), &[auth]);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
    }
}
