//! The small files that steer git: git metadata (config, info/, pointers, submodule configs),
//! the effective hooks directory, linked worktrees and the user's own git config files.
//! All read as bytes and hashed; nothing here parses more than config keys.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::config;
use super::files::{self, FileDigest};
use super::layout::{self, Layout};
use super::path::RepoPath;

/// Where the user's git configuration lives (taken from the environment once per snapshot).
#[derive(Debug, Clone, Default)]
pub(super) struct UserEnv {
    pub home: Option<PathBuf>,
    pub xdg_config_home: Option<PathBuf>,
    pub git_config_global: Option<PathBuf>,
    /// `GIT_CONFIG_SYSTEM`; read even under `GIT_CONFIG_NOSYSTEM` (the person's next git may
    /// not have it set), as are the files below.
    pub git_config_system: Option<PathBuf>,
    /// Look up every file this machine's gits read as their system config
    /// (`system_config.rs`), for a snapshot of this worktree.
    pub system_lookup: Option<PathBuf>,
}

impl UserEnv {
    /// From the environment, for a snapshot of `worktree` (which decides what git on `PATH` is
    /// too close to the repository to be asked where its system config is).
    pub(super) fn from_process(worktree: &Path) -> UserEnv {
        let non_empty = |name: &str| {
            std::env::var_os(name)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        UserEnv {
            home: non_empty("HOME"),
            xdg_config_home: non_empty("XDG_CONFIG_HOME"),
            git_config_global: non_empty("GIT_CONFIG_GLOBAL"),
            git_config_system: non_empty("GIT_CONFIG_SYSTEM"),
            system_lookup: Some(worktree.to_path_buf()),
        }
    }

    /// The system config files: `GIT_CONFIG_SYSTEM` and what the lookup finds.
    pub(super) fn system_files(&self) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = self.git_config_system.iter().cloned().collect();
        if let Some(worktree) = &self.system_lookup {
            out.extend(super::system_config::files(worktree).iter().cloned());
        }
        out
    }

    pub(super) fn xdg_git(&self, name: &str) -> Option<PathBuf> {
        match (&self.xdg_config_home, &self.home) {
            (Some(xdg), _) => Some(xdg.join("git").join(name)),
            (None, Some(home)) => Some(home.join(".config/git").join(name)),
            _ => None,
        }
    }

    /// Expand a config path value: `~/` to the home directory, relative to `base`.
    pub(super) fn expand(&self, value: &[u8], base: &Path) -> Option<PathBuf> {
        let p = Path::new(std::ffi::OsStr::from_bytes(value));
        if let Ok(rest) = p.strip_prefix("~") {
            return Some(self.home.as_ref()?.join(rest));
        }
        Some(base.join(p))
    }
}

/// Whether a metadata file's bytes are kept for a by-key diff.
fn is_config(label: &str) -> bool {
    label.ends_with("config") || label.ends_with("config.worktree")
}

/// The git metadata files of this worktree that exist, by label (path relative to the common
/// dir where possible).
pub(super) fn git_metadata_paths(layout: &Layout) -> Vec<(String, PathBuf)> {
    let common = &layout.common_dir;
    let mut paths: Vec<PathBuf> = vec![
        common.join("config"),
        common.join("config.worktree"),
        common.join("shallow"),
        common.join("objects/info/alternates"),
        layout.git_dir.join("config.worktree"),
        layout.git_dir.join("commondir"),
        layout.git_dir.join("gitdir"),
    ];
    if layout.dot_git_is_file() {
        paths.push(layout.dot_git.clone());
    }
    paths.extend(files_under(&common.join("info"), &|_| true));
    // Submodule repositories: what steers git inside them, not their objects or index.
    paths.extend(files_under(&common.join("modules"), &|rel: &Path| {
        let name = rel.file_name().map(|n| n.as_bytes()).unwrap_or_default();
        let parent = rel
            .parent()
            .and_then(|p| p.file_name())
            .map(|n| n.as_bytes())
            .unwrap_or_default();
        matches!(
            name,
            b"config" | b"config.worktree" | b"commondir" | b"gitdir" | b"shallow"
        ) || matches!(parent, b"hooks" | b"info")
    }));
    let mut seen = BTreeSet::new();
    paths
        .into_iter()
        .filter(|p| seen.insert(p.clone()) && fs::symlink_metadata(p).is_ok())
        .map(|p| (label(layout, &p), p))
        .collect()
}

pub(super) fn label(layout: &Layout, path: &Path) -> String {
    if path == layout.dot_git {
        return ".git".to_string();
    }
    match path.strip_prefix(&layout.common_dir) {
        Ok(rel) => RepoPath::from_path(rel).escaped(),
        Err(_) => RepoPath::from_path(path).escaped(),
    }
}

/// Every non-directory under `root` accepted by `keep` (given the path relative to `root`),
/// never following symlinks; directories named `objects`, `refs` and `logs` are skipped.
fn files_under(root: &Path, keep: &dyn Fn(&Path) -> bool) -> Vec<PathBuf> {
    let walk = walkdir::WalkDir::new(root)
        .follow_links(false)
        .max_depth(32)
        .into_iter()
        .filter_entry(|e| {
            !(e.file_type().is_dir()
                && e.depth() > 0
                && matches!(e.file_name().as_bytes(), b"objects" | b"refs" | b"logs"))
        });
    walk.filter_map(Result::ok)
        .filter(|e| !e.file_type().is_dir())
        .filter(|e| keep(e.path().strip_prefix(root).unwrap_or(e.path())))
        .map(walkdir::DirEntry::into_path)
        .collect()
}

