//! Where a path of the repository sits, by its name alone: a test, documentation, a manifest
//! or lockfile, or an example or benchmark. What a name's hits count as evidence of depends on it.
//!
//! Not for: reading files (see `search` and `repo`).

pub(super) fn is_test(path: &str) -> bool {
    crate::subject::reflect::is_test_path(path)
}

pub(super) fn is_doc(path: &str) -> bool {
    let lower = path.to_lowercase();
    lower.starts_with("docs/")
        || lower.starts_with("doc/")
        || [".md", ".txt", ".rst", ".adoc", ".1"]
            .iter()
            .any(|e| lower.ends_with(e))
}

/// Examples, benchmarks, tests and fuzz targets: where a name is used, not where it lives.
pub(super) fn secondary(path: &str) -> bool {
    path.split('/').any(|s| {
        matches!(
            s,
            "examples" | "example" | "benches" | "fuzz" | "tests" | "test"
        )
    })
}

pub(super) fn is_manifest(path: &str) -> bool {
    let file = path.rsplit('/').next().unwrap_or(path);
    matches!(
        file,
        "Cargo.toml"
            | "Cargo.lock"
            | "package.json"
            | "package-lock.json"
            | "pyproject.toml"
            | "setup.py"
            | "setup.cfg"
            | "go.mod"
            | "go.sum"
            | "requirements.txt"
            | "yarn.lock"
            | "pnpm-lock.yaml"
            | "poetry.lock"
    )
}
