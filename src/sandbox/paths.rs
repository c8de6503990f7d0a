//! Which paths the sandbox protects (never writable, bound read-only where a mount namespace
//! exists). The state directories a CLI may write are its preset's (`agent.rs`).

use std::path::{Path, PathBuf};

/// The worktree, its git directories (the common dir holds linked-worktree and submodule git
/// dirs), the main worktree of a linked one, and every git configuration file git would read,
/// with the files their `include.path` / `includeIf` lines name.
pub(crate) fn protected(worktree: &Path, common_dir: &Path) -> Vec<PathBuf> {
    let mut out = vec![worktree.to_path_buf()];
    let common = std::fs::canonicalize(common_dir).unwrap_or_else(|_| common_dir.to_path_buf());
    if common.file_name().is_some_and(|n| n == ".git")
        && let Some(main) = common.parent()
    {
        out.push(main.to_path_buf());
    }
    out.push(common.clone());
    if let Some(gitdir) = gitfile_target(worktree) {
        out.push(gitdir);
    }
    let mut configs = vec![common.join("config"), common.join("config.worktree")];
    configs.extend(user_config_files(worktree));
    for config in configs.clone() {
        includes(&config, &mut configs, 0);
    }
    let home = std::env::var_os("HOME").map(PathBuf::from);
    if let Some(home) = &home {
        out.push(home.join(".config").join("git"));
    }
    if let Some(xdg) = std::env::var_os("XDG_CONFIG_HOME") {
        out.push(PathBuf::from(xdg).join("git"));
    }
    out.extend(configs);
    let unique: std::collections::BTreeSet<PathBuf> = out
        .into_iter()
        .filter(|p| p.is_absolute() && std::fs::symlink_metadata(p).is_ok())
        .collect();
    let mut kept: Vec<PathBuf> = unique.into_iter().collect();
    // Outer paths first: the read-only binds of inner ones go on top.
    kept.sort_by_key(|p| p.components().count());
    kept
}

/// `~/.gitconfig`, the XDG git config, the system config of each git on this machine (where it
/// actually reads it, the guard's lookup), and the files `GIT_CONFIG_GLOBAL` / `GIT_CONFIG_SYSTEM`
/// name.
fn user_config_files(worktree: &Path) -> Vec<PathBuf> {
    let mut files = crate::guard::system_config_files(worktree).to_vec();
    if let Some(home) = std::env::var_os("HOME") {
        let home = PathBuf::from(home);
        files.push(home.join(".gitconfig"));
        files.push(home.join(".config").join("git").join("config"));
    }
    for var in ["GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM"] {
        if let Some(v) = std::env::var_os(var) {
            files.push(PathBuf::from(v));
        }
    }
    files
}

/// The git dir a `.git` file in `worktree` points to.
fn gitfile_target(worktree: &Path) -> Option<PathBuf> {
    let dotgit = worktree.join(".git");
    if !std::fs::symlink_metadata(&dotgit).ok()?.is_file() {
        return None;
    }
    let text = read_small(&dotgit)?;
    let target = text.lines().next()?.strip_prefix("gitdir:")?.trim();
    Some(worktree.join(target))
}

/// What git's configuration names for a runner to read where HOME is shown by allow list
/// (home.rs): the ignore and attributes files (`core.excludesFile`, `core.attributesFile`: what
/// keeps an ignored secret from being read must itself be readable). `user` from the person's own
/// configuration (and its includes), shown to every runner; `repository` from the repository's
/// `config` and `config.worktree` (and theirs), which a hostile repository writes: shown only to
/// a runner that reads the repository's ignore files itself and never shows their text.
#[derive(Debug, Clone, Default)]
pub(crate) struct NamedByGit {
    pub user: Vec<PathBuf>,
    pub repository: Vec<PathBuf>,
    /// Every file the repository's configuration includes and no configuration of the person's
    /// does: protected, never shown for that reason.
    pub repository_includes: Vec<PathBuf>,
    /// The person's global configuration — `~/.gitconfig`, the XDG `git/config`, the file
    /// `GIT_CONFIG_GLOBAL` names, what they include — and the directories `git/` that hold the
    /// XDG one: protected, never shown to a runner, whose git reads a copy of the allowed keys
    /// instead (git_config.rs).
    pub global: Vec<PathBuf>,
    /// Of those, the files that exist outside the worktree: hidden where a runner would see
    /// them inside what it is shown (a whole `~/.config`, a HOME shown whole). One inside the
    /// worktree (a repository of dotfiles) is the repository's own file, left as it is.
    pub global_outside: Vec<PathBuf>,
    /// The XDG `git/ignore` and `git/attributes` that exist: read by git where no
    /// `core.excludesFile` / `core.attributesFile` is set, so shown as those are.
    pub defaults: Vec<PathBuf>,
}

