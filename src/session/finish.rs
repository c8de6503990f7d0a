//! The end of a session: synthesis, the consent gate, overwrite protection, writing the document
//! to the shared tier, and `--clarify-into`.

use std::path::{Path, PathBuf};

use super::state::{Status, Writing};
use super::transcript::TranscriptEvent;
use super::{Finished, Session, SubStep, tier};
use crate::ask::{Decision, DecisionId};
use crate::document;
use crate::error::{Error, Result};
use crate::receipt::{self, Done};

impl Session<'_> {
    /// Synthesis, consent and writing the document.
    pub(super) fn finish(&mut self, mut done: Done) -> Result<Finished> {
        self.set_step(SubStep::Synthesis)?;
        let unanswered = self.unanswered_questions();
        document::add_uncovered_skips(&mut done, &unanswered);
        let text = document::render_subject(&done, &self.subject);
        self.set_step(SubStep::Consent)?;
        let written = match &self.settings.out {
            Some(p) if p.as_os_str() == "-" => {
                self.print_document(&text)?;
                None
            }
            other => {
                let rel = other.clone().unwrap_or_else(|| {
                    PathBuf::from(document::default_out_path(
                        self.subject.kind,
                        self.subject.document_name(),
                    ))
                });
                let path = if rel.is_absolute() {
                    rel
                } else {
                    self.repo.worktree.join(rel)
                };
                self.write_with_consent(&path, &text)?
            }
        };
        if let Some(spec) = self.settings.clarify_into.clone() {
            self.clarify_into(&spec)?;
        }
        let skipped_round = self
            .state
            .rounds
            .iter()
            .any(|r| r.gate_skipped || r.skipped_all);
        if let Some(notice) = document::open_questions_notice(&done, skipped_round) {
            self.person.say(notice.trim_end());
        }
        let document = written.as_ref().map(|p| self.shown(p));
        self.record(|s| {
            s.status = Status::Done;
            s.document = document;
            s.writing = None;
            s.note("the interview finished", "nothing: the document is written");
        })?;
        self.transcript.record(&TranscriptEvent::Done {
            document: self.state.document.as_deref(),
        })?;
        Ok(Finished { document: written })
    }

    /// Print the document to standard output; a reader that went away leaves the session
    /// aborted at the consent step, to print it again on resume.
    fn print_document(&mut self, text: &str) -> Result<()> {
        match crate::output::stdout(text) {
            Err(Error::ClosedOutput) => {
                let turn = self.state.turn;
                let _ = self.abort(
                    "standard output closed before the document was printed",
                    turn,
                );
                Err(Error::ClosedOutput)
            }
            other => other,
        }
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

    /// The consent gate, then overwrite protection, then an atomic write. `None`: not written.
    fn write_with_consent(&mut self, path: &Path, text: &str) -> Result<Option<PathBuf>> {
        let shown = self.shown(path);
        if !self.settings.yes {
            let consent = Decision {
                id: DecisionId::Consent,
                context: format!("write the document to {shown}?"),
                // D was added after A–C, so recorded letters keep their meaning.
                options: vec![
                    format!("Write the document to {shown}"),
                    "Print it here instead and write nothing".into(),
                    "Stop without writing anything".into(),
                    "Show the document here first, then decide".into(),
                ],
                recommended: 0,
                reason: "the document is meant to be reviewed and committed with the work".into(),
            };
            loop {
                match self.decide(&consent)? {
                    0 => break,
                    1 => {
                        self.print_document(text)?;
                        self.person.say(&format!(
                            "Printed the document above; nothing was written to {shown}."
                        ));
                        return Ok(None);
                    }
                    2 => {
                        self.person.say(&format!(
                            "Stopped without writing anything: {shown} was not written."
                        ));
                        return Ok(None);
                    }
                    _ if self.person.replayed() => {
                        return Err(Error::Usage(
                            "the answers file's `decisions.consent` is \"D\" (show the document first), which needs a person to read it; record A, B or C".into(),
                        ));
                    }
                    _ => {
                        self.print_document(text)?;
                        self.person.say("(end of the document)");
                    }
                }
            }
        }
        let mut target = self.through_link(path)?;
        let ours = self.own_document(&target, text);
        if target.exists() && !ours {
            let beside = beside_path(&target);
            let choice = self.decide(&Decision {
                id: DecisionId::Overwrite,
                context: format!("{shown} already exists"),
                options: vec![
                    format!("Overwrite {shown}"),
                    format!("Write beside it, as {}", self.shown(&beside)),
                    "Stop without writing".into(),
                ],
                recommended: 1,
                reason: "nothing already written is lost".into(),
            })?;
            match choice {
                0 => {}
                1 => target = beside,
                _ => {
                    self.person.say(&format!(
                        "Stopped without writing: {shown} was left as it was."
                    ));
                    return Ok(None);
                }
            }
        }
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| Error::io(format!("cannot create {}", parent.display()), e))?;
        }
        let writing = Writing {
            path: target.display().to_string(),
            sha256: sha256_hex(text.as_bytes()),
        };
        self.record(|s| s.writing = Some(writing))?;
        self.write_shared(&target, text.as_bytes())?;
        let shown = self.shown(&target);
        self.person.say(&format!("Wrote {shown}"));
        Ok(Some(target))
    }

    /// A file outside the tier, written with its temporary file inside the tier.
    fn write_shared(&self, path: &Path, bytes: &[u8]) -> Result<()> {
        let tmp = self.tier.root.join(tier::TMP_DIR);
        let _ = std::fs::create_dir_all(&tmp);
        tier::write_shared(path, bytes, Some(&tmp))
    }

    /// The file a path names: a symbolic link is followed to its target, which must be inside
    /// the worktree (and outside `.git`); otherwise nothing is written there.
    fn through_link(&self, path: &Path) -> Result<PathBuf> {
        let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
        if !is_link {
            return Ok(path.to_path_buf());
        }
        let refuse = |why: &str| {
            Error::Other(format!(
                "{} is a symbolic link {why}; nothing was written there",
                self.shown(path)
            ))
        };
        let target = std::fs::canonicalize(path).map_err(|_| refuse("to nothing"))?;
        let inside = target.strip_prefix(&self.repo.worktree).ok();
        match inside {
            Some(rel) if !rel.starts_with(".git") && !rel.as_os_str().is_empty() => Ok(target),
            _ => Err(refuse("out of the repository")),
        }
    }

    /// The file at `target` is this document already, or the session's own earlier write of
    /// it (a run killed after writing): no need to ask about overwriting it.
    fn own_document(&self, target: &Path, text: &str) -> bool {
        let Ok(existing) = std::fs::read(target) else {
            return false;
        };
        if existing == text.as_bytes() {
            return true;
        }
        self.state
            .writing
            .as_ref()
            .is_some_and(|w| Path::new(&w.path) == target && w.sha256 == sha256_hex(&existing))
    }

    /// `--clarify-into FILE`: append the answered questions as spec-kit clarifications.
    fn clarify_into(&mut self, spec: &Path) -> Result<()> {
        let path = if spec.is_absolute() {
            spec.to_path_buf()
        } else {
            self.repo.worktree.join(spec)
        };
        let existing = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(Error::io(format!("cannot read {}", path.display()), e)),
        };
        let qa: Vec<(String, String)> = self
            .state
            .rounds
            .iter()
            .flat_map(|r| {
                r.questions.iter().filter_map(|q| {
                    r.answers
                        .iter()
                        .find(|a| a.question_id == q.topic && !a.skipped)
                        // What the person typed is shown and written only sanitised.
                        .map(|a| {
                            (
                                q.question_text.clone(),
                                receipt::sanitize_line(&a.answer_text).0,
                            )
                        })
                })
            })
            .collect();
        if qa.is_empty() {
            self.person.say(&format!(
                "No answered questions to add to {}.",
                self.shown(&path)
            ));
            return Ok(());
        }
        let updated = document::clarifications_section(&existing, &today(), &qa);
        let path = self.through_link(&path)?;
        self.write_shared(&path, updated.as_bytes())?;
        self.person.say(&format!(
            "Added {} clarification(s) to {}",
            qa.len(),
            self.shown(&path)
        ));
        Ok(())
    }
}

/// `name-2.md` beside `name.md` (or the first free `name-N.md`).
fn beside_path(path: &Path) -> PathBuf {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let ext = path
        .extension()
        .map(|e| format!(".{}", e.to_string_lossy()))
        .unwrap_or_default();
    let mut n = 2;
    loop {
        let candidate = path.with_file_name(format!("{stem}-{n}{ext}"));
        if !candidate.exists() {
            return candidate;
        }
        n += 1;
    }
}

/// Today's date (UTC), or the date of `SOURCE_DATE_EPOCH` when set, as `YYYY-MM-DD`.
pub fn today() -> String {
    let ts = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|v| v.trim().parse::<i64>().ok())
        .and_then(|secs| jiff::Timestamp::from_second(secs).ok())
        .unwrap_or_else(jiff::Timestamp::now);
    ts.strftime("%Y-%m-%d").to_string()
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
