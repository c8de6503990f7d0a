//! What the item's own code declares or runs: the option its snippet declares
//! (`.option('required', …)`, `'-r, --required <x>'`) and the words of a command line that runs
//! its own script (`node ./main.js init --force`). They are the reporter's, never an unknown of
//! the project nor the project's declaration. A line running the project's own program
//! (`rg --vimgrep 'x'`, `['rg', '--vimgrep']`) is not the reporter's code: its flags are the
//! project's.

/// Programs that run a script file given next.
const INTERPRETERS: &[&str] = &[
    "node", "nodejs", "python", "python3", "ruby", "php", "bash", "sh", "zsh", "perl", "deno",
    "ts-node", "tsx", "bun",
];

/// Extensions of a script a reporter writes and runs.
const SCRIPTS: &[&str] = &[
    ".js", ".mjs", ".cjs", ".ts", ".py", ".rb", ".php", ".sh", ".pl",
];

/// The words from the script on of a command line that runs a script of the reporter's
/// (`node ./main.js init` → `./main.js`, `init`): the interpreter's own words, or a
/// `./script.py` run directly. Empty for any other line.
pub(super) fn script_words(line: &str) -> Vec<&str> {
    let line = line.trim_start();
    let line = line
        .strip_prefix("$ ")
        .or_else(|| line.strip_prefix("> "))
        .unwrap_or(line);
    let words: Vec<&str> = line
        .split_whitespace()
        .map(|w| w.trim_matches(['"', '\'', '`']))
        .collect();
    let script = |w: &str| SCRIPTS.iter().any(|e| w.ends_with(e)) && w.len() > 3;
    let at = match words.as_slice() {
        [first, ..] if first.starts_with("./") && script(first) => 0,
        [first, rest @ ..] if INTERPRETERS.contains(first) => {
            // `deno run main.ts`, `node --inspect main.js`: the first script word after it,
            // never code or a module given in its place (`-e`, `-c`, `-m`).
            let inline = |w: &str| matches!(w, "-e" | "-c" | "-m" | "-p" | "--eval" | "--print");
            match rest.iter().position(|w| script(w)) {
                Some(i)
                    if rest[..i]
                        .iter()
                        .all(|w| (w.starts_with('-') && !inline(w)) || *w == "run") =>
                {
                    i + 1
                }
                _ => return Vec::new(),
            }
        }
        _ => return Vec::new(),
    };
    words[at..]
        .iter()
        .take_while(|w| !matches!(**w, "|" | "&&" | "||" | ";" | ">" | "2>&1"))
        .copied()
        .collect()
}

/// Whether a line of code runs one of `programs`: its first word (after a prompt, any path
/// before it) is one, or a string literal of it is one (`['rg', '--vimgrep']`).
fn runs_program(line: &str, programs: &[String]) -> bool {
    let t = line.trim_start();
    let t = t
        .strip_prefix("$ ")
        .or_else(|| t.strip_prefix("> "))
        .unwrap_or(t);
    let first = t.split_whitespace().next().unwrap_or("");
    let first = first.rsplit('/').next().unwrap_or(first);
    let literal = ['"', '\''].iter().any(|q| {
        line.split(*q)
            .skip(1)
            .step_by(2)
            .any(|inside| programs.iter().any(|p| p == inside.trim()))
    });
    programs.iter().any(|p| p == first) || literal
}

/// Whether the item's code declares the flag `flag` in a string literal: the literal is its
/// bare name as a call's first argument (`.option('required', …)`) or a list of flags that
/// spells it (`'-r, --required <value>'`). A line running the project's own program
/// (`programs`) declares nothing: its flags are the project's.
pub(super) fn declares_flag(code: &[&str], flag: &str, programs: &[String]) -> bool {
    let bare = flag.trim_start_matches('-');
    if bare.is_empty() {
        return false;
    }
    code.iter()
        .filter(|l| !runs_program(l, programs))
        .any(|line| {
            ['"', '\''].iter().any(|q| {
                let parts: Vec<&str> = line.split(*q).collect();
                (1..parts.len()).step_by(2).any(|i| {
                    let inside = parts[i].trim();
                    let called = parts[i - 1].trim_end().ends_with('(');
                    // A literal of flags holds flags and placeholders only; a command in a string
                    // (`"-I$(brew --prefix)/include"`) declares nothing.
                    let words = || inside.split([' ', ',', '|']).filter(|w| !w.is_empty());
                    let flagged = words().all(|w| {
                        w.starts_with('-') || w.starts_with(['<', '[']) && w.ends_with(['>', ']'])
                    });
                    (called && inside == bare)
                        || flagged
                            && words().any(|w| w == flag || w.split('=').next() == Some(flag))
                })
            })
        })
}

#[cfg(test)]
mod tests {
    use super::{declares_flag, script_words};

    #[test]
    fn a_command_line_running_the_reporters_script_is_the_reporters() {
        assert_eq!(
            script_words("$ node ./main.js init --force"),
            ["./main.js", "init", "--force"]
        );
        assert_eq!(script_words("python3 cli.py run | less"), ["cli.py", "run"]);
        assert_eq!(script_words("./build.sh --fast"), ["./build.sh", "--fast"]);
        assert_eq!(script_words("deno run main.ts serve"), ["main.ts", "serve"]);
        // The project's own program, or an interpreter running something else, is not.
        assert!(script_words("rg --no-ignore foo").is_empty());
        assert!(script_words("node -e 'x.js'").is_empty());
        assert!(script_words("python -m pip install x.py").is_empty());
    }

    #[test]
    fn a_flag_the_snippet_declares_by_name_or_in_its_flags_string() {
        let code = [
            "program.option('required', 'is it')",
            "  .option('-c, --cheese <type>', 'add cheese')",
        ];
        assert!(declares_flag(&code, "--required", &[]));
        assert!(declares_flag(&code, "--cheese", &[]));
        assert!(!declares_flag(&code, "--pepper", &[]));
        assert!(!declares_flag(&["rg --required x"], "--required", &[]));
        assert!(!declares_flag(
            &["x=\"-I$(brew --prefix x)/inc\""],
            "--prefix",
            &[]
        ));
    }

    #[test]
    fn a_line_running_the_projects_own_program_declares_none_of_its_flags() {
        let rg = ["rg".to_string()];
        // The project's program run from a shell or from the reporter's code: its flags.
        assert!(!declares_flag(
            &["$ rg --style 'vimgrep' x"],
            "--vimgrep",
            &rg
        ));
        assert!(!declares_flag(
            &["./target/release/rg '--vimgrep' x"],
            "--vimgrep",
            &rg
        ));
        assert!(!declares_flag(
            &["run(['rg', '--vimgrep', p])"],
            "--vimgrep",
            &rg
        ));
        // A bare word declares a flag only as a call's first argument.
        assert!(!declares_flag(&["x --style 'plain'"], "--plain", &[]));
        // Another program's line, or the reporter's own parser, still declares.
        assert!(declares_flag(
            &["run(['grep', '--vimgrep'])"],
            "--vimgrep",
            &rg
        ));
        assert!(declares_flag(&["p.option('vimgrep')"], "--vimgrep", &rg));
    }
}
