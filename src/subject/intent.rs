//! `intent`: finding a work item through its trackers — `local` globs in the repository,
//! `--from FILE|-`, and `github` through the `gh` CLI when it is installed.
//!
//! Not for: judging the work item (the runner does).

use std::fs::File;
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::decision::DecisionId;
use crate::error::{Error, Result};
use crate::input::InputError;

pub use super::github::GithubCli;
use super::github::github_lookup;
use super::glob;
use super::reflect::cap;
use super::{Kind, Subject, WorkItemSource};

/// The local tracker's globs when `interview.toml` sets none; `<id>` is the work-item id.
pub(crate) const DEFAULT_GLOBS: [&str; 2] = ["docs/intents/<id>*.md", "docs/**/<id>[-_ .]*.md"];
/// A work item larger than this is refused: it is a document, not a data set.
const MAX_ITEM_BYTES: u64 = 1024 * 1024;
/// The work item's text in the facts is capped at this many bytes.
const MAX_TEXT_BYTES: usize = 64 * 1024;
/// Lines of the work item shown in `facts_markdown`.
const MARKDOWN_MAX_LINES: usize = 300;
/// Files visited per glob at most, so a huge tree cannot stall the lookup.
const MAX_WALK_ENTRIES: usize = 200_000;
/// What to look for and where.
#[derive(Debug, Clone, Default)]
pub struct IntentRequest<'a> {
    /// The work-item id as the person named it.
    pub id: &'a str,
    /// `--from FILE|-`: used as is, no other tracker is consulted.
    pub from: Option<&'a WorkItemSource>,
    /// `[intent] globs` of `interview.toml`; `None` uses `DEFAULT_GLOBS`.
    pub globs: Option<&'a [String]>,
    pub github: GithubCli,
}

/// A work item found, with the tracker it came from and the decision that picked it, if any.
#[derive(Debug, Clone)]
pub struct Found {
    pub subject: Subject,
    /// `local`, `from`, `stdin` or `github`.
    pub tracker: String,
    /// `(decision id, chosen option)` when a Choose prompt picked among several matches.
    pub decision: Option<(String, String)>,
}

/// The structured facts of a work item, as serialised into `Subject.facts`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct IntentFacts {
    pub id: String,
    pub tracker: String,
    /// Where the text came from, for a person: a repository path, a file name, `stdin` or
    /// `github issue 42`. Never an absolute local path.
    pub source: String,
    /// The work item's path relative to the worktree, when it is inside it: lines of it can be
    /// cited as `path:line`.
    pub path: Option<String>,
    pub title: String,
    /// The text, capped at 64 KiB.
    pub text: String,
    pub truncated: bool,
}

/// Several places hold the work item: which one is it? Plain data; the caller decides how the
/// choice is made (the command layer asks the person, docs/interviews.md).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrackerChoice {
    pub context: String,
    /// One label per place, sanitised.
    pub options: Vec<String>,
    /// Index into `options`.
    pub recommended: usize,
    pub reason: String,
}

/// The caller's side of a [`TrackerChoice`]: returns the index of the chosen option.
pub trait PickTracker {
    fn pick(&mut self, choice: &TrackerChoice) -> Result<usize>;
}

/// Find work item `id` (see [`intent_with`]) with the default `gh` lookup.
pub(crate) fn intent(
    repo_root: &Path,
    id: &str,
    from: Option<&WorkItemSource>,
    globs: Option<&[String]>,
    person: Option<&mut dyn PickTracker>,
) -> Result<Found> {
    let request = IntentRequest {
        id,
        from,
        globs,
        github: GithubCli::Auto,
    };
    intent_with(repo_root, &request, person)
}

/// One place the work item was found.
enum Candidate {
    Local(String),
    Github { title: String, body: String },
}

impl Candidate {
    fn label(&self, id: &str) -> String {
        match self {
            Candidate::Local(path) => format!("local: {path}"),
            Candidate::Github { title, .. } => {
                format!("github: issue {id} ({})", cap(title, 60))
            }
        }
    }
}

