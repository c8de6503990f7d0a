//! Names that belong outside the repository: the standard library of the languages it is
//! written in, and well-known programs. Not finding one of them in the repository says nothing.
//!
//! Not for: finding names (see `names`) or searching for them (see `search`).

/// A language whose standard library the interviewer knows by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Lang {
    Rust,
    Go,
    Python,
    JavaScript,
}

impl Lang {
    /// The standard library's modules or packages, by the first segment of a qualified name
    /// (`std::sync::OnceLock`, `io.ReadAll`, `os.path`, `fs.readFile`).
    fn modules(self) -> &'static [&'static str] {
        match self {
            Lang::Rust => &["std", "core", "alloc"],
            Lang::Go => &[
                "io", "ioutil", "os", "fmt", "strings", "bytes", "bufio", "errors", "sync", "time",
                "context", "net", "http", "filepath", "path", "sort", "strconv", "regexp", "json",
                "reflect", "runtime", "testing", "unicode", "utf8", "log", "math", "exec",
                "signal", "atomic", "embed", "flag", "slices", "maps",
            ],
            Lang::Python => &[
                "os",
                "sys",
                "re",
                "io",
                "json",
                "time",
                "pathlib",
                "subprocess",
                "typing",
                "datetime",
                "itertools",
                "functools",
                "collections",
                "logging",
                "threading",
                "asyncio",
                "shutil",
                "tempfile",
                "argparse",
                "math",
            ],
            Lang::JavaScript => &[
                "console", "process", "fs", "path", "Promise", "JSON", "Object", "Array", "Math",
                "Buffer", "String", "Number",
            ],
        }
    }

    /// The standard library's types and functions, written bare (`OnceLock`, `HashMap`).
    fn names(self) -> &'static [&'static str] {
        match self {
            Lang::Rust => &[
                "OnceLock",
                "OnceCell",
                "LazyLock",
                "LazyCell",
                "Arc",
                "Rc",
                "Mutex",
                "RwLock",
                "HashMap",
                "HashSet",
                "BTreeMap",
                "BTreeSet",
                "VecDeque",
                "RefCell",
                "Cell",
                "PathBuf",
                "Duration",
                "Instant",
                "SystemTime",
                "Condvar",
                "AtomicUsize",
                "AtomicBool",
                "AtomicU64",
                "Cow",
                "Box",
                "Vec",
                "String",
                "Option",
                "Result",
                "Iterator",
                "IntoIterator",
                "Future",
                "Pin",
                "Drop",
                "println",
                "eprintln",
                "format",
                "panic",
            ],
            Lang::Go => &["append", "make", "len", "panic", "recover"],
            Lang::Python => &["__init__", "__main__", "isinstance", "print", "open"],
            Lang::JavaScript => &[
                "require",
                "setTimeout",
                "setInterval",
                "Symbol",
                "Map",
                "Set",
            ],
        }
    }
}

/// Programs and products an item may name beside the project: editors, shells, systems,
/// package managers and other search tools.
const OUTSIDE_NAMES: &[&str] = &[
    "vim", "neovim", "nvim", "emacs", "vscode", "tmux", "bash", "zsh", "fish", "git", "docker",
    "npm", "yarn", "pnpm", "node", "cargo", "rustc", "rustup", "pip", "pipx", "brew", "homebrew",
    "apt", "linux", "windows", "macos", "wsl", "grep", "find", "sed", "awk", "xargs", "ag", "ack",
    "fzf", "less", "make", "cmake", "python", "python3", "gopls", "clippy", "rustfmt", "systemd",
    "ssh", "curl", "wget",
];

/// Whether a name the repository lacks belongs to the language of the repository (`langs`)
/// or to another program, so that its absence says nothing: a standard-library name or
/// module, or a well-known tool.
pub(super) fn outside_name(text: &str, langs: &[Lang]) -> bool {
    let first = text
        .split("::")
        .next()
        .unwrap_or(text)
        .split('.')
        .next()
        .unwrap_or(text);
    let last = text
        .rsplit("::")
        .next()
        .unwrap_or(text)
        .trim_end_matches("()")
        .trim_end_matches('!');
    langs
        .iter()
        .any(|l| (first != text && l.modules().contains(&first)) || l.names().contains(&last))
        || OUTSIDE_NAMES.contains(&text.to_lowercase().as_str())
}

/// Programs whose command lines an item quotes beside the project's own: their flags are
/// theirs (`less -R`, `grep -r`, `find -L`).
const FOREIGN_PROGRAMS: &[&str] = &[
    "less", "more", "most", "vi", "vim", "nvim", "emacs", "nano", "grep", "egrep", "sed", "awk",
    "find", "ls", "cat", "sort", "xargs", "tmux", "ssh", "curl", "wget",
];

