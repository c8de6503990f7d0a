//! `interview completions <SHELL>`: a completion script for the shell, from the command-line
//! types themselves (README, "Install").

use clap::CommandFactory;

use crate::cli::{Cli, Shell};
use crate::error::Result;

pub(super) fn run(shell: Shell) -> Result<i32> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut visible_command(), "interview", &mut script);
    super::print_bytes(&script, "the completion script")
}

/// The command line as a person sees it: the hidden subcommands (the internal `runner`) left
/// out, which completion generators would otherwise offer.
pub(super) fn visible_command() -> clap::Command {
    let full = Cli::command();
    let mut visible = clap::Command::new("interview")
        .args(full.get_arguments().cloned())
        .subcommands(full.get_subcommands().filter(|s| !s.is_hide_set()).cloned())
        .subcommand_required(full.is_subcommand_required_set())
        .arg_required_else_help(full.is_arg_required_else_help_set());
    if full.get_version().is_some() {
        visible = visible.version(env!("CARGO_PKG_VERSION"));
    }
    if let Some(about) = full.get_about() {
        visible = visible.about(about.clone());
    }
    visible
}