/// See [`NamedByGit`].
pub(crate) fn named_by_git(worktree: &Path, common_dir: &Path) -> NamedByGit {
    let common = std::fs::canonicalize(common_dir).unwrap_or_else(|_| common_dir.to_path_buf());
    let mut user = user_config_files(worktree);
    for config in user.clone() {
        includes(&config, &mut user, 0);
    }
    let mut repository = vec![common.join("config"), common.join("config.worktree")];
    for config in repository.clone() {
        includes(&config, &mut repository, 0);
    }
    let worktree = std::fs::canonicalize(worktree).unwrap_or_else(|_| worktree.to_path_buf());
    let global = global_files();
    let repository_includes = repository
        .iter()
        .skip(2)
        .filter(|p| !user.contains(p))
        .cloned()
        .collect();
    NamedByGit {
        user: read_by_git(&user),
        repository: read_by_git(&repository),
        repository_includes,
        global_outside: global
            .iter()
            .filter(|p| std::fs::symlink_metadata(p).is_ok_and(|m| !m.is_dir()))
            .filter(|p| {
                let real = std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
                !real.starts_with(&worktree) && !p.starts_with(&worktree)
            })
            .cloned()
            .collect(),
        global,
        defaults: git_dirs()
            .iter()
            .flat_map(|d| [d.join("ignore"), d.join("attributes")])
            .filter(|p| std::fs::symlink_metadata(p).is_ok())
            .collect(),
    }
}

/// The directories `git/` of the XDG configuration: `~/.config/git`, `$XDG_CONFIG_HOME/git`.
fn git_dirs() -> Vec<PathBuf> {
    let home = std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config"));
    let xdg = std::env::var_os("XDG_CONFIG_HOME").map(PathBuf::from);
    home.into_iter().chain(xdg).map(|d| d.join("git")).collect()
}

/// See [`NamedByGit::global`].
fn global_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = git_dirs().iter().map(|d| d.join("config")).collect();
    if let Some(home) = std::env::var_os("HOME") {
        files.push(PathBuf::from(home).join(".gitconfig"));
    }
    if let Some(v) = std::env::var_os("GIT_CONFIG_GLOBAL") {
        files.push(PathBuf::from(v));
    }
    for config in files.clone() {
        includes(&config, &mut files, 0);
    }
    files.extend(git_dirs());
    files
}

/// The values of `key` in the sections named one of `sections` of a git configuration's text
/// (names and keys compared without case, quotes taken off).
fn values<'a>(text: &'a str, sections: &[&str], key: &str) -> Vec<&'a str> {
    let mut found = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        let line = line.trim();
        if let Some(section) = line.strip_prefix('[') {
            let name = section.split([']', ' ', '"']).next().unwrap_or("");
            inside = sections.iter().any(|s| name.eq_ignore_ascii_case(s));
            continue;
        }
        if let Some((k, value)) = line.split_once('=').filter(|_| inside)
            && k.trim().eq_ignore_ascii_case(key)
        {
            found.push(value.trim().trim_matches('"'));
        }
    }
    found
}

/// A path as a git configuration value gives it: `~/` is HOME, a relative path is below `base`.
fn config_path(value: &str, base: &Path) -> Option<PathBuf> {
    match value.strip_prefix("~/") {
        Some(rest) => std::env::var_os("HOME").map(|home| PathBuf::from(home).join(rest)),
        None => Some(base.join(value)),
    }
}

/// The files `core.excludesFile` and `core.attributesFile` name in `configs` (absolute, or
/// `~/`).
fn read_by_git(configs: &[PathBuf]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for config in configs {
        let Some(text) = read_small(config) else {
            continue;
        };
        for key in ["excludesFile", "attributesFile"] {
            found.extend(
                values(&text, &["core"], key)
                    .into_iter()
                    .filter_map(|v| config_path(v, Path::new("")))
                    .filter(|p| p.is_absolute()),
            );
        }
    }
    found
}

/// Add the files `config` includes (`path = …` in `[include]` and `[includeIf …]` sections),
/// three levels deep at most.
fn includes(config: &Path, found: &mut Vec<PathBuf>, depth: usize) {
    if depth > 3 {
        return;
    }
    let Some(text) = read_small(config) else {
        return;
    };
    let base = config.parent().unwrap_or(Path::new("/"));
    for value in values(&text, &["include", "includeif"], "path") {
        let Some(path) = config_path(value, base) else {
            continue;
        };
        if !found.contains(&path) {
            found.push(path.clone());
            includes(&path, found, depth + 1);
        }
    }
}

/// A regular file's text, at most 1 MiB, never following a link at the last component and
/// never blocking on a FIFO.
fn read_small(path: &Path) -> Option<String> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let meta = std::fs::symlink_metadata(path).ok()?;
    let meta = if meta.file_type().is_symlink() {
        std::fs::metadata(path).ok()?
    } else {
        meta
    };
    if !meta.is_file() || meta.len() > 1 << 20 {
        return None;
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut text = String::new();
    file.take(1 << 20).read_to_string(&mut text).ok()?;
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn include_targets_are_protected_relative_to_their_config() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("config");
        std::fs::write(
            &config,
            "[core]\n\tbare = false\n[include]\n\tpath = shared.inc\n[includeIf \"gitdir:/x/\"]\n\tpath = \"other.inc\"\n[user]\n\tpath = not-an-include\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("shared.inc"),
            "[include]\npath = nested.inc\n",
        )
        .unwrap();
        let mut found = Vec::new();
        includes(&config, &mut found, 0);
        let names: Vec<_> = found
            .iter()
            .map(|p| p.file_name().unwrap().to_str().unwrap())
            .collect();
        assert_eq!(names, ["shared.inc", "nested.inc", "other.inc"]);
    }
}
