//! The built-in intent interviewer claims no absence beyond what it searched
//! (docs/interviews.md, "What the built-in interviewer reads"): when the search stops at a
//! bound, a name it did not find is in none of the files read — never "nowhere in the
//! repository"; a benchmark is looked for in every ecosystem's forms (a harness in code, a
//! benchmark folder, a documented one) before the repository is said to show none.

use crate::interviewer::{all_questions, assert_honest, message_question, question, repo_with};

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

const SLOW: &str = "# Searching is slow on large directories\n\nA search of my home folder takes \
                    12 seconds, much slower than it should be.\n";

#[test]
fn a_benchmark_of_another_ecosystem_is_found_and_offered() {
    for (path, text, line) in [
        (
            "search_test.go",
            "package search\n\nimport \"testing\"\n\nfunc BenchmarkWalk(b *testing.B) {\n}\n",
            5,
        ),
        (
            "src/test/java/WalkBench.java",
            "class WalkBench {\n    @Benchmark\n    public void walk() {}\n}\n",
            2,
        ),
        (
            "Bench/WalkBench.cs",
            "public class WalkBench\n{\n    [Benchmark]\n    public void Walk() {}\n}\n",
            3,
        ),
        (
            "README.md",
            "# walker\n\nA file finder.\n\n## Benchmarks\n\nRun with hyperfine.\n",
            5,
        ),
    ] {
        let (repo, subject) = repo_with(&[(path, text), ("src/walk.go", "package walk\n")], SLOW);
        let (first, d) = all_questions(&repo, &subject);
        let q = question(&first, "benchmark");
        assert!(
            q.question_text.contains(&format!("{path}:{line}"))
                && q.recommended.as_deref() == Some("existing_bench"),
            "{path}: {}",
            q.question_text
        );
        assert_honest(&repo, &d);
    }
}

#[test]
fn a_file_in_a_benchmark_folder_is_the_benchmark() {
    let (repo, subject) = repo_with(
        &[("benchmarks/walk.py", "import time\n\nstart = time.time()\n")],
        SLOW,
    );
    let (first, _) = all_questions(&repo, &subject);
    let q = question(&first, "benchmark");
    assert!(
        q.question_text.contains("benchmarks/walk.py:1"),
        "{}",
        q.question_text
    );
}

#[test]
fn only_a_repository_without_any_form_of_benchmark_is_said_to_show_none() {
    // A sentence that names a benchmark is no harness, and a script's comment is no heading.
    let (repo, subject) = repo_with(
        &[
            ("README.md", "# walker\n\nWe have no Benchmark. Yet.\n"),
            ("run.sh", "#!/bin/sh\n# Benchmarks would go here\necho hi\n"),
        ],
        SLOW,
    );
    let (first, d) = all_questions(&repo, &subject);
    let q = question(&first, "benchmark");
    assert!(
        q.question_text.contains(
            "The repository shows no benchmark (no benchmark folder, harness or heading)"
        ) && !q.question_text.contains("README.md")
            && !q.question_text.contains("run.sh"),
        "{}",
        q.question_text
    );
    assert_honest(&repo, &d);
}

#[test]
fn the_projects_own_command_as_typed_and_another_programs_flag_are_not_asked_as_unknown() {
    let script = "#!/usr/bin/env bash\n# Manage tool versions.\n\ntool_install() {\n  echo \"installing $1\"\n}\n\ncase \"$1\" in\n  install) tool_install \"$2\" ;;\nesac\n";
    let (repo, subject) = repo_with(
        &[("bin/tool", script)],
        "# Aliases are not installed\n\nAfter `tool alias lts 4.2`, running `tool install lts` \
         fails, although `rvm use lts --default` works in RVM. I expected it to install the \
         latest `4.2.x`.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let texts: Vec<&String> = first.iter().map(|q| &q.question_text).collect();
    for unknown in [
        "tool alias lts 4.2",
        "tool install lts",
        "--default",
        "4.2.x",
    ] {
        assert!(
            !texts.iter().any(|t| t.contains(unknown)),
            "{unknown}: {texts:?}"
        );
    }
    assert!(!first.is_empty());
    assert_honest(&repo, &d);
}

const MESSAGES_RB: &str = "module Tool\n  module Messages\n    DEFAULTS = {\n      too_many_arguments: \"too many arguments\",\n      no_such_option: \"unrecognised option '%s'\"\n    }\n  end\nend\n";

const ASSEMBLING_PY: &str = "def set_default_command(parser, function):\n    for name in declared:\n        if name not in spec:\n            raise AssemblingError(\n                '{func}: argument {flags} does not fit '\n                'function signature: {sig}'.format(\n                    flags=name, func=function.__name__, sig=spec))\n";

#[test]
fn a_message_retyped_with_a_capital_or_a_value_for_a_placeholder_is_found_never_nowhere() {
    // Ruby: the source prints it in lower case, the reporter wrote a capital.
    let (repo, subject) = repo_with(
        &[("lib/tool/messages.rb", MESSAGES_RB)],
        "# Extra argument fails\n\nI pass one argument too many:\n\n```\n$ tool run a b c\n\
         ERROR: Too many arguments\n```\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let q = message_question(&first);
    assert!(
        q.question_text.starts_with(
            "\"Too many arguments\" (line 7) is printed on purpose at lib/tool/messages.rb:4"
        ),
        "{}",
        q.question_text
    );
    assert!(
        !d.entries.iter().any(|e| e.content.contains("nowhere")),
        "{:?}",
        d.entries
    );
    assert_honest(&repo, &d);

    // Python: the source formats the function's and the argument's names into the message.
    let (repo, subject) = repo_with(
        &[("tool/assembling.py", ASSEMBLING_PY)],
        "# First example fails\n\nThe first example fails with:\n\n```\n\
         tool.exceptions.AssemblingError: main: argument name does not fit function signature: args\n\
         ```\n\nAm I missing something?\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    assert!(
        !first
            .iter()
            .any(|q| q.question_text.contains("appears nowhere")),
        "{first:?}"
    );
    assert!(
        !d.entries.iter().any(|e| e.content.contains("nowhere")),
        "{:?}",
        d.entries
    );
    assert_honest(&repo, &d);
}
