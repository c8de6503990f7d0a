//! The `interview` binary: the library's `main` does the work and says the exit code.

fn main() {
    std::process::exit(interview::main());
}
