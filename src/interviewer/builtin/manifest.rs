//! The version the package's own manifest declares, in whichever ecosystem: `package.json`,
//! `composer.json`, `Cargo.toml`, `pyproject.toml`, `setup.py` / `setup.cfg`, a `*.gemspec` or
//! its `lib/<name>/version.rb`, a `*.csproj`, `build.gradle` / `gradle.properties` / `pom.xml`,
//! a `*.cabal`. A checkout between releases names the next version there, not in a tag: what
//! "which version?" says then is the manifest's.
//!
//! Not for: the packages a manifest depends on (`repo.rs`).

use std::path::Path;

use super::repo::read_text;
use super::search::Hit;

/// The version line of one manifest: how a line declares it, per file name.
fn declared(file: &str, line: &str) -> Option<String> {
    let t = line.trim();
    let quoted = |rest: &str| -> Option<String> {
        let rest = rest.trim_start();
        let q = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
        let inner = &rest[1..];
        Some(inner[..inner.find(q)?].to_string())
    };
    let after = |key: &str, seps: &[char]| -> Option<String> {
        let rest = t.strip_prefix(key)?.trim_start();
        let rest = rest.strip_prefix(seps)?;
        quoted(rest).or_else(|| {
            let bare = rest.trim().trim_end_matches([',', ';']);
            (!bare.is_empty() && !bare.contains(' ')).then(|| bare.to_string())
        })
    };
    let tagged = |tag: &str| {
        let rest = t.strip_prefix(&format!("<{tag}>"))?;
        Some(rest[..rest.find('<')?].trim().to_string())
    };
    let v = if file.ends_with(".json") {
        after("\"version\"", &[':'])
    } else if file.ends_with(".toml") || file == "setup.cfg" || file == "gradle.properties" {
        after("version", &['=', ':'])
    } else if file == "setup.py" {
        after("version", &['='])
    } else if file.ends_with(".gemspec") {
        t.split_once(".version")
            .and_then(|(_, rest)| quoted(rest.trim_start().strip_prefix('=')?))
    } else if file == "version.rb" {
        after("VERSION", &['='])
    } else if file.ends_with(".csproj") || file == "pom.xml" {
        tagged("Version").or_else(|| tagged("version"))
    } else if file.ends_with(".gradle") || file.ends_with(".gradle.kts") {
        after("version", &['='])
    } else if file.ends_with(".cabal") {
        after("version", &[':'])
    } else {
        None
    }?;
    // A version, not a variable or a placeholder (`version = env!(…)`, `${project.version}`).
    let ok = v.starts_with(|c: char| c.is_ascii_digit())
        && v.contains('.')
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+'));
    ok.then_some(v)
}

/// The manifests a package's version is read from: the root's, then the files the root
/// names by their extension, then `lib/*/version.rb`. One listing of the root (and of `lib/`),
/// no walk.
fn candidates(worktree: &Path) -> Vec<String> {
    let mut out: Vec<String> = [
        "package.json",
        "composer.json",
        "Cargo.toml",
        "pyproject.toml",
        "setup.cfg",
        "setup.py",
        "gradle.properties",
        "build.gradle",
        "build.gradle.kts",
        "pom.xml",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let listed = |dir: &Path| -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .map(|d| {
                d.filter_map(|e| e.ok())
                    .filter_map(|e| e.file_name().to_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    };
    for name in listed(worktree) {
        if name.ends_with(".gemspec") || name.ends_with(".cabal") || name.ends_with(".csproj") {
            out.push(name);
        }
    }
    for name in listed(&worktree.join("lib")) {
        out.push(format!("lib/{name}/version.rb"));
    }
    out
}

/// The version the package's manifest declares, with its line; the first manifest (in the
/// order of [`candidates`]) that declares one.
pub(super) fn version(worktree: &Path) -> Option<(String, Hit)> {
    for rel in candidates(worktree) {
        let Some(text) = read_text(worktree, &rel) else {
            continue;
        };
        let file = rel.rsplit('/').next().unwrap_or(&rel);
        let mut section = "";
        for (i, line) in text.lines().enumerate() {
            let t = line.trim();
            if t.starts_with('[') {
                section = t;
                continue;
            }
            // A TOML manifest's own version is in its package's table, not a dependency's.
            let own_table = !file.ends_with(".toml")
                || matches!(
                    section,
                    "[package]" | "[project]" | "[tool.poetry]" | "[workspace.package]"
                );
            // A pom's first `<version>` at the project's level (four spaces or a tab at most).
            let top_level = file != "pom.xml" || line.len() - line.trim_start().len() <= 4;
            if !own_table || !top_level {
                continue;
            }
            if let Some(v) = declared(file, line) {
                let hit = Hit {
                    path: rel.clone(),
                    line: u32::try_from(i + 1).unwrap_or(u32::MAX),
                    text: super::text::one_line(t, 160),
                };
                return Some((v, hit));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::declared;

    #[test]
    fn each_ecosystem_declares_its_version_its_own_way() {
        let d = |f: &str, l: &str| declared(f, l);
        assert_eq!(
            d("package.json", r#"  "version": "1.5.0","#).as_deref(),
            Some("1.5.0")
        );
        assert_eq!(
            d("Cargo.toml", r#"version = "0.10.0""#).as_deref(),
            Some("0.10.0")
        );
        assert_eq!(
            d("x.gemspec", r#"  s.version = "0.20.0""#).as_deref(),
            Some("0.20.0")
        );
        assert_eq!(d("x.gemspec", "  s.version = Thor::VERSION"), None);
        assert_eq!(
            d("version.rb", r#"  VERSION = "0.20.0""#).as_deref(),
            Some("0.20.0")
        );
        assert_eq!(
            d("pom.xml", "  <version>1.72-SNAPSHOT</version>").as_deref(),
            Some("1.72-SNAPSHOT")
        );
        assert_eq!(
            d("x.cabal", "version:        0.14.2").as_deref(),
            Some("0.14.2")
        );
        assert_eq!(
            d("setup.py", "    version='7.0.dev',").as_deref(),
            Some("7.0.dev")
        );
        assert_eq!(d("Cargo.toml", "version.workspace = true"), None);
        assert_eq!(d("package.json", r#"  "version": "${VERSION}","#), None);
    }
}
