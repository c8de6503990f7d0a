//! The built-in intent interviewer names HEAD's version as `git describe` does (issue 39,
//! twenty-fourth pass): the tag of the project's series nearest HEAD in its history — fewest
//! commits behind, not the highest version, nor the nearest along a merged branch's path.

use crate::interviewer::{all_questions, assert_honest, question, repo_with};
use crate::interviewer_devset::{REHASH, REHASH_BUG, commit_tagged_at};

#[test]
fn head_is_the_code_after_the_nearest_tag_of_its_series_not_the_highest_version() {
    let (repo, subject) = repo_with(&[("libexec/tool-rehash", REHASH)], REHASH_BUG);
    // A snapshot's date reads as a higher version than the alpha tagged after it.
    commit_tagged_at(&repo, "2021-01-21T12:00:00Z", "v3-snapshot-2021-01-21");
    commit_tagged_at(&repo, "2021-03-01T12:00:00Z", "3.0.0-alpha.8");
    repo.write("README.md", "# tool\n\nafter the alpha\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "after the alpha"]);
    let (first, d) = all_questions(&repo, &subject);
    let head = question(&first, "reproduces_on_head");
    assert!(
        head.question_text.contains("the code after 3.0.0-alpha.8"),
        "{}",
        head.question_text
    );
    assert_honest(&repo, &d);
}

#[test]
fn a_tag_near_up_a_merged_branch_is_not_nearer_than_the_one_fewer_commits_behind() {
    let (repo, subject) = repo_with(&[("libexec/tool-rehash", REHASH)], REHASH_BUG);
    repo.git(&["checkout", "-q", "-b", "side"]);
    repo.write("SIDE.md", "# side\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "side"]);
    repo.git(&["tag", "v2.0.0-beta.1"]);
    repo.git(&["checkout", "-q", "main"]);
    commit_tagged_at(&repo, "2021-01-03T12:00:00Z", "v0.9.9");
    for (n, date) in ["2021-01-04", "2021-01-05", "2021-01-06"]
        .iter()
        .enumerate()
    {
        repo.write("NOTES.md", &format!("# notes\n\n{n}\n"));
        repo.git(&["add", "-A"]);
        repo.git(&["commit", "-q", "-m", date]);
    }
    commit_tagged_at(&repo, "2021-01-07T12:00:00Z", "v1.0.0");
    repo.write("NOTES.md", "# notes\n\nafter 1.0.0\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "after 1.0.0"]);
    repo.git(&["merge", "-q", "--no-edit", "side"]);
    // v2.0.0-beta.1 is one commit up the merged branch, yet most of HEAD's history is not in
    // its; v1.0.0 lacks only the commit after it, the branch's and the merge.
    let describe = repo.git(&["describe", "--tags", "--abbrev=0"]);
    assert_eq!(describe.trim(), "v1.0.0");
    let (first, d) = all_questions(&repo, &subject);
    let head = question(&first, "reproduces_on_head");
    assert!(
        head.question_text.contains("the code after v1.0.0"),
        "{}",
        head.question_text
    );
    assert_honest(&repo, &d);
}
