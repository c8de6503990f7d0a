use clap::Parser;

fn main() {
    let cli = interview::cli::Cli::parse();
    let code = match interview::run::run(cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("interview: {err}");
            err.code()
        }
    };
    std::process::exit(code);
}
