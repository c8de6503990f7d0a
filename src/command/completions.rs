//! `interview completions <SHELL>`: a completion script for the shell, from the command-line
//! types themselves (README, "Install").

use clap::CommandFactory;

use crate::cli::{Cli, Shell};
use crate::error::Result;

pub fn run(shell: Shell) -> Result<i32> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "interview", &mut script);
    super::print_bytes(&script, "the completion script")
}
