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

use super::memo_gits::{self, Answer};

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

/// The local tier whose memo holds the gits' answers of the last run (`memo_gits.rs`), as the
/// first [`prefetch`] named it.
static TIER: OnceLock<PathBuf> = OnceLock::new();
/// This run's lookup.
static FOUND: OnceLock<Found> = OnceLock::new();

/// What the lookup found: the files, and each git's answer as asked or remembered.
pub(super) struct Found {
    files: Vec<PathBuf>,
    answers: Vec<Answer>,
}

/// The system config files of this machine's gits, looked up once per run (the first call's
/// worktree decides which `PATH` entries are too close to the repository to run).
pub(crate) fn files(worktree: &Path) -> &'static [PathBuf] {
    &FOUND
        .get_or_init(|| {
            let path = std::env::var_os("PATH").unwrap_or_default();
            let remembered = TIER
                .get()
                .map(|tier| memo_gits::load(worktree, tier))
                .unwrap_or_default();
            lookup(worktree, &path, &remembered)
        })
        .files
}

/// Start the lookup on a thread of its own, so the gits answer while the run prepares and the
/// snapshot reads the git directory (the first [`files`] waits for it). A command that will
/// take a snapshot starts it as soon as it has found the repository, naming the local tier
/// whose memo may already hold the answers (`memo_gits.rs`); a second call only starts a
/// thread that finds the answer there.
pub(crate) fn prefetch(worktree: &Path, tier: Option<&Path>) {
    if let Some(tier) = tier {
        let _ = TIER.set(tier.to_path_buf());
    }
    let worktree = worktree.to_path_buf();
    let _ = std::thread::Builder::new()
        .name("system-config".into())
        .spawn(move || files(&worktree));
}

/// Keep this run's answers in the memo of the worktree `root` in its local tier `tier` (with the
/// rest of the memo, after the run's last snapshot); nothing when no lookup was made.
pub(super) fn remember(root: &Path, tier: &Path) -> std::io::Result<()> {
    match FOUND.get() {
        Some(found) => memo_gits::save(root, tier, &found.answers),
        None => Ok(()),
    }
}

/// The known locations and what each git on `path_var` says (or said before, `remembered`, when
/// it is the same file), deduplicated, in that order.
pub(super) fn lookup(worktree: &Path, path_var: &std::ffi::OsStr, remembered: &[Answer]) -> Found {
    let mut files: Vec<PathBuf> = KNOWN.iter().map(PathBuf::from).collect();
    let gits = gits_on_path(worktree, path_var);
    let found: Vec<(Option<PathBuf>, Option<Answer>)> = std::thread::scope(|s| {
        let asks: Vec<_> = (gits.iter())
            .map(|git| s.spawn(|| answer(git, remembered)))
            .collect();
        (asks.into_iter())
            .map(|h| h.join().unwrap_or((None, None)))
            .collect()
    });
    let mut answers = Vec::new();
    for (file, kept) in found {
        if let Some(p) = file.filter(|p| !files.contains(p)) {
            files.push(p);
        }
        answers.extend(kept);
    }
    Found { files, answers }
}

/// Where `git` (a real path) reads its system config, and the answer to keep for the next run:
/// the one kept before when the very same file gave it, else asked. Neither a git that is not
/// remembered (a script, a shim: `memo_gits.rs`) nor one that gave no answer (it failed, or ran
/// out of time) is kept: it is asked again next run.
fn answer(git: &Path, remembered: &[Answer]) -> (Option<PathBuf>, Option<Answer>) {
    let Some(id) = memo_gits::Identity::of_git(git) else {
        return (ask(git), None);
    };
    if let Some(known) = remembered.iter().find(|a| a.id == id && a.git == git) {
        return (Some(known.file.clone()), Some(known.clone()));
    }
    let file = ask(git);
    let kept = file.clone().map(|file| Answer {
        git: git.to_path_buf(),
        id,
        file,
    });
    (file, kept)
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
        let found = lookup(Path::new("/nonexistent-worktree"), &path_var(&[&bin]), &[]).files;
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
            &[],
        )
        .files;
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
        let found = lookup(&worktree, &var, &[]).files;
        assert_eq!(std::env::current_dir().unwrap(), cwd);
        assert!(!marker.exists(), "a git of the repository ran");
        assert!(!found.contains(&PathBuf::from("/opt/evil/gitconfig")));
    }

    /// The first `git` on `PATH`, by its real path (a program of its own on any machine the
    /// tests run on: the tests need git).
    fn real_git() -> PathBuf {
        let path = std::env::var_os("PATH").unwrap_or_default();
        std::env::split_paths(&path)
            .map(|d| d.join("git"))
            .find(|g| g.is_file())
            .map(|g| std::fs::canonicalize(g).unwrap())
            .expect("git on PATH")
    }

    #[test]
    fn a_git_remembered_as_the_same_file_is_not_asked_again_and_another_file_is() {
        let git = real_git();
        let bin = git.parent().unwrap();
        let id = memo_gits::Identity::of_git(&git).expect("the git on PATH is its own program");
        // An answer no real git gives: seen only if the memo was believed.
        let planted = Answer {
            git: git.clone(),
            id,
            file: PathBuf::from("/opt/remembered/etc/gitconfig"),
        };
        let found = lookup(
            Path::new("/nonexistent-worktree"),
            &path_var(&[bin]),
            std::slice::from_ref(&planted),
        );
        assert!(found.files.contains(&planted.file), "{:?}", found.files);
        assert_eq!(found.answers, vec![planted.clone()]);
        // Another file at that path (an upgrade, a rebuild): asked, and its own answer kept.
        let mut before = planted.clone();
        before.id = memo_gits::Identity([1, 2, 3, 4, 5]);
        let found = lookup(
            Path::new("/nonexistent-worktree"),
            &path_var(&[bin]),
            &[before],
        );
        assert!(!found.files.contains(&planted.file), "{:?}", found.files);
        assert_eq!(found.answers.len(), 1, "{:?}", found.answers);
        assert_eq!(found.answers[0].id, id);
        assert!(found.files.contains(&found.answers[0].file));
        assert_ne!(found.answers[0].file, planted.file);
    }

    #[test]
    fn a_wrapper_script_is_asked_on_every_run_and_never_remembered() {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("ran");
        let bin = fake_git(
            dir.path(),
            "wrapper",
            &format!(
                "touch '{}'\necho /opt/wrapped/etc/gitconfig",
                marker.display()
            ),
        );
        let git = std::fs::canonicalize(bin.join("git")).unwrap();
        let m = std::fs::symlink_metadata(&git).unwrap();
        use std::os::unix::fs::MetadataExt;
        let planted = Answer {
            git,
            // Its identity exactly, as a remembered program's would be.
            id: memo_gits::Identity([
                m.dev(),
                m.ino(),
                m.size(),
                (m.mtime() * 1_000_000_000 + m.mtime_nsec()) as u64,
                (m.ctime() * 1_000_000_000 + m.ctime_nsec()) as u64,
            ]),
            file: PathBuf::from("/opt/remembered/etc/gitconfig"),
        };
        let found = lookup(
            Path::new("/nonexistent-worktree"),
            &path_var(&[&bin]),
            &[planted],
        );
        assert!(marker.exists(), "the wrapper was not asked");
        assert!(
            found
                .files
                .contains(&PathBuf::from("/opt/wrapped/etc/gitconfig"))
        );
        assert!(found.answers.is_empty(), "{:?}", found.answers);
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
