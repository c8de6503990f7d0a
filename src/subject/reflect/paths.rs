//! What kind of file a path is: a test, documentation, or code.

/// Whether `path` is a test file by the usual conventions: `tests/`, `test/`, `spec/`,
/// `__tests__/`, `*_test.*`, `*_tests.*`, `tests.*`, `test_*.*`, `*.test.*`, `*.spec.*`, `*_spec.*`.
pub fn is_test_path(path: &str) -> bool {
    let segments: Vec<&str> = path.split('/').collect();
    let (dirs, file) = segments.split_at(segments.len().saturating_sub(1));
    if dirs
        .iter()
        .any(|d| matches!(*d, "tests" | "test" | "spec" | "__tests__"))
    {
        return true;
    }
    let Some(file) = file.first() else {
        return false;
    };
    let stem = file.split('.').next().unwrap_or("");
    let has_ext = file.contains('.');
    // `tests.rs` / `*_tests.rs`: Rust's convention for unit tests kept beside the code.
    let rust_style = stem == "tests" || stem.ends_with("_tests");
    (has_ext
        && (rust_style
            || stem.ends_with("_test")
            || stem.ends_with("_spec")
            || stem.starts_with("test_")))
        || file.contains(".test.")
        || file.contains(".spec.")
}

/// Whether `path` is documentation rather than code: neither counts as "code changed".
pub(super) fn is_doc_path(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    lower.starts_with("docs/")
        || lower.starts_with("doc/")
        || [".md", ".markdown", ".txt", ".rst", ".adoc"]
            .iter()
            .any(|ext| lower.ends_with(ext))
        || lower.rsplit('/').next().is_some_and(|f| {
            matches!(
                f,
                "license" | "licence" | "changelog" | "authors" | "notice"
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_paths_follow_the_usual_conventions() {
        for p in [
            "tests/a.rs",
            "crate/test/x.py",
            "spec/models/user_spec.rb",
            "src/io_test.go",
            "test_io.py",
            "app/io.test.ts",
            "lib/thing_spec.rb",
            "src/ask/tests.rs",
            "src/receipt/check_tests.rs",
        ] {
            assert!(is_test_path(p), "{p} is a test path");
        }
        for p in ["src/lib.rs", "src/testing.rs", "contest/x.rs", "latest.rs"] {
            assert!(!is_test_path(p), "{p} is not a test path");
        }
    }
}
