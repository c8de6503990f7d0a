//! What the intent interviewer reads of the repository besides where names occur: the
//! newest tags (gix, in-process), the declared `rust-version`, and which packages of
//! `Cargo.lock` pull a dependency in. All reads are bounded; nothing is run.

use std::io::Read;

use gix::bstr::ByteSlice;
use std::path::Path;

use super::search::Hit;
use super::text::one_line;

/// Files read here are read at most this far.
const MAX_READ: u64 = 4 * 1024 * 1024;

#[derive(Debug, Default)]
pub(super) struct RepoFacts {
    /// Tags, newest version first.
    pub tags: Vec<String>,
    /// `rust-version = "…"` in the root `Cargo.toml`.
    pub rust_version: Option<Hit>,
    /// The project's own name: its root manifest's package name.
    pub project: Option<String>,
    /// The packages its manifests and lockfiles name (`Cargo.lock`, `Cargo.toml`,
    /// `package.json`, `go.mod`, `requirements.txt`, `pyproject.toml`), sorted.
    pub locked: Vec<String>,
}

pub(super) fn read(worktree: &Path) -> RepoFacts {
    let mut facts = RepoFacts::default();
    if let Ok(repo) = gix::open_opts(worktree, gix::open::Options::isolated()) {
        let time_of = |id: gix::Id<'_>| -> Option<i64> {
            let commit = id.object().ok()?.peel_to_commit().ok()?;
            commit.time().ok().map(|t| t.seconds)
        };
        let head_time = repo.head_id().ok().and_then(time_of);
        if let Ok(platform) = repo.references()
            && let Ok(tags) = platform.tags()
        {
            // Only versions that came before this checkout could have shown it.
            let mut names: Vec<String> = tags
                .filter_map(|r| r.ok())
                .take(2000)
                .filter(|r| {
                    let at = r.clone().into_fully_peeled_id().ok().and_then(time_of);
                    matches!((at, head_time), (Some(t), Some(h)) if t <= h)
                })
                .map(|r| r.name().shorten().to_str_lossy().into_owned())
                .collect();
            // The project's own versions (`1.2.0`, `v1.2.0`) over its sub-crates' (`foo-0.1.0`).
            if names.iter().any(|n| own_version(n)) {
                names.retain(|n| own_version(n));
            }
            names.sort_by(|a, b| version_key(b).cmp(&version_key(a)).then(a.cmp(b)));
            names.truncate(50);
            facts.tags = names;
        }
    }
    facts.rust_version = rust_version(worktree, "Cargo.toml");
    facts.project = project_name(worktree);
    facts.locked = packages(worktree);
    facts
}

/// The root manifest's package name (`Cargo.toml`, `package.json`, `pyproject.toml`, `go.mod`).
fn project_name(worktree: &Path) -> Option<String> {
    if let Some(text) = read_text(worktree, "Cargo.toml") {
        let mut section = "";
        for line in text.lines() {
            let t = line.trim();
            if t.starts_with('[') {
                section = t;
            } else if section == "[package]"
                && let Some(v) = toml_string(t, "name")
            {
                return Some(v);
            }
        }
    }
    if let Some(text) = read_text(worktree, "package.json")
        && let Ok(v) = serde_json::from_str::<serde_json::Value>(&text)
        && let Some(name) = v.get("name").and_then(|n| n.as_str())
    {
        return Some(name.rsplit('/').next().unwrap_or(name).to_string());
    }
    if let Some(text) = read_text(worktree, "pyproject.toml") {
        let mut section = "";
        for line in text.lines() {
            let t = line.trim();
            if t.starts_with('[') {
                section = t;
            } else if matches!(section, "[project]" | "[tool.poetry]")
                && let Some(v) = toml_string(t, "name")
            {
                return Some(v);
            }
        }
    }
    let text = read_text(worktree, "go.mod")?;
    let module = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("module "))?;
    Some(module.trim().rsplit('/').next()?.to_string())
}

/// `key = "value"` → `value`.
fn toml_string(line: &str, key: &str) -> Option<String> {
    let (k, v) = line.split_once('=')?;
    (k.trim() == key).then(|| v.trim().trim_matches('"').to_string())
}

