//! Subjects of an interview: what `reflect` and `intent` are about, and the facts about them.
//!
//! Not for: asking anything (the runner asks) or rendering the document.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

mod github;
mod glob;
pub(crate) mod intent;
pub(crate) mod reflect;

pub use intent::{GithubCli, IntentFacts, IntentRequest, intent_with};
pub(crate) use intent::{PickTracker, TrackerChoice, intent};
pub(crate) use reflect::reflect;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Reflect,
    Intent,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Reflect => "reflect",
            Kind::Intent => "intent",
        }
    }
}

/// What an interview is about.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Subject {
    pub kind: Kind,
    /// The tag/revision (reflect) or work-item id (intent), as the person named it.
    pub id: String,
    /// A one-line title for the brief and the document.
    pub title: String,
    /// Facts in compact Markdown, capped, for the brief.
    pub facts_markdown: String,
    /// The same facts, structured, for runners that read `brief.json` (the built-in interviewer).
    pub facts: serde_json::Value,
    /// What the document is named after when the id would mislead: `reflect HEAD~20` names the
    /// commit it resolved to and the date, since `HEAD~20` means another commit tomorrow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub document_name: Option<String>,
}

impl Subject {
    /// The name the document's default file name is made from.
    pub fn document_name(&self) -> &str {
        self.document_name.as_deref().unwrap_or(&self.id)
    }
}

/// `s` cut to at most `max` characters, with `…` when cut.
pub(crate) fn cap(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// Folders of the tool's own files: its local tier, its documents and the usual places of
/// answers fixtures.
const OWN_FOLDERS: &[&str] = &[
    ".interview/",
    "docs/interviews/",
    "fixtures/answers/",
    "ci/answers/",
];

/// Whether `path` (relative to the repository) is one of the tool's own files by its path
/// alone: its local tier, its configuration, its documents and answers fixtures. They are no
/// subject of an interview: an interview about the history has nothing to ask about them
/// (neither churn to explain nor code without tests), and they quote a work item or its answers,
/// so they are no evidence of it, and committing one must not change what the next interview
/// finds.
pub(crate) fn is_own_path(path: &str) -> bool {
    path == "interview.toml" || OWN_FOLDERS.iter().any(|f| path.starts_with(f))
}

/// Where the text of a work item comes from when `--from` is given.
#[derive(Debug, Clone)]
pub enum WorkItemSource {
    File(PathBuf),
    Stdin,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cap_cuts_on_characters_not_bytes() {
        assert_eq!(cap("ééééé", 3), "éé…");
        assert_eq!(cap("abc", 3), "abc");
    }
}
