//! What a new user reads and sees first (issue 28): help that lists the presets and every
//! default in plain words, completions that offer the values each option takes, and a manual
//! page that `man` finds after the README's install steps.

use std::path::Path;
use std::process::Command;

use crate::util::*;

fn help(args: &[&str]) -> String {
    let repo = TempRepo::new();
    let out = repo.run(args);
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    stdout(&out)
}

/// The line of `help` that starts with `option` and the lines of its description after it.
fn option_help<'a>(help: &'a str, option: &str) -> &'a str {
    let start = help
        .find(&format!("  {option}"))
        .unwrap_or_else(|| panic!("no {option} in:\n{help}"));
    let rest = &help[start + 2..];
    let end = rest.find("\n  -").map_or(rest.len(), |e| e + 1);
    &rest[..end]
}

#[test]
fn runner_help_lists_every_preset() {
    for command in ["intent", "reflect", "resume"] {
        let text = help(&[command, "--help"]);
        let runner = option_help(&text, "--runner");
        for preset in [
            "builtin", "claude", "codex", "gemini", "aider", "openai", "ollama",
        ] {
            assert!(
                runner.contains(preset),
                "{command}: no {preset} in:\n{runner}"
            );
        }
    }
}

#[test]
fn every_run_option_shows_its_default() {
    let text = help(&["intent", "--help"]);
    for (option, default) in [
        ("--runner", "[default: builtin]"),
        ("--missing", "[default: fail]"),
        ("--on-change", "[default: ask at a terminal, else fail]"),
        ("--max-turns", "[default: 5]"),
        ("--turn-timeout", "[default: 600]"),
        ("--grace", "[default: 5]"),
        ("--retries", "[default: 3]"),
        ("--out", "[default: docs/interviews/<kind>-<id>.md]"),
        ("--sandbox", "[default: auto]"),
        ("--color", "[default: auto]"),
    ] {
        let shown = option_help(&text, option)
            .split_whitespace()
            .collect::<Vec<_>>();
        let wanted = default.split_whitespace().collect::<Vec<_>>();
        assert!(
            shown.windows(wanted.len()).any(|w| w == wanted),
            "{option} does not show {default}:\n{}",
            option_help(&text, option)
        );
    }
    let sandbox = option_help(&text, "--sandbox");
    for mode in ["auto", "require", "landlock-only", "off"] {
        assert!(sandbox.contains(mode), "no {mode} in:\n{sandbox}");
    }
}

#[test]
fn help_speaks_the_words_of_the_docs_not_jargon() {
    let commands: &[&[&str]] = &[
        &["--help"],
        &["reflect", "--help"],
        &["intent", "--help"],
        &["resume", "--help"],
        &["status", "--help"],
        &["answers", "--help"],
        &["guard", "--help"],
        &["runners", "--help"],
        &["stats", "--help"],
        &["prune", "--help"],
    ];
    for args in commands {
        let text = help(args).to_lowercase();
        for jargon in ["consent gate", "local tier", "circuit breaker"] {
            assert!(!text.contains(jargon), "{args:?} says {jargon:?}:\n{text}");
        }
    }
}

