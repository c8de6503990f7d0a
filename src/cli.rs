//! Command-line types (clap): the low-level arguments as typed. Parsed once; the command layer
//! (`command/`) turns them into settings and nothing below it sees these types.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

pub(crate) use crate::ask::{ColorChoice, Missing};
pub(crate) use crate::session::OnChange;

/// The heading the options of every command are listed under, apart from each command's own.
const GLOBAL: &str = "Global options";

#[derive(Debug, Parser)]
#[command(
    name = "interview",
    version,
    about = "Let an AI agent interview you about a repository — and prove it changed nothing."
)]
pub(crate) struct Cli {
    /// Run as if started in DIR.
    #[arg(short = 'C', global = true, value_name = "DIR", help_heading = GLOBAL)]
    pub dir: Option<PathBuf>,
    /// When to use colour and bold text.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto, help_heading = GLOBAL)]
    pub color: ColorChoice,
    /// Do not ring the terminal bell before a decision.
    #[arg(long, global = true, help_heading = GLOBAL)]
    pub no_bell: bool,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// A retrospective on the work since a tag (or any revision).
    Reflect {
        /// The tag or revision the range starts from (`TAG..HEAD`).
        tag: String,
        #[command(flatten)]
        run: RunOptions,
    },
    /// Clarify a work item before it is built.
    Intent {
        /// The work item id.
        id: String,
        /// Read the work item from FILE (`-` for standard input).
        #[arg(long, value_name = "FILE")]
        from: Option<PathBuf>,
        /// Append the answered questions to this spec file as `## Clarifications`.
        #[arg(long, value_name = "FILE")]
        clarify_into: Option<PathBuf>,
        #[command(flatten)]
        run: RunOptions,
    },
    /// Continue an aborted or failed session from where it stopped.
    Resume {
        /// The session id (default: the latest unfinished session).
        session: Option<String>,
        /// Acknowledge, without a terminal, what stopped a session after its retries ran out,
        /// and continue it.
        #[arg(long)]
        ack: bool,
        #[command(flatten)]
        run: RunOptions,
    },
    /// Show where a session stands: turns, current step, retries, decisions, blockers.
    Status {
        /// The session id (default: the latest session).
        session: Option<String>,
        /// List every session.
        #[arg(long)]
        all: bool,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print a session's answers in the replay format, ready to commit as a CI fixture.
    Answers {
        /// A session id, or a subject: `intent 42`, `reflect v1.2.0` (its latest session).
        /// Default: the latest session.
        #[arg(num_args = 0..=2, value_name = "SESSION | KIND ID")]
        which: Vec<String>,
        /// Write the answers to FILE (atomically: on any failure FILE is left as it was)
        /// instead of standard output (`--out`, as everywhere; `-o` and `--output` too).
        #[arg(
            short = 'o',
            long = "out",
            visible_alias = "output",
            value_name = "FILE"
        )]
        output: Option<std::path::PathBuf>,
    },
    /// Run a command and report what it changed in the repository, or print a snapshot.
    Guard(GuardOptions),
    /// List the runner presets, whether each is installed, and what each runs.
    Runners {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Skip rates and Q&A durations from the local telemetry.
    Stats {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Remove finished sessions from `.interview/` (never an unfinished or running one).
    Prune {
        /// Only sessions last changed more than DAYS days ago.
        #[arg(long, value_name = "DAYS")]
        older_than: Option<u64>,
        /// Keep the N most recent finished sessions whatever their age.
        #[arg(long, value_name = "N")]
        keep: Option<usize>,
        /// Also remove unfinished sessions that hold no answer (nothing is lost with them).
        #[arg(long)]
        unfinished: bool,
    },
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    ///
    /// bash: save it in ~/.local/share/bash-completion/completions/interview (read by the
    /// bash-completion package), or without that package add `source <(interview completions
    /// bash)` to ~/.bashrc.
    Completions {
        /// The shell to complete for.
        #[arg(value_enum)]
        shell: Shell,
    },
    /// Print the manual page (roff) on standard output.
    Man,
    /// Internal: run a built-in runner (started by the tool as a subprocess).
    #[command(hide = true)]
    Runner {
        /// The runner's name (`builtin`, `openai`, `ollama`).
        name: String,
        /// The runner's own arguments (the model runner's `--model NAME` …).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

#[derive(Debug, Args)]
#[command(
    override_usage = "interview guard [--on-change fail|warn] [--sandbox MODE] [--allow GLOB]… [--json] -- CMD [ARGS…]\n       interview guard snapshot [--json]"
)]
pub(crate) struct GuardOptions {
    #[command(subcommand)]
    pub snapshot: Option<GuardCommand>,
    /// What to do when the command changed the repository: `fail` (exit 3 with the report) or
    /// `warn` (print the report, exit with the command's own code).
    #[arg(long, value_enum, default_value_t = GuardOnChange::Fail)]
    pub on_change: GuardOnChange,
    /// Print the report (or snapshot) as JSON.
    #[arg(long)]
    pub json: bool,
    /// Confine the command as a runner is (`auto`, `require`, `landlock-only`); by default the
    /// command is yours and runs unconfined.
    #[arg(long, value_enum, value_name = "MODE", default_value = "off")]
    pub sandbox: crate::sandbox::Mode,
    /// A worktree path the command is expected to write, as a glob (`target/**`, `build`):
    /// changes there are not reported. Repeatable; adds to `guard_allow` in the config.
    #[arg(long, value_name = "GLOB")]
    pub allow: Vec<String>,
    /// The command to run under the guard, after `--`.
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
}

#[derive(Debug, Subcommand)]
pub(crate) enum GuardCommand {
    /// Print one snapshot of the repository (what the guard compares).
    Snapshot {
        /// Print the snapshot as JSON.
        #[arg(long)]
        json: bool,
    },
}

/// What `interview guard` does when the command changed the repository (there is no one to
/// ask, so no `ask`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum GuardOnChange {
    Fail,
    Warn,
}

