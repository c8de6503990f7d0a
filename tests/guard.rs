//! The change guard end to end: hostile runners caught in the right category, planted programs
//! never executed, clean runners giving an empty diff on awkward repositories.

use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::{TempRepo, stderr, stdout};

pub(crate) fn hostile(name: &str) -> String {
    crate::util::fixtures()
        .join("runners/hostile")
        .join(format!("{name}.sh"))
        .display()
        .to_string()
}

/// The outcome of `interview guard --json -- …`.
pub(crate) struct Guarded {
    pub(crate) code: i32,
    pub(crate) json: Value,
    pub(crate) stderr: String,
}

impl Guarded {
    pub(crate) fn changes(&self) -> &[Value] {
        self.json["report"]["changes"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// Whether a change in `category` has a subject containing `subject`.
    pub(crate) fn has(&self, category: &str, subject: &str) -> bool {
        self.changes().iter().any(|c| {
            c["category"] == category && c["subject"].as_str().unwrap_or("").contains(subject)
        })
    }

    pub(crate) fn find(&self, category: &str, subject: &str) -> &Value {
        self.changes()
            .iter()
            .find(|c| {
                c["category"] == category && c["subject"].as_str().unwrap_or("").contains(subject)
            })
            .unwrap_or_else(|| panic!("no {category} change for {subject}: {:#}", self.json))
    }

    pub(crate) fn categories(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .changes()
            .iter()
            .map(|c| c["category"].as_str().unwrap_or("").to_string())
            .collect();
        v.dedup();
        v
    }

    pub(crate) fn assert_empty(&self) {
        assert_eq!(self.code, 0, "stderr: {}", self.stderr);
        assert!(
            self.changes().is_empty(),
            "expected no change, got {:#}",
            self.json["report"]
        );
    }
}

pub(crate) fn guard(repo: &TempRepo, cmd: &[&str], env: &[(&str, &Path)]) -> Guarded {
    let mut c = repo.cmd();
    c.args(["guard", "--json", "--"]).args(cmd);
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().expect("run interview guard");
    let json: Value = serde_json::from_str(&stdout(&out)).unwrap_or_else(|e| {
        panic!(
            "guard --json printed no JSON ({e}): {}{}",
            stdout(&out),
            stderr(&out)
        )
    });
    Guarded {
        code: out.status.code().unwrap_or(-1),
        json,
        stderr: stderr(&out),
    }
}

fn run_hostile(repo: &TempRepo, name: &str) -> Guarded {
    guard(repo, &["sh", &hostile(name)], &[])
}

/// A repository with an ignored `.env`, an ignored `target/` and the local tier ignored through
/// `.git/info/exclude`, as the tool leaves it.
fn repo_with_ignored() -> TempRepo {
    let repo = TempRepo::new();
    repo.write(".gitignore", ".env\ntarget/\n");
    repo.git(&["add", ".gitignore"]);
    repo.git(&["commit", "-q", "-m", "ignore rules"]);
    repo.write(".env", "TOKEN=1\n");
    repo.write("target/debug/app", "binary\n");
    let exclude = repo.path().join(".git/info/exclude");
    let mut text = std::fs::read_to_string(&exclude).unwrap_or_default();
    text.push_str("/.interview/\n");
    std::fs::write(&exclude, text).unwrap();
    repo.write(".interview/sessions/other-session/state.json", "{}\n");
    repo
}

// ---- hostile runners: each caught, in the right category ----

#[test]
fn a_commit_moves_head_in_refs_and_leaves_status_clean() {
    let repo = TempRepo::new();
    let g = run_hostile(&repo, "commits");
    assert_eq!(g.code, 3, "{}", g.stderr);
    let head = g.find("refs", "HEAD");
    assert_eq!(head["op"], "~");
    assert!(head["detail"].as_str().unwrap().contains('→'));
    assert!(g.has("refs", "refs/heads/main"));
    assert!(
        !g.has("status", ""),
        "status should stay clean: {:#}",
        g.json
    );
}

#[test]
fn staging_a_file_is_an_index_and_status_change() {
    let repo = TempRepo::new();
    let g = run_hostile(&repo, "stages");
    assert_eq!(g.code, 3);
    assert_eq!(g.find("index", "staged.txt")["op"], "+");
    assert!(
        g.find("status", "staged.txt")["detail"]
            .as_str()
            .unwrap()
            .contains("staged added")
    );
}

#[test]
fn a_second_edit_of_a_modified_file_is_a_content_change() {
    let repo = TempRepo::new();
    repo.write("README.md", "# test repo\n\nedited by the person\n");
    let g = run_hostile(&repo, "edits_modified");
    assert_eq!(g.code, 3);
    let c = g.find("status", "README.md");
    assert_eq!(c["op"], "~");
    assert!(c["detail"].as_str().unwrap().contains("content changed"));
}

#[test]
fn deleting_a_tracked_file_is_a_status_change() {
    let repo = TempRepo::new();
    let g = run_hostile(&repo, "deletes_tracked");
    assert_eq!(g.code, 3);
    let c = g.find("status", "src/lib.rs");
    assert_eq!(c["op"], "+");
    assert!(c["detail"].as_str().unwrap().contains("deleted"));
}

#[test]
fn an_untracked_file_hidden_by_info_exclude_is_still_seen() {
    let repo = TempRepo::new();
    let g = run_hostile(&repo, "hides_untracked");
    assert_eq!(g.code, 3);
    assert!(g.has("git_metadata", "info/exclude"), "{:#}", g.json);
    assert_eq!(g.find("ignored", "sneaky.txt")["op"], "+");
}

#[test]
fn editing_the_ignored_env_file_is_an_ignored_change() {
    let repo = repo_with_ignored();
    let g = run_hostile(&repo, "edits_env");
    assert_eq!(g.code, 3);
    let c = g.find("ignored", ".env");
    assert_eq!(c["op"], "~");
    assert!(c["detail"].as_str().unwrap().contains("size"));
    assert_eq!(g.categories(), vec!["ignored"]);
}

#[test]
fn writing_inside_an_ignored_directory_is_an_ignored_change() {
    let repo = repo_with_ignored();
    let g = run_hostile(&repo, "writes_target");
    assert_eq!(g.code, 3);
    assert_eq!(g.find("ignored", "target/debug/planted.o")["op"], "+");
}

#[test]
fn writing_a_hook_is_a_hooks_change() {
    let repo = TempRepo::new();
    let g = run_hostile(&repo, "writes_hook");
    assert_eq!(g.code, 3);
    let c = g.find("hooks", "pre-commit");
    assert_eq!(c["op"], "+");
    assert!(c["detail"].as_str().unwrap().contains("0755"));
}

#[test]
fn changing_a_hook_mode_is_a_hooks_change() {
    let repo = TempRepo::new();
    std::fs::write(
        repo.path().join(".git/hooks/pre-commit.sample"),
        "#!/bin/sh\nexit 0\n",
    )
    .unwrap();
    let g = run_hostile(&repo, "chmods_hook");
    assert_eq!(g.code, 3);
    let c = g.find("hooks", "pre-commit.sample");
    assert!(c["detail"].as_str().unwrap().contains("mode"), "{c:#}");
}

#[test]
fn pointing_hooks_path_at_new_hooks_is_a_hooks_and_config_change() {
    let repo = TempRepo::new();
    let g = run_hostile(&repo, "sets_hooks_path");
    assert_eq!(g.code, 3);
    assert!(
        g.find("hooks", "hooks directory")["detail"]
            .as_str()
            .unwrap()
            .contains("evil-hooks")
    );
    assert_eq!(g.find("hooks", "post-checkout")["op"], "+");
    assert!(g.has("git_metadata", "core.hookspath"));
}

#[test]
fn setting_core_fsmonitor_is_reported_by_key() {
    let repo = TempRepo::new();
    let g = run_hostile(&repo, "sets_fsmonitor");
    assert_eq!(g.code, 3);
    let c = g.find("git_metadata", "config: core.fsmonitor");
    assert_eq!(c["op"], "+");
    assert!(c["detail"].as_str().unwrap().contains("fsmonitor-hook"));
}

#[test]
fn a_filter_driver_and_attributes_line_are_git_metadata_changes() {
    let repo = TempRepo::new();
    let g = run_hostile(&repo, "adds_filter");
    assert_eq!(g.code, 3);
    assert_eq!(
        g.find("git_metadata", "config: filter.evil.clean")["op"],
        "+"
    );
    assert!(g.has("git_metadata", "info/attributes"));
}

#[test]
fn adding_a_linked_worktree_is_a_worktrees_change() {
    let repo = TempRepo::new();
    let elsewhere = tempfile::tempdir().unwrap();
    let wt = elsewhere.path().join("wt");
    let g = guard(
        &repo,
        &["sh", &hostile("adds_worktree")],
        &[("WT_DIR", &wt)],
    );
    assert_eq!(g.code, 3, "{}", g.stderr);
    let c = g.find("worktrees", "wt");
    assert_eq!(c["op"], "+");
    assert!(
        c["detail"]
            .as_str()
            .unwrap()
            .contains(&wt.display().to_string())
    );
    assert!(g.has("refs", "refs/heads/runner-branch"));
}

#[test]
fn skip_worktree_then_edit_shows_the_flag_and_the_edit() {
    let repo = TempRepo::new();
    let g = run_hostile(&repo, "skip_worktree_edit");
    assert_eq!(g.code, 3);
    assert!(
        g.find("index", "README.md")["detail"]
            .as_str()
            .unwrap()
            .contains("+skip-worktree")
    );
    assert!(
        g.find("status", "README.md")["detail"]
            .as_str()
            .unwrap()
            .contains("modified")
    );
}

#[test]
fn moving_a_branch_and_a_tag_are_refs_changes() {
    let repo = TempRepo::new();
    repo.git(&["branch", "feature"]);
    repo.git(&["tag", "v1"]);
    repo.write("README.md", "second\n");
    repo.git(&["commit", "-q", "-am", "second"]);
    let g = run_hostile(&repo, "moves_refs");
    assert_eq!(g.code, 3);
    assert_eq!(g.find("refs", "refs/heads/feature")["op"], "~");
    assert_eq!(g.find("refs", "refs/tags/v1")["op"], "~");
    // The branch's reflog is part of the git directory, which is watched whole.
    assert_eq!(g.find("git_metadata", "logs/refs/heads/feature")["op"], "~");
    assert_eq!(g.categories(), vec!["refs", "git_metadata"]);
}

#[test]
fn touching_another_sessions_files_is_an_ignored_change() {
    let repo = repo_with_ignored();
    let g = run_hostile(&repo, "touches_other_session");
    assert_eq!(g.code, 3);
    assert_eq!(
        g.find("ignored", ".interview/sessions/other-session/state.json")["op"],
        "~"
    );
}

// ---- policy and pass-through ----

#[test]
fn the_command_exit_code_passes_through_when_nothing_changed() {
    let repo = TempRepo::new();
    let g = guard(&repo, &["sh", "-c", "exit 7"], &[]);
    assert_eq!(g.code, 7);
    assert_eq!(g.json["exit_code"], 7);
}

#[test]
fn warn_reports_and_passes_the_exit_code_through() {
    let repo = TempRepo::new();
    let out = repo
        .cmd()
        .args([
            "guard",
            "--on-change",
            "warn",
            "--",
            "sh",
            &hostile("stages"),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(stderr(&out).contains("staged.txt"), "{}", stderr(&out));
}

#[test]
fn a_violation_exits_3_with_a_readable_report() {
    let repo = TempRepo::new();
    let out = repo
        .cmd()
        .args(["guard", "--", "sh", &hostile("commits")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let err = stderr(&out);
    assert!(err.contains("refs:\n  ~ HEAD: refs/heads/main ("), "{err}");
}

#[test]
fn refreshing_the_index_stat_cache_is_not_a_change() {
    let repo = TempRepo::new();
    // Touched files make git rewrite the index with new stat data: their mtimes are set a
    // minute back, so their stat differs from the index's whatever the clock's granularity.
    let back = filetime::FileTime::from_unix_time(filetime::FileTime::now().unix_seconds() - 60, 0);
    for file in ["README.md", "src/lib.rs"] {
        repo.write(file, &repo.read(file));
        filetime::set_file_mtime(repo.path().join(file), back).unwrap();
    }
    let index = std::fs::read(repo.path().join(".git/index")).unwrap();
    run_hostile(&repo, "git_status").assert_empty();
    assert_ne!(
        std::fs::read(repo.path().join(".git/index")).unwrap(),
        index,
        "git status did not refresh the index: nothing was tested"
    );
}

// ---- nothing from the repository is executed ----

/// A program that records that it ran by creating a file in `markers`.
pub(crate) fn plant_marker_program(dir: &Path, markers: &Path) -> PathBuf {
    let prog = dir.join("marker.sh");
    std::fs::write(
        &prog,
        format!(
            "#!/bin/sh\ntouch \"{}/ran-$$\"\ncat >/dev/null 2>&1 || true\n",
            markers.display()
        ),
    )
    .unwrap();
    let mut perm = std::fs::metadata(&prog).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
    std::fs::set_permissions(&prog, perm).unwrap();
    prog
}

pub(crate) fn marker_count(markers: &Path) -> usize {
    std::fs::read_dir(markers).map(|d| d.count()).unwrap_or(0)
}

#[test]
fn the_planted_marker_program_works() {
    let tools = tempfile::tempdir().unwrap();
    let markers = tempfile::tempdir().unwrap();
    let prog = plant_marker_program(tools.path(), markers.path());
    // Through `sh`: executing a file just written can fail with ETXTBSY while another test
    // thread forks.
    std::process::Command::new("sh")
        .arg(&prog)
        .status()
        .unwrap();
    assert_eq!(marker_count(markers.path()), 1);
}

#[test]
fn planted_hooks_fsmonitor_filters_pagers_and_helpers_never_run() {
    let repo = TempRepo::new();
    let tools = tempfile::tempdir().unwrap();
    let markers = tempfile::tempdir().unwrap();
    let prog = plant_marker_program(tools.path(), markers.path());
    let p = prog.display().to_string();
    let hooks = repo.path().join(".git/hooks");
    for hook in [
        "pre-commit",
        "post-checkout",
        "post-index-change",
        "reference-transaction",
        "fsmonitor-watchman",
        "pre-auto-gc",
    ] {
        std::fs::copy(&prog, hooks.join(hook)).unwrap();
    }
    let user_hooks = tools.path().join("user-hooks");
    std::fs::create_dir(&user_hooks).unwrap();
    std::fs::copy(&prog, user_hooks.join("post-index-change")).unwrap();
    for (key, value) in [
        ("core.fsmonitor", p.clone()),
        ("filter.evil.clean", p.clone()),
        ("filter.evil.smudge", p.clone()),
        ("filter.evil.process", p.clone()),
        ("filter.evil.required", "true".into()),
        ("diff.external", p.clone()),
        ("diff.evil.textconv", p.clone()),
        ("core.pager", p.clone()),
        ("pager.status", p.clone()),
        ("credential.helper", format!("!{p}")),
        ("core.askPass", p.clone()),
        ("core.sshCommand", p.clone()),
        ("core.editor", p.clone()),
        ("gpg.program", p.clone()),
    ] {
        repo.git(&["config", key, &value]);
    }
    // Through the user's global config too (HOME is the test's own directory).
    std::fs::write(
        repo.home().join(".gitconfig"),
        format!(
            "[core]\n\tfsmonitor = {p}\n\thooksPath = {}\n[diff]\n\texternal = {p}\n",
            user_hooks.display()
        ),
    )
    .unwrap();
    repo.write(".gitattributes", "* filter=evil diff=evil\n");
    std::fs::write(
        repo.path().join(".git/info/attributes"),
        "* filter=evil diff=evil\n",
    )
    .unwrap();
    repo.write("README.md", "dirty, so the content is hashed\n");
    repo.write("untracked.txt", "new\n");

    let out = repo.run(&["guard", "snapshot", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = repo.run(&["guard", "snapshot"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let g = guard(&repo, &["true"], &[]);
    g.assert_empty();
    assert_eq!(marker_count(markers.path()), 0, "a planted program ran");
}

// ---- clean runners: no change on awkward repositories ----

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

// ---- the library API the turn loop uses ----

#[test]
fn the_current_turn_directory_is_excluded_and_the_rest_of_the_tier_watched() {
    use interview::testing::{GuardScope, Snapshot};
    let repo = repo_with_ignored();
    let turn = repo.path().join(".interview/sessions/mine/turns/001");
    std::fs::create_dir_all(&turn).unwrap();
    let scope = GuardScope {
        worktree: repo.path().to_path_buf(),
        exclude: vec![turn.clone()],
    };
    let before = Snapshot::take(&scope).unwrap();
    std::fs::write(turn.join("receipt.json"), "{}").unwrap();
    std::fs::create_dir_all(turn.join("out")).unwrap();
    let after = Snapshot::take(&scope).unwrap();
    assert!(before.diff(&after).is_empty(), "{}", before.diff(&after));
    std::fs::write(
        repo.path()
            .join(".interview/sessions/other-session/state.json"),
        "{\"tampered\":true}",
    )
    .unwrap();
    let later = Snapshot::take(&scope).unwrap();
    let report = after.diff(&later);
    assert!(
        report.to_string().contains("other-session/state.json"),
        "{report}"
    );
}

#[test]
fn restore_puts_hooks_and_config_back_and_removes_planted_hooks() {
    use interview::testing::{GuardScope, Snapshot, restore, save_restore_copies};
    let repo = TempRepo::new();
    let copies = tempfile::tempdir().unwrap();
    let scope = GuardScope {
        worktree: repo.path().to_path_buf(),
        exclude: vec![],
    };
    let config_before = std::fs::read(repo.path().join(".git/config")).unwrap();
    save_restore_copies(&scope, copies.path()).unwrap();
    let before = Snapshot::take(&scope).unwrap();
    for script in [
        "writes_hook",
        "sets_fsmonitor",
        "adds_filter",
        "hides_untracked",
    ] {
        let ok = std::process::Command::new("sh")
            .arg(hostile(script))
            .current_dir(repo.path())
            .env("HOME", repo.home())
            .status()
            .unwrap()
            .success();
        assert!(ok, "{script}");
    }
    std::fs::remove_file(repo.path().join("sneaky.txt")).unwrap();
    assert!(!before.diff(&Snapshot::take(&scope).unwrap()).is_empty());
    let summary = restore(&scope, copies.path()).unwrap();
    assert!(summary.failed.is_empty(), "{summary}");
    assert_eq!(
        std::fs::read(repo.path().join(".git/config")).unwrap(),
        config_before
    );
    assert!(!repo.path().join(".git/hooks/pre-commit").exists());
    let report = before.diff(&Snapshot::take(&scope).unwrap());
    assert!(report.is_empty(), "after restore: {report}");
}

/// Edit a tracked file, date its mtime back (so it is not "racy" against a new index), then write
/// an index whose entry keeps the old object id but carries the edited file's stat data: a stat
/// check against the live index finds the file clean.
fn forge_index_for(repo: &TempRepo, rel: &str, new_content: &str) {
    repo.write(rel, new_content);
    let an_hour_ago = filetime::FileTime::from_unix_time(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs() as i64
            - 3600,
        0,
    );
    filetime::set_file_mtime(repo.path().join(rel), an_hour_ago).unwrap();
    let index_path = repo.path().join(".git/index");
    let mut index = gix::index::File::at(
        &index_path,
        gix::hash::Kind::Sha1,
        false,
        gix::index::decode::Options::default(),
    )
    .unwrap();
    let meta = gix::index::fs::Metadata::from_path_no_follow(&repo.path().join(rel)).unwrap();
    let stat = gix::index::entry::Stat::from_fs(&meta).unwrap();
    let pos = index
        .entry_index_by_path(rel.into())
        .expect("the file is tracked");
    index.entries_mut()[pos].stat = stat;
    index.write(gix::index::write::Options::default()).unwrap();
}

#[test]
fn forged_stat_data_in_the_index_does_not_hide_an_edit() {
    use interview::testing::{GuardScope, Snapshot};
    let repo = TempRepo::new();
    let scope = GuardScope {
        worktree: repo.path().to_path_buf(),
        exclude: vec![],
    };
    let before = Snapshot::take(&scope).unwrap();
    forge_index_for(&repo, "src/lib.rs", "pub fn answer() -> u32 {\n    41\n}\n");
    // The index's entries (ids, modes, flags) are unchanged: only its stat cache was forged.
    let after = Snapshot::take_after(&scope, &before).unwrap();
    let report = before.diff(&after);
    assert!(
        report.to_string().contains("src/lib.rs"),
        "the edit was hidden: {report}"
    );
}

#[test]
fn replacing_a_stored_object_is_a_git_metadata_change() {
    let repo = TempRepo::new();
    let g = run_hostile(&repo, "replaces_object");
    assert_eq!(g.code, 3, "{}", g.stderr);
    assert!(g.has("git_metadata", "objects/"), "{:#}", g.json);
}

#[test]
fn repacking_the_object_store_is_a_git_metadata_change() {
    let repo = TempRepo::new();
    let g = run_hostile(&repo, "repacks");
    assert_eq!(g.code, 3, "{}", g.stderr);
    assert!(g.has("git_metadata", "objects/pack/"), "{:#}", g.json);
}

/// A `git gc --auto` that a commit started in the background, holding `gc.pid` until the test
/// says go, then writing an object (as its repacking would): a turn waits for it instead of
/// taking its writes for the runner's.
#[test]
fn a_turn_waits_for_gits_own_gc_before_its_snapshot() {
    use crate::util::{Interview, wait_until};
    use std::time::Duration;
    let repo = TempRepo::new();
    let go = repo.scratch("gc-go");
    let mut gc = std::process::Command::new("sh")
        .arg("-c")
        .arg(
            r#"echo "$$ $(hostname)" > .git/gc.pid
n=0
while [ ! -f "$GO" ] && [ "$n" -lt 600 ]; do sleep 0.05; n=$((n + 1)); done
echo "an object gc writes" | git hash-object -w --stdin >/dev/null
rm .git/gc.pid"#,
        )
        .env("GO", &go)
        .current_dir(repo.path())
        .spawn()
        .unwrap();
    let pid_file = repo.path().join(".git/gc.pid");
    wait_until(Duration::from_secs(30), "gc.pid", || pid_file.exists());
    let mut pty = Interview::of_work_item(&repo)
        .runner("done-at-once.sh")
        .without_sandbox()
        .out("-")
        .at_terminal();
    pty.expect("Waiting for git's own work on its store (git gc, pid");
    std::fs::write(&go, "").unwrap();
    let (code, screen) = pty.finish();
    assert!(gc.wait().unwrap().success());
    assert_eq!(code, 0, "{screen}");
    assert!(!screen.contains("changed the repository"), "{screen}");
}
