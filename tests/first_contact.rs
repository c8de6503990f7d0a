//! What a new user meets at the start and at the end of an interview (issue 40): one line that
//! says what is interviewed, in which repository, from what and by which runner; after the
//! document is written, what to do next; and a status that claims nothing that did not happen.

use crate::util::*;

const ANSWERS: &str = r#"{ "interview_answers": 1,
  "answers": { "deployment_target": "1", "users": "skip", "encoding": "utf-8" } }"#;

#[test]
fn a_terminal_is_told_what_is_interviewed_where_and_then_what_to_do_next() {
    let repo = TempRepo::new();
    let mut pty = Interview::of_work_item(&repo)
        .preset("builtin")
        .at_terminal_sized(400);
    let before = pty.expect("turn 1 of");
    let start = format!(
        "Intent of 7: Export to CSV · repository {} · work item from item.md · runner builtin",
        repo.path().display()
    );
    assert!(before.contains(&start), "no start line:\n{before}");
    let (code, end) = pty.answer_as_a_person();
    assert_eq!(code, 0, "{end}");
    assert!(
        end.contains(&format!(
            "Next: commit it (`git add {DOCUMENT} && git commit`), and record your answers for \
             CI to replay: `interview answers intent 7 -o ci/answers/intent-7.json`"
        )),
        "no next steps:\n{end}"
    );
}

#[test]
fn a_piped_run_says_neither_the_start_line_nor_the_next_steps() {
    let repo = TempRepo::new();
    let out = Interview::of_work_item(&repo)
        .runner("honest.sh")
        .answers(ANSWERS)
        .yes()
        .run()
        .exits(0);
    let screen = out.screen();
    assert!(screen.contains("Wrote"), "{screen}");
    assert!(!screen.contains("· repository "), "{screen}");
    assert!(!screen.contains("Next: commit it"), "{screen}");
}

#[test]
fn status_does_not_say_the_document_is_written_when_it_was_printed() {
    let repo = TempRepo::new();
    let out = Interview::of_work_item(&repo)
        .runner("honest.sh")
        .answers(ANSWERS)
        .yes()
        .out("-")
        .run()
        .exits(0);
    assert!(
        out.stdout.contains("Export"),
        "not printed:\n{}",
        out.stdout
    );
    let status = stdout(&repo.run(&["status"]));
    assert!(!status.contains("the document is written"), "{status}");
    assert!(status.contains("shown, not written"), "{status}");
}

#[test]
fn interview_answers_takes_out_as_every_command_does_and_keeps_o() {
    let repo = TempRepo::new();
    Interview::of_work_item(&repo)
        .runner("honest.sh")
        .answers(ANSWERS)
        .yes()
        .run()
        .exits(0);
    for flag in ["--out", "-o", "--output"] {
        let file = repo.scratch(&format!("answers{flag}.json"));
        let out = repo.run(&["answers", "intent", "7", flag, file.to_str().unwrap()]);
        assert!(out.status.success(), "{flag}: {}", stderr(&out));
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.contains("\"interview_answers\": 1"), "{flag}: {text}");
    }
    let help = stdout(&repo.run(&["answers", "--help"]));
    assert!(help.contains("-o, --out <FILE>"), "{help}");
}

#[test]
fn global_options_have_their_own_section_in_every_commands_help() {
    let repo = TempRepo::new();
    for command in ["intent", "answers", "status", "runners"] {
        let help = stdout(&repo.run(&[command, "--help"]));
        let (own, global) = help
            .split_once("Global options:")
            .unwrap_or_else(|| panic!("{command}: no global section\n{help}"));
        assert!(!own.contains("--no-bell"), "{command}: interleaved\n{help}");
        assert!(
            global.contains("--no-bell") && global.contains("-C <DIR>"),
            "{help}"
        );
    }
}

#[test]
fn interview_runners_says_how_to_install_a_missing_cli() {
    let repo = TempRepo::new();
    let empty = tempfile::tempdir().unwrap();
    let out = repo
        .cmd()
        .arg("runners")
        .env("PATH", empty.path())
        .output()
        .unwrap();
    let text = stdout(&out);
    assert!(
        text.contains("not installed (claude not found on PATH)\n         install: npm install -g @anthropic-ai/claude-code@2.1.332"),
        "{text}"
    );
    assert!(
        text.contains("install: pipx install aider-chat==0.86.2"),
        "{text}"
    );
}

#[test]
fn completions_help_gives_the_source_fallback_for_bash_without_bash_completion() {
    let repo = TempRepo::new();
    let help = stdout(&repo.run(&["completions", "--help"]));
    assert!(
        help.contains("source <(interview completions bash)"),
        "{help}"
    );
    let man = stdout(&repo.run(&["man"]));
    assert!(
        man.contains("source <(interview completions"),
        "not in the man page"
    );
}

