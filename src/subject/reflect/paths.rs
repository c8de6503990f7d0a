//! What kind of file a path is: a test, documentation, code, or incidental (lockfiles, generated
//! and vendored files); and which commits only cut a release.

use crate::subject::is_own_path;

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
pub fn is_doc_path(path: &str) -> bool {
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

/// Whether `path` is test data (fixtures, snapshots): a commit changing it and documentation
/// only changed no code.
fn is_test_data(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let dirs: Vec<&str> = lower.split('/').collect();
    let dirs = &dirs[..dirs.len().saturating_sub(1)];
    lower.ends_with(".snap")
        || dirs.iter().any(|d| {
            matches!(
                *d,
                "fixtures" | "testdata" | "test-data" | "test_data" | "snapshots" | "__snapshots__"
            )
        })
}

/// Lockfiles, generated and vendored files, test data: churn nobody needs to explain.
pub(crate) fn is_incidental(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let file = lower.rsplit('/').next().unwrap_or(&lower);
    let dirs: Vec<&str> = lower.split('/').collect();
    let dirs = &dirs[..dirs.len().saturating_sub(1)];
    const LOCKFILES: &[&str] = &[
        "cargo.lock",
        "package-lock.json",
        "npm-shrinkwrap.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "bun.lockb",
        "gemfile.lock",
        "poetry.lock",
        "pipfile.lock",
        "uv.lock",
        "composer.lock",
        "go.sum",
        "flake.lock",
        "mix.lock",
        "pubspec.lock",
        "podfile.lock",
    ];
    const DIRS: &[&str] = &[
        "vendor",
        "vendored",
        "third_party",
        "third-party",
        "thirdparty",
        "node_modules",
        "generated",
        "gen",
        "dist",
        "testdata",
        "test-data",
        "test_data",
        "fixtures",
        "snapshots",
        "__snapshots__",
    ];
    LOCKFILES.contains(&file)
        || file.ends_with(".lock")
        || dirs.iter().any(|d| DIRS.contains(d))
        || [
            ".min.js", ".min.css", ".map", ".pb.go", "_pb2.py", ".snap", ".svg",
        ]
        .iter()
        .any(|ext| file.ends_with(ext))
        || file.contains(".generated.")
        || file.contains("_generated.")
}

/// Files a release or version bump touches: manifests, lockfiles, changelogs.
fn is_release_file(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let file = lower.rsplit('/').next().unwrap_or(&lower);
    is_incidental(path)
        || matches!(
            file,
            "cargo.toml"
                | "package.json"
                | "pyproject.toml"
                | "setup.py"
                | "setup.cfg"
                | "version"
                | "version.txt"
                | "go.mod"
                | "pom.xml"
                | "build.gradle"
                | "meson.build"
        )
        || file.ends_with(".gemspec")
        || ["changelog", "changes", "history", "news", "release"]
            .iter()
            .any(|name| file.starts_with(name))
}

/// A commit that cuts a release or bumps a version (or a dependency): its subject says so
/// ("Release 1.2.0", "bump version", "v1.2.0", "chore(release): …"), or it changes nothing but
/// manifests, lockfiles and changelogs.
#[cfg(test)]
pub(super) fn is_version_bump(subject: &str, paths: &[&str]) -> bool {
    says_release(subject) || (!paths.is_empty() && paths.iter().all(|p| is_release_file(p)))
}

/// What each rule of this module says of one path.
#[derive(Clone, Copy)]
pub(super) struct PathKind {
    pub(super) test: bool,
    pub(super) incidental: bool,
    /// The tool's own file ([`is_own_path`], or an answers file found by its content).
    pub(super) own: bool,
    /// Code: neither a test, documentation, test data nor the tool's own file.
    pub(super) code: bool,
    /// A file a release or version bump touches (manifest, lockfile, changelog).
    pub(super) release: bool,
}

/// The kinds of the paths of a range, each path judged once: a range names the same files
/// again and again. `answers` are the answers files found by their content.
pub(super) struct PathKinds<'a> {
    kinds: std::collections::HashMap<&'a str, PathKind>,
    answers: &'a std::collections::BTreeSet<String>,
}

