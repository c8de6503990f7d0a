//! The built-in intent interviewer's nearest code (issue 39): a definition is presented as the
//! code an item is about only when its name holds a word of the title that says something (not
//! a bracketed prefix, not a word every command-line tool uses) or several of the item's words;
//! otherwise the document says plainly that nothing matched.

use crate::interviewer::{
    all_questions, assert_honest, assert_not_asked, question, repo_with, topic_list,
};

const OPTIONS_RS: &str = "//! Options.\n\n/// Every option of the command line.\npub struct Options {\n    pub verbose: bool,\n}\n\n/// Reads a file of settings.\npub fn read_settings(path: &str) -> Options {\n    Options { verbose: path.is_empty() }\n}\n";

#[test]
fn a_definition_sharing_one_common_word_with_the_item_is_not_presented_as_the_place() {
    let (repo, subject) = repo_with(
        &[("src/options.rs", OPTIONS_RS)],
        "# Help option does not show the default\n\nWhen I run the tool with the help flag, \
         the option list shows no default value.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    assert!(
        !topic_list(&first).contains(&"nearest_code"),
        "{:?}",
        first.iter().map(|q| &q.question_text).collect::<Vec<_>>()
    );
    assert!(
        d.summary.contains("Nothing the repository defines")
            && d.summary.contains("matched the item's words"),
        "{}",
        d.summary
    );
    assert_honest(&repo, &d);
}

const TABLE_PHP: &str = "<?php\n\n/**\n * Renders a table with a grid of cells.\n */\nclass Table\n{\n    public function render()\n    {\n    }\n}\n";
const CONSOLE_PHP: &str =
    "<?php\n\n/**\n * The console's output, written to stdout.\n */\nclass ConsoleOutput\n{\n}\n";