/// Find work item `id`: `--from` when given, else every tracker. Several matches go to the
/// caller's `person` when given (at most four), else to an error that lists them.
pub fn intent_with(
    repo_root: &Path,
    req: &IntentRequest<'_>,
    person: Option<&mut dyn PickTracker>,
) -> Result<Found> {
    let id = req.id;
    check_id(id)?;
    if let Some(from) = req.from {
        return from_source(repo_root, id, from);
    }
    let (candidates, looked) = look_everywhere(repo_root, req)?;
    if candidates.is_empty() {
        return Err(Error::Subject(format!(
            "no work item `{id}` found. Looked in:\n  - {}\nWrite it to docs/intents/{id}.md, set [intent] globs in interview.toml, or pass --from FILE (--from - reads stdin).",
            looked.join("\n  - ")
        )));
    }
    let (candidate, decision) = choose(candidates, id, person)?;
    let (facts, tracker) = match candidate {
        Candidate::Local(rel) => {
            let text = read_capped(&repo_root.join(&rel), &rel)?;
            (
                facts_for(id, "local", &rel, Some(rel.clone()), &text),
                "local",
            )
        }
        Candidate::Github { title, body } => {
            let text = format!("# {title}\n\n{body}\n");
            (
                facts_for(id, "github", &format!("github issue {id}"), None, &text),
                "github",
            )
        }
    };
    Ok(Found {
        subject: subject_of(facts)?,
        tracker: tracker.to_string(),
        decision,
    })
}

/// Every tracker's match for the request's id, and where nothing was found (and why).
fn look_everywhere(
    repo_root: &Path,
    req: &IntentRequest<'_>,
) -> Result<(Vec<Candidate>, Vec<String>)> {
    let id = req.id;
    let mut looked = Vec::new();
    let mut candidates: Vec<Candidate> = Vec::new();
    let defaults: Vec<String> = DEFAULT_GLOBS.iter().map(|s| s.to_string()).collect();
    let globs = req.globs.unwrap_or(&defaults);
    let paths = local_matches(repo_root, id, globs)?;
    if paths.is_empty() {
        looked.push(format!(
            "local: no file matches {}",
            globs.join(", ").replace("<id>", id)
        ));
    }
    candidates.extend(paths.into_iter().map(Candidate::Local));
    match github_lookup(repo_root, id, &req.github) {
        Ok(Some((title, body))) => candidates.push(Candidate::Github { title, body }),
        Ok(None) => {}
        Err(why) => looked.push(format!("github: {why}")),
    }
    Ok((candidates, looked))
}

/// The one of `candidates` (at least one) the work item is: the only one, or the one `person`
/// picks of at most four, with the decision recorded; more, or no one to ask, is an error that
/// lists them.
fn choose(
    mut candidates: Vec<Candidate>,
    id: &str,
    person: Option<&mut dyn PickTracker>,
) -> Result<(Candidate, Option<(String, String)>)> {
    let n = candidates.len();
    if n == 1 {
        return Ok((candidates.remove(0), None));
    }
    let labels: Vec<String> = candidates
        .iter()
        .map(|c| crate::receipt::sanitize(&c.label(id)).0)
        .collect();
    let listing = labels
        .iter()
        .map(|l| format!("  - {l}"))
        .collect::<Vec<_>>()
        .join("\n");
    let Some(person) = person.filter(|_| n <= 4) else {
        return Err(Error::Subject(format!(
            "work item `{id}` was found in {n} places:\n{listing}\nPass --from FILE to pick one{}.",
            if n <= 4 {
                " (at a terminal you would be asked to choose)"
            } else {
                ""
            }
        )));
    };
    let choice = TrackerChoice {
        context: format!("Work item `{id}` was found in {n} places. Which one is it?"),
        options: labels.clone(),
        recommended: 0,
        reason: "the repository's own copy is versioned with the code it describes".into(),
    };
    let index = person.pick(&choice)?;
    let label = labels.get(index).cloned().unwrap_or_default();
    let chosen = candidates.swap_remove(index.min(n - 1));
    Ok((
        chosen,
        Some((DecisionId::Tracker.as_str().to_string(), label)),
    ))
}

/// Ids end up in glob patterns, file names and prompts: keep them to one plain line.
fn check_id(id: &str) -> Result<()> {
    let bad = id.is_empty()
        || id.len() > 128
        || id.contains(['/', '\\'])
        || id.chars().any(char::is_control)
        || id == "."
        || id == "..";
    if bad {
        return Err(Error::Usage(format!(
            "work item id `{}` is not usable: use 1–128 characters without `/`, `\\` or control characters, e.g. 42 or export-csv",
            id.escape_debug()
        )));
    }
    Ok(())
}

