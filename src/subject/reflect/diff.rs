//! One diff between two trees: the files that differ (mode-only changes included), the lines
//! added and deleted in each as `git log --numstat` counts them, and the TODO/FIXME and inline
//! test lines among them.

use gix::bstr::ByteSlice;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// Blobs larger than this are counted as changed but not diffed line by line.
const MAX_DIFF_BYTES: usize = 8 * 1024 * 1024;

/// What one non-merge commit changed against its first parent: the unit the local tier caches.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct CommitFacts {
    pub(super) changes: Vec<Change>,
    /// TODO/FIXME lines the commit added and did not remove elsewhere (a move adds none), as
    /// `(path, text)`.
    pub(super) todos: Vec<(String, String)>,
}

/// One file changed by a commit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Change {
    pub(super) path: String,
    pub(super) added: u64,
    pub(super) deleted: u64,
    /// A side was binary or too large: its lines are not counted (`-` in `--numstat`).
    pub(super) binary: bool,
    /// `A` added, `D` deleted, `M` modified (content, mode or both).
    pub(super) status: char,
    /// Lines added include an inline test (`#[test]`, `def test_`, `it(` …).
    pub(super) inline_tests: bool,
}

/// One file that differs between two trees, with its blob id and mode on each side.
pub(super) struct FileChange {
    pub(super) path: String,
    pub(super) old: Option<(gix::ObjectId, gix::objs::tree::EntryMode)>,
    pub(super) new: Option<(gix::ObjectId, gix::objs::tree::EntryMode)>,
}

/// The lines of one file change that matter beyond the counts.
#[derive(Default)]
pub(super) struct LineFacts {
    pub(super) added: u64,
    pub(super) deleted: u64,
    pub(super) binary: bool,
    pub(super) inline_tests: bool,
    /// Added TODO/FIXME lines: 1-based line number in the new side and the trimmed text.
    pub(super) todos_added: Vec<(u32, String)>,
    /// Removed TODO/FIXME lines, trimmed.
    pub(super) todos_removed: Vec<String>,
}

pub(super) fn tree_of(repo: &gix::Repository, commit: gix::ObjectId) -> Result<gix::ObjectId> {
    let commit = repo
        .find_commit(commit)
        .map_err(|e| Error::Repo(format!("cannot read commit {commit}: {e}")))?;
    commit
        .tree_id()
        .map(|t| t.detach())
        .map_err(|e| Error::Repo(format!("cannot read the tree of {}: {e}", commit.id)))
}

/// The facts of one commit from the files it changed (its tree against its first parent's) and
/// the lines of each, in the same order.
pub(super) fn assemble(changes: Vec<FileChange>, lines: Vec<LineFacts>) -> CommitFacts {
    let mut facts = CommitFacts::default();
    let mut removed: Vec<String> = Vec::new();
    let mut added: Vec<(String, String)> = Vec::new();
    for (change, lines) in changes.into_iter().zip(lines) {
        let status = match (&change.old, &change.new) {
            (None, _) => 'A',
            (_, None) => 'D',
            _ => 'M',
        };
        removed.extend(lines.todos_removed);
        added.extend(
            lines
                .todos_added
                .into_iter()
                .map(|(_, text)| (change.path.clone(), text)),
        );
        facts.changes.push(Change {
            path: change.path,
            added: lines.added,
            deleted: lines.deleted,
            binary: lines.binary,
            status,
            inline_tests: lines.inline_tests,
        });
    }
    // Net within the commit: a line moved from one file to another is not new.
    for (path, text) in added {
        if let Some(i) = removed.iter().position(|r| *r == text) {
            removed.swap_remove(i);
        } else {
            facts.todos.push((path, text));
        }
    }
    facts
}

