//! The runner's git configuration, by allow list of keys: a git configuration holds secrets
//! (a token in a `url.<base>.insteadOf` name, an `http.extraHeader`, `credential.*`,
//! `sendemail.smtpPass`, whatever an include pulls in), so a runner's git never reads the
//! person's files, nor the machine's (`/etc/gitconfig` holds credential helpers too). The tool
//! reads the system's and the person's global configuration once per run with git itself,
//! keeps the keys git needs to read a repository and show its history as the person would see
//! it ([`ALLOWED`]), and writes them to a file of the turn that the runner's
//! `GIT_CONFIG_GLOBAL` names; `GIT_CONFIG_NOSYSTEM` keeps its git from reading the system's.
//!
//! Not for: the repository's own configuration (the runner's git reads it as it is).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The keys of the person's global configuration a runner's git gets, as `section.key` (only
/// without a subsection) or `section.*` (every key of the section, with any subsection).
/// Nothing that names a program to run (`core.pager`, `core.fsmonitor`, `core.hooksPath`,
/// `diff.external`, `*.textconv`, `filter.*`, `alias.*`, `gpg.*`), reaches a server
/// (`credential.*`, `url.*`, `http.*`, `remote.*`) or names a file the runner is not shown
/// (`blame.ignoreRevsFile`, `diff.orderFile`, `mailmap.file`); includes are resolved by git
/// before the list is applied.
pub(crate) const ALLOWED: &[&str] = &[
    "user.name",
    "user.email",
    "author.name",
    "author.email",
    "committer.name",
    "committer.email",
    "core.excludesfile",
    "core.attributesfile",
    "core.autocrlf",
    "core.eol",
    "core.safecrlf",
    "core.quotepath",
    "core.precomposeunicode",
    "core.ignorecase",
    "core.longpaths",
    "core.protecthfs",
    "core.protectntfs",
    "core.abbrev",
    "core.whitespace",
    "init.defaultbranch",
    "safe.directory",
    "diff.renames",
    "diff.renamelimit",
    "diff.algorithm",
    "diff.noprefix",
    "diff.mnemonicprefix",
    "diff.srcprefix",
    "diff.dstprefix",
    "diff.relative",
    "diff.context",
    "diff.interhunkcontext",
    "diff.indentheuristic",
    "diff.colormoved",
    "diff.colormovedws",
    "diff.wserrorhighlight",
    "diff.ignoresubmodules",
    "diff.submodule",
    "diff.statgraphwidth",
    "diff.dirstat",
    "diff.suppressblankempty",
    "log.date",
    "log.decorate",
    "log.abbrevcommit",
    "log.follow",
    "log.showroot",
    "log.mailmap",
    "log.excludedecoration",
    "log.initialdecorationset",
    "log.graphcolors",
    "format.pretty",
    "pretty.*",
    "blame.date",
    "blame.showemail",
    "blame.blankboundary",
    "blame.showroot",
    "branch.sort",
    "tag.sort",
    "versionsort.suffix",
    "color.*",
    "column.*",
    "i18n.*",
    "status.*",
    "grep.*",
    "advice.*",
];

/// How long the person's git may take to list its configuration.
const LIST_WITHIN: Duration = Duration::from_secs(10);

/// The machine's and the person's configuration (`git config --system`, then `--global`, with
/// `--includes --list -z`, run from `worktree` so that `includeIf` is decided as for the
/// runner's git), only the keys
/// [`ALLOWED`], as the text of a configuration file. Empty when git finds none or cannot say
/// (then the runner's git gets none of the person's settings, never their files).
pub(crate) fn read(worktree: &Path) -> Vec<u8> {
    use crate::process::{Ending, Spawn};
    let Some(git) = crate::process::program::find("git".as_ref(), worktree, worktree) else {
        return Vec::new();
    };
    // The machine's first, then the person's, which git reads after it (a later value wins).
    let mut listed = Vec::new();
    for scope in ["--system", "--global"] {
        let done = Spawn::new(git.clone())
            .args(["config", scope, "--includes", "--list", "-z"])
            .cwd(worktree)
            .timeout(LIST_WITHIN)
            .grace(Duration::from_millis(200))
            .capture(4 << 20, 4096);
        match done {
            Ok(done) if matches!(done.ending, Ending::Exited(0)) => {
                listed.extend_from_slice(&done.sink.stdout)
            }
            _ => {}
        }
    }
    render(&filter(&listed))
}

/// One entry of a configuration: `section`, `subsection`, `name` (section and name in lower
/// case, as git lists them) and its value (`None`: a key written without `=`, true).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    section: String,
    subsection: Option<Vec<u8>>,
    name: String,
    value: Option<Vec<u8>>,
}

/// The entries of `git config --list -z`'s output (`key\nvalue\0`, or `key\0` for a key
/// without a value) whose key is [`ALLOWED`], in their order (a key given twice stays twice:
/// `safe.directory` is a list).
fn filter(listed: &[u8]) -> Vec<Entry> {
    listed
        .split(|b| *b == 0)
        .filter_map(|record| {
            let (key, value) = match record.iter().position(|b| *b == b'\n') {
                Some(at) => (&record[..at], Some(record[at + 1..].to_vec())),
                None => (record, None),
            };
            let entry = parse_key(key, value)?;
            allowed(&entry).then_some(entry)
        })
        .collect()
}

