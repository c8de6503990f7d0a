//! The `interview` binary: parse the command line, run the command, exit with its code.

use clap::Parser;

fn main() {
    let cli = interview::cli::Cli::parse();
    let code = match interview::command::run(cli) {
        Ok(code) => code,
        Err(interview::Error::ClosedOutput) => interview::error::code::CLOSED_OUTPUT,
        Err(err) => {
            interview::output::stderr_line(&format!("interview: {err}"));
            err.code()
        }
    };
    std::process::exit(code);
}
