//! Answers carried into a re-run: what the person answered in an earlier interview of the same
//! subject, so that a re-run asks only what is still open and its document keeps every answer,
//! old and new, in the person's words with where each came from.
//!
//! The earlier session's recorded answers are the source; without one (the local tier was
//! cleaned, or the document came from another clone), the tool's own earlier document is read
//! back. A replay never carries anything: its answers file is its only source (docs/ci.md).
//!
//! Not for: asking (see `person`) or rendering the document (see `document`).

use std::path::{Path, PathBuf};

use super::history;
use super::state::{CarriedAnswer, Status};
use crate::receipt::Question;
use crate::subject::Kind;

/// Every answer the earlier interviews of `kind id` hold, the newest for each topic: from the
/// latest finished session (with what it carried itself), else from the document at `document`.
pub fn earlier_answers(
    worktree: &Path,
    kind: Kind,
    subject_id: &str,
    document: Option<&Path>,
) -> Vec<CarriedAnswer> {
    let latest = history::list(worktree).into_iter().rev().find_map(|l| {
        let s = l.state.ok()?;
        (s.status == Status::Done && s.kind == kind && s.subject_id == subject_id).then_some(s)
    });
    if let Some(state) = latest {
        let from = format!("the interview of {}", when(&state.session));
        let mut out: Vec<CarriedAnswer> = state
            .answered()
            .into_iter()
            .map(|(q, a)| CarriedAnswer {
                topic: q.topic.clone(),
                question: q.question_text.clone(),
                answer: shown_answer(q, &a.answer_text),
                from: from.clone(),
                session: Some(state.session.clone()),
            })
            .collect();
        // What that session carried itself, unless it was answered again there.
        for c in state.carried {
            if !out.iter().any(|o| o.topic == c.topic) {
                out.push(c);
            }
        }
        if !out.is_empty() {
            return out;
        }
    }
    document
        .map(|path| from_document(path, worktree))
        .unwrap_or_default()
}

/// When the tool's earlier document at `document` leaves nothing open (no open question):
/// what to tell the person, for a re-run that then asks nothing and changes nothing.
pub fn nothing_open(worktree: &Path, document: &Path) -> Option<String> {
    let (_, text) = own_document(worktree, document)?;
    let open = text.lines().any(|l| l.trim_end() == "## Open questions");
    (!open).then(|| {
        format!(
            "Nothing is open in {}: every question of the earlier interview is answered, so \
             there is nothing to ask and the document stays as it is.",
            document.display()
        )
    })
}

/// An option's value as a reader understands it: `One VM (vm)`; anything else as typed.
pub fn shown_answer(q: &Question, answer: &str) -> String {
    q.options
        .iter()
        .flatten()
        .find(|o| o.value == answer && o.label != answer)
        .map(|o| format!("{} ({})", o.label, o.value))
        .unwrap_or_else(|| answer.to_string())
}

/// `2026-11-30 10:15 UTC` from a session id's `YYYYMMDDTHHMMSS`.
fn when(session: &str) -> String {
    let stamp = session.rsplit('-').nth(1).unwrap_or("");
    let digit = |r: std::ops::Range<usize>| stamp.get(r).unwrap_or("??").to_string();
    if stamp.len() != 15 {
        return "an earlier date".into();
    }
    format!(
        "{}-{}-{} {}:{} UTC",
        digit(0..4),
        digit(4..6),
        digit(6..8),
        digit(9..11),
        digit(11..13)
    )
}

/// The answers in the tool's own document at `path`: each entry citing `answer to \`topic\``
/// with its `Q:` and `A:` lines. Anything else (a document by hand, another format) gives none.
fn from_document(path: &Path, worktree: &Path) -> Vec<CarriedAnswer> {
    let Some((full, text)) = own_document(worktree, path) else {
        return Vec::new();
    };
    let date = std::fs::metadata(&full)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| jiff::Timestamp::try_from(t).ok())
        .map(|t| t.strftime("%Y-%m-%d").to_string())
        .unwrap_or_else(|| "an earlier date".into());
    let shown = path.display();
    let from = format!("{shown} as it was on {date}");
    let mut out: Vec<CarriedAnswer> = Vec::new();
    let (mut question, mut answer) = (None::<String>, None::<String>);
    for line in text.lines() {
        if line.starts_with("### ") || line.starts_with("## ") {
            (question, answer) = (None, None);
        } else if let Some(q) = line.strip_prefix("Q: ") {
            question = Some(unescape(q));
        } else if let Some(a) = line.strip_prefix("A: ") {
            answer = Some(unescape(a));
        } else if let Some(rest) = line.strip_prefix("Sources: ") {
            let topic = rest.split(", ").find_map(|p| {
                p.strip_prefix("answer to `")
                    .and_then(|t| t.strip_suffix('`'))
            });
            if let (Some(topic), Some(q), Some(a)) = (topic, &question, &answer)
                && crate::receipt::is_topic(topic)
                && !out.iter().any(|c| c.topic == topic)
            {
                out.push(CarriedAnswer {
                    topic: topic.to_string(),
                    question: q.clone(),
                    answer: a.clone(),
                    from: from.clone(),
                    session: None,
                });
            }
        }
    }
    out
}

/// The text of the tool's own document at `path` (relative to `worktree`, or absolute) and the
/// file's path; `None` for no readable file or one the tool did not write (no legend).
fn own_document(worktree: &Path, path: &Path) -> Option<(PathBuf, String)> {
    let full = worktree.join(path);
    let bytes =
        crate::input::read_regular(&full, 4 * 1024 * 1024, crate::input::Links::Follow).ok()?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    text.contains(crate::document::LEGEND)
        .then_some((full, text))
}

/// A line of the tool's Markdown back to its text: the hard break and the escapes removed.
fn unescape(line: &str) -> String {
    let line = line.strip_suffix('\\').unwrap_or(line);
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\'
            && let Some(next) = chars.peek().copied()
            && next.is_ascii_punctuation()
        {
            out.push(next);
            chars.next();
            continue;
        }
        out.push(c);
    }
    out.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_id_gives_its_date_and_time() {
        assert_eq!(
            when("intent-7-20261130T101500-1a2b3c4d"),
            "2026-11-30 10:15 UTC"
        );
    }

    #[test]
    fn markdown_escapes_and_the_hard_break_are_undone() {
        assert_eq!(unescape(r"\# Only admins\"), "# Only admins");
        assert_eq!(unescape(r"a \*b\* c"), "a *b* c");
    }
}