/// Whether a command line is another program's: its first word (after a prompt) is one of
/// [`FOREIGN_PROGRAMS`] and more words follow.
pub(super) fn foreign_command(line: &str) -> bool {
    let mut words = line
        .split_whitespace()
        .skip_while(|w| matches!(*w, "$" | "%" | ">" | "#"));
    let first = words.next().unwrap_or("").to_lowercase();
    FOREIGN_PROGRAMS.contains(&first.as_str()) && words.next().is_some()
}

/// Programs that run the project's own program or script (`cargo run -- --x`, `npx tool`,
/// `sudo tool`): a command line they start may carry the project's flags.
const RUNNERS: &[&str] = &[
    "cargo",
    "npm",
    "npx",
    "yarn",
    "pnpm",
    "node",
    "deno",
    "bun",
    "go",
    "python",
    "python3",
    "py",
    "pip",
    "pipx",
    "uv",
    "poetry",
    "dotnet",
    "java",
    "kotlin",
    "mvn",
    "gradle",
    "ruby",
    "bundle",
    "bundler",
    "rake",
    "php",
    "composer",
    "sh",
    "bash",
    "zsh",
    "fish",
    "swift",
    "stack",
    "cabal",
    "runhaskell",
    "sudo",
    "env",
    "time",
    "exec",
    "source",
    "eval",
    "command",
    "watch",
    "nohup",
    "docker",
    "podman",
    "make",
    "just",
];

/// Shell operators that start another command.
const OPERATORS: &[&str] = &["|", "||", "&&", ";", "xargs"];

/// What the item writes as another program's: the program and the flags of each command line
/// (a code span, a line of a code block) that another program runs — its first word neither
/// one of the project's `programs` nor a runner that may start them (`rvm use 2.1 --default`),
/// or a command after a pipe (`tool x | less -R`, `| xargs grep -l`) — and the placeholders a
/// synopsis writes (`<VERSION>`), of `commands` (the item's code spans and code lines). Not
/// finding them in the repository says nothing.
pub(super) fn others_words(commands: &[&str], programs: &[String]) -> Vec<String> {
    let (mut out, mut own) = (Vec::new(), Vec::new());
    for command in commands {
        others_in(command, programs, &mut out, &mut own);
    }
    // A flag the item also gives the project's own command is the project's.
    out.retain(|w| !own.contains(w));
    out
}

fn others_in(
    command: &str,
    programs: &[String],
    out: &mut Vec<String>,
    own_flags: &mut Vec<String>,
) {
    let words: Vec<&str> = command.split_whitespace().collect();
    let placeholder = |w: &str| w.len() > 2 && w.starts_with('<') && w.ends_with('>');
    for w in words.iter().filter(|w| placeholder(w)) {
        out.push(w.trim_matches(['<', '>']).to_string());
    }
    let own = |w: &str| programs.iter().any(|p| p.eq_ignore_ascii_case(w));
    let mut segment: Vec<&str> = Vec::new();
    let mut after_operator = false;
    for w in words.iter().copied().chain(["|"]) {
        if !OPERATORS.contains(&w) {
            segment.push(w);
            continue;
        }
        let start = segment
            .iter()
            .position(|w| !matches!(*w, "$" | "%" | ">" | "#") && !w.contains('='));
        if let Some(at) = start {
            let program = segment[at];
            let rest = &segment[at + 1..];
            let named = program.starts_with(|c: char| c.is_ascii_lowercase())
                && program
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
            let flags = rest
                .iter()
                .filter(|w| w.starts_with('-'))
                .map(|w| w.split('=').next().unwrap_or(w).to_string());
            let shaped = rest
                .iter()
                .any(|w| w.starts_with('-') && w.len() > 1 || placeholder(w));
            if named
                && !own(program)
                && !RUNNERS.contains(&program)
                && (shaped || after_operator && !rest.is_empty())
            {
                out.push(program.to_string());
                out.extend(flags);
            } else {
                own_flags.extend(flags);
            }
        }
        segment.clear();
        after_operator = true;
    }
}

/// `4.2.x`, `v1.2`, `2.1.6`: a version or a range of them, not a name.
pub(super) fn version_like(text: &str) -> bool {
    let t = text.strip_prefix('v').unwrap_or(text);
    let parts: Vec<&str> = t.split('.').collect();
    parts.len() >= 2
        && parts[0].chars().all(|c| c.is_ascii_digit())
        && !parts[0].is_empty()
        && parts[1..].iter().all(|p| {
            !p.is_empty()
                && (p.chars().all(|c| c.is_ascii_digit()) || matches!(*p, "x" | "X" | "*"))
        })
}
