//! The built-in intent interviewer reads an item's shape, not single words: a template's own
//! answers, the signs of a report that agree, and a request for help — asked what the person
//! is after, not a specification (issue 39). Each on a small repository and an item of the
//! same class as the development set's, not the real issue.

use crate::interviewer::{
    all_questions, assert_honest, assert_kind, assert_not_asked, kind_entry, message_question,
    option_values, question, repo_with, topic_list,
};

const BAR_PHP: &str = "<?php\n\nclass ProgressBar\n{\n    private $firstRun = true;\n\n    public function display()\n    {\n        $this->overwrite($this->buildLine());\n    }\n\n    public function clear()\n    {\n        $this->overwrite('');\n    }\n}\n";

#[test]
fn a_template_table_answering_bug_report_yes_is_a_bug_and_its_rows_are_not_questions() {
    let (repo, subject) = repo_with(
        &[("Helper/ProgressBar.php", BAR_PHP)],
        "# ProgressBar displays badly after clear\n\n| Q                | A\n| ---------------- | -----\n\
         | Bug report?      | yes\n| Feature request? | no\n| BC Break report? | no\n\n\
         When a bar was displayed, cleared and displayed again, `display()` rewinds the cursor \
         too far.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    assert!(
        kind_entry(&d).contains("its template answers \"Bug report?\" with yes"),
        "{}",
        kind_entry(&d)
    );
    assert!(
        !first.iter().any(|q| q.question_text.contains("| ")),
        "{:?}",
        topic_list(&first)
    );
    assert_honest(&repo, &d);
}

const REHASH_SH: &str = "#!/usr/bin/env bash\n# Summary: Rehash shims\n\nmake_shims() {\n  for file in \"$@\"; do\n    touch \"${SHIM_PATH}/${file##*/}\"\n  done\n}\n";

