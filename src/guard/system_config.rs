//! Where git reads its system config on this machine: the file each `git` on `PATH` was built to
//! read (its compiled-in prefix: `/etc/gitconfig` for a distribution's git, `/usr/local/etc/…`
//! for one built from source, `/opt/homebrew/etc/…` for Homebrew's), plus the places the common
//! builds use, so a second git the person runs from elsewhere (an IDE, Xcode) is covered too.
//!
//! Each git is asked once per run, from `/` with an empty environment (no `GIT_CONFIG_*`, no
//! `HOME`, no repository), and only from an absolute `PATH` entry outside the worktree: nothing of
//! the repository or the person's settings starts it or steers its answer.
//!
//! Not for: reading those files (`metadata.rs` reads them as data, with their includes).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

/// Where some common build of git reads its system config: watched whether or not a git on
/// `PATH` names it (a missing one is a single `lstat`).
const KNOWN: &[&str] = &[
    "/etc/gitconfig",
    // Built from source, and Homebrew on Intel Macs.
    "/usr/local/etc/gitconfig",
    // Homebrew on Apple silicon, and on Linux.
    "/opt/homebrew/etc/gitconfig",
    "/home/linuxbrew/.linuxbrew/etc/gitconfig",
    // Xcode's git (the Command Line Tools and the app) also reads its own.
    "/Library/Developer/CommandLineTools/usr/share/git-core/gitconfig",
    "/Applications/Xcode.app/Contents/Developer/usr/share/git-core/gitconfig",
];

/// Most gits on `PATH` asked.
const MAX_GITS: usize = 8;
/// How long one git may take to answer.
const ANSWER_WITHIN: Duration = Duration::from_secs(5);

/// The system config files of this machine's gits, looked up once per run (the first call's
/// worktree decides which `PATH` entries are too close to the repository to run).
pub(crate) fn files(worktree: &Path) -> &'static [PathBuf] {
    static FILES: OnceLock<Vec<PathBuf>> = OnceLock::new();
    FILES.get_or_init(|| {
        let path = std::env::var_os("PATH").unwrap_or_default();
        lookup(worktree, &path)
    })
}

/// Start the lookup on a thread of its own, so the gits answer while the run prepares and the
/// snapshot reads the git directory (the first [`files`] waits for it). A command that will
/// take a snapshot starts it as soon as it has found the repository; a second call only starts
/// a thread that finds the answer there.
pub(crate) fn prefetch(worktree: &Path) {
    let worktree = worktree.to_path_buf();
    let _ = std::thread::Builder::new()
        .name("system-config".into())
        .spawn(move || files(&worktree));
}

