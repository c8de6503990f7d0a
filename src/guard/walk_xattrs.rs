//! The walk's step that records a path's ACLs and file capability (`xattrs.rs` says what they
//! are): apart from both, so that neither the walk nor the record names the other.

use std::os::fd::BorrowedFd;

use super::path::RepoPath;
use super::walk::{WalkOutput, Worker};
use super::xattrs::Xattrs;

impl Worker<'_> {
    /// Record the ACLs and file capability of `rel` (`""`: the root), which is `name` in the
    /// open directory `dir` when given: what the snapshot before recorded when `unchanged` (its
    /// stat settled and the same since), else read.
    pub(super) fn xattrs(
        &self,
        (rel, at): (&[u8], Option<(BorrowedFd<'_>, &[u8])>),
        unchanged: bool,
        out: &mut WalkOutput,
    ) {
        let recorded: &[u8] = if rel.is_empty() { b"." } else { rel };
        let path = || self.input.root.join(super::walk::os(rel));
        let found = match at {
            _ if unchanged => self.input.earlier.xattrs.get(recorded).cloned(),
            Some((dir, name)) => Xattrs::of_at(dir, name, path),
            None => Xattrs::of(&path()),
        };
        if let Some(x) = found {
            out.xattrs.push((RepoPath::new(recorded), x));
        }
    }
}
