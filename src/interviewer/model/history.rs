//! The model's read-only view of git history, with gix: the log of the repository or of one
//! path, one commit (its message, the files it changed, the lines it changed in one path), and
//! who last changed a line range (blame). Every result is capped; nothing is written, not even
//! a cache.
//!
//! Not for: the worktree's files (`worktree.rs`).

use gix::bstr::{BStr, ByteSlice};

use super::worktree::ToolResult;

/// Commits one log lists at most, and inspects at most to find them.
pub(super) const MAX_LOG_COMMITS: usize = 50;
const MAX_LOG_WALK: usize = 5_000;
/// Changed files one commit lists at most; diff lines of one path at most.
const MAX_SHOW_FILES: usize = 200;
const MAX_SHOW_DIFF_LINES: usize = 400;
/// A commit message is cut after this many bytes.
const MAX_MESSAGE_BYTES: usize = 4 * 1024;
/// Lines one blame covers at most.
pub(super) const MAX_BLAME_LINES: u32 = 200;
/// A blob larger than this is neither diffed nor blamed.
const MAX_BLOB_BYTES: usize = 4 * 1024 * 1024;

pub(super) struct History {
    repo: gix::Repository,
    /// Every commit on a branch, a tag, a remote branch or HEAD: the only commits shown (see
    /// [`History::commit_id`]). Found at the first commit asked for.
    shown: std::cell::OnceCell<std::collections::HashSet<gix::ObjectId>>,
}

fn err(what: &str, e: impl std::fmt::Display) -> String {
    format!("{what}: {e}")
}

impl History {
    pub(super) fn open(worktree: &std::path::Path) -> Option<History> {
        let mut repo = gix::open(worktree).ok()?;
        repo.object_cache_size(Some(16 * 1024 * 1024));
        Some(History {
            repo,
            shown: std::cell::OnceCell::new(),
        })
    }

    fn head(&self) -> std::result::Result<gix::ObjectId, String> {
        self.repo
            .head_id()
            .map(|id| id.detach())
            .map_err(|e| err("the repository has no commit at HEAD", e))
    }

    /// The commit `rev` names, if it is on a branch, a tag, a remote branch or HEAD. Never one
    /// only a reflog (`HEAD@{1}`: a commit amended away, with what it removed) or the stash
    /// (`stash@{0}`, `refs/stash`, its index and untracked-files commits) still holds: those
    /// are the person's own drafts, not the repository's history. Refused however they are
    /// named (a reflog selector, a message search, a hexadecimal id).
    fn commit_id(&self, rev: &str) -> std::result::Result<gix::ObjectId, String> {
        const NOT_SHOWN: &str = "reflog and stash entries are not shown: name a commit on a \
                                 branch or a tag (a hash, a branch, a tag, HEAD~N)";
        if rev.contains("@{") {
            return Err(format!("{rev:?}: {NOT_SHOWN}"));
        }
        let id = self.resolve(rev)?;
        if !self.shown().contains(&id) {
            return Err(format!("{rev:?} is not on any branch or tag: {NOT_SHOWN}"));
        }
        Ok(id)
    }

    fn shown(&self) -> &std::collections::HashSet<gix::ObjectId> {
        self.shown.get_or_init(|| {
            let mut tips: Vec<gix::ObjectId> = self.head().into_iter().collect();
            if let Ok(refs) = self.repo.references() {
                let prefixes = ["refs/heads/", "refs/tags/", "refs/remotes/"];
                for r in refs.all().into_iter().flatten().flatten() {
                    let name = r.name().as_bstr().to_str_lossy().into_owned();
                    if !prefixes.iter().any(|p| name.starts_with(p)) {
                        continue;
                    }
                    let mut r = r;
                    if let Ok(id) = r.peel_to_id()
                        && let Ok(commit) = id.object().and_then(|o| Ok(o.peel_to_commit()?.id))
                    {
                        tips.push(commit);
                    }
                }
            }
            self.repo
                .rev_walk(tips)
                .all()
                .map(|walk| walk.filter_map(Result::ok).map(|info| info.id).collect())
                .unwrap_or_default()
        })
    }

    fn resolve(&self, rev: &str) -> std::result::Result<gix::ObjectId, String> {
        let id = self
            .repo
            .rev_parse_single(rev)
            .map_err(|e| err(&format!("{rev:?} names no commit"), e))?;
        id.object()
            .and_then(|o| Ok(o.peel_to_commit()?.id))
            .map_err(|e| err(&format!("{rev:?} is not a commit"), e))
    }

    /// The id of `path`'s entry in `commit`'s tree (`None` where it has none).
    fn entry(&self, commit: gix::ObjectId, path: &str) -> Option<gix::ObjectId> {
        let tree = self.repo.find_commit(commit).ok()?.tree().ok()?;
        let entry = tree.lookup_entry_by_path(path).ok()??;
        Some(entry.object_id())
    }

