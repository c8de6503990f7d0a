//! What a maintainer asks first of a bug report: the exact steps, and what the program read
//! when it ran — the configuration file and the environment variables it reads, the
//! diagnostic it has (`--debug`, `PYENV_DEBUG`, `RUST_LOG`), and for a setup problem the
//! installation steps of its README. All taken from the index of definitions (`nearest.rs`),
//! read once with the search: no walk of its own.
//!
//! Not for: which code an item is about (`nearest.rs` ranks that).

use super::item::Item;
use super::nearest::{Def, DefKind};
use std::collections::{BTreeMap, BTreeSet};

/// What the program reads and how it traces itself, as the repository defines it.
#[derive(Debug, Default)]
pub(super) struct Setup {
    /// Where a configuration file is named or read (`--config-file`, `BAT_CONFIG_PATH`,
    /// `parseConfigFile()`), at most two.
    pub config: Vec<Def>,
    /// The project's own environment variables (`BAT_PAGER`: its name's prefix), at most three.
    pub env: Vec<Def>,
    /// Its diagnostic: a debug or trace variable or flag.
    pub trace: Option<Def>,
    /// The README section on installing or setting it up, for a setup problem.
    pub guide: Option<Def>,
    /// Whether the repository is a program with flags of its own (three or more declared), not
    /// a library: what a person runs is a command line, not code.
    pub program: bool,
    /// Whether the item is a setup or usage problem: installing, `PATH`, a shell's start-up
    /// file, a command not found.
    pub setup_problem: bool,
}

/// The signs of a setup problem, by sort: installing, setting up, a shell's start-up file or
/// `PATH`, a command the shell does not find, a package manager. Two sorts must agree: a bug
/// report that says how it was installed is not a setup problem.
const SETUP_SIGNS: &[&[&str]] = &[
    &[
        "install",
        "installed",
        "installing",
        "installation",
        "reinstall",
        "reinstalled",
    ],
    &["setting up", "set up", "setup"],
    SHELL_SIGNS,
    &["command not found", "no such command", "is not recognized"],
    &["homebrew", "brew install", "apt install", "apt-get install"],
];

/// The start-up files of shells and `PATH`: a setup problem about the shell's environment.
const SHELL_SIGNS: &[&str] = &[
    ".bashrc",
    ".zshrc",
    ".bash_profile",
    ".profile",
    "config.fish",
    "$path",
    "path=",
];

/// Environment variables and flags that make a program say what it does.
fn traces(d: &Def, prefix: &str) -> Option<u8> {
    let name = d.name.as_str();
    match d.kind {
        DefKind::EnvVar if !prefix.is_empty() && name == format!("{prefix}DEBUG") => Some(0),
        DefKind::EnvVar if name == "RUST_LOG" => Some(1),
        DefKind::Flag if name == "--debug" => Some(2),
        DefKind::EnvVar
            if !prefix.is_empty()
                && name.starts_with(prefix)
                && ["_DEBUG", "_TRACE", "_LOG", "_VERBOSE", "_LOG_LEVEL"]
                    .iter()
                    .any(|s| name.ends_with(s)) =>
        {
            Some(3)
        }
        DefKind::Flag if matches!(name, "--trace" | "--diagnose" | "--doctor") => Some(4),
        DefKind::Flag if matches!(name, "--verbose" | "--log-level" | "--loglevel") => Some(5),
        _ => None,
    }
}

