//! The difference between two snapshots, part by part: refs, index (entries and extensions),
//! status, ignored paths, hooks, git metadata and config files (config by key), worktrees and
//! nested repositories (their own changes, prefixed with their path).

use std::collections::{BTreeMap, BTreeSet};

use super::files::FileDigest;
use super::index::{IndexEntry, flag_list};
use super::path::RepoPath;
use super::report::{Category, GuardReport, Op};
use super::status::{FileStatus, Fingerprint, State};
use super::{NestedRepo, Snapshot};
use super::{config, gitdir, xattrs};

/// Added, removed and changed keys of two maps.
fn map_diff<'a, K: Ord, V>(
    before: &'a BTreeMap<K, V>,
    after: &'a BTreeMap<K, V>,
    mut on: impl FnMut(&'a K, Option<&'a V>, Option<&'a V>),
) {
    let keys: BTreeSet<&K> = before.keys().chain(after.keys()).collect();
    for k in keys {
        on(k, before.get(k), after.get(k));
    }
}

pub(super) fn diff(before: &Snapshot, after: &Snapshot) -> GuardReport {
    let mut r = GuardReport::default();
    if before.unreadable != after.unreadable {
        let (op, detail) = match (&before.unreadable, &after.unreadable) {
            (_, Some(why)) => (Op::Added, why.clone()),
            (Some(why), None) => (Op::Removed, format!("readable again (was: {why})")),
            (None, None) => (Op::Changed, String::new()),
        };
        r.push(Category::GitMetadata, op, "repository", detail);
    }
    // What could not be read is not compared (it would show as everything removed).
    if before.unreadable.is_none() && after.unreadable.is_none() {
        refs(&mut r, before, after);
        if !before.same_index(after) {
            index(&mut r, before.index(), after.index());
        }
        extensions(&mut r, &before.index_extensions, &after.index_extensions);
        status(&mut r, &before.status, &after.status);
        permissions(&mut r, before, after);
        ignored(&mut r, &before.ignored, &after.ignored);
    }
    hooks(&mut r, before, after);
    if before.common_dir != after.common_dir {
        common_dir(&mut r, before, after);
    }
    // Both by the labels of the snapshot before: a planted `commondir` that moved the common
    // directory shows as itself (`+ commondir`), not as every file of the git directory renamed.
    let meta_b = gitdir::relabel(&before.git_metadata, &before.common_dir, &before.common_dir);
    let meta_a = gitdir::relabel(&after.git_metadata, &after.common_dir, &before.common_dir);
    files(&mut r, Category::GitMetadata, &meta_b, &meta_a);
    worktrees(&mut r, before, after);
    let user_b: BTreeMap<String, &FileDigest> = before
        .user_config
        .iter()
        .map(|(k, v)| (k.escaped(), v))
        .collect();
    let user_a: BTreeMap<String, &FileDigest> = after
        .user_config
        .iter()
        .map(|(k, v)| (k.escaped(), v))
        .collect();
    files(&mut r, Category::UserConfig, &user_b, &user_a);
    nested(&mut r, &before.nested, &after.nested);
    r
}

/// The common directory moved: from where to where, and which file now names it.
fn common_dir(r: &mut GuardReport, before: &Snapshot, after: &Snapshot) {
    let named_by = if after.git_dir == after.common_dir {
        "no commondir file any more".to_string()
    } else {
        let pointer = format!("{}/commondir", after.git_dir.escaped());
        let base = format!("{}/", before.common_dir.escaped());
        format!("named by {}", gitdir::relabelled(&pointer, &base, &base))
    };
    r.push(
        Category::GitMetadata,
        Op::Changed,
        "common directory",
        format!("{} → {} ({named_by})", before.common_dir, after.common_dir),
    );
}

fn extensions(
    r: &mut GuardReport,
    before: &BTreeMap<String, String>,
    after: &BTreeMap<String, String>,
) {
    map_diff(before, after, |sig, b, a| {
        let subject = format!("extension {sig}");
        match (b, a) {
            (None, Some(_)) => r.push(Category::Index, Op::Added, subject, ""),
            (Some(_), None) => r.push(Category::Index, Op::Removed, subject, ""),
            (Some(b), Some(a)) if b != a => r.push(
                Category::Index,
                Op::Changed,
                subject,
                format!("content changed (sha256 {} → {})", short(b), short(a)),
            ),
            _ => {}
        }
    });
}

