//! The guard over what is not content, with the sandbox off: permission bits (setuid included)
//! and owners of tracked files, worktree directories and the git directory; new empty
//! directories in the git directory; git's system config where this machine's git reads it;
//! case-only renames; and Finder's `.DS_Store`, which is only a runner's change when git does
//! not ignore it. Each through `interview guard -- CMD` and, for the modes, an interview.

use std::path::{Path, PathBuf};

use crate::guard::{Guarded, guard};
use crate::util::{Interview, TempRepo};

/// `sh -c SCRIPT` under the guard.
fn sh(repo: &TempRepo, script: &str) -> Guarded {
    guard(repo, &["sh", "-c", script], &[])
}

/// The change in `category` whose subject is exactly `subject`.
fn exactly<'g>(g: &'g Guarded, category: &str, subject: &str) -> &'g serde_json::Value {
    g.changes()
        .iter()
        .find(|c| c["category"] == category && c["subject"] == subject)
        .unwrap_or_else(|| panic!("no {category} change for {subject}: {:#}", g.json))
}

fn detail(c: &serde_json::Value) -> &str {
    c["detail"].as_str().unwrap_or("")
}

/// The permission bits of `rel` now (what the umask gave it).
fn mode(repo: &TempRepo, rel: &str) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::symlink_metadata(repo.path().join(rel))
        .unwrap()
        .permissions()
        .mode()
        & 0o7777
}

// ---- permission bits and owners ----

macro_rules! git_dir_chmod_is_a_change {
    ($($name:ident: $path:literal => $subject:literal;)*) => {$(
        #[test]
        fn $name() {
            let repo = TempRepo::new();
            let g = sh(&repo, concat!("chmod 777 ", $path));
            assert_eq!(g.code, 3, "{}", g.stderr);
            let c = exactly(&g, "git_metadata", $subject);
            assert!(detail(c).contains("→ 0777"), "{c:#}");
        }
    )*};
}

git_dir_chmod_is_a_change! {
    the_git_directory_opened_to_everyone_is_a_change: ".git" => ".";
    the_object_store_opened_to_everyone_is_a_change: ".git/objects" => "objects/";
    the_refs_directory_opened_to_everyone_is_a_change: ".git/refs" => "refs/";
    a_refs_subdirectory_opened_to_everyone_is_a_change: ".git/refs/heads" => "refs/heads/";
    the_pack_directory_opened_to_everyone_is_a_change: ".git/objects/pack" => "objects/pack/";
}

#[test]
fn a_non_exec_mode_change_of_a_tracked_file_is_a_change() {
    let repo = TempRepo::new();
    let usual = mode(&repo, "README.md");
    let g = sh(&repo, "chmod 666 README.md");
    assert_eq!(g.code, 3, "{}", g.stderr);
    let c = exactly(&g, "status", "README.md");
    assert_eq!(
        detail(c),
        format!("permissions {usual:04o} → 0666"),
        "{c:#}"
    );
    // And back: the file recorded as unusual before is usual again.
    let g = sh(&repo, &format!("chmod {usual:o} README.md"));
    assert_eq!(
        detail(exactly(&g, "status", "README.md")),
        format!("permissions 0666 → {usual:04o}")
    );
}