/// One section of the manual page, as roff (`EXIT STATUS` is quoted, having a space).
fn man_section<'a>(page: &'a str, title: &str) -> &'a str {
    let heading = if title.contains(' ') {
        format!(".SH \"{title}\"\n")
    } else {
        format!(".SH {title}\n")
    };
    page.split(&heading)
        .nth(1)
        .and_then(|s| s.split("\n.SH ").next())
        .unwrap_or_else(|| panic!("no {title} section in the man page"))
}

fn repository_file(path: &str) -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(root.join(path)).expect(path)
}

#[test]
fn the_man_page_has_examples_exit_status_files_and_environment_as_git_and_cargo_do() {
    let repo = TempRepo::new();
    let page = stdout(&repo.run(&["man"]));
    let roff = |text: &str| text.replace('-', "\\-");

    // EXAMPLES: every command line of the README's "Everyday use", as written there.
    let readme = repository_file("README.md");
    let everyday = readme
        .split("\n## Everyday use\n")
        .nth(1)
        .and_then(|s| s.split("```sh\n").nth(1))
        .and_then(|s| s.split("```").next())
        .expect("README has an Everyday use block");
    let examples = man_section(&page, "EXAMPLES");
    for line in everyday.lines() {
        let command = line.split("   #").next().unwrap().trim_end();
        let command = command.split(" #").next().unwrap().trim_end();
        assert!(
            examples.contains(&format!("\\fB{}\\fR", roff(command))),
            "not in EXAMPLES: {command}\n{examples}"
        );
    }

    // EXIT STATUS: every code docs/ci.md lists, with its meaning.
    let ci = repository_file("docs/ci.md");
    let table = ci
        .split("\n## Exit codes\n")
        .nth(1)
        .expect("docs/ci.md exit codes");
    let exit_status = man_section(&page, "EXIT STATUS");
    let mut codes = 0;
    for row in table
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| code"))
    {
        let code = row.split('|').nth(1).unwrap().trim();
        assert!(
            exit_status.contains(&format!(".TP\n\\fB{code}\\fR\n")),
            "exit {code} not in EXIT STATUS\n{exit_status}"
        );
        codes += 1;
    }
    assert_eq!(codes, 10, "{table}");
    assert!(
        exit_status.contains("circuit breaker open"),
        "{exit_status}"
    );

    let files = man_section(&page, "FILES").replace("\\&", "");
    for path in [
        ".interview/",
        ".interview/config.toml",
        "interview.toml",
        "docs/interviews/",
        "ci/answers/",
    ] {
        assert!(
            files.contains(&format!("\\fB{}\\fR", roff(path))),
            "{path}:\n{files}"
        );
    }
    let environment = man_section(&page, "ENVIRONMENT");
    for variable in [
        "NO_COLOR",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "OPENAI_MODEL",
        "INTERVIEW_OUT",
        "INTERVIEW_RECEIPT",
    ] {
        assert!(
            environment.contains(&roff(variable)),
            "{variable}:\n{environment}"
        );
    }
}

#[test]
fn the_man_page_lists_the_values_of_every_option_that_takes_a_fixed_set() {
    let repo = TempRepo::new();
    let page = stdout(&repo.run(&["man"]));
    let commands = man_section(&page, "COMMANDS");
    let intent = commands
        .split(".TP\n\\fBinterview intent")
        .nth(1)
        .and_then(|s| s.split(".TP\n\\fBinterview ").next())
        .expect("interview intent in COMMANDS");
    // Each option's entry shows its values: listed, or each said with what it does.
    for (option, values) in [
        ("\\-\\-missing", "[possible values: fail, skip]"),
        ("\\-\\-on\\-change", "[possible values: fail, ask, warn]"),
        ("\\-\\-sandbox", "\\fIlandlock\\-only\\fR: "),
        ("\\-\\-network", "\\fIoff\\fR: None for any runner"),
    ] {
        let entry = intent
            .split(&format!("\\fB{option} "))
            .nth(1)
            .expect(option);
        let entry = entry.split(".RE").next().unwrap();
        assert!(entry.contains(values), "{option}:\n{entry}");
    }
    // Global options are in GLOBAL OPTIONS once, not repeated under every command.
    assert!(
        !commands.contains("\\fB\\-\\-color <COLOR>\\fR"),
        "{commands}"
    );
}

#[test]
fn reflect_on_a_tag_past_the_newest_suggests_the_newest_tags() {
    let repo = TempRepo::new();
    for minor in 1..=12 {
        repo.git(&["tag", &format!("v0.{minor}.0")]);
    }
    repo.git(&["tag", "v1.0.0"]);
    repo.git(&["tag", "v1.1.0"]);
    let out = repo.run(&["reflect", "v9.9.9"]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("newest tags: v1.1.0, v1.0.0, v0.12.0, v0.11.0, v0.10.0."),
        "{err}"
    );
    assert!(!err.contains("v0.9.0"), "an old tag suggested:\n{err}");
}

