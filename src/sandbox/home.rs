//! The person's home by allow list: a runner sees only the entries of HOME it is shown to need —
//! those that hold the worktree, the turn's files, its program and the program's interpreter,
//! `PATH`'s directories and what their links lead to, the git configuration, the preset's state
//! and login — and none of the rest, whatever it is called: a key in `~/.pgpass`, a token typed
//! into `~/.bash_history`, a `~/notes/deploy.txt` no list of credential stores names. (The list
//! of stores, secrets.rs, still hides those inside an entry that is shown: `~/.local/share/keyrings`
//! where `~/.local` holds the program.)
//!
//! Decided here, in the tool; applied by the launcher where a mount namespace can replace HOME
//! (linux/namespace.rs) and by the Seatbelt profile on macOS.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The most entries of one `PATH` directory under HOME read for their links (a `~/.local/bin`
/// of a few hundred programs is read whole; a directory of many thousands stops there).
const MOST_LINKS: usize = 4096;

/// HOME as a runner sees it: only `shown` (paths relative to `home`, none inside another),
/// each as it is on disk; everything else of HOME is absent.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct HomeView {
    /// HOME's real path.
    pub home: PathBuf,
    pub shown: Vec<PathBuf>,
}

/// HOME by allow list, given what the runner needs there: `trees`, paths whose whole top-level
/// entry of HOME is shown (a program and its interpreter, `PATH`'s directories: an installation
/// such as `~/.nvm` or `~/.local` reads its own files beside them), and `exact`, paths shown
/// exactly (the worktree, the git configuration, the preset's state, a file a variable names —
/// the rest of `~/.config` or `~/src` stays absent; one that does not exist yet is shown by its
/// directory, when that is not HOME). A tree at HOME or above it shows nothing. `None` where
/// nothing can be left out: no HOME, `/`, not a directory, or an exact path at HOME or above it
/// (a repository that is the home directory).
pub(crate) fn view(home: Option<&Path>, trees: &[PathBuf], exact: &[PathBuf]) -> Option<HomeView> {
    let home = std::fs::canonicalize(home?).ok()?;
    if home.parent().is_none() || !home.is_dir() {
        return None;
    }
    // A path as written (where a link on its way must be shown too) unless it walks through
    // `.` or `..` (`~/.config/../../bin/sh` names /bin/sh, not `~/.config`), and where it leads.
    let forms = |p: &PathBuf| {
        let plain = p
            .components()
            .all(|c| matches!(c, Component::RootDir | Component::Normal(_)));
        let real = std::fs::canonicalize(p).ok();
        plain.then(|| p.clone()).into_iter().chain(real)
    };
    let mut shown: BTreeSet<PathBuf> = BTreeSet::new();
    for path in trees.iter().flat_map(forms) {
        // An installation at HOME or above it (`PATH=$HOME:…`, an argument `/`) is no reason
        // to show HOME whole: it is left out, and the runner finds there what is shown anyway.
        if home.starts_with(&path) {
            continue;
        }
        if let Ok(rest) = path.strip_prefix(&home)
            && let Some(Component::Normal(top)) = rest.components().next()
        {
            shown.insert(PathBuf::from(top));
        }
    }
    for path in exact.iter().flat_map(forms) {
        if home.starts_with(&path) {
            return None;
        }
        let Ok(rest) = path.strip_prefix(&home) else {
            continue;
        };
        let rest = if std::fs::symlink_metadata(&path).is_ok() {
            rest.to_path_buf()
        } else {
            match rest.parent() {
                Some(dir) if !dir.as_os_str().is_empty() && home.join(dir).is_dir() => {
                    dir.to_path_buf()
                }
                _ => continue,
            }
        };
        shown.insert(rest);
    }
    // Nothing inside another shown path: the outer one shows it already.
    let all: Vec<PathBuf> = shown.iter().cloned().collect();
    shown.retain(|p| !all.iter().any(|q| q != p && p.starts_with(q)));
    Some(HomeView {
        home,
        shown: shown.into_iter().collect(),
    })
}

/// What a runner started as `program` needs besides the program itself: the interpreter its
/// first line names (`#!/home/ann/.venv/bin/python`, and where that leads), if absolute.
pub(crate) fn interpreter(program: &Path) -> Vec<PathBuf> {
    use std::io::Read;
    let mut head = [0u8; 256];
    let Ok(n) = std::fs::File::open(program).and_then(|mut f| f.read(&mut head)) else {
        return Vec::new();
    };
    let Some(line) = head[..n].strip_prefix(b"#!") else {
        return Vec::new();
    };
    let line = line.split(|&b| b == b'\n').next().unwrap_or_default();
    let Some(first) = String::from_utf8_lossy(line)
        .split_whitespace()
        .next()
        .map(PathBuf::from)
    else {
        return Vec::new();
    };
    if !first.is_absolute() {
        return Vec::new();
    }
    let real = std::fs::canonicalize(&first).ok().filter(|r| *r != first);
    std::iter::once(first).chain(real).collect()
}

