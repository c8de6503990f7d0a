//! The presets' state as throwaway views: in the runner's mount namespace each state directory
//! of its CLI (`~/.claude`, `~/.gemini`, `~/.cache`, `~/.npm`, …) is shown copy-on-write (an
//! overlay whose upper layer lives in a directory of the turn), and each state file
//! (`~/.claude.json`) as a copy. What the CLI or its commands write there is gone after the turn
//! — a hook, an MCP server, an `apiKeyHelper`, a poisoned cache. The CLI's own credential files,
//! named one by one, are the one exception, and only within the session: a login the CLI
//! refreshed is kept in the session's local tier and shown to its next turns ([`keep`],
//! [`seed`]), never written to the person's file (no check of the file can tell a refresh from
//! another account's tokens), and removed when the session's run ends ([`end`]).
//!
//! The views are mounted by the launcher (`linux/mounts.rs`); the rest runs in the tool.

use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::agent::Credential;

/// A credential file larger than this is not kept (they are a few hundred bytes).
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

/// The directory of a session's local tier that holds the logins its CLI refreshed: mode 0700,
/// each file 0600, hidden from every runner, removed when the session's run ends ([`end`]).
pub(crate) const LOGINS_DIR: &str = "logins";

/// The name of the session's copy of the `i`th credential file `path` of its CLI, in its store.
fn saved(i: usize, path: &Path) -> PathBuf {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    PathBuf::from(format!("{i}-{name}"))
}

/// The view that takes the writes to `path`, and `path` relative to its real directory.
fn view_of<'v>(views: &'v [View], path: &'v Path) -> Option<(&'v View, &'v Path)> {
    views.iter().find_map(|v| {
        let rel = path.strip_prefix(&v.real).ok()?;
        (v.upper.is_dir() && !rel.as_os_str().is_empty()).then_some((v, rel))
    })
}

/// Before the turn, in the tool: show each login this session's earlier turns refreshed (kept in
/// `store`) in place of the person's own, by putting it in the view's upper layer.
pub(crate) fn seed(
    views: &[View],
    credentials: &[Credential],
    store: &Path,
) -> std::io::Result<()> {
    for (i, Credential { path, .. }) in credentials.iter().enumerate() {
        let Some((view, rel)) = view_of(views, path) else {
            continue;
        };
        let Some(login) = read_plain(store, &saved(i, path)) else {
            continue;
        };
        if let Some(dir) = rel.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(view.upper.join(dir))?;
        }
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(view.upper.join(rel))?
            .write_all(&login)?;
    }
    Ok(())
}

/// After the turn, in the tool: each of `credentials` (real paths of the CLI's credential files)
/// that the turn changed in its view is kept in `store`, the session's own, for its next turns
/// ([`seed`]) — never written to the person's file: no check of the file can tell the CLI's
/// refresh from another account's tokens a runner put there. Only a regular file, at most 1 MiB,
/// reached through no link, is kept (mode 0600, replaced in one rename); without a `store`
/// nothing is. Returns what was not kept, and why: one line a file.
pub(crate) fn keep(
    views: &[View],
    credentials: &[Credential],
    store: Option<&Path>,
) -> Vec<String> {
    let mut problems = Vec::new();
    for (i, Credential { path, .. }) in credentials.iter().enumerate() {
        let Some((view, rel)) = view_of(views, path) else {
            continue;
        };
        let Some(new) = read_plain(&view.upper, rel) else {
            continue; // not written this turn (or not as a plain file)
        };
        let name = saved(i, path);
        let before = store
            .and_then(|s| read_plain(s, &name))
            .or_else(|| read_plain(&view.real, rel));
        if before.as_deref() == Some(new.as_slice()) {
            continue;
        }
        let kept = match store {
            Some(store) => keep_dir(store).and_then(|()| replace(store, &name, &new)),
            None => Err(std::io::Error::other("this run keeps no login")),
        };
        if let Err(e) = kept {
            problems.push(format!(
                "{} was changed during the turn and not kept: {e}; your own login there is unchanged",
                path.display()
            ));
        }
    }
    problems
}

/// Make `store` (mode 0700) unless it is there; refuse one that is a link or not a directory.
fn keep_dir(store: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(store) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(std::io::Error::other(format!(
            "{} is not a plain directory",
            store.display()
        ))),
        Err(_) => std::fs::DirBuilder::new().mode(0o700).create(store),
    }
}

