//! Nothing from the repository is executed: planted hooks, fsmonitor, filters, pagers and
//! helpers never run (a marker program shows it).

use super::*;

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
