//! The built-in intent interviewer asks nothing on a false premise, each on a small repository that
//! reproduces a fault class a blind judge found on real issues: a configuration question where the
//! program reads no configuration file, variables picked by name rather than by the symptom.

use crate::interviewer::{
    all_questions, assert_cited_lines_exist, assert_honest, assert_not_asked, question, repo_with,
};

/// A program whose `--config-dir` is a folder of caches, not a file the person writes, and
/// whose variables are about paging, tabs and themes.
const APP_RS: &str = "use std::env;\n\npub fn args() -> clap::Command {\n    clap::Command::new(\"tool\")\n        .arg(clap::Arg::new(\"config-dir\").long(\"config-dir\").help(\"Where the theme cache lives\"))\n        .arg(clap::Arg::new(\"paging\").long(\"paging\"))\n        .arg(clap::Arg::new(\"plain\").long(\"plain\"))\n}\n\npub fn tabs() -> Option<String> {\n    env::var(\"TOOL_TABS\").ok()\n}\n\npub fn theme() -> Option<String> {\n    env::var(\"TOOL_THEME\").ok()\n}\n\npub fn pager() -> Option<String> {\n    env::var(\"TOOL_PAGER\").or_else(|_| env::var(\"PAGER\")).ok()\n}\n\npub fn cache() -> Option<String> {\n    env::var(\"XDG_CONFIG_HOME\").ok()\n}\n";

const CARGO_TOML: &str = "[package]\nname = \"tool\"\nversion = \"0.3.0\"\n";