fn describe_nested(n: &NestedRepo) -> String {
    let mut parts = Vec::new();
    if let Some(d) = &n.dot_git {
        parts.push(format!(".git {}", describe_digest(d)));
    }
    if let Some(g) = &n.git_dir {
        parts.push(format!("git dir {g}"));
    }
    if let Some(head) = n
        .snapshot
        .as_ref()
        .and_then(|s| s.refs.get(&RepoPath::new(*b"HEAD")))
    {
        parts.push(format!("HEAD {head}"));
    }
    if let Some(e) = &n.error {
        parts.push(format!("[unreadable: {e}]"));
    }
    parts.join(", ")
}

/// Repositories below the root: appeared, gone, or changed (their `.git` entry, and every change
/// inside them with the repository's path in front).
fn nested(
    r: &mut GuardReport,
    before: &BTreeMap<RepoPath, NestedRepo>,
    after: &BTreeMap<RepoPath, NestedRepo>,
) {
    let cat = Category::NestedRepos;
    map_diff(before, after, |path, b, a| match (b, a) {
        (None, Some(a)) => r.push(cat, Op::Added, path.escaped(), describe_nested(a)),
        (Some(b), None) => r.push(
            cat,
            Op::Removed,
            path.escaped(),
            format!("was {}", describe_nested(b)),
        ),
        (Some(b), Some(a)) => {
            let subject = format!("{}/.git", path.escaped());
            match (&b.dot_git, &a.dot_git) {
                (Some(db), Some(da)) if !db.same(da) => file_change(r, cat, &subject, db, da),
                (Some(_), None) | (None, Some(_)) => r.push(
                    cat,
                    Op::Changed,
                    subject,
                    format!("{} → {}", describe_nested(b), describe_nested(a)),
                ),
                _ => {}
            }
            if b.git_dir != a.git_dir || b.error != a.error {
                r.push(
                    cat,
                    Op::Changed,
                    path.escaped(),
                    format!("{} → {}", describe_nested(b), describe_nested(a)),
                );
            }
            if let (Some(sb), Some(sa)) = (&b.snapshot, &a.snapshot) {
                let inner = diff(sb, sa);
                for c in inner.changes {
                    r.push(
                        c.category,
                        c.op,
                        format!("{}: {}", path.escaped(), c.subject),
                        c.detail,
                    );
                }
                for (c, n) in inner.omitted {
                    *r.omitted.entry(c).or_default() += n;
                }
            }
        }
        (None, None) => {}
    });
}

fn refs(r: &mut GuardReport, before: &Snapshot, after: &Snapshot) {
    map_diff(&before.refs, &after.refs, |name, b, a| match (b, a) {
        (None, Some(a)) => r.push(Category::Refs, Op::Added, name.escaped(), format!("→ {a}")),
        (Some(b), None) => r.push(
            Category::Refs,
            Op::Removed,
            name.escaped(),
            format!("was {b}"),
        ),
        (Some(b), Some(a)) if b != a => {
            r.push(
                Category::Refs,
                Op::Changed,
                name.escaped(),
                format!("{b} → {a}"),
            );
        }
        _ => {}
    });
}

fn short(oid: &str) -> &str {
    oid.get(..12).unwrap_or(oid)
}