/// Every package the manifests and lockfiles of the root name.
fn packages(worktree: &Path) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    if let Some(text) = read_text(worktree, "Cargo.lock") {
        out.extend(
            text.lines()
                .filter_map(|l| l.trim().strip_prefix("name = "))
                .map(|v| v.trim_matches('"').to_string()),
        );
    }
    for manifest in ["Cargo.toml", "pyproject.toml"] {
        if let Some(text) = read_text(worktree, manifest) {
            let mut deps = false;
            for line in text.lines() {
                let t = line.trim();
                if t.starts_with('[') {
                    deps = t.contains("dependencies");
                    continue;
                }
                if deps && let Some((k, _)) = t.split_once('=') {
                    let k = k.trim().trim_matches('"');
                    if !k.is_empty() && !k.contains(' ') {
                        out.push(k.to_string());
                    }
                }
            }
        }
    }
    if let Some(text) = read_text(worktree, "package.json")
        && let Ok(v) = serde_json::from_str::<serde_json::Value>(&text)
    {
        for key in [
            "dependencies",
            "devDependencies",
            "peerDependencies",
            "optionalDependencies",
        ] {
            if let Some(map) = v.get(key).and_then(|d| d.as_object()) {
                out.extend(map.keys().cloned());
            }
        }
    }
    if let Some(text) = read_text(worktree, "go.mod") {
        for line in text.lines() {
            let t = line.trim().trim_start_matches("require ").trim();
            if let Some((path, version)) = t.split_once(' ')
                && version.trim_start().starts_with('v')
                && path.contains('/')
            {
                out.push(path.to_string());
                out.extend(path.rsplit('/').next().map(str::to_string));
            }
        }
    }
    if let Some(text) = read_text(worktree, "requirements.txt") {
        out.extend(text.lines().filter_map(|l| {
            let name: String = l
                .trim()
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
                .collect();
            (!name.is_empty()).then_some(name)
        }));
    }
    out.sort();
    out.dedup();
    out
}

/// `rust-version = "…"` in the manifest `rel`, with its line.
pub(super) fn rust_version(worktree: &Path, rel: &str) -> Option<Hit> {
    let text = read_text(worktree, rel)?;
    text.lines().enumerate().find_map(|(i, l)| {
        let t = l.trim();
        (t.starts_with("rust-version") && t.contains('=')).then(|| Hit {
            path: rel.to_string(),
            line: u32::try_from(i + 1).unwrap_or(u32::MAX),
            text: one_line(t, 160),
        })
    })
}

/// The oldest toolchain the project declares it builds with, and the language: `rust-version`
/// in the root `Cargo.toml` or in the manifest of the first folder of a path in `near` (a
/// workspace's member), `go` in `go.mod`, `engines.node` in `package.json`,
/// `python_requires` / `requires-python`.
pub(super) fn toolchain(worktree: &Path, near: &[&str]) -> Option<(Hit, &'static str)> {
    let rust = rust_version(worktree, "Cargo.toml").or_else(|| {
        near.iter().find_map(|p| {
            let (dir, _) = p.split_once('/')?;
            rust_version(worktree, &format!("{dir}/Cargo.toml"))
        })
    });
    if let Some(hit) = rust {
        return Some((hit, "Rust"));
    }
    let line_of = |rel: &str, found: &dyn Fn(&str) -> bool| -> Option<Hit> {
        let text = read_text(worktree, rel)?;
        text.lines().enumerate().find_map(|(i, l)| {
            found(l.trim()).then(|| Hit {
                path: rel.to_string(),
                line: u32::try_from(i + 1).unwrap_or(u32::MAX),
                text: one_line(l.trim(), 160),
            })
        })
    };
    let starts_with_digit = |s: &str| s.trim().starts_with(|c: char| c.is_ascii_digit());
    if let Some(hit) = line_of("go.mod", &|t| {
        t.strip_prefix("go ").is_some_and(starts_with_digit)
    }) {
        return Some((hit, "Go"));
    }
    if let Some(hit) = line_of("package.json", &|t| t.starts_with("\"node\":")) {
        return Some((hit, "Node"));
    }
    let python = |t: &str| t.starts_with("python_requires") || t.starts_with("requires-python");
    line_of("setup.py", &python)
        .or_else(|| line_of("setup.cfg", &python))
        .or_else(|| line_of("pyproject.toml", &python))
        .map(|hit| (hit, "Python"))
}

fn own_version(tag: &str) -> bool {
    tag.trim_start_matches('v')
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_digit())
}