#[test]
fn a_paging_bug_is_asked_the_paging_variables_and_no_config_file_the_program_never_reads() {
    let (repo, subject) = repo_with(
        &[("Cargo.toml", CARGO_TOML), ("src/app.rs", APP_RS)],
        "# paging not done if PAGER='less -R'\n\nMy `PAGER` is set to 'less -R', and with it \
         paging fails.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let steps = question(&first, "exact_steps");
    let text = &steps.question_text;
    // `--config-dir` names a folder, `XDG_CONFIG_HOME` is not the program's file.
    assert!(
        !text.contains("Config file") && !text.contains("--config-dir") && !text.contains("XDG"),
        "{text}"
    );
    // The variables of the symptom (paging), not the first ones defined (tabs, theme); not
    // `PAGER`, whose value the item gives.
    assert!(
        text.contains("`TOOL_PAGER` (src/app.rs:19)")
            && !text.contains("`PAGER`")
            && !text.contains("TOOL_TABS")
            && !text.contains("TOOL_THEME"),
        "{text}"
    );
    assert_cited_lines_exist(&repo, text);
    assert_honest(&repo, &d);
}

#[test]
fn a_librarys_bug_names_no_configuration_and_no_variable_the_item_does_not_share_a_word_with() {
    let (repo, subject) = repo_with(
        &[(
            "src/lib.rs",
            "use std::env;\n\n/// Where a helper keeps its config.\npub fn config_path() -> Option<String> {\n    env::var(\"XDG_CONFIG_HOME\").ok()\n}\n\n/// Parses a duration.\npub fn parse(s: &str) -> u64 {\n    let _ = env::var(\"LIB_THEME\");\n    s.len() as u64\n}\n",
        )],
        "# parse returns the wrong value\n\nParsing a duration of one hour gives the wrong \
         number.\n\n## Expected behaviour\n\n3600.\n",
    );
    let (first, _) = all_questions(&repo, &subject);
    let steps = question(&first, "exact_steps");
    let text = &steps.question_text;
    assert!(
        !text.contains("Config") && !text.contains("config_path") && !text.contains("LIB_THEME"),
        "{text}"
    );
}

#[test]
fn a_type_level_bug_is_asked_for_its_code_and_the_checkers_message_not_a_stack_trace() {
    let (repo, subject) = repo_with(
        &[(
            "src/index.ts",
            "/** Parses a value of a schema. */\nexport function parse<T>(schema: Schema<T>, input: unknown): T {\n  return schema.check(input);\n}\n",
        )],
        "# parse infers the wrong type\n\nThe type inferred for the result of `parse` is \
         `unknown`, not the schema's type, so every caller needs a cast. It is a TypeScript \
         generic problem.\n\n## Expected behaviour\n\nThe schema's type.\n",
    );
    let (first, _) = all_questions(&repo, &subject);
    let steps = question(&first, "exact_steps");
    let text = &steps.question_text;
    assert!(
        text.starts_with("The smallest code that shows it")
            && text.contains("type checker")
            && !text.contains("stack trace"),
        "{text}"
    );
}

const PARAMETER_JAVA: &str = "package com.beust.jcommander;\n\n/** A parameter of the form -Dkey=value. */\npublic @interface DynamicParameter {\n  String[] names() default {};\n}\n";
const PARAMETER_TEST_JAVA: &str = "package com.beust.jcommander.dynamic.parameters.tests;\n\npublic class DynamicParameterTest {\n  public void usage() {\n    new JCommander(new DynamicParameter()).usage();\n  }\n}\n";

#[test]
fn a_long_question_is_shortened_in_what_it_lists_never_cut_where_it_makes_its_point() {
    let test_path =
        "src/test/java/com/beust/jcommander/dynamic/parameters/tests/DynamicParameterTest.java";
    let (repo, subject) = repo_with(
        &[
            (
                "src/main/java/com/beust/jcommander/DynamicParameter.java",
                PARAMETER_JAVA,
            ),
            (test_path, PARAMETER_TEST_JAVA),
        ],
        "# `usage` prints a `DynamicParameter` twice\n\nCalling `usage` on a command with a \
         `DynamicParameter` prints it twice, once per name; `DynamicParameterTest` does not \
         catch it.\n\n## Expected behaviour\n\nOnce.\n",
    );
    let (first, _) = all_questions(&repo, &subject);
    let test = question(&first, "regression_test");
    let text = &test.question_text;
    assert!(
        text.contains(test_path)
            && text.ends_with("Recommended: that file.")
            && !text.contains("…"),
        "{text}"
    );
}

#[test]
fn a_bug_reported_on_the_version_heads_manifest_declares_is_not_asked_which_version() {
    let package = "{\n  \"name\": \"cmd\",\n  \"version\": \"1.5.0\"\n}\n";
    let index = "export function parse(input) {\n  return input;\n}\n";
    let (repo, subject) = repo_with(
        &[("package.json", package), ("src/index.js", index)],
        "# parse drops unknown keys\n\nOn 1.5.0 `parse` returns the object without its \
         unknown keys.\n\n## Expected behaviour\n\nThe keys kept.\n",
    );
    repo.git(&["tag", "v1.0"]);
    let (first, d) = all_questions(&repo, &subject);
    assert!(
        !first.iter().any(|q| q.topic == "first_bad_version"),
        "{first:?}"
    );
    // HEAD's own version, reported: whether it reproduces on HEAD is answered, and said.
    assert!(
        !first.iter().any(|q| q.topic == "reproduces_on_head"),
        "{first:?}"
    );
    let said = d
        .entries
        .iter()
        .find(|e| e.title == "Version, stated by the item")
        .map(|e| e.content.clone())
        .unwrap_or_default();
    assert!(
        said.contains("Version: 1.5.0, stated at line 3")
            && said.contains("HEAD is version 1.5.0, as package.json:3 declares"),
        "{said}"
    );
    assert_honest(&repo, &d);
}

const COMMAND_JS: &str = "function Command(name) {\n  this.name = name;\n}\n\nCommand.prototype.parseOptions = function(argv) {\n  var args = [];\n  args.push(argv[0]);\n  return args;\n};\n\nCommand.prototype.parseArgs = function(argv, args) {\n  args.push(argv[1]);\n  return args;\n};\n\nmodule.exports = Command;\n";

#[test]
fn a_runtimes_error_whose_stack_trace_names_the_line_is_not_asked_which_one_fails() {
    let (repo, subject) = repo_with(
        &[
            ("lib/command.js", COMMAND_JS),
            ("package.json", "{\n  \"name\": \"cmd\"\n}\n"),
        ],
        "# A command and an option of one name crash\n\nIt throws:\n\n```\nTypeError: \
         args.push is not a function\n    at Command.parseArgs (/home/me/app/node_modules/cmd/lib/command.js:12:8)\n```\n\n\
         ## Expected behaviour\n\nNo crash.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let q = first
        .iter()
        .find(|q| q.topic.starts_with("message_args_push"))
        .unwrap_or_else(|| panic!("{first:?}"));
    assert!(
        q.question_text
            .contains("lib/command.js:7, lib/command.js:12")
            && q.question_text
                .contains("stack trace names lib/command.js:12")
            && !q.question_text.contains("Which one fails?"),
        "{}",
        q.question_text
    );
    assert_eq!(q.recommended.as_deref(), Some("lib_command_js_12"));
    assert_honest(&repo, &d);
}

const TOOL_RB: &str = "class Tool\n  def banner(command, namespace = nil)\n    \"tool #{command}\"\n  end\n\n  def list(commands)\n    commands.map { |c| banner(c, false) }\n  end\n\n  def help(command)\n    banner(command)\n  end\nend\n";
const ARGUMENT_RB: &str = "class Argument\n  attr_reader :name, :banner\n\n  def usage\n    required? ? banner : name\n  end\n\n  def sample\n    required? ? banner : \"[#{banner}]\"\n  end\nend\n";
const OPTION_RB: &str =
    "class Option < Argument\n  def sample\n    banner if banner && name\n  end\nend\n";

#[test]
fn call_sites_leave_out_the_reads_of_a_same_named_attribute() {
    let (repo, subject) = repo_with(
        &[
            ("lib/tool.rb", TOOL_RB),
            ("lib/tool/parser/argument.rb", ARGUMENT_RB),
            ("lib/tool/parser/option.rb", OPTION_RB),
        ],
        "# refactor: remove the unused argument of `banner`\n\n`banner` takes a `namespace` \
         it never reads. Drop it.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let sites = question(&first, "call_sites");
    // The two calls (lib/tool.rb:7, 11), not the reads of `Argument#banner` in its folder.
    assert!(
        sites
            .question_text
            .contains("called on 2 lines in 1 file (lib/tool.rb:7, lib/tool.rb:11)")
            && !sites.question_text.contains("parser"),
        "{}",
        sites.question_text
    );
    assert_honest(&repo, &d);
}

const WRAP_KT: &str = "package tool\n\nclass CommentWrapping {\n    fun visit(node: Node) {\n        val indent = node.indent\n        wrap(node, indent)\n    }\n}\n";
const WRAP_TEST_KT: &str = "package tool\n\nclass CommentWrappingTest {\n    @Test\n    fun `keeps the indent`() {\n        val indent = \"    \"\n        check(indent)\n    }\n\n    @Test\n    fun `wraps a comment`() {\n        check(CommentWrapping().visit(node))\n    }\n}\n";

#[test]
fn a_test_that_shares_one_plain_word_with_the_item_is_not_the_test_to_name() {
    let files = [
        ("src/main/kotlin/CommentWrapping.kt", WRAP_KT),
        ("src/test/kotlin/CommentWrappingTest.kt", WRAP_TEST_KT),
    ];
    // `indent` is a word of the item and of an unrelated rule's test: no evidence.
    let (repo, subject) = repo_with(
        &files,
        "# Wrong `indent` after a multiline string\n\nThe formatter fails: the closing quotes get \
         the wrong `indent` when the string is the last argument. No test catches it.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    assert_not_asked(&first, &["regression_test"]);
    assert_honest(&repo, &d);
    // The code the item is about, defined outside tests, names its test.
    let (repo, subject) = repo_with(
        &files,
        "# `CommentWrapping` fails on the indent of a multiline string\n\nThe formatter fails: the \
         closing quotes get the wrong indent when the string is the last argument. No test \
         catches it.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let test = question(&first, "regression_test");
    assert!(
        test.question_text
            .contains("src/test/kotlin/CommentWrappingTest.kt already names `CommentWrapping`"),
        "{}",
        test.question_text
    );
    assert_honest(&repo, &d);
}

const SPLIT_PY: &str = "def split_words(text):\n    \"\"\"Split a command line into words.\"\"\"\n    return text.split()\n";
const SPLIT_TEST_PY: &str = "from tool.split import split_words\n\ndef test_split_words():\n    assert split_words(\"a b\") == [\"a\", \"b\"]\n";

/// A bug report on `split_words`, with what it shows, then `said`.
fn bug(said: &str) -> String {
    format!(
        "# `split_words` breaks quoted words\n\n```\n>>> split_words('a \"b c\"')\n['a', \
         '\"b', 'c\"']\n```\n\nIt fails on quotes. {said}\n\n## Expected behaviour\n\nTwo \
         words.\n"
    )
}

#[test]
fn which_test_shows_a_bug_is_asked_only_of_a_report_that_speaks_of_tests() {
    let files = [
        ("tool/split.py", SPLIT_PY),
        ("tests/test_split.py", SPLIT_TEST_PY),
    ];
    // A report that speaks of no test: which test is a question every bug could be asked.
    let (repo, subject) = repo_with(&files, &bug(""));
    let (first, d) = all_questions(&repo, &subject);
    assert_not_asked(&first, &["regression_test"]);
    assert_honest(&repo, &d);
    // In any phrasing that speaks of a test, the test that names it is asked.
    for said in [
        "No test catches it.",
        "The tests pass anyway.",
        "I added a failing test_quoted_words.",
    ] {
        let (repo, subject) = repo_with(&files, &bug(said));
        let (first, d) = all_questions(&repo, &subject);
        let test = question(&first, "regression_test");
        assert!(
            test.question_text.contains("tests/test_split.py"),
            "{said}: {}",
            test.question_text
        );
        assert_honest(&repo, &d);
    }
}