fn index<'a>(r: &mut GuardReport, before: &'a [IndexEntry], after: &'a [IndexEntry]) {
    // The common case, cheaply: equal entry by entry.
    if before == after {
        return;
    }
    let key = |e: &'a IndexEntry| (&e.path, e.stage);
    let b: BTreeMap<_, _> = before.iter().map(|e| (key(e), e)).collect();
    let a: BTreeMap<_, _> = after.iter().map(|e| (key(e), e)).collect();
    let describe = |e: &IndexEntry| {
        let flags = flag_list(e.flags);
        let mut s = format!("{:06o} {}", e.mode, short(&e.oid.to_string()));
        if !flags.is_empty() {
            s.push_str(&format!(" [{}]", flags.join(", ")));
        }
        s
    };
    map_diff(&b, &a, |(path, stage), b, a| {
        let subject = if *stage == 0 {
            path.escaped()
        } else {
            format!("{} (stage {stage})", path.escaped())
        };
        match (b, a) {
            (None, Some(a)) => r.push(Category::Index, Op::Added, subject, describe(a)),
            (Some(b), None) => r.push(
                Category::Index,
                Op::Removed,
                subject,
                format!("was {}", describe(b)),
            ),
            (Some(b), Some(a)) if b != a => {
                let mut parts = Vec::new();
                if b.oid != a.oid {
                    parts.push(format!(
                        "id {} → {}",
                        short(&b.oid.to_string()),
                        short(&a.oid.to_string())
                    ));
                }
                if b.mode != a.mode {
                    parts.push(format!("mode {:06o} → {:06o}", b.mode, a.mode));
                }
                if b.flags != a.flags {
                    let (fb, fa) = (flag_list(b.flags), flag_list(a.flags));
                    let mut fl: Vec<String> = fa
                        .iter()
                        .filter(|f| !fb.contains(f))
                        .map(|f| format!("+{f}"))
                        .collect();
                    fl.extend(
                        fb.iter()
                            .filter(|f| !fa.contains(f))
                            .map(|f| format!("-{f}")),
                    );
                    parts.push(format!("flags {}", fl.join(" ")));
                }
                r.push(Category::Index, Op::Changed, subject, parts.join(", "));
            }
            _ => {}
        }
    });
}

fn describe_status(s: &FileStatus) -> String {
    let mut parts = Vec::new();
    if let Some(st) = s.staged {
        parts.push(format!("staged {}", st.as_str()));
    }
    if let Some(st) = s.worktree {
        parts.push(st.as_str().to_string());
    }
    if let Some(k) = s.kind {
        parts.push(format!("({})", k.as_str()));
    }
    if let Some(h) = &s.head {
        parts.push(format!("HEAD {}", short(h)));
    }
    if let Some(t) = &s.case_of {
        parts.push(format!("renamed from {t} (case only)"));
    }
    if let Some(e) = &s.error {
        parts.push(format!("[unreadable: {e}]"));
    }
    parts.join(", ")
}

fn status(
    r: &mut GuardReport,
    before: &BTreeMap<RepoPath, FileStatus>,
    after: &BTreeMap<RepoPath, FileStatus>,
) {
    if before == after {
        return;
    }
    map_diff(before, after, |path, b, a| match (b, a) {
        (None, Some(a)) => r.push(
            Category::Status,
            Op::Added,
            path.escaped(),
            describe_status(a),
        ),
        (Some(b), None) => r.push(
            Category::Status,
            Op::Removed,
            path.escaped(),
            format!("was {}, now clean", describe_status(b)),
        ),
        (Some(b), Some(a)) if b != a => {
            let (db, da) = (describe_status(b), describe_status(a));
            let detail = if db == da {
                format!("{da}, content changed")
            } else {
                format!("{db} → {da}")
            };
            r.push(Category::Status, Op::Changed, path.escaped(), detail);
        }
        _ => {}
    });
}

/// Worktree paths whose permission bits or owner changed. A path recorded on one side only has
/// the usual ones on the other, unless it is gone there (told under status already).
fn permissions(r: &mut GuardReport, before: &Snapshot, after: &Snapshot) {
    let (b, a) = (&before.permissions, &after.permissions);
    if b == a {
        return;
    }
    let gone = |path: &RepoPath, from: &Snapshot, to: &Snapshot| {
        let state = |s: &Snapshot| s.status.get(path).and_then(|st| st.worktree);
        state(to) == Some(State::Deleted)
            || (state(from) == Some(State::Untracked) && state(to).is_none())
    };
    map_diff(&b.unusual, &a.unusual, |path, pb, pa| {
        let (from, to) = match (pb, pa) {
            (Some(pb), Some(pa)) if pb != pa => (*pb, *pa),
            (Some(pb), None) if !gone(path, before, after) => (*pb, a.usual.assumed(pb)),
            (None, Some(pa)) if !gone(path, after, before) => (b.usual.assumed(pa), *pa),
            _ => return,
        };
        let detail = from.describe_change(&to);
        if !detail.is_empty() {
            r.push(Category::Status, Op::Changed, path.escaped(), detail);
        }
    });
    map_diff(&b.xattrs, &a.xattrs, |path, xb, xa| {
        let new_or_gone = match (xb, xa) {
            (Some(_), None) => gone(path, before, after),
            (None, Some(_)) => gone(path, after, before),
            _ => false,
        };
        let detail = xattrs::describe_change(xb, xa);
        if !new_or_gone && !detail.is_empty() {
            r.push(Category::Status, Op::Changed, path.escaped(), detail);
        }
    });
}

