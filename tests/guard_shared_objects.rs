//! Issue 37: `git clone /local/path` hard-links the object store with its source. A clone made
//! and removed elsewhere during a turn moves the shared files' link count and ctime and nothing
//! else: the turn ends normally, with the sandbox on and off. A real change of an object file's
//! content (size, mtime and mode put back), mode or name is still reported.

use std::process::Stdio;

use crate::guard::guard;
use crate::util::*;

const NO_ANSWERS: &str = r#"{ "interview_answers": 1 }"#;

/// A repository whose objects are in a pack and loose (a commit after the repack).
fn packed_and_loose() -> TempRepo {
    let repo = TempRepo::new();
    repo.git(&["repack", "-adq"]);
    repo.write("src/more.rs", "pub fn more() {}\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "a loose commit"]);
    repo
}

/// The files of `objects/pack/` whose name ends in `ext`.
fn packs(repo: &TempRepo, ext: &str) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(repo.path().join(".git/objects/pack"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(ext))
        .collect()
}

/// A turn (the runner waits for the test) during which the test clones the repository beside it
/// with `git clone /local/path` (hard links) and removes the clone again.
fn a_turn_during_which_a_local_clone_comes_and_goes(sandbox: bool) {
    let repo = packed_and_loose();
    let pack = packs(&repo, ".pack").remove(0);
    let links = || std::os::unix::fs::MetadataExt::nlink(&std::fs::metadata(&pack).unwrap());
    // The tool's note of the running runner says the turn has begun.
    // In a directory of its own: HOME (the scratch directory) is shown to a sandboxed runner by
    // allow list, and a file a variable names that does not exist yet is shown by its directory.
    let go = repo.scratch("signals/go");
    std::fs::create_dir_all(go.parent().unwrap()).unwrap();
    let interview = Interview::of_work_item(&repo)
        .runner("waits-for-go-quietly.sh")
        .answers(NO_ANSWERS)
        .yes()
        .runner_env("TEST_GO", &go);
    let interview = if sandbox {
        interview
    } else {
        interview.without_sandbox()
    };
    let run = interview
        .command()
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the interview");
    let sessions = repo.path().join(".interview/sessions");
    wait_until(WAIT, "the runner's turn", || {
        std::fs::read_dir(&sessions)
            .into_iter()
            .flatten()
            .flatten()
            .any(|s| s.path().join("turns/001/runner.pid").exists())
    });
    let clone = repo.scratch("clone");
    let from = repo.path().display().to_string();
    repo.git(&["clone", "-q", &from, &clone.display().to_string()]);
    assert_eq!(links(), 2, "the clone shares the pack (a hard link)");
    std::fs::remove_dir_all(&clone).unwrap();
    std::fs::write(&go, "").unwrap();
    let out = finish_within(run, WAIT, "the interview");
    assert_eq!(
        out.status.code(),
        Some(0),
        "a shared object store is no change: {}",
        stderr(&out)
    );
}

#[test]
fn a_local_clone_made_and_removed_during_a_turn_is_no_change_without_the_sandbox() {
    a_turn_during_which_a_local_clone_comes_and_goes(false);
}

#[cfg(target_os = "linux")]
#[test]
fn a_local_clone_made_and_removed_during_a_turn_is_no_change_in_the_sandbox() {
    if !prerequisite(crate::sandbox::offer().landlock, "Landlock (the sandbox)") {
        return;
    }
    a_turn_during_which_a_local_clone_comes_and_goes(true);
}

/// Overwrite one byte in the middle of FILE, then put its mode and mtime back (`sh` script; the
/// copy that keeps them is made outside the repository, so no directory changes).
const EDIT_IN_PLACE: &str = r#"f="$1"; r=$(mktemp); cp -p "$f" "$r"; chmod u+w "$f"
printf 'X' | dd of="$f" bs=1 seek=$(( $(wc -c < "$f") / 2 )) conv=notrunc 2>/dev/null
chmod --reference="$r" "$f"; touch -r "$r" "$f"; rm "$r""#;

#[test]
fn a_pack_edited_in_place_with_size_mtime_and_mode_put_back_is_still_reported() {
    let repo = packed_and_loose();
    let pack = packs(&repo, ".pack").remove(0);
    let name = pack.file_name().unwrap().to_string_lossy().into_owned();
    let g = guard(
        &repo,
        &[
            "sh",
            "-c",
            EDIT_IN_PLACE,
            "edit",
            &pack.display().to_string(),
        ],
        &[],
    );
    assert_eq!(g.code, 3, "{:#}", g.json);
    assert!(g.has("git_metadata", &name), "{:#}", g.json);
}

#[test]
fn a_loose_object_edited_in_place_is_still_reported() {
    let repo = packed_and_loose();
    let head = repo.git(&["rev-parse", "HEAD"]);
    let head = head.trim();
    let object = format!(".git/objects/{}/{}", &head[..2], &head[2..]);
    let g = guard(
        &repo,
        &[
            "sh",
            "-c",
            EDIT_IN_PLACE,
            "edit",
            &repo.path().join(&object).display().to_string(),
        ],
        &[],
    );
    assert_eq!(g.code, 3, "{:#}", g.json);
    assert!(
        g.has("git_metadata", &format!("objects/{}", &head[..2])),
        "{:#}",
        g.json
    );
}

#[test]
fn a_pack_whose_mode_changed_is_still_reported() {
    let repo = packed_and_loose();
    let pack = packs(&repo, ".idx").remove(0);
    let name = pack.file_name().unwrap().to_string_lossy().into_owned();
    let g = guard(&repo, &["chmod", "666", &pack.display().to_string()], &[]);
    assert_eq!(g.code, 3, "{:#}", g.json);
    assert!(g.has("git_metadata", &name), "{:#}", g.json);
}