/// When the session's run ends: one line for the person for each login its CLI `cli` refreshed
/// during it (kept in `store`, never written to their file), and `store` removed. `home` is
/// HOME, to name the files as the person knows them.
pub(crate) fn end(store: &Path, cli: Option<&super::Agent>, home: Option<&Path>) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(store) else {
        return Vec::new();
    };
    let kept: Vec<String> = entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    let mut lines = Vec::new();
    if let (Some(cli), Some(home)) = (cli, home) {
        for (i, Credential { path, login }) in (cli.credentials)(home).iter().enumerate() {
            let name = saved(i, path);
            if !kept.iter().any(|k| Path::new(k) == name) {
                continue;
            }
            let shown = match path.strip_prefix(home) {
                Ok(rel) => format!("~/{}", rel.display()),
                Err(_) => path.display().to_string(),
            };
            lines.push(format!(
                "{} refreshed its login during this interview; it was used for this interview only and not written to {shown} (a runner can write any login there). If `{}` asks you to log in again, {}.",
                login.cli, login.program, login.relogin
            ));
        }
    }
    if lines.is_empty() && !kept.is_empty() {
        lines.push(
            "A login refreshed during this interview was used for it only and not written to your own login file (a runner can write any login there). If your agent CLI asks you to log in again, log in again.".to_string(),
        );
    }
    let _ = super::leftovers::remove(store);
    lines
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
    use std::os::unix::fs::PermissionsExt;

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

    /// A login file of `cli`'s shape holding `token`.
    fn login(token: &str) -> String {
        format!(r#"{{"tokens":{{"access_token":"{token}","refresh_token":"{token}"}}}}"#)
    }

    #[test]
    fn a_changed_login_is_kept_for_the_session_and_never_written_to_the_persons_file() {
        for (cli, name) in [
            ("claude", ".credentials.json"),
            ("codex", "auth.json"),
            ("gemini", "oauth_creds.json"),
        ] {
            let dir = tempfile::tempdir().unwrap();
            let (v, store) = (view(dir.path()), dir.path().join(LOGINS_DIR));
            std::fs::write(v.real.join(name), login("person")).unwrap();
            std::fs::write(v.real.join("settings.json"), "{}").unwrap();
            std::fs::write(v.upper.join(name), login("ATTACKER")).unwrap();
            std::fs::write(v.upper.join("settings.json"), "{\"hooks\":1}").unwrap();
            let credentials = [credential(cli, &v, name)];
            let problems = keep(std::slice::from_ref(&v), &credentials, Some(&store));
            assert!(problems.is_empty(), "{cli}: {problems:?}");
            let real = |n: &str| std::fs::read_to_string(v.real.join(n)).unwrap();
            assert_eq!(real(name), login("person"), "{cli}");
            assert_eq!(real("settings.json"), "{}");
            let kept = store.join(format!("0-{name}"));
            assert_eq!(std::fs::read_to_string(&kept).unwrap(), login("ATTACKER"));
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!((mode(&store), mode(&kept)), (0o700, 0o600), "{cli}");
        }
    }

    #[test]
    fn the_next_turn_is_shown_the_login_the_session_kept() {
        let dir = tempfile::tempdir().unwrap();
        let (v, store) = (view(dir.path()), dir.path().join(LOGINS_DIR));
        std::fs::write(v.real.join("auth.json"), login("person")).unwrap();
        std::fs::create_dir(&store).unwrap();
        std::fs::write(store.join("0-auth.json"), login("refreshed")).unwrap();
        let credentials = [credential("codex", &v, "auth.json")];
        seed(std::slice::from_ref(&v), &credentials, &store).unwrap();
        assert_eq!(
            std::fs::read_to_string(v.upper.join("auth.json")).unwrap(),
            login("refreshed")
        );
        // Read, not changed, during that turn: nothing new is kept, nothing is said.
        assert!(keep(std::slice::from_ref(&v), &credentials, Some(&store)).is_empty());
        assert_eq!(
            std::fs::read_to_string(store.join("0-auth.json")).unwrap(),
            login("refreshed")
        );
    }

    #[test]
    fn without_a_session_a_changed_login_is_discarded_and_said() {
        let dir = tempfile::tempdir().unwrap();
        let v = view(dir.path());
        std::fs::write(v.real.join("auth.json"), login("person")).unwrap();
        std::fs::write(v.upper.join("auth.json"), login("ATTACKER")).unwrap();
        let credentials = [credential("codex", &v, "auth.json")];
        let problems = keep(std::slice::from_ref(&v), &credentials, None);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].contains("auth.json"), "{problems:?}");
        assert_eq!(
            std::fs::read_to_string(v.real.join("auth.json")).unwrap(),
            login("person")
        );
    }

    #[test]
    fn a_credential_that_is_a_link_is_never_followed() {
        let dir = tempfile::tempdir().unwrap();
        let (v, store) = (view(dir.path()), dir.path().join(LOGINS_DIR));
        let auth = credential("codex", &v, "auth.json");
        let victim = dir.path().join("authorized_keys");
        std::fs::write(&victim, "keep").unwrap();
        std::os::unix::fs::symlink(&victim, v.upper.join("auth.json")).unwrap();
        let credentials = std::slice::from_ref(&auth);
        assert!(keep(std::slice::from_ref(&v), credentials, Some(&store)).is_empty());
        assert!(!store.exists());
        // A link planted where the session keeps its copy is not written through either.
        std::os::unix::fs::symlink(&victim, &store).unwrap();
        std::fs::remove_file(v.upper.join("auth.json")).unwrap();
        std::fs::write(v.upper.join("auth.json"), login("new")).unwrap();
        let problems = keep(std::slice::from_ref(&v), credentials, Some(&store));
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
    }

    #[test]
    fn at_the_end_the_person_is_told_once_and_the_kept_login_is_removed() {
        let dir = tempfile::tempdir().unwrap();
        let (home, store) = (dir.path().join("home"), dir.path().join(LOGINS_DIR));
        std::fs::create_dir(&store).unwrap();
        std::fs::write(store.join("0-auth.json"), login("refreshed")).unwrap();
        let codex = crate::runner::presets::preset("codex").unwrap().agent;
        let lines = end(&store, Some(&codex), Some(&home));
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(
            lines[0].starts_with("Codex refreshed its login"),
            "{lines:?}"
        );
        assert!(lines[0].contains("run `codex login`"), "{lines:?}");
        assert!(!store.exists());
        assert!(end(&store, Some(&codex), Some(&home)).is_empty());
    }
}
