//! The built-in intent interviewer asks a user's wish for a capability what its maintainers
//! settle first (issue 39, thirtieth pass): whether the project already gives it another way,
//! wants it, welcomes it as a contribution, or leaves it out — not acceptance criteria the
//! wish already shows ("it would be nice if …", an example of the wanted use). A work item
//! that states nothing of what should happen is still asked them. A feature request that wishes
//! in no sentence is asked the same of its title, or whether what the project already has gives
//! it (thirty-sixth pass). Each on a small repository and an item of the same class as the
//! tuning pool's, not the real issue.

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
/// The project's own work item ("We need …") has decided it is wanted: what must be true for it
/// to count as done stays the question.
fn a_work_item_that_states_nothing_of_what_should_happen_is_still_asked_acceptance_criteria() {
    for item in [
        "# Report archive\n\nWe need an archive of old reports.\n",
        "# Report archive\n\nAdd an archive so old reports can be found again.\n",
    ] {
        let (repo, subject) = repo_with(&[("lib.py", LIB_PY)], item);
        let (first, _) = all_questions(&repo, &subject);
        question(&first, "acceptance_criteria");
        assert_not_asked(&first, &["wanted"]);
    }
}

#[test]
fn a_feature_request_that_wishes_in_no_sentence_is_asked_whether_its_title_is_wanted() {
    for item in [
        "# Stop early when the settings file has unknown keys\n\nThis would have caught my typo \
         at once. Comments should be skipped while checking.\n",
        "# Add a command that sets the tool up in an existing folder\n\nThere is no way to add \
         the tool to a folder that already has files. I had to copy what `mytool new` writes.\n",
    ] {
        let (repo, subject) = repo_with(&[("lib.py", LIB_PY)], item);
        let (first, d) = all_questions(&repo, &subject);
        assert_not_asked(&first, &["acceptance_criteria"]);
        let q = question(&first, "wanted");
        assert!(
            q.question_text.starts_with("The title asks for: \"")
                && q.question_text.contains("Already possible another way"),
            "{}",
            q.question_text
        );
        assert_honest(&repo, &d);
    }
}

/// A tiny command line program with one option that nearly does what a request asks.
const APP_RS: &str = concat!(
    "fn app() {\n",
    "    App::new(\"tool\")\n",
    "        .arg(\n",
    "            Arg::with_name(\"pager\")\n",
    "                .long(\"pager\")\n",
    "                .takes_value(true)\n",
    "                .help(\"Determine which pager to use.\"),\n",
    "        )\n",
    "}\n",
);
const APP_README: &str = "# Tool\n\n## Using a different pager\n\nSet `--pager`.\n";

