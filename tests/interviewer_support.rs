//! The built-in intent interviewer reads the kind from structure, several cues agreeing, and a
//! question about how to use what exists as support (issue 39, twenty-third pass): a report
//! that questions what happens now is a bug, a word of the title is no bug against a body that
//! proposes something, and "do I use X or Y?" is asked the existing way — never a feature's
//! acceptance criteria. Each on a small repository and an item of the same class as the tuning
//! pool's, not the real issue.

use crate::interviewer::{
    all_questions, assert_honest, assert_kind, assert_not_asked, question, repo_with, topic_list,
};

const ERRORS_GO: &str = "package cli\n\n// ExitCode returns the exit code the application ends with.\nfunc (e *ExitError) ExitCode() int {\n\treturn e.exitCode\n}\n\n// ExitError carries an exit code.\ntype ExitError struct {\n\texitCode int\n}\n";

#[test]
fn a_report_that_questions_what_happens_now_is_a_bug_asked_whether_it_is_intended() {
    let (repo, subject) = repo_with(
        &[("errors.go", ERRORS_GO)],
        "# exit status of an unknown flag\n\ncurrently an unknown command ends with exit code 3; \
         an unknown flag ends with exit code 0?\n\nThe flag parser should agree with the command \
         parser.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    assert_kind(
        &d,
        "Read as a bug report: it reads as a report (what happens now questioned, an exit code",
    );
    let topics = topic_list(&first);
    assert!(!topics.contains(&"acceptance_criteria"), "{topics:?}");
    let q = question(&first, "support");
    assert!(
        q.question_text
            .starts_with("Line 3 questions what happens now: \"currently an unknown command"),
        "{}",
        q.question_text
    );
    assert_honest(&repo, &d);
}

#[test]
fn a_statement_that_questions_a_warning_is_asked_intended_or_a_bug_not_a_specification() {
    let (repo, subject) = repo_with(
        &[(
            "src/Checks.hs",
            "module Checks where\n\n-- | Warn about expressions in single quotes.\ncheckSingleQuotes = ()\n",
        )],
        "# SC1000: a little too eager?\n\n```\nIn setup.sh line 5:\necho '$HOME' >> out\n     \
         ^-- SC1000: Expressions don't expand in single quotes.\n```\n\nI don't think the tool \
         should warn in this case. I use single quotes because I don't want it expanded.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    assert_kind(
        &d,
        "Read as a bug report: it reads as a report (what happens now questioned, a \
             diagnostic shown",
    );
    let q = question(&first, "support");
    assert!(
        q.question_text.starts_with(
            "Line 9 questions what happens now: \"I don't think the tool should warn in this \
             case\". Intended"
        ),
        "{}",
        q.question_text
    );
    assert_not_asked(
        &first,
        &[
            "acceptance_criteria",
            "first_bad_version",
            "regression_test",
        ],
    );
    assert_honest(&repo, &d);
}

