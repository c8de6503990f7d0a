//! The refs part of a snapshot: HEAD (symbolic target and commit), every loose and packed ref
//! (stash included) and the pseudo refs a runner's git commands leave behind.

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

use super::files;
use super::layout::{self, Layout};
use super::path::{RepoPath, escape_bytes};

/// What a ref points at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct RefTarget {
    /// The ref it points at, for a symbolic ref (HEAD → `refs/heads/main`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbolic: Option<RepoPath>,
    /// The object id it resolves to (for pseudo refs: their first line).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub oid: Option<String>,
    /// Why it could not be read, when it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl fmt::Display for RefTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let short = |o: &String| o.chars().take(12).collect::<String>();
        match (&self.symbolic, &self.oid) {
            (Some(s), Some(o)) => write!(f, "{s} ({})", short(o))?,
            (Some(s), None) => write!(f, "{s} (unborn)")?,
            (None, Some(o)) => write!(f, "{}", short(o))?,
            (None, None) => f.write_str("(nothing)")?,
        }
        if let Some(e) = &self.error {
            write!(f, " [{e}]")?;
        }
        Ok(())
    }
}

/// Pseudo refs in the per-worktree git dir whose appearance says a git operation ran.
const PSEUDO_REFS: &[&str] = &[
    "ORIG_HEAD",
    "MERGE_HEAD",
    "CHERRY_PICK_HEAD",
    "REVERT_HEAD",
    "REBASE_HEAD",
    "BISECT_HEAD",
    "AUTO_MERGE",
    "FETCH_HEAD",
];

pub(super) fn refs(repo: &gix::Repository, layout: &Layout) -> BTreeMap<RepoPath, RefTarget> {
    let mut out = BTreeMap::new();
    out.insert(RepoPath::new(*b"HEAD"), head(repo));
    match repo.references() {
        Ok(platform) => match platform.all() {
            Ok(iter) => {
                for (n, item) in iter.enumerate() {
                    match item {
                        Ok(r) => {
                            let name = RepoPath::new(r.name().as_bstr().to_vec());
                            let target = match r.target() {
                                gix::refs::TargetRef::Object(oid) => RefTarget {
                                    oid: Some(oid.to_string()),
                                    ..RefTarget::default()
                                },
                                gix::refs::TargetRef::Symbolic(name) => RefTarget {
                                    symbolic: Some(RepoPath::new(name.as_bstr().to_vec())),
                                    ..RefTarget::default()
                                },
                            };
                            out.insert(name, target);
                        }
                        Err(e) => {
                            out.insert(
                                RepoPath::new(format!("(unreadable ref #{n})")),
                                RefTarget {
                                    error: Some(escape_bytes(e.to_string().as_bytes())),
                                    ..RefTarget::default()
                                },
                            );
                        }
                    }
                }
            }
            Err(e) => error_entry(&mut out, e.to_string()),
        },
        Err(e) => error_entry(&mut out, e.to_string()),
    }
    // The whole file, so a forged peeled line (`^<id>` under a tag) is seen too.
    if let Ok(bytes) = files::read_small(&layout.common_dir.join("packed-refs"), 256 * 1024 * 1024)
    {
        out.insert(
            RepoPath::new(*b"(packed-refs)"),
            RefTarget {
                oid: Some(format!("sha256 {}", files::sha256_hex(&bytes))),
                ..RefTarget::default()
            },
        );
    }
    for name in PSEUDO_REFS {
        if let Ok(bytes) = files::read_small(&layout.git_dir.join(name), 16 * 1024 * 1024) {
            let first = layout::trim_line(&bytes);
            let oid = if *name == "FETCH_HEAD" {
                files::sha256_hex(&bytes)
            } else {
                escape_bytes(&first[..first.len().min(200)])
            };
            out.insert(
                RepoPath::new(name.as_bytes()),
                RefTarget {
                    oid: Some(oid),
                    ..RefTarget::default()
                },
            );
        }
    }
    out
}

fn error_entry(out: &mut BTreeMap<RepoPath, RefTarget>, e: String) {
    out.insert(
        RepoPath::new(*b"(refs)"),
        RefTarget {
            error: Some(escape_bytes(e.as_bytes())),
            ..RefTarget::default()
        },
    );
}

fn head(repo: &gix::Repository) -> RefTarget {
    let mut t = RefTarget::default();
    match repo.head() {
        Ok(head) => {
            t.symbolic = head
                .referent_name()
                .map(|n| RepoPath::new(n.as_bstr().to_vec()));
            t.oid = head.id().map(|id| id.to_string());
        }
        Err(e) => t.error = Some(escape_bytes(e.to_string().as_bytes())),
    }
    t
}