/// The shells `interview completions` writes a script for.
pub(crate) use clap_complete::Shell;

#[derive(Debug, Clone, Args)]
pub(crate) struct RunOptions {
    #[arg(
        long,
        value_name = "NAME|CMD",
        help = runner_help(),
        value_parser = RunnerValue,
        hide_possible_values = true
    )]
    pub runner: Option<String>,
    /// Replay answers from FILE instead of asking.
    #[arg(long, value_name = "FILE")]
    pub answers: Option<PathBuf>,
    /// Replay an answers file that was recorded about another subject.
    #[arg(long, requires = "answers")]
    pub any_subject: bool,
    /// With --answers: write nothing, compare the replayed document with the one at --out (or
    /// its default place) and exit 7 with a unified diff and the command that refreshes it
    /// when they differ (as `cargo fmt --check` does).
    #[arg(long, requires = "answers")]
    pub check: bool,
    /// In replay, what to do with a question that has no recorded answer.
    #[arg(long, value_enum, default_value_t = Missing::Fail)]
    pub missing: Missing,
    /// What to do when the runner changed the repository [default: ask at a terminal, else fail]
    #[arg(long, value_enum)]
    pub on_change: Option<OnChange>,
    /// Most turns before the runner must finish [default: 5]
    #[arg(long, value_name = "N")]
    pub max_turns: Option<u32>,
    /// Seconds a turn may take before the runner is stopped [default: 600]
    #[arg(long, value_name = "SECONDS")]
    pub turn_timeout: Option<u64>,
    /// Seconds between SIGTERM and SIGKILL when a turn is stopped [default: 5]
    #[arg(long, value_name = "SECONDS")]
    pub grace: Option<u64>,
    /// Automatic retries of a failed turn [default: 3]
    #[arg(long, value_name = "N")]
    pub retries: Option<u32>,
    /// Where to write the document (`-` prints it to standard output)
    /// [default: docs/interviews/<kind>-<id>.md]
    // Help text, shown as written: `<kind>` is no HTML tag.
    #[allow(rustdoc::invalid_html_tags)]
    #[arg(long, value_name = "PATH")]
    pub out: Option<PathBuf>,
    /// Write the finished document without asking first.
    #[arg(long)]
    pub yes: bool,
    /// Also stream the runner's output (sanitised).
    #[arg(long)]
    pub verbose: bool,
    /// Confine the runner: `auto` (what this machine offers), `require` (refuse to run without
    /// every protection), `landlock-only` (refuse without Landlock) or `off` (only report
    /// changes) [default: auto]
    #[arg(long, value_enum, value_name = "MODE")]
    pub sandbox: Option<crate::sandbox::Mode>,
    /// The runner's network under the sandbox: `auto` (none for the built-in interviewer and a
    /// command of your own; an agent CLI keeps its own), `on` or `off` [default: auto]
    #[arg(long, value_enum, value_name = "MODE")]
    pub network: Option<crate::sandbox::Network>,
    /// The most a runner may write under the sandbox, in MiB: its TMPDIR, and each file it
    /// writes anywhere [default: 1024]
    #[arg(long, value_name = "MIB")]
    pub runner_disk: Option<u64>,
    /// Arguments for the runner, after its own (`--runner claude -- --model NAME`).
    #[arg(last = true, value_name = "RUNNER ARGS")]
    pub runner_args: Vec<String>,
}

/// `--runner`'s help: the presets' names, from the preset table.
fn runner_help() -> String {
    format!(
        "A preset ({}) or a command line 'CMD ARGS…' [default: builtin]",
        crate::runner::preset_names().join(", ")
    )
}

/// `--runner` takes any text; the presets' names are offered as completions.
#[derive(Debug, Clone, Copy)]
struct RunnerValue;

impl clap::builder::TypedValueParser for RunnerValue {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        clap::builder::StringValueParser::new().parse_ref(cmd, arg, value)
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            crate::runner::preset_names()
                .into_iter()
                .map(clap::builder::PossibleValue::new),
        ))
    }
}
