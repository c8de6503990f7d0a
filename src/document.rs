//! The finished document: Markdown rendering of a `done` receipt for the shared tier, the notice
//! about what stayed open, and the spec-kit `## Clarifications` section.
//!
//! Not for: the consent gate, the overwrite choice or writing files (the session does, atomically).

use crate::markdown;
use crate::receipt::{Clarity, Done, Entry};
use crate::subject::{Kind, Subject};

/// The start of the line every document has: how readers (and the built-in interviewer, which
/// never takes an earlier document as evidence) recognise one.
pub(crate) const LEGEND: &str = "Each point says how sure it is:";

/// The order of the groups in a document: what is known first, open questions last.
const GROUPS: [(Clarity, &str); 4] = [
    (Clarity::Confirmed, "Confirmed"),
    (Clarity::DeclaredByUser, "Declared by the person"),
    (Clarity::Inferred, "Inferred"),
    (Clarity::OpenQuestion, "Open questions"),
];

/// Render a document: the title, the summary, a count of the entries the tool makes itself, then
/// the entries grouped by clarity with their sources. Contains no local-tier path and no session
/// id, even when a runner wrote one; no text in it can open a block the tool did not write.
pub(crate) fn render(done: &Done, kind: Kind, subject_title: &str) -> String {
    let title = one_line(&scrub(&done.title));
    let mut out = format!("# {}\n\n", markdown::inline(&title));
    let what = match kind {
        Kind::Reflect => "Retrospective",
        Kind::Intent => "Intent",
    };
    let subject = one_line(&scrub(subject_title));
    // The subject line only when the title does not already say it (a long title is cut).
    let shown = title.trim_end_matches('…');
    if !subject.starts_with(shown) && !title.contains(&subject) {
        let line = if subject.starts_with(&format!("{what} of ")) {
            subject
        } else {
            format!("{what}: {subject}")
        };
        out.push_str(&format!("*{}*\n\n", markdown::inline(&line)));
    }
    out.push_str(&markdown::prose(&scrub(&done.summary)));
    out.push_str(&format!("\n{}\n", counts(done)));
    out.push_str(&format!(
        "\n{LEGEND} **confirmed** from the repository, **declared** by the person interviewed, \
         **inferred**, or still an **open question**.\n"
    ));
    for (clarity, heading) in GROUPS {
        let entries: Vec<&Entry> = done
            .entries
            .iter()
            .filter(|e| e.clarity == clarity)
            .collect();
        if entries.is_empty() {
            continue;
        }
        out.push_str(&format!("\n## {heading}\n"));
        for e in entries {
            out.push_str(&format!(
                "\n### {}\n\n",
                markdown::inline(&one_line(&scrub(&e.title)))
            ));
            out.push_str(&markdown::prose(&scrub(&e.content)));
            let sources: Vec<String> = e.sources.iter().map(|s| show_source(&scrub(s))).collect();
            if !sources.is_empty() {
                out.push_str(&format!("\nSources: {}\n", sources.join(", ")));
            }
        }
    }
    out
}

/// [`render`] for a subject, with a work item's own text quoted whole at the end (code blocks
/// included), marked as what the item states.
pub(crate) fn render_subject(done: &Done, subject: &Subject) -> String {
    let mut out = render(done, subject.kind, &subject.title);
    if subject.kind != Kind::Intent {
        return out;
    }
    let facts = &subject.facts;
    let Some(text) = facts.get("text").and_then(|t| t.as_str()) else {
        return out;
    };
    let text = scrub(text);
    let source = facts.get("source").and_then(|s| s.as_str()).unwrap_or("");
    let truncated = facts.get("truncated").and_then(|t| t.as_bool()) == Some(true);
    out.push_str("\n## The work item\n\n");
    out.push_str(&markdown::prose(&format!(
        "As written{}: what it states is its own claim, not confirmed by this interview.{}",
        if source.is_empty() {
            String::new()
        } else {
            format!(" in {}", one_line(&scrub(source)))
        },
        if truncated {
            " Only its first 64 KiB are quoted."
        } else {
            ""
        }
    )));
    if !text.trim().is_empty() {
        out.push('\n');
        out.push_str(&markdown::quoted_item(&text));
    }
    out
}

