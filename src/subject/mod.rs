//! Subjects of an interview: what `reflect` and `intent` are about, and the facts about them.
//!
//! Not for: asking anything (the runner asks) or rendering the document.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

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
}

/// Where the text of a work item comes from when `--from` is given.
#[derive(Debug, Clone)]
pub enum WorkItemSource {
    File(PathBuf),
    Stdin,
}

/// Minimal `reflect` facts: the resolved range (rich facts come with the reflect issue).
pub fn reflect(repo: &Path, rev: &str) -> Result<Subject> {
    let r = gix::open(repo).map_err(|e| Error::Repo(format!("cannot open repository: {e}")))?;
    let id = r
        .rev_parse_single(rev)
        .map_err(|e| Error::Subject(format!("unknown revision `{rev}`: {e}")))?;
    Ok(Subject {
        kind: Kind::Reflect,
        id: rev.to_string(),
        title: format!("Reflection on the work since {rev}"),
        facts_markdown: format!("Range: `{rev}..HEAD` (from {})\n", id.shorten_or_id()),
        facts: serde_json::json!({ "range": format!("{rev}..HEAD") }),
    })
}

/// Minimal `intent`: the work item's text from `--from`.
pub fn intent(_repo: &Path, id: &str, from: Option<&WorkItemSource>) -> Result<Subject> {
    let text = match from {
        Some(WorkItemSource::File(p)) => std::fs::read_to_string(p)
            .map_err(|e| Error::io(format!("cannot read work item {}", p.display()), e))?,
        Some(WorkItemSource::Stdin) => {
            let mut s = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)
                .map_err(|e| Error::io("cannot read work item from stdin", e))?;
            s
        }
        None => {
            return Err(Error::Subject(format!(
                "no work item `{id}`: pass --from FILE (or --from - for stdin)"
            )));
        }
    };
    let title = text
        .lines()
        .map(|l| l.trim_start_matches('#').trim())
        .find(|l| !l.is_empty())
        .unwrap_or(id)
        .to_string();
    Ok(Subject {
        kind: Kind::Intent,
        id: id.to_string(),
        title: format!("Intent of {id}: {title}"),
        facts_markdown: format!("Work item `{id}`:\n\n{text}\n"),
        facts: serde_json::json!({ "id": id, "text": text }),
    })
}