/// Whether a definition names or reads a configuration file the person writes: the file's
/// flag (`--config`, `--config-file`, not `--config-dir`, a folder), the project's own variable
/// for it (`BAT_CONFIG_PATH`, not `XDG_CONFIG_HOME`), a loader (`parseConfigFile()`).
fn configures(d: &Def, prefix: &str) -> bool {
    let lower = d.name.to_lowercase();
    let folder = ["dir", "directory", "home", "cache", "folder"]
        .iter()
        .any(|s| lower.ends_with(s));
    match d.kind {
        DefKind::Flag => {
            matches!(
                lower.as_str(),
                "--config" | "--config-file" | "--config-path" | "--configfile" | "--rcfile"
            ) || (lower.starts_with("--config") && lower.ends_with("file"))
        }
        DefKind::EnvVar => {
            !prefix.is_empty() && d.name.starts_with(prefix) && lower.contains("config") && !folder
        }
        // A function that finds or reads a configuration file (`parseConfigFile`,
        // `config_path`), not any that configures something (`loadConfiguration`).
        DefKind::Function => {
            lower.contains("config") && (lower.contains("file") || lower.contains("path"))
                || lower.contains("rc_file")
                || lower.contains("rcfile")
        }
        _ => false,
    }
}

/// The setup the repository defines, for an item (`defs`: the whole index).
pub(super) fn read(defs: &[Def], project: Option<&str>, item: &Item) -> Setup {
    let mut prefix = env_prefix(defs, project);
    if prefix.is_empty()
        && let Some(d) = most_read_debug(defs)
    {
        prefix = d.name.trim_end_matches("DEBUG").to_string();
    }
    let mut setup = Setup {
        setup_problem: SETUP_SIGNS
            .iter()
            .filter(|sort| item.mentions(sort))
            .count()
            >= 2,
        program: defs
            .iter()
            .filter(|d| d.kind == DefKind::Flag)
            .take(3)
            .count()
            == 3,
        ..Setup::default()
    };
    setup.trace = defs
        .iter()
        .filter_map(|d| traces(d, &prefix).map(|rank| (rank, d)))
        .min_by_key(|(rank, _)| *rank)
        .map(|(_, d)| d.clone());
    let named = |list: &Vec<Def>, d: &Def| list.iter().any(|x| x.name == d.name);
    // A configuration file only for a program that reads one (a library's user writes code).
    for d in defs
        .iter()
        .filter(|d| setup.program && configures(d, &prefix))
    {
        if setup.config.len() < 2 && !named(&setup.config, d) {
            setup.config.push(d.clone());
        }
    }
    for d in variables(defs, &prefix, item) {
        if setup.env.len() < 3 && !named(&setup.env, d) {
            setup.env.push(d.clone());
        }
    }
    if setup.setup_problem {
        setup.guide = guide(defs, item);
    }
    setup
}

/// The variables the item is about: the project's own that share a rare word of their name
/// with the item (`BAT_PAGER` for "paging"), and any the item writes out (`PAGER`). None by name alone:
/// a paging bug is not asked about `BAT_THEME`.
fn variables<'d>(defs: &'d [Def], prefix: &str, item: &Item) -> Vec<&'d Def> {
    let said: BTreeSet<String> = item
        .all
        .iter()
        .flat_map(|(_, l, _)| super::words::words(l))
        .map(|w| root(&w).to_string())
        .collect();
    // How many definitions use each word the item says: a rare one is used by few. (Only the
    // item's words are ever looked up: counting the others would cost a count a word of every
    // definition.)
    let mut used: BTreeMap<&str, usize> = BTreeMap::new();
    let mut own: BTreeSet<&str> = BTreeSet::new();
    for d in defs {
        own.clear();
        own.extend(d.all_words().map(|w| root(w)).filter(|w| said.contains(*w)));
        for w in &own {
            *used.entry(w).or_default() += 1;
        }
    }
    // Rare: in at most a fifth of them (`bat`, `file`, `path` say nothing).
    let rare = (defs.len() / 5).max(5);
    let project = super::words::words(prefix);
    let mut vars: Vec<(usize, &Def)> = defs
        .iter()
        .filter(|d| {
            d.kind == DefKind::EnvVar
                && !configures(d, prefix)
                && traces(d, prefix).is_none()
                && !d.name.starts_with("XDG_")
                && !COMMON_VARS.contains(&d.name.as_str())
                // Where it lives, not what it reads: `PYENV_ROOT`, `BAT_HOME`.
                && !["_ROOT", "_HOME", "_DIR", "_VERSION"].iter().any(|s| d.name.ends_with(s))
        })
        .filter_map(|d| {
            // Another program's variable (`PAGER`) only when the item writes its name; the
            // project's own (`BAT_PAGER`) by the words of its name.
            if prefix.is_empty() || !d.name.starts_with(prefix) {
                return item.writes(&d.name).then_some((1, d));
            }
            let shared: BTreeSet<String> = super::words::words(&d.name)
                .into_iter()
                .filter(|w| !project.contains(w))
                .map(|w| root(&w).to_string())
                .filter(|w| said.contains(w) && used.get(w.as_str()).is_some_and(|n| *n <= rare))
                .collect();
            (!shared.is_empty()).then_some((shared.len(), d))
        })
        .collect();
    vars.sort_by_key(|(n, _)| std::cmp::Reverse(*n));
    vars.into_iter().map(|(_, d)| d).collect()
}

