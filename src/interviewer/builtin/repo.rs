//! What the intent interviewer reads of the repository besides where names occur: the
//! newest tags (gix, in-process), the declared `rust-version`, and which packages of
//! `Cargo.lock` pull a dependency in. All reads are bounded; nothing is run.

use std::io::Read;

use std::path::Path;

use super::names::{Name, NameKind};
use super::outside::Lang;
use super::search::Hit;
pub(super) use super::tags::version_key;
use super::text::one_line;

/// Files read here are read at most this far.
const MAX_READ: u64 = 4 * 1024 * 1024;

#[derive(Debug, Default)]
pub(super) struct RepoFacts {
    /// Tags, newest version first.
    pub tags: Vec<String>,
    /// The tag of `tags` that HEAD is at, when it is at one.
    pub head_tag: Option<String>,
    /// The tag of `tags` nearest HEAD in its history, as `git describe` chooses.
    pub nearest_tag: Option<String>,
    /// Every tag of the project's versions, HEAD's history or not (a release tagged on a
    /// commit never merged back): what an item may name as its version, never a claim about
    /// HEAD.
    pub released: Vec<String>,
    /// `rust-version = "…"` in the root `Cargo.toml`.
    pub rust_version: Option<Hit>,
    /// The project's own name: its root manifest's package name.
    pub project: Option<String>,
    /// The packages its manifests and lockfiles name (`Cargo.lock`, `Cargo.toml`,
    /// `package.json`, `go.mod`, `requirements.txt`, `pyproject.toml`), sorted.
    pub locked: Vec<String>,
    /// The languages its root manifests show (`Cargo.toml`, `go.mod`, `package.json`,
    /// `pyproject.toml` / `setup.py` / `setup.cfg`).
    pub languages: Vec<Lang>,
    /// The version the package's own manifest declares, with its line (`manifest.rs`, read
    /// by the caller).
    pub version: Option<(String, Hit)>,
}

pub(super) fn read(worktree: &Path) -> RepoFacts {
    let mut facts = RepoFacts::default();
    if let Ok(repo) = gix::open_opts(worktree, gix::open::Options::isolated()) {
        let tags = super::tags::newest_tags(&repo);
        (facts.tags, facts.head_tag) = (tags.newest, tags.head);
        (facts.nearest_tag, facts.released) = (tags.nearest, tags.released);
    }
    facts.rust_version = rust_version(worktree, "Cargo.toml");
    facts.project = project_name(worktree);
    facts.locked = packages(worktree);
    facts.languages = [
        ("Cargo.toml", Lang::Rust),
        ("go.mod", Lang::Go),
        ("package.json", Lang::JavaScript),
        ("pyproject.toml", Lang::Python),
        ("setup.py", Lang::Python),
        ("setup.cfg", Lang::Python),
    ]
    .into_iter()
    .filter(|(file, _)| worktree.join(file).is_file())
    .map(|(_, lang)| lang)
    .fold(Vec::new(), |mut acc, lang| {
        if !acc.contains(&lang) {
            acc.push(lang);
        }
        acc
    });
    facts
}

/// The root manifest's package name (`Cargo.toml`, `package.json`, `pyproject.toml`,
/// `setup.py`, `setup.cfg`, `go.mod`).
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
    if let Some(name) = setup_name(worktree) {
        return Some(name);
    }
    let text = read_text(worktree, "go.mod")?;
    let module = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("module "))?;
    Some(module.trim().rsplit('/').next()?.to_string())
}