/// The numbers of a version-like tag, for sorting (`v1.10.0` after `v1.9.2`).
fn version_key(tag: &str) -> Vec<u64> {
    let numbers = |s: &str| -> Vec<u64> {
        s.split(|c: char| !c.is_ascii_digit())
            .filter(|s| !s.is_empty())
            .take(6)
            .map(|s| s.parse().unwrap_or(0))
            .collect()
    };
    // `v4.0.0-1` is a pre-release: below `v4.0.0`.
    let bare = tag.trim_start_matches(|c: char| !c.is_ascii_digit());
    let (core, pre) = bare.split_once('-').unwrap_or((bare, ""));
    let mut key = numbers(core);
    if key.is_empty() {
        return numbers(tag);
    }
    key.resize(4, 0);
    key.push(u64::from(pre.is_empty()));
    key.extend(numbers(pre));
    key
}

/// A tag naming `version` (`1.3` → `v1.3.0`, `1.3.0`, `v1.3`), newest first.
pub(super) fn tag_for<'t>(tags: &'t [String], version: &str) -> Option<&'t String> {
    let core = |s: &str| -> Vec<u64> {
        let bare = s.trim_start_matches(|c: char| !c.is_ascii_digit());
        let core = bare.split_once('-').map_or(bare, |(c, _)| c);
        core.split(|c: char| !c.is_ascii_digit())
            .filter(|s| !s.is_empty())
            .take(6)
            .map(|s| s.parse().unwrap_or(0))
            .collect()
    };
    let want = core(version);
    if want.is_empty() {
        return None;
    }
    tags.iter().find(|t| {
        let key = core(t);
        key.len() >= want.len() && key[..want.len()] == want[..] && t.contains(&want[0].to_string())
    })
}

/// The packages of `Cargo.lock` that depend on `name`, with the line of their `name = …`.
pub(super) fn lock_parents(worktree: &Path, name: &str) -> Vec<(String, Hit)> {
    let Some(text) = read_text(worktree, "Cargo.lock") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut current: Option<(String, u32)> = None;
    let mut in_deps = false;
    let quoted = format!("\"{name}");
    for (i, line) in text.lines().enumerate() {
        let n = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let t = line.trim();
        if t == "[[package]]" {
            current = None;
            in_deps = false;
        } else if let Some(v) = t.strip_prefix("name = ") {
            current = Some((v.trim_matches('"').to_string(), n));
        } else if t.starts_with("dependencies = [") {
            in_deps = true;
        } else if t.starts_with(']') {
            in_deps = false;
        } else if in_deps
            && (t.starts_with(&format!("{quoted}\"")) || t.starts_with(&format!("{quoted} ")))
            && let Some((pkg, at)) = &current
            && !out.iter().any(|(p, _): &(String, Hit)| p == pkg)
        {
            out.push((
                pkg.clone(),
                Hit {
                    path: "Cargo.lock".into(),
                    line: *at,
                    text: format!("name = \"{pkg}\""),
                },
            ));
        }
    }
    out
}

/// A regular file of the worktree as text, not through a symbolic link, at most [`MAX_READ`].
pub(super) fn read_text(worktree: &Path, rel: &str) -> Option<String> {
    let path = worktree.join(rel);
    let meta = std::fs::symlink_metadata(&path).ok()?;
    if !meta.is_file() {
        return None;
    }
    let mut bytes = Vec::new();
    std::fs::File::open(&path)
        .ok()?
        .take(MAX_READ)
        .read_to_end(&mut bytes)
        .ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_sort_by_version_and_match_versions() {
        let mut tags = vec!["v1.9.2".to_string(), "v1.10.0".into(), "v1.3.0".into()];
        tags.sort_by_key(|t| std::cmp::Reverse(version_key(t)));
        assert_eq!(tags, ["v1.10.0", "v1.9.2", "v1.3.0"]);
        assert_eq!(tag_for(&tags, "1.3").map(String::as_str), Some("v1.3.0"));
        assert_eq!(tag_for(&tags, "2.0"), None);
        let mut pre = vec!["v4.0.0-1".to_string(), "v4.0.0".into(), "v3.0.2".into()];
        pre.sort_by_key(|t| std::cmp::Reverse(version_key(t)));
        assert_eq!(pre, ["v4.0.0", "v4.0.0-1", "v3.0.2"]);
    }

    #[test]
    fn lock_parents_name_the_packages_that_pull_a_crate_in() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("Cargo.lock"),
            "[[package]]\nname = \"clap\"\nversion = \"2.34.0\"\ndependencies = [\n \"ansi_term\",\n \"atty\",\n]\n\n[[package]]\nname = \"ansi_term\"\n",
        )
        .unwrap();
        let parents = lock_parents(dir.path(), "ansi_term");
        assert_eq!(parents.len(), 1);
        assert_eq!(parents[0].0, "clap");
        assert_eq!(parents[0].1.cite(), "Cargo.lock:2");
    }
}
