//! The pages name what the tree holds and cite nothing outside the repository: every file and
//! folder of `src/` has its row in docs/architecture.md, every test module is in
//! tests/README.md, and no page or test sends its reader to a document the repository lacks.

use super::{root, rust_files};

#[test]
fn every_module_folder_and_file_is_named_in_the_architecture_page() {
    let page = std::fs::read_to_string(root().join("docs/architecture.md")).unwrap();
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(root().join("src")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let cited = if path.is_dir() {
            format!("`src/{name}/`")
        } else {
            format!("`src/{name}`")
        };
        if !page.contains(&cited) {
            missing.push(cited);
        }
    }
    missing.sort();
    assert!(
        missing.is_empty(),
        "docs/architecture.md does not name {missing:?}"
    );
}

/// Every folder under `src/`, at every depth, has a row in the page's table of files (a line
/// starting `` | `src/FOLDER/` | ``) naming each of its files and subfolders (`` `name` ``,
/// `` `name/` ``).
#[test]
fn every_folder_and_file_at_every_depth_is_named_in_the_architecture_page() {
    let page = std::fs::read_to_string(root().join("docs/architecture.md")).unwrap();
    let mut missing = Vec::new();
    let mut folders = vec![root().join("src")];
    while let Some(dir) = folders.pop() {
        let folder = dir
            .strip_prefix(root())
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let mut children = Vec::new();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                children.push(format!("`{name}/`"));
                folders.push(path);
            } else {
                children.push(format!("`{name}`"));
            }
        }
        if folder == "src" {
            continue; // the top level: the test above
        }
        let row_start = format!("| `{folder}/` |");
        let rows: Vec<&str> = page.lines().filter(|l| l.starts_with(&row_start)).collect();
        for child in children {
            if !rows.iter().any(|row| row.contains(&child)) {
                missing.push(format!("{folder}/: {child}"));
            }
        }
    }
    missing.sort();
    assert!(
        missing.is_empty(),
        "docs/architecture.md (\"Every file under src/\") has no row for the folder naming:\n{}",
        missing.join("\n")
    );
}

/// tests/README.md names every module of the test binary (`mod NAME;` in tests/tests.rs) as
/// `` `NAME.rs` ``.
#[test]
fn the_tests_readme_names_every_test_module() {
    let binary = std::fs::read_to_string(root().join("tests/tests.rs")).unwrap();
    let readme = std::fs::read_to_string(root().join("tests/README.md")).unwrap();
    let missing: Vec<String> = binary
        .lines()
        .filter_map(|l| l.trim().strip_prefix("mod ")?.strip_suffix(';'))
        .filter(|module| *module != "util")
        .map(|module| format!("`{module}.rs`"))
        .filter(|named| !readme.contains(named.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "tests/README.md does not name the test modules {missing:?}"
    );
}

#[test]
fn nothing_cites_documents_outside_the_repository() {
    let mut cited = Vec::new();
    let mut files = rust_files(&root().join("src"));
    for dir in ["docs", "tests"] {
        for entry in std::fs::read_dir(root().join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "md" || e == "rs") {
                files.push(path);
            }
        }
    }
    files.push(root().join("README.md"));
    for file in files {
        if file.ends_with("tests/architecture.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        for needle in [
            "DESIGN §",
            "DESIGN.md",
            "spec/abort-safe",
            "spec/qa-loop",
            "spec/autopilot",
            "qa-loop-ui",
            "abort-safe-handler",
            "autopilot-protocols",
            "the reference's",
            "in the reference",
            "the reference texts",
        ] {
            if text.contains(needle) {
                cited.push(format!("{}: {needle}", file.display()));
            }
        }
    }
    assert!(
        cited.is_empty(),
        "citations of documents outside the repository: {cited:?}"
    );
}