#[test]
fn a_terminal_session_and_what_was_tried_make_a_report_and_a_command_line_is_no_message() {
    let (repo, subject) = repo_with(
        &[("libexec/tool-rehash", REHASH_SH)],
        "# tool shims not being created\n\n`ls ~/.tool/shims` returns nothing.\n\nI have tried:\n\
         1. `tool rehash && rehash`\n2. a new shell\n\n```\n$ tool versions\n* 3.10.13 (set by \
         ~/.tool/version)\n```\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    assert_kind(&d, "Read as a bug report: it reads as a report");
    // Another command line the person typed is not a message the repository lacks.
    assert!(
        !d.entries
            .iter()
            .any(|e| e.content.contains("tool rehash && rehash") && e.content.contains("nowhere")),
        "{d:?}"
    );
    assert!(!topic_list(&first).iter().any(|t| t.starts_with("message_")));
    // A report that shows what happens is not asked what should happen instead.
    assert!(!topic_list(&first).contains(&"expected_behaviour"));
    assert_honest(&repo, &d);
}

const RUN_BASH: &str = "#!/usr/bin/env bash\n\n# Runs a command and keeps its output in $output.\nrun() {\n  output=\"$(\"$@\" 2>&1)\"\n}\n";

#[test]
fn a_request_for_help_is_asked_what_the_person_is_after_not_a_specification() {
    let (repo, subject) = repo_with(
        &[("lib/test_functions.bash", RUN_BASH)],
        "# Output from \"run\" is not shown but everything else is\n\nWhen a test fails, all of \
         its output is shown except what `run` printed. I can get around it with a loop around \
         `echo ${lines}`, but it's annoying. Is there an option I'm missing?\n",
    );
    repo.git(&["tag", "v1.0.0"]);
    repo.git(&["commit", "-q", "--allow-empty", "-m", "more"]);
    repo.git(&["tag", "v1.1.0"]);
    let (first, d) = all_questions(&repo, &subject);
    let q = question(&first, "support");
    assert!(
        q.question_text
            .starts_with("Line 3 asks for help: \"Is there an option I'm missing?\""),
        "{}",
        q.question_text
    );
    assert_eq!(
        option_values(q),
        vec!["intended", "not_supported", "bug", "need_setup"]
    );
    assert_not_asked(
        &first,
        &["expected_behaviour", "first_bad_version", "open_point_1"],
    );
    assert_honest(&repo, &d);
}

#[test]
fn a_report_that_shows_its_own_fix_in_existing_code_is_asked_to_take_it() {
    let style = "<?php\n\nclass OutputStyle\n{\n    public function createProgressBar($max)\n    {\n    }\n}\n";
    let (repo, subject) = repo_with(
        &[
            ("Helper/ProgressBar.php", BAR_PHP),
            ("Style/OutputStyle.php", style),
        ],
        "# ProgressBar displays incorrectly after clear\n\nWhen a bar was displayed, cleared and \
         displayed again, `display()` rewinds the cursor too far and overwrites two lines.\n\n\
         Perhaps `clear()` should set `$this->firstRun` back to true.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let fix = question(&first, "proposed_fix");
    assert!(
        fix.question_text.contains("Helper/ProgressBar.php:12"),
        "{}",
        fix.question_text
    );
    assert_eq!(fix.recommended.as_deref(), Some("take_fix"));
    // Not asked as an optional part to do later; the code it names grounds the round, not the
    // definitions nearest to its words.
    assert!(!topic_list(&first).contains(&"vague_maybe"));
    assert!(!topic_list(&first).contains(&"nearest_code"));
    assert_honest(&repo, &d);
}

#[test]
fn a_version_named_in_the_title_is_the_version_that_shows_it() {
    let (repo, subject) = repo_with(
        &[("Helper/ProgressBar.php", BAR_PHP)],
        "# Bug in release 1.3.0, the progress bar test is failing\n\nBuilding the project fails \
         on the progress bar's test: `display()` throws when the format is empty.\n",
    );
    repo.git(&["tag", "v1.2.0"]);
    repo.git(&["commit", "-q", "--allow-empty", "-m", "1.3.0"]);
    repo.git(&["tag", "v1.3.0"]);
    let (first, d) = all_questions(&repo, &subject);
    let topics = topic_list(&first);
    // The release HEAD is tagged: neither which version nor whether HEAD reproduces it.
    assert!(!topics.contains(&"reproduces_on_head"), "{topics:?}");
    assert!(!topics.contains(&"first_bad_version"), "{topics:?}");
    assert!(
        d.entries
            .iter()
            .any(|e| e.content.starts_with("Version: 1.3.0, stated at line 1")),
        "{:?}",
        d.entries
    );
    assert_honest(&repo, &d);
}

#[test]
fn removing_an_unused_argument_of_a_method_several_classes_define_asks_about_its_overrides() {
    let (repo, subject) = repo_with(
        &[
            (
                "lib/tool.rb",
                "class Tool\n  protected\n\n  def banner(command, namespace = nil)\n    \"#{command}\"\n  end\nend\n",
            ),
            (
                "lib/tool/group.rb",
                "class Tool::Group\n  def banner\n    \"group\"\n  end\nend\n",
            ),
            (
                "lib/tool/runner.rb",
                "class Tool::Runner\n  def self.banner(command, all = false, sub = false)\n    \"runner\"\n  end\nend\n",
            ),
            (
                "lib/tool/base.rb",
                "class Tool::Base\n  def help\n    banner(1)\n  end\nend\n",
            ),
        ],
        "# Remove unused argument in the method Tool#banner\n\n`Tool#banner` takes an argument \
         it never uses; this removes it from the method's signature and its callers.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    assert_kind(&d, "Read as a refactor");
    let api = question(&first, "public_api");
    assert!(
        api.question_text.starts_with(
            "`banner` is defined 3 times (lib/tool.rb:4, lib/tool/group.rb:2, lib/tool/runner.rb:2)"
        ),
        "{}",
        api.question_text
    );
    assert_eq!(api.recommended.as_deref(), Some("keep_compatible"));
    assert_eq!(topic_list(&first)[0], "public_api");
    assert_honest(&repo, &d);
}

const REHASH_LOCK: &str = "#!/usr/bin/env bash\nset -e\n\nif [ -e \"$PROTOTYPE_SHIM_PATH\" ]; then\n  echo \"tool: cannot rehash: $PROTOTYPE_SHIM_PATH exists\"\n  exit 1\nfi\nif [ ! -w \"$SHIM_PATH\" ]; then\n  echo \"tool: cannot rehash: $SHIM_PATH isn't writable\"\n  exit 1\nfi\n";

#[test]
fn a_message_printed_with_a_path_filled_in_is_found_by_its_fixed_part_never_nowhere() {
    let (repo, subject) = repo_with(
        &[("libexec/tool-rehash", REHASH_LOCK)],
        "# python 2.7.8 not working\n\nAt the end of the install I got: \
         `tool: cannot rehash: /Users/me/.tool/shims/.tool-shim exists`\n\nAnd then `python2.7` \
         is the system's. Am I overlooking something?\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let q = message_question(&first);
    assert!(
        q.question_text.starts_with(
            "\"tool: cannot rehash:\" (line 3) is printed on purpose at libexec/tool-rehash:5, \
             the rest filled in at run time. Intended here"
        ),
        "{}",
        q.question_text
    );
    assert!(
        !d.entries
            .iter()
            .any(|e| e.content.contains("cannot rehash") && e.content.contains("nowhere")),
        "{:?}",
        d.entries
    );
    assert_honest(&repo, &d);
}

#[test]
fn a_title_that_says_what_does_not_happen_is_not_asked_what_should_happen() {
    let pager = "/// The pager bat runs its output through.\npub fn pager() -> String {\n    std::env::var(\"PAGER\").unwrap_or_default()\n}\n";
    let (repo, subject) = repo_with(
        &[("src/output.rs", pager)],
        "# Paging doesn't work\n\nPaging isn't enabled automatically and doesn't work with \
         the paging flag set to always either.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    assert_kind(&d, "Read as a bug report");
    assert!(
        !topic_list(&first).contains(&"expected_behaviour"),
        "{:?}",
        topic_list(&first)
    );
    // A title that only names the trouble still is.
    let (repo, subject) = repo_with(
        &[("src/output.rs", pager)],
        "# Crash when paging\n\nThe tool crashes as soon as the pager starts paging.\n",
    );
    let (first, _) = all_questions(&repo, &subject);
    assert!(
        topic_list(&first).contains(&"expected_behaviour"),
        "{:?}",
        topic_list(&first)
    );
}

#[test]
fn is_it_possible_is_a_request_for_help_and_a_long_one_is_quoted_short_not_cut() {
    let (repo, subject) = repo_with(
        &[(
            "src/Options/Applicative/Extra.hs",
            "-- | A parser for the help option.\nhelper :: Parser (a -> a)\nhelper = abortOption ShowHelpText\n",
        )],
        "# Help printing command\n\nIs it possible to create a subcommand that behaves like the \
         helper, so that `myapp install help` prints what `myapp install --help` prints?\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let q = question(&first, "support");
    assert!(
        q.question_text
            .starts_with("Line 3 asks for help: \"Is it possible to create")
            && q.question_text.ends_with("not supported yet, or a bug?"),
        "{}",
        q.question_text
    );
    assert_honest(&repo, &d);
}

const COMMAND_JS: &str = "function other() {\n  return 1;\n}\n\nCommand.prototype.missingMandatoryOptionValue = function(option) {\n  const message = `error: required option '${option.flags}' not specified`;\n  console.error(message);\n  this._exit(1, message);\n};\n";

const BASE_RB: &str = "module Tool\n  module Base\n    def handle_argument_error(command, args)\n      msg = \"ERROR: \\\"#{basename} #{command.name}\\\" was called with \"\n      msg << \"no arguments\" if args.empty?\n      fail InvocationError, msg\n    end\n  end\nend\n";

#[test]
fn an_error_the_project_prints_on_purpose_is_asked_whether_this_case_should_reach_it() {
    // Printed once, as written up to the option the run filled in.
    let (repo, subject) = repo_with(
        &[("index.js", COMMAND_JS)],
        "# Help is not shown with a required option\n\nWith a required option, `-h` no longer \
         prints the help.\n\n```\n$ node test.js -h\nerror: required option '-s, --small' not \
         specified\n```\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let q = question(&first, "message_required_option");
    assert_eq!(
        q.question_text,
        "\"required option\" (line 7) is printed on purpose at index.js:6 in \
         `missingMandatoryOptionValue`. Intended here (then: what to do instead), or a bug?"
    );
    assert_eq!(option_values(q), ["intended", "bug", "unknown"]);
    assert_honest(&repo, &d);

    // Opening with a value the run filled in, and built in two pieces by the code.
    let (repo, subject) = repo_with(
        &[("lib/tool/base.rb", BASE_RB)],
        "# fix subcommand help\n\n`Parent.start(%w[child1 foo])` prints:\n\n```\nERROR: \"tool \
         child1 foo\" was called with no arguments\n```\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let q = message_question(&first);
    assert!(
        q.question_text.starts_with(
            "\"was called with\" (line 6) is printed on purpose at lib/tool/base.rb:4 in \
             `handle_argument_error`, the rest filled in at run time."
        ),
        "{}",
        q.question_text
    );
    // The value the run filled in is no message the repository lacks.
    assert!(
        !first
            .iter()
            .any(|q| q.question_text.contains("appears nowhere")),
        "{:?}",
        topic_list(&first)
    );
    assert_honest(&repo, &d);
}

#[test]
fn words_inside_code_spans_and_quotes_are_not_the_reporters_cues() {
    let (repo, subject) = repo_with(
        &[(
            "src/Lint.hs",
            "module Lint where\n\nimportHints :: [String]\nimportHints = []\n",
        )],
        "# Report unused imports once\n\nHow can I configure the linter to report each unused \
         import only once?\n\n(As an aside, the warning suggests `Data.Maybe.fromMaybe`, and the \
         log says \"maybe later, perhaps never\".)\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    assert!(
        !topic_list(&first).contains(&"vague_maybe"),
        "{:?}",
        first.iter().map(|q| &q.question_text).collect::<Vec<_>>()
    );
    assert_honest(&repo, &d);
    // The reporter's own "maybe" still is one.
    let (repo, subject) = repo_with(
        &[(
            "src/Lint.hs",
            "module Lint where\n\nimportHints :: [String]\nimportHints = []\n",
        )],
        "# Report unused imports once\n\nReport each unused import only once, maybe grouped by \
         module.\n",
    );
    let (first, _) = all_questions(&repo, &subject);
    assert!(
        topic_list(&first).contains(&"vague_maybe"),
        "{:?}",
        topic_list(&first)
    );
}

const WALK_RS: &str = "use ignore::WalkBuilder;\n\npub fn walk(root: &str) {\n    let walker = WalkBuilder::new(root).hidden(true).build();\n    for entry in walker {\n        println!(\"{:?}\", entry);\n    }\n}\n";

#[test]
fn the_design_an_item_proposes_is_asked_take_it_or_which_of_its_ways() {
    // Two ways in its "Implementation" section: which, grounded where the code uses the first.
    let (repo, subject) = repo_with(
        &[("src/walk.rs", WALK_RS)],
        "# Add --exclude option\n\nAdd an `--exclude` option that leaves matching entries out \
         of the search.\n\n# Implementation\n\nThe patterns could be handed to the `WalkBuilder` \
         through its `overrides` method. Or write them to a file and pass it to `add_ignore`.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let q = question(&first, "proposed_design");
    assert_eq!(
        q.question_text,
        "Line 7 proposes a way with `WalkBuilder`, `overrides`; line 7, a way with `add_ignore`. \
         Which way? `WalkBuilder` is used at src/walk.rs:4."
    );
    assert_eq!(option_values(q), ["first", "second", "other"]);
    assert_honest(&repo, &d);

    // Its own API, shown as code after "I would suggest:": take it, or does what exists do it?
    let (repo, subject) = repo_with(
        &[("src/walk.rs", WALK_RS)],
        "# The walking API seems inconsistent\n\nWalking with filters needs a different code \
         organization. I would suggest:\n\n```rust\nlet w = Walk::new(root).filter(f);\n```\n\n\
         Such an API would make nested filters possible.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let q = first
        .iter()
        .find(|q| q.topic.starts_with("proposed_"))
        .unwrap_or_else(|| panic!("no proposal question in {:?}", topic_list(&first)));
    assert!(
        q.question_text.starts_with(
            "Line 3 proposes the code at lines 5–7. Take it, or is it not needed (what exists \
             does it)?"
        ),
        "{}",
        q.question_text
    );
    assert_honest(&repo, &d);
}

const MESSAGES: &str =
    "# The parser's messages\ntool.MissingValueException.message = Missing value for option {0}\n";

const CHECK_RB: &str = "module Tool\n  class Option\n    def check(flag, value)\n      return value if value\n      raise MissingValue, \"missing value for #{flag}\"\n    end\n  end\nend\n";

#[test]
fn an_exceptions_message_in_any_languages_form_is_asked_whether_this_case_should_reach_it() {
    // Java's `pkg.SomeException: message`, on a line of prose, its message in a bundle and
    // that bundle's English translation: one message, printed on purpose at the base file.
    let (repo, subject) = repo_with(
        &[
            ("src/main/resources/tool/Messages.properties", MESSAGES),
            ("src/main/resources/tool/Messages_en.properties", MESSAGES),
        ],
        "# Wrong parsing of a value\n\nMy parser takes `--a` and `--b`, both with a value.\n\n\
         tool.MissingValueException: Missing value for option [b]\n\nBut `--a` is the one \
         missing its value.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let q = message_question(&first);
    assert_eq!(
        q.question_text,
        "\"Missing value for option\" (line 5) is printed on purpose at \
         src/main/resources/tool/Messages.properties:2. Intended here (then: what to do \
         instead), or a bug?"
    );
    assert_honest(&repo, &d);

    // Ruby's first frame, `x.rb:5:in 'check': message (Class)`, the flag filled in at run time.
    let (repo, subject) = repo_with(
        &[("lib/tool/option.rb", CHECK_RB)],
        "# `-n5` is not read as `-n 5`\n\n```\n$ ruby demo.rb -n5\n/gems/tool-1.0/lib/tool/\
         option.rb:5:in `check': missing value for -n (Tool::MissingValue)\n```\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let q = message_question(&first);
    assert!(
        q.question_text.starts_with(
            "\"missing value for\" (line 5) is printed on purpose at lib/tool/option.rb:5 in \
             `check`, the rest filled in at run time."
        ),
        "{}",
        q.question_text
    );
    assert_honest(&repo, &d);
}
