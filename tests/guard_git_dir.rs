//! The guard with the sandbox off: the whole git directory, repositories below the root, the
//! index's extensions, config includes and links, the system config and hooks — each change made
//! by a command under `interview guard --` is caught in its category, and read-only git commands
//! are not a change.

use std::path::Path;

use crate::guard::guard;
use crate::util::TempRepo;

/// `sh -c SCRIPT` under the guard, with `env`.
fn sh(repo: &TempRepo, script: &str) -> crate::guard::Guarded {
    guard(repo, &["sh", "-c", script], &[])
}

/// A repository with a submodule at `sub`.
fn with_submodule() -> (TempRepo, TempRepo) {
    let sub = TempRepo::new();
    let repo = TempRepo::new();
    repo.add_submodule(&sub, "sub");
    (repo, sub)
}

/// A separate repository whose config runs `core.fsmonitor` (what an attacker points at).
fn evil_repo() -> TempRepo {
    let evil = TempRepo::new();
    evil.git(&["config", "core.fsmonitor", "/tmp/evil-fsmonitor"]);
    evil
}

const GIT: &str = "git -c user.name=r -c user.email=r@x";

// ---- repositories below the root ----

#[test]
fn a_new_dot_git_in_a_tracked_directory_is_a_nested_repository() {
    let repo = TempRepo::new();
    let evil = evil_repo();
    let g = sh(
        &repo,
        &format!(
            "printf 'gitdir: {}/.git\\n' > src/.git",
            evil.path().display()
        ),
    );
    assert_eq!(g.code, 3, "{}", g.stderr);
    let c = g.find("nested_repos", "src");
    assert_eq!(c["op"], "+");
    assert!(
        c["detail"]
            .as_str()
            .unwrap()
            .contains(&evil.path().display().to_string()),
        "{c:#}"
    );
}

#[test]
fn a_submodule_gitfile_retargeted_to_another_clone_is_caught() {
    let (repo, _sub) = with_submodule();
    let evil = evil_repo();
    let g = sh(
        &repo,
        &format!(
            "printf 'gitdir: {}/.git\\n' > sub/.git",
            evil.path().display()
        ),
    );
    assert_eq!(g.code, 3, "{}", g.stderr);
    assert_eq!(g.find("nested_repos", "sub/.git")["op"], "~");
}

#[test]
fn an_edit_inside_a_submodule_is_a_status_change_named_by_the_submodule() {
    let (repo, _sub) = with_submodule();
    let g = sh(&repo, "echo more >> sub/README.md");
    assert_eq!(g.code, 3, "{}", g.stderr);
    assert!(g.has("status", "sub: README.md"), "{:#}", g.json);
}

#[test]
fn staging_and_a_branch_inside_a_submodule_are_caught() {
    let (repo, _sub) = with_submodule();
    let g = sh(
        &repo,
        "cd sub && echo new > new.txt && git add new.txt && git branch sneaky",
    );
    assert_eq!(g.code, 3, "{}", g.stderr);
    assert!(g.has("index", "sub: new.txt"), "{:#}", g.json);
    assert!(g.has("refs", "sub: refs/heads/sneaky"), "{:#}", g.json);
}

#[test]
fn an_edit_inside_a_nested_repository_is_caught() {
    let repo = TempRepo::new();
    let inner = repo.path().join("vendor/inner");
    std::fs::create_dir_all(&inner).unwrap();
    let run = |script: &str| {
        let ok = std::process::Command::new("sh")
            .args(["-c", script])
            .current_dir(&inner)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", repo.home())
            .status()
            .unwrap()
            .success();
        assert!(ok, "{script}");
    };
    run(&format!(
        "git init -q && echo inner > file.txt && git add file.txt && {GIT} commit -q -m inner"
    ));
    guard(&repo, &["true"], &[]).assert_empty();
    let g = sh(&repo, "echo edited >> vendor/inner/file.txt");
    assert_eq!(g.code, 3, "{}", g.stderr);
    assert!(g.has("status", "vendor/inner: file.txt"), "{:#}", g.json);
}

#[test]
fn read_only_git_commands_with_a_submodule_are_not_a_change() {
    let (repo, _sub) = with_submodule();
    // Let the submodule's index settle once, as a person's first `git status` would.
    repo.git(&["status"]);
    sh(
        &repo,
        "git status >/dev/null && git diff && git log >/dev/null && git show >/dev/null && git -C sub status >/dev/null && git submodule status >/dev/null",
    )
    .assert_empty();
}