/// The files that differ between two trees (`old` `None`: every file of `new`).
pub(super) fn diff_trees(
    repo: &gix::Repository,
    old: Option<gix::ObjectId>,
    new: gix::ObjectId,
    state: &mut gix::diff::tree::State,
) -> Result<Vec<FileChange>> {
    use gix::diff::tree::recorder::Change;
    let read = |id: gix::ObjectId| {
        repo.find_tree(id)
            .map(|t| t.data.clone())
            .map_err(|e| Error::Repo(format!("cannot read tree {id}: {e}")))
    };
    let old_data = match old {
        Some(id) => read(id)?,
        None => Vec::new(),
    };
    let new_data = read(new)?;
    let kind = repo.object_hash();
    let mut recorder = gix::diff::tree::Recorder::default();
    gix::diff::tree(
        gix::objs::TreeRefIter::from_bytes(&old_data, kind),
        gix::objs::TreeRefIter::from_bytes(&new_data, kind),
        state,
        &repo.objects,
        &mut recorder,
    )
    .map_err(|e| Error::Repo(format!("cannot diff tree {new}: {e}")))?;
    let file = |mode: gix::objs::tree::EntryMode, oid: gix::ObjectId| {
        mode.is_blob_or_symlink().then_some((oid, mode))
    };
    let mut out = Vec::new();
    for change in recorder.records {
        let (path, old, new) = match change {
            Change::Addition {
                entry_mode,
                oid,
                path,
                ..
            } => (path, None, file(entry_mode, oid)),
            Change::Deletion {
                entry_mode,
                oid,
                path,
                ..
            } => (path, file(entry_mode, oid), None),
            Change::Modification {
                previous_entry_mode,
                previous_oid,
                entry_mode,
                oid,
                path,
            } => (
                path,
                file(previous_entry_mode, previous_oid),
                file(entry_mode, oid),
            ),
        };
        if old.is_none() && new.is_none() {
            continue; // trees and submodules: their files are reported on their own
        }
        if old == new {
            continue;
        }
        out.push(FileChange {
            path: path.to_str_lossy().into_owned(),
            old,
            new,
        });
    }
    Ok(out)
}

/// Lines added and deleted by one change, and the TODO/FIXME and test lines among them.
pub(super) fn count_lines(repo: &gix::Repository, change: &FileChange) -> Result<LineFacts> {
    if change.mode_only() {
        return Ok(LineFacts::default());
    }
    let before = load_side(repo, change, change.old)?;
    let after = load_side(repo, change, change.new)?;
    Ok(line_facts(&before, &after))
}

/// One side's blob of a change (nothing for the side that has none).
pub(super) fn load_side(
    repo: &gix::Repository,
    change: &FileChange,
    side: Option<(gix::ObjectId, gix::objs::tree::EntryMode)>,
) -> Result<Vec<u8>> {
    match side {
        Some((id, _)) => blob(repo, id, &change.path),
        None => Ok(Vec::new()),
    }
}

/// The bytes of the blob `id` (the file `path` on one side of a change). A blob the object
/// store lacks (a partial clone's, fetched only when git reads it) is an error that says so:
/// reflect never fetches, as a fetch runs what the repository's configuration names.
pub(super) fn blob(repo: &gix::Repository, id: gix::ObjectId, path: &str) -> Result<Vec<u8>> {
    repo.find_blob(id).map(|mut b| b.take_data()).map_err(|e| {
        if repo.has_object(id) {
            Error::Repo(format!("cannot read blob {id} ({path}): {e}"))
        } else {
            Error::Repo(format!(
                "cannot read blob {id} ({path}): this clone does not hold it (a partial clone \
                 fetches a file's old versions only when git reads them, and interview never \
                 fetches); have git read the range first, e.g. `git log -p TAG..HEAD > \
                 /dev/null`, or clone without `--filter`"
            ))
        }
    })
}

impl FileChange {
    /// Only the mode changed: no line did.
    pub(super) fn mode_only(&self) -> bool {
        self.old.map(|o| o.0) == self.new.map(|n| n.0)
    }
}

