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
use crate::receipt::{Ask, Question, QuestionOption, Receipt};
use crate::subject::Kind;

mod document;
mod intent;
mod reflect;
mod reflect_entries;
mod text;

use text::one_line;

/// `brief.json` larger than this is refused (the built-in interviewer's own bound on what it
/// reads; the session writes far less).
const MAX_CONTEXT_BYTES: u64 = 32 * 1024 * 1024;

/// `interview runner builtin`: read `$INTERVIEW_CONTEXT`, write the receipt to
/// `$INTERVIEW_RECEIPT`, exit 0. The worktree is the current directory.
pub fn run() -> Result<i32> {
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
    })?;
    Ok(0)
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
        return Err(Error::Other(format!(
            "the brief context {shown} is larger than 32 MiB"
        )));
    }
    serde_json::from_slice(&bytes).map_err(|e| {
        Error::Other(format!(
            "the brief context {shown} is not a valid brief.json: {e}"
        ))
    })
}

/// The receipt as written: the wire format of `docs/receipt.md`, with its `version`, keys sorted.
pub fn receipt_json(receipt: &Receipt) -> Result<String> {
    let mut value = serde_json::to_value(receipt)
        .map_err(|e| Error::Other(format!("cannot serialise the receipt: {e}")))?;
    if let Some(object) = value.as_object_mut() {
        object.insert("version".into(), VERSION.into());
    }
    let mut text = serde_json::to_string_pretty(&value)
        .map_err(|e| Error::Other(format!("cannot serialise the receipt: {e}")))?;
    text.push('\n');
    Ok(text)
}

/// The whole decision of one turn: a pure function of the brief and the worktree's files.
pub fn decide(ctx: &BriefContext, worktree: &Path) -> Receipt {
    let findings = match ctx.kind {
        Kind::Reflect => reflect::findings(&reflect::facts(ctx)),
        Kind::Intent => intent::findings(&intent::facts(ctx)),
    };
    let asked: Vec<&str> = ctx
        .rounds
        .iter()
        .flat_map(|r| r.questions.iter().map(|q| q.topic.as_str()))
        .collect();
    let may_ask = !ctx.final_turn && ctx.rounds.is_empty() && ctx.previous_failure.is_none();
    if may_ask {
        let questions = rank(&findings, &asked);
        if !questions.is_empty() {
            return Receipt::Ask(Ask { questions });
        }
    }
    Receipt::Done(document::synthesise(ctx, &findings, worktree))
}

/// One thing worth asking about, with its severity.
#[derive(Debug, Clone)]
struct Finding {
    topic: String,
    severity: u8,
    question: String,
    options: Vec<(&'static str, &'static str)>,
    /// A closing question: always asked, after the others of its round.
    closing: bool,
}

impl Finding {
    fn new(topic: impl Into<String>, severity: u8, question: impl Into<String>) -> Finding {
        Finding {
            topic: topic.into(),
            severity: severity.clamp(1, 10),
            question: one_line(&question.into(), MAX_QUESTION_TEXT_CHARS),
            options: Vec::new(),
            closing: false,
        }
    }

    /// Mark as a closing question: it keeps a place at the end of the round.
    fn closing(mut self) -> Finding {
        self.closing = true;
        self
    }

    fn options(mut self, options: &[(&'static str, &'static str)]) -> Finding {
        self.options = options.to_vec();
        self
    }

    fn to_question(&self) -> Question {
        Question {
            topic: self.topic.clone(),
            question_text: self.question.clone(),
            severity: self.severity,
            options: (self.options.len() >= 2).then(|| {
                self.options
                    .iter()
                    .map(|(label, value)| QuestionOption {
                        label: label.to_string(),
                        value: value.to_string(),
                    })
                    .collect()
            }),
            recommended: None,
        }
    }
}

/// The most severe findings not asked before, at most five; ties keep the order of discovery.
/// Closing questions keep their places at the end of the round.
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