// ---- the git directory, whole ----

macro_rules! git_dir_change {
    ($($name:ident: $script:literal => $subject:literal;)*) => {$(
        #[test]
        fn $name() {
            let repo = TempRepo::new();
            let g = sh(&repo, $script);
            assert_eq!(g.code, 3, "{}", g.stderr);
            assert!(g.has("git_metadata", $subject), "no git_metadata change for {}: {:#}", $subject, g.json);
        }
    )*};
}

git_dir_change! {
    a_rebase_exec_line_is_caught: "mkdir -p .git/rebase-merge && echo 'exec sh -c evil' > .git/rebase-merge/git-rebase-todo" => "rebase-merge/git-rebase-todo";
    a_merge_message_is_caught: "echo 'sneaky message' > .git/MERGE_MSG" => "MERGE_MSG";
    a_squash_message_is_caught: "echo 'sneaky' > .git/SQUASH_MSG" => "SQUASH_MSG";
    a_bisect_log_is_caught: "echo 'git bisect start' > .git/BISECT_LOG" => "BISECT_LOG";
    a_reflog_edit_is_caught: "echo forged >> .git/logs/HEAD" => "logs/HEAD";
    a_legacy_remote_is_caught: "mkdir -p .git/remotes .git/branches && echo 'URL: /tmp/evil' > .git/remotes/upstream && echo /tmp/evil > .git/branches/upstream" => "branches/upstream";
    a_commit_graph_is_caught: "mkdir -p .git/objects/info && echo forged > .git/objects/info/commit-graph" => "objects/info/commit-graph";
    a_new_packs_list_is_caught: "mkdir -p .git/objects/info && echo 'P pack-x.pack' > .git/objects/info/packs" => "objects/info/packs";
}

#[test]
fn a_linked_worktree_config_and_index_are_caught() {
    let repo = TempRepo::new();
    let wt = repo.scratch("wt");
    repo.git(&["worktree", "add", "-q", &wt.display().to_string()]);
    let g = sh(
        &repo,
        "id=$(ls .git/worktrees) && printf '[core]\\n\\tfsmonitor = /tmp/evil\\n' > .git/worktrees/$id/config.worktree",
    );
    assert_eq!(g.code, 3, "{}", g.stderr);
    assert!(g.has("git_metadata", "config.worktree"), "{:#}", g.json);
    let g = guard(
        &repo,
        &[
            "sh",
            "-c",
            &format!(
                "cd {} && echo x > staged.txt && git add staged.txt",
                wt.display()
            ),
        ],
        &[],
    );
    assert_eq!(g.code, 3, "{}", g.stderr);
    assert!(g.has("git_metadata", "/index"), "{:#}", g.json);
}

#[test]
fn a_submodule_head_in_the_modules_directory_is_caught() {
    let (repo, _sub) = with_submodule();
    // Detached at the same commit: nothing changes in the superproject's status.
    let g = sh(
        &repo,
        "git -C sub rev-parse HEAD > h && mv h .git/modules/sub/HEAD",
    );
    assert_eq!(g.code, 3, "{}", g.stderr);
    assert!(g.has("git_metadata", "modules/sub/HEAD"), "{:#}", g.json);
}

#[test]
fn a_forged_peeled_line_in_packed_refs_is_caught() {
    let repo = TempRepo::new();
    repo.git(&["tag", "-a", "-m", "annotated", "v1"]);
    repo.git(&["pack-refs", "--all"]);
    let g = sh(
        &repo,
        "sed 's/^\\^.*/^0000000000000000000000000000000000000001/' .git/packed-refs > p && cat p > .git/packed-refs && rm p",
    );
    assert_eq!(g.code, 3, "{}", g.stderr);
    assert!(g.has("refs", "(packed-refs)"), "{:#}", g.json);
}