    /// `git_log`: newest first, the commits of HEAD's history (that changed `path`, if given).
    pub(super) fn log(&self, path: Option<&str>, max: usize) -> ToolResult {
        let max = max.clamp(1, MAX_LOG_COMMITS);
        let walk = self
            .repo
            .rev_walk([self.head()?])
            .sorting(gix::revision::walk::Sorting::ByCommitTime(
                Default::default(),
            ))
            .all()
            .map_err(|e| err("cannot walk the history", e))?;
        let mut lines = Vec::new();
        let mut walked = 0;
        for info in walk {
            let info = info.map_err(|e| err("cannot walk the history", e))?;
            walked += 1;
            if walked > MAX_LOG_WALK {
                lines.push(format!("[stopped after looking at {MAX_LOG_WALK} commits]"));
                break;
            }
            if let Some(path) = path {
                let mine = self.entry(info.id, path);
                let parent = info.parent_ids().next().map(|p| p.detach());
                let theirs = parent.and_then(|p| self.entry(p, path));
                if mine == theirs {
                    continue;
                }
            }
            lines.push(self.one_line(info.id));
            if lines.len() >= max {
                break;
            }
        }
        if lines.is_empty() {
            return Ok(match path {
                Some(p) => format!("no commit in HEAD's history changed {p:?}"),
                None => "no commits".into(),
            });
        }
        Ok(lines.join("\n"))
    }

    fn one_line(&self, id: gix::ObjectId) -> String {
        let Ok(commit) = self.repo.find_commit(id) else {
            return id.to_string();
        };
        let short = id.to_hex_with_len(10).to_string();
        let date = commit.time().map(|t| date(t.seconds)).unwrap_or_default();
        let author = commit
            .author()
            .map(|a| a.name.to_str_lossy().into_owned())
            .unwrap_or_default();
        let subject = commit
            .message()
            .map(|m| m.summary().to_str_lossy().into_owned())
            .unwrap_or_default();
        format!("{short} {date} {author}: {subject}")
    }

    /// `git_show`: one commit's author, date, message and changed files; with `path`, the
    /// lines that commit changed in it.
    pub(super) fn show(&self, rev: &str, path: Option<&str>) -> ToolResult {
        let id = self.commit_id(rev)?;
        let commit = self
            .repo
            .find_commit(id)
            .map_err(|e| err("cannot read the commit", e))?;
        let mut out = format!("commit {id}\n{}\n\n", self.one_line(id));
        let message = commit.message_raw_sloppy().to_str_lossy().into_owned();
        out.push_str(&cut(&message, MAX_MESSAGE_BYTES));
        out.push('\n');
        let parent = commit.parent_ids().next().map(|p| p.detach());
        let changes = self.changed_files(parent, id)?;
        out.push_str(&format!("\n{} files changed:\n", changes.len()));
        for (i, c) in changes.iter().enumerate() {
            if i == MAX_SHOW_FILES {
                out.push_str(&format!("[{} more]\n", changes.len() - MAX_SHOW_FILES));
                break;
            }
            out.push_str(&format!("  {c}\n"));
        }
        if let Some(path) = path {
            let before = parent.and_then(|p| self.entry(p, path));
            let after = self.entry(id, path);
            out.push_str(&format!("\n{path}:\n"));
            out.push_str(&self.diff(before, after)?);
        }
        Ok(out)
    }

    fn changed_files(
        &self,
        old: Option<gix::ObjectId>,
        new: gix::ObjectId,
    ) -> std::result::Result<Vec<String>, String> {
        use gix::diff::tree::recorder::Change;
        let tree = |c: gix::ObjectId| -> std::result::Result<Vec<u8>, String> {
            let commit = self.repo.find_commit(c).map_err(|e| err("commit", e))?;
            let tree = commit.tree().map_err(|e| err("tree", e))?;
            Ok(tree.data.clone())
        };
        let old_data = match old {
            Some(c) => tree(c)?,
            None => Vec::new(),
        };
        let new_data = tree(new)?;
        let kind = self.repo.object_hash();
        let mut recorder = gix::diff::tree::Recorder::default();
        let mut state = gix::diff::tree::State::default();
        gix::diff::tree(
            gix::objs::TreeRefIter::from_bytes(&old_data, kind),
            gix::objs::TreeRefIter::from_bytes(&new_data, kind),
            &mut state,
            &self.repo.objects,
            &mut recorder,
        )
        .map_err(|e| err("cannot compare the commit with its parent", e))?;
        Ok(recorder
            .records
            .into_iter()
            .filter_map(|change| {
                let (mark, mode, path) = match change {
                    Change::Addition {
                        entry_mode, path, ..
                    } => ("A", entry_mode, path),
                    Change::Deletion {
                        entry_mode, path, ..
                    } => ("D", entry_mode, path),
                    Change::Modification {
                        entry_mode, path, ..
                    } => ("M", entry_mode, path),
                };
                mode.is_blob_or_symlink()
                    .then(|| format!("{mark} {}", path.to_str_lossy()))
            })
            .collect())
    }

