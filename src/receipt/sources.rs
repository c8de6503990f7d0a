//! Evidence behind a `confirmed` entry: `path:line` of a file in the repository, or
//! `commit:<hex>` of a commit in it. Looked up in-process (cap-std, gix), never by running git.

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;

use cap_fs_ext::{FollowSymlinks, OpenOptionsFollowExt, OpenOptionsSyncExt};
use cap_std::fs::{Dir, OpenOptions};

/// A cited file is read at most this far when counting its lines.
const MAX_SCAN_BYTES: u64 = 64 * 1024 * 1024;

/// All cited files of one receipt together are read at most this far, so 400 citations of a
/// large file cannot make a check slow.
const RECEIPT_SCAN_BUDGET: u64 = 256 * 1024 * 1024;

/// Check that `path` is a plain relative path inside the repository: no leading `/`, no empty,
/// `.` or `..` segment, nothing under `.git/` or `.interview/`.
pub(super) fn check_relative_path(path: &str) -> Result<(), String> {
    if path.is_empty() {
        return Err("the path before `:line` is empty".into());
    }
    if path.starts_with('/') {
        return Err("the path must be relative to the repository root, not absolute".into());
    }
    for segment in path.split('/') {
        match segment {
            "" => return Err("the path has an empty segment (`//` or a trailing `/`)".into()),
            "." | ".." => {
                return Err(format!(
                    "the path has a `{segment}` segment; write it relative to the repository root without `.` or `..`"
                ));
            }
            // Not the repository's content: citing them would put git internals or local-tier
            // paths into a shared document (in any spelling a file system takes for them).
            s if crate::own_writes::names::is_protected(s.as_ref()) => {
                return Err(format!(
                    "the path is inside `{s}/`, which is not part of the repository's content"
                ));
            }
            _ => {}
        }
    }
    Ok(())
}

/// Opens the repository lazily, once per receipt, for the lookups of its sources.
pub(super) struct Evidence<'a> {
    root: &'a Path,
    dir: Option<Result<Dir, String>>,
    repo: Option<Result<gix::Repository, String>>,
    /// What earlier citations learnt about each file's lines.
    known: HashMap<String, KnownLines>,
    /// Bytes that may still be read for line counts.
    budget: u64,
}

#[derive(Default)]
struct KnownLines {
    at_least: u64,
    exactly: Option<u64>,
}

