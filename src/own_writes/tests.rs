use std::os::unix::fs::{PermissionsExt, symlink};

use super::*;

/// A worktree with a `.git` directory laid out as git's, and a directory outside it.
fn worktree() -> (tempfile::TempDir, tempfile::TempDir, Beneath) {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    for d in [
        ".git/objects",
        ".git/refs",
        ".git/info",
        ".git/hooks",
        "docs",
    ] {
        std::fs::create_dir_all(root.join(d)).unwrap();
    }
    std::fs::write(root.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    let beneath = Beneath::new(&root, &root.join(".git"));
    (dir, outside, beneath)
}

fn write(b: &Beneath, rel: &str) -> Result<(), Refusal> {
    b.check(Path::new(rel))?;
    let place = b.place(Path::new(rel), true)?;
    place
        .write(b"doc\n", Mode::Document, (None, None), || {})
        .map_err(|e| Refusal::Io(place.path.clone(), e))
}

#[test]
fn a_link_in_any_component_is_refused_and_nothing_lands_where_it_points() {
    let (dir, outside, b) = worktree();
    symlink(outside.path(), dir.path().join("docs/interviews")).unwrap();
    let err = write(&b, "docs/interviews/intent-7.md").unwrap_err();
    assert!(matches!(err, Refusal::Link(_)), "{err}");
    assert!(err.to_string().contains("docs/interviews"), "{err}");
    symlink(outside.path(), dir.path().join("k")).unwrap();
    assert!(matches!(
        write(&b, "k/authorized_keys"),
        Err(Refusal::Link(_))
    ));
    // The last component too, even when it points inside the worktree.
    std::fs::write(dir.path().join("docs/real.md"), "x").unwrap();
    symlink("real.md", dir.path().join("docs/linked.md")).unwrap();
    assert!(matches!(write(&b, "docs/linked.md"), Err(Refusal::Link(_))));
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
}

#[test]
fn a_git_directory_in_any_spelling_is_refused() {
    let (dir, _outside, b) = worktree();
    for rel in [
        ".git/info/attributes",
        ".git/hooks/pre-commit",
        ".GIT/hooks/pre-commit",
        "sub/.Git/config",
    ] {
        let err = write(&b, rel).unwrap_err();
        assert!(matches!(err, Refusal::GitDir(_)), "{rel}: {err}");
    }
    // A git directory under another name (a `.git` file's `gitdir:` target).
    for d in ["store/objects", "store/refs"] {
        std::fs::create_dir_all(dir.path().join(d)).unwrap();
    }
    std::fs::write(dir.path().join("store/HEAD"), "ref: refs/heads/main\n").unwrap();
    assert!(matches!(
        write(&b, "store/hooks/post-checkout"),
        Err(Refusal::GitDir(_))
    ));
    assert!(!dir.path().join(".git/info/attributes").exists());
}

#[test]
fn a_document_never_gets_an_exec_bit() {
    let (dir, _outside, b) = worktree();
    let path = dir.path().join("docs/run.md");
    std::fs::write(&path, "#!/bin/sh\n").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o4755)).unwrap();
    write(&b, "docs/run.md").unwrap();
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o644, "{mode:o}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "doc\n");
}

#[test]
fn a_file_on_the_way_a_directory_or_proc_is_refused_before_writing() {
    let (dir, _outside, b) = worktree();
    std::fs::write(dir.path().join("README.md"), "x").unwrap();
    assert!(matches!(
        b.check(Path::new("README.md/x.md")),
        Err(Refusal::NotADirectory(_))
    ));
    assert!(matches!(
        b.check(Path::new("docs")),
        Err(Refusal::IsDirectory)
    ));
    assert!(matches!(b.check(Path::new("docs/new/deeper/x.md")), Ok(())));
    assert!(
        !dir.path().join("docs/new").exists(),
        "a check makes nothing"
    );
    if Path::new("/proc/self").exists() {
        assert!(matches!(
            b.probe(Path::new("/proc/x.md")),
            Err(Refusal::Unwritable(..))
        ));
    }
}

#[test]
fn an_absolute_path_outside_is_the_person_s_but_never_into_a_git_directory() {
    let (_dir, outside, b) = worktree();
    let there = outside.path().join("notes/x.md");
    write(&b, there.to_str().unwrap()).unwrap();
    assert_eq!(std::fs::read_to_string(&there).unwrap(), "doc\n");
    let other = outside.path().join("other");
    for d in ["objects", "refs"] {
        std::fs::create_dir_all(other.join(".git").join(d)).unwrap();
    }
    let hook = other.join(".git/hooks/pre-commit");
    assert!(matches!(
        write(&b, hook.to_str().unwrap()),
        Err(Refusal::GitDir(_))
    ));
}

#[test]
fn the_exclude_line_is_added_once_and_never_through_a_link() {
    let (dir, outside, b) = worktree();
    let _ = b;
    let git = dir.path().join(".git");
    let covered = |l: &str| l == "/x/";
    add_exclude_line(&git, "# x", "/x/", covered).unwrap();
    add_exclude_line(&git, "# x", "/x/", covered).unwrap();
    assert_eq!(
        std::fs::read_to_string(git.join("info/exclude")).unwrap(),
        "# x\n/x/\n"
    );
    std::fs::remove_dir_all(git.join("info")).unwrap();
    symlink(outside.path(), git.join("info")).unwrap();
    assert!(matches!(
        add_exclude_line(&git, "# x", "/x/", covered),
        Err(Refusal::Link(_))
    ));
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
}

#[test]
fn a_path_through_the_person_s_link_to_the_worktree_still_follows_no_link_inside_it() {
    let (dir, outside, b) = worktree();
    let ssh = tempfile::tempdir().unwrap();
    symlink(ssh.path(), dir.path().join("k")).unwrap();
    symlink(dir.path(), outside.path().join("repo")).unwrap();
    let through = outside.path().join("repo/k/authorized_keys");
    assert!(matches!(
        write(&b, through.to_str().unwrap()),
        Err(Refusal::Link(_))
    ));
    assert_eq!(std::fs::read_dir(ssh.path()).unwrap().count(), 0);
    let fine = outside.path().join("repo/docs/x.md");
    write(&b, fine.to_str().unwrap()).unwrap();
    assert!(dir.path().join("docs/x.md").is_file());
}