/// The project's own programs: its root manifest's package name, the binaries `Cargo.toml`
/// (`[[bin]] name`) and `package.json` (`bin`) declare, the [`scripts`] of a Python or Swift
/// package, and the files of its `bin/`.
pub(super) fn programs(worktree: &Path, project: Option<&str>) -> Vec<String> {
    let mut out: Vec<String> = project.into_iter().map(str::to_string).collect();
    if let Some(text) = read_text(worktree, "Cargo.toml") {
        let mut section = "";
        for line in text.lines().map(str::trim) {
            if line.starts_with('[') {
                section = line;
            } else if section == "[[bin]]"
                && let Some((k, v)) = line.split_once('=')
                && k.trim() == "name"
            {
                out.push(v.trim().trim_matches('"').to_string());
            }
        }
    }
    if let Some(text) = read_text(worktree, "package.json")
        && let Ok(v) = serde_json::from_str::<serde_json::Value>(&text)
    {
        match v.get("bin") {
            Some(serde_json::Value::Object(bins)) => out.extend(bins.keys().cloned()),
            Some(serde_json::Value::String(_)) => {
                let name = v.get("name").and_then(|n| n.as_str()).unwrap_or("");
                out.push(name.rsplit('/').next().unwrap_or(name).to_string());
            }
            _ => {}
        }
    }
    out.extend(scripts(worktree));
    if let Ok(dir) = std::fs::read_dir(worktree.join("bin")) {
        out.extend(dir.flatten().take(64).filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            (!name.starts_with('.') && !name.contains('.')).then_some(name)
        }));
    }
    out.retain(|p| !p.is_empty());
    out.sort();
    out.dedup();
    out
}

/// `key = "value"` → `value`.
/// The programs a Python package installs (`[project.scripts]`, `[tool.poetry.scripts]`, a
/// `console_scripts` entry `name = module:func` of `setup.py` or `setup.cfg`) and a Swift
/// package's executables (`.executable(name: "x"`, `.executableTarget(name: "x"`).
fn scripts(worktree: &Path) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(text) = read_text(worktree, "pyproject.toml") {
        let mut section = "";
        for t in text.lines().map(str::trim) {
            if t.starts_with('[') {
                section = t;
            } else if matches!(section, "[project.scripts]" | "[tool.poetry.scripts]")
                && let Some((k, _)) = t.split_once('=')
            {
                out.push(k.trim().trim_matches('"').to_string());
            }
        }
    }
    let entry = regex::Regex::new(r"([A-Za-z0-9][\w.-]*)\s*=\s*[A-Za-z_][\w.]*\s*:\s*[A-Za-z_]\w*")
        .expect("a valid pattern");
    for file in ["setup.py", "setup.cfg"] {
        if let Some(text) = read_text(worktree, file)
            && let Some(at) = text.find("console_scripts")
        {
            // The entries follow the key, up to the next section or argument.
            let rest = &text[at..];
            let end = rest[1..]
                .find(|c| c == '[' && file == "setup.cfg")
                .map_or(rest.len(), |e| e + 1);
            let until = rest[..end].find(['}', ']']).filter(|_| file == "setup.py");
            let rest = &rest[..until.unwrap_or(end)];
            out.extend(entry.captures_iter(rest).map(|c| c[1].to_string()));
        }
    }
    if let Some(text) = read_text(worktree, "Package.swift") {
        for marker in [".executable(name:", ".executableTarget(name:"] {
            for (at, _) in text.match_indices(marker) {
                let rest = text[at + marker.len()..].trim_start();
                if let Some(name) = rest.strip_prefix('"').and_then(|r| r.split('"').next()) {
                    out.push(name.to_string());
                }
            }
        }
    }
    out
}

/// A Python package's name as `setup.py` passes it to `setup(…, name='x', …)`, or as
/// `setup.cfg`'s `[metadata]` gives it (`name = x`).
fn setup_name(worktree: &Path) -> Option<String> {
    let plain = |v: &str| {
        let v = v.trim();
        (!v.is_empty()
            && v.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)))
        .then(|| v.to_string())
    };
    // In code only a string literal is the name (never a variable holding it).
    let quoted = |v: &str| {
        let v = v.trim();
        let q = v.chars().next().filter(|c| matches!(c, '"' | '\''))?;
        plain(v.strip_prefix(q)?.strip_suffix(q)?)
    };
    if let Some(text) = read_text(worktree, "setup.py")
        && let Some(at) = text.find("setup(")
        && let Some(name) = text[at..].lines().find_map(|l| {
            let (k, v) = l
                .trim()
                .strip_prefix("setup(")
                .unwrap_or(l.trim())
                .split_once('=')?;
            (k.trim() == "name")
                .then(|| quoted(v.split(',').next()?))
                .flatten()
        })
    {
        return Some(name);
    }
    let text = read_text(worktree, "setup.cfg")?;
    let mut section = "";
    text.lines().map(str::trim).find_map(|t| {
        if t.starts_with('[') {
            section = t;
            return None;
        }
        let (k, v) = t.split_once('=')?;
        (section == "[metadata]" && k.trim() == "name")
            .then(|| plain(v))
            .flatten()
    })
}

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

