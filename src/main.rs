//! The `interview` binary: parse the command line, run the command, exit with its code.

use clap::Parser;

fn main() {
    // Our own executable started as the sandbox launcher: before anything else (no thread yet).
    if let Some(code) = interview::sandbox::launch::main_if_asked() {
        std::process::exit(code);
    }
    // A runner of the same user must not open our /proc entries (fds, memory, environment),
    // and no child inherits a descriptor the tool's parent left open (`9<>/dev/tty`).
    interview::sys::at_start();
    let cli = interview::cli::Cli::parse();
    let code = match interview::command::run(cli) {
        Ok(code) => code,
        Err(interview::Error::ClosedOutput) => interview::error::code::CLOSED_OUTPUT,
        Err(err) => {
            // What an error quotes (a file name from the repository, a runner's words) is
            // shown as text, never obeyed by the terminal.
            let (shown, _) = interview::receipt::sanitize(&format!("interview: {err}"));
            interview::output::stderr_line(&shown);
            err.code()
        }
    };
    std::process::exit(code);
}
