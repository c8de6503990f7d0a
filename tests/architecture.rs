//! The layout's rules (docs/architecture.md), checked on the source tree: every folder and file
//! of `src/` is named there and every test module in tests/README.md; every top-level module has
//! a row in the page's table of who may use whom, the code keeps it and the table has no circle;
//! no circle of imports between the files of `src/` (`architecture/imports.rs`);
//! `src/runner/` holds no interviewer (those are `src/interviewer/`'s, below the runner);
//! only the command layer sees clap and returns exit codes; every child process is spawned in
//! `src/process/`, `/proc` is read only behind `src/sys/`; test hooks stay out of release
//! builds; an `unsafe` block without a `// SAFETY:` comment is denied; the error type has no
//! catch-all variant (`architecture/surface.rs`); no file outgrows its room,
//! and nothing cites documents outside the repository (`architecture/pages.rs`, with the naming).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

mod comments;
mod functions;
mod imports;
mod pages;
mod surface;
mod workflows;

/// Non-test lines a source file may have ("about 600").
const MAX_NON_TEST_LINES: usize = 640;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// A file's path relative to `src/`, with `/` separators.
fn rel(path: &Path) -> String {
    path.strip_prefix(root().join("src"))
        .unwrap()
        .to_string_lossy()
        .replace('\\', "/")
}

fn is_test_file(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap();
    name == "tests.rs" || name.ends_with("_tests.rs")
}

/// The part of a source file before its unit tests.
fn non_test_code(text: &str) -> &str {
    match text.find("#[cfg(test)]\nmod ") {
        Some(at) => &text[..at],
        None => text,
    }
}

/// The top-level module a file belongs to: `guard/walk.rs` → `guard`, `error.rs` → `error`.
fn top_module(rel: &str) -> &str {
    match rel.split_once('/') {
        Some((dir, _)) => dir,
        None => rel.trim_end_matches(".rs"),
    }
}

/// The top-level modules a piece of code names through `crate::…` (plain paths and `use crate::{…}`
/// groups alike).
fn crate_references(code: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    // A comment's link (`[`crate::process`]`) is no dependency.
    let code: String = code
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut rest = code.as_str();
    while let Some(at) = rest.find("crate::") {
        rest = &rest[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // `crate::{a::X, b, c::{Y, Z}}`: the first segment of each item at depth one.
            let mut depth = 1;
            let mut item_start = true;
            let mut word = String::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    ',' if depth == 1 => item_start = true,
                    c if item_start && (c.is_alphanumeric() || c == '_') => word.push(c),
                    _ => {
                        if item_start && !word.is_empty() {
                            found.insert(std::mem::take(&mut word));
                            item_start = false;
                        }
                    }
                }
            }
            if !word.is_empty() {
                found.insert(word);
            }
        } else {
            let word: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !word.is_empty() {
                found.insert(word);
            }
        }
    }
    found
}

/// Pairs no layer may ever use (the table this test started with): data flows subject → brief →
/// runner → receipt → person → document, with the guard, the sandbox and process control below
/// all of them. An interviewer (a program the runner starts) sits below the runner and sees only
/// what a runner is handed: never the runner, the session, the guard, the sandbox or process
/// control. The page's table (below) must forbid each of them too.
const FORBIDDEN: &[(&str, &[&str])] = &[
    (
        "error",
        &[
            "ask",
            "session",
            "command",
            "runner",
            "interviewer",
            "guard",
            "subject",
            "receipt",
            "brief",
            "document",
            "sandbox",
            "process",
        ],
    ),
    (
        "process",
        &[
            "session",
            "ask",
            "command",
            "runner",
            "interviewer",
            "subject",
            "guard",
            "receipt",
            "brief",
            "document",
        ],
    ),
    (
        "sandbox",
        &[
            "session",
            "ask",
            "command",
            "runner",
            "interviewer",
            "subject",
            "brief",
            "receipt",
            "document",
        ],
    ),
    (
        "guard",
        &[
            "session",
            "ask",
            "command",
            "runner",
            "interviewer",
            "subject",
            "brief",
            "receipt",
            "document",
        ],
    ),
    (
        "protocol",
        &[
            "session",
            "ask",
            "command",
            "runner",
            "interviewer",
            "guard",
            "subject",
        ],
    ),
    (
        "receipt",
        &[
            "session",
            "ask",
            "command",
            "runner",
            "interviewer",
            "guard",
            "brief",
            "document",
        ],
    ),
    (
        "ask",
        &["session", "command", "runner", "interviewer", "guard"],
    ),
    (
        "subject",
        &[
            "session",
            "ask",
            "command",
            "runner",
            "interviewer",
            "guard",
        ],
    ),
    (
        "brief",
        &["session", "command", "runner", "interviewer", "guard"],
    ),
    (
        "interviewer",
        &[
            "session", "command", "runner", "guard", "sandbox", "process", "ask",
        ],
    ),
    ("runner", &["session", "command"]),
    (
        "document",
        &["session", "command", "runner", "interviewer", "guard"],
    ),
    ("session", &["command"]),
];