impl<'a> Evidence<'a> {
    pub(super) fn new(root: &'a Path) -> Evidence<'a> {
        Evidence {
            root,
            dir: None,
            repo: None,
            known: HashMap::new(),
            budget: RECEIPT_SCAN_BUDGET,
        }
    }

    fn dir(&mut self) -> Result<&Dir, String> {
        let root = self.root;
        self.dir
            .get_or_insert_with(|| {
                Dir::open_ambient_dir(root, cap_std::ambient_authority())
                    .map_err(|e| format!("cannot open the repository at {}: {e}", root.display()))
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Check that `line` (1-based) exists in the regular file `path` inside the repository.
    /// `path` must already have passed [`check_relative_path`]. Symbolic links are not followed
    /// at the last component, and cap-std refuses any path that would leave the root.
    pub(super) fn file_line(&mut self, path: &str, line: u64) -> Result<(), String> {
        if let Some(known) = self.known.get(path) {
            match known.exactly {
                Some(n) => return too_few_lines(path, n, line),
                None if known.at_least >= line => return Ok(()),
                None => {}
            }
        }
        let budget = self.budget.min(MAX_SCAN_BYTES);
        let dir = self.dir()?;
        let meta = match dir.symlink_metadata(path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(format!("`{path}` does not exist in the repository"));
            }
            // cap-std's answer to a path that would leave the root through a symbolic link.
            Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
                return Err(format!(
                    "`{path}` leads outside the repository through a symbolic link"
                ));
            }
            Err(e) => return Err(format!("cannot look up `{path}` in the repository: {e}")),
        };
        if meta.file_type().is_symlink() {
            return Err(format!(
                "`{path}` is a symbolic link; cite the file it points to"
            ));
        }
        if !meta.is_file() {
            return Err(format!("`{path}` is not a regular file"));
        }
        let mut options = OpenOptions::new();
        options.read(true).follow(FollowSymlinks::No).nonblock(true);
        let file = dir
            .open_with(path, &options)
            .map_err(|e| format!("cannot open `{path}` in the repository: {e}"))?;
        if !file.metadata().is_ok_and(|m| m.is_file()) {
            return Err(format!("`{path}` is not a regular file"));
        }
        let (lines, read) = count_lines_up_to(file, line, budget)
            .map_err(|e| format!("cannot read `{path}`: {e}"))?;
        self.budget = self.budget.saturating_sub(read);
        let known = self.known.entry(path.to_string()).or_default();
        match lines {
            LineCount::AtLeast => {
                known.at_least = known.at_least.max(line);
                Ok(())
            }
            LineCount::Exactly(n) => {
                known.exactly = Some(n);
                too_few_lines(path, n, line)
            }
            LineCount::TooLarge if budget < MAX_SCAN_BYTES => Err(format!(
                "cannot check line {line} of `{path}`: the receipt's citations already made the \
                 tool read {} MiB of files; cite fewer or smaller files",
                RECEIPT_SCAN_BUDGET / (1024 * 1024)
            )),
            LineCount::TooLarge => Err(format!(
                "`{path}` is too large to check line {line} (over {} MiB read)",
                MAX_SCAN_BYTES / (1024 * 1024)
            )),
        }
    }

    /// Check that `hex` (7–40 hex digits, already checked) names a commit in the repository.
    pub(super) fn commit(&mut self, hex: &str) -> Result<(), String> {
        let root = self.root;
        let repo = self
            .repo
            .get_or_insert_with(|| {
                // Isolated: only the repository's own config, nothing from the environment.
                gix::open_opts(root, gix::open::Options::isolated()).map_err(|e| {
                    format!("cannot open the git repository at {}: {e}", root.display())
                })
            })
            .as_ref()
            .map_err(Clone::clone)?;
        let id = repo
            .rev_parse_single(hex)
            .map_err(|e| format!("`{hex}` does not name a commit in the repository ({e})"))?;
        let header = id
            .header()
            .map_err(|e| format!("cannot read object `{hex}`: {e}"))?;
        if header.kind() != gix::object::Kind::Commit {
            return Err(format!("`{hex}` is a {}, not a commit", header.kind()));
        }
        Ok(())
    }
}

fn too_few_lines(path: &str, lines: u64, line: u64) -> Result<(), String> {
    if line <= lines {
        return Ok(());
    }
    Err(format!(
        "`{path}` has {lines} line{}, so line {line} does not exist",
        if lines == 1 { "" } else { "s" }
    ))
}

enum LineCount {
    /// The file has at least the wanted number of lines.
    AtLeast,
    /// The file has exactly this many lines, fewer than wanted.
    Exactly(u64),
    /// The read limit was reached before an answer.
    TooLarge,
}

/// Count lines until `wanted` is reached, reading at most `limit` bytes; also returns the bytes
/// read. A last line without a final newline counts.
fn count_lines_up_to(
    reader: impl Read,
    wanted: u64,
    limit: u64,
) -> std::io::Result<(LineCount, u64)> {
    let mut reader = reader.take(limit.saturating_add(1));
    let mut buf = vec![0u8; 64 * 1024];
    let mut newlines = 0u64;
    let mut total = 0u64;
    let mut last = None;
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        total += n as u64;
        if total > limit {
            return Ok((LineCount::TooLarge, total));
        }
        newlines += buf[..n].iter().filter(|b| **b == b'\n').count() as u64;
        last = buf[..n].last().copied();
        if newlines >= wanted {
            return Ok((LineCount::AtLeast, total));
        }
    }
    let lines = newlines + u64::from(last.is_some_and(|b| b != b'\n'));
    let count = if lines >= wanted {
        LineCount::AtLeast
    } else {
        LineCount::Exactly(lines)
    };
    Ok((count, total))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str, wanted: u64) -> String {
        match count_lines_up_to(text.as_bytes(), wanted, 1024).unwrap().0 {
            LineCount::AtLeast => "ok".into(),
            LineCount::Exactly(n) => format!("only {n}"),
            LineCount::TooLarge => "too large".into(),
        }
    }

    #[test]
    fn a_last_line_without_newline_counts() {
        assert_eq!(lines("a\nb", 2), "ok");
        assert_eq!(lines("a\nb", 3), "only 2");
        assert_eq!(lines("a\nb\n", 3), "only 2");
        assert_eq!(lines("", 1), "only 0");
    }

    #[test]
    fn counting_stops_at_the_limit() {
        let text = "x".repeat(2000);
        assert_eq!(lines(&text, 2), "too large");
    }

    #[test]
    fn counting_stops_once_the_line_is_reached() {
        let text = format!("a\nb\n{}", "x".repeat(1_000_000));
        let (count, read) = count_lines_up_to(text.as_bytes(), 2, u64::MAX - 1).unwrap();
        assert!(matches!(count, LineCount::AtLeast));
        assert!(read <= 64 * 1024, "{read}");
    }

    #[test]
    fn relative_paths_without_dot_segments_pass() {
        assert!(check_relative_path("src/lib.rs").is_ok());
        assert!(check_relative_path(".github/workflows/ci.yml").is_ok());
    }

    #[test]
    fn escaping_or_odd_paths_are_refused() {
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "src/../../x",
            "./src/lib.rs",
            "src//lib.rs",
            "src/",
            ".git/config",
            ".interview/sessions/x/state.json",
            "sub/.git/config",
        ] {
            assert!(check_relative_path(bad).is_err(), "{bad}");
        }
    }
}