#[test]
fn guard_help_shows_the_values_guard_takes() {
    let text = help(&["guard", "-h"]);
    assert!(text.contains("--on-change fail|warn"), "{text}");
    let on_change = option_help(&text, "--on-change");
    assert!(on_change.contains("[default: fail]"), "{on_change}");
    assert!(
        on_change.contains("[possible values: fail, warn]"),
        "{on_change}"
    );
    let repo = TempRepo::new();
    let out = repo.run(&["guard", "--on-change", "ask", "--", "true"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

/// What bash offers after `words` (the last one the word being completed).
fn bash_offers(words: &[&str]) -> Vec<String> {
    let repo = TempRepo::new();
    let script = stdout(&repo.run(&["completions", "bash"]));
    let quoted = words
        .iter()
        .map(|w| format!("'{w}'"))
        .collect::<Vec<_>>()
        .join(" ");
    let probe = format!(
        "{script}\nCOMP_WORDS=(interview {quoted}); COMP_CWORD={}; \
         COMP_LINE=\"${{COMP_WORDS[*]}}\"; COMP_POINT=${{#COMP_LINE}}; \
         _interview interview \"${{COMP_WORDS[COMP_CWORD]}}\" \"${{COMP_WORDS[COMP_CWORD-1]}}\"; \
         printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        words.len()
    );
    let out = Command::new("bash")
        .args(["--norc", "--noprofile", "-c", &probe])
        .current_dir(repo.path())
        .output()
        .expect("bash runs");
    assert!(out.status.success(), "bash: {}", stderr(&out));
    let mut offered: Vec<String> = stdout(&out).lines().map(str::to_string).collect();
    offered.sort();
    offered
}

#[test]
fn bash_completes_the_values_of_runner_sandbox_on_change_and_missing() {
    let sorted = |v: &[&str]| {
        let mut v: Vec<String> = v.iter().map(|s| s.to_string()).collect();
        v.sort();
        v
    };
    assert_eq!(
        bash_offers(&["intent", "42", "--runner", ""]),
        sorted(&[
            "builtin", "claude", "codex", "gemini", "aider", "openai", "ollama"
        ])
    );
    assert_eq!(
        bash_offers(&["reflect", "v1", "--sandbox", ""]),
        sorted(&["auto", "require", "landlock-only", "off"])
    );
    assert_eq!(
        bash_offers(&["intent", "42", "--on-change", ""]),
        sorted(&["fail", "ask", "warn"])
    );
    assert_eq!(
        bash_offers(&["intent", "42", "--missing", ""]),
        sorted(&["fail", "skip"])
    );
    assert_eq!(
        bash_offers(&["guard", "--on-change", ""]),
        sorted(&["fail", "warn"])
    );
}

#[test]
fn a_runner_command_line_is_still_taken() {
    let repo = TempRepo::new();
    let out = repo.run(&[
        "reflect",
        "HEAD",
        "--runner",
        "no-such-runner-program --flag",
        "--max-turns",
        "0",
    ]);
    // Parsed: the run stops later, at the number of turns.
    assert!(
        !stderr(&out).contains("invalid value") && stderr(&out).contains("--max-turns"),
        "--runner refused a command line: {}",
        stderr(&out)
    );
}

#[test]
fn the_hidden_runner_command_is_offered_by_no_completion_nor_the_man_page() {
    let commands = bash_offers(&[""]);
    assert!(commands.contains(&"runners".to_string()), "{commands:?}");
    assert!(!commands.contains(&"runner".to_string()), "{commands:?}");
    let repo = TempRepo::new();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = stdout(&repo.run(&["completions", shell]));
        assert!(
            !script.contains("built-in runner"),
            "{shell} offers the hidden runner command"
        );
    }
    let page = stdout(&repo.run(&["man"]));
    assert!(!page.contains("built\\-in runner"), "{page}");
    assert!(!page.contains("interview runner "), "{page}");
}

#[test]
fn the_man_synopsis_shows_option_values() {
    let repo = TempRepo::new();
    let page = stdout(&repo.run(&["man"]));
    let synopsis = page
        .split(".SH SYNOPSIS")
        .nth(1)
        .and_then(|s| s.split(".SH").next())
        .unwrap_or_else(|| panic!("no synopsis in:\n{page}"));
    assert!(synopsis.contains("[\\-C <DIR>]"), "{synopsis}");
    assert!(synopsis.contains("[\\-\\-color <COLOR>]"), "{synopsis}");
}

/// The README's install block that writes the manual page, line for line.
fn readme_install_block() -> String {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md");
    let install = readme
        .split("\n## Install\n")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("README has an Install section");
    install
        .split("```sh\n")
        .skip(1)
        .filter_map(|b| b.split("```").next())
        .find(|b| b.contains("interview man"))
        .expect("the Install section writes the manual page")
        .to_string()
}

#[test]
fn man_interview_works_after_the_readmes_install_steps() {
    // A throwaway HOME where `cargo install` put the binary: ~/.cargo/bin on PATH.
    let home = tempfile::tempdir().unwrap();
    let bin_dir = home.path().join(".cargo/bin");
    std::fs::create_dir_all(&bin_dir).unwrap();
    std::os::unix::fs::symlink(bin(), bin_dir.join("interview")).unwrap();
    let path = format!("{}:/usr/local/bin:/usr/bin:/bin", bin_dir.display());
    let steps = readme_install_block();
    assert!(steps.contains("man interview"), "{steps}");
    let out = Command::new("sh")
        .args(["-eu", "-c", &steps])
        .current_dir(home.path())
        .env_clear()
        .env("HOME", home.path())
        .env("PATH", &path)
        .env("MANPAGER", "cat")
        .env("PAGER", "cat")
        .env("LC_ALL", "C")
        .output()
        .expect("sh runs");
    assert!(
        out.status.success(),
        "the README's steps fail: {}\n{steps}",
        stderr(&out)
    );
    assert!(stdout(&out).contains("interview"), "{}", stdout(&out));
    let found = Command::new("man")
        .args(["-w", "interview"])
        .env_clear()
        .env("HOME", home.path())
        .env("PATH", &path)
        .output()
        .expect("man runs (.ci/run installs man-db)");
    assert!(found.status.success(), "man -w: {}", stderr(&found));
    assert!(
        stdout(&found).starts_with(&home.path().display().to_string()),
        "man found another page: {}",
        stdout(&found)
    );
}

#[test]
fn a_range_past_the_first_commit_says_how_long_the_history_is() {
    let repo = TempRepo::new();
    repo.commit_files(&["a", "b", "c"]);
    let commits = repo.git(&["rev-list", "--count", "HEAD"]);
    let commits = commits.trim();
    let out = repo.run(&["reflect", "HEAD~10", "--yes", "--out", "-"]);
    let err = stderr(&out);
    assert_ne!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains(&format!("the history has {commits} commits")),
        "{err}"
    );
    assert!(!err.contains("HEAD~20"), "{err}");
}

/// The hint after an unknown revision says only what holds here: a revision that exists, and
/// `git tag` only when it lists more tags than the message named.
#[test]
fn an_unknown_revision_hints_only_at_what_exists() {
    let repo = TempRepo::new();
    repo.commit_files(&["a", "b", "c"]);
    let err = stderr(&repo.run(&["reflect", "v9", "--yes", "--out", "-"]));
    assert!(
        err.contains("the repository has no tags; name a commit instead, e.g. HEAD~3."),
        "{err}"
    );
    assert!(!err.contains("git tag"), "{err}");
    let err = stderr(&repo.run(&["reflect", "HEAD~10", "--yes", "--out", "-"]));
    assert!(!err.contains("git tag"), "{err}");
    for tag in [
        "v1.0.0", "v1.1.0", "v1.2.0", "v1.3.0", "v2.0.0", "v2.1.0", "v3.0.0",
    ] {
        repo.git(&["tag", tag]);
    }
    let err = stderr(&repo.run(&["reflect", "v1.2.1", "--yes", "--out", "-"]));
    assert!(err.contains("nearest tags: v1.2.0, "), "{err}");
    assert!(err.contains("`git tag` lists all 7 tags."), "{err}");
    repo.git(&["tag", "-d", "v2.1.0", "v3.0.0"]);
    let err = stderr(&repo.run(&["reflect", "v1.2.1", "--yes", "--out", "-"]));
    assert!(!err.contains("git tag"), "{err}");
}
