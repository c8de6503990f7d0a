//! The built-in intent interviewer on a repository larger than its bounds (docs/interviews.md,
//! "What the built-in interviewer reads"): when the search stops at a bound, a name it did not
//! find is said to be in none of the files read — never "nowhere in the repository", which only
//! a whole search can show.

use crate::interviewer::{all_questions, assert_honest, repo_with};

#[test]
fn a_name_not_in_the_files_read_is_never_said_to_be_nowhere_when_the_search_stopped() {
    // One file more than the search reads (50 000), each too small to matter.
    let files: Vec<(String, String)> = (0..50_010)
        .map(|i| {
            (
                format!("data/d{:03}/f{:03}.txt", i / 200, i % 200),
                "x\n".into(),
            )
        })
        .collect();
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let (repo, subject) = repo_with(
        &files,
        "# Call `frobnicate_widget` on start\n\nThe tool should call `frobnicate_widget` \
         when it starts, as `warm_caches` does.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let said: Vec<&str> = first
        .iter()
        .map(|q| q.question_text.as_str())
        .chain(
            d.entries
                .iter()
                .flat_map(|e| [e.title.as_str(), e.content.as_str()]),
        )
        .chain([d.summary.as_str()])
        .collect();
    assert!(
        said.iter().all(|s| !s.contains("nowhere")
            && !s.contains("the repository does not have")
            && !s.contains("not found in the repository")),
        "{said:#?}"
    );
    let missing = d
        .entries
        .iter()
        .find(|e| e.title == "Named by the item, not found in the files read")
        .unwrap_or_else(|| panic!("no entry of the names not found: {:#?}", d.entries));
    assert!(
        missing.content.contains("`frobnicate_widget`")
            && missing
                .content
                .contains("in none of the 50000 files read (the search stopped after 50000 files)"),
        "{}",
        missing.content
    );
    assert!(
        d.summary.contains("(the search stopped after 50000 files)"),
        "{}",
        d.summary
    );
    assert_honest(&repo, &d);
}
