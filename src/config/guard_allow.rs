//! `guard_allow` from the repository's own `interview.toml`: a glob that matches a tracked file
//! or the git directory would let the repository silence the guard on what it protects, so it
//! is dropped (with a warning); one for build output (`target/**`) stays.

use std::path::Path;

use gix::bstr::ByteSlice;

/// Paths of the git directory a glob must not reach (the guard never lets one change anyway;
/// a glob naming them says the repository tried).
const GIT_DIR_PATHS: [&str; 3] = [".git", ".git/config", ".git/hooks/pre-commit"];

/// The globs that match neither a tracked file nor the git directory; `refused(glob, path)` is
/// called for each other one with the first path it matches.
pub(super) fn tighter(
    worktree: &Path,
    globs: Vec<String>,
    mut refused: impl FnMut(&str, &str),
) -> Vec<String> {
    let tracked: Option<Vec<String>> = gix::open_opts(worktree, gix::open::Options::isolated())
        .ok()
        .and_then(|repo| repo.index_or_empty().ok())
        .map(|index| {
            index
                .entries()
                .iter()
                .map(|e| e.path(&index).to_str_lossy().into_owned())
                .collect()
        });
    globs
        .into_iter()
        .filter(|glob| {
            let Some(tracked) = &tracked else {
                refused(glob, "the index, which cannot be read");
                return false;
            };
            let hit = GIT_DIR_PATHS
                .iter()
                .copied()
                .chain(tracked.iter().map(String::as_str))
                .find(|path| matches(glob, path));
            match hit {
                Some(path) => {
                    refused(glob, path);
                    false
                }
                None => true,
            }
        })
        .collect()
}

/// Whether `glob` matches `path` or a directory above it: the guard's own rule for an allowance.
fn matches(glob: &str, path: &str) -> bool {
    crate::guard::allowed(path, &[glob.to_string()])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_glob_reaching_tracked_files_or_the_git_directory_matches() {
        assert!(matches("**", "src/lib.rs"));
        assert!(matches("src/**", "src/lib.rs"));
        assert!(matches("*.rs", "lib.rs"));
        assert!(matches(".git/**", ".git/config"));
        assert!(matches("**", ".git"));
        assert!(!matches("target/**", "src/lib.rs"));
        assert!(!matches("build/**", ".git/config"));
    }
}