impl<'a> PathKinds<'a> {
    pub(super) fn new(answers: &'a std::collections::BTreeSet<String>) -> Self {
        PathKinds {
            kinds: std::collections::HashMap::new(),
            answers,
        }
    }

    pub(super) fn of(&mut self, path: &'a str) -> PathKind {
        let answers = self.answers;
        *self.kinds.entry(path).or_insert_with(|| {
            let (test, doc) = (is_test_path(path), is_doc_path(path));
            let own = is_own_path(path) || answers.contains(path);
            PathKind {
                test,
                incidental: is_incidental(path),
                own,
                code: !test && !doc && !own && !is_test_data(path),
                release: is_release_file(path),
            }
        })
    }
}

/// The subject half of `is_version_bump` (the tests' whole rule): the subject says the commit cuts a release.
pub(super) fn says_release(subject: &str) -> bool {
    let lower = subject.trim().to_ascii_lowercase();
    // A word at the start, or after a space or an opening parenthesis (which also covers
    // "chore(release)" and "bump version"); most subjects have none, and stop here.
    let says = ["release", "bump", "version", "prepare", "publish", "cut "]
        .iter()
        .any(|w| {
            lower
                .match_indices(w)
                .any(|(i, _)| i == 0 || matches!(lower.as_bytes()[i - 1], b' ' | b'('))
        });
    if !says {
        return false;
    }
    lower.starts_with("chore(release)")
        || lower.starts_with("bump version")
        || lower
            .split(|c: char| c.is_whitespace() || c == '(' || c == ')' || c == ':')
            .any(|w| {
                let w = w.trim_start_matches('v');
                w.contains('.')
                    && w.split('.')
                        .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
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

    #[test]
    fn the_tools_own_files_and_test_data_are_no_code() {
        let answers = std::collections::BTreeSet::from(["my-answers.json".to_string()]);
        let mut kinds = PathKinds::new(&answers);
        for p in [
            ".interview/config.toml",
            "interview.toml",
            "docs/interviews/reflect-v1.md",
            "fixtures/answers/intent-42.json",
            "ci/answers/intent-9.json",
            "my-answers.json",
        ] {
            assert!(kinds.of(p).own && !kinds.of(p).code, "{p}");
        }
        for p in [
            "tests/fixtures/a.json",
            "fixtures/intents/7.md",
            "x/__snapshots__/a",
        ] {
            assert!(!kinds.of(p).code, "{p}");
        }
        for p in ["src/lib.rs", "Cargo.toml", "other.json"] {
            assert!(kinds.of(p).code && !kinds.of(p).own, "{p}");
        }
    }

    #[test]
    fn incidental_files_are_lockfiles_generated_vendored() {
        for p in [
            "Cargo.lock",
            "web/package-lock.json",
            "vendor/x/y.go",
            "api/gen/a.pb.go",
            "dist/app.min.js",
            "tests/snapshots/a.snap",
            "crates/x/testdata/big.json",
        ] {
            assert!(is_incidental(p), "{p}");
        }
        for p in ["src/lib.rs", "Cargo.toml", "README.md", "src/generate.rs"] {
            assert!(!is_incidental(p), "{p}");
        }
    }

    #[test]
    fn version_bumps_by_subject_or_by_files() {
        assert!(is_version_bump("Release 1.2.0", &["src/lib.rs"]));
        assert!(is_version_bump("chore(release): 2.0", &["src/lib.rs"]));
        assert!(is_version_bump("Bump version to v0.3.1", &["src/a.rs"]));
        assert!(is_version_bump(
            "Update deps",
            &["Cargo.toml", "Cargo.lock"]
        ));
        assert!(is_version_bump("x", &["CHANGELOG.md", "package.json"]));
        assert!(!is_version_bump(
            "Fix parsing of 1.2 style numbers",
            &["src/a.rs"]
        ));
        assert!(!is_version_bump("Add export", &["src/a.rs", "Cargo.toml"]));
    }
}
