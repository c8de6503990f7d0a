//! What a session's end makes of the final receipt: the document's text — every answer in the
//! person's words whatever the runner wrote, each skipped question said, no entry that only
//! points into the document it replaces — and, once it is written, what to do next. It reads
//! only the rounds, the subject and where the document goes; asking for consent, writing and
//! recording stay with the session (`finish.rs`).

use std::path::{Path, PathBuf};

use super::state::State;
use crate::document;
use crate::receipt::{self, Done};
use crate::subject::Subject;

/// The session's end as the synthesis reads it.
pub(super) struct Synthesis<'s> {
    pub(super) state: &'s State,
    pub(super) subject: &'s Subject,
    /// Where the document goes (relative to the worktree when given so); `None`: printed.
    pub(super) out: Option<PathBuf>,
    pub(super) worktree: &'s Path,
}

impl Synthesis<'_> {
    /// The document's text from the final receipt (`done`, completed here), and the questions
    /// asked and not answered: `(topic, question)`.
    pub(super) fn document(&self, done: &mut Done) -> (String, Vec<(String, String)>) {
        let unanswered = self.unanswered_questions();
        document::add_uncovered_skips(done, &unanswered);
        // Every answer in the person's words, whatever the runner wrote; no entry that only
        // points into the document this one replaces.
        if let Some(replaced) = &self.out {
            document::drop_citations_of(done, &replaced.to_string_lossy());
        }
        document::drop_citations_of(
            done,
            &document::default_out_path(self.subject.kind, self.subject.document_name()),
        );
        document::add_unquoted_answers(done, &self.given_answers());
        (document::render_subject(done, self.subject), unanswered)
    }

    /// What to do with a document just written: commit it, and record the answers so that CI
    /// can replay the interview (docs/ci.md).
    pub(super) fn next_steps(&self, written: &Path) -> String {
        let shown = written
            .strip_prefix(self.worktree)
            .unwrap_or(written)
            .display();
        let subject = format!("{} {}", self.subject.kind.as_str(), self.subject.id);
        let answers = format!(
            "ci/answers/{}-{}.json",
            self.subject.kind.as_str(),
            self.subject.document_name()
        );
        let mut line = format!(
            "Next: commit it (`git add {shown} && git commit`), and record your answers for CI to \
             replay: `interview answers {subject} -o {answers}` (docs/ci.md)"
        );
        // `--from` a file outside the repository: a clean checkout in CI has no such file, so its
        // replay could never read the same item. Say where to put it.
        let facts = &self.subject.facts;
        if facts["tracker"] == "from" && facts["path"].is_null() {
            let id = &self.subject.id;
            line.push_str(&format!(
                ". The work item ({}) is outside the repository, where CI cannot read it: copy it \
                 to docs/intents/{id}.md and commit it too (CI's replay then finds it without \
                 --from)",
                facts["source"].as_str().unwrap_or("its file")
            ));
        }
        crate::receipt::sanitize_line(&line).0
    }

    /// Every answer of the session, in the order asked (a carried answer is one of them: it
    /// answered a question of this interview).
    fn given_answers(&self) -> Vec<document::GivenAnswer> {
        self.state
            .answered()
            .into_iter()
            .map(|(q, a)| {
                let recorded = receipt::sanitize_line(&a.answer_text).0;
                document::GivenAnswer {
                    topic: q.topic.clone(),
                    question: q.question_text.clone(),
                    shown: super::carried::shown_answer(q, &recorded),
                    recorded,
                }
            })
            .collect()
    }

    /// Questions asked and not answered (skipped, or never presented): `(topic, question)`.
    fn unanswered_questions(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for round in &self.state.rounds {
            for q in &round.questions {
                let answered = round
                    .answers
                    .iter()
                    .any(|a| a.question_id == q.topic && !a.skipped);
                if !answered {
                    out.push((q.topic.clone(), q.question_text.clone()));
                }
            }
        }
        out
    }
}
