//! The facts `interview reflect <REV>` gathers, alone: no session, no guard, no runner. For
//! benchmarks (`scripts/bench-reflect.sh`) and for looking at what the brief will carry.
//!
//! `cargo run --release --example reflect_facts -- [-C DIR] REV [--cached]` prints the facts of
//! `REV..HEAD` as JSON; `--cached` reads and fills the local tier's per-commit cache
//! (`.interview/cache/`, when `.interview/` exists), as `interview reflect` does.

use std::io::Write;
use std::path::PathBuf;

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut dir, mut rev, mut cached) = (PathBuf::from("."), None, false);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "-C" => dir = args.next().map(PathBuf::from).unwrap_or(dir),
            "--cached" => cached = true,
            _ => rev = Some(arg),
        }
    }
    let Some(rev) = rev else {
        eprintln!("usage: reflect_facts [-C DIR] REV [--cached]");
        std::process::exit(2);
    };
    let gathered = if cached {
        interview::testing::reflect::gather_cached(&dir, &rev)
    } else {
        interview::testing::reflect::gather(&dir, &rev)
    };
    match gathered.map(|f| serde_json::to_string_pretty(&f)) {
        Ok(Ok(json)) => {
            let _ = writeln!(std::io::stdout(), "{json}");
        }
        Ok(Err(e)) => {
            eprintln!("reflect_facts: {e}");
            std::process::exit(1);
        }
        Err(e) => {
            eprintln!("reflect_facts: {e}");
            std::process::exit(1);
        }
    }
}