fn ignored(r: &mut GuardReport, before: &[Fingerprint], after: &[Fingerprint]) {
    if before == after {
        return;
    }
    let b: BTreeMap<&RepoPath, &Fingerprint> = before.iter().map(|f| (&f.path, f)).collect();
    let a: BTreeMap<&RepoPath, &Fingerprint> = after.iter().map(|f| (&f.path, f)).collect();
    map_diff(&b, &a, |path, b, a| match (b, a) {
        (None, Some(a)) => r.push(
            Category::Ignored,
            Op::Added,
            path.escaped(),
            a.kind.as_str(),
        ),
        (Some(b), None) => r.push(
            Category::Ignored,
            Op::Removed,
            path.escaped(),
            b.kind.as_str(),
        ),
        (Some(b), Some(a)) if b != a => {
            let fields = b.changed_fields(a).join(", ");
            r.push(
                Category::Ignored,
                Op::Changed,
                path.escaped(),
                format!("{fields} changed"),
            );
        }
        _ => {}
    });
}

fn describe_digest(d: &FileDigest) -> String {
    let mut s = format!("{} {:04o}", d.kind.as_str(), d.mode);
    if let Some(h) = &d.sha256 {
        s.push_str(&format!(", sha256 {}", short(h)));
    }
    if let Some(l) = &d.link {
        s.push_str(&format!(" → {l}"));
    }
    if let Some(x) = &d.xattrs {
        s.push_str(&format!(", {}", x.names()));
    }
    if let Some(e) = &d.error {
        s.push_str(&format!(" [unreadable: {e}]"));
    }
    s
}

/// Changed content of a file: by key for config text, else by hash.
fn file_change(r: &mut GuardReport, cat: Category, subject: &str, b: &FileDigest, a: &FileDigest) {
    let mut parts = Vec::new();
    if b.kind != a.kind {
        parts.push(format!("{} → {}", b.kind.as_str(), a.kind.as_str()));
    }
    if b.mode != a.mode {
        parts.push(format!("mode {:04o} → {:04o}", b.mode, a.mode));
    }
    if b.owner != a.owner {
        let show = |o: Option<(u32, u32)>| {
            o.map(|(u, g)| format!("{u}:{g}"))
                .unwrap_or_else(|| "-".into())
        };
        parts.push(format!("owner {} → {}", show(b.owner), show(a.owner)));
    }
    if b.xattrs != a.xattrs {
        parts.push(xattrs::describe_change(
            b.xattrs.as_ref(),
            a.xattrs.as_ref(),
        ));
    }
    if b.link != a.link {
        let show = |l: &Option<RepoPath>| {
            l.as_ref()
                .map(|l| l.escaped())
                .unwrap_or_else(|| "(none)".into())
        };
        parts.push(format!("link {} → {}", show(&b.link), show(&a.link)));
    }
    if b.error != a.error {
        parts.push(format!(
            "readability {} → {}",
            b.error.as_deref().unwrap_or("ok"),
            a.error.as_deref().unwrap_or("ok")
        ));
    }
    if b.sha256 != a.sha256 {
        let keys = match (&b.text, &a.text) {
            (Some(tb), Some(ta)) => config::keys(tb).zip(config::keys(ta)),
            _ => None,
        };
        match keys {
            Some((kb, ka)) => {
                let by_key = config::diff(&kb, &ka);
                if by_key.is_empty() {
                    parts.push("content changed (comments or layout only)".into());
                }
                for (op, key, detail) in by_key {
                    let op = match op {
                        '+' => Op::Added,
                        '-' => Op::Removed,
                        _ => Op::Changed,
                    };
                    r.push(cat, op, format!("{subject}: {key}"), detail);
                }
            }
            None => parts.push(format!(
                "content changed (sha256 {} → {})",
                short(b.sha256.as_deref().unwrap_or("-")),
                short(a.sha256.as_deref().unwrap_or("-"))
            )),
        }
    }
    if !parts.is_empty() {
        r.push(cat, Op::Changed, subject.to_string(), parts.join(", "));
    }
}

