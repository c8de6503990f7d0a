//! Long functions are split into named steps (docs/architecture.md, "Rules the layout
//! keeps"): at most `MAX_LONG_FUNCTIONS` functions of `src/` (unit tests aside) run over `LONG`
//! lines.

use super::{is_test_file, non_test_code, rel, root, rust_files};

/// A function longer than this many lines, from its `fn` line to its closing brace, is long.
const LONG: usize = 80;

/// How many long functions the crate may have.
const MAX_LONG_FUNCTIONS: usize = 15;

/// Each function of `code` with its first line (1-based), name and length in lines. A function
/// ends at the first line after its `fn` line that is its indentation followed by `}`
/// (rustfmt's layout); a declaration without a body (`fn f(&self);`) is none.
fn functions(code: &str) -> Vec<(usize, String, usize)> {
    let lines: Vec<&str> = code.lines().collect();
    let mut found = Vec::new();
    for (at, line) in lines.iter().enumerate() {
        let indent = &line[..line.len() - line.trim_start().len()];
        let Some(name) = fn_name(line.trim_start()) else {
            continue;
        };
        if line.trim_end().ends_with(';') {
            continue;
        }
        let close = format!("{indent}}}");
        if let Some(offset) = lines[at..].iter().position(|l| l.trim_end() == close) {
            found.push((at + 1, name, offset + 1));
        }
    }
    found
}

/// The name a line declares as a function (`pub(in crate::x) async fn name(`), if it does.
fn fn_name(line: &str) -> Option<String> {
    let mut rest = line;
    if rest.starts_with("pub(") {
        rest = &rest[rest.find(") ")? + 2..];
    }
    for prefix in ["pub ", "const ", "async ", "unsafe ", "extern \"C\" "] {
        rest = rest.strip_prefix(prefix).unwrap_or(rest);
    }
    let rest = rest.strip_prefix("fn ")?;
    let name: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

#[test]
fn the_function_reader_finds_a_function_s_length() {
    let code = "fn short() {\n    one();\n}\n\nimpl X {\n    pub(in crate::x) fn two(&self) -> u8 {\n        let a = 1;\n        a\n    }\n}\ntrait T {\n    fn bare(&self);\n}\n";
    let found = functions(code);
    assert_eq!(
        found,
        [(1, "short".to_string(), 3), (6, "two".to_string(), 4)]
    );
}

#[test]
fn few_functions_run_over_eighty_lines() {
    let mut long = Vec::new();
    for file in rust_files(&root().join("src")) {
        let rel = rel(&file);
        if is_test_file(&rel) {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        for (line, name, length) in functions(non_test_code(&text)) {
            if length > LONG {
                long.push(format!("src/{rel}:{line} {name} ({length} lines)"));
            }
        }
    }
    assert!(
        long.len() <= MAX_LONG_FUNCTIONS,
        "{} functions over {LONG} lines (at most {MAX_LONG_FUNCTIONS}): split them into named steps:\n{}",
        long.len(),
        long.join("\n")
    );
}