/// A word less its ending ("paging" -> "pag", "pager" -> "pag"): how the item's words and a
/// variable's name are matched.
fn root(w: &str) -> &str {
    ["ing", "er", "ion", "ed"]
        .iter()
        .find_map(|suffix| w.strip_suffix(suffix).filter(|s| s.len() >= 3))
        .unwrap_or(w)
}

/// Variables every program sees, which say nothing of this one.
const COMMON_VARS: &[&str] = &[
    "HOME", "PATH", "USER", "SHELL", "PWD", "TMPDIR", "TMP", "CI",
];

/// The README heading on installing or setting up that the item is nearest to: a shell's
/// start-up file or `PATH` in the item points at the shell's setup.
fn guide(defs: &[Def], item: &Item) -> Option<Def> {
    let shell = item.mentions(SHELL_SIGNS);
    defs.iter()
        .filter(|d| {
            d.kind == DefKind::Heading
                && !d.path.contains('/')
                && d.path.to_lowercase().starts_with("readme")
        })
        .filter_map(|d| {
            let lower = d.name.to_lowercase();
            let rank = if shell && lower.contains("shell") {
                0
            } else if lower.contains("set up")
                || lower.contains("setup")
                || lower.contains("getting started")
            {
                1
            } else if lower.starts_with("install") {
                2
            } else {
                return None;
            };
            Some((rank, d))
        })
        .min_by_key(|(rank, _)| *rank)
        .map(|(_, d)| d.clone())
}

/// The prefix of the project's own environment variables: its name's (`BAT_` of bat) when
/// some variable has it; empty when none.
fn env_prefix(defs: &[Def], project: Option<&str>) -> String {
    project
        .map(|p| format!("{}_", p.to_uppercase().replace(['-', '.'], "_")))
        .filter(|p| {
            p.len() > 2
                && defs
                    .iter()
                    .any(|d| d.kind == DefKind::EnvVar && d.name.starts_with(p.as_str()))
        })
        .unwrap_or_default()
}

/// A debug variable read in the most files (`PYENV_DEBUG`, tested by every command of pyenv),
/// for a project whose name the manifests do not give.
fn most_read_debug(defs: &[Def]) -> Option<&Def> {
    let mut files: std::collections::BTreeMap<&str, std::collections::BTreeSet<&str>> =
        std::collections::BTreeMap::new();
    for d in defs
        .iter()
        .filter(|d| d.kind == DefKind::EnvVar && d.name.ends_with("_DEBUG"))
    {
        files
            .entry(d.name.as_str())
            .or_default()
            .insert(d.path.as_str());
    }
    let (name, n) = files
        .iter()
        .map(|(name, paths)| (*name, paths.len()))
        .max_by_key(|(name, n)| (*n, std::cmp::Reverse(*name)))?;
    (n >= 2).then(|| {
        defs.iter()
            .find(|d| d.kind == DefKind::EnvVar && d.name == name)
    })?
}
