//! The model's read-only view of the worktree: list a directory, read a file or a line range,
//! search. Every path is relative to the worktree root, never leaves it (no `..`, no absolute
//! path, no link whose target lies outside), never enters `.git/` or `.interview/`, and never
//! names a file the ignore files hide (`.env`, build output). Every result is capped.
//!
//! Not for: git history (`history.rs`) or the per-turn budget (`tools.rs`).

use std::io::Read;
use std::path::{Component, Path, PathBuf};

use grep::regex::RegexMatcherBuilder;
use grep::searcher::sinks::Lossy;
use grep::searcher::{BinaryDetection, SearcherBuilder};
use ignore::WalkBuilder;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

/// A file larger than this is not read at all (a line range of it neither).
pub(super) const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;
/// What one read returns at most; the rest is named so the model can ask for the next range.
pub(super) const MAX_READ_BYTES: usize = 32 * 1024;
/// Entries one listing shows at most.
pub(super) const MAX_LIST_ENTRIES: usize = 500;
/// Lines one search returns at most, and files it reads at most.
pub(super) const MAX_SEARCH_HITS: usize = 200;
const MAX_SEARCH_FILES: usize = 20_000;
/// A file larger than this is skipped by a search.
const MAX_SEARCH_FILE_BYTES: u64 = 1024 * 1024;
/// A search line is cut to this many characters.
const MAX_LINE_CHARS: usize = 240;
/// How much of a file's start decides whether it is binary.
const BINARY_PROBE: usize = 8 * 1024;
/// Names never entered: git's own files and the tool's local tier.
const HIDDEN_DIRS: &[&str] = &[".git", ".interview"];

/// A tool's refusal or failure, given back to the model as the call's result.
pub(super) type ToolResult = std::result::Result<String, String>;

/// An excludes file larger than this is not read (nothing more is hidden by it).
const MAX_EXCLUDES_BYTES: u64 = 1024 * 1024;

/// The worktree, by its real path.
#[derive(Debug, Clone)]
pub(super) struct Worktree {
    root: PathBuf,
    /// The patterns of `core.excludesFile` as git reads it (see [`excludes_file`]).
    excludes: Option<Gitignore>,
}

impl Worktree {
    pub(super) fn open(root: &Path) -> std::io::Result<Worktree> {
        let root = root.canonicalize()?;
        let excludes = excludes_file(&root).and_then(|file| {
            let mut builder = GitignoreBuilder::new(&root);
            builder.add(&file);
            builder.build().ok()
        });
        Ok(Worktree { root, excludes })
    }

    pub(super) fn root(&self) -> &Path {
        &self.root
    }

    /// The real path of `rel`, checked: inside the worktree, no hidden directory, no link out,
    /// not ignored.
    pub(super) fn resolve(&self, rel: &str) -> std::result::Result<PathBuf, String> {
        let rel = rel.trim();
        let given = Path::new(rel);
        if given.is_absolute() {
            return Err(format!(
                "{rel:?} is an absolute path: give a path relative to the repository root"
            ));
        }
        let mut parts = Vec::new();
        for c in given.components() {
            match c {
                Component::CurDir => {}
                Component::Normal(p) => parts.push(p.to_os_string()),
                _ => {
                    return Err(format!(
                        "{rel:?} leaves the repository: `..` is not allowed; paths are relative to the repository root"
                    ));
                }
            }
        }
        let mut path = self.root.clone();
        for part in &parts {
            if HIDDEN_DIRS
                .iter()
                .any(|h| part.to_string_lossy().eq_ignore_ascii_case(h))
            {
                return Err(format!(
                    "{rel:?} is inside {} which is not shown (use the git tools for history)",
                    part.to_string_lossy()
                ));
            }
            path.push(part);
            let meta = std::fs::symlink_metadata(&path)
                .map_err(|_| format!("{rel:?} does not exist in the repository"))?;
            if meta.file_type().is_symlink() {
                let real = path.canonicalize().map_err(|_| {
                    if leads_out(&path, &self.root) {
                        format!(
                            "{rel:?} goes through a symbolic link that leads outside the repository; links out are not followed"
                        )
                    } else {
                        format!("{rel:?} goes through a symbolic link that leads nowhere")
                    }
                })?;
                if !real.starts_with(&self.root) || self.in_hidden(&real) {
                    return Err(format!(
                        "{rel:?} goes through a symbolic link that leads outside the repository; links out are not followed"
                    ));
                }
                path = real;
            }
        }
        if path != self.root && self.ignored(&path) {
            return Err(format!(
                "{rel:?} is ignored by the repository's ignore files (.gitignore, info/exclude, core.excludesFile); ignored files are not shown (they often hold secrets or build output)"
            ));
        }
        Ok(path)
    }