/// `section.subsection.name` split at its first and last dot; `None` for a key git would not
/// list (a section or name of other characters than letters, digits and `-`) or one that is not
/// UTF-8 (no allowed key is).
fn parse_key(key: &[u8], value: Option<Vec<u8>>) -> Option<Entry> {
    let key = std::str::from_utf8(key).ok()?;
    let (first, last) = (key.find('.')?, key.rfind('.')?);
    let word = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    let (section, name) = (&key[..first], &key[last + 1..]);
    if !word(section) || !word(name) {
        return None;
    }
    let subsection = (first != last).then(|| key.as_bytes()[first + 1..last].to_vec());
    Some(Entry {
        section: section.to_ascii_lowercase(),
        subsection,
        name: name.to_ascii_lowercase(),
        value,
    })
}

/// Whether `entry`'s key is on [`ALLOWED`].
fn allowed(entry: &Entry) -> bool {
    ALLOWED.iter().any(|pattern| {
        let (section, name) = pattern.split_once('.').unwrap_or((pattern, ""));
        section == entry.section
            && (name == "*" || (entry.subsection.is_none() && name == entry.name))
    })
}

/// `entries` as the text of a configuration file, each value quoted (so spaces, `#` and `;`
/// stay its own) with `\`, `"`, newline, tab and backspace escaped.
fn render(entries: &[Entry]) -> Vec<u8> {
    let mut text = b"# Written by interview for one turn: the keys of your git configuration a runner's git may read (docs/sandbox.md).\n".to_vec();
    let mut current: Option<(&str, Option<&[u8]>)> = None;
    for entry in entries {
        let header = (entry.section.as_str(), entry.subsection.as_deref());
        if current != Some(header) {
            text.push(b'[');
            text.extend_from_slice(entry.section.as_bytes());
            if let Some(sub) = &entry.subsection {
                text.extend_from_slice(b" \"");
                for &b in sub {
                    if matches!(b, b'\\' | b'"') {
                        text.push(b'\\');
                    }
                    text.push(b);
                }
                text.push(b'"');
            }
            text.extend_from_slice(b"]\n");
            current = Some(header);
        }
        text.push(b'\t');
        text.extend_from_slice(entry.name.as_bytes());
        if let Some(value) = &entry.value {
            text.extend_from_slice(b" = \"");
            for &b in value {
                match b {
                    b'\\' => text.extend_from_slice(b"\\\\"),
                    b'"' => text.extend_from_slice(b"\\\""),
                    b'\n' => text.extend_from_slice(b"\\n"),
                    b'\t' => text.extend_from_slice(b"\\t"),
                    8 => text.extend_from_slice(b"\\b"),
                    b => text.push(b),
                }
            }
            text.push(b'"');
        }
        text.push(b'\n');
    }
    text
}

/// Write `text` as `config` in `dir` (a directory of the turn the tool made, mode 0700), mode
/// 0600, never through a link and never over a file that is there.
pub(crate) fn write(dir: &Path, text: &[u8]) -> std::io::Result<PathBuf> {
    use std::os::unix::fs::OpenOptionsExt;
    let path = dir.join("config");
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(&path)?;
    file.write_all(text)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(entries: &[&str]) -> Vec<u8> {
        entries
            .iter()
            .flat_map(|e| [e.as_bytes(), b"\0"].concat())
            .collect()
    }

    #[test]
    fn only_the_allowed_keys_are_kept_in_their_order() {
        let list = listed(&[
            "user.name\nAnn Example",
            "url.https://ann:ghp_SECRET@github.com/.insteadof\nhttps://github.com/",
            "http.https://github.com/.extraheader\nAUTHORIZATION: basic SECRET",
            "credential.helper\nstore",
            "sendemail.smtppass\nSECRET",
            "include.path\n/home/ann/.secret.inc",
            "core.pager\nless",
            "core.fsmonitor\ntrue",
            "diff.external\nx",
            "diff.word.textconv\nx",
            "color.diff.meta\nyellow bold",
            "safe.directory\n/srv/a",
            "core.excludesfile\n~/.gitignore",
            "safe.directory\n*",
            "status.short",
            "alias.l\n!cat ~/.ssh/id_ed25519",
        ]);
        let kept: Vec<String> = filter(&list)
            .iter()
            .map(|e| {
                let sub = e.subsection.as_deref().map(String::from_utf8_lossy);
                format!("{}.{}.{}", e.section, sub.unwrap_or_default(), e.name)
            })
            .collect();
        assert_eq!(
            kept,
            [
                "user..name",
                "color.diff.meta",
                "safe..directory",
                "core..excludesfile",
                "safe..directory",
                "status..short"
            ]
        );
        assert!(!render(&filter(&list)).windows(6).any(|w| w == b"SECRET"));
    }

    #[test]
    fn what_is_written_reads_back_the_same_in_git() {
        let list = listed(&[
            "user.name\nAnn \"the\" Ex\\ample ; # not a comment ",
            "user.email\n\tann@example.com",
            "color.my \"odd\\ sub.meta\nred",
            "status.short",
            "safe.directory\n",
            "safe.directory\n/srv/a\nb",
        ]);
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), &render(&filter(&list))).unwrap();
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let out = std::process::Command::new("git")
            .args(["config", "--file"])
            .arg(&path)
            .args(["--list", "-z"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        assert_eq!(out.stdout, list);
        assert!(write(dir.path(), b"again").is_err(), "never over a file");
    }
}
