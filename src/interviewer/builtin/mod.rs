//! The built-in interviewer: a deterministic runner without a model, started as a subprocess
//! through the same protocol as any runner (`brief.json` in, one receipt out; see
//! `docs/interviews.md` and `docs/receipt.md`).
//!
//! Turn 1 asks about what the facts show (reflect) or what the work item leaves ambiguous
//! (intent), at most five questions ranked by severity; any later turn, or a final turn, writes
//! the `done` document from the facts and the answers. Same input, byte-identical receipt.
//!
//! Not for: checking receipts (the session does) or writing anywhere but `$INTERVIEW_RECEIPT`.

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::brief::BriefContext;
use crate::error::{Error, Result};
use crate::protocol::env;
use crate::protocol::limits::{MAX_QUESTION_TEXT_CHARS, MAX_QUESTIONS, VERSION};
use crate::receipt::{Ask, Entry, Question, QuestionOption, Receipt};
use crate::subject::Kind;

mod bank;
mod calls;
mod cited;
mod classify;
mod code_lines;
mod commands;
mod cues;
mod defs;
mod document;
mod existing;
mod guess;
mod hedge;
mod history;
mod intent;
mod intent_entries;
mod item;
mod kind;
mod linked;
mod manifest;
mod members;
mod names;
mod nearest;
mod on_path;
mod options;
mod outcome;
mod outside;
mod own_code;
mod place;
mod pointed;
mod proposal;
mod questions;
mod raised;
mod reading;
mod reflect;
mod reflect_entries;
mod repo;
mod retyped;
mod round;
mod scan;
mod search;
mod setup;
mod shape;
mod standing;
mod support;
mod tags;
mod test_code;
mod text;
mod trace;
mod usage_section;
mod wish;
mod words;

use text::one_line;

/// `brief.json` larger than this is refused (the built-in interviewer's own bound on what it
/// reads; the session writes far less).
const MAX_CONTEXT_BYTES: u64 = 32 * 1024 * 1024;

/// `interview runner builtin`: read `$INTERVIEW_CONTEXT`, write the receipt to
/// `$INTERVIEW_RECEIPT`. The worktree is the current directory.
pub(crate) fn run() -> Result<()> {
    let var = |name: &str| {
        std::env::var_os(name).map(PathBuf::from).ok_or_else(|| {
            Error::Usage(format!(
                "{name} is not set: `interview runner builtin` is started by `interview reflect` or \
                 `interview intent`, which set {} and {}",
                env::CONTEXT,
                env::RECEIPT
            ))
        })
    };
    let context_path = var(env::CONTEXT)?;
    let receipt_path = var(env::RECEIPT)?;
    let ctx = read_context(&context_path)?;
    let worktree = std::env::current_dir()
        .map_err(|e| Error::io("cannot find the worktree (the current directory)", e))?;
    let receipt = decide(&ctx, &worktree);
    let text = receipt_json(&receipt)?;
    std::fs::write(&receipt_path, text).map_err(|e| {
        Error::io(
            format!("cannot write the receipt to {}", receipt_path.display()),
            e,
        )
    })
}

fn read_context(path: &Path) -> Result<BriefContext> {
    let shown = path.display();
    let file = std::fs::File::open(path)
        .map_err(|e| Error::io(format!("cannot read the brief context {shown}"), e))?;
    let mut bytes = Vec::new();
    file.take(MAX_CONTEXT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(format!("cannot read the brief context {shown}"), e))?;
    if bytes.len() as u64 > MAX_CONTEXT_BYTES {
        return Err(Error::BriefTooLarge { path: path.into() });
    }
    serde_json::from_slice(&bytes).map_err(|source| Error::BriefInvalid {
        path: path.into(),
        source,
    })
}

/// The receipt as written: the wire format of `docs/receipt.md`, with its `version`, keys sorted.
pub fn receipt_json(receipt: &Receipt) -> Result<String> {
    let mut value = serde_json::to_value(receipt)
        .map_err(|e| Error::json("cannot serialise the receipt", e))?;
    if let Some(object) = value.as_object_mut() {
        object.insert("version".into(), VERSION.into());
    }
    let mut text = serde_json::to_string_pretty(&value)
        .map_err(|e| Error::json("cannot serialise the receipt", e))?;
    text.push('\n');
    Ok(text)
}

/// What one kind of subject gives the decision: what to ask, what is known, how to sum it up.
struct Analysis {
    findings: Vec<Finding>,
    /// Entries of what the subject's facts show (confirmed where the repository shows them).
    facts: Vec<Entry>,
    /// The document's title and the lead of its summary.
    title: String,
    lead: String,
    /// What the summary adds after the counts: e.g. what the interviewer did not check.
    tail: String,
    /// Whether topics beyond the first round are asked in later rounds.
    more_rounds: bool,
}