/// The page's table of who may use whom (section "Who may use whom"): each top-level module
/// and the modules it may use (`any` for all of them).
fn allowed_uses() -> Vec<(String, Vec<String>)> {
    let page = std::fs::read_to_string(root().join("docs/architecture.md")).unwrap();
    let section = page
        .split("\n## Who may use whom\n")
        .nth(1)
        .expect("docs/architecture.md has a section \"Who may use whom\"");
    let section = section.split("\n## ").next().unwrap();
    // The names in backquotes (`—` for none).
    let names = |cell: &str| -> Vec<String> {
        cell.split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect()
    };
    section
        .lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.strip_prefix("| `")?.split('|').collect();
            let module = cells[0].trim().trim_end_matches('`').to_string();
            Some((module, names(cells.get(1)?)))
        })
        .collect()
}

/// The top-level modules of `src/` (a file or a folder, `lib` and `main` aside).
fn top_level_modules() -> BTreeSet<String> {
    std::fs::read_dir(root().join("src"))
        .unwrap()
        .map(|e| {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            name.trim_end_matches(".rs").to_string()
        })
        .filter(|m| m != "lib" && m != "main")
        .collect()
}

#[test]
fn every_top_level_module_has_a_row_of_who_it_may_use() {
    let rows: BTreeSet<String> = allowed_uses().into_iter().map(|(m, _)| m).collect();
    let modules = top_level_modules();
    let missing: Vec<_> = modules.difference(&rows).collect();
    let stale: Vec<_> = rows.difference(&modules).collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "docs/architecture.md, \"Who may use whom\": no row for {missing:?}; rows of no module {stale:?}"
    );
}

#[test]
fn who_may_use_whom_has_no_circle_and_keeps_the_first_rules() {
    let table = allowed_uses();
    let uses = |m: &str| -> Vec<String> {
        table
            .iter()
            .find(|(row, _)| row == m)
            .map(|(_, allowed)| allowed.clone())
            .unwrap_or_default()
    };
    // `any` is only for a layer nothing else uses.
    for (module, allowed) in &table {
        if allowed.iter().any(|a| a == "any") {
            for (other, theirs) in &table {
                assert!(
                    !theirs.contains(module),
                    "{other} may use {module}, which may use any module"
                );
            }
        }
    }
    // No circle: following what each may use never comes back to it.
    for (start, _) in &table {
        let mut seen = BTreeSet::new();
        let mut stack = uses(start);
        while let Some(next) = stack.pop() {
            assert_ne!(&next, start, "a circle through {start} in the table");
            if next != "any" && seen.insert(next.clone()) {
                stack.extend(uses(&next));
            }
        }
    }
    for (module, forbidden) in FORBIDDEN {
        let allowed = uses(module);
        for f in *forbidden {
            assert!(
                !allowed.iter().any(|a| a == f || a == "any"),
                "the table lets {module} use {f}"
            );
        }
    }
}

