//! Answers carried into a re-run: what the person answered in an earlier interview of the same
//! subject, so that a re-run asks only what is new or changed. A carried answer answers the
//! question of this interview as if typed again (recorded in `answers.json` as it was typed, `2`
//! for an option), so the re-run's document is the one a replay of its answers writes.
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
pub(crate) fn earlier_answers(
    worktree: &Path,
    kind: Kind,
    subject_id: &str,
    document: Option<&Path>,
) -> Vec<CarriedAnswer> {
    let latest = history::list(worktree).into_iter().rev().find_map(|l| {
        let s = l.state.ok()?;
        (s.status == Status::Done && s.kind == kind && s.subject_id == subject_id)
            .then_some((l.dir, s))
    });
    if let Some((dir, state)) = latest {
        let typed = crate::ask::ReplayFile::load(&dir.join("answers.json"))
            .map(|f| f.answers)
            .unwrap_or_default();
        let from = format!("the interview of {}", when(&state.session));
        let mut out: Vec<CarriedAnswer> = state
            .answered()
            .into_iter()
            .map(|(q, a)| CarriedAnswer {
                topic: q.topic.clone(),
                question: q.question_text.clone(),
                answer: a.answer_text.clone(),
                typed: typed.get(&q.topic).cloned(),
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

/// What carrying `c` into the question `q` of this interview records: the answer (an option's
/// value, or the text) and the line recorded as typed (what the person typed, `2` for an
/// option). `None` when the question changed since (other words, besides the line numbers and
/// counts it cites, or options that no longer give the same answer): it is asked again.
pub(crate) fn carry(q: &Question, c: &CarriedAnswer) -> Option<(String, String)> {
    if without_numbers(&q.question_text) != without_numbers(&c.question) {
        return None;
    }
    let options = q.options.iter().flatten();
    let (value, number) = match options
        .enumerate()
        .find(|(_, o)| o.value == c.answer || format!("{} ({})", o.label, o.value) == c.answer)
    {
        Some((i, o)) => (o.value.clone(), Some((i + 1).to_string())),
        None => (c.answer.clone(), None),
    };
    let gives = |line: &str| matches!(crate::ask::classify_reply(line, q), crate::ask::Reply::Answer(v) if v == value);
    [c.typed.clone(), number, Some(value.clone())]
        .into_iter()
        .flatten()
        .find(|line| gives(line))
        .map(|typed| (value, typed))
}

/// A question's words without the numbers in them (`Line #`, `src/a.rs:#`), which move with
/// the code and the item while the question stays the same.
fn without_numbers(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.trim().chars() {
        if c.is_ascii_digit() {
            if !out.ends_with('#') {
                out.push('#');
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// An option's value as a reader understands it: `One VM (vm)`; anything else as typed.
pub(crate) fn shown_answer(q: &Question, answer: &str) -> String {
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
                    typed: None,
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

    fn question(text: &str, options: &[(&str, &str)]) -> Question {
        serde_json::from_value(serde_json::json!({
            "topic": "deployment_target",
            "question_text": text,
            "severity": 5,
            "options": options.iter().map(|(l, v)| serde_json::json!({"label": l, "value": v}))
                .collect::<Vec<_>>(),
        }))
        .unwrap()
    }

    fn earlier(question: &str, answer: &str, typed: Option<&str>) -> CarriedAnswer {
        CarriedAnswer {
            topic: "deployment_target".into(),
            question: question.into(),
            answer: answer.into(),
            typed: typed.map(String::from),
            from: "the interview of 2026-11-30 10:15 UTC".into(),
            session: None,
        }
    }

    const OPTIONS: &[(&str, &str)] = &[("Kubernetes", "k8s"), ("One VM", "vm")];

    #[test]
    fn an_answer_is_carried_as_typed_into_the_same_question_at_another_line() {
        let q = question("Line 9 asks: where does it run?", OPTIONS);
        let c = earlier("Line 7 asks: where does it run?", "vm", Some("2"));
        assert_eq!(carry(&q, &c), Some(("vm".into(), "2".into())));
    }

    #[test]
    fn an_answer_read_back_from_a_document_is_recorded_as_its_option_number() {
        let q = question("Where does it run?", OPTIONS);
        let c = earlier("Where does it run?", "One VM (vm)", None);
        assert_eq!(carry(&q, &c), Some(("vm".into(), "2".into())));
    }

    #[test]
    fn a_changed_question_is_asked_again() {
        let q = question("Where does the export run?", OPTIONS);
        assert_eq!(
            carry(&q, &earlier("Where does it run?", "vm", Some("2"))),
            None
        );
        // The options moved: the number typed then picks another answer now, so the value's
        // number is recorded instead.
        let moved = question(
            "Where does it run?",
            &[("One VM", "vm"), ("Kubernetes", "k8s")],
        );
        let c = earlier("Where does it run?", "vm", Some("2"));
        assert_eq!(carry(&moved, &c), Some(("vm".into(), "1".into())));
    }

    #[test]
    fn markdown_escapes_and_the_hard_break_are_undone() {
        assert_eq!(unescape(r"\# Only admins\"), "# Only admins");
        assert_eq!(unescape(r"a \*b\* c"), "a *b* c");
    }
}