/// A path the item names as a file of the worktree: as written, or the longest tail of it that
/// is one (`/tmp/build/ripgrep-13.0.0/crates/matcher/src/lib.rs` → `crates/matcher/src/lib.rs`),
/// with the line a trace points at (or its first line).
pub(super) fn resolve_path(worktree: &Path, name: &Name, paths: &[String]) -> Option<Hit> {
    if name.kind != NameKind::Path {
        return None;
    }
    // A bare file name (`_termui_impl.py`) is the one file of that name, when there is one.
    let mut named = paths
        .iter()
        .filter(|p| p.rsplit('/').next() == Some(name.text.as_str()));
    if let (false, Some(only), None) = (name.text.contains('/'), named.next(), named.next()) {
        let named = Name {
            text: only.clone(),
            ..name.clone()
        };
        return resolve_path(worktree, &named, &[]);
    }
    let parts: Vec<&str> = name.text.split('/').filter(|p| !p.is_empty()).collect();
    if parts
        .iter()
        .any(|p| matches!(*p, "." | ".." | ".git" | ".interview"))
    {
        return None;
    }
    (0..parts.len()).find_map(|i| {
        let rel = parts[i..].join("/");
        if super::search::own_file(&rel) {
            return None;
        }
        let text = super::repo::read_text(worktree, &rel)?;
        let wanted = name.at.unwrap_or(1) as usize;
        let (line, content) = match text.lines().nth(wanted.saturating_sub(1)) {
            Some(l) => (wanted, l),
            None => (1, text.lines().next().unwrap_or("")),
        };
        (!text.is_empty()).then(|| Hit {
            path: rel,
            line: u32::try_from(line).unwrap_or(1),
            text: one_line(content, 160),
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
    fn a_python_package_is_named_by_its_setup_call_or_its_setup_cfg() {
        let dir = tempfile::tempdir().unwrap();
        let name = || project_name(dir.path());
        let setup = dir.path().join("setup.py");
        std::fs::write(
            &setup,
            "NAME = 'x'\nsetup(\n    name = 'lister',\n    version='1')\n",
        )
        .unwrap();
        assert_eq!(name().as_deref(), Some("lister"));
        std::fs::write(&setup, "setup(name=\"lister-cli\", version=\"1\")\n").unwrap();
        assert_eq!(name().as_deref(), Some("lister-cli"));
        // A variable holding the name is not the name.
        std::fs::write(&setup, "setup(\n    name=NAME,\n)\n").unwrap();
        assert_eq!(name(), None);
        std::fs::remove_file(&setup).unwrap();
        std::fs::write(
            dir.path().join("setup.cfg"),
            "[options]\nname = other\n[metadata]\nname = lister\n",
        )
        .unwrap();
        assert_eq!(name().as_deref(), Some("lister"));
    }

    #[test]
    fn a_python_or_swift_packages_programs_are_its_scripts_and_executables() {
        let dir = tempfile::tempdir().unwrap();
        let write = |f: &str, t: &str| std::fs::write(dir.path().join(f), t).unwrap();
        write(
            "setup.py",
            "setup(\n    name='lister',\n    entry_points={\n        'console_scripts': [\n            'lister = lister.main:cli',\n            'lister-admin=lister.admin:main',\n        ],\n    },\n    install_requires=['a==1'],\n)\n",
        );
        write(
            "pyproject.toml",
            "[project]\nname = \"lister\"\n[project.scripts]\nlist-all = \"lister.all:main\"\n[tool.x]\ny = 1\n",
        );
        write(
            "Package.swift",
            "let package = Package(\n  products: [.executable(name: \"swift-list\", targets: [\"Main\"])],\n  targets: [.executableTarget(name: \"list-tool\")]\n)\n",
        );
        let got = programs(dir.path(), None);
        assert_eq!(
            got,
            [
                "list-all",
                "list-tool",
                "lister",
                "lister-admin",
                "swift-list"
            ]
        );
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