#[test]
fn dependencies_run_one_way() {
    let table = allowed_uses();
    let mut wrong = Vec::new();
    for file in rust_files(&root().join("src")) {
        let rel = rel(&file);
        if is_test_file(&rel) || rel == "lib.rs" || rel == "main.rs" {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        let module = top_module(&rel);
        let Some((_, allowed)) = table.iter().find(|(m, _)| m == module) else {
            wrong.push(format!("src/{rel}: {module} has no row"));
            continue;
        };
        if allowed.iter().any(|a| a == "any") {
            continue;
        }
        for used in crate_references(non_test_code(&text)) {
            // `crate::Error` and `crate::Result` are the root's names for `error`'s.
            let used = match used.as_str() {
                "Error" | "Result" => "error".to_string(),
                _ => used,
            };
            if used != module && !allowed.contains(&used) {
                wrong.push(format!("src/{rel} uses crate::{used}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "dependencies docs/architecture.md does not allow (\"Who may use whom\"):\n{}",
        wrong.join("\n")
    );
}

/// Lower layers return data; the exit code is the command layer's to decide.
#[test]
fn only_the_command_layer_returns_exit_codes() {
    let mut wrong = Vec::new();
    for file in rust_files(&root().join("src")) {
        let rel = rel(&file);
        if rel == "main.rs" || rel.starts_with("command/") || is_test_file(&rel) {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        if non_test_code(&text).contains("Result<i32>") {
            wrong.push(format!("src/{rel}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "an exit code returned below the command layer: {wrong:?}"
    );
}

#[test]
fn test_hooks_stay_out_of_release_builds() {
    let mut wrong = Vec::new();
    for file in rust_files(&root().join("src")) {
        let rel = rel(&file);
        let text = std::fs::read_to_string(&file).unwrap();
        if rel.ends_with("test_hook.rs") {
            for gate in [
                "#[cfg(any(debug_assertions, feature = \"test-hooks\"))]",
                "#[cfg(not(any(debug_assertions, feature = \"test-hooks\")))]",
            ] {
                if !text.contains(gate) {
                    wrong.push(format!("src/{rel}: no {gate}"));
                }
            }
        } else if !is_test_file(&rel) && non_test_code(&text).contains("INTERVIEW_TEST_") {
            wrong.push(format!("src/{rel}: a test hook outside a test_hook.rs"));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn an_unsafe_block_without_a_safety_comment_is_denied() {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let lints = manifest
        .split("[lints.clippy]")
        .nth(1)
        .expect("Cargo.toml has [lints.clippy]");
    let lints = lints.split("\n[").next().unwrap();
    assert!(
        lints
            .lines()
            .any(|l| l.replace(' ', "") == "undocumented_unsafe_blocks=\"deny\""),
        "{lints}"
    );
}

#[test]
fn only_the_command_layer_sees_clap_types() {
    let mut wrong = Vec::new();
    for file in rust_files(&root().join("src")) {
        let rel = rel(&file);
        if rel == "main.rs" || rel == "cli.rs" || rel.starts_with("command/") {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        if crate_references(&text).contains("cli") {
            wrong.push(format!("src/{rel}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "crate::cli used below the command layer: {wrong:?}"
    );
}

/// The sandbox launcher's files: the only code that forks or executes a program itself
/// (docs/architecture.md, "Rules the layout keeps").
const LAUNCHER_FILES: [&str; 2] = ["sandbox/launch.rs", "sandbox/linux/launch.rs"];

#[test]
fn every_child_process_is_spawned_in_the_process_module() {
    let mut wrong = Vec::new();
    for file in rust_files(&root().join("src")) {
        let rel = rel(&file);
        if rel.starts_with("process/") || is_test_file(&rel) {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        let code = non_test_code(&text);
        // clap's `Command` builds a command line, it starts nothing.
        let code = code.replace("clap::Command::new(", "");
        // The written exemption: the sandbox launcher, itself started through src/process/,
        // forks and executes the one runner it was started for inside the namespaces.
        let launcher = LAUNCHER_FILES.contains(&rel.as_str());
        for needle in [
            "Command::new(",
            ".spawn()",
            "process::Command",
            "fork()",
            "execve(",
        ] {
            let exempt = launcher && (needle == "fork()" || needle == "execve(");
            if code.contains(needle) && !exempt {
                wrong.push(format!("src/{rel}: {needle}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "processes spawned outside src/process/: {wrong:?}"
    );
}

/// `src/runner/` starts runners and holds none: no file of it takes a turn as a runner does
/// (reads the brief or the turn's environment, writes a receipt); the programs the tool starts
/// as runners live in `src/interviewer/`, and `interview runner NAME` reaches only them.
#[test]
fn the_runner_room_holds_no_interviewer() {
    let mut wrong = Vec::new();
    for file in rust_files(&root().join("src/runner")) {
        let rel = rel(&file);
        if is_test_file(&rel) {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        let code = non_test_code(&text);
        // What only a runner's side of the protocol reads: the turn's variables, the brief as
        // data, and what writes a receipt.
        for needle in [
            "env::BRIEF",
            "env::CONTEXT",
            "env::RECEIPT",
            "env::OUT",
            "INTERVIEW_BRIEF",
            "INTERVIEW_CONTEXT",
            "INTERVIEW_RECEIPT",
            "INTERVIEW_OUT",
            "BriefContext",
            "receipt_json",
        ] {
            if code.contains(needle) {
                wrong.push(format!("src/{rel}: {needle}"));
            }
        }
    }
    let command = std::fs::read_to_string(root().join("src/command/runner.rs")).unwrap();
    let reached = crate_references(non_test_code(&command));
    for used in &reached {
        if used != "interviewer" && used != "error" {
            wrong.push(format!("src/command/runner.rs uses crate::{used}"));
        }
    }
    if !reached.contains("interviewer") {
        wrong.push("src/command/runner.rs does not start crate::interviewer".into());
    }
    assert!(
        wrong.is_empty(),
        "an interviewer's part outside src/interviewer/:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn nothing_reads_proc_outside_the_os_seam() {
    let mut wrong = Vec::new();
    for file in rust_files(&root().join("src")) {
        let rel = rel(&file);
        // The runner's own /proc is set up (Linux only) in linux/namespace.rs, and its read-only
        // world built from the mount table and the kernel's socket list in linux/world.rs.
        // Unit tests may name /proc paths as data (an output path that must be refused).
        if rel.starts_with("sys/")
            || rel == "sandbox/linux/namespace.rs"
            || rel == "sandbox/linux/world.rs"
            || is_test_file(&rel)
        {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        for needle in ["\"/proc", "prctl::"] {
            if text.contains(needle) {
                wrong.push(format!("src/{rel}: {needle}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "operating-system facts read outside src/sys/: {wrong:?}"
    );
}

#[test]
fn no_source_file_outgrows_its_room() {
    let mut large = Vec::new();
    for file in rust_files(&root().join("src")) {
        let rel = rel(&file);
        if is_test_file(&rel) {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        let lines = non_test_code(&text).lines().count();
        if lines > MAX_NON_TEST_LINES {
            large.push(format!("src/{rel}: {lines} lines"));
        }
    }
    assert!(
        large.is_empty(),
        "files over {MAX_NON_TEST_LINES} non-test lines: {large:?}"
    );
}

#[test]
fn the_reference_scanner_reads_grouped_imports() {
    let found = crate_references(
        "use crate::{ask::Person, error::{Error, Result}, guard};\nlet x = crate::receipt::limits::MAX;",
    );
    let want: BTreeSet<String> = ["ask", "error", "guard", "receipt"]
        .into_iter()
        .map(String::from)
        .collect();
    assert_eq!(found, want);
    let commented = crate_references("//! Not for: [`crate::process`].\nuse crate::sys;");
    assert_eq!(commented, BTreeSet::from(["sys".to_string()]));
}
