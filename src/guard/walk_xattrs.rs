//! The walk's step that records a path's ACLs and file capability (`xattrs.rs` says what they
//! are): apart from both, so that neither the walk nor the record names the other.

use std::os::fd::BorrowedFd;

use super::memo::Fact;
use super::path::RepoPath;
use super::walk::{WalkOutput, Worker};
use super::xattrs::Xattrs;

impl Worker<'_> {
    /// Record the ACLs and file capability of `rel` (`""`: the root), which is `name` in the
    /// open directory `dir` when given, and whose inode is `inode` when known: what the
    /// snapshot before recorded when `unchanged` (its stat settled and the same since), none
    /// when the memo or the snapshot before knows the inode with the same ctime (`memo.rs`),
    /// else read. An inode found without either, its ctime settled, is kept for the memo.
    pub(super) fn xattrs(
        &self,
        (rel, at): (&[u8], Option<(BorrowedFd<'_>, &[u8])>),
        (unchanged, inode): (bool, Option<Fact>),
        out: &mut WalkOutput,
    ) {
        let recorded: &[u8] = if rel.is_empty() { b"." } else { rel };
        let path = || self.input.root.join(super::walk::os(rel));
        let earlier = self.input.earlier;
        // `plain`: known to have none (not merely unreadable).
        let (found, plain) = match at {
            _ if unchanged => {
                let found = earlier.xattrs.get(recorded).cloned();
                let plain = found.is_none();
                (found, plain)
            }
            _ if inode.is_some_and(|i| earlier.plain.knows(&i)) => (None, true),
            // The many paths without any are told by one single-component `listxattrat`, not a
            // walk of the whole path; a path with one, or a kernel without that call, is read by
            // its path.
            Some((dir, name)) => match crate::sys::lists_security_attributes(dir, name) {
                Some(false) => (None, true),
                Some(true) | None => (Xattrs::of(&path()), false),
            },
            None => (Xattrs::of(&path()), false),
        };
        if let Some(x) = found {
            out.xattrs.push((RepoPath::new(recorded), x));
        }
        if let Some(i) = inode.filter(|i| plain && self.input.remember && self.settled(i)) {
            out.plain.push(i);
        }
    }

    /// Whether the inode's ctime was older than this snapshot's start by the margin (any later
    /// change gives it another).
    fn settled(&self, inode: &Fact) -> bool {
        self.input.start.settled_ctime_ns(inode.ctime_ns())
    }
}
