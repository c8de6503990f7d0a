//! Clean runners on awkward repositories give an empty diff (submodules, nested repositories,
//! symlinks, linked worktrees, file names that are not UTF-8), and a change in them is still seen.

use super::*;

#[test]
fn a_repository_with_a_submodule_gives_an_empty_diff() {
    let sub = TempRepo::new();
    let repo = TempRepo::new();
    repo.add_submodule(&sub, "libs/sub");
    let snap = repo.run(&["guard", "snapshot", "--json"]);
    let json: Value = serde_json::from_slice(&snap.stdout).unwrap();
    assert!(
        json["status"].as_object().unwrap().is_empty(),
        "a clean submodule is clean: {:#}",
        json["status"]
    );
    guard(&repo, &["true"], &[]).assert_empty();
    guard(&repo, &["git", "status"], &[]).assert_empty();
}

#[test]
fn a_commit_inside_a_submodule_is_a_status_change() {
    let sub = TempRepo::new();
    let repo = TempRepo::new();
    repo.add_submodule(&sub, "sub");
    let g = guard(
        &repo,
        &[
            "sh",
            "-c",
            "cd sub && git -c user.name=r -c user.email=r@x commit -q --allow-empty -m moved",
        ],
        &[],
    );
    assert_eq!(g.code, 3);
    assert!(
        g.find("status", "sub")["detail"]
            .as_str()
            .unwrap()
            .contains("HEAD")
    );
}

#[test]
fn a_nested_repository_gives_an_empty_diff() {
    let repo = TempRepo::new();
    let nested = repo.path().join("vendor/inner");
    std::fs::create_dir_all(&nested).unwrap();
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .args(args)
            .current_dir(&nested)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", repo.home())
            .status()
            .unwrap()
            .success();
        assert!(ok);
    };
    git(&["init", "-q"]);
    std::fs::write(nested.join("file.txt"), "inner\n").unwrap();
    git(&["add", "file.txt"]);
    git(&[
        "-c",
        "user.name=n",
        "-c",
        "user.email=n@x",
        "commit",
        "-q",
        "-m",
        "inner",
    ]);
    guard(&repo, &["true"], &[]).assert_empty();
    guard(&repo, &["git", "status"], &[]).assert_empty();
}

#[test]
fn symlinks_give_an_empty_diff() {
    let repo = TempRepo::new();
    std::os::unix::fs::symlink("README.md", repo.path().join("tracked-link")).unwrap();
    std::os::unix::fs::symlink("src", repo.path().join("dir-link")).unwrap();
    repo.git(&["add", "tracked-link", "dir-link"]);
    repo.git(&["commit", "-q", "-m", "links"]);
    std::os::unix::fs::symlink("/nonexistent/target", repo.path().join("dangling")).unwrap();
    std::os::unix::fs::symlink("/", repo.path().join("root-link")).unwrap();
    guard(&repo, &["true"], &[]).assert_empty();
}

#[test]
fn retargeting_a_symlink_is_a_status_change() {
    let repo = TempRepo::new();
    std::os::unix::fs::symlink("README.md", repo.path().join("link")).unwrap();
    repo.git(&["add", "link"]);
    repo.git(&["commit", "-q", "-m", "link"]);
    let g = guard(
        &repo,
        &["sh", "-c", "rm link && ln -s src/lib.rs link"],
        &[],
    );
    assert_eq!(g.code, 3);
    assert!(g.has("status", "link"));
}

#[test]
fn a_linked_worktree_gives_an_empty_diff_from_either_side() {
    let repo = TempRepo::new();
    let elsewhere = tempfile::tempdir().unwrap();
    let wt = elsewhere.path().join("linked");
    repo.git(&[
        "worktree",
        "add",
        "-q",
        "-b",
        "side",
        &wt.display().to_string(),
    ]);
    guard(&repo, &["true"], &[]).assert_empty();
    let out = repo
        .cmd()
        .current_dir(&wt)
        .args(["guard", "--json", "--", "git", "status"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        json["report"]["changes"].as_array().unwrap().is_empty(),
        "{json:#}"
    );
}

#[test]
fn non_utf8_file_names_give_an_empty_diff_and_escaped_json() {
    let repo = repo_with_ignored();
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.txt");
    std::fs::write(repo.path().join(name), "latin-1 name\n").unwrap();
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "non-utf8 name"]);
    std::fs::write(
        repo.path()
            .join(std::ffi::OsStr::from_bytes(b"new-\xff.txt")),
        "x\n",
    )
    .unwrap();
    std::fs::write(
        repo.path()
            .join("target")
            .join(std::ffi::OsStr::from_bytes(b"\xfe.o")),
        "x\n",
    )
    .unwrap();
    guard(&repo, &["true"], &[]).assert_empty();
    let out = repo.run(&["guard", "snapshot", "--json"]);
    let text = stdout(&out);
    let json: Value = serde_json::from_str(&text).unwrap();
    assert!(
        json["status"].get("new-\\xff.txt").is_some(),
        "{:#}",
        json["status"]
    );
    assert!(text.contains("caf\\\\xe9.txt"));
}

#[test]
fn a_non_utf8_untracked_file_edit_is_reported_escaped() {
    let repo = TempRepo::new();
    let g = guard(
        &repo,
        &["sh", "-c", "printf x > \"$(printf 'bad-\\377')\""],
        &[],
    );
    assert_eq!(g.code, 3);
    assert!(g.has("status", "bad-\\xff"), "{:#}", g.json);
}
