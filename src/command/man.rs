//! `interview man`: the manual page (roff), from the command-line types themselves, with a page
//! section for each command (README, "Install").

use crate::error::{Error, Result};

pub(super) fn run() -> Result<i32> {
    let mut command = super::completions::visible_command();
    command.build();
    let command = command.clone().override_usage(synopsis(&command));
    let mut page = Vec::new();
    let man = clap_mangen::Man::new(command.clone());
    man.render_title(&mut page)
        .and_then(|()| man.render_name_section(&mut page))
        .and_then(|()| man.render_synopsis_section(&mut page))
        .and_then(|()| man.render_description_section(&mut page))
        .and_then(|()| man.render_options_section(&mut page))
        .and_then(|()| render_commands(&command, &mut page))
        .and_then(|()| render_sections(&mut page))
        .and_then(|()| man.render_version_section(&mut page))
        .map_err(|e| Error::io("cannot render the manual page", e))?;
    let page = ascii_roff(&String::from_utf8_lossy(&page));
    super::print_bytes(page.as_bytes(), "the manual page")
}

/// The synopsis with each option's value (`[-C <DIR>]`), which the generated one leaves out.
fn synopsis(command: &clap::Command) -> String {
    let mut line = command.get_name().to_string();
    let shown =
        |a: &&clap::Arg| !a.is_hide_set() && !["help", "version"].contains(&a.get_id().as_str());
    for arg in command.get_arguments().filter(shown) {
        let name = match (arg.get_short(), arg.get_long()) {
            (_, Some(long)) => format!("--{long}"),
            (Some(short), None) => format!("-{short}"),
            (None, None) => continue,
        };
        if arg.get_num_args().is_some_and(|n| n.takes_values()) {
            let value = match arg.get_value_names() {
                Some([value, ..]) => value.to_string(),
                _ => arg.get_id().as_str().to_uppercase(),
            };
            line.push_str(&format!(" [{name} <{value}>]"));
        } else {
            line.push_str(&format!(" [{name}]"));
        }
    }
    line.push_str(" <COMMAND>");
    line
}

/// One `COMMANDS` section: each visible subcommand with its usage, about and options.
fn render_commands(command: &clap::Command, page: &mut Vec<u8>) -> std::io::Result<()> {
    page.extend_from_slice(b".SH COMMANDS\n");
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        let mut sub = sub
            .clone()
            .bin_name(format!("interview {}", sub.get_name()));
        let usage = sub.render_usage().to_string();
        let usage = usage.trim_start_matches("Usage: ");
        page.extend_from_slice(format!(".TP\n\\fB{}\\fR\n", roff_escape(usage)).as_bytes());
        if let Some(about) = sub.get_long_about().or(sub.get_about()) {
            page.extend_from_slice(format!("{}\n", roff_escape(&about.to_string())).as_bytes());
        }
        // Global options are in their own section (GLOBAL OPTIONS), not repeated here.
        let own = |a: &&clap::Arg| !a.is_hide_set() && !a.is_global_set();
        for arg in sub.get_arguments().filter(own) {
            let name = match (arg.get_short(), arg.get_long()) {
                (_, Some(long)) => format!("--{long}"),
                (Some(short), None) => format!("-{short}"),
                (None, None) => format!("<{}>", arg.get_id()),
            };
            if name == "--help" {
                continue;
            }
            let takes_value = arg.get_num_args().is_some_and(|n| n.takes_values());
            let name = match arg.get_value_names() {
                Some([value, ..]) if takes_value && arg.get_long().is_some() => {
                    format!("{name} <{value}>")
                }
                _ if takes_value && arg.get_long().is_some() => {
                    format!("{name} <{}>", arg.get_id().as_str().to_uppercase())
                }
                _ => name,
            };
            let help = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
            page.extend_from_slice(
                format!(
                    ".RS\n.TP\n\\fB{}\\fR\n{}\n{}.RE\n",
                    roff_escape(&name),
                    roff_escape(&help),
                    possible_values(arg)
                )
                .as_bytes(),
            );
        }
    }
    Ok(())
}