/// [`count_lines`] of the two sides' contents.
pub(super) fn line_facts(before: &[u8], after: &[u8]) -> LineFacts {
    // Git's rule: a NUL in the first 8000 bytes makes a file binary.
    let binary = |d: &[u8]| d[..d.len().min(8000)].contains(&0);
    if binary(before) || binary(after) || before.len().max(after.len()) > MAX_DIFF_BYTES {
        return LineFacts {
            binary: true,
            ..LineFacts::default()
        };
    }
    let mut facts = LineFacts::default();
    let note_added = |number: u32, line: &[u8], facts: &mut LineFacts| {
        facts.inline_tests |= is_inline_test(line);
        if is_todo(line) {
            facts
                .todos_added
                .push((number, line.to_str_lossy().trim().to_string()));
        }
    };
    // The lines both sides share at the start and at the end are not diffed (as git trims
    // them): a one-line change to a long file interns a few lines, not all of them.
    let (prefix, suffix) = common_ends(before, after);
    let offset =
        u32::try_from(before[..prefix].iter().filter(|&&b| b == b'\n').count()).unwrap_or(u32::MAX);
    let (before, after) = (
        &before[prefix..before.len() - suffix],
        &after[prefix..after.len() - suffix],
    );
    let number = |i: usize| {
        u32::try_from(i + 1)
            .unwrap_or(u32::MAX)
            .saturating_add(offset)
    };
    if before.is_empty() || after.is_empty() {
        // One side only: every line is added (or deleted); nothing to diff.
        for (i, line) in after.lines().enumerate() {
            note_added(number(i), line, &mut facts);
        }
        facts.added = line_count(after);
        facts.deleted = line_count(before);
        facts.todos_removed = before
            .lines()
            .filter(|l| is_todo(l))
            .map(|l| l.to_str_lossy().trim().to_string())
            .collect();
        return facts;
    }
    use gix::diff::blob::{Algorithm, Diff, InternedInput};
    let input = InternedInput::new(before, after);
    let diff = Diff::compute(Algorithm::Myers, &input);
    for hunk in diff.hunks() {
        for i in hunk.after {
            if let Some(token) = input.after.get(i as usize) {
                note_added(number(i as usize), input.interner[*token], &mut facts);
            }
        }
        for i in hunk.before {
            if let Some(token) = input.before.get(i as usize) {
                let line = input.interner[*token];
                if is_todo(line) {
                    facts
                        .todos_removed
                        .push(line.to_str_lossy().trim().to_string());
                }
            }
        }
    }
    facts.added = u64::from(diff.count_additions());
    facts.deleted = u64::from(diff.count_removals());
    facts
}

/// The bytes of the whole lines two texts share at their start and, after that, at their end.
fn common_ends(a: &[u8], b: &[u8]) -> (usize, usize) {
    let same = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    // Whole lines only: up to the last newline of the shared bytes.
    let prefix = a[..same]
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |i| i + 1);
    let (ra, rb) = (&a[prefix..], &b[prefix..]);
    let mut suffix = ra
        .iter()
        .rev()
        .zip(rb.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    // Whole lines only: the shared end must start a line on both sides, else it starts after
    // its first newline.
    let starts_line = |r: &[u8], n: usize| {
        let at = r.len() - n;
        at == 0 || r[at - 1] == b'\n'
    };
    if suffix > 0 && !(starts_line(ra, suffix) && starts_line(rb, suffix)) {
        let at = ra.len() - suffix;
        suffix = match ra[at..].iter().position(|&c| c == b'\n') {
            Some(k) => suffix - (k + 1),
            None => 0,
        };
    }
    (prefix, suffix)
}

/// Lines of a text as git counts them: a last line without a newline counts too.
pub(super) fn line_count(data: &[u8]) -> u64 {
    let newlines = data.iter().filter(|&&b| b == b'\n').count() as u64;
    newlines + u64::from(data.last().is_some_and(|&b| b != b'\n'))
}

/// A TODO/FIXME line: the marker is a word of its own that opens a comment (`// TODO: x`,
/// `# FIXME(ana)`, `/* TODO */`, `-- TODO`) or the line (`TODO: write docs`). A marker inside
/// prose or code (`the TODO/FIXME lines`, `b"TODO"`) is not one.
pub(super) fn is_todo(line: &[u8]) -> bool {
    has_marker(line, b"TODO") || has_marker(line, b"FIXME")
}

/// Whether a position follows an odd number of unescaped `"` or of backticks: inside a string
/// literal or a code span, where a marker is text (`write("// TODO: x")`), not a note.
fn inside_literal(before: &[u8]) -> bool {
    let (mut quotes, mut ticks, mut escaped) = (0usize, 0usize, false);
    for &b in before {
        match b {
            _ if escaped => escaped = false,
            b'\\' => escaped = true,
            b'"' => quotes += 1,
            b'`' => ticks += 1,
            _ => {}
        }
    }
    quotes % 2 == 1 || ticks % 2 == 1
}

/// Whether what comes before a marker opens a comment (or is nothing but blanks).
fn opens_comment(before: &[u8]) -> bool {
    const LEADERS: &[&[u8]] = &[
        b"//", b"//!", b"/*!", b"#", b"/*", b"*", b"--", b";", b"<!--", b"%", b"{-", b"(*",
        b"\"\"\"", b"-",
    ];
    let before = before.trim();
    before.is_empty() || LEADERS.iter().any(|l| before.ends_with(l))
}

/// True when `marker` appears in `line` as a word of its own (`TODO:`, `// FIXME(x)`), not inside
/// another word (`TODOs`, `FIXMEd`).
fn has_marker(line: &[u8], marker: &[u8]) -> bool {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    // The first byte is compared before the whole marker: a line is scanned at every byte, and
    // a call to compare slices there cost more than the rest of the scan.
    line.windows(marker.len()).enumerate().any(|(at, w)| {
        w[0] == marker[0]
            && w == marker
            && (at == 0 || !word(line[at - 1]))
            && line
                .get(at + marker.len())
                .is_none_or(|&b| !word(b) && b != b'/')
            && opens_comment(&line[..at])
            && !inside_literal(&line[..at])
    })
}