/// What the document lists, counted by the tool: a summary can then never claim fewer open
/// questions than there are.
fn counts(done: &Done) -> String {
    let n = |c: Clarity| done.entries.iter().filter(|e| e.clarity == c).count();
    format!(
        "In this document: {}, {} confirmed from the repository, {} declared by the person, {} \
         inferred.",
        crate::subject::reflect::counted(n(Clarity::OpenQuestion), "open question"),
        n(Clarity::Confirmed),
        n(Clarity::DeclaredByUser),
        n(Clarity::Inferred)
    )
}

/// A source as a reader wants it: `path:line` in code, a short commit, the question it answers.
fn show_source(source: &str) -> String {
    if let Some(topic) = source.strip_prefix("qa:") {
        format!("answer to `{topic}`")
    } else if let Some(hex) = source.strip_prefix("commit:") {
        format!("commit `{}`", hex.get(..12).unwrap_or(hex))
    } else {
        format!("`{}`", source.replace('`', "'"))
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Remove what belongs to the local tier: paths into `.interview/` and session ids.
fn scrub(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let mut first = true;
        for token in line.split(' ') {
            if !first {
                out.push(' ');
            }
            first = false;
            let bare = token.trim_matches(|c: char| !c.is_alphanumeric());
            if token.contains(".interview/") || token.contains(".interview\\") {
                out.push_str("(local path)");
            } else if is_session_id(bare) {
                out.push_str("(session)");
            } else {
                out.push_str(token);
            }
        }
    }
    out
}

/// `<kind>-<slug>-<YYYYMMDDTHHMMSS>-<8 hex>`: the shape of a session id.
fn is_session_id(token: &str) -> bool {
    let parts: Vec<&str> = token.split('-').collect();
    let n = parts.len();
    if n < 4 || !matches!(parts[0], "reflect" | "intent") {
        return false;
    }
    let hex = parts[n - 1];
    let stamp = parts[n - 2].as_bytes();
    hex.len() == 8
        && hex.bytes().all(|b| b.is_ascii_hexdigit())
        && stamp.len() == 15
        && stamp[8] == b'T'
        && stamp
            .iter()
            .enumerate()
            .all(|(i, b)| i == 8 || b.is_ascii_digit())
}

/// What became of the document at the end of a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Delivery {
    /// Written to this file.
    Written(std::path::PathBuf),
    /// Printed (`--out -`, or "print it here instead"), nothing written.
    Printed,
    /// The person stopped without writing anything.
    NotWritten,
}

/// The text shown at the end when entries stayed open, naming them and saying how many of them
/// the person skipped (`skipped`: questions asked and not answered; `answered`: whether any
/// question was answered), in words that match what became of the document; `None` when
/// nothing is open.
pub(crate) fn open_questions_notice(
    done: &Done,
    skipped: usize,
    answered: bool,
    delivery: &Delivery,
) -> Option<String> {
    let open: Vec<&Entry> = done
        .entries
        .iter()
        .filter(|e| e.clarity == Clarity::OpenQuestion)
        .collect();
    if open.is_empty() {
        return None;
    }
    let skipped = skipped.min(open.len());
    let why = match skipped {
        0 => String::new(),
        // Issue 40: "(Q&A was skipped)" was said after half the questions were answered.
        n if n == open.len() && !answered => " (Q&A was skipped)".to_string(),
        n if n == open.len() => " (skipped in the Q&A)".to_string(),
        n => format!(" ({n} of them skipped in the Q&A)"),
    };
    let mut text = format!("ℹ️  {} topic(s) remain ambiguous{why}:\n", open.len());
    for e in &open {
        text.push_str(&format!("  · {}\n", one_line(&e.title)));
    }
    text.push_str(match delivery {
        Delivery::Written(_) => {
            "These entries are tagged clarity: open-question in the document.\n\
             Run the interview again to resolve them when ready.\n"
        }
        Delivery::Printed => {
            "These entries are tagged clarity: open-question in the printed document.\n\
             Run the interview again to resolve them when ready.\n"
        }
        Delivery::NotWritten => {
            "No document was written: run the interview again to resolve them when ready.\n"
        }
    });
    Some(text)
}