/// The whole decision of one turn: a pure function of the brief and the worktree's files.
pub fn decide(ctx: &BriefContext, worktree: &Path) -> Receipt {
    let analysis = match ctx.kind {
        Kind::Reflect => {
            let facts = reflect::facts(ctx);
            let (title, lead) = reflect::title_and_lead(&facts);
            Analysis {
                findings: reflect::findings(&facts),
                facts: reflect::fact_entries(&facts, worktree),
                title,
                lead,
                tail: "the rest is taken from the history as recorded.".into(),
                more_rounds: false,
            }
        }
        Kind::Intent => intent::analyse(ctx, worktree),
    };
    let asked: Vec<&str> = ctx
        .rounds
        .iter()
        .flat_map(|r| r.questions.iter().map(|q| q.topic.as_str()))
        .collect();
    // A later round only when the person took part in the last one (no gate skip, no
    // `skip all`, not every question skipped).
    let engaged = ctx
        .rounds
        .last()
        .is_none_or(|r| !r.gate_skipped && !r.skipped_all && r.answers.iter().any(|a| !a.skipped));
    let may_ask = !ctx.final_turn
        && ctx.previous_failure.is_none()
        && (ctx.rounds.is_empty() || (analysis.more_rounds && engaged));
    if may_ask {
        let questions = rank(&analysis.findings, &asked);
        if !questions.is_empty() {
            return Receipt::Ask(Ask { questions });
        }
    }
    Receipt::Done(document::synthesise(ctx, &analysis))
}

/// One thing worth asking about, with its severity.
#[derive(Debug, Clone)]
struct Finding {
    topic: String,
    severity: u8,
    question: String,
    options: Vec<(String, String)>,
    /// The option's value a person gets with `r`; the reason is in the question.
    recommended: Option<String>,
    /// The document's title for the topic, when the question itself reads worse.
    title: Option<String>,
    /// A closing question: always asked, after the others of its round.
    closing: bool,
    /// Asked alone in its round: the other questions depend on its answer.
    alone: bool,
}

impl Finding {
    fn new(topic: impl Into<String>, severity: u8, question: impl Into<String>) -> Finding {
        Finding {
            topic: topic.into(),
            severity: severity.clamp(1, 10),
            question: text::fit_question(&question.into(), MAX_QUESTION_TEXT_CHARS),
            options: Vec::new(),
            recommended: None,
            title: None,
            closing: false,
            alone: false,
        }
    }

    /// Mark as asked alone in its round (the others depend on it).
    fn alone(mut self) -> Finding {
        self.alone = true;
        self
    }

    /// Mark as a closing question: it keeps a place at the end of the round.
    fn closing(mut self) -> Finding {
        self.closing = true;
        self
    }

    fn options(self, options: &[(&str, &str)]) -> Finding {
        self.choices(
            options
                .iter()
                .map(|(l, v)| (l.to_string(), v.to_string()))
                .collect(),
        )
    }

    /// Options made from what was found (at most nine, values unique).
    fn choices(mut self, options: Vec<(String, String)>) -> Finding {
        let mut seen = Vec::new();
        self.options = options
            .into_iter()
            .filter(|(_, v)| {
                let new = !seen.contains(v);
                seen.push(v.clone());
                new
            })
            .take(9)
            .collect();
        self
    }

    /// Recommend the option whose value is `value`, if there is one.
    fn recommend(mut self, value: &str) -> Finding {
        if self.options.iter().any(|(_, v)| v == value) {
            self.recommended = Some(value.to_string());
        }
        self
    }

    fn titled(mut self, title: impl Into<String>) -> Finding {
        self.title = Some(title.into());
        self
    }

    fn to_question(&self) -> Question {
        let options = (self.options.len() >= 2).then(|| {
            self.options
                .iter()
                .map(|(label, value)| QuestionOption {
                    label: one_line(label, 120),
                    value: value.clone(),
                })
                .collect::<Vec<_>>()
        });
        Question {
            topic: self.topic.clone(),
            question_text: self.question.clone(),
            severity: self.severity,
            recommended: self.recommended.clone().filter(|_| options.is_some()),
            options,
        }
    }
}

/// The findings not asked before, at most five: the most severe first; ties keep the order of discovery. Closing questions keep their places
/// at the end of the round.
fn rank(findings: &[Finding], asked: &[&str]) -> Vec<Question> {
    let mut fresh: Vec<(usize, &Finding)> = findings
        .iter()
        .enumerate()
        .filter(|(_, f)| !asked.contains(&f.topic.as_str()))
        .collect();
    fresh.sort_by(|(ia, a), (ib, b)| b.severity.cmp(&a.severity).then(ia.cmp(ib)));
    let mut seen = Vec::new();
    fresh.retain(|(_, f)| {
        let new = !seen.contains(&f.topic);
        seen.push(f.topic.clone());
        new
    });
    if let Some((_, first)) = fresh.iter().find(|(_, f)| f.alone) {
        return vec![first.to_question()];
    }
    let closing: Vec<&Finding> = fresh
        .iter()
        .filter(|(_, f)| f.closing)
        .map(|(_, f)| *f)
        .take(MAX_QUESTIONS)
        .collect();
    let room = MAX_QUESTIONS - closing.len();
    fresh
        .iter()
        .filter(|(_, f)| !f.closing)
        .map(|(_, f)| *f)
        .take(room)
        .chain(closing)
        .map(Finding::to_question)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_fit_the_receipt_limits() {
        let long = "x".repeat(500);
        let f = Finding::new("t", 42, format!("{long}\n{long}"));
        assert!(f.question.chars().count() <= MAX_QUESTION_TEXT_CHARS);
        assert!(!f.question.contains('\n'));
        assert_eq!(f.severity, 10);
    }
}
