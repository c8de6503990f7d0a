//! The change guard end to end: hostile runners caught in the right category (here), the policy
//! (`guard/policy.rs`), planted programs never executed (`guard/planted.rs`), clean runners
//! giving an empty diff on awkward repositories (`guard/awkward.rs`), the library API the turn
//! loop uses (`guard/library.rs`).

use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::{TempRepo, stderr, stdout};

mod awkward;
mod library;
mod planted;
mod policy;

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

/// A tracked directory moved aside and a link to it put in its place: the files below it read
/// the same through the link (same inodes, same times), but they are gone from where git keeps
/// them, as `git status` says; so is a directory further down replaced the same way.
#[test]
fn a_tracked_directory_replaced_by_a_link_to_itself_moved_deletes_the_files_below() {
    for (moved, link, target) in [
        ("src", "src", ".moved"),
        ("src/deep", "src/deep", "elsewhere"),
    ] {
        let repo = TempRepo::new();
        repo.write("src/deep/inner.rs", "pub fn inner() {}\n");
        repo.git(&["add", "-A"]);
        repo.git(&["commit", "-q", "-m", "deeper"]);
        let script =
            format!("mv {moved} {moved}.{target} && ln -s \"$(basename {moved}).{target}\" {link}");
        let g = guard(&repo, &["sh", "-c", &script], &[]);
        assert_eq!(g.code, 3, "{}", g.stderr);
        assert!(g.has("status", link), "{:#}", g.json);
        let deleted = g.find("status", "src/deep/inner.rs");
        assert!(
            deleted["detail"].as_str().unwrap().contains("deleted"),
            "{moved}: {:#}",
            g.json
        );
        if moved == "src" {
            assert!(
                g.find("status", "src/lib.rs")["detail"]
                    .as_str()
                    .unwrap()
                    .contains("deleted")
            );
        }
    }
}

/// `interview guard snapshot --json`, parsed.
fn snapshot_json(repo: &TempRepo) -> Value {
    let out = repo.run(&["guard", "snapshot", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The text snapshot counts the index's entries as the JSON one lists them (conflicted stages
/// included), without making them.
#[test]
fn the_snapshot_summary_counts_every_index_entry() {
    let repo = repo_with_ignored();
    repo.write("src/extra.rs", "fn extra() {}\n");
    repo.git(&["add", "src/extra.rs"]);
    let listed = snapshot_json(&repo)["index"].as_array().unwrap().len();
    assert!(listed >= 2, "{listed}");
    let out = repo.run(&["guard", "snapshot"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains(&format!("index         {listed} entries\n")),
        "{listed} entries listed:\n{text}"
    );
}

/// A run keeps the listings of the directories it read (the memo, docs/guard.md), and the next
/// run's first snapshot takes one over only while the directory's whole stat holds: entries
/// added, removed, renamed or replaced by another kind between runs, in tracked, untracked and
/// ignored directories, are seen exactly as without the memo.
#[test]
fn entries_changed_between_runs_are_seen_through_the_listings_the_last_run_kept() {
    use interview::testing::memo_lists;
    let repo = repo_with_ignored();
    repo.write("notes/a.txt", "a\n");
    repo.write("notes/b.txt", "b\n");
    // Only a directory whose times are older than the snapshot's start by 2 s is kept.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    guard(&repo, &["true"], &[]).assert_empty();
    let (root, tier) = (repo.path(), repo.path().join(".interview"));
    for dir in ["", "src", "notes", "target/debug"] {
        assert!(memo_lists(root, &tier, dir), "{dir:?} kept");
    }
    assert!(
        !memo_lists(root, &tier, ".interview"),
        "the tier changes every run"
    );
    let ok = std::process::Command::new("sh")
        .args([
            "-c",
            "echo new > src/new.rs && rm notes/a.txt && mv notes/b.txt notes/c.txt \
            && echo o > target/debug/planted.o && rm target/debug/app && mkdir target/debug/app",
        ])
        .current_dir(root)
        .status()
        .unwrap()
        .success();
    assert!(ok);
    let with_memo = snapshot_json(&repo);
    for memo in ["guard-memo", "guard-listings"] {
        std::fs::remove_file(tier.join(memo)).unwrap();
    }
    let without = snapshot_json(&repo);
    for part in ["status", "permissions"] {
        assert_eq!(with_memo[part], without[part], "{part}");
    }
    // Ignored paths alike but for the memo itself, removed in between.
    let not_memo = |v: &Value| -> Vec<Value> {
        let memo = |p: &Value| {
            p["path"]
                .as_str()
                .unwrap_or("")
                .starts_with(".interview/guard-")
        };
        v["ignored"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| !memo(p))
            .cloned()
            .collect()
    };
    assert_eq!(not_memo(&with_memo), not_memo(&without));
    let status = with_memo["status"].to_string();
    assert!(
        status.contains("src/new.rs") && status.contains("notes/c.txt"),
        "{status}"
    );
    assert!(
        !status.contains("notes/a.txt") && !status.contains("notes/b.txt"),
        "{status}"
    );
    let ignored = with_memo["ignored"].to_string();
    assert!(ignored.contains("target/debug/planted.o"), "{ignored}");
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