#[test]
fn a_feature_request_whose_title_an_existing_option_gives_is_asked_about_that_option() {
    let (repo, subject) = repo_with(
        &[("src/app.rs", APP_RS), ("README.md", APP_README)],
        "# Use a different pager for the output\n\nThe output always goes through less, which \
         I find too slow on my machine.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let q = question(&first, "existing_way");
    assert!(
        q.question_text.starts_with("`--pager` (src/app.rs:5")
            && q.question_text.contains("Enough for what the title wants"),
        "{}",
        q.question_text
    );
    // The grounded question takes the generic one's place.
    assert_not_asked(&first, &["acceptance_criteria", "wanted"]);
    assert_honest(&repo, &d);
}

/// A title that tells what goes wrong ("… causes the option to drop its value", "… isn't
/// filled") asks for nothing: it is asked whether that is intended or a bug, never quoted back
/// as a wish (thirty-eighth pass). A title that asks for something keeps the wish question.
#[test]
fn a_title_that_tells_what_goes_wrong_is_asked_intended_or_a_bug_not_whether_it_is_wanted() {
    for item in [
        "# Declaring a --no-level variant causes --level to drop its value\n\nDeclaring both \
         `--level <n>` and `--no-level` causes the option to always be boolean.\n",
        "# The list of paths isn't filled after parsing\n\nDeclaring the paths list and \
         parsing leaves the list empty.\n",
    ] {
        let (repo, subject) = repo_with(&[("lib.py", LIB_PY)], item);
        let (first, d) = all_questions(&repo, &subject);
        let q = question(&first, "title_fault");
        assert!(
            q.question_text
                .starts_with("The title tells what happens now: \"")
                && q.question_text.contains("or a bug to fix?"),
            "{}",
            q.question_text
        );
        assert_not_asked(&first, &["wanted", "acceptance_criteria"]);
        assert_honest(&repo, &d);
    }
    // An imperative title that names what is wrong still asks for something.
    let (repo, subject) = repo_with(
        &[("lib.py", LIB_PY)],
        "# Stop early when the settings file has incorrect keys\n\nThis would have caught my \
         typo at once.\n",
    );
    let (first, _) = all_questions(&repo, &subject);
    question(&first, "wanted");
    assert_not_asked(&first, &["title_fault"]);
}

/// A title that asks whether the project can do something, asked again in the body, is not
/// quoted back a second time: the wish question asks what it leaves open (thirty-eighth pass).
#[test]
fn a_title_that_asks_a_question_is_asked_whether_it_is_possible_without_quoting_it_back() {
    let (repo, subject) = repo_with(
        &[("lib.py", LIB_PY)],
        "# Can the parser take repeated options?\n\nLike `tool -I a -I b`. Can the parser \
         take the same option more than once?\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let q = question(&first, "wanted");
    assert!(
        q.question_text
            .starts_with("The title asks, as line 3 does, whether the project does this.")
            && !q.question_text.contains('"'),
        "{}",
        q.question_text
    );
    assert_honest(&repo, &d);
}

/// A small library whose function's name spells a generic word of the wish short (`arg`).
const PARSER_PY: &str = "\"\"\"Parses a command line.\"\"\"\n\n\ndef keep_empty_arg(name):\n    \
                         \"\"\"Keeps an empty argument instead of dropping it.\"\"\"\n    \
                         return name\n\n\ndef parse(argv):\n    \"\"\"Parse argv.\"\"\"\n    \
                         return argv\n";

/// A name made of the wish's words, one of them generic and spelled short in the name
/// (`keep_empty_arg()` for "keep an empty argument"), is the existing way (thirty-ninth pass).
#[test]
fn a_name_spelling_a_generic_word_of_the_wish_short_is_the_existing_way() {
    let (repo, subject) = repo_with(
        &[("mylib/parser.py", PARSER_PY)],
        "# Empty arguments disappear\n\nIt would be nice to keep an empty argument instead of \
         losing it when the line is split.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let q = question(&first, "existing_way");
    assert!(
        q.question_text
            .contains("`keep_empty_arg()` (mylib/parser.py:4"),
        "{}",
        q.question_text
    );
    assert_honest(&repo, &d);
}

/// A wish put as a question ("any chance we could add …?", "Would it be possible to …?", "Are
/// there plans to …?") or forward ("I suggest …", "Consider adding …") is asked whether it is
/// wanted, quoting that sentence, even under a title of one word (fiftieth pass).
#[test]
fn a_wish_asked_as_a_question_or_put_forward_is_asked_whether_it_is_wanted() {
    for (item, quoted) in [
        (
            "# plugins\n\nthanks for a small library with a sane api.\nany chance we could add \
             plugins?\n",
            "any chance we could add plugins",
        ),
        (
            "# Quiet output\n\nI suggest a mode that prints only the errors, for scripts.\n",
            "I suggest a mode that prints only the errors",
        ),
        (
            "# Colour themes\n\nConsider adding colour themes to the report output.\n",
            "Consider adding colour themes",
        ),
    ] {
        let (repo, subject) = repo_with(&[("lib.py", LIB_PY)], item);
        let (first, d) = all_questions(&repo, &subject);
        assert_not_asked(&first, &["acceptance_criteria", "data_format"]);
        let q = question(&first, "wanted");
        assert!(q.question_text.contains(quoted), "{}", q.question_text);
        assert_honest(&repo, &d);
    }
}

/// A wish that names code the repository has is asked about that code, and still whether the
/// project wants it: the grounded questions say how, not whether (fiftieth pass). A title that
/// opens with a verb of request ("Offer …") is asked the same, the generic question of data
/// and format is not.
#[test]
fn a_wish_that_names_existing_code_is_still_asked_whether_it_is_wanted() {
    const CLI_PY: &str = "\"\"\"The command line.\"\"\"\n\n\nclass Command:\n    \
                          \"\"\"A command of the program.\"\"\"\n\n    def run(self):\n        \
                          return 0\n";
    for (item, start) in [
        (
            "# Aliases for a Command\n\nI would like to be able to give a `Command` a second \
             name, since my users type the short one.\n",
            "Line 3 wishes: \"I would like to be able to give a `Command`",
        ),
        (
            "# Offer a way to print the help output of a `Command`\n\nToday the help output of \
             a `Command` is printed only on errors.\n",
            "The title asks for: \"Offer a way to print the help output",
        ),
    ] {
        let (repo, subject) = repo_with(&[("mylib/cli.py", CLI_PY)], item);
        let (first, d) = all_questions(&repo, &subject);
        question(&first, "follow_command");
        let q = question(&first, "wanted");
        assert!(q.question_text.starts_with(start), "{}", q.question_text);
        assert_not_asked(&first, &["data_format"]);
        assert_honest(&repo, &d);
    }
}

/// A wish that comes late in its sentence is quoted from the clause that wishes; one that ends
/// in a colon ("I would suggest:") is not quoted, its wish is in what follows (fiftieth pass).
#[test]
fn a_late_wish_is_quoted_from_its_clause_and_a_colon_is_not_quoted() {
    let (repo, subject) = repo_with(
        &[("lib.py", LIB_PY)],
        "# Positions of arguments\n\nSince it seems that nested options will never be part of \
         the plan, I suggest adding the index of each matched argument.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let q = question(&first, "wanted");
    assert!(
        q.question_text
            .starts_with("Line 3 wishes: \"…I suggest adding the index"),
        "{}",
        q.question_text
    );
    assert_honest(&repo, &d);
    // A wish said of what comes before it keeps its start.
    let (repo, subject) = repo_with(
        &[("lib.py", LIB_PY)],
        "# Literal types\n\nSupport for literal types (in the newest language version, or a \
         backport) would be nice.\n",
    );
    let (first, _) = all_questions(&repo, &subject);
    let q = question(&first, "wanted");
    assert!(
        q.question_text
            .starts_with("Line 3 wishes: \"Support for literal types"),
        "{}",
        q.question_text
    );
    let (repo, subject) = repo_with(
        &[("lib.py", LIB_PY)],
        "# Report export\n\nI would suggest:\n\n```\nmytool report --export\n```\n",
    );
    let (first, _) = all_questions(&repo, &subject);
    if let Some(q) = first.iter().find(|q| q.topic == "wanted") {
        assert!(
            !q.question_text.contains("I would suggest"),
            "{}",
            q.question_text
        );
    }
}