/// Add an open-question entry for every skipped question `(topic, question_text)` that no entry
/// covers: none cites `qa:<topic>` and no open question already asks it.
pub(crate) fn add_uncovered_skips(done: &mut Done, skipped: &[(String, String)]) {
    for (topic, question) in skipped {
        let cite = format!("qa:{topic}");
        let asked = one_line(question);
        let covered = done.entries.iter().any(|e| {
            e.sources.contains(&cite)
                || (e.clarity == Clarity::OpenQuestion
                    && (one_line(&e.title) == asked || one_line(&e.content).contains(&asked)))
        });
        if covered {
            continue;
        }
        let title: String = if asked.chars().count() > 80 {
            asked.chars().take(79).chain(['…']).collect()
        } else {
            asked.clone()
        };
        done.entries.push(Entry {
            title,
            content: format!("Skipped by the person: {asked}"),
            clarity: Clarity::OpenQuestion,
            sources: Vec::new(),
        });
    }
}

/// One of the person's answers, for the document: the question and the answer as a reader
/// understands it (an option's label with its value). An answer carried from an earlier
/// interview reads the same as one given now: the document is a function of the work item, the
/// repository and the answers, so that a replay of them writes it byte for byte.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GivenAnswer {
    pub topic: String,
    pub question: String,
    /// The answer as recorded (an option's value, or the person's text).
    pub recorded: String,
    /// The answer as shown: `One VM (vm)`, or the person's text.
    pub shown: String,
}

/// Make sure every answer is in the document in the person's own words, whatever the runner
/// wrote: an entry that cites `qa:<topic>` and quotes the answer keeps it; otherwise the tool adds a declared entry of its own with the
/// question and the answer. A runner can thus neither drop nor reword an answer.
pub(crate) fn add_unquoted_answers(done: &mut Done, answers: &[GivenAnswer]) {
    for a in answers {
        let cite = format!("qa:{}", a.topic);
        let (recorded, shown) = (one_line(&a.recorded), one_line(&a.shown));
        let quoted = done.entries.iter().any(|e| {
            let content = one_line(&e.content);
            e.sources.contains(&cite)
                && e.clarity == Clarity::DeclaredByUser
                && (content.contains(&shown) || content.contains(&recorded))
        });
        if quoted {
            continue;
        }
        let question = one_line(&a.question);
        let title: String = if question.chars().count() > 80 {
            question.chars().take(79).chain(['…']).collect()
        } else {
            question.clone()
        };
        done.entries.push(Entry {
            title,
            content: format!("Q: {question}\nA: {shown}"),
            clarity: Clarity::DeclaredByUser,
            sources: vec![cite],
        });
    }
}

/// Remove the entries whose every source is a line of `document`, the file about to be
/// replaced: a pointer into it would point at nothing once it is rewritten.
pub(crate) fn drop_citations_of(done: &mut Done, document: &str) {
    let document = document.trim_start_matches("./");
    let cites = |s: &String| {
        s == document
            || s.strip_prefix(document)
                .is_some_and(|rest| rest.starts_with(':'))
    };
    done.entries
        .retain(|e| e.sources.is_empty() || !e.sources.iter().all(cites));
}

/// `existing` with the answered questions added as spec-kit clarifications: under the existing
/// `## Clarifications` heading when there is one (in today's `### Session` if it is there, else
/// a new one at the end of the section), otherwise as a new section at the end of the file.
/// Nothing else in the file changes; with no answers the text is returned unchanged.
pub fn clarifications_section(existing: &str, date: &str, qa: &[(String, String)]) -> String {
    if qa.is_empty() {
        return existing.to_string();
    }
    let nl = if existing.contains("\r\n") {
        "\r\n"
    } else {
        "\n"
    };
    let bullets: String = qa
        .iter()
        .map(|(q, a)| {
            format!(
                "- Q: {} → A: {}{nl}",
                markdown::inline(q),
                markdown::inline(a)
            )
        })
        .collect();
    let session = format!("### Session {}", one_line(date));

    let (lines, headings) = lines_and_headings(existing);
    let end_of = |from: usize, max_level: usize| {
        headings
            .iter()
            .find(|(i, l, _)| *i > from && *l <= max_level)
            .map_or(existing.len(), |(i, _, _)| lines[*i].0)
    };
    let Some(&(clar, clar_level, _)) = headings
        .iter()
        .find(|(_, l, t)| *l == 2 && t.eq_ignore_ascii_case("Clarifications"))
    else {
        return new_section(existing, nl, &session, &bullets);
    };
    let section_end = end_of(clar, clar_level);
    let same_day = headings.iter().find(|(i, l, t)| {
        *i > clar && lines[*i].0 < section_end && *l == 3 && format!("### {t}") == session
    });
    let (at, insert) = match same_day {
        Some(&(i, level, _)) => {
            let end = end_of(i, level).min(section_end);
            (end, bullets)
        }
        None => (section_end, format!("{nl}{session}{nl}{nl}{bullets}")),
    };
    insert_after_last_line(existing, at, &insert, nl)
}

