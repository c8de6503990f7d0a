//! The `done` receipt of the built-in interviewer: answers first, then open questions, then the
//! subject's facts, within the receipt's limits (see `docs/receipt.md`).

use crate::answer::AnswerRecord;
use crate::brief::BriefContext;
use crate::protocol::limits::{
    MAX_CONTENT_CHARS, MAX_ENTRIES, MAX_ENTRY_TITLE_CHARS, MAX_SUMMARY_CHARS, MAX_TITLE_CHARS,
};
use crate::receipt::{Clarity, Done, Entry, Question};
use crate::subject::reflect::{cap, counted};

use super::text;
use super::{Analysis, Finding, questions, reflect};

/// Every question asked so far with the person's answer, in the order asked. A question is
/// cited as the item and the repository ask it now (a session resumed after the code moved
/// writes the lines a fresh run with the same answers writes), or as it was asked when nothing
/// asks it any more.
fn transcript(
    ctx: &BriefContext,
    findings: &[Finding],
) -> Vec<(Question, Option<AnswerRecord>, bool)> {
    let mut out: Vec<(Question, Option<AnswerRecord>, bool)> = Vec::new();
    for round in &ctx.rounds {
        for asked in &round.questions {
            if out.iter().any(|(seen, _, _)| seen.topic == asked.topic) {
                continue;
            }
            let q = findings
                .iter()
                .find(|f| f.topic == asked.topic)
                .map_or_else(|| asked.clone(), Finding::to_question);
            let answer = round
                .answers
                .iter()
                .find(|a| a.question_id == q.topic)
                .cloned();
            out.push((q, answer, round.gate_skipped));
        }
    }
    out
}

/// The entries of the questions: those answered (declared by the person), then those still
/// open — skipped, never answered, or never asked.
fn answered_and_open(ctx: &BriefContext, analysis: &Analysis) -> (Vec<Entry>, Vec<Entry>) {
    let findings = &analysis.findings;
    let qa = transcript(ctx, findings);
    let mut declared = Vec::new();
    let mut open = Vec::new();
    for (q, answer, gate_skipped) in &qa {
        match answer
            .as_ref()
            .filter(|a| !a.skipped && !a.answer_text.trim().is_empty())
        {
            Some(a) => declared.push(Entry {
                title: text::title(
                    &topic_title(findings, &q.topic, &q.question_text),
                    MAX_ENTRY_TITLE_CHARS,
                ),
                content: cap(
                    &format!(
                        "Q: {}\nA: {}",
                        q.question_text,
                        shown_answer(q, &a.answer_text)
                    ),
                    MAX_CONTENT_CHARS,
                ),
                clarity: Clarity::DeclaredByUser,
                sources: vec![format!("qa:{}", q.topic)],
            }),
            None => {
                let why = if *gate_skipped {
                    "The person skipped the questions"
                } else if answer.is_some() {
                    "The person skipped this question"
                } else {
                    "The question was never answered"
                };
                open.push(open_question(findings, &q.topic, &q.question_text, why));
            }
        }
    }
    // Findings never asked (a final turn, or more than five) stay open, not silently dropped.
    let asked: Vec<&str> = qa.iter().map(|(q, _, _)| q.topic.as_str()).collect();
    let mut unasked: Vec<&Finding> = findings
        .iter()
        .filter(|f| !asked.contains(&f.topic.as_str()))
        .collect();
    unasked.sort_by_key(|f| std::cmp::Reverse(f.severity));
    for f in unasked {
        let why = if ctx.final_turn || !analysis.more_rounds {
            "Not asked"
        } else {
            "Not asked in this interview's rounds"
        };
        open.push(open_question(findings, &f.topic, &f.question, why));
    }
    (declared, open)
}

pub(super) fn synthesise(ctx: &BriefContext, analysis: &Analysis) -> Done {
    let (declared, open) = answered_and_open(ctx, analysis);
    let facts = analysis.facts.clone();
    let facts: Vec<Entry> = if ctx.previous_failure.is_some() {
        // The last receipt was refused: keep the facts but claim nothing a check could reject.
        facts
            .into_iter()
            .map(|mut e| {
                e.clarity = Clarity::Inferred;
                e
            })
            .collect()
    } else {
        facts
    };

    // Answers first, then open questions, then facts; a few facts always keep their place.
    let n_open_total = open.len();
    let mut entries = declared;
    entries.truncate(MAX_ENTRIES);
    let open_room = MAX_ENTRIES.saturating_sub(entries.len() + facts.len().min(4));
    entries.extend(open.into_iter().take(open_room));
    let left = MAX_ENTRIES.saturating_sub(entries.len());
    entries.extend(facts.into_iter().take(left));
    if entries.is_empty() {
        entries.push(Entry {
            title: "Nothing to report".into(),
            content: "The subject has no facts and no questions were answered.".into(),
            clarity: Clarity::Inferred,
            sources: Vec::new(),
        });
    }

    // Counted from what is listed, so the summary never claims fewer open points than it lists.
    let count = |c: Clarity| entries.iter().filter(|e| e.clarity == c).count();
    let unlisted = n_open_total.saturating_sub(count(Clarity::OpenQuestion));
    let summary = format!(
        "{} {} declared by the person, {}{}; {}",
        analysis.lead,
        counted(count(Clarity::DeclaredByUser), "point"),
        counted(count(Clarity::OpenQuestion), "open question"),
        if unlisted > 0 {
            format!(" (and {unlisted} more not listed: a document holds {MAX_ENTRIES} entries)")
        } else {
            String::new()
        },
        analysis.tail
    );
    let title = &analysis.title;
    Done {
        title: text::title(title, MAX_TITLE_CHARS),
        summary: cap(&summary, MAX_SUMMARY_CHARS),
        entries,
    }
}

fn open_question(findings: &[Finding], topic: &str, question: &str, why: &str) -> Entry {
    Entry {
        title: text::title(
            &topic_title(findings, topic, question),
            MAX_ENTRY_TITLE_CHARS,
        ),
        content: cap(&format!("{why}: {question}"), MAX_CONTENT_CHARS),
        clarity: Clarity::OpenQuestion,
        sources: Vec::new(),
    }
}

/// An entry title for an answered topic: a known name, else the question itself.
fn topic_title(findings: &[Finding], topic: &str, question: &str) -> String {
    if let Some(title) = findings
        .iter()
        .find(|f| f.topic == topic)
        .and_then(|f| f.title.clone())
    {
        return title;
    }
    if let Some(name) = reflect::topic_name(topic).or_else(|| questions::topic_name(topic)) {
        return name.to_string();
    }
    // `open_point_N`: the quoted question from the item reads better than the question about it.
    match (question.find('"'), question.rfind('"')) {
        (Some(a), Some(b)) if topic.starts_with("open_point_") && b > a + 1 => {
            question[a + 1..b].to_string()
        }
        _ => question.to_string(),
    }
}

/// The answer as a person reads it: an option's label with its value, or the text typed.
fn shown_answer(q: &Question, answer: &str) -> String {
    q.options
        .iter()
        .flatten()
        .find(|o| o.value == answer)
        .map(|o| format!("{} ({})", o.label, o.value))
        .unwrap_or_else(|| answer.to_string())
}