#[test]
fn a_setuid_or_setgid_bit_on_a_tracked_file_is_a_change() {
    let repo = TempRepo::new();
    std::fs::set_permissions(
        repo.path().join("src/lib.rs"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    repo.git(&["add", "src/lib.rs"]);
    repo.git(&["commit", "-q", "-m", "exec"]);
    let g = sh(&repo, "chmod u+s src/lib.rs");
    assert_eq!(g.code, 3, "{}", g.stderr);
    assert_eq!(
        detail(exactly(&g, "status", "src/lib.rs")),
        "permissions 0755 → 4755"
    );
    let usual = mode(&repo, "README.md");
    let g = sh(&repo, "chmod g+s README.md");
    assert_eq!(g.code, 3, "{}", g.stderr);
    assert_eq!(
        detail(exactly(&g, "status", "README.md")),
        format!("permissions {usual:04o} → {:04o}", usual | 0o2000)
    );
}

#[test]
fn a_worktree_directory_mode_change_is_a_change() {
    let repo = TempRepo::new();
    repo.write("docs/deep/note.md", "n\n");
    repo.git(&["add", "docs"]);
    repo.git(&["commit", "-q", "-m", "docs"]);
    let usual = mode(&repo, "src");
    let g = sh(&repo, "chmod 777 src && chmod 1777 docs/deep");
    assert_eq!(g.code, 3, "{}", g.stderr);
    assert_eq!(
        detail(exactly(&g, "status", "src")),
        format!("permissions {usual:04o} → 0777")
    );
    assert_eq!(
        detail(exactly(&g, "status", "docs/deep")),
        format!("permissions {usual:04o} → 1777")
    );
    // The worktree root itself.
    let g = sh(&repo, "chmod 777 .");
    assert!(
        detail(exactly(&g, "status", ".")).contains("→ 0777"),
        "{:#}",
        g.json
    );
}

#[test]
fn an_untracked_files_mode_change_is_a_change() {
    let repo = TempRepo::new();
    repo.write("notes.txt", "mine\n");
    let usual = mode(&repo, "notes.txt");
    let g = sh(&repo, "chmod 600 notes.txt");
    assert_eq!(g.code, 3, "{}", g.stderr);
    assert_eq!(
        detail(exactly(&g, "status", "notes.txt")),
        format!("permissions {usual:04o} → 0600")
    );
}

#[test]
fn read_only_commands_and_usual_modes_are_not_a_change() {
    let repo = TempRepo::new();
    repo.write("notes.txt", "mine\n");
    // A file with unusual bits before the command stays unusual: no change.
    std::fs::set_permissions(
        repo.path().join("README.md"),
        std::os::unix::fs::PermissionsExt::from_mode(0o600),
    )
    .unwrap();
    sh(
        &repo,
        "git status >/dev/null && git log >/dev/null && git diff >/dev/null && ls -la .git >/dev/null",
    )
    .assert_empty();
    // A new file and directory with the usual modes are told as usual (untracked), no more.
    let g = sh(&repo, "mkdir fresh && echo x > fresh/new.txt");
    assert_eq!(g.code, 3);
    assert!(
        !g.changes()
            .iter()
            .any(|c| detail(c).contains("permissions")),
        "{:#}",
        g.json
    );
}

/// Owners can only be changed by root: run as root, this must hold.
#[test]
fn an_owner_change_of_a_tracked_file_a_directory_an_ignored_one_or_the_git_directory_is_a_change() {
    assert!(
        nix::unistd::geteuid().is_root(),
        "this test changes owners (chown): run the guard tests as root"
    );
    let repo = TempRepo::new();
    repo.write(".gitignore", "target/\n");
    repo.write("target/debug/app", "binary\n");
    let g = sh(
        &repo,
        "chown 65534:65534 README.md src target/debug && chown -R 65534 .git/objects",
    );
    assert_eq!(g.code, 3, "{}", g.stderr);
    assert_eq!(
        detail(exactly(&g, "status", "README.md")),
        "owner 0:0 → 65534:65534"
    );
    assert!(detail(exactly(&g, "status", "src")).contains("owner 0:0 → 65534:65534"));
    assert!(detail(exactly(&g, "git_metadata", "objects/")).contains("owner 0:0 → 65534:0"));
    // An ignored directory's times are not recorded; its owner is.
    assert_eq!(
        detail(exactly(&g, "ignored", "target/debug")),
        "owner changed"
    );
}

// ---- new directories in the git directory ----

#[test]
fn new_empty_directories_in_the_git_directory_are_changes() {
    for dir in [
        "rr-cache",
        "rebase-merge",
        "rebase-apply",
        "sequencer",
        "anything-new",
        "refs/evil",
        "info/sub",
    ] {
        let repo = TempRepo::new();
        std::fs::create_dir_all(repo.path().join(".git/info")).unwrap();
        let g = sh(&repo, &format!("mkdir .git/{dir}"));
        assert_eq!(g.code, 3, "{dir}: {}", g.stderr);
        let c = exactly(&g, "git_metadata", &format!("{dir}/"));
        assert_eq!(c["op"], "+", "{dir}: {c:#}");
        assert!(detail(c).starts_with("dir "), "{dir}: {c:#}");
    }
}

// ---- an interview with the sandbox off ----

#[test]
fn an_interview_without_the_sandbox_reports_mode_and_directory_changes() {
    let repo = TempRepo::new();
    let usual = mode(&repo, "src/lib.rs");
    let out = Interview::of_work_item(&repo)
        .runner("runs-script.sh")
        .without_sandbox()
        .runner_env(
            "RUNNER_SCRIPT",
            "chmod 777 .git .git/objects src && chmod 666 README.md && chmod u+s src/lib.rs && mkdir .git/rr-cache",
        )
        .answers(r#"{ "interview_answers": 1 }"#)
        .yes()
        .run()
        .exits(3);
    let report = repo.session_json("turns/001/guard.json")["report"].to_string();
    for needle in [
        r#""subject":".""#.to_string(),
        r#""subject":"objects/""#.to_string(),
        r#""subject":"rr-cache/""#.to_string(),
        r#""subject":"src""#.to_string(),
        format!("permissions {:04o} → 0666", usual),
        format!("permissions {:04o} → {:04o}", usual, usual | 0o4000),
    ] {
        assert!(
            report.contains(&needle),
            "{needle}: {report}\n{}",
            out.stderr
        );
    }
}

// ---- git's system config where git reads it ----

/// A stand-in `git` in the scratch directory, first on `PATH`, that says its system config is
/// `system` (as `git var GIT_CONFIG_SYSTEM` does); returns that `PATH`.
fn git_reading_system_config_at(repo: &TempRepo, system: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let bin = repo.scratch("fake-git-bin");
    std::fs::create_dir_all(&bin).unwrap();
    let git = bin.join("git");
    std::fs::write(
        &git,
        format!(
            "#!/bin/sh\n[ \"$1 $2\" = 'var GIT_CONFIG_SYSTEM' ] && echo '{}' && exit 0\nexit 129\n",
            system.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&git, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs = vec![bin];
    dirs.extend(std::env::split_paths(&path));
    PathBuf::from(std::env::join_paths(dirs).unwrap())
}

#[test]
fn a_planted_fsmonitor_in_the_system_config_git_was_built_to_read_is_reported() {
    let repo = TempRepo::new();
    let system = repo.scratch("prefix/etc/gitconfig");
    std::fs::create_dir_all(system.parent().unwrap()).unwrap();
    std::fs::write(&system, "[credential]\n\thelper = cache\n").unwrap();
    let path = git_reading_system_config_at(&repo, &system);
    let script = format!(
        "printf '[core]\\n\\tfsmonitor = /tmp/evil\\n' >> '{}'",
        system.display()
    );
    let g = guard(&repo, &["sh", "-c", &script], &[("PATH", &path)]);
    assert_eq!(g.code, 3, "{}", g.stderr);
    assert!(
        g.has("user_config", "prefix/etc/gitconfig: core.fsmonitor"),
        "{:#}",
        g.json
    );
}

#[test]
fn a_system_config_created_where_git_reads_it_is_reported() {
    let repo = TempRepo::new();
    let system = repo.scratch("prefix/etc/gitconfig");
    std::fs::create_dir_all(system.parent().unwrap()).unwrap();
    let path = git_reading_system_config_at(&repo, &system);
    let script = format!(
        "printf '[core]\\n\\tfsmonitor = /tmp/evil\\n' > '{}'",
        system.display()
    );
    let g = guard(&repo, &["sh", "-c", &script], &[("PATH", &path)]);
    assert_eq!(g.code, 3, "{}", g.stderr);
    assert_eq!(g.find("user_config", "prefix/etc/gitconfig")["op"], "+");
}

// ---- case-only renames and .DS_Store ----

#[test]
fn a_case_only_rename_names_the_tracked_file() {
    let repo = TempRepo::new();
    let g = sh(&repo, "mv README.md readme.md && mv src SRC");
    assert_eq!(g.code, 3, "{}", g.stderr);
    assert!(
        detail(exactly(&g, "status", "readme.md")).contains("renamed from README.md (case only)"),
        "{:#}",
        g.json
    );
    assert!(
        detail(exactly(&g, "status", "SRC")).contains("renamed from src (case only)"),
        "{:#}",
        g.json
    );
}

#[test]
fn an_ignored_ds_store_appearing_or_changing_is_not_a_change() {
    let repo = TempRepo::new();
    repo.write(".gitignore", ".DS_Store\nbuild/\n");
    repo.git(&["add", ".gitignore"]);
    repo.git(&["commit", "-q", "-m", "ignore"]);
    repo.write("build/.DS_Store", "old\n");
    sh(
        &repo,
        "printf 'finder' > .DS_Store && printf x > src/.DS_Store && printf new > build/.DS_Store",
    )
    .assert_empty();
}

#[test]
fn a_ds_store_ignored_by_the_global_excludes_file_is_not_a_change() {
    let repo = TempRepo::new();
    std::fs::write(repo.home().join(".gitignore_global"), ".DS_Store\n").unwrap();
    std::fs::write(
        repo.home().join(".gitconfig"),
        "[core]\n\texcludesFile = ~/.gitignore_global\n",
    )
    .unwrap();
    sh(&repo, "printf finder > .DS_Store").assert_empty();
}

#[test]
fn a_ds_store_git_does_not_ignore_is_a_change() {
    let repo = TempRepo::new();
    let g = sh(&repo, "printf finder > .DS_Store");
    assert_eq!(g.code, 3, "{}", g.stderr);
    assert_eq!(exactly(&g, "status", ".DS_Store")["op"], "+");
}

#[test]
fn an_ignored_ds_store_that_is_not_a_plain_file_is_a_change() {
    let repo = TempRepo::new();
    repo.write(".gitignore", ".DS_Store\n");
    repo.git(&["add", ".gitignore"]);
    repo.git(&["commit", "-q", "-m", "ignore"]);
    let g = sh(&repo, "ln -s /etc/passwd .DS_Store");
    assert_eq!(g.code, 3, "{}", g.stderr);
    assert!(g.has("ignored", ".DS_Store"), "{:#}", g.json);
}

// ---- where this machine's gits read their system config, remembered ----

/// A path as the memo of the gits writes it: hex digits.
fn hex(p: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    p.as_os_str()
        .as_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn where_a_git_reads_its_system_config_is_remembered_for_that_very_git_file() {
    use std::os::unix::fs::PermissionsExt;
    let repo = TempRepo::new();
    let g = guard(&repo, &["true"], &[]);
    assert_eq!(g.code, 0, "{}", g.stderr);
    let memo = repo.path().join(".interview/guard-gits");
    let text = std::fs::read_to_string(&memo).unwrap();
    let mode = std::fs::metadata(&memo).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "{mode:o}");
    // The real git on PATH is kept by its real path and the answer it gave.
    let lines: Vec<&str> = text.lines().skip(2).collect();
    assert!(!lines.is_empty(), "{text}");
    // Another answer for the same git files: the next run takes it without asking them, and
    // watches the file it names.
    let system = repo.scratch("remembered/etc/gitconfig");
    std::fs::create_dir_all(system.parent().unwrap()).unwrap();
    std::fs::write(&system, "[user]\n\tname = x\n").unwrap();
    let mut planted: Vec<String> = text.lines().take(2).map(String::from).collect();
    for line in &lines {
        let (kept, _) = line.rsplit_once(' ').unwrap();
        planted.push(format!("{kept} {}", hex(&system)));
    }
    std::fs::write(&memo, planted.join("\n") + "\n").unwrap();
    let script = format!(
        "printf '[core]\\n\\tfsmonitor = /tmp/evil\\n' >> '{}'",
        system.display()
    );
    let g = guard(&repo, &["sh", "-c", &script], &[]);
    assert_eq!(g.code, 3, "{}", g.stderr);
    assert!(
        g.has("user_config", "remembered/etc/gitconfig: core.fsmonitor"),
        "{:#}",
        g.json
    );
}