    fn blob(&self, id: Option<gix::ObjectId>) -> std::result::Result<Vec<u8>, String> {
        let Some(id) = id else {
            return Ok(Vec::new());
        };
        let object = self
            .repo
            .find_object(id)
            .map_err(|e| err("cannot read the file's content", e))?;
        if object.data.len() > MAX_BLOB_BYTES {
            return Err(format!(
                "the file is {} bytes at that commit; files over {MAX_BLOB_BYTES} bytes are not diffed",
                object.data.len()
            ));
        }
        if object.data[..object.data.len().min(8192)].contains(&0) {
            return Err("the file is binary; only text is diffed".into());
        }
        Ok(object.data.clone())
    }

    /// The changed lines between two blobs, as `@@ -a,b +c,d @@` hunks of `-` and `+` lines.
    fn diff(&self, before: Option<gix::ObjectId>, after: Option<gix::ObjectId>) -> ToolResult {
        use gix::diff::blob::{Algorithm, Diff, InternedInput};
        if before.is_none() && after.is_none() {
            return Ok("not in this commit nor in its parent\n".into());
        }
        if before == after {
            return Ok("unchanged by this commit\n".into());
        }
        let (old, new) = (self.blob(before)?, self.blob(after)?);
        let input = InternedInput::new(old.as_slice(), new.as_slice());
        let diff = Diff::compute(Algorithm::Myers, &input);
        let mut out = String::new();
        let mut lines = 0usize;
        for hunk in diff.hunks() {
            out.push_str(&format!(
                "@@ -{},{} +{},{} @@\n",
                hunk.before.start + 1,
                hunk.before.len(),
                hunk.after.start + 1,
                hunk.after.len()
            ));
            let side = |range: std::ops::Range<u32>,
                        tokens: &[_],
                        mark: char,
                        out: &mut String,
                        lines: &mut usize| {
                for i in range {
                    if let Some(t) = tokens.get(i as usize) {
                        let line: &[u8] = input.interner[*t];
                        out.push(mark);
                        out.push_str(line.to_str_lossy().trim_end_matches('\n'));
                        out.push('\n');
                        *lines += 1;
                    }
                }
            };
            side(
                hunk.before.clone(),
                &input.before,
                '-',
                &mut out,
                &mut lines,
            );
            side(hunk.after.clone(), &input.after, '+', &mut out, &mut lines);
            if lines >= MAX_SHOW_DIFF_LINES {
                out.push_str(&format!("[cut after {MAX_SHOW_DIFF_LINES} lines]\n"));
                break;
            }
        }
        Ok(out)
    }

    /// `git_blame`: for lines `start..=end` of `path` at HEAD, the commit that last changed
    /// each.
    pub(super) fn blame(&self, path: &str, start: u32, end: u32) -> ToolResult {
        let start = start.max(1);
        let end = end.max(start).min(start + MAX_BLAME_LINES - 1);
        let head = self.head()?;
        let Some(blob) = self.entry(head, path) else {
            return Err(format!("{path:?} is not in the commit at HEAD"));
        };
        let text = self.blob(Some(blob))?;
        let total = text.lines().count() as u32;
        if start > total {
            return Err(format!(
                "{path:?} has {total} lines at HEAD; start_line {start} is past its end"
            ));
        }
        let end = end.min(total);
        let ranges = gix::blame::BlameRanges::from_one_based_inclusive_range(start..=end)
            .map_err(|e| err("not a line range", e))?;
        let outcome = self
            .repo
            .blame_file(
                BStr::new(path.as_bytes()),
                head,
                gix::repository::blame_file::Options {
                    ranges,
                    ..Default::default()
                },
            )
            .map_err(|e| err(&format!("cannot blame {path:?}"), e))?;
        let lines: Vec<&[u8]> = text.lines().collect();
        let mut out = String::new();
        for entry in outcome.entries {
            let who = self.one_line(entry.commit_id);
            let from = entry.start_in_blamed_file;
            let to = from + entry.len.get();
            out.push_str(&format!("{who}\n"));
            for n in from..to {
                if let Some(line) = lines.get(n as usize) {
                    out.push_str(&format!("  {}: {}\n", n + 1, line.to_str_lossy()));
                }
            }
        }
        Ok(out)
    }
}

fn cut(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}\n[cut at {max} bytes]", &text[..end])
}

/// `2026-11-30` for a commit time (UTC).
fn date(seconds: i64) -> String {
    jiff::Timestamp::from_second(seconds)
        .map(|t| t.strftime("%Y-%m-%d").to_string())
        .unwrap_or_default()
}