fn files(
    r: &mut GuardReport,
    cat: Category,
    before: &BTreeMap<String, &FileDigest>,
    after: &BTreeMap<String, &FileDigest>,
) {
    map_diff(before, after, |name, b, a| match (b, a) {
        (None, Some(a)) => r.push(cat, Op::Added, name.clone(), describe_digest(a)),
        (Some(b), None) => r.push(
            cat,
            Op::Removed,
            name.clone(),
            format!("was {}", describe_digest(b)),
        ),
        (Some(b), Some(a)) if !b.same(a) => file_change(r, cat, name, b, a),
        _ => {}
    });
}

fn hooks(r: &mut GuardReport, before: &Snapshot, after: &Snapshot) {
    let (hb, ha) = (&before.hooks, &after.hooks);
    let cat = Category::Hooks;
    if hb.dir != ha.dir {
        r.push(
            cat,
            Op::Changed,
            "hooks directory",
            format!("{} → {}", hb.dir, ha.dir),
        );
    }
    let dirs: BTreeSet<&RepoPath> = hb.dirs.keys().chain(ha.dirs.keys()).collect();
    for dir in dirs {
        let (db, da) = (hb.dirs.get(dir), ha.dirs.get(dir));
        match (hooks_entry(db), hooks_entry(da)) {
            (None, Some(e)) => r.push(cat, Op::Added, dir.escaped(), describe_digest(e)),
            (Some(e), None) => r.push(
                cat,
                Op::Removed,
                dir.escaped(),
                format!("was {}", describe_digest(e)),
            ),
            (Some(b), Some(a)) if !b.same(a) => file_change(r, cat, &dir.escaped(), b, a),
            _ => {}
        }
        files(r, cat, &hook_files(dir, db), &hook_files(dir, da));
    }
}

fn hooks_entry(d: Option<&super::HooksDir>) -> Option<&FileDigest> {
    d.and_then(|d| d.entry.as_ref())
}

/// A hooks directory's files by their full path.
fn hook_files<'a>(
    dir: &RepoPath,
    d: Option<&'a super::HooksDir>,
) -> BTreeMap<String, &'a FileDigest> {
    d.map(|d| {
        d.files
            .iter()
            .map(|(k, v)| (format!("{}/{}", dir.escaped(), k.escaped()), v))
            .collect()
    })
    .unwrap_or_default()
}

fn worktrees(r: &mut GuardReport, before: &Snapshot, after: &Snapshot) {
    let show = |v: &Option<RepoPath>| {
        v.as_ref()
            .map(RepoPath::escaped)
            .unwrap_or_else(|| "(none)".into())
    };
    map_diff(&before.worktrees, &after.worktrees, |id, b, a| {
        match (b, a) {
            (None, Some(a)) => r.push(
                Category::Worktrees,
                Op::Added,
                id.escaped(),
                format!("at {}, HEAD {}", show(&a.path()), show(&a.head)),
            ),
            (Some(b), None) => r.push(
                Category::Worktrees,
                Op::Removed,
                id.escaped(),
                format!("was at {}", show(&b.path())),
            ),
            (Some(b), Some(a)) if b != a => {
                let mut parts = Vec::new();
                if b.gitdir != a.gitdir {
                    parts.push(format!("gitdir {} → {}", show(&b.gitdir), show(&a.gitdir)));
                }
                if b.head != a.head {
                    parts.push(format!("HEAD {} → {}", show(&b.head), show(&a.head)));
                }
                if b.locked != a.locked {
                    let lock = if a.locked.is_some() {
                        "locked"
                    } else {
                        "unlocked"
                    };
                    parts.push(lock.to_string());
                }
                r.push(
                    Category::Worktrees,
                    Op::Changed,
                    id.escaped(),
                    parts.join(", "),
                );
            }
            _ => {}
        }
    });
}
