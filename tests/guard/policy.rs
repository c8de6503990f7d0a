//! `interview guard`'s policy and pass-through: the command's exit code, `warn`, a violation's
//! exit 3 and report, and a refreshed index stat cache that is no change.

use super::*;

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