/// Where the links in `PATH`'s directories under `home` lead, when that is under `home` too
/// (`~/.local/bin/node` → `~/.nvm/versions/node/v22/bin/node`): a program the runner starts
/// by name must find its files.
pub(crate) fn path_links(home: &Path, path_dirs: &[PathBuf]) -> Vec<PathBuf> {
    let Ok(home) = std::fs::canonicalize(home) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for dir in path_dirs {
        let Ok(real) = std::fs::canonicalize(dir) else {
            continue;
        };
        if !real.starts_with(&home) {
            continue;
        }
        let Ok(entries) = std::fs::read_dir(&real) else {
            continue;
        };
        for entry in entries.flatten().take(MOST_LINKS) {
            if entry.file_type().is_ok_and(|t| t.is_symlink())
                && let Ok(target) = std::fs::canonicalize(entry.path())
                && target.starts_with(&home)
            {
                found.push(target);
            }
        }
    }
    found.sort();
    found.dedup();
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn home_is_shown_by_allow_list_unless_the_worktree_is_home_or_above() {
        let dir = tempfile::tempdir().unwrap();
        let home = std::fs::canonicalize(dir.path()).unwrap().join("ann");
        for d in [
            "work/repo",
            "work/other",
            ".config/git",
            ".config/gh",
            ".local/bin",
            "signals",
        ] {
            std::fs::create_dir_all(home.join(d)).unwrap();
        }
        let p = |rel: &str| home.join(rel);
        let view = view(
            Some(&home),
            &[p(".local/bin")],
            &[
                p("work/repo"),
                p(".config/git"),
                p(".config/git/ignore"),
                p("signals/go"),
                p("not-yet"),
                PathBuf::from("/usr/bin"),
            ],
        )
        .unwrap();
        assert_eq!(view.home, home);
        assert_eq!(
            view.shown,
            [".config/git", ".local", "signals", "work/repo"].map(PathBuf::from)
        );
        assert_eq!(
            super::view(Some(&home), &[], std::slice::from_ref(&home)),
            None
        );
        // An installation at HOME or above shows nothing, and a path through `..` is shown
        // where it leads, not where it is spelled.
        let wide = super::view(
            Some(&home),
            &[
                home.parent().unwrap().into(),
                home.clone(),
                home.join("."),
                home.join(".config/../.."),
                home.join(".config/../../bin/sh"),
            ],
            &[p("work/repo")],
        )
        .unwrap();
        assert_eq!(wide.shown, [PathBuf::from("work/repo")]);
        assert_eq!(super::view(Some(Path::new("/")), &[], &[]), None);
        assert_eq!(super::view(Some(&home.join("missing")), &[], &[]), None);
        assert_eq!(super::view(None, &[], &[]), None);
    }

    #[test]
    fn a_scripts_interpreter_and_the_links_of_path_under_home_are_needed() {
        let dir = tempfile::tempdir().unwrap();
        let home = std::fs::canonicalize(dir.path()).unwrap();
        let real_bin = home.join(".nvm/v22/bin");
        std::fs::create_dir_all(&real_bin).unwrap();
        std::fs::write(real_bin.join("node"), "#!/bin/sh\n").unwrap();
        let path_dir = home.join(".local/bin");
        std::fs::create_dir_all(&path_dir).unwrap();
        std::os::unix::fs::symlink(real_bin.join("node"), path_dir.join("node")).unwrap();
        std::os::unix::fs::symlink("/bin/sh", path_dir.join("sh")).unwrap();
        assert_eq!(
            path_links(&home, std::slice::from_ref(&path_dir)),
            vec![real_bin.join("node")]
        );
        assert_eq!(
            path_links(&home, &[PathBuf::from("/usr/bin")]),
            Vec::<PathBuf>::new()
        );
        let script = home.join("run");
        std::fs::write(
            &script,
            format!("#!{} -x\necho\n", path_dir.join("node").display()),
        )
        .unwrap();
        assert_eq!(
            interpreter(&script),
            vec![path_dir.join("node"), real_bin.join("node")]
        );
        std::fs::write(&script, "#!/usr/bin/env node\n").unwrap();
        assert_eq!(interpreter(&script), vec![PathBuf::from("/usr/bin/env")]);
        std::fs::write(&script, "echo\n").unwrap();
        assert!(interpreter(&script).is_empty());
    }
}
