//! The library's surface (docs/architecture.md, "Rules the layout keeps"): the error type names
//! what failed, with no catch-all variant; the crate root makes public no module but `testing`,
//! the integration tests' door, so rustc reports every item nothing uses.

use super::root;

/// The variant names of `pub enum Error` in `src/error.rs`: the names at the enum's own depth.
fn error_variants() -> Vec<String> {
    let text = std::fs::read_to_string(root().join("src/error.rs")).unwrap();
    let body = text
        .split_once("pub enum Error {")
        .expect("src/error.rs declares `pub enum Error`")
        .1;
    let mut variants = Vec::new();
    let mut depth = 0usize;
    // Brackets inside a message's string do not count.
    let mut in_string = false;
    let mut escaped = false;
    for line in body.lines() {
        let trimmed = line.trim();
        if depth == 0 && !in_string && trimmed == "}" {
            break;
        }
        let opens_attribute = trimmed.starts_with("#[");
        if depth == 0
            && !in_string
            && !opens_attribute
            && !trimmed.starts_with("//")
            && !trimmed.is_empty()
        {
            let name: String = trimmed
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                variants.push(name);
            }
        }
        for c in line.chars() {
            match (in_string, c) {
                (true, _) if escaped => escaped = false,
                (true, '\\') => escaped = true,
                (_, '"') => in_string = !in_string,
                (false, '{' | '(' | '[') => depth += 1,
                (false, '}' | ')' | ']') => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
    }
    variants
}

#[test]
fn the_error_type_has_no_catch_all_variant() {
    let variants = error_variants();
    assert!(
        variants.len() > 5 && variants.iter().any(|v| v == "Usage"),
        "the variants of src/error.rs were not found: {variants:?}"
    );
    let catch_all: Vec<&String> = variants
        .iter()
        .filter(|v| ["Other", "Misc", "General", "Unknown"].contains(&v.as_str()))
        .collect();
    assert!(
        catch_all.is_empty(),
        "src/error.rs has a catch-all variant {catch_all:?}: name what failed instead"
    );
}

#[test]
fn the_library_makes_public_no_module_but_the_tests_door() {
    let lib = std::fs::read_to_string(root().join("src/lib.rs")).unwrap();
    let modules: Vec<&str> = lib
        .lines()
        .filter(|l| l.trim_start().starts_with("pub") && l.contains("mod "))
        .collect();
    assert!(
        modules.len() > 10,
        "the modules of src/lib.rs were not found: {modules:?}"
    );
    let public: Vec<&&str> = modules
        .iter()
        .filter(|l| l.starts_with("pub mod ") && **l != "pub mod testing;")
        .collect();
    assert!(
        public.is_empty(),
        "src/lib.rs makes modules public {public:?}: declare them `pub(crate)` and re-export \
         what the tests need from src/testing.rs"
    );
}

/// The `INTERVIEW_…` names written in `code`'s string literals.
fn interview_variables(code: &str) -> Vec<String> {
    code.match_indices("\"INTERVIEW_")
        .map(|(at, _)| {
            code[at + 1..]
                .chars()
                .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
                .collect()
        })
        .collect()
}

/// No switch of the tool's own environment weakens it in a release build: the only
/// `INTERVIEW_` variables the code names are the protocol's (what it hands a runner, one list in
/// `src/protocol/mod.rs`), and test hooks (`INTERVIEW_TEST_…`), which live in `test_hook.rs`
/// files compiled out of release builds.
#[test]
fn the_only_interview_variables_are_the_protocols_and_test_hooks() {
    let protocol = std::fs::read_to_string(root().join("src/protocol/mod.rs")).unwrap();
    let handed: Vec<String> = interview_variables(&protocol);
    assert!(handed.len() >= 5, "the protocol's variables: {handed:?}");
    let mut other = Vec::new();
    for file in super::rust_files(&root().join("src")) {
        let rel = super::rel(&file);
        let text = std::fs::read_to_string(&file).unwrap();
        let code = super::non_test_code(&text);
        for name in interview_variables(code) {
            let hook = name.starts_with("INTERVIEW_TEST_") && rel.ends_with("test_hook.rs");
            let listed = handed.contains(&name);
            if !hook && !listed && !rel.ends_with("command/man.rs") {
                other.push(format!("src/{rel}: {name}"));
            }
        }
    }
    assert!(
        other.is_empty(),
        "environment variables of the tool's own outside the protocol and test hooks: {other:?}"
    );
}
