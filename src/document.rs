//! The finished document: Markdown rendering of a `done` receipt for the shared tier.

use crate::receipt::{Clarity, Done};

/// Render a document. Contains no local-tier path and no session id.
pub fn render(done: &Done) -> String {
    let mut out = format!("# {}\n\n{}\n", done.title, done.summary);
    for clarity in [
        Clarity::Confirmed,
        Clarity::DeclaredByUser,
        Clarity::Inferred,
        Clarity::OpenQuestion,
    ] {
        let entries: Vec<_> = done.entries.iter().filter(|e| e.clarity == clarity).collect();
        if entries.is_empty() {
            continue;
        }
        out.push_str(&format!("\n## {}\n", clarity.as_str()));
        for e in entries {
            out.push_str(&format!("\n### {}\n\n{}\n", e.title, e.content));
            if !e.sources.is_empty() {
                out.push_str(&format!("\nSources: {}\n", e.sources.join(", ")));
            }
        }
    }
    out
}