#[test]
fn a_forged_cache_tree_extension_is_an_index_change() {
    let repo = TempRepo::new();
    repo.write("docs/a.md", "one\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "docs"]);
    repo.write("docs/a.md", "two\n");
    repo.git(&["commit", "-q", "-am", "docs two"]);
    repo.git(&["status"]);
    // Rewrite the index so its cache-tree says `docs` is the older tree, entries untouched.
    let old_docs = repo.git(&["rev-parse", "HEAD~1:docs"]);
    let new_docs = repo.git(&["rev-parse", "HEAD:docs"]);
    let (old_docs, new_docs) = (old_docs.trim(), new_docs.trim());
    let index = repo.path().join(".git/index");
    let forged = repo.scratch("forged-index");
    forge_cache_tree(&index, &forged, new_docs, old_docs);
    let g = guard(
        &repo,
        &["cp", &forged.display().to_string(), ".git/index"],
        &[],
    );
    assert_eq!(g.code, 3, "{}", g.stderr);
    assert!(g.has("index", "extension TREE"), "{:#}", g.json);
    assert!(!g.has("status", ""), "entries are untouched: {:#}", g.json);
}

/// Copy the index at `from` to `to` with the tree id `old` replaced by `new` in its cache-tree
/// extension, and the trailing checksum recomputed (so git reads it as valid).
fn forge_cache_tree(from: &Path, to: &Path, old: &str, new: &str) {
    use sha1_smol_like::sha1;
    let mut bytes = std::fs::read(from).unwrap();
    let hex = |s: &str| -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    };
    let (old, new) = (hex(old), hex(new));
    let body_len = bytes.len() - 20;
    let tree = bytes[..body_len]
        .windows(4)
        .rposition(|w| w == b"TREE")
        .expect("a cache-tree extension");
    let at = bytes[tree..body_len]
        .windows(20)
        .position(|w| w == old.as_slice())
        .expect("the docs tree id in the cache-tree")
        + tree;
    bytes[at..at + 20].copy_from_slice(&new);
    let sum = sha1(&bytes[..body_len]);
    bytes[body_len..].copy_from_slice(&sum);
    std::fs::write(to, bytes).unwrap();
}

/// SHA-1 through `git hash-object` would add a header; `sha1sum` gives the raw digest.
mod sha1_smol_like {
    pub(super) fn sha1(data: &[u8]) -> Vec<u8> {
        use std::io::Write;
        let mut child = std::process::Command::new("sha1sum")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("sha1sum");
        child.stdin.take().unwrap().write_all(data).unwrap();
        let out = child.wait_with_output().unwrap();
        let hex = String::from_utf8(out.stdout).unwrap();
        (0..40)
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
            .collect()
    }
}

#[test]
fn a_loose_object_rewritten_in_place_is_caught() {
    let repo = TempRepo::new();
    let blob = repo.git(&["rev-parse", "HEAD:README.md"]);
    let blob = blob.trim();
    let path = format!(".git/objects/{}/{}", &blob[..2], &blob[2..]);
    // In place: same inode, same directory entry (the fan-out directory's stat is unchanged).
    let g = sh(
        &repo,
        &format!(
            "chmod u+w {path} && printf 'x' | dd of={path} bs=1 seek=3 conv=notrunc 2>/dev/null"
        ),
    );
    assert_eq!(g.code, 3, "{}", g.stderr);
    assert!(
        g.has("git_metadata", &format!("objects/{}/", &blob[..2])),
        "{:#}",
        g.json
    );
}

// ---- config ----

#[test]
fn an_included_config_file_is_followed() {
    let repo = TempRepo::new();
    let inc = repo.scratch("included.inc");
    std::fs::write(&inc, "[user]\n\tname = Person\n").unwrap();
    repo.git(&["config", "include.path", &inc.display().to_string()]);
    let g = guard(
        &repo,
        &[
            "sh",
            "-c",
            &format!(
                "printf '[core]\\n\\tfsmonitor = /tmp/evil\\n' >> {}",
                inc.display()
            ),
        ],
        &[],
    );
    assert_eq!(g.code, 3, "{}", g.stderr);
    assert!(
        g.has("user_config", "included.inc: core.fsmonitor"),
        "{:#}",
        g.json
    );
}

#[test]
fn an_include_if_target_is_followed() {
    let repo = TempRepo::new();
    let inc = repo.scratch("cond.inc");
    std::fs::write(&inc, "[user]\n\tname = Person\n").unwrap();
    repo.git(&[
        "config",
        "includeIf.gitdir:/never/.path",
        &inc.display().to_string(),
    ]);
    let g = guard(
        &repo,
        &[
            "sh",
            "-c",
            &format!("printf '[core]\\n\\tpager = evil\\n' >> {}", inc.display()),
        ],
        &[],
    );
    assert_eq!(g.code, 3, "{}", g.stderr);
    assert!(g.has("user_config", "cond.inc"), "{:#}", g.json);
}

