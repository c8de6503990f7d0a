//! The built-in intent interviewer asks a user's wish for a capability what its maintainers
//! settle first (issue 39, thirtieth pass): whether the project already gives it another way,
//! wants it, welcomes it as a contribution, or leaves it out — not acceptance criteria the
//! wish already shows ("it would be nice if …", an example of the wanted use). A work item
//! that states nothing of what should happen is still asked them. Each on a small repository
//! and an item of the same class as the tuning pool's, not the real issue.

use crate::interviewer::{all_questions, assert_honest, assert_not_asked, question, repo_with};

const LIB_PY: &str = "\"\"\"A tiny command line library.\"\"\"\n\n\ndef run(argv):\n    \
                      \"\"\"Run the program with argv.\"\"\"\n    return 0\n";

#[test]
fn a_wish_with_its_wanted_use_is_asked_whether_it_is_wanted_not_acceptance_criteria() {
    for item in [
        "# Colour themes\n\nIt would be nice if the output could use a colour theme, e.g.\n\n\
         ```\nmytool --theme dark\n```\n",
        "# [FEATURE] Tab completion\n\nI'd like the shell to complete subcommand names when I \
         press tab.\n",
        "# Request: a --quiet flag\n\nWhat about adding a flag that prints nothing but errors?\n",
    ] {
        let (repo, subject) = repo_with(&[("lib.py", LIB_PY)], item);
        let (first, d) = all_questions(&repo, &subject);
        assert_not_asked(&first, &["acceptance_criteria", "error_handling"]);
        let q = question(&first, "wanted");
        assert!(
            q.question_text.contains("Already possible another way")
                && q.question_text.contains('"'),
            "{}",
            q.question_text
        );
        assert!(
            q.question_text.chars().count() <= 200,
            "{}",
            q.question_text
        );
        assert_honest(&repo, &d);
    }
}

#[test]
fn a_work_item_that_states_nothing_of_what_should_happen_is_still_asked_acceptance_criteria() {
    let (repo, subject) = repo_with(
        &[("lib.py", LIB_PY)],
        "# Report archive\n\nWe need an archive of old reports.\n",
    );
    let (first, _) = all_questions(&repo, &subject);
    question(&first, "acceptance_criteria");
    assert_not_asked(&first, &["wanted"]);
}
