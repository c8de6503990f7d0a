//! One reading of the worktree for a turn: the walk lists the files once (ripgrep's `ignore`
//! walker on the machine's cores: ignore files respected, also outside a git repository,
//! hidden files left out, links not followed, `.git/` and `.interview/` never entered), then
//! each file is read once, on the machine's cores, and what the exact search and the index of
//! definitions take from it is handed back in the walk's order — so the result is the same on
//! any machine, and a pass that has read enough stops the reading.
//!
//! Not for: what a file holds (`search` finds the names an item spells, `nearest` indexes what
//! the repository defines).

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, mpsc};

use grep::matcher::Matcher;
use grep::searcher::sinks::Lossy;
use grep::searcher::{Searcher, SearcherBuilder};
use ignore::{WalkBuilder, WalkState};

/// Files larger than this are not listed (generated, vendored or data).
pub(super) const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// A regular file of the worktree.
#[derive(Debug, Clone)]
pub(super) struct Listed {
    /// Relative to the worktree, with `/`.
    pub rel: String,
    pub path: PathBuf,
    /// Its size when listed.
    pub len: u64,
}

/// The regular files of `worktree` of at most [`MAX_FILE_BYTES`], in the order of a walk that
/// visits each folder's entries by name (`a/b` before `a.txt`): the order `Path`s sort in.
pub(super) fn list(worktree: &Path) -> Vec<Listed> {
    let found = Mutex::new(Vec::new());
    WalkBuilder::new(worktree)
        .require_git(false)
        .follow_links(false)
        .threads(threads())
        .filter_entry(|e| {
            let name = e.file_name();
            name != ".git" && name != ".interview"
        })
        .build_parallel()
        .run(|| {
            let found = &found;
            Box::new(move |entry| {
                let Ok(entry) = entry else {
                    return WalkState::Continue;
                };
                if !entry.file_type().is_some_and(|t| t.is_file()) {
                    return WalkState::Continue;
                }
                let rel = entry
                    .path()
                    .strip_prefix(worktree)
                    .ok()
                    .and_then(Path::to_str)
                    .map(|r| r.replace(std::path::MAIN_SEPARATOR, "/"));
                let len = entry.metadata().map_or(0, |m| m.len());
                if let Some(rel) = rel.filter(|_| len <= MAX_FILE_BYTES) {
                    let path = entry.into_path();
                    if let Ok(mut found) = found.lock() {
                        found.push(Listed { rel, path, len });
                    }
                }
                WalkState::Continue
            })
        });
    let mut files = found.into_inner().unwrap_or_default();
    files.sort_unstable_by(|a, b| by_components(&a.rel, &b.rel));
    files
}

/// The order `Path`s of a walk sort in (component by component: `a/b` before `a-b/c` before
/// `a.txt`), without splitting them into components: `/` compared as lower than any byte a name
/// holds. A walk's paths are unique and hold no `.` or empty component.
fn by_components(a: &str, b: &str) -> std::cmp::Ordering {
    fn key(s: &str) -> impl Iterator<Item = u8> + '_ {
        s.bytes().map(|c| if c == b'/' { 0 } else { c })
    }
    key(a).cmp(key(b))
}

/// The part of a file's bytes a line search reads: up to its first NUL byte, where a binary
/// file's text ends (as ripgrep's searcher quits there).
pub(super) fn text_part(bytes: &[u8]) -> &[u8] {
    bytes
        .iter()
        .position(|&b| b == 0)
        .map_or(bytes, |nul| &bytes[..nul])
}

thread_local! {
    /// One line searcher a reading thread: building one zeroes 72 KiB of buffers, which cost
    /// more than searching most files.
    static SEARCHER: std::cell::RefCell<Searcher> =
        std::cell::RefCell::new(SearcherBuilder::new().line_number(true).build());
}

/// The lines of a file's text part ([`text_part`]) that `matcher` matches, each handed to
/// `found` with its number (from 1) until it says it has enough (false). `found` must not
/// search lines itself.
pub(super) fn matching_lines<M: Matcher>(
    matcher: &M,
    bytes: &[u8],
    found: impl FnMut(u64, &str) -> Result<bool, std::io::Error>,
) {
    SEARCHER.with_borrow_mut(|searcher| {
        // A matcher's error or a sink's stop ends the search; what was found is kept.
        let _ = searcher.search_slice(matcher, text_part(bytes), Lossy(found));
    });
}

