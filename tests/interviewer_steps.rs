//! The built-in intent interviewer on what a bug's first questions need, each on a small repository
//! that reproduces a fault class a blind judge found on real issues: call sites counted from
//! comments and same-named symbols, quotes cut inside a word.

use crate::interviewer::{
    all_questions, assert_cited_lines_exist, assert_honest, question, repo_with, topic_list,
};

const THOR_RB: &str = "class Thor\n  # Prints the usage line of a command.\n  def banner(command, namespace = nil)\n    \"thor #{command}\"\n  end\n\n  def help(command)\n    shell.say \"  #{banner(command)}\"\n  end\n\n  def list(commands)\n    commands.map { |c| banner(c, false) }\n  end\nend\n";
const BASE_RB: &str = "module Base\n  # :banner - String to show on usage notes.\n  # :banner - the banner of an option.\n  def method_option(name, options = {})\n    build(name, :banner => options[:banner])\n  end\n\n  # The banner is printed above the usage.\n  def usage\n    \"banner\"\n  end\nend\n";

#[test]
fn call_sites_count_calls_not_comments_symbols_or_the_definition() {
    let (repo, subject) = repo_with(
        &[("lib/thor.rb", THOR_RB), ("lib/thor/base.rb", BASE_RB)],
        "# refactor: remove the unused argument of `banner`\n\n`banner` takes a `namespace` \
         it never reads. Drop it.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let sites = question(&first, "call_sites");
    // Two calls (lines 8 and 12 of lib/thor.rb): not the definition (line 3), the comments or
    // the `:banner` symbols and the "banner" string of lib/thor/base.rb.
    assert!(
        sites.question_text.contains("called on 2 lines in 1 file"),
        "{}",
        sites.question_text
    );
    assert!(
        sites.question_text.contains("lib/thor.rb:8")
            && !sites.question_text.contains("lib/thor/base.rb"),
        "{}",
        sites.question_text
    );
    assert_cited_lines_exist(&repo, &sites.question_text);
    assert_honest(&repo, &d);
}

#[test]
fn a_quoted_question_is_cut_where_a_word_ends() {
    let (repo, subject) = repo_with(
        &[("src/main.rs", "fn main() {\n    println!(\"hi\");\n}\n")],
        "# Errors\n\nWhen the tool finds many errors it prints every one of them, which fills \
         the terminal. Is there a setting I'm missing that makes it report only the very first \
         error it finds in each of the files it reads, as other tools let their users do?\n",
    );
    let (first, _) = all_questions(&repo, &subject);
    let support = question(&first, "support");
    let quote = support.question_text.split('"').nth(1).expect("a quote");
    let kept = quote.trim_end_matches('…');
    assert!(quote.ends_with('…'), "{quote}");
    let item_words: Vec<&str> = "Is there a setting I'm missing that makes it report only the very first error it finds in each of the files it reads, as other tools let their users do?"
        .split_whitespace()
        .collect();
    for w in kept.split_whitespace() {
        assert!(
            item_words.contains(&w),
            "cut inside a word: {w:?} in {quote}"
        );
    }
}

const TOOL_SH: &str = "#!/usr/bin/env bash\nset -e\nif [ -n \"$TOOL_DEBUG\" ]; then\n  set -x\nfi\nexec \"tool-$1\" \"$@\"\n";
const TOOL_INIT_SH: &str = "#!/usr/bin/env bash\n[ -n \"$TOOL_DEBUG\" ] && set -x\nroot=\"${TOOL_ROOT:-$HOME/.tool}\"\necho \"export PATH=\\\"$root/shims:\\$PATH\\\"\"\n";
const TOOL_README: &str = "# tool\n\nManages versions.\n\n## Installation\n\nClone it.\n\n### Set up your shell environment\n\nAdd `eval \"$(tool init -)\"` to your shell's start-up file.\n\n## Usage\n\nRun it.\n";

#[test]
fn a_setup_problem_is_asked_its_steps_the_readmes_setup_and_the_trace_not_versions() {
    let (repo, subject) = repo_with(
        &[
            ("libexec/tool", TOOL_SH),
            ("libexec/tool-init", TOOL_INIT_SH),
            ("README.md", TOOL_README),
        ],
        "# shims not being created\n\nI'm setting up a fresh install of tool. My ~/.zshrc \
         contains `eval \"$(tool init -)\"`.\n\n## Expected behaviour\n\nShims in the shims \
         folder.\n\n## Actual behaviour\n\nThe folder is empty and `which python` says python \
         not found.\n",
    );
    repo.git(&["tag", "v1.0.0"]);
    let (first, d) = all_questions(&repo, &subject);
    assert_eq!(
        first[0].topic,
        "exact_steps",
        "{:?}",
        first.iter().map(|q| &q.topic).collect::<Vec<_>>()
    );
    let steps = &first[0].question_text;
    // The README's shell setup (line 9), and the script's own debug variable (libexec/tool:3,
    // a script without an extension).
    assert!(steps.contains("README.md:9"), "{steps}");
    assert!(steps.contains("`TOOL_DEBUG=1` (libexec/tool:3)"), "{steps}");
    assert_cited_lines_exist(&repo, steps);
    for version in ["reproduces_on_head", "first_bad_version"] {
        assert!(
            !first.iter().any(|q| q.topic == version),
            "{version} asked: {steps}"
        );
    }
    assert_honest(&repo, &d);
}

const APP_RS: &str = "use std::env;\n\npub fn args() -> clap::Command {\n    clap::Command::new(\"tool\")\n        .arg(clap::Arg::new(\"config-file\").long(\"config-file\").help(\"Read settings from this file\"))\n        .arg(clap::Arg::new(\"paging\").long(\"paging\"))\n        .arg(clap::Arg::new(\"plain\").long(\"plain\"))\n}\n\npub fn pager() -> Option<String> {\n    env::var(\"TOOL_PAGER\").ok()\n}\n";

#[test]
fn a_bug_that_shows_no_steps_is_asked_them_with_the_config_and_variables_the_program_reads() {
    let (repo, subject) = repo_with(
        &[
            (
                "Cargo.toml",
                "[package]\nname = \"tool\"\nversion = \"0.3.0\"\n",
            ),
            ("src/app.rs", APP_RS),
        ],
        "# Paging doesn't work\n\nPaging is never enabled, whatever I do.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let steps = question(&first, "exact_steps");
    assert!(
        steps
            .question_text
            .contains("`--config-file` at src/app.rs:5")
            && steps.question_text.contains("`TOOL_PAGER` (src/app.rs:11)")
            // A program with flags of its own is run from a command line.
            && steps.question_text.starts_with("What exactly did you run"),
        "{}",
        steps.question_text
    );
    assert_cited_lines_exist(&repo, &steps.question_text);
    assert_honest(&repo, &d);
}

#[test]
fn head_between_releases_is_the_manifests_version_and_a_named_version_is_not_asked() {
    let package = "{\n  \"name\": \"zod\",\n  \"version\": \"1.5.0\"\n}\n";
    let index = "export function parse(input) {\n  return input;\n}\n";
    let item = |version: &str| {
        format!(
            "# parse drops unknown keys\n\nWith {version} `parse` returns the object without \
             its unknown keys.\n\n## Expected behaviour\n\nThe keys kept.\n\n## Actual \
             behaviour\n\nThey are gone.\n\n```\n$ zod check input.json\n```\n"
        )
    };
    let (repo, subject) = repo_with(
        &[("package.json", package), ("src/index.js", index)],
        &item("the library"),
    );
    repo.git(&["tag", "v1.0"]);
    let (first, _) = all_questions(&repo, &subject);
    let head = question(&first, "reproduces_on_head");
    assert!(
        head.question_text
            .contains("version 1.5.0, as package.json:3 declares"),
        "{}",
        head.question_text
    );
    assert!(
        first.iter().any(|q| q.topic == "first_bad_version"),
        "{first:?}"
    );
    // The item names the version it runs (no tag of it): which version is not asked.
    let (repo, subject) = repo_with(
        &[("package.json", package), ("src/index.js", index)],
        &item("zod 1.5.0-beta.2"),
    );
    repo.git(&["tag", "v1.0"]);
    let (first, _) = all_questions(&repo, &subject);
    assert!(
        !first.iter().any(|q| q.topic == "first_bad_version"),
        "{first:?}"
    );
}

const INDEX_JS: &str = "function Command(name) {\n  this.name = name;\n}\n\nCommand.prototype.parseOptions = function(argv) {\n  var args = [];\n  for (var i = 0; i < argv.length; i++) {\n    // args.push(x) keeps the order\n    args.push(argv[i]);\n  }\n  return args;\n};\n\nmodule.exports = Command;\n";

#[test]
fn a_runtimes_error_is_placed_at_the_code_it_names_not_said_to_appear_nowhere() {
    let (repo, subject) = repo_with(
        &[
            ("index.js", INDEX_JS),
            ("package.json", "{\n  \"name\": \"cmd\"\n}\n"),
        ],
        "# A command and an option of one name crash\n\nIt throws:\n\n```\nTypeError: \
         args.push is not a function\n    at Command.parseOptions (index.js:9:12)\n```\n\n\
         ## Expected behaviour\n\nNo crash.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let q = first
        .iter()
        .find(|q| q.topic.starts_with("message_args_push"))
        .unwrap_or_else(|| panic!("{first:?}"));
    // The call on line 9, not the comment on line 8.
    assert!(
        q.question_text
            .contains("JavaScript's error for `args.push(`")
            && q.question_text.contains("index.js:9")
            && !q.question_text.contains("index.js:8")
            && !q.question_text.contains("nowhere"),
        "{}",
        q.question_text
    );
    assert_eq!(q.recommended.as_deref(), Some("index_js_9"));
    assert_honest(&repo, &d);
}

#[test]
fn a_pre_release_is_not_offered_beside_its_release() {
    let (repo, subject) = repo_with(
        &[
            ("package.json", "{\n  \"name\": \"tool\"\n}\n"),
            (
                "src/index.js",
                "export function parse(input) {\n  return input;\n}\n",
            ),
        ],
        "# parse no longer keeps unknown keys\n\n`parse` used to keep the unknown keys of an \
         object; now they are gone.\n\n```\n$ tool parse data.json\n```\n\n## Expected \
         behaviour\n\nThe keys kept.\n",
    );
    for tag in ["v3.0.2", "v4.0.0-0", "v4.0.0-1", "v4.0.0"] {
        repo.git(&["commit", "-q", "--allow-empty", "-m", tag]);
        repo.git(&["tag", tag]);
    }
    let (first, _) = all_questions(&repo, &subject);
    let q = question(&first, "first_bad_version");
    assert!(
        q.question_text.contains("The newest tags: v4.0.0, v3.0.2.")
            && !q.question_text.contains("v4.0.0-1"),
        "{}",
        q.question_text
    );
}

#[test]
fn a_librarys_bug_that_shows_no_code_is_asked_for_the_smallest_code_that_shows_it() {
    let (repo, subject) = repo_with(
        &[(
            "src/lib.rs",
            "/// Parses a duration.\npub fn parse(s: &str) -> u64 {\n    s.len() as u64\n}\n",
        )],
        "# parse returns the wrong value\n\nParsing a duration of one hour gives the wrong \
         number.\n\n## Expected behaviour\n\n3600.\n",
    );
    let (first, _) = all_questions(&repo, &subject);
    let steps = question(&first, "exact_steps");
    assert!(
        steps
            .question_text
            .starts_with("The smallest code that shows it"),
        "{}",
        steps.question_text
    );
}

const PAGER_RS: &str = "use std::env;\n\npub fn args() -> clap::Command {\n    clap::Command::new(\"tool\")\n        .arg(clap::Arg::new(\"paging\").long(\"paging\"))\n}\n\npub fn pager() -> Option<String> {\n    env::var(\"TOOL_PAGER\").or_else(|_| env::var(\"PAGER\")).ok()\n}\n";

#[test]
fn what_the_item_already_answers_is_not_asked_again() {
    // It gives the value of one variable the program reads.
    let (repo, subject) = repo_with(
        &[
            (
                "Cargo.toml",
                "[package]\nname = \"tool\"\nversion = \"0.3.0\"\n",
            ),
            ("src/app.rs", PAGER_RS),
        ],
        "# paging not done if PAGER='less -R'\n\nMy `PAGER` environment variable is set to \
         'less -R', and with it paging fails, even with `--paging always`. Tested with tool \
         0.3.0.\n",
    );
    repo.git(&["tag", "v0.3.0"]);
    let (first, d) = all_questions(&repo, &subject);
    let steps = question(&first, "exact_steps");
    assert!(
        steps.question_text.contains("`TOOL_PAGER` (src/app.rs:9)")
            && !steps.question_text.contains("`PAGER`"),
        "{}",
        steps.question_text
    );
    assert_honest(&repo, &d);

    // It says it ran the code at HEAD.
    let (repo, subject) = repo_with(
        &[("src/app.rs", PAGER_RS)],
        "# paging fails\n\nWith `--paging always` the tool fails on current master:\n\n```\n\
         $ tool --paging always notes.txt\nerror: the pager could not start\n```\n",
    );
    repo.git(&["tag", "v0.2.0"]);
    let (first, d) = all_questions(&repo, &subject);
    let topics = topic_list(&first);
    assert!(!topics.contains(&"reproduces_on_head"), "{topics:?}");
    assert!(!topics.contains(&"first_bad_version"), "{topics:?}");
    assert_honest(&repo, &d);
}

const PARSER_JAVA: &str = "package tool;\n\n/** Sorts the parameters of the usage. */\npublic class Usage {\n    public String usage() {\n        return \"\";\n    }\n}\n";

#[test]
fn a_report_of_an_exception_that_shows_no_trace_is_asked_for_the_whole_trace() {
    let item = "# The usage test fails\n\nA reproducer class is attached. The test method\n`usage()` fails with a null pointer exception.\n";
    let (repo, subject) = repo_with(&[("src/tool/Usage.java", PARSER_JAVA)], item);
    let (first, _) = all_questions(&repo, &subject);
    assert_eq!(
        question(&first, "exact_steps").question_text,
        "The whole stack trace? Line 4 says \"fails with a null pointer exception\", and the item \
         shows no trace."
    );
    // One that shows the trace, or says nothing was thrown, is not asked for it.
    for item in [
        format!(
            "{item}\n```\njava.lang.NullPointerException\n    at tool.Usage.usage(Usage.java:5)\n```\n"
        ),
        item.replace(
            "fails with a null pointer exception",
            "prints nothing, no exception thrown",
        ),
    ] {
        let (repo, subject) = repo_with(&[("src/tool/Usage.java", PARSER_JAVA)], &item);
        let (first, _) = all_questions(&repo, &subject);
        assert!(
            !first
                .iter()
                .any(|q| q.question_text.contains("stack trace")),
            "{:?}",
            topic_list(&first)
        );
    }
}

const PARSER_PY: &str = "class Parser:\n    def __init__(self):\n        self.values = []\n\n    def add(self, name):\n        self.values.append(name)\n\n    def parse(self, args):\n        return dict.fromkeys(self.values)\n";

#[test]
fn a_report_whose_code_leaves_code_out_is_asked_for_the_whole_program() {
    let (repo, subject) = repo_with(
        &[("kit/parser.py", PARSER_PY)],
        "# parse() leaves the list empty\n\nGiven the following code fragment:\n\n```python\n\
         from kit.parser import Parser\nparser = Parser()\nparser.add('files')\n# ...\n\
         result = parser.parse(['a', 'b'])\n```\n\n## Expected behaviour\n\n`files` holds the two \
         names.\n\n## Actual behaviour\n\nIt stays empty.\n",
    );
    let (first, _) = all_questions(&repo, &subject);
    let asked = question(&first, "complete_code");
    assert!(
        asked
            .question_text
            .starts_with("The code at line 6 is a fragment (line 9 leaves code out)."),
        "{}",
        asked.question_text
    );
}

#[test]
fn a_whole_program_or_an_elided_run_is_not_asked_for_one() {
    // The same report with the whole program: nothing left out.
    let whole = "# parse() leaves the list empty\n\n```python\nfrom kit.parser import Parser\n\
                 parser = Parser()\nparser.add('files')\nresult = parser.parse(['a', 'b'])\n\
                 print(result)\n```\n\n## Expected behaviour\n\n`files` holds the two \
                 names.\n\n## Actual behaviour\n\nIt stays empty.\n";
    // A run whose trace is cut short (`# ...` after its frames) is output, not a fragment.
    let run = "# parse() fails on two names\n\n```shell\nuser@host:~/demo$ python demo.py a b\n\
               Traceback (most recent call last):\n  File \"demo.py\", line 4, in <module>\n\
               # ...\nKeyError: 'files'\n```\n\n## Expected behaviour\n\nBoth names printed.\n\n\
               ## Actual behaviour\n\nA KeyError.\n";
    for item in [whole, run] {
        let (repo, subject) = repo_with(&[("kit/parser.py", PARSER_PY)], item);
        let (first, _) = all_questions(&repo, &subject);
        assert!(
            !topic_list(&first).contains(&"complete_code"),
            "{:?}",
            topic_list(&first)
        );
    }
}
