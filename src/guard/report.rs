//! The difference between two snapshots: categorised changes (`+` added, `-` removed,
//! `~` changed), shown compactly to a person and serialised as JSON. The diff itself is
//! `diff.rs`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::{Serialize, Serializer};

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

    /// Leave out changes to worktree paths (status and ignored files) that match one of
    /// `globs` — a path matches when the glob (git's wildmatch: `*` stays within a directory,
    /// `**` crosses them) matches it or one of its leading directories, and `dir/**` also
    /// matches `dir`. Nothing else can be allowed: refs, index, hooks, git metadata, config and
    /// nested repositories always count.
    pub fn allow(&mut self, globs: &[String]) {
        if globs.is_empty() {
            return;
        }
        self.changes.retain(|c| {
            !(matches!(c.category, Category::Status | Category::Ignored)
                && allowed(&c.subject, globs))
        });
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

/// Whether `path` (as shown, `/`-separated) or a leading directory of it matches a glob.
pub(crate) fn allowed(path: &str, globs: &[String]) -> bool {
    use gix::bstr::ByteSlice;
    use gix::glob::wildmatch::Mode;
    let bytes = path.as_bytes();
    let prefixes = bytes
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'/')
        .map(|(i, _)| &bytes[..i])
        .chain(std::iter::once(bytes));
    let prefixes: Vec<&[u8]> = prefixes.collect();
    globs.iter().any(|g| {
        let g = g.trim_end_matches('/');
        let dir = g.strip_suffix("/**");
        prefixes.iter().any(|p| {
            gix::glob::wildmatch(
                g.as_bytes().as_bstr(),
                p.as_bstr(),
                Mode::NO_MATCH_SLASH_LITERAL,
            ) || dir.is_some_and(|d| {
                gix::glob::wildmatch(
                    d.as_bytes().as_bstr(),
                    p.as_bstr(),
                    Mode::NO_MATCH_SLASH_LITERAL,
                )
            })
        })
    })
}

#[cfg(test)]
mod tests {
    use super::allowed;

    fn globs(g: &[&str]) -> Vec<String> {
        g.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_directory_glob_allows_everything_below_and_the_directory() {
        let g = globs(&["target/**"]);
        assert!(allowed("target", &g));
        assert!(allowed("target/debug/app", &g));
        assert!(!allowed("targets/x", &g));
        assert!(!allowed("src/target.rs", &g));
    }

    #[test]
    fn a_plain_name_allows_its_contents_and_a_star_stays_in_one_directory() {
        assert!(allowed("build/out/x.o", &globs(&["build"])));
        assert!(allowed("gen/a.rs", &globs(&["gen/*.rs"])));
        assert!(!allowed("gen/sub/a.txt", &globs(&["gen/*.txt"])));
        assert!(!allowed("README.md", &globs(&["build"])));
    }
}
