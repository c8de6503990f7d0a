//! The difference between two snapshots: categorised changes (`+` added, `-` removed,
//! `~` changed), config files by key, shown compactly to a person and serialised as JSON.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::{Serialize, Serializer};

use super::Snapshot;
use super::config;
use super::files::FileDigest;
use super::index::{IndexEntry, flag_list};
use super::path::RepoPath;
use super::status::{FileStatus, Fingerprint};

/// At most this many changes per category are kept in a report; the rest are counted.
const MAX_PER_CATEGORY: usize = 10_000;
/// At most this many changes per category are shown to a person.
const SHOWN_PER_CATEGORY: usize = 40;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    Refs,
    Index,
    Status,
    Ignored,
    Hooks,
    GitMetadata,
    Worktrees,
    UserConfig,
}

impl Category {
    pub fn title(self) -> &'static str {
        match self {
            Category::Refs => "refs",
            Category::Index => "index",
            Category::Status => "status",
            Category::Ignored => "ignored files",
            Category::Hooks => "hooks",
            Category::GitMetadata => "git metadata",
            Category::Worktrees => "worktrees",
            Category::UserConfig => "user git config",
        }
    }
}

/// `+` added, `-` removed, `~` changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Added,
    Removed,
    Changed,
}

impl Op {
    pub fn sign(self) -> char {
        match self {
            Op::Added => '+',
            Op::Removed => '-',
            Op::Changed => '~',
        }
    }
}

impl Serialize for Op {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(match self {
            Op::Added => "+",
            Op::Removed => "-",
            Op::Changed => "~",
        })
    }
}

/// One change: what (`subject`, escaped for display) and how (`detail`).
#[derive(Debug, Clone, Serialize)]
pub struct Change {
    pub category: Category,
    pub op: Op,
    pub subject: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub detail: String,
}

/// The categorised difference between two snapshots.
#[derive(Debug, Clone, Default, Serialize)]
pub struct GuardReport {
    pub changes: Vec<Change>,
    /// Changes left out of `changes` per category (beyond 10 000 in one category).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub omitted: BTreeMap<Category, usize>,
    #[serde(skip)]
    kept: BTreeMap<Category, usize>,
}

impl GuardReport {
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty() && self.omitted.is_empty()
    }

    /// The categories with at least one change.
    pub fn categories(&self) -> BTreeSet<Category> {
        self.changes
            .iter()
            .map(|c| c.category)
            .chain(self.omitted.keys().copied())
            .collect()
    }

    fn push(
        &mut self,
        category: Category,
        op: Op,
        subject: impl Into<String>,
        detail: impl Into<String>,
    ) {
        let kept = self.kept.entry(category).or_default();
        if *kept >= MAX_PER_CATEGORY {
            *self.omitted.entry(category).or_default() += 1;
            return;
        }
        *kept += 1;
        self.changes.push(Change {
            category,
            op,
            subject: subject.into(),
            detail: detail.into(),
        });
    }
}

impl fmt::Display for GuardReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut by_cat: BTreeMap<Category, Vec<&Change>> = BTreeMap::new();
        for c in &self.changes {
            by_cat.entry(c.category).or_default().push(c);
        }
        for cat in self.categories() {
            let list = by_cat.get(&cat).map(Vec::as_slice).unwrap_or(&[]);
            writeln!(f, "{}:", cat.title())?;
            for c in list.iter().take(SHOWN_PER_CATEGORY) {
                if c.detail.is_empty() {
                    writeln!(f, "  {} {}", c.op.sign(), c.subject)?;
                } else {
                    writeln!(f, "  {} {}: {}", c.op.sign(), c.subject, c.detail)?;
                }
            }
            let more = list.len().saturating_sub(SHOWN_PER_CATEGORY)
                + self.omitted.get(&cat).copied().unwrap_or(0);
            if more > 0 {
                writeln!(f, "  … and {more} more (see the JSON report)")?;
            }
        }
        Ok(())
    }
}

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

pub fn diff(before: &Snapshot, after: &Snapshot) -> GuardReport {
    let mut r = GuardReport::default();
    refs(&mut r, before, after);
    index(&mut r, &before.index, &after.index);
    status(&mut r, &before.status, &after.status);
    ignored(&mut r, &before.ignored, &after.ignored);
    hooks(&mut r, before, after);
    let meta_b: BTreeMap<String, &FileDigest> = before
        .git_metadata
        .iter()
        .map(|(k, v)| (k.clone(), v))
        .collect();
    let meta_a: BTreeMap<String, &FileDigest> = after
        .git_metadata
        .iter()
        .map(|(k, v)| (k.clone(), v))
        .collect();
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
    r
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

fn index(r: &mut GuardReport, before: &[IndexEntry], after: &[IndexEntry]) {
    let key = |e: &'_ IndexEntry| (e.path.clone(), e.stage);
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

fn ignored(r: &mut GuardReport, before: &[Fingerprint], after: &[Fingerprint]) {
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
    if hb.dir != ha.dir {
        r.push(
            Category::Hooks,
            Op::Changed,
            "hooks directory",
            format!("{} → {}", hb.dir, ha.dir),
        );
    }
    let b: BTreeMap<String, &FileDigest> = hb.files.iter().map(|(k, v)| (k.escaped(), v)).collect();
    let a: BTreeMap<String, &FileDigest> = ha.files.iter().map(|(k, v)| (k.escaped(), v)).collect();
    files(r, Category::Hooks, &b, &a);
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