fn from_source(repo_root: &Path, id: &str, from: &WorkItemSource) -> Result<Found> {
    let facts = match from {
        WorkItemSource::File(path) => {
            let shown = path.display().to_string();
            let text = read_capped(path, &shown)?;
            let inside = inside_repo(repo_root, path);
            if crate::input::without_bom(&text).trim().is_empty() {
                let named = inside.clone().unwrap_or(shown);
                return Err(Error::Usage(empty_item(
                    &format!("work item {named}"),
                    path,
                )));
            }
            // Outside the repository only the file name is shown: documents never carry local paths.
            let source = inside.clone().unwrap_or_else(|| {
                path.file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| "work item file".into())
            });
            facts_for(id, "from", &source, inside, &text)
        }
        WorkItemSource::Stdin => {
            let stdin = std::io::stdin()
                .as_fd()
                .try_clone_to_owned()
                .map_err(|e| Error::io("cannot read the work item from stdin", e))?;
            let bytes = match crate::input::read_file_capped(File::from(stdin), MAX_ITEM_BYTES) {
                Ok(b) => b,
                Err(InputError::TooLarge { .. }) => {
                    return Err(Error::Subject(
                        "the work item on stdin is larger than 1 MiB; shorten it".into(),
                    ));
                }
                Err(InputError::Interrupted) => return Err(Error::Interrupted { session: None }),
                Err(e) => {
                    return Err(Error::Subject(format!(
                        "cannot read the work item from stdin: {e}"
                    )));
                }
            };
            let text = String::from_utf8_lossy(&bytes).into_owned();
            if crate::input::without_bom(&text).trim().is_empty() {
                return Err(Error::Usage(
                    "the work item on stdin (--from -) is empty: there is nothing to interview \
                     about; pipe the work item's text in"
                        .into(),
                ));
            }
            facts_for(id, "stdin", "stdin", None, &text)
        }
    };
    let tracker = facts.tracker.clone();
    Ok(Found {
        subject: subject_of(facts)?,
        tracker,
        decision: None,
    })
}

/// The path of `file` relative to the worktree when it lies inside it (symlinks resolved).
fn inside_repo(repo_root: &Path, file: &Path) -> Option<String> {
    let root = repo_root.canonicalize().ok()?;
    let file = file.canonicalize().ok()?;
    let rel = file.strip_prefix(&root).ok()?;
    let rel: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    (!rel.is_empty()).then(|| rel.join("/"))
}

/// Why the work item at `path` gave no text, for a person who pointed `--from` at it: a FIFO or
/// a device nobody wrote to reads as empty, without blocking.
fn empty_item(what: &str, path: &Path) -> String {
    use std::os::unix::fs::FileTypeExt;
    let kind = std::fs::metadata(path).map(|m| m.file_type()).ok();
    let why = match kind {
        Some(k) if k.is_fifo() => " (a FIFO that nothing wrote to)",
        Some(k) if k.is_char_device() || k.is_block_device() => " (a device that gave no text)",
        _ => "",
    };
    format!(
        "{what} is empty{why}: there is nothing to interview about; point --from at a file \
         holding the work item's text"
    )
}

fn read_capped(path: &Path, shown: &str) -> Result<String> {
    // A FIFO or a device never blocks the open, and is read only up to the cap.
    let bytes = match crate::input::read_capped(path, MAX_ITEM_BYTES) {
        Ok(b) => b,
        Err(InputError::TooLarge { .. }) => {
            return Err(Error::Subject(format!(
                "work item {shown} is larger than 1 MiB; point --from at the work item itself"
            )));
        }
        Err(InputError::Interrupted) => return Err(Error::Interrupted { session: None }),
        // Unreadable (not there, no permission, a directory): the person named a wrong source.
        Err(e) => {
            return Err(Error::Usage(format!(
                "cannot read work item {shown} (--from): {e}"
            )));
        }
    };
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

fn facts_for(
    id: &str,
    tracker: &str,
    source: &str,
    path: Option<String>,
    text: &str,
) -> IntentFacts {
    let title = text
        .lines()
        .map(|l| l.trim().trim_start_matches('#').trim())
        .find(|l| !l.is_empty())
        .map(|l| cap(without_id(l, id), 120))
        .unwrap_or_else(|| id.to_string());
    let truncated = text.len() > MAX_TEXT_BYTES;
    let mut end = text.len().min(MAX_TEXT_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    IntentFacts {
        id: id.to_string(),
        tracker: tracker.to_string(),
        source: source.to_string(),
        path,
        title,
        text: text[..end].to_string(),
        truncated,
    }
}

/// A title without the id it repeats (`42: Export` or `#42 Export` → `Export`).
fn without_id<'t>(title: &'t str, id: &str) -> &'t str {
    let rest = title.strip_prefix('#').unwrap_or(title);
    match rest.strip_prefix(id) {
        Some(r) if r.starts_with([':', ' ', '-', '.']) => {
            let r = r.trim_start_matches([':', ' ', '-', '.']);
            if r.is_empty() { title } else { r }
        }
        _ => title,
    }
}