#[test]
fn a_title_word_finds_the_place_and_a_bracketed_prefix_finds_nothing() {
    let (repo, subject) = repo_with(
        &[
            ("Helper/Table.php", TABLE_PHP),
            ("Output/ConsoleOutput.php", CONSOLE_PHP),
        ],
        "# [Console] Table grid offset is wrong\n\nThe grid is drawn one cell to the right of \
         the console output it frames.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let near = question(&first, "nearest_code");
    assert!(
        near.question_text.contains("`Table` (Helper/Table.php:6)"),
        "{}",
        near.question_text
    );
    assert!(
        !near.question_text.contains("ConsoleOutput"),
        "{}",
        near.question_text
    );
    assert_honest(&repo, &d);
}

#[test]
fn a_docs_item_is_not_pointed_at_a_heading_named_documentation_by_its_title_alone() {
    let (repo, subject) = repo_with(
        &[
            ("src/main.rs", "fn main() {}\n"),
            (
                "crates/cli/README.md",
                "# cli\n\n### Documentation\n\nSee docs.rs.\n",
            ),
        ],
        "# Slight documentation clarification\n\nThe first line of the README could say more \
         about what is searched.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    assert!(
        !first
            .iter()
            .any(|q| q.question_text.contains("\"Documentation\"")),
        "{:?}",
        first.iter().map(|q| &q.question_text).collect::<Vec<_>>()
    );
    assert_honest(&repo, &d);
}

const SEARCH_RS: &str = "/// Searches one buffer.\npub fn search(buf: &[u8]) -> usize {\n    buf.len()\n}\n\n#[cfg(test)]\nmod tests {\n    fn files_without_matches() -> usize {\n        super::search(b\"\")\n    }\n\n    #[test]\n    fn lists_files_without_matches() {\n        assert_eq!(files_without_matches(), 0);\n    }\n}\n";

#[test]
fn a_function_of_a_files_own_tests_is_not_the_place() {
    let (repo, subject) = repo_with(
        &[("src/search.rs", SEARCH_RS)],
        "# List files without matches\n\nI would like a way to print the files without \
         matches, as grep does.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let texts: Vec<&String> = first.iter().map(|q| &q.question_text).collect();
    assert!(
        !texts.iter().any(|t| t.contains("files_without_matches")),
        "{texts:?}"
    );
    assert_honest(&repo, &d);
}

const BASE_RB: &str = "class Thor\n  # Removes an argument the command was given.\n  def remove_argument(*names)\n    names.each { |n| arguments.delete(n) }\n  end\nend\n";
const CONVERTER_RB: &str =
    "class Thor\n  # The converter of numbers to words.\n  class NumberConverter\n  end\nend\n";

#[test]
fn a_name_made_of_what_the_item_asks_done_is_a_chance_match() {
    let (repo, subject) = repo_with(
        &[
            ("lib/thor/base.rb", BASE_RB),
            ("lib/thor/converter.rb", CONVERTER_RB),
        ],
        "# Remove unused argument in the method\n\nThe method takes an argument it never uses; \
         this removes it.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let texts: Vec<&String> = first.iter().map(|q| &q.question_text).collect();
    assert!(
        !texts.iter().any(|t| t.contains("remove_argument")),
        "{texts:?}"
    );
    assert_honest(&repo, &d);
    // A word the item is about, in the title, still finds its place.
    let (repo, subject) = repo_with(
        &[
            ("lib/thor/base.rb", BASE_RB),
            ("lib/thor/converter.rb", CONVERTER_RB),
        ],
        "# Add a number converter exception for Chinese\n\nThe number converter throws an \
         exception for zh-CN.\n",
    );
    let (first, _) = all_questions(&repo, &subject);
    let texts: Vec<&String> = first.iter().map(|q| &q.question_text).collect();
    assert!(
        texts.iter().any(|t| t.contains("`NumberConverter`")),
        "{texts:?}"
    );
}

const CONFIGURATOR_CS: &str = "namespace Tool.Configuration\n{\n    public static class Configurator\n    {\n        /// The converter of numbers to words for a culture.\n        public static INumberToWordsConverter GetNumberToWordsConverter(CultureInfo culture)\n        {\n            return NumberToWordsConverters.ResolveForCulture(culture);\n        }\n    }\n}\n";
const LINE_READER_JAVA: &str = "package tool.reader;\n\npublic class LineReader {\n    private final int width = 80;\n\n    public String readLine(String prompt) throws EndOfInput {\n        return prompt;\n    }\n}\n";

#[test]
fn a_java_or_csharp_method_is_indexed_by_its_modifiers_and_return_type() {
    let (repo, subject) = repo_with(
        &[("src/Tool/Configuration/Configurator.cs", CONFIGURATOR_CS)],
        "# Number to words converter for Chinese culture not working\n\nThe words of a number \
         are never printed in Chinese; the converter returns the digits.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let near = question(&first, "nearest_code");
    assert!(
        near.question_text
            .contains("`GetNumberToWordsConverter()` (src/Tool/Configuration/Configurator.cs:6)"),
        "{}",
        near.question_text
    );
    assert_honest(&repo, &d);
    let (repo, subject) = repo_with(
        &[("src/tool/reader/LineReader.java", LINE_READER_JAVA)],
        "# readLine fails with a prompt\n\nReading a line with a prompt fails at the end of \
         the input.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let near = question(&first, "nearest_code");
    assert!(
        near.question_text
            .contains("`readLine()` (src/tool/reader/LineReader.java:6)"),
        "{}",
        near.question_text
    );
    assert_honest(&repo, &d);
}

const COMPARATOR_JAVA: &str = "package org.toolkit.commandline.parsing.internal;\n\npublic class Ordering {\n    /** Sorts the descriptions of dynamic parameters for the usage text. */\n    public static int compareDynamicParameterDescriptionsForUsage(Object a, Object b) {\n        return 0;\n    }\n}\n";

#[test]
fn a_long_nearest_name_is_said_again_as_it_and_the_question_keeps_its_point() {
    let (repo, subject) = repo_with(
        &[(
            "src/main/java/org/toolkit/commandline/parsing/internal/Ordering.java",
            COMPARATOR_JAVA,
        )],
        "# Comparing dynamic parameter descriptions fails in usage\n\nThe usage of a command \
         with a dynamic parameter fails with a null pointer exception when the descriptions \
         are compared.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let near = first
        .iter()
        .find(|q| q.topic == "nearest_code")
        .unwrap_or_else(|| panic!("no nearest_code in {:?}: {}", topic_list(&first), d.summary));
    let text = &near.question_text;
    assert!(
        text.contains("`compareDynamicParameterDescriptionsForUsage()` (src/main/java/org/toolkit/commandline/parsing/internal/Ordering.java:5)"),
        "{text}"
    );
    assert!(
        text.ends_with("Is it involved, or is the cause elsewhere?"),
        "{text}"
    );
    assert_honest(&repo, &d);
}

const CLI_PY: &str = "import argparse\n\nfrom tool.pager import start_pager\n\n\ndef parse_args(argv):\n    parser = argparse.ArgumentParser()\n    parser.add_argument(\"--paginate\", action=\"store_true\", help=\"Show the output in a pager.\")\n    args = parser.parse_args(argv)\n    if args.paginate:\n        start_pager()\n    return args\n";
const PAGER_PY: &str = "def start_pager():\n    \"\"\"Starts the pager the output is written to.\"\"\"\n    return None\n";
const BUFFER_PY: &str = "class PagerStartBuffer:\n    \"\"\"An in-memory buffer of lines kept for a pager's start, for tests of the layout.\"\"\"\n\n    lines = []\n";

#[test]
fn the_nearest_code_is_on_the_path_of_the_option_the_item_runs_not_a_shared_word() {
    let (repo, subject) = repo_with(
        &[
            ("tool/cli.py", CLI_PY),
            ("tool/pager.py", PAGER_PY),
            ("tool/layout.py", BUFFER_PY),
        ],
        "# Output is cut when the pager starts\n\nRunning `tool --paginate` cuts the output: \
         the pager starts before all of it is written.\n\nExpected: the whole output in the \
         pager.\n\nActual: only its first lines.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let near = first
        .iter()
        .find(|q| q.topic == "nearest_code")
        .unwrap_or_else(|| panic!("no nearest_code in {:?}: {}", topic_list(&first), d.summary));
    let text = &near.question_text;
    // `--paginate` is handled in `parse_args`, which calls `start_pager()`: that is the path.
    assert!(text.contains("`start_pager()` (tool/pager.py:1)"), "{text}");
    // A buffer that shares "pager" and "start" with the item is not on it.
    assert!(!text.contains("PagerStartBuffer"), "{text}");
    assert_honest(&repo, &d);
}

const VALUES_RS: &str = "//! Values.\n\n/// One value of the command line, unquoted.\npub fn parse_value(raw: &str) -> String {\n    raw.trim_matches('\"').to_string()\n}\n\n/// Reads a file of settings.\npub fn read_settings(path: &str) -> bool {\n    path.is_empty()\n}\n";

#[test]
fn a_plural_or_a_verb_form_of_the_item_meets_the_name_in_the_code() {
    let (repo, subject) = repo_with(
        &[("src/values.rs", VALUES_RS)],
        "# Quoted values are parsed wrongly\n\nValues given in double quotes keep their quotes \
         when parsing them.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let near = question(&first, "nearest_code");
    assert!(
        near.question_text
            .contains("`parse_value()` (src/values.rs:4)"),
        "{}",
        near.question_text
    );
    assert_honest(&repo, &d);
}

const RENDER_RS: &str = "//! Rendering.\n\n/// Renders the border of a table.\npub fn render_border() {}\n\n/// Renders the rows of a table.\npub fn render_rows() {}\n\n/// Renders the header of a table.\npub fn render_header() {}\n\n/// Renders the cells of a table.\npub fn render_cells() {}\n";

#[test]
fn a_definition_the_item_points_at_itself_is_named_without_a_margin() {
    let (repo, subject) = repo_with(
        &[("src/render.rs", RENDER_RS)],
        "# Table frame drawn twice\n\n**What steps will reproduce the bug?** Draw an empty \
         table: `render_border()` runs once for the header and once for the rows.\n\n\
         **What did you expect to happen instead?** One frame.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let all: Vec<&str> = first.iter().map(|q| q.question_text.as_str()).collect();
    assert!(
        all.iter()
            .any(|q| q.contains("`render_border()` (src/render.rs:4)")),
        "{all:?}\n{}",
        d.summary
    );
    assert_honest(&repo, &d);
}

const TABLE_JAVA: &str = "package app;\n\n/** A table of rows. */\npublic class Table {\n    /** Draws the table. */\n    public void render() {\n    }\n}\n";
const CHART_JAVA: &str = "package app;\n\n/** A chart of points. */\npublic class Chart {\n    /** Draws the chart. */\n    public void render() {\n    }\n}\n";

#[test]
fn a_member_named_with_its_type_is_pointed_at_in_that_type() {
    let (repo, subject) = repo_with(
        &[
            ("src/app/Table.java", TABLE_JAVA),
            ("src/app/Chart.java", CHART_JAVA),
        ],
        "# Empty rows are drawn twice\n\n**What steps will reproduce the bug?** Call \
         `Table.render()` on a table whose last row is empty.\n\n\
         **What did you expect to happen instead?** One empty row.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let all: Vec<&str> = first.iter().map(|q| q.question_text.as_str()).collect();
    assert!(
        all.iter()
            .any(|q| q.contains("`render()` (src/app/Table.java:6)")),
        "{all:?}\n{}",
        d.summary
    );
    assert!(all.iter().all(|q| !q.contains("Chart.java")), "{all:?}");
    assert_honest(&repo, &d);
}

const PAGER_CONFIG_HS: &str = "-- | The pager's settings.\nmodule Pager.Config\n  ( width\n  ) where\n\n-- | Columns the pager writes.\nwidth :: Int\nwidth = 80\n";
const PAGER_TYPES_HS: &str =
    "-- | A running pager.\ndata Pager = Pager\n  { pagerCommand :: String\n  }\n";

#[test]
fn a_qualified_module_path_does_not_define_its_first_segment() {
    let (repo, subject) = repo_with(
        &[
            ("src/Pager/Config.hs", PAGER_CONFIG_HS),
            ("src/Pager/Types.hs", PAGER_TYPES_HS),
        ],
        "# Pager waits for the whole output\n\nThe pager starts only when the command has \
         finished writing.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let mut texts: Vec<&String> = first.iter().map(|q| &q.question_text).collect();
    texts.push(&d.summary);
    assert!(
        !texts.iter().any(|t| t.contains("Config.hs:2")),
        "{texts:?}"
    );
    assert_honest(&repo, &d);
}

const COMMAND_GO: &str = "package cli\n\n// Command is a subcommand of the application.\ntype Command struct {\n\t// The name of the command\n\tName string\n\t// Hide the command from the help output\n\tHidden bool\n\t// The function to call when this command is invoked\n\tAction func(*Context) error\n}\n\n// Run invokes the command.\nfunc (c Command) Run(ctx *Context) error {\n\treturn c.Action(ctx)\n}\n";
const APP_GO: &str = "package cli\n\n// App is the main structure of a cli application.\ntype App struct {\n\tName string\n\tCommands []Command\n}\n\n// Setup runs initialization code.\nfunc (a *App) Setup() {\n}\n";

#[test]
fn a_field_of_a_type_is_the_code_an_item_is_about() {
    let (repo, subject) = repo_with(
        &[("command.go", COMMAND_GO), ("app.go", APP_GO)],
        "# Hide a command\n\nIs there a flag that can hide a certain command from the users, \
         while it still works when they call it?\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let texts: Vec<&String> = first.iter().map(|q| &q.question_text).collect();
    assert!(
        texts
            .iter()
            .any(|t| t.contains("`Command.Hidden` (command.go:8)")),
        "{texts:?}"
    );
    assert!(
        !texts.iter().any(|t| t.contains("Command.Name")),
        "{texts:?}"
    );
    assert_honest(&repo, &d);
}

const WRAP_GO: &str = "package cli\n\n// wrapHelpText wraps the help text at the given width.\nfunc wrapHelpText(text string, width int) string {\n\treturn text\n}\n";
const LAYOUT_GO: &str = "package cli\n\n// Layout holds the sizes of the screen.\ntype Layout struct {\n\t// HelpTextWidth is the help text width.\n\tHelpTextWidth int\n\t// HelpTextWrap wraps the help text.\n\tHelpTextWrap bool\n\t// WrapHelpWidth is the help width lines wrap at.\n\tWrapHelpWidth int\n}\n";

/// A type's members compete for the nearest code only where the item speaks of them or their
/// type (thirty-third pass): several similarly worded fields of a struct the item never names
/// take no pointer away from the function that matches it best.
#[test]
fn unnamed_members_take_no_pointer_away_from_the_function_that_matches_best() {
    let (repo, subject) = repo_with(
        &[("wrap.go", WRAP_GO), ("layout.go", LAYOUT_GO)],
        "# Help text wrapped at the wrong width\n\nThe help text wraps ten columns before the \
         width of the terminal, so every line of help text is cut short.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let near = question(&first, "nearest_code");
    assert!(
        near.question_text.contains("`wrapHelpText()` (wrap.go:4)"),
        "{}",
        near.question_text
    );
    assert_honest(&repo, &d);
}

const GRID_PY: &str = "\"\"\"Grids of cells.\"\"\"\n\n\ndef render_grid(rows, width=80):\n    \"\"\"Draw the rows, cut at width.\"\"\"\n    return [r[:width] for r in rows]\n\n\ndef parse_cells(text):\n    return text.split(\",\")\n";
const COMPLETE_REPORT: &str = "# Last column is cut off\n\nVersion: 2.3.1\n\n## Steps\n\n```python\nimport gridlib\n\nout = gridlib.render_grid([\"a,b,c\"], width=3)\nprint(out)\n```\n\n## Expected\n\nThe three cells `a,b,c` are drawn whole.\n\n## Actual\n\nOnly `a,b` is drawn.\n";

/// A complete bug report (its snippet, version, expected and actual) is asked about the code its
/// snippet calls, quoted where the repository defines it (thirty-fifth pass).
#[test]
fn a_complete_report_is_asked_about_the_function_its_snippet_calls() {
    let (repo, subject) = repo_with(&[("gridlib/grid.py", GRID_PY)], COMPLETE_REPORT);
    let (first, d) = all_questions(&repo, &subject);
    let called = question(&first, "called_code");
    assert!(
        called
            .question_text
            .contains("Line 10 calls `gridlib.render_grid`; `render_grid` is defined at gridlib/grid.py:4: `def render_grid(rows, width=80):`."),
        "{}",
        called.question_text
    );
    assert_honest(&repo, &d);
}

/// A snippet that calls only what the language gives (`print`, `console.log`) or names a file
/// (`test.rb`) calls nothing of the project's, whatever the repository defines by that name.
#[test]
fn a_snippet_calling_only_the_languages_own_functions_is_asked_about_none() {
    let defines = "def print(x):\n    pass\n\n\ndef log(x):\n    pass\n\n\ndef rb(x):\n    pass\n";
    let (repo, subject) = repo_with(
        &[("gridlib/grid.py", defines)],
        "# Output is wrong\n\nVersion: 2.3.1\n\n```js\nconsole.log(grid)\nprint(grid)\n```\n\n\
         ```sh\nruby test.rb\n```\n\nExpected one line, got two.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    assert_not_asked(&first, &["called_code"]);
    assert_honest(&repo, &d);
}

/// The reporter's own guess at the cause, naming code the repository defines, is put to the
/// maintainer with that definition (thirty-fifth pass); the same name outside a guess is not.
#[test]
fn the_reporters_guess_at_the_cause_is_put_to_the_maintainer_with_the_code_it_names() {
    let item = |sentence: &str| {
        format!(
            "# A cell holding a comma is drawn as two cells\n\nA cell holding a comma is drawn as \
             two cells. {sentence}\n\nVersion: 2.3.1\n\n## Expected\n\nOne cell.\n\n## Actual\n\nTwo cells.\n"
        )
    };
    for guess in [
        "I suspect `parse_cells` splits on every comma.",
        "Looking at the source, parse_cells() splits on every comma.",
        "The culprit is probably parse_cells, which splits on every comma.",
    ] {
        let (repo, subject) = repo_with(&[("gridlib/grid.py", GRID_PY)], &item(guess));
        let (first, d) = all_questions(&repo, &subject);
        let q = question(&first, "suspected_cause");
        assert!(
            q.question_text.starts_with("Line 3 suspects the cause: \"")
                && q.question_text.contains(
                    "`parse_cells` is defined at gridlib/grid.py:9: `def parse_cells(text):`"
                ),
            "{guess}: {}",
            q.question_text
        );
        assert_honest(&repo, &d);
    }
    let (repo, subject) = repo_with(
        &[("gridlib/grid.py", GRID_PY)],
        &item("We call `parse_cells` on every line."),
    );
    let (first, _) = all_questions(&repo, &subject);
    assert_not_asked(&first, &["suspected_cause"]);
}

const JOB_GO: &str = "package run\n\n// Job is one scheduled job.\ntype Job struct {\n\t// Recipe is the recipe the job continues.\n\tRecipe string\n\t// Lines the job continues.\n\tLines []string\n}\n";
const SPLIT_GO: &str =
    "package run\n\n// Start runs the jobs in order.\nfunc Start(jobs []Job) {\n}\n";

/// A member named by an ordinary word of the prose (`recipe`) does not compete as if the item
/// named it (thirty-fifth pass).
#[test]
fn a_member_named_only_by_a_prose_word_is_not_the_code_an_item_is_about() {
    let prose = "# Recipe is ignored\n\nThe recipe is ignored when the recipe continues on the \
                 next line.\n";
    let (repo, subject) = repo_with(&[("job.go", JOB_GO), ("split.go", SPLIT_GO)], prose);
    let (first, d) = all_questions(&repo, &subject);
    let all: Vec<&str> = first.iter().map(|q| q.question_text.as_str()).collect();
    assert!(all.iter().all(|q| !q.contains("Job.Recipe")), "{all:?}");
    assert_honest(&repo, &d);
}

const FLAG_TS: &str = "/** One flag of the command line. */\nexport default class Flag {\n  /** The flag's name. */\n  name: string\n  /** Set for a `--no-` flag: its value is false when given. */\n  inverted: boolean\n}\n";
const READ_TS: &str = "/** Reads the command line into values. */\nexport function readLine(argv: string[]) {\n  return argv\n}\n";

/// A member whose type the item names in the plural ("inverted flags" for `Flag.inverted`) is
/// spoken of, as the singular would be (thirty-ninth pass).
#[test]
fn a_member_whose_type_the_item_names_in_the_plural_is_the_code_it_is_about() {
    let prose = "# Inverted flags with two words keep the wrong default\n\nTwo inverted flags: \
                 the one with a dash in its name is undefined when not given, the other one \
                 is true.\n";
    let (repo, subject) = repo_with(&[("src/Flag.ts", FLAG_TS), ("src/read.ts", READ_TS)], prose);
    let (first, d) = all_questions(&repo, &subject);
    let all: Vec<&str> = first.iter().map(|q| q.question_text.as_str()).collect();
    assert!(
        all.iter()
            .any(|q| q.contains("Flag.inverted") && q.contains("src/Flag.ts:6")),
        "{all:?}"
    );
    assert_honest(&repo, &d);
}