/// A line of a Markdown text: the byte offset it starts at, and the line.
type Line<'a> = (usize, &'a str);
/// A heading of a Markdown text: its line's index, its level, its text.
type Heading = (usize, usize, String);

/// Each line of `text`, and its headings outside code fences.
fn lines_and_headings(text: &str) -> (Vec<Line<'_>>, Vec<Heading>) {
    let mut lines: Vec<Line<'_>> = Vec::new();
    let mut offset = 0;
    for raw in text.split_inclusive('\n') {
        lines.push((offset, raw));
        offset += raw.len();
    }
    let mut in_code = false;
    let mut headings: Vec<Heading> = Vec::new();
    for (i, (_, raw)) in lines.iter().enumerate() {
        let t = raw.trim();
        if t.starts_with("```") || t.starts_with("~~~") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        let level = t.bytes().take_while(|&b| b == b'#').count();
        if (1..=6).contains(&level) && t.as_bytes().get(level) == Some(&b' ') {
            headings.push((i, level, t[level..].trim().to_string()));
        }
    }
    (lines, headings)
}

/// `existing` with a new `## Clarifications` section at its end, holding `session`'s bullets.
fn new_section(existing: &str, nl: &str, session: &str, bullets: &str) -> String {
    let mut out = existing.to_string();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push_str(nl);
    }
    if !out.is_empty() {
        out.push_str(nl);
    }
    out.push_str(&format!(
        "## Clarifications{nl}{nl}{session}{nl}{nl}{bullets}"
    ));
    out
}

/// `existing` with `insert` after the last non-blank line before byte `at`; the blank lines
/// after it stay as they were.
fn insert_after_last_line(existing: &str, at: usize, insert: &str, nl: &str) -> String {
    let body = &existing[..at];
    let trimmed = body.trim_end_matches(['\n', '\r']);
    let tail = &body[trimmed.len()..];
    let (first_break, rest) = match tail.find('\n') {
        Some(i) => tail.split_at(i + 1),
        None => (nl, ""),
    };
    let mut out = String::with_capacity(existing.len() + insert.len() + 4);
    out.push_str(trimmed);
    out.push_str(first_break);
    out.push_str(insert);
    out.push_str(rest);
    out.push_str(&existing[at..]);
    out
}

/// The default path of the document in the shared tier, relative to the worktree:
/// `docs/interviews/reflect-<tag>.md` or `docs/interviews/intent-<id>.md`, the name slugged so
/// it is one safe file name (no `/`, no `..`, no leading dot).
pub(crate) fn default_out_path(kind: Kind, id: &str) -> String {
    format!("docs/interviews/{}-{}.md", kind.as_str(), slug(id))
}

fn slug(id: &str) -> String {
    let mut out = String::new();
    for c in id.chars() {
        let keep = c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
        let c = if keep { c } else { '-' };
        // No `..` and no runs of `-`: one separator is enough.
        if (c == '-' || c == '.') && out.ends_with(c) {
            continue;
        }
        out.push(c);
    }
    let out: String = out
        .trim_matches(|c| c == '-' || c == '.')
        .chars()
        .take(80)
        .collect();
    let out = out.trim_end_matches(['-', '.']).to_string();
    if out.is_empty() {
        "untitled".to_string()
    } else {
        out
    }
}

#[cfg(test)]
mod tests;
