//! The built-in intent interviewer against the maintainers' first replies of the development
//! set (`examples/devset/replies.tsv`), second round: names whose absence says nothing are not
//! asked about, the reporter's own program is not the repository, version questions follow
//! what the item says, documented behaviour comes first, and a recommendation comes with
//! evidence. Each on a small repository and item of the same class, not the real issue.

use interview::testing::{Clarity, Question};

use crate::interviewer::{all_questions, assert_honest, question, repo_with, topic_list};

fn texts(qs: &[Question]) -> String {
    qs.iter()
        .map(|q| format!("{}: {}", q.topic, q.question_text))
        .collect::<Vec<_>>()
        .join("\n")
}

const LIB_RS: &str = "pub fn frob(x: u32) -> u32 {\n    x + 1\n}\n";

#[test]
fn names_of_the_language_other_programs_and_the_items_own_program_are_not_asked_about() {
    let (repo, subject) = repo_with(
        &[
            ("Cargo.toml", "[package]\nname = \"app\"\n"),
            ("src/lib.rs", LIB_RS),
        ],
        "# `frob` crashes with a missing widget\n\nI call `frob` from `neovim` with `telescope`; \
         a `OnceLock` holds app's `frob_widget` it crashes in. I expected lines like \
         `file:LINE:text`.\n\nMy wrapper:\n\n```js\nprogram.option('--log [path]', 'log path')\n```\n\n\
         Running it with `--log` crashes.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let q = question(&first, "names_not_found");
    assert!(
        q.question_text.contains("`frob_widget`"),
        "{}",
        q.question_text
    );
    // The same name on a line that does not give it to the project: the reporter's own.
    let (own, own_subject) = repo_with(
        &[
            ("Cargo.toml", "[package]\nname = \"app\"\n"),
            ("src/lib.rs", LIB_RS),
        ],
        "# `frob` crashes with a missing widget\n\nMy `OnceLock` holds the `frob_widget` it \
         crashes in.\n",
    );
    let (other, _) = all_questions(&own, &own_subject);
    assert!(
        !topic_list(&other).contains(&"names_not_found"),
        "{}",
        texts(&other)
    );
    for outside in ["neovim", "telescope", "OnceLock", "LINE", "--log"] {
        assert!(
            !q.question_text.contains(outside),
            "{outside}: {}",
            q.question_text
        );
    }
    assert_honest(&repo, &d);
}

#[test]
fn the_standard_library_of_the_repositorys_language_is_not_a_name_it_lacks() {
    let (repo, subject) = repo_with(
        &[
            ("go.mod", "module example.com/tool\n\ngo 1.15\n"),
            (
                "run.go",
                "package tool\n\nimport \"io/ioutil\"\n\nfunc Read(r Reader) []byte {\n\tb, _ := ioutil.ReadAll(r)\n\treturn b\n}\n\nfunc Again(r Reader) []byte {\n\tb, _ := ioutil.ReadAll(r)\n\treturn b\n}\n",
            ),
        ],
        "# Remove deprecated `ioutil.ReadAll`\n\nReplace `ioutil.ReadAll` with `io.ReadAll`.\n",
    );
    let (first, _) = all_questions(&repo, &subject);
    assert!(
        !topic_list(&first).contains(&"names_not_found"),
        "{}",
        texts(&first)
    );
}

#[test]
fn a_short_flag_with_its_value_written_against_it_is_that_flag() {
    let app = "pub fn app() -> App {\n    App::new(\"find\")\n        .arg(Arg::new(\"threads\")\n            .long(\"threads\")\n            .short('j'))\n}\n";
    let (repo, subject) = repo_with(
        &[("src/app.rs", app)],
        "# Listing is slow on many cores\n\nWith `-j1` it takes 0.01 seconds instead of 0.2 \
         seconds.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    assert!(
        !first.iter().any(|q| q.question_text.contains("-j1")),
        "{}",
        texts(&first)
    );
    assert!(
        d.entries
            .iter()
            .any(|e| e.title == "`-j` in the repository" && e.clarity == Clarity::Confirmed),
        "{d:?}"
    );
}

#[test]
fn a_timing_given_as_a_factor_is_a_comparison_to_check_first() {
    let (repo, subject) = repo_with(
        &[("src/main.rs", "fn main() {}\n")],
        "# Listing is slow on many cores\n\nAn empty folder takes 0.2 seconds on 64 cores. With \
         one thread it takes 0.01 seconds, 20x faster.\n",
    );
    let (first, _) = all_questions(&repo, &subject);
    let q = question(&first, "comparison");
    assert_eq!(q.recommended.as_deref(), Some("same_work"));
}

#[test]
fn a_message_or_word_the_items_own_program_prints_is_not_looked_for() {
    let (repo, subject) = repo_with(
        &[("src/task.rs", "pub fn tick() {}\n")],
        "# abort has no effect\n\nI tried this code:\n\n```rust\nfn main() {\n    \
         println!(\"tick\");\n    println!(\"End of main\");\n}\n```\n\nI expected `tick` lines, \
         then `End of main`, and nothing after it.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    // Whether what the item expected is intended quotes its line; it looks nothing up: it names
    // no place in the repository.
    for q in &first {
        if q.topic == "intended_behaviour" {
            assert!(!q.question_text.contains("src/task.rs"), "{q:?}");
            continue;
        }
        assert!(!q.question_text.contains("End of main"), "{q:?}");
        assert!(!q.question_text.contains("`tick`"), "{q:?}");
    }
    for e in &d.entries {
        if e.title == "Intended, or a bug" {
            assert!(!e.content.contains("src/task.rs"), "{e:?}");
            continue;
        }
        assert!(!e.content.contains("End of main"), "{e:?}");
        assert!(e.title != "`tick` in the repository", "{e:?}");
    }
}

#[test]
fn a_report_of_the_release_head_is_at_is_not_asked_to_reproduce_on_head_nor_its_version() {
    let (repo, subject) = repo_with(
        &[("src/lib.rs", LIB_RS)],
        "# `frob` returns the wrong value\n\n**Version**\n1.2.0\n\n**Description**\nIt returns \
         two more than it should.\n",
    );
    repo.git(&["tag", "v1.1.0"]);
    repo.write("CHANGELOG.md", "# 1.2.0\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "1.2.0"]);
    repo.git(&["tag", "v1.2.0"]);
    let (first, _) = all_questions(&repo, &subject);
    // The report is of HEAD's code: whether it reproduces on HEAD is answered.
    assert!(
        !topic_list(&first).contains(&"reproduces_on_head"),
        "{}",
        texts(&first)
    );
    // Not a regression and its version is known: no "which version" question.
    assert!(
        !topic_list(&first).contains(&"first_bad_version"),
        "{}",
        texts(&first)
    );
}

#[test]
fn a_bug_that_is_no_regression_is_asked_which_version_shows_it_and_not_the_os() {
    let tagged = |item: &str| {
        let (repo, subject) = repo_with(
            &[
                ("Cargo.toml", "[package]\nname = \"tool\"\n"),
                ("src/lib.rs", LIB_RS),
            ],
            item,
        );
        repo.git(&["tag", "v1.0.0"]);
        repo.write("CHANGELOG.md", "# next\n");
        repo.git(&["add", "-A"]);
        repo.git(&["commit", "-q", "-m", "next"]);
        all_questions(&repo, &subject).0
    };
    // A caller of the library that shows no run of the program: the version is not asked.
    let called =
        tagged("# `frob` returns the wrong value\n\nIt returns two more than it should.\n");
    assert!(
        !topic_list(&called).contains(&"first_bad_version"),
        "{}",
        texts(&called)
    );
    let plain = tagged(
        "# `frob` returns the wrong value\n\n`tool frob 3` returns two more than it should.\n",
    );
    let q = question(&plain, "first_bad_version");
    assert!(
        q.question_text.starts_with("Which version shows it?"),
        "{}",
        q.question_text
    );
    assert!(
        !topic_list(&plain).contains(&"environment"),
        "{}",
        texts(&plain)
    );
    let regression = tagged(
        "# `frob` returns the wrong value\n\n`tool frob 3` used to return one more; now it \
         returns two more than it should.\n",
    );
    let q = question(&regression, "first_bad_version");
    assert!(
        q.question_text
            .starts_with("Which version first showed it?"),
        "{}",
        q.question_text
    );
    // A regression told in prose, with no run of the program: the version is still asked.
    for told in [
        "It used to return one more.",
        "It worked in the older release.",
        "Since upgrading it returns two more.",
        "After the last update it returns two more.",
    ] {
        let prose = tagged(&format!("# `frob` returns the wrong value\n\n{told}\n"));
        let q = question(&prose, "first_bad_version");
        assert!(
            q.question_text
                .starts_with("Which version first showed it?"),
            "{told}: {}",
            q.question_text
        );
    }
}

#[test]
fn a_message_in_a_comment_or_an_example_is_not_a_place_that_produces_it() {
    let (repo, subject) = repo_with(
        &[
            (
                "src/cache.rs",
                "/// Fails with \"could not open the cache\" when the folder is gone.\npub fn open() -> Result<(), String> {\n    Err(\"could not open the cache\".into())\n}\n",
            ),
            (
                "examples/demo.rs",
                "fn main() {\n    // error: could not open the cache\n    eprintln!(\"could not open the cache\");\n}\n",
            ),
        ],
        "# Crash on start\n\n```\n$ app\nerror: could not open the cache\n```\n\nIt should \
         start with an empty cache.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    // One place prints it, on purpose: asked whether this case should reach it, never which
    // of several places (the doc comment and the example are none).
    let asked: Vec<&str> = first
        .iter()
        .filter(|q| q.topic.starts_with("message_"))
        .map(|q| q.question_text.as_str())
        .collect();
    assert_eq!(
        asked,
        [
            "\"could not open the cache\" (line 5) is printed on purpose at src/cache.rs:3 in \
          `open`. Intended here (then: what to do instead), or a bug?"
        ],
        "{}",
        texts(&first)
    );
    let e = d
        .entries
        .iter()
        .find(|e| e.title.contains("could not open the cache"))
        .unwrap_or_else(|| panic!("the message's place: {d:?}"));
    assert_eq!(e.clarity, Clarity::Confirmed);
    assert!(e.sources.contains(&"src/cache.rs:3".to_string()), "{e:?}");
}

#[test]
fn a_bug_its_apis_documentation_says_is_intended_is_asked_that_first() {
    let blocking = "/// Runs `f` on a thread where blocking is fine.\n///\n/// Closures spawned using \
                    `spawn_blocking` cannot be cancelled. Shut down with a timeout.\npub fn spawn_blocking<F>(f: F) -> JoinHandle {\n    run(f)\n}\n";
    let other =
        "pub fn spawn_blocking<F>(f: F) -> JoinHandle {\n    crate::task::spawn_blocking(f)\n}\n";
    let abort = "impl JoinHandle {\n    /// Dropping the handle does *not* abort the task.\n    pub fn abort(&self) {}\n}\n";
    let (repo, subject) = repo_with(
        &[
            ("src/task.rs", blocking),
            ("src/runtime.rs", other),
            ("src/handle.rs", other),
            ("src/join.rs", abort),
        ],
        "# `JoinHandle::abort` does not abort tasks started with `spawn_blocking`\n\n\
         **Version**\n1.2.0\n\n**Description**\nCalling `abort` on what `spawn_blocking` \
         returned has no effect.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let q = &first[0];
    assert_eq!(q.topic, "documented_spawn_blocking", "{}", texts(&first));
    assert!(
        q.question_text.contains(
            "src/task.rs:3: \"Closures spawned using `spawn_blocking` cannot be cancelled.\""
        ),
        "{}",
        q.question_text
    );
    assert_eq!(q.recommended.as_deref(), Some("documented"));
    assert_honest(&repo, &d);
}

#[test]
fn the_test_naming_the_most_of_what_the_item_names_is_recommended() {
    let (repo, subject) = repo_with(
        &[
            (
                "src/join.rs",
                "pub struct JoinHandle;\n\nimpl JoinHandle {\n    pub fn abort(&self) {}\n}\n",
            ),
            (
                "tests/a_pinned.rs",
                "#[test]\nfn pinned() {\n    let h = start();\n    h.abort();\n}\n",
            ),
            (
                "tests/b_abort.rs",
                "#[test]\nfn aborts() {\n    let h: JoinHandle = start();\n    h.abort();\n}\n",
            ),
        ],
        "# fix: `abort` is ignored by a `JoinHandle` whose task sleeps\n\nCalling `abort` on a \
         `JoinHandle` whose task sleeps has no effect; it should stop it. No test catches it.\n",
    );
    let (first, _) = all_questions(&repo, &subject);
    let q = question(&first, "regression_test");
    assert_eq!(
        q.recommended.as_deref(),
        Some("tests_b_abort_rs"),
        "{}",
        q.question_text
    );
}

#[test]
fn code_the_bug_quotes_that_is_still_there_recommends_that_it_reproduces() {
    let usage = "function usage(cmd) {\n  var args = cmd.args;\n  var usage = '[options'\n    + (cmd.commands.length ? '] [command' : '')\n    + ']'\n    + (args.length ? ' ' + args : '');\n  return usage;\n}\n";
    let (repo, subject) = repo_with(
        &[
            ("package.json", "{\"name\": \"cmd\"}\n"),
            ("lib/usage.js", usage),
        ],
        "# fix: the help joins arguments with commas\n\nIn `usage()` the argument list is joined with commas:\n\n\
         ```js\nvar usage = '[options'\n    + (cmd.commands.length ? '] [command' : '')\n    \
         + (args.length ? ' ' + args : '');\n```\n\nIt should be joined with spaces.\n",
    );
    let (first, _) = all_questions(&repo, &subject);
    let q = question(&first, "reproduces_on_head");
    assert!(
        q.question_text.contains("is still at lib/usage.js:3"),
        "{}",
        q.question_text
    );
    assert_eq!(q.recommended.as_deref(), Some("yes"));
    // One common line of a user's program is no quote of the repository.
    let (repo, subject) = repo_with(
        &[
            ("package.json", "{\"name\": \"cmd\"}\n"),
            (
                "lib/parse.js",
                "function run(program) {\n  program.parse(process.argv);\n}\n",
            ),
        ],
        "# fix: the help is not shown\n\n```js\nconst program = new Command();\nprogram.parse(process.argv);\n```\n\n\
         It should show the help.\n",
    );
    let (first, _) = all_questions(&repo, &subject);
    let q = question(&first, "reproduces_on_head");
    assert_eq!(q.recommended, None, "{}", q.question_text);
}

#[test]
fn updating_the_docs_is_asked_only_when_nothing_else_is() {
    let cli = "pub fn app() -> App {\n    App::new(\"grep\")\n        .arg(Arg::new(\"files-without-match\")\n            .long(\"files-without-match\"))\n}\n";
    let (repo, subject) = repo_with(
        &[
            ("src/app.rs", cli),
            (
                "README.md",
                "Use `--files-without-match` to list the others.\n",
            ),
        ],
        "# Add a `--files-without-match` flag\n\nI want to list the files that do not match.\n",
    );
    let (first, _) = all_questions(&repo, &subject);
    question(&first, "existing_files_without_match");
    assert!(
        !topic_list(&first).contains(&"docs_update"),
        "{}",
        texts(&first)
    );
}

#[test]
fn a_part_the_item_makes_optional_is_recommended_for_later() {
    let (repo, subject) = repo_with(
        &[("src/main.rs", "fn main() {}\n")],
        "# Add an exclude option\n\nAdd an option that leaves matching entries out.\n\n\
         Perhaps a complementary include option too.\n",
    );
    let (first, _) = all_questions(&repo, &subject);
    let q = question(&first, "vague_maybe");
    assert_eq!(q.recommended.as_deref(), Some("follow_up"));
    // "Probably" hedges; it does not make a part optional.
    let (repo, subject) = repo_with(
        &[("src/main.rs", "fn main() {}\n")],
        "# Add an exclude option\n\nAdd an option that leaves matching entries out.\n\n\
         It should probably take a glob.\n",
    );
    let (first, _) = all_questions(&repo, &subject);
    let q = question(&first, "vague_maybe");
    assert_eq!(q.recommended, None);
}

#[test]
fn a_refactor_only_tests_use_is_not_asked_about_behaviour_or_pinning_tests() {
    let test = "package tool\n\nimport (\n\t\"io/ioutil\"\n\t\"testing\"\n)\n\nfunc TestRead(t *testing.T) {\n\tb, _ := ioutil.ReadAll(r)\n\t_ = b\n}\n\nfunc TestAgain(t *testing.T) {\n\tb, _ := ioutil.ReadAll(r)\n\t_ = b\n}\n";
    let (repo, subject) = repo_with(
        &[
            ("go.mod", "module example.com/tool\n\ngo 1.15\n"),
            ("tool.go", "package tool\n\nfunc Run() {}\n"),
            ("tool_test.go", test),
        ],
        "# Remove deprecated `ioutil.ReadAll`\n\nA few tests call `ioutil.ReadAll`, deprecated \
         since Go 1.16; use `io.ReadAll` instead.\n",
    );
    let (first, _) = all_questions(&repo, &subject);
    let topics = topic_list(&first);
    assert!(topics.contains(&"call_sites"), "{}", texts(&first));
    // The declared Go is older than what the item relies on, but tests are built by CI.
    assert!(topics.contains(&"msrv"), "{}", texts(&first));
    for generic in ["behaviour_preserved", "tests_pin_behaviour"] {
        assert!(!topics.contains(&generic), "{generic}: {}", texts(&first));
    }
}

#[test]
fn a_refactor_that_needs_a_newer_toolchain_than_declared_asks_that_alone() {
    let cell = "pub struct OnceCell<T> {\n    value: Option<T>,\n}\n";
    let user = "use crate::once_cell::OnceCell;\n\npub static A: OnceCell<u32> = OnceCell::new();\npub static B: OnceCell<u32> = OnceCell::new();\n";
    let (repo, subject) = repo_with(
        &[
            (
                "Cargo.toml",
                "[package]\nname = \"rt\"\nrust-version = \"1.56\"\n",
            ),
            ("src/once_cell.rs", cell),
            ("src/globals.rs", user),
        ],
        "# refactor: replace OnceCell with the standard library's\n\n`OnceCell` is stable in \
         the standard library since Rust 1.70.0. Use it in place of our own `OnceCell`.\n",
    );
    let (first, _) = all_questions(&repo, &subject);
    assert_eq!(topic_list(&first), vec!["msrv"], "{}", texts(&first));
    assert_eq!(first[0].recommended.as_deref(), Some("keep_msrv"));
}

fn kind_of(d: &interview::testing::Done) -> String {
    d.entries
        .iter()
        .find(|e| e.title == "What kind of work item this is")
        .map(|e| e.content.clone())
        .unwrap_or_else(|| panic!("no kind entry: {d:?}"))
}

#[test]
fn using_an_environment_variable_in_place_of_a_fixed_program_is_a_feature() {
    let (repo, subject) = repo_with(
        &[(
            "src/output.rs",
            "pub fn pager() -> Command {\n    Command::new(\"less\")\n}\n",
        )],
        "# Use PAGER environment variable instead of 'less'\n\n`app` should use the pager \
         named in the `PAGER` environment variable, and only use `less` if `PAGER` is unset.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    assert!(
        kind_of(&d).starts_with("Read as a feature request"),
        "{}",
        kind_of(&d)
    );
    // `PAGER` is the environment's: not finding it in the code says nothing.
    assert!(
        !first.iter().any(|q| q.question_text.contains("`PAGER`")),
        "{}",
        texts(&first)
    );
}

#[test]
fn a_title_that_says_something_is_not_done_is_a_bug_report() {
    let (repo, subject) = repo_with(
        &[("src/lib.rs", LIB_RS)],
        "# paging not done with a custom pager\n\nWith my pager set, the output is printed \
         directly. Setting `--paging always` does not help.\n",
    );
    let (_, d) = all_questions(&repo, &subject);
    assert!(
        kind_of(&d).starts_with("Read as a bug report"),
        "{}",
        kind_of(&d)
    );
}

#[test]
fn the_flags_of_another_programs_command_line_are_not_the_projects() {
    let cli = "pub fn app() -> App {\n    App::new(\"cat\")\n        .arg(Arg::new(\"paging\")\n            .long(\"paging\"))\n}\n";
    let (repo, subject) = repo_with(
        &[("src/app.rs", cli)],
        "# Page through my pager\n\nMy PAGER is set to 'less -R' so that other tools page \
         nicely. Add a way to page through it, like `less -S` does for long lines.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    for q in &first {
        assert!(
            !q.question_text.contains("`-R`") && !q.question_text.contains("`-S`"),
            "{q:?}"
        );
    }
    for e in &d.entries {
        assert!(!e.content.contains("`-R`"), "{e:?}");
    }
}

#[test]
fn a_benchmark_script_under_tests_is_no_test_that_shows_a_bug() {
    let (repo, subject) = repo_with(
        &[
            (
                "src/app.rs",
                "pub fn app() -> App {\n    App::new(\"cat\")\n        .arg(Arg::new(\"paging\")\n            .long(\"paging\"))\n}\n",
            ),
            (
                "tests/benchmarks/compare.sh",
                "#!/bin/sh\nhyperfine 'cat --paging never big.txt'\n",
            ),
        ],
        "# fix: paging does not start\n\nRunning with `--paging always` prints directly, without \
         the pager.\n",
    );
    let (first, _) = all_questions(&repo, &subject);
    assert!(
        !topic_list(&first).contains(&"regression_test"),
        "{}",
        texts(&first)
    );
}

#[test]
fn a_program_used_in_place_of_another_asks_about_the_arguments_the_code_gives_it() {
    let output = "pub fn pager(quit: bool) -> Child {\n    let mut args = vec![\"--RAW-CONTROL-CHARS\", \"--no-init\"];\n    if quit {\n        args.push(\"--quit-if-one-screen\");\n    }\n    Command::new(\"less\")\n        .args(&args)\n        .spawn()\n}\n";
    let (repo, subject) = repo_with(
        &[("src/output.rs", output)],
        "# Use the VIEWER environment variable instead of `less`\n\nThe pager named in the \
         `VIEWER` environment variable should be used, and `less` only when it is unset.\n",
    );
    let (first, d) = all_questions(&repo, &subject);
    let q = question(&first, "program_arguments_less");
    assert!(
        q.question_text.contains(
            "`less` is started at src/output.rs:6 with `--RAW-CONTROL-CHARS`, `--no-init`, \
             `--quit-if-one-screen` nearby (src/output.rs:2, 4)"
        ),
        "{}",
        q.question_text
    );
    assert_eq!(q.recommended.as_deref(), Some("only_it"));
    assert_honest(&repo, &d);
}