fn subject_of(facts: IntentFacts) -> Result<Subject> {
    let markdown = facts_markdown(&facts);
    let value = serde_json::to_value(&facts)
        .map_err(|e| Error::json(format!("cannot serialise work item `{}`", facts.id), e))?;
    Ok(Subject {
        document_name: None,
        kind: Kind::Intent,
        id: facts.id.clone(),
        title: format!("Intent of {}: {}", facts.id, facts.title),
        facts_markdown: markdown,
        facts: value,
    })
}

/// The work item for `brief.md`: its source, then its lines numbered so they can be cited.
pub(crate) fn facts_markdown(f: &IntentFacts) -> String {
    let mut out = format!(
        "Work item `{}` ({}: {}){}:\n\n",
        f.id,
        f.tracker,
        f.source,
        match &f.path {
            Some(p) => format!(", cite its lines as `{p}:<line>`"),
            None => String::new(),
        }
    );
    let total = f.text.lines().count();
    for (i, line) in f.text.lines().take(MARKDOWN_MAX_LINES).enumerate() {
        out.push_str(&format!("{:>4} | {line}\n", i + 1));
    }
    if total > MARKDOWN_MAX_LINES || f.truncated {
        out.push_str(&format!(
            "…and {} more line(s)\n",
            total.saturating_sub(MARKDOWN_MAX_LINES).max(1)
        ));
    }
    out
}

/// Repository paths matching any of `globs` with `<id>` replaced, sorted, without duplicates.
pub(crate) fn local_matches(repo_root: &Path, id: &str, globs: &[String]) -> Result<Vec<String>> {
    let root = repo_root.canonicalize().map_err(|e| {
        Error::io(
            format!("cannot open the worktree {}", repo_root.display()),
            e,
        )
    })?;
    let mut found = std::collections::BTreeSet::new();
    for raw in globs {
        let pattern = raw.replace("<id>", &glob::escape(id));
        let bad = pattern.starts_with('/')
            || pattern.split('/').any(|s| {
                s == ".." || s == "." || crate::own_writes::names::is_protected(s.as_ref())
            });
        if bad {
            return Err(Error::Config {
                path: PathBuf::from("interview.toml"),
                message: format!(
                    "[intent] globs: `{raw}` must be relative to the repository and stay inside it (no leading `/`, no `..`, no `.git`)"
                ),
            });
        }
        let prefix = glob::literal_prefix(&pattern);
        let base = prefix.iter().fold(root.clone(), |p, s| p.join(s));
        // The walk starts at the literal prefix; a symlinked prefix must not lead outside.
        let Ok(base_real) = base.canonicalize() else {
            continue;
        };
        if !base_real.starts_with(&root) {
            continue;
        }
        let walker = walkdir::WalkDir::new(&base)
            .follow_links(false)
            .max_depth(32)
            .sort_by_file_name()
            .into_iter()
            .filter_entry(|e| {
                let name = e.file_name();
                e.depth() == 0 || !crate::own_writes::names::is_protected(name)
            });
        for entry in walker.take(MAX_WALK_ENTRIES).filter_map(|e| e.ok()) {
            let file_type = entry.file_type();
            let is_file = if file_type.is_symlink() {
                // A link counts only when it resolves to a file inside the repository.
                entry
                    .path()
                    .canonicalize()
                    .ok()
                    .is_some_and(|t| t.starts_with(&root) && t.is_file())
            } else {
                file_type.is_file()
            };
            if !is_file {
                continue;
            }
            let Ok(rel) = entry.path().strip_prefix(&root) else {
                continue;
            };
            // A name that is not UTF-8 cannot be named in a document (nor read back by a lossy
            // copy of it): it is passed over, and the other matches still count.
            let Some(rel) = rel
                .components()
                .map(|c| c.as_os_str().to_str().map(str::to_string))
                .collect::<Option<Vec<String>>>()
            else {
                continue;
            };
            let rel = rel.join("/");
            if glob::matches(&pattern, &rel) {
                found.insert(rel);
            }
        }
    }
    Ok(found.into_iter().collect())
}
