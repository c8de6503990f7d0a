//! The difference between two snapshots: categorised changes (`+` added, `-` removed,
//! `~` changed), shown compactly to a person and serialised as JSON. The diff itself is
//! `diff.rs`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::{Serialize, Serializer};

pub use super::diff::diff;

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
    NestedRepos,
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
            Category::NestedRepos => "nested repositories",
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

    pub(super) fn push(
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