/// The known locations and what each git on `path_var` says, deduplicated, in that order.
pub(super) fn lookup(worktree: &Path, path_var: &std::ffi::OsStr) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = KNOWN.iter().map(PathBuf::from).collect();
    let gits = gits_on_path(worktree, path_var);
    let answers: Vec<Option<PathBuf>> = std::thread::scope(|s| {
        let asks: Vec<_> = gits.iter().map(|git| s.spawn(|| ask(git))).collect();
        asks.into_iter().map(|h| h.join().ok().flatten()).collect()
    });
    for p in answers.into_iter().flatten() {
        if !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

/// Each distinct `git` executable (by real path) in an absolute `PATH` entry that is not inside
/// the worktree, found by the one program lookup ([`crate::process::program`]); a link from
/// outside into the worktree does not make it safe.
fn gits_on_path(worktree: &Path, path_var: &std::ffi::OsStr) -> Vec<PathBuf> {
    let worktree = std::fs::canonicalize(worktree).unwrap_or_else(|_| worktree.to_path_buf());
    let mut out: Vec<PathBuf> = Vec::new();
    for found in crate::process::program::each_in("git".as_ref(), path_var, &worktree) {
        let Ok(real) = std::fs::canonicalize(&found) else {
            continue;
        };
        if real.starts_with(&worktree) || out.contains(&real) {
            continue;
        }
        // On macOS `/usr/bin/git` is a stub that opens an installer window when the developer
        // tools are missing; Xcode's system config is in `KNOWN` instead.
        if cfg!(target_os = "macos") && real == Path::new("/usr/bin/git") {
            continue;
        }
        out.push(real);
        if out.len() == MAX_GITS {
            break;
        }
    }
    out
}

/// The system config file `git` reads: `git var GIT_CONFIG_SYSTEM` (git 2.42 and later), else
/// the file `git config --system --show-origin --list` names (read or missing).
fn ask(git: &Path) -> Option<PathBuf> {
    if let Some((0, stdout, _)) = run(git, &["var", "GIT_CONFIG_SYSTEM"]) {
        return first_absolute_line(&stdout);
    }
    let (_, stdout, stderr) = run(git, &["config", "--system", "--show-origin", "--list"])?;
    origin_of_list(&stdout).or_else(|| unreadable_file(&stderr))
}

/// Run `git ARGS` from `/` with an empty environment; its exit code and output.
fn run(git: &Path, args: &[&str]) -> Option<(i32, Vec<u8>, Vec<u8>)> {
    use crate::process::{Ending, Spawn};
    let finished = Spawn::new(git)
        .args(args)
        .clear_env()
        .cwd("/")
        .timeout(ANSWER_WITHIN)
        .grace(Duration::from_millis(200))
        .capture(64 * 1024, 4096)
        .ok()?;
    match finished.ending {
        Ending::Exited(code) => Some((code, finished.sink.stdout, finished.sink.stderr)),
        _ => None,
    }
}

fn absolute(bytes: &[u8]) -> Option<PathBuf> {
    let p = PathBuf::from(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(bytes));
    p.is_absolute().then_some(p)
}

/// `git var GIT_CONFIG_SYSTEM`'s answer.
fn first_absolute_line(out: &[u8]) -> Option<PathBuf> {
    let line = out.split(|b| *b == b'\n').next()?;
    absolute(line.strip_suffix(b"\r").unwrap_or(line))
}

/// The file of the first `file:<path>\t<key>=<value>` line.
fn origin_of_list(out: &[u8]) -> Option<PathBuf> {
    let line = out.split(|b| *b == b'\n').next()?;
    let rest = line.strip_prefix(b"file:")?;
    let end = rest.iter().position(|b| *b == b'\t')?;
    absolute(&rest[..end])
}

/// The file of `fatal: unable to read config file '<path>': No such file or directory`.
fn unreadable_file(err: &[u8]) -> Option<PathBuf> {
    const MARK: &[u8] = b"unable to read config file '";
    let at = err.windows(MARK.len()).position(|w| w == MARK)? + MARK.len();
    let rest = &err[at..];
    let end = rest.iter().position(|b| *b == b'\'')?;
    absolute(&rest[..end])
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    /// A stand-in `git` in `dir/name` running `script` (POSIX sh).
    fn fake_git(dir: &Path, name: &str, script: &str) -> PathBuf {
        let bin = dir.join(name);
        std::fs::create_dir_all(&bin).unwrap();
        let git = bin.join("git");
        std::fs::write(&git, format!("#!/bin/sh\n{script}\n")).unwrap();
        std::fs::set_permissions(&git, std::fs::Permissions::from_mode(0o755)).unwrap();
        bin
    }

    fn path_var(dirs: &[&Path]) -> std::ffi::OsString {
        std::env::join_paths(dirs).unwrap()
    }

    #[test]
    fn a_new_git_is_asked_with_git_var_from_root_with_an_empty_environment() {
        let dir = tempfile::tempdir().unwrap();
        let seen = dir.path().join("seen");
        let bin = fake_git(
            dir.path(),
            "new",
            &format!(
                "{{ pwd; env; echo \"$@\"; }} > '{}'\n[ \"$1 $2\" = 'var GIT_CONFIG_SYSTEM' ] && echo /opt/new/etc/gitconfig",
                seen.display()
            ),
        );
        let found = lookup(Path::new("/nonexistent-worktree"), &path_var(&[&bin]));
        assert!(
            found.contains(&PathBuf::from("/opt/new/etc/gitconfig")),
            "{found:?}"
        );
        for known in KNOWN {
            assert!(found.contains(&PathBuf::from(known)), "{known}: {found:?}");
        }
        let seen = std::fs::read_to_string(&seen).unwrap();
        let mut lines = seen.lines();
        assert_eq!(lines.next(), Some("/"), "{seen}");
        for var in [
            "HOME",
            "GIT_CONFIG_NOSYSTEM",
            "GIT_CONFIG_SYSTEM",
            "GIT_DIR",
        ] {
            assert!(!seen.contains(&format!("{var}=")), "{var} passed: {seen}");
        }
    }

    #[test]
    fn an_old_git_names_its_file_through_config_show_origin_read_or_missing() {
        let dir = tempfile::tempdir().unwrap();
        let present = fake_git(
            dir.path(),
            "present",
            "[ \"$1\" = var ] && exit 129\nprintf 'file:/opt/a/etc/gitconfig\\tuser.name=x\\n'",
        );
        let missing = fake_git(
            dir.path(),
            "missing",
            "[ \"$1\" = var ] && exit 129\necho \"fatal: unable to read config file '/opt/b/etc/gitconfig': No such file or directory\" >&2\nexit 128",
        );
        let found = lookup(
            Path::new("/nonexistent-worktree"),
            &path_var(&[&present, &missing]),
        );
        assert!(
            found.contains(&PathBuf::from("/opt/a/etc/gitconfig")),
            "{found:?}"
        );
        assert!(
            found.contains(&PathBuf::from("/opt/b/etc/gitconfig")),
            "{found:?}"
        );
    }

    #[test]
    fn no_git_inside_the_worktree_or_in_a_relative_entry_is_run() {
        let dir = tempfile::tempdir().unwrap();
        let worktree = dir.path().join("repo");
        let marker = dir.path().join("ran");
        let script = format!("touch '{}'\necho /opt/evil/gitconfig", marker.display());
        let inside = fake_git(&worktree, "node_modules/.bin", &script);
        fake_git(&worktree, "bin", &script);
        // A link from outside into the worktree is still the worktree.
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&inside, &link).unwrap();
        let var = std::env::join_paths([
            inside.as_os_str(),
            link.as_os_str(),
            std::ffi::OsStr::new("bin"),
            std::ffi::OsStr::new(""),
        ])
        .unwrap();
        let cwd = std::env::current_dir().unwrap();
        let found = lookup(&worktree, &var);
        assert_eq!(std::env::current_dir().unwrap(), cwd);
        assert!(!marker.exists(), "a git of the repository ran");
        assert!(!found.contains(&PathBuf::from("/opt/evil/gitconfig")));
    }

    #[test]
    fn answers_are_parsed_from_each_form() {
        assert_eq!(
            first_absolute_line(b"/usr/local/etc/gitconfig\n"),
            Some(PathBuf::from("/usr/local/etc/gitconfig"))
        );
        assert_eq!(first_absolute_line(b"etc/gitconfig\n"), None);
        assert_eq!(
            origin_of_list(b"file:/etc/gitconfig\tcredential.helper=x\n"),
            Some(PathBuf::from("/etc/gitconfig"))
        );
        assert_eq!(origin_of_list(b""), None);
        assert_eq!(
            unreadable_file(
                b"fatal: unable to read config file '/usr/local/etc/gitconfig': No such file or directory\n"
            ),
            Some(PathBuf::from("/usr/local/etc/gitconfig"))
        );
        assert_eq!(unreadable_file(b"fatal: something else\n"), None);
    }
}