/// A line that declares a test inline, in the usual languages: Rust `#[test]`, `#[cfg(test)]`,
/// `#[tokio::test]`; Python `def test_`; Go `func Test`; Java/Kotlin `@Test`; JavaScript
/// `it(`, `test(`, `describe(`.
pub(super) fn is_inline_test(line: &[u8]) -> bool {
    let text = line.trim_start();
    // Most lines start with none of the declarations' first bytes: they are not compared.
    if !matches!(
        text.first(),
        Some(b'#' | b'd' | b'a' | b'f' | b'@' | b'i' | b't')
    ) {
        return false;
    }
    if text.starts_with(b"#[") {
        return text.starts_with(b"#[test]")
            || text.starts_with(b"#[cfg(test)]")
            || text.find(b"::test]").is_some();
    }
    text.starts_with(b"def test_")
        || text.starts_with(b"async def test_")
        || text.starts_with(b"func Test")
        || text.starts_with(b"@Test")
        || [&b"it("[..], b"test(", b"describe("]
            .iter()
            .any(|call| text.starts_with(call))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_todo_marker_is_a_word_of_its_own() {
        assert!(has_marker(b"// TODO: handle errors", b"TODO"));
        assert!(has_marker(b"# FIXME(ana) later", b"FIXME"));
        assert!(has_marker(b"TODO", b"TODO"));
        assert!(!has_marker(b"tests touched, TODOs", b"TODO"));
        assert!(!has_marker(b"MY_TODO_LIST", b"TODO"));
        assert!(has_marker(b"    //! TODO explain", b"TODO"));
        assert!(has_marker(b"x = 1  # TODO: tune", b"TODO"));
        assert!(has_marker(b"/* FIXME */", b"FIXME"));
        assert!(has_marker(b"- TODO write docs", b"TODO"));
        assert!(!has_marker(b"//! (with the TODO/FIXME lines)", b"TODO"));
        assert!(!has_marker(b"// TODO/FIXME lines are counted", b"TODO"));
        assert!(!has_marker(b"if has_marker(line, b\"TODO\")", b"TODO"));
        assert!(!has_marker(
            b"repo.write(\"a.rs\", \"// TODO: x\");",
            b"TODO"
        ));
        assert!(!has_marker(b"- `// TODO:` markers count", b"TODO"));
        assert!(has_marker(b"let s = \"a\"; // TODO: b", b"TODO"));
    }

    #[test]
    fn inline_tests_in_the_usual_languages() {
        for line in [
            "    #[test]",
            "#[cfg(test)]",
            "#[tokio::test]",
            "    def test_export(self):",
            "func TestExport(t *testing.T) {",
            "  @Test",
            "  it('exports', () => {",
            "test(\"x\", () => {})",
            "describe('export', () => {",
        ] {
            assert!(is_inline_test(line.as_bytes()), "{line}");
        }
        for line in ["submit('x')", "#[derive(Debug)]", "let test = 1;", "// it("] {
            assert!(!is_inline_test(line.as_bytes()), "{line}");
        }
    }

    #[test]
    fn shared_ends_are_whole_lines() {
        assert_eq!(common_ends(b"a\nb\nc\n", b"a\nx\nc\n"), (2, 2));
        assert_eq!(common_ends(b"ab\n", b"ac\n"), (0, 0));
        assert_eq!(common_ends(b"a\nb", b"a\nb\n"), (2, 0));
        assert_eq!(common_ends(b"x\nfoo", b"foo"), (0, 3));
        assert_eq!(common_ends(b"a\nb\n", b"a\nb\n"), (4, 0));
        assert_eq!(common_ends(b"a\n", b"a\nb\n"), (2, 0));
        assert_eq!(common_ends(b"b\n", b"a\nb\n"), (0, 2));
        // "xb\n" and "yb\n" share "b\n" as bytes, but not as a line.
        assert_eq!(common_ends(b"xb\n", b"yb\n"), (0, 0));
    }

    #[test]
    fn lines_count_a_last_line_without_newline() {
        assert_eq!(line_count(b""), 0);
        assert_eq!(line_count(b"a\n"), 1);
        assert_eq!(line_count(b"a\nb"), 2);
    }
}