#[test]
fn a_long_title_is_cut_between_words_not_inside_one() {
    let repo = TempRepo::new();
    repo.write(
        "item.md",
        "# Export every monthly report to comma separated values so that accountants can import \
         them into spreadsheets\n\nUsers want their data as CSV.\n",
    );
    Interview::intent(&repo, "7")
        .from("item.md")
        .preset("builtin")
        .answers(r#"{ "interview_answers": 1, "answers": {} }"#)
        .args(["--missing", "skip"])
        .yes()
        .run()
        .exits(0);
    let document = repo.read(DOCUMENT);
    let title = document.lines().next().unwrap();
    assert!(title.ends_with('…'), "not cut: {title}");
    let kept = title.trim_end_matches('…');
    let words = "# Intent of 7: Export every monthly report to comma separated values so that \
                 accountants can import them into spreadsheets";
    assert!(
        words.starts_with(kept) && words[kept.len()..].starts_with(' '),
        "cut inside a word: {title}"
    );
}

#[test]
fn a_re_run_says_once_what_was_already_answered_over_all_its_turns() {
    let repo = TempRepo::new();
    let item = std::fs::read_to_string(fixtures().join("intents/vague-export.md")).unwrap();
    repo.write("item.md", &item);
    // The first interview answers both rounds the built-in interviewer asks.
    Interview::intent(&repo, "7")
        .from("item.md")
        .preset("builtin")
        .answers(
            r#"{ "interview_answers": 1, "gate": ["y", "y"], "answers": {
                 "vague_tbd": "report-<month>.csv", "open_point_1": "Next to the month picker",
                 "acceptance_criteria": "March matches the fixture", "vague_fast": "under_1s",
                 "vague_etc": "CSV only", "vague_maybe": "no",
                 "error_handling": "Show an error line", "vague_simple": "one click" } }"#,
        )
        .yes()
        .run()
        .exits(0);
    // The re-run carries them into both rounds again and asks nothing.
    let pty = Interview::intent(&repo, "7")
        .from("item.md")
        .preset("builtin")
        .yes()
        .out("-")
        .at_terminal();
    let (code, shown) = pty.finish();
    assert_eq!(code, 0, "{shown}");
    let said = shown
        .matches("Already answered in an earlier interview, not asked again:")
        .count();
    assert_eq!(said, 1, "{shown}");
    assert!(shown.contains("Also not asked again:"), "{shown}");
    for answer in ["— CSV only", "— one click"] {
        assert!(shown.contains(answer), "{answer}:\n{shown}");
    }
}

/// A work item found nowhere, where `gh` is not installed: the message says GitHub was not
/// asked, and how to get `gh`, rather than reading as if GitHub had no such issue.
#[test]
fn not_found_says_gh_is_missing_when_it_is() {
    let repo = TempRepo::new();
    // A PATH with git and nothing else: no `gh` on it, whatever the machine has.
    let only_git = repo.scratch("only-git");
    std::fs::create_dir_all(&only_git).unwrap();
    let git = String::from_utf8(
        std::process::Command::new("sh")
            .args(["-c", "command -v git"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    std::os::unix::fs::symlink(git.trim(), only_git.join("git")).unwrap();
    let out = repo
        .cmd()
        .env("PATH", &only_git)
        .args(["intent", "9999"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("no work item `9999` found"), "{err}");
    assert!(
        err.contains("`gh` (GitHub CLI) is not installed, so GitHub issues were not looked up"),
        "{err}"
    );
    assert!(err.contains("https://cli.github.com"), "{err}");
}

/// `--from` a file outside the repository: a clean checkout in CI has no such file, so the next
/// steps say to copy it into the repository, where the replay finds it without `--from`.
#[test]
fn an_item_from_outside_the_repository_is_to_be_copied_in_for_ci() {
    let repo = TempRepo::new();
    let outside = repo.scratch("notes-7.md");
    std::fs::write(&outside, WORK_ITEM).unwrap();
    let mut pty = Interview::intent(&repo, "7")
        .from(outside.display().to_string())
        .preset("builtin")
        .at_terminal_sized(400);
    pty.expect("turn 1 of");
    let (code, end) = pty.answer_as_a_person();
    assert_eq!(code, 0, "{end}");
    assert!(
        end.contains(
            "The work item (notes-7.md) is outside the repository, where CI cannot read it: \
             copy it to docs/intents/7.md and commit it too"
        ),
        "{end}"
    );
    // An item inside the repository needs no such step.
    let inside = TempRepo::new();
    let mut pty = Interview::of_work_item(&inside)
        .preset("builtin")
        .at_terminal_sized(400);
    pty.expect("turn 1 of");
    let (code, end) = pty.answer_as_a_person();
    assert_eq!(code, 0, "{end}");
    assert!(end.contains("Next: commit it"), "{end}");
    assert!(!end.contains("outside the repository"), "{end}");
}