/// The values an option takes, in roff: `[possible values: fail, skip]`, or one value a line
/// with its help where the values have one (`auto: use what this machine offers`), as cargo's
/// pages list them; nothing for an option that takes any value.
fn possible_values(arg: &clap::Arg) -> String {
    if arg.is_hide_possible_values_set() || !arg.get_action().takes_values() {
        return String::new();
    }
    let values: Vec<_> = arg
        .get_possible_values()
        .into_iter()
        .filter(|v| !v.is_hide_set())
        .collect();
    if values.is_empty() {
        return String::new();
    }
    if values.iter().all(|v| v.get_help().is_none()) {
        let names: Vec<&str> = values.iter().map(|v| v.get_name()).collect();
        return format!(
            ".br\n[possible values: {}]\n",
            roff_escape(&names.join(", "))
        );
    }
    let mut text = String::from(".br\nPossible values:\n");
    for value in &values {
        let help = value
            .get_help()
            .map(|h| format!(": {h}"))
            .unwrap_or_default();
        text.push_str(&format!(
            ".br\n\\(bu \\fI{}\\fR{}\n",
            roff_escape(value.get_name()),
            roff_escape(&help)
        ));
    }
    text
}

/// The sections git's and cargo's pages have after the commands: EXIT STATUS, ENVIRONMENT,
/// FILES and EXAMPLES.
fn render_sections(page: &mut Vec<u8>) -> std::io::Result<()> {
    use crate::error::code;
    let exits = [
        (code::DONE, "done"),
        (
            code::ERROR,
            "error (I/O, repository, subject, another interview running in this worktree)",
        ),
        (code::USAGE, "usage, including a malformed answers file"),
        (
            code::GUARD,
            "the change guard stopped the run: the runner changed the repository",
        ),
        (code::RUNNER_FAILED, "the runner failed after its retries"),
        (
            code::MISSING_ANSWER,
            "the answers file has no answer for a question, or no letter for a decision",
        ),
        (
            code::CIRCUIT_OPEN,
            "circuit breaker open: a failed session needs a decision (resume --ack)",
        ),
        (
            code::CHECK_DIFFERS,
            "--check: the replayed document differs from the committed one (the diff is on \
             standard output)",
        ),
        (
            code::INTERRUPTED,
            "interrupted; the answers so far are saved",
        ),
        (
            code::CLOSED_OUTPUT,
            "standard output was closed while the document was printed (--out -); the session \
             is left to resume",
        ),
    ];
    page.extend_from_slice(b".SH \"EXIT STATUS\"\n");
    for (code, meaning) in exits {
        page.extend_from_slice(
            format!(".TP\n\\fB{code}\\fR\n{}\n", roff_escape(meaning)).as_bytes(),
        );
    }
    render_list(page, "ENVIRONMENT", ENVIRONMENT)?;
    render_list(page, "FILES", FILES)?;
    page.extend_from_slice(b".SH EXAMPLES\n");
    for (line, what) in EXAMPLES {
        page.extend_from_slice(
            format!(
                ".TP\n{}\n.nf\n\\fB{}\\fR\n.fi\n",
                roff_escape(what),
                roff_escape(line)
            )
            .as_bytes(),
        );
    }
    Ok(())
}

fn render_list(page: &mut Vec<u8>, title: &str, items: &[(&str, &str)]) -> std::io::Result<()> {
    page.extend_from_slice(format!(".SH {title}\n").as_bytes());
    for (name, meaning) in items {
        page.extend_from_slice(
            format!(
                ".TP\n\\fB{}\\fR\n{}\n",
                roff_escape(name),
                roff_escape(meaning)
            )
            .as_bytes(),
        );
    }
    Ok(())
}

/// The variables the tool reads, and those it sets for a runner (docs/runners.md, docs/person.md).
const ENVIRONMENT: &[(&str, &str)] = &[
    (
        "NO_COLOR",
        "set and not empty: no colour, bold or other escape sequence (as --color never); \
         --color always still wins",
    ),
    (
        "TERM",
        "unset or dumb: no escape sequence; the progress line is redrawn with carriage returns",
    ),
    (
        "OPENAI_API_KEY",
        "the key of --runner openai (a local server needs none); passed to codex and aider too",
    ),
    (
        "OPENAI_BASE_URL",
        "the OpenAI-compatible server of --runner openai (default OpenAI's; or -- --base-url URL)",
    ),
    (
        "OPENAI_MODEL",
        "the model of --runner openai and --runner ollama when -- --model NAME is not given",
    ),
    (
        "ANTHROPIC_API_KEY, GEMINI_API_KEY",
        "passed only to the preset that reads it (claude, gemini, aider); a command of your own \
         gets a variable only when runner_env in .interview/config.toml lists it",
    ),
    (
        "INTERVIEW_BRIEF, INTERVIEW_CONTEXT",
        "set for a runner: the paths of the turn's brief.md and brief.json",
    ),
    (
        "INTERVIEW_OUT, INTERVIEW_RECEIPT",
        "set for a runner: the turn's out/ directory, the only place it may write, and \
         $INTERVIEW_OUT/receipt.json, where its receipt goes",
    ),
    (
        "INTERVIEW_SCHEMA, INTERVIEW_TURN, INTERVIEW_FINAL, INTERVIEW_SESSION",
        "set for a runner: the receipt's JSON Schema, the turn number from 1, 1 on the final \
         turn (else 0), the session id",
    ),
];