    fn in_hidden(&self, real: &Path) -> bool {
        real.strip_prefix(&self.root).is_ok_and(|r| {
            r.components().any(|c| {
                HIDDEN_DIRS
                    .iter()
                    .any(|h| c.as_os_str().to_string_lossy().eq_ignore_ascii_case(h))
            })
        })
    }

    /// Whether `path` (a real path inside the root) or a directory on the way to it is ignored:
    /// each is looked for in a one-level walk of its parent, which applies every ignore file.
    fn ignored(&self, path: &Path) -> bool {
        let Ok(rel) = path.strip_prefix(&self.root) else {
            return true;
        };
        let mut dir = self.root.clone();
        for c in rel.components() {
            let name = c.as_os_str();
            let shown = walker(&dir, Some(1), self)
                .build()
                .flatten()
                .any(|e| e.depth() == 1 && e.file_name() == name);
            if !shown {
                return true;
            }
            dir.push(name);
        }
        false
    }

    fn shown(&self, path: &Path) -> String {
        match path.strip_prefix(&self.root) {
            Ok(r) if r.as_os_str().is_empty() => ".".into(),
            Ok(r) => r.display().to_string(),
            Err(_) => path.display().to_string(),
        }
    }

    /// `list_directory`: the entries of one directory, directories with a trailing `/`.
    pub(super) fn list(&self, rel: &str) -> ToolResult {
        let rel = if rel.trim().is_empty() { "." } else { rel };
        let dir = self.resolve(rel)?;
        if !dir.is_dir() {
            return Err(format!("{rel:?} is not a directory"));
        }
        let mut entries: Vec<String> = walker(&dir, Some(1), self)
            .build()
            .flatten()
            .filter(|e| e.depth() == 1)
            .map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                match e.file_type() {
                    Some(t) if t.is_dir() => format!("{name}/"),
                    Some(t) if t.is_symlink() => format!("{name}@"),
                    _ => name,
                }
            })
            .collect();
        entries.sort();
        let total = entries.len();
        entries.truncate(MAX_LIST_ENTRIES);
        let mut out = format!("{}: {total} entries\n", self.shown(&dir));
        out.push_str(&entries.join("\n"));
        if total > MAX_LIST_ENTRIES {
            out.push_str(&format!(
                "\n[{} more entries not shown]",
                total - MAX_LIST_ENTRIES
            ));
        }
        Ok(out)
    }

    /// `read_file`: a file's lines `start..=end` (1-based), numbered, at most
    /// [`MAX_READ_BYTES`]; text files of at most [`MAX_FILE_BYTES`] only.
    pub(super) fn read(&self, rel: &str, start: Option<u64>, end: Option<u64>) -> ToolResult {
        let path = self.resolve(rel)?;
        let meta = std::fs::metadata(&path).map_err(|_| format!("{rel:?} cannot be read"))?;
        if meta.is_dir() {
            return Err(format!("{rel:?} is a directory: use list_directory"));
        }
        if !meta.is_file() {
            return Err(format!("{rel:?} is not a regular file"));
        }
        if meta.len() > MAX_FILE_BYTES {
            return Err(format!(
                "{rel:?} is {} bytes; files over {MAX_FILE_BYTES} bytes are not read (search it instead)",
                meta.len()
            ));
        }
        let mut bytes = Vec::new();
        std::fs::File::open(&path)
            .and_then(|f| f.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes))
            .map_err(|_| format!("{rel:?} cannot be read"))?;
        if bytes[..bytes.len().min(BINARY_PROBE)].contains(&0) {
            return Err(format!("{rel:?} is a binary file; only text is read"));
        }
        let text = String::from_utf8_lossy(&bytes);
        let first = start.unwrap_or(1).max(1);
        let last = end.unwrap_or(u64::MAX);
        if last < first {
            return Err(format!("end_line {last} is before start_line {first}"));
        }
        let total = text.lines().count() as u64;
        if first > total.max(1) {
            return Err(format!(
                "{rel:?} has {total} lines; start_line {first} is past its end"
            ));
        }
        let mut out = String::new();
        let mut shown_to = first.saturating_sub(1);
        for (i, line) in text.lines().enumerate() {
            let n = i as u64 + 1;
            if n < first {
                continue;
            }
            if n > last {
                break;
            }
            let numbered = format!("{n}: {line}\n");
            if out.len() + numbered.len() > MAX_READ_BYTES {
                break;
            }
            out.push_str(&numbered);
            shown_to = n;
        }
        let header = format!(
            "{} (lines {first}-{shown_to} of {total})\n",
            self.shown(&path)
        );
        if shown_to < last.min(total) {
            out.push_str(&format!(
                "[cut at {MAX_READ_BYTES} bytes: ask for start_line {} to go on]",
                shown_to + 1
            ));
        }
        Ok(header + &out)
    }

    /// `search`: lines matching a regular expression (or a fixed string), in the files under
    /// `rel` the ignore files do not hide, at most [`MAX_SEARCH_HITS`].
    pub(super) fn search(&self, pattern: &str, rel: Option<&str>, fixed: bool) -> ToolResult {
        if pattern.is_empty() {
            return Err("the pattern is empty".into());
        }
        let base = self.resolve(rel.unwrap_or("."))?;
        let matcher = RegexMatcherBuilder::new()
            .fixed_strings(fixed)
            .size_limit(1 << 20)
            .dfa_size_limit(1 << 20)
            .build(pattern)
            .map_err(|e| format!("not a valid regular expression: {e}"))?;
        let mut searcher = SearcherBuilder::new()
            .line_number(true)
            .binary_detection(BinaryDetection::quit(0))
            .build();
        let mut hits = Vec::new();
        let mut total = 0usize;
        let mut files = 0usize;
        for entry in walker(&base, None, self)
            .max_filesize(Some(MAX_SEARCH_FILE_BYTES))
            .build()
            .flatten()
        {
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                continue;
            }
            files += 1;
            if files > MAX_SEARCH_FILES {
                break;
            }
            let shown = self.shown(entry.path());
            let _ = searcher.search_path(
                &matcher,
                entry.path(),
                Lossy(|n, line| {
                    total += 1;
                    if hits.len() < MAX_SEARCH_HITS {
                        let line: String = line.trim_end().chars().take(MAX_LINE_CHARS).collect();
                        hits.push(format!("{shown}:{n}: {line}"));
                    }
                    Ok(true)
                }),
            );
        }
        if hits.is_empty() {
            return Ok(format!("no match for {pattern:?} in {}", self.shown(&base)));
        }
        let mut out = hits.join("\n");
        if total > hits.len() {
            out.push_str(&format!(
                "\n[{} more matching lines not shown: narrow the pattern or the path]",
                total - hits.len()
            ));
        }
        Ok(out)
    }
}

