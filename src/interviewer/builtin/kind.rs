//! The kinds of work item the intent interviewer tells apart, what it concluded of one (the
//! kind with the cue that decided it), and the question it asks when two kinds are as strong.
//!
//! Not for: reading the cues (`classify`) or listing them (`cues`).

use super::Finding;

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

/// The topic of the question that asks what kind of work item this is.
pub(super) const TOPIC: &str = "kind";

/// Asked alone, first, when two kinds both have strong cues: every other question depends on
/// the kind, so it is not guessed.
pub(super) fn question(class: &Classification) -> Finding {
    let Some((other, other_cue)) = &class.runner_up else {
        return Finding::new(TOPIC, 10, "What kind of work item is this?");
    };
    let mut options: Vec<(String, String)> = [class.kind, *other]
        .iter()
        .map(|k| (capitalised(k.as_str()), k.value().to_string()))
        .collect();
    options.extend(
        ItemKind::ALL
            .iter()
            .filter(|k| **k != class.kind && k != &other)
            .map(|k| (capitalised(k.as_str()), k.value().to_string())),
    );
    Finding::new(
        TOPIC,
        10,
        format!(
            "Is this a {} ({}) or a {} ({})? The questions depend on it. Recommended: {}, the \
             stronger cue.",
            class.kind.as_str(),
            class.cue,
            other.as_str(),
            other_cue,
            class.kind.as_str()
        ),
    )
    .titled("What kind of work item this is")
    .choices(options)
    .recommend(class.kind.value())
    .alone()
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}
