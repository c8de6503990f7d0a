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