/// Whether the link `link`, which leads to nothing that can be seen (a target that is gone,
/// or one the sandbox hides), names a place outside `root` by its text alone.
fn leads_out(link: &Path, root: &Path) -> bool {
    let Ok(to) = std::fs::read_link(link) else {
        return false;
    };
    let mut at: Vec<Component> = link.parent().unwrap_or(root).components().collect();
    if to.is_absolute() {
        at.clear();
    }
    for c in to.components() {
        match c {
            Component::ParentDir => {
                at.pop();
            }
            Component::CurDir => {}
            c => at.push(c),
        }
    }
    !at.iter().collect::<PathBuf>().starts_with(root)
}

/// `core.excludesFile` as git reads it for this repository: from every configuration file git
/// would read (the repository's own, the global one, what they include), `~/` expanded, a
/// relative path taken from the worktree's root. Only a regular file is read (never a FIFO or
/// a device a hostile configuration names), and only up to [`MAX_EXCLUDES_BYTES`]. The default
/// file (`~/.config/git/ignore`) and the global one the `ignore` crate reads itself.
fn excludes_file(root: &Path) -> Option<PathBuf> {
    let repo = gix::open(root).ok()?;
    let config = repo.config_snapshot();
    let path = config.trusted_path("core.excludesFile").ok()??;
    let path = root.join(&*path);
    let meta = std::fs::metadata(&path).ok()?;
    (meta.is_file() && meta.len() <= MAX_EXCLUDES_BYTES).then_some(path)
}

/// The walker every tool shares: ignore files applied (also outside a git repository, and
/// `worktree`'s `core.excludesFile`), hidden files shown, links not followed, `.git/` and
/// `.interview/` never entered, sorted.
fn walker(dir: &Path, depth: Option<usize>, worktree: &Worktree) -> WalkBuilder {
    let mut w = WalkBuilder::new(dir);
    let root = worktree.root.clone();
    let excludes = worktree.excludes.clone();
    w.require_git(false)
        .hidden(false)
        .follow_links(false)
        .max_depth(depth)
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry(move |e| {
            let hidden = HIDDEN_DIRS
                .iter()
                .any(|h| e.file_name().to_string_lossy().eq_ignore_ascii_case(h));
            let excluded = excludes.as_ref().is_some_and(|gi| {
                let is_dir = e.file_type().is_some_and(|t| t.is_dir());
                e.path().strip_prefix(&root).is_ok_and(|rel| {
                    !rel.as_os_str().is_empty()
                        && gi.matched_path_or_any_parents(rel, is_dir).is_ignore()
                })
            });
            !hidden && !excluded
        });
    w
}
