//! The kinds of work item the intent interviewer tells apart, and what it concluded of one:
//! the kind with the cue that decided it.
//!
//! Not for: reading the cues (`classify`) or listing them (`cues`).

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ItemKind {
    Bug,
    Dependency,
    Refactor,
    Performance,
    Docs,
    Feature,
}

impl ItemKind {
    pub(super) const ALL: [ItemKind; 6] = ORDER;

    /// The option value a person picks for it.
    pub(super) fn value(self) -> &'static str {
        match self {
            ItemKind::Bug => "bug",
            ItemKind::Dependency => "dependency",
            ItemKind::Refactor => "refactor",
            ItemKind::Performance => "performance",
            ItemKind::Docs => "docs",
            ItemKind::Feature => "feature",
        }
    }

    pub(super) fn from_value(value: &str) -> Option<ItemKind> {
        ORDER.into_iter().find(|k| k.value() == value)
    }

    pub(super) fn as_str(self) -> &'static str {
        match self {
            ItemKind::Bug => "bug report",
            ItemKind::Dependency => "dependency change",
            ItemKind::Refactor => "refactor",
            ItemKind::Performance => "performance work",
            ItemKind::Docs => "documentation change",
            ItemKind::Feature => "feature request",
        }
    }
}

/// The kind and the strongest cue for it, for the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Classification {
    pub kind: ItemKind,
    pub cue: String,
    /// A second kind with strong cues close behind, and its cue: the kind is asked first.
    pub runner_up: Option<(ItemKind, String)>,
    /// Read as documentation only because it asks how to use what exists, no other kind's
    /// cues agreeing: said as such, never as a documentation change.
    pub usage: bool,
}

impl Classification {
    /// What the item is read as, for the document: the kind, or a question about use.
    pub(super) fn described(&self) -> &'static str {
        if self.usage {
            "question about how to use what exists"
        } else {
            self.kind.as_str()
        }
    }
}

pub(super) const ORDER: [ItemKind; 6] = [
    ItemKind::Bug,
    ItemKind::Dependency,
    ItemKind::Refactor,
    ItemKind::Performance,
    ItemKind::Docs,
    ItemKind::Feature,
];