pub(super) fn git_metadata(layout: &Layout) -> BTreeMap<String, FileDigest> {
    git_metadata_paths(layout)
        .into_iter()
        .filter_map(|(label, path)| {
            let keep = is_config(&label);
            files::digest(&path, keep).map(|d| (label, d))
        })
        .collect()
}

/// The git config files outside the repository that exist: the system's, the user's (global
/// and XDG), every file any config includes (`include.path`, `includeIf.*.path`, followed as
/// data up to depth 10, whatever the condition), their `core.excludesFile` and
/// `core.attributesFile`, and the XDG `git/ignore` and `git/attributes`. `repo_texts` are the
/// repository's own config files (directory, bytes): only what they include is listed.
pub(super) fn user_config_paths(env: &UserEnv, repo_texts: &[(PathBuf, Vec<u8>)]) -> Vec<PathBuf> {
    let mut roots = Vec::new();
    roots.extend(env.system_files());
    match (&env.git_config_global, &env.home) {
        (Some(global), _) => roots.push(global.clone()),
        (None, Some(home)) => roots.push(home.join(".gitconfig")),
        _ => {}
    }
    roots.extend(env.xdg_git("config"));
    let mut out: Vec<PathBuf> = Vec::new();
    let mut queue: Vec<(PathBuf, u32)> = roots.into_iter().map(|p| (p, 0)).collect();
    let mut extra: Vec<PathBuf> = [env.xdg_git("ignore"), env.xdg_git("attributes")]
        .into_iter()
        .flatten()
        .collect();
    let included = |bytes: &[u8],
                    base: &Path,
                    depth: u32,
                    queue: &mut Vec<(PathBuf, u32)>,
                    extra: &mut Vec<PathBuf>| {
        let Some(keys) = config::keys(bytes) else {
            return;
        };
        for (key, _) in keys.iter() {
            let is_include =
                key == "include.path" || (key.starts_with("includeif.") && key.ends_with(".path"));
            if is_include && depth < 10 {
                for v in config::all_values(&keys, key) {
                    if let Some(p) = env.expand(v, base) {
                        queue.push((p, depth + 1));
                    }
                }
            }
            if (key == "core.excludesfile" || key == "core.attributesfile")
                && let Some(p) = config::last_value(&keys, key).and_then(|v| env.expand(&v, base))
            {
                extra.push(p);
            }
        }
    };
    for (base, text) in repo_texts {
        included(text, base, 0, &mut queue, &mut extra);
    }
    while let Some((path, depth)) = queue.pop() {
        if out.contains(&path) || fs::symlink_metadata(&path).is_err() {
            continue;
        }
        out.push(path.clone());
        // Read through a link (git follows it), never blocking on a special file.
        let Some(bytes) = files::digest_following(&path).text else {
            continue;
        };
        let base = path.parent().unwrap_or(Path::new("/"));
        included(&bytes, base, depth, &mut queue, &mut extra);
    }
    for p in extra {
        if !out.contains(&p) && fs::symlink_metadata(&p).is_ok() {
            out.push(p);
        }
    }
    out.sort();
    out
}

/// The repository's own config files as (directory, bytes), from its git directory record.
pub(super) fn repo_config_texts(
    layout: &Layout,
    metadata: &BTreeMap<String, FileDigest>,
) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let wt_label = label(layout, &layout.git_dir.join("config.worktree"));
    for (label, dir) in [
        ("config", &layout.common_dir),
        ("config.worktree", &layout.common_dir),
        (wt_label.as_str(), &layout.git_dir),
    ] {
        if let Some(text) = metadata.get(label).and_then(|d| d.text.as_deref()) {
            out.push((dir.clone(), text.clone()));
        }
    }
    out
}

/// Digests of [`user_config_paths`], following links to their targets.
pub(super) fn user_config(
    env: &UserEnv,
    layout: &Layout,
    metadata: &BTreeMap<String, FileDigest>,
) -> BTreeMap<RepoPath, FileDigest> {
    let repo_texts = repo_config_texts(layout, metadata);
    user_config_paths(env, &repo_texts)
        .into_iter()
        .map(|p| {
            let d = files::digest_following(&p);
            (RepoPath::from_path(&p), d)
        })
        .collect()
}

/// One linked worktree, from `<common dir>/worktrees/<id>/`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Worktree {
    /// The `gitdir` pointer: the linked worktree's `.git` file.
    pub gitdir: Option<RepoPath>,
    /// Its `HEAD` as written (`ref: …` or a commit id).
    pub head: Option<RepoPath>,
    /// The lock reason when locked (empty when locked without one).
    pub locked: Option<RepoPath>,
}

pub(super) fn worktrees(layout: &Layout) -> BTreeMap<RepoPath, Worktree> {
    let mut out = BTreeMap::new();
    let Ok(entries) = fs::read_dir(layout.common_dir.join("worktrees")) else {
        return out;
    };
    let line = |p: &Path| {
        files::read_small(p, 64 * 1024)
            .ok()
            .map(|b| RepoPath::new(layout::trim_line(&b)))
    };
    for entry in entries.flatten() {
        let dir = entry.path();
        let locked = dir.join("locked");
        let wt = Worktree {
            gitdir: line(&dir.join("gitdir")),
            head: line(&dir.join("HEAD")),
            locked: fs::symlink_metadata(&locked)
                .is_ok()
                .then(|| line(&locked).unwrap_or_default()),
        };
        out.insert(RepoPath::new(entry.file_name().as_bytes()), wt);
    }
    out
}

impl Worktree {
    /// The worktree's path (its `gitdir` pointer without the trailing `/.git`).
    pub fn path(&self) -> Option<RepoPath> {
        let g = self.gitdir.as_ref()?;
        let bytes = g.as_bytes();
        Some(RepoPath::new(bytes.strip_suffix(b"/.git").unwrap_or(bytes)))
    }
}
