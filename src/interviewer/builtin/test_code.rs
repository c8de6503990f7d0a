//! Where names are used, not defined: paths of tests, specs, samples, fixtures and vendored
//! code in any language's convention, and the part of a source file that is its own tests
//! (`mod tests {`, `#[test]`, `@Test`). The nearest-code index (`nearest.rs`) leaves them out.

/// The parts of a path (split at `/`, `.`, `-`, `_`) that make it a place where names are used,
/// not defined: tests, specs, samples, typings, fixtures, vendored code.
const USED_NOT_DEFINED: &[&str] = &[
    "test",
    "tests",
    "spec",
    "specs",
    "testing",
    "testable",
    "samples",
    "sample",
    "demo",
    "demos",
    "benchmark",
    "benchmarks",
    "typings",
    "vendor",
    "vendored",
    "thirdparty",
    "third",
    "snapshots",
    "fixtures",
    "external",
];

/// A path of tests, specs, samples, typings, fixtures or vendored code in any language's
/// convention (`Tests/`, `Foo.Tests.Shared/`, `commander-tests.ts`, `FooTest.php`,
/// `foo_spec.rb`, `samples/`, `third_party/`).
pub(super) fn test_like(path: &str) -> bool {
    let lower = path.to_lowercase();
    lower
        .split(['/', '.', '-', '_'])
        .any(|part| USED_NOT_DEFINED.contains(&part))
        || path
            .rsplit('/')
            .next()
            .is_some_and(|file| file.contains("Test.") || file.contains("Tests."))
}

/// The line (0-based) where a file's own tests begin: a top-level `#[cfg(test)]` or `mod tests`
/// (Rust's convention: the tests close the file). Past the end when it has none.
pub(super) fn tests_start(all: &[&str]) -> usize {
    // A module of tests opened here (`mod tests {`), not one declared in a file of its own
    // (`#[cfg(test)] mod tests;`, after which the file goes on).
    let opens = |l: &str| {
        let t = l.trim_end();
        t.starts_with("mod ") && t.ends_with('{')
    };
    all.iter()
        .enumerate()
        .position(|(i, l)| {
            let t = l.trim_end();
            (t == "#[cfg(test)]" && all.get(i + 1).is_some_and(|n| opens(n)))
                || (opens(t) && (t.starts_with("mod tests") || t.starts_with("mod test ")))
        })
        .unwrap_or(usize::MAX)
}

/// Whether the definition on line `i` is a test: marked `#[test]` (or `@Test`, `#[tokio::test]`)
/// in the attribute lines just above it.
pub(super) fn is_test_item(all: &[&str], i: usize) -> bool {
    all[..i.min(all.len())]
        .iter()
        .rev()
        .take(3)
        .map(|l| l.trim())
        .take_while(|t| t.starts_with("#[") || t.starts_with('@'))
        .any(|t| t.ends_with("test]") || t.starts_with("#[test") || t.starts_with("@Test"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tests_fixtures_and_vendored_code_define_nothing() {
        for path in [
            "lib/pry/testable/pry_tester.rb",
            "Tests/ApplicationTest.php",
            "src/Humanizer.Tests.Shared/UseCultureAttribute.cs",
            "third_party/x/lib.c",
            "Snapshots/Layout/Sources/main.swift",
        ] {
            assert!(test_like(path), "{path}");
        }
        assert!(!test_like("src/attestation.rs"));
    }

    #[test]
    fn a_files_tests_start_where_a_test_module_opens_not_where_one_is_declared() {
        let lib = [
            "mod app;",
            "#[cfg(test)]",
            "mod tests;",
            "",
            "pub fn run() {}",
        ];
        assert_eq!(tests_start(&lib), usize::MAX);
        let lib = [
            "pub fn run() {}",
            "",
            "#[cfg(test)]",
            "mod tests {",
            "    fn t() {}",
            "}",
        ];
        assert_eq!(tests_start(&lib), 2);
    }
}
