//! The one program lookup: where a command's program is, for the presets, `interview runners`,
//! the sandbox and every child the tool starts, so all of them give the same answer.
//!
//! A bare name is looked up in the absolute `PATH` directories only, and never in one inside the
//! repository: an empty entry (a trailing `:`), `.` or `node_modules/.bin` would otherwise start
//! a program the repository ships. A name with a slash is the person's own path (their
//! `--runner ./x`), taken as given, relative to the directory the program starts in.

use std::ffi::OsStr;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Where `program` is, looked up in `path_var` (a `PATH` value), skipping every directory inside
/// `repository`; a name with a slash is taken relative to `cwd`.
pub(crate) fn find_in(
    program: &OsStr,
    path_var: &OsStr,
    cwd: &Path,
    repository: &Path,
) -> Option<PathBuf> {
    if program.as_encoded_bytes().contains(&b'/') {
        let path = cwd.join(program);
        return is_executable(&path).then_some(path);
    }
    if program.is_empty() {
        return None;
    }
    each_in(program, path_var, repository).next()
}

/// Every executable `program` (a bare name) in the absolute directories of `path_var`, in order,
/// skipping every directory inside `repository` (by its path or its real path).
pub(crate) fn each_in<'a>(
    program: &'a OsStr,
    path_var: &'a OsStr,
    repository: &Path,
) -> impl Iterator<Item = PathBuf> + 'a {
    let repository = std::fs::canonicalize(repository).unwrap_or_else(|_| repository.into());
    std::env::split_paths(path_var)
        .filter(|dir| dir.is_absolute())
        .filter(move |dir| {
            let real = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.clone());
            !real.starts_with(&repository) && !dir.starts_with(&repository)
        })
        .map(move |dir| dir.join(program))
        .filter(|candidate| is_executable(candidate))
}

/// [`find_in`] with this process's `PATH`.
pub(crate) fn find(program: &OsStr, cwd: &Path, repository: &Path) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    find_in(program, &path, cwd, repository)
}

/// A regular file (a link to one counts) with an exec bit.
fn is_executable(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_program_of_the_repository_is_never_found_through_path() {
        let repo = tempfile::tempdir().unwrap();
        let bin = tempfile::tempdir().unwrap();
        for dir in [repo.path(), bin.path()] {
            let p = dir.join("claude");
            std::fs::write(&p, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        std::fs::create_dir(repo.path().join("nm")).unwrap();
        let inside = repo.path().join("nm");
        let path = std::env::join_paths(["", ".", inside.to_str().unwrap()]).unwrap();
        let claude = OsStr::new("claude");
        assert_eq!(find_in(claude, &path, repo.path(), repo.path()), None);
        let path = format!("::{}:.", bin.path().display());
        assert_eq!(
            find_in(claude, OsStr::new(&path), repo.path(), repo.path()),
            Some(bin.path().join("claude"))
        );
        // The person's own `./claude` is theirs to run.
        assert_eq!(
            find_in(
                OsStr::new("./claude"),
                OsStr::new(""),
                repo.path(),
                repo.path()
            ),
            Some(repo.path().join("./claude"))
        );
    }
}