#[test]
fn a_word_of_the_title_is_no_bug_against_a_body_that_proposes_something() {
    let (repo, subject) = repo_with(
        &[(
            "src/config.kt",
            "package cfg\n\n/** Loads the configuration file. */\nfun loadConfig() {}\n",
        )],
        "# Fail early when the configuration has incorrect entries\n\nThis would have caught a \
         typo in a rule's name early, and users would be told to adjust their files when rules \
         are renamed.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    assert_kind(&d, "Read as a feature request");
    assert_not_asked(
        &first,
        &["reproduces_on_head", "first_bad_version", "exact_steps"],
    );
    assert_honest(&repo, &d);
}

const GLOBAL_SH: &str = "#!/usr/bin/env bash\n# Summary: Set or show the global version\n#\n# Usage: tool global <version>\n\necho \"$1\" > \"${TOOL_ROOT}/version\"\n";
const LOCAL_SH: &str = "#!/usr/bin/env bash\n# Summary: Set or show the local version of this directory\n#\n# Usage: tool local <version>\n\necho \"$1\" > .tool-version\n";

#[test]
fn do_i_use_x_or_y_is_support_asked_the_existing_way_not_acceptance_criteria() {
    let (repo, subject) = repo_with(
        &[
            ("libexec/tool-global", GLOBAL_SH),
            ("libexec/tool-local", LOCAL_SH),
        ],
        "# Global or local\n\nIf I want a specific version in all my shells, do I use global \
         or local?\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    assert_kind(
        &d,
        "Read as a question about how to use what exists: it asks",
    );
    let q = question(&first, "support");
    assert!(
        q.question_text.starts_with("Line 3 asks for help"),
        "{}",
        q.question_text
    );
    assert_not_asked(&first, &["acceptance_criteria", "audience"]);
    assert_honest(&repo, &d);
}

#[test]
fn a_title_asking_how_to_is_the_support_question_of_an_item_whose_body_asks_none() {
    let (repo, subject) = repo_with(
        &[(
            "src/Option.java",
            "package app;\n\n/** The value used when the option is absent. */\npublic @interface Option {\n    String defaultValue() default \"\";\n}\n",
        )],
        "# How to give a default when the environment variable is unset?\n\nOne option reads \
         `${env:DIR}`. I would also like a fixed value when the variable is not set.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    assert_kind(
        &d,
        "Read as a question about how to use what exists: it asks",
    );
    let q = question(&first, "support");
    assert!(
        q.question_text
            .starts_with("The title asks for help: \"How to give a default"),
        "{}",
        q.question_text
    );
    assert!(!topic_list(&first).contains(&"acceptance_criteria"));
    assert_honest(&repo, &d);
}

/// A manual with a section named as the usage question names what it asks (twenty-fourth pass).
const MANUAL_ADOC: &str = "= Tool User Manual\n\n== Options\n\nOptions are fields.\n\n== Default Values\n\nAn option may have a default value, `${VAR:-DEFAULT}`.\n\n=== Default Values in Groups\n\nGroups too.\n";
const TOUR_MD: &str = "# A tour\n\n## Default values\n\nAssign the field.\n";

#[test]
fn a_usage_question_is_asked_the_manuals_section_its_title_names_whole() {
    let files = [
        ("docs/manual.adoc", MANUAL_ADOC),
        ("docs/tour.md", TOUR_MD),
        (
            "src/Option.java",
            "package app;\n\n/** A command line option. */\npublic @interface Option {\n}\n",
        ),
    ];
    let (repo, subject) = repo_with(
        &files,
        "# How to specify default value if not in environment?\n\nOne option reads \
         `${env:DIR}`. I would also like a fixed one when the variable is not set.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let q = question(&first, "existing_way");
    assert_eq!(
        q.question_text,
        "The documentation has a section named by what the title asks: docs/manual.adoc:7, \
         \"Default Values\". Is that the way (then: should the docs point to it), or what does \
         it lack?"
    );
    // The section found, where it should be documented is no question.
    assert!(!topic_list(&first).contains(&"doc_location"));
    assert_honest(&repo, &d);
    // The heading's words scattered through the question name no section.
    let (repo, subject) = repo_with(
        &files,
        "# How to specify a value by default if not in environment?\n\nOne option reads \
         `${env:DIR}`. I would also like a fixed one when the variable is not set.\n",
    );
    let (first, _) = all_questions(&repo, &subject);
    assert!(!topic_list(&first).contains(&"existing_way"));
}

/// A report whose reporter asks whether it is intended ("Is this expected behavior?", "I don't
/// think the tool should …") is asked that; whether it still reproduces on HEAD is not its open
/// point (thirty-second pass): the maintainers answer it intended or not, whatever the version.
#[test]
fn a_report_asked_whether_it_is_intended_is_not_asked_whether_it_reproduces_on_head() {
    let items = [
        "# Odd help when no command is given\n\nI have this code:\n\n```python\nimport tool\n\n\
         tool.run()\n```\n\nWhen I run `python app.py --help` I get:\n\n```\nUsage: app.py\n       \
         app.py tool\n```\n\nIs this expected behavior?\n",
        "# W100: a little too eager?\n\n```\nIn setup.sh line 5:\necho '$HOME' >> out\n     \
         ^-- W100: Expressions don't expand in single quotes.\n```\n\nI don't think the tool \
         should warn in this case. I use single quotes because I don't want it expanded.\n",
    ];
    for item in items {
        let (repo, subject) = repo_with(
            &[
                (
                    "pyproject.toml",
                    "[project]\nname = \"tool\"\nversion = \"0.4.1\"\n",
                ),
                (
                    "tool/core.py",
                    "def run(component=None):\n    \"\"\"Run the component.\"\"\"\n    return component\n",
                ),
            ],
            item,
        );
        let (first, d) = all_questions(&repo, &subject);
        question(&first, "support");
        assert_not_asked(&first, &["reproduces_on_head", "first_bad_version"]);
        assert_honest(&repo, &d);
    }
}

/// Asking whether it is intended in its other phrasings ("Is this by design?", "I want to make
/// sure this is intentional", "not sure if this is intended", "Was this deliberate?", "Is this
/// on purpose?") raises the support question the same way, and no HEAD question (thirty-third
/// pass).
#[test]
fn asking_whether_it_is_intended_in_any_phrasing_raises_the_support_question() {
    let doubts = [
        "Is this by design?",
        "I want to make sure this is intentional before I work around it.",
        "I'm not sure if this is intended.",
        "Was this deliberate?",
        "Is this on purpose?",
    ];
    for doubt in doubts {
        let item = format!(
            "# Empty default turns into null\n\nWhen I run `python app.py --name=` the name \
             is `None`, not an empty string.\n\n{doubt}\n"
        );
        let (repo, subject) = repo_with(
            &[(
                "tool/core.py",
                "def parse_name(value=None):\n    \"\"\"Parse the name.\"\"\"\n    return value\n",
            )],
            &item,
        );
        let (first, d) = all_questions(&repo, &subject);
        let q = question(&first, "support");
        assert!(
            q.question_text.contains(doubt.trim_end_matches(['.', '?'])),
            "{doubt}: {}",
            q.question_text
        );
        assert_not_asked(&first, &["reproduces_on_head"]);
        assert_honest(&repo, &d);
    }
}

/// A report that asks the way ("How do I enable it?") and shows a terminal session and a
/// version keeps its HEAD question: the maintainer can try the session on HEAD, and a way that
/// fails there may be that version's bug (thirty-third pass).
#[test]
fn a_report_asking_the_way_with_a_session_and_a_version_is_still_asked_about_head() {
    let (repo, subject) = repo_with(
        &[
            (
                "pyproject.toml",
                "[project]\nname = \"tool\"\nversion = \"0.4.1\"\n",
            ),
            (
                "tool/echo.py",
                "def echo_input(line):\n    \"\"\"Echo the line read.\"\"\"\n    return line\n",
            ),
        ],
        "# Input from a here document not echoed\n\nWith tool 0.3.0 the input is not shown:\n\n\
         ```\n$ tool <<EOF\nversion\nEOF\n> \n```\n\nWith the old reader it was shown. How do I \
         enable showing it?\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    question(&first, "support");
    question(&first, "reproduces_on_head");
    assert_honest(&repo, &d);
}

const COLOR_RS: &str = "/// When to colour the output: `always`, `never` or `auto`.\npub enum ColorChoice {\n    Always,\n    Never,\n    Auto,\n}\n";

#[test]
fn a_question_about_behaviour_that_worked_before_is_asked_whether_the_change_was_meant() {
    let (repo, subject) = repo_with(
        &[("src/color.rs", COLOR_RS)],
        "# `--color never` prints colours\n\n```\n$ tool --color never notes.txt\n\
         \u{1b}[31mnotes\u{1b}[0m\n```\n\nIt worked in 2.1.0 and since upgrading to 2.2.0 the \
         colours are back. Is this intended?\n",
    );
    repo.git(&["tag", "v2.1.0"]);
    repo.write("CHANGELOG.md", "# 2.2.0\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "2.2.0"]);
    repo.git(&["tag", "v2.2.0"]);
    repo.write("CHANGELOG.md", "# 2.2.0\n\n# Unreleased\n");
    repo.git(&["commit", "-q", "-am", "after 2.2.0"]);
    let (first, d) = all_questions(&repo, &subject);
    let q = question(&first, "support");
    // The version it names, and the decision a change of behaviour asks: meant, or a regression.
    assert!(
        q.question_text
            .contains("says it worked before (in 2.1.0): was the change since then")
            && q.question_text.contains("or a regression to fix?")
            && !q.question_text.contains("not supported yet"),
        "{}",
        q.question_text
    );
    // Whether HEAD (after 2.2.0) still does it stays asked.
    assert!(
        topic_list(&first).contains(&"reproduces_on_head"),
        "{:?}",
        topic_list(&first)
    );
    assert_honest(&repo, &d);
    // "I was used to" another tool's command is a habit, not a version that worked.
    let (repo, subject) = repo_with(
        &[("src/color.rs", COLOR_RS)],
        "# Colours by default\n\nWith my old tool I was used to `--colour`. How do I turn colours \
         off for good?\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let q = question(&first, "support");
    assert!(
        !q.question_text.contains("worked before"),
        "{}",
        q.question_text
    );
    assert_honest(&repo, &d);
}

#[test]
fn the_question_whether_a_change_was_meant_is_asked_however_far_down_its_sentences_stand() {
    // Two-digit line numbers and a long quote leave the question's own words less room: the
    // quote is cut, or left out, never the question.
    let config = (1..=12)
        .map(|i| format!("  entry_{i}: value_{i}\n"))
        .collect::<String>();
    let (repo, subject) = repo_with(
        &[("src/color.rs", COLOR_RS)],
        &format!(
            "# Optional colour with a default rejected (post beta.3)\n\n```yaml\n{config}```\n\n\
             Not sure if I'm doing it wrong, but this worked before the latest beta.3 release \
             and now the configuration above fails to load with an error about the colour \
             entry.\n\nI want to make sure this is intentional before I rewrite all of my \
             configuration files around it.\n"
        ),
    );
    let (first, d) = all_questions(&repo, &subject);
    let q = question(&first, "support");
    assert!(
        q.question_text.contains("worked before") && q.question_text.contains("regression"),
        "{}",
        q.question_text
    );
    assert_honest(&repo, &d);
}

/// Asking whether one missed the way ("Do I miss something?") or whether it is a bug at all
/// ("I wonder whether it is supposed to work this way?") raises the support question, and the
/// version questions make way for it (thirty-eighth pass).
#[test]
fn asking_whether_one_missed_something_or_it_is_a_bug_raises_the_support_question() {
    let doubts = [
        "Do i miss something?",
        "The guide has no such case, so I wonder whether it is supposed to work this way?",
        "Not sure whether this is a bug?",
    ];
    for doubt in doubts {
        let item = format!(
            "# Required value is never checked\n\nI declare `--name` with `mode=REQUIRED` and run \
             `python app.py` without it: no error, `name` is `None`.\n\n{doubt}\n"
        );
        let (repo, subject) = repo_with(
            &[(
                "tool/core.py",
                "def parse_name(value=None):\n    \"\"\"Parse the name.\"\"\"\n    return value\n",
            )],
            &item,
        );
        let (first, d) = all_questions(&repo, &subject);
        question(&first, "support");
        assert_not_asked(&first, &["reproduces_on_head", "first_bad_version"]);
        assert_honest(&repo, &d);
    }
}

// A report of a behaviour (fifty-first pass): the sentence that says what happens, or what the
// reporter expected, is put to the maintainer as "intended, or a bug?" — before whether HEAD
// still does it, never beside the project's own message asked so, never of a crash.

const PARSER_JS: &str = "// Parses the command line into options.\nfunction parse(argv) {\n  return { options: {} };\n}\n\nmodule.exports = { parse };\n";

#[test]
fn a_sentence_that_says_what_happens_is_asked_intended_or_a_bug_first() {
    let (repo, subject) = repo_with(
        &[("src/parser.js", PARSER_JS)],
        "# Dashed negated options\n\n```sh\n$ node cli.js --no-dry-run\n{ \"dry-run\": true, \
         \"dryRun\": false }\n```\n\nThe `\"dry-run\": true` key is always there.\n\nVersion: \
         2.1.0\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let q = question(&first, "intended_behaviour");
    assert!(
        q.question_text
            .starts_with("Line 8 says: \"The `\"dry-run\": true` key is always there\". Intended"),
        "{}",
        q.question_text
    );
    let topics = topic_list(&first);
    let at = |t: &str| topics.iter().position(|x| *x == t);
    if let Some(head) = at("reproduces_on_head") {
        assert!(at("intended_behaviour") < Some(head), "{topics:?}");
    }
    assert_honest(&repo, &d);
}

#[test]
fn a_sentence_that_says_what_was_expected_is_asked_whether_what_happens_is_intended() {
    let (repo, subject) = repo_with(
        &[("src/parser.js", PARSER_JS)],
        "# A required option with a default is an error when left out\n\nI declared a required \
         option `--level` with a default of 3. When I leave it out the parser exits with an \
         error. With a default, I shouldn't have to give the option at all.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let q = question(&first, "intended_behaviour");
    assert!(
        q.question_text
            .starts_with("Line 3 expects: \"With a default, I shouldn't have to give the option"),
        "{}",
        q.question_text
    );
    assert_honest(&repo, &d);
}

#[test]
fn a_crash_a_fragment_or_a_proposed_fix_is_not_asked_intended_or_a_bug() {
    let not_asked = |files: &[(&str, &str)], item: &str| {
        let (repo, subject) = repo_with(files, item);
        let (first, _) = all_questions(&repo, &subject);
        assert!(
            !topic_list(&first).contains(&"intended_behaviour"),
            "{:?}",
            topic_list(&first)
        );
    };
    // A crash: where it dies is asked, not whether it is meant.
    not_asked(
        &[("src/parser.js", PARSER_JS)],
        "# Crash on an empty value\n\nThe parser always dies on `--name=`:\n\n```\nTypeError: \
         Cannot read properties of undefined (reading 'length')\n    at parse \
         (src/parser.js:3:10)\n```\n",
    );
    // A fragment after a code block names no subject of its own.
    not_asked(
        &[("src/parser.js", PARSER_JS)],
        "# Wrong output\n\n```sh\n$ node cli.js --level 3\n```\n\nis printed incorrectly \
         as:\n\n```\nlevel: \"3\"\n```\n",
    );
    // The reporter's own fix has taken it for a bug.
    not_asked(
        &[("src/parser.js", PARSER_JS)],
        "# Dashed keys\n\nThe `dry-run` key is always there after `--no-dry-run`.\n\nPerhaps \
         `parse` should drop the dashed key.\n",
    );
}