/// Read each of `files` once (nothing when it cannot be read, as for an empty file), give its
/// bytes to `read` on the machine's cores, and hand each result to `take` in the files' order;
/// once `take` says it has enough (false), no more files are handed over.
pub(super) fn in_walk_order<T: Send>(
    files: &[Listed],
    read: impl Fn(&Listed, &[u8]) -> T + Sync,
    mut take: impl FnMut(&Listed, T) -> bool,
) {
    let next = AtomicUsize::new(0);
    let enough = AtomicBool::new(false);
    std::thread::scope(|s| {
        // A thread takes files a batch at a time and hands back the batch's results together.
        let (tx, rx) = mpsc::channel::<(usize, Vec<T>)>();
        for _ in 0..threads() {
            let tx = tx.clone();
            let (next, enough, read) = (&next, &enough, &read);
            s.spawn(move || {
                let mut bytes = Vec::new();
                while !enough.load(Ordering::Relaxed) {
                    let first = next.fetch_add(BATCH, Ordering::Relaxed);
                    let Some(batch) = files.get(first..(first + BATCH).min(files.len())) else {
                        break;
                    };
                    let mut outs = Vec::with_capacity(batch.len());
                    for file in batch {
                        bytes.clear();
                        if std::fs::File::open(&file.path)
                            .and_then(|f| f.take(MAX_FILE_BYTES).read_to_end(&mut bytes))
                            .is_err()
                        {
                            bytes.clear();
                        }
                        outs.push(read(file, &bytes));
                    }
                    if tx.send((first, outs)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        // Batches come in any order; their results are taken in the files' order.
        let mut waiting: BTreeMap<usize, Vec<T>> = BTreeMap::new();
        let mut due = 0;
        'taking: for (first, outs) in rx {
            waiting.insert(first, outs);
            while let Some(outs) = waiting.remove(&due) {
                for (i, out) in (due..).zip(outs) {
                    if !take(&files[i], out) {
                        break 'taking;
                    }
                }
                due += BATCH;
            }
        }
        enough.store(true, Ordering::Relaxed);
    });
}

/// Files a reading thread takes at a time.
const BATCH: usize = 64;

/// The threads that read: the machine's cores, at most 8.
fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(8))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (rel, text) in files {
            let path = dir.path().join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    }

    #[test]
    fn files_are_listed_in_the_order_of_a_walk_by_name_hidden_and_ignored_ones_left_out() {
        let dir = tree(&[
            ("a.txt", "1"),
            ("a/b", "2"),
            ("a-b/c", "3"),
            ("b", "4"),
            (".gitignore", "target/\n"),
            ("target/x", "5"),
            (".git/config", "6"),
            (".interview/lock", "7"),
        ]);
        let rels: Vec<String> = list(dir.path()).into_iter().map(|f| f.rel).collect();
        assert_eq!(rels, ["a/b", "a-b/c", "a.txt", "b"]);
    }

    #[test]
    fn results_are_taken_in_the_files_order_and_the_reading_stops_when_enough() {
        let files: Vec<(String, String)> = (0..500)
            .map(|i| (format!("d{}/f{i:03}", i % 7), format!("{i}")))
            .collect();
        let refs: Vec<(&str, &str)> = files
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        let dir = tree(&refs);
        let listed = list(dir.path());
        let mut taken = Vec::new();
        in_walk_order(
            &listed,
            |file, bytes| {
                (
                    file.rel.clone(),
                    String::from_utf8_lossy(bytes).into_owned(),
                )
            },
            |file, (rel, text)| {
                assert_eq!(file.rel, rel);
                taken.push(text);
                taken.len() < 300
            },
        );
        let want: Vec<String> = listed[..300]
            .iter()
            .map(|f| std::fs::read_to_string(&f.path).unwrap())
            .collect();
        assert_eq!(taken, want);
    }

    #[test]
    fn paths_sort_by_their_components() {
        let mut rels = [
            "a.txt", "a-b/c", "a/b/c", "a/b", "a/b.c", "ab", "a/b-c/d", "é/x", "e/x",
        ];
        let mut by_path = rels.map(Path::new);
        by_path.sort();
        rels.sort_by(|a, b| by_components(a, b));
        assert_eq!(rels.map(Path::new), by_path);
    }

    #[test]
    fn a_line_search_reads_up_to_the_first_nul() {
        assert_eq!(text_part(b"text\nmore\0binary"), b"text\nmore");
        assert_eq!(text_part(b"all text"), b"all text");
    }
}