#[test]
fn a_symlinked_user_config_is_compared_by_its_target() {
    let repo = TempRepo::new();
    let dotfiles = repo.scratch("dotfiles");
    std::fs::create_dir_all(&dotfiles).unwrap();
    std::fs::write(dotfiles.join("gitconfig"), "[user]\n\tname = P\n").unwrap();
    std::os::unix::fs::symlink(dotfiles.join("gitconfig"), repo.home().join(".gitconfig")).unwrap();
    let g = guard(
        &repo,
        &[
            "sh",
            "-c",
            &format!(
                "printf '[core]\\n\\thooksPath = /tmp/evil\\n' >> {}/gitconfig",
                dotfiles.display()
            ),
        ],
        &[],
    );
    assert_eq!(g.code, 3, "{}", g.stderr);
    assert!(
        g.has("user_config", ".gitconfig: core.hookspath"),
        "{:#}",
        g.json
    );
}

#[test]
fn the_system_config_is_read() {
    let repo = TempRepo::new();
    let system = repo.scratch("system-gitconfig");
    std::fs::write(&system, "[core]\n\tautocrlf = false\n").unwrap();
    let g = guard(
        &repo,
        &[
            "sh",
            "-c",
            &format!(
                "printf '[core]\\n\\tfsmonitor = /tmp/evil\\n' >> {}",
                system.display()
            ),
        ],
        &[("GIT_CONFIG_SYSTEM", &system)],
    );
    assert_eq!(g.code, 3, "{}", g.stderr);
    assert!(
        g.has("user_config", "system-gitconfig: core.fsmonitor"),
        "{:#}",
        g.json
    );
}

// ---- hooks ----

#[test]
fn a_hook_in_a_subdirectory_of_the_hooks_directory_is_caught() {
    let repo = TempRepo::new();
    let g = sh(
        &repo,
        "mkdir -p .git/hooks/pre-commit.d && echo 'evil' > .git/hooks/pre-commit.d/run",
    );
    assert_eq!(g.code, 3, "{}", g.stderr);
    assert!(g.has("hooks", "hooks/pre-commit.d/run"), "{:#}", g.json);
}

#[test]
fn a_symlinked_hooks_target_edit_is_caught() {
    let repo = TempRepo::new();
    let target = repo.scratch("hook-target");
    std::fs::write(&target, "#!/bin/sh\nexit 0\n").unwrap();
    std::os::unix::fs::symlink(&target, repo.path().join(".git/hooks/pre-commit")).unwrap();
    let g = guard(
        &repo,
        &["sh", "-c", &format!("echo evil >> {}", target.display())],
        &[],
    );
    assert_eq!(g.code, 3, "{}", g.stderr);
    assert!(g.has("hooks", "hooks/pre-commit"), "{:#}", g.json);
}

#[test]
fn a_hooks_directory_swapped_for_a_link_to_a_world_writable_directory_is_caught() {
    let repo = TempRepo::new();
    let open = repo.scratch("open-hooks");
    std::fs::create_dir_all(&open).unwrap();
    let g = sh(
        &repo,
        &format!(
            "chmod 0777 {0} && cp -R .git/hooks/. {0}/ && rm -rf .git/hooks && ln -s {0} .git/hooks",
            open.display()
        ),
    );
    assert_eq!(g.code, 3, "{}", g.stderr);
    let c = g.find("hooks", ".git/hooks");
    assert!(c["detail"].as_str().unwrap().contains("symlink"), "{c:#}");
}

#[test]
fn a_changed_hooks_path_with_a_hook_planted_in_dot_git_hooks_names_the_hook() {
    let repo = TempRepo::new();
    let other = repo.scratch("other-hooks");
    std::fs::create_dir_all(&other).unwrap();
    let g = sh(
        &repo,
        &format!(
            "git config core.hooksPath {} && printf '#!/bin/sh\\n' > .git/hooks/pre-commit",
            other.display()
        ),
    );
    assert_eq!(g.code, 3, "{}", g.stderr);
    assert_eq!(g.find("hooks", ".git/hooks/pre-commit")["op"], "+");
    assert!(
        !g.changes()
            .iter()
            .any(|c| c["op"] == "-" && c["subject"].as_str().unwrap().ends_with(".sample")),
        "the samples are still there: {:#}",
        g.json
    );
}