/// Where the tool reads and writes (README, "Where things are"; docs/config.md, docs/ci.md).
const FILES: &[(&str, &str)] = &[
    (
        "interview.toml",
        "the repository's shared configuration, committed",
    ),
    (
        ".interview/config.toml",
        "local overrides for this clone; a flag wins over both files",
    ),
    (
        ".interview/",
        "the local tier, never committed (excluded via .git/info/exclude): sessions/<id>/ with \
         state.json, transcript.jsonl, answers.json and turns/NNN/; telemetry.jsonl",
    ),
    (
        "docs/interviews/",
        "the documents written, meant to be committed",
    ),
    (
        "ci/answers/",
        "recorded answers (interview answers ... --out ci/answers/intent-42.json) that CI \
         replays with --answers",
    ),
];

/// The README's command lines (its "Use" block), each with what it does.
const EXAMPLES: &[(&str, &str)] = &[
    (
        "interview intent 42",
        "Interview about issue 42: finds docs/intents/42*.md, or asks gh issue view 42",
    ),
    (
        "interview intent 42 --runner claude",
        "Let Claude Code ask (read-only, plan mode)",
    ),
    (
        "interview intent 42 --runner codex -- -m gpt-5.1-codex",
        "A preset with extra arguments",
    ),
    (
        "interview reflect v1.2.0 --runner 'python3 my_runner.py'",
        "Reflect on the changes since a tag, asked by a runner of your own",
    ),
    (
        "interview answers intent 42 -o my-answers.json",
        "Record what you answered...",
    ),
    (
        "interview intent 42 --from examples/intents/42-export-csv.md --answers my-answers.json --yes",
        "...and replay it in CI",
    ),
    ("interview status", "Where the latest session stands"),
    (
        "interview resume",
        "Continue an interrupted or failed session",
    ),
    (
        "interview guard --allow 'target/**' -- cargo build",
        "Run any command under the change guard",
    ),
    (
        "interview runners",
        "Which agent CLIs are installed, what each runs, the sandbox",
    ),
    ("interview stats", "Skip rates from local telemetry"),
    (
        "interview prune --older-than 30",
        "Remove finished sessions older than 30 days",
    ),
];

/// The page in ASCII: every other character as the glyph name groff knows, so that `man` in
/// any locale (`LANG=C` included) renders it without "can't find special character".
fn ascii_roff(page: &str) -> String {
    let mut out = String::with_capacity(page.len());
    for c in page.chars() {
        match c {
            c if c.is_ascii() => out.push(c),
            '…' => out.push_str("..."),
            '—' => out.push_str("\\(em"),
            '–' => out.push_str("\\(en"),
            '‘' => out.push_str("\\(oq"),
            '’' => out.push_str("\\(cq"),
            '“' => out.push_str("\\(lq"),
            '”' => out.push_str("\\(rq"),
            '→' => out.push_str("\\(->"),
            '←' => out.push_str("\\(<-"),
            '×' => out.push_str("\\(mu"),
            '≤' => out.push_str("\\(<="),
            '≥' => out.push_str("\\(>="),
            '·' => out.push_str("\\(pc"),
            c => out.push_str(&format!("\\[u{:04X}]", c as u32)),
        }
    }
    out
}

/// Text made safe for a roff line: backslashes doubled, a leading `.` or `'` guarded, dashes
/// kept as hyphens.
fn roff_escape(text: &str) -> String {
    text.lines()
        .map(|line| {
            let escaped = line.replace('\\', "\\e").replace('-', "\\-");
            if escaped.starts_with('.') || escaped.starts_with('\'') {
                format!("\\&{escaped}")
            } else {
                escaped
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::Cli;
    use clap::CommandFactory;

    #[test]
    fn the_page_is_ascii_with_groff_glyph_names() {
        assert_eq!(
            ascii_roff("a … b — c ‘d’ é"),
            "a ... b \\(em c \\(oqd\\(cq \\[u00E9]"
        );
        let mut page = Vec::new();
        clap_mangen::Man::new(Cli::command())
            .render(&mut page)
            .unwrap();
        assert!(ascii_roff(&String::from_utf8_lossy(&page)).is_ascii());
    }
}
