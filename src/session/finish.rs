//! The end of a session: synthesis, the consent gate, overwrite protection, writing the document
//! to the shared tier, and `--clarify-into`.

use std::path::{Path, PathBuf};

use super::state::{Status, Writing};
use super::synthesis::Synthesis;
use super::transcript::TranscriptEvent;
use super::{Session, SubStep, tier};
use crate::ask::{Decision, DecisionId, Options};
use crate::document::{self, Delivery};
use crate::error::{Error, Result};
use crate::own_writes::{Beneath, Mode, Place};
use crate::receipt::{self, Done};
use cap_std::fs::Dir;

/// The consent gate's options, in their letters' order: D (show first) was added after A–C,
/// so recorded letters keep their meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Consent {
    Write,
    Print,
    Stop,
    ShowFirst,
}

impl Options for Consent {
    const ALL: &'static [Consent] = &[
        Consent::Write,
        Consent::Print,
        Consent::Stop,
        Consent::ShowFirst,
    ];
}

/// What to do when the document's path already holds another file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Overwrite {
    Replace,
    Beside,
    Stop,
}

impl Options for Overwrite {
    const ALL: &'static [Overwrite] = &[Overwrite::Replace, Overwrite::Beside, Overwrite::Stop];
}

impl Session<'_> {
    /// Synthesis, consent and writing the document.
    pub(super) fn finish(&mut self, mut done: Done) -> Result<()> {
        self.set_step(SubStep::Synthesis)?;
        let (text, unanswered) = self.synthesis().document(&mut done);
        self.set_step(SubStep::Consent)?;
        let delivery = match &self.settings.out {
            Some(p) if p.as_os_str() == "-" => {
                self.print_document(&text)?;
                Delivery::Printed
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
        super::test_hook::pause_at("written", self.state.turn);
        let answered = self
            .state
            .rounds
            .iter()
            .any(|r| r.answers.iter().any(|a| !a.skipped));
        let notice = document::open_questions_notice(&done, unanswered.len(), answered, &delivery);
        let written = match delivery {
            Delivery::Written(path) => Some(path),
            Delivery::Printed | Delivery::NotWritten => None,
        };
        self.conclude(written, notice)
    }

    /// The session's end as the synthesis reads it: the rounds, the subject, where the document
    /// goes.
    fn synthesis(&self) -> Synthesis<'_> {
        Synthesis {
            state: &self.state,
            subject: &self.subject,
            out: self.document_path(),
            worktree: &self.repo.worktree,
        }
    }

    /// The document this session wrote before a kill ended the run (its file holds what the
    /// state recorded before the write): nothing is left but to mark the session done.
    pub(super) fn document_written(&self) -> Option<PathBuf> {
        let w = self.state.writing.as_ref()?;
        holds(Path::new(&w.path), &w.sha256).then(|| PathBuf::from(&w.path))
    }

    /// Finish a session whose document a killed run already wrote: no turn is run again, no
    /// consent or overwrite decision is asked, the document stays as it was written.
    pub(super) fn finish_written(&mut self, path: PathBuf) -> Result<()> {
        self.person.say(&format!(
            "The document was written before the interruption: {}",
            self.shown(&path)
        ));
        self.conclude(Some(path), None)
    }

    /// After the document: `--clarify-into` (unless a killed run already did it), the notice
    /// about open questions, and the session marked done.
    fn conclude(&mut self, written: Option<PathBuf>, notice: Option<String>) -> Result<()> {
        if let Some(spec) = self.settings.clarify_into.clone() {
            let clarified = self
                .state
                .clarifying
                .as_ref()
                .is_some_and(|w| holds(Path::new(&w.path), &w.sha256));
            if !clarified {
                self.clarify_into(&spec)?;
            }
        }
        if let Some(notice) = notice {
            self.person.say(notice.trim_end());
        }
        if let Some(path) = written.as_ref().filter(|_| !self.person.replayed()) {
            let next = self.synthesis().next_steps(path);
            self.person.say(&next);
        }
        super::test_hook::pause_at("concluded", self.state.turn);
        let document = written.as_ref().map(|p| self.shown(p));
        self.record(|s| {
            s.status = Status::Done;
            s.document = document;
            s.writing = None;
            s.clarifying = None;
            match &s.document {
                Some(_) => s.note("the interview finished", "nothing: the document is written"),
                None => s.note(
                    "the interview finished; its document was shown, not written",
                    "nothing: another run with --out PATH writes it to a file",
                ),
            }
        })?;
        self.transcript.record(&TranscriptEvent::Done {
            document: self.state.document.as_deref(),
        })?;
        Ok(())
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

    /// The consent gate, then overwrite protection, then an atomic write.
    fn write_with_consent(&mut self, path: &Path, text: &str) -> Result<Delivery> {
        let shown = self.shown(path);
        if !self.settings.yes {
            let consent = Decision {
                id: DecisionId::Consent,
                context: format!("write the document to {shown}?"),
                options: Consent::ALL
                    .iter()
                    .map(|o| match o {
                        Consent::Write => format!("Write the document to {shown}"),
                        Consent::Print => "Print it here instead and write nothing".into(),
                        Consent::Stop => "Stop without writing anything".into(),
                        Consent::ShowFirst => "Show the document here first, then decide".into(),
                    })
                    .collect(),
                recommended: Consent::Write.index(),
                reason: "the document is meant to be reviewed and committed with the work".into(),
            };
            loop {
                match self.decide(&consent)? {
                    Consent::Write => break,
                    Consent::Print => {
                        self.print_document(text)?;
                        self.person.say(&format!(
                            "Printed the document above; nothing was written to {shown}."
                        ));
                        return Ok(Delivery::Printed);
                    }
                    Consent::Stop => {
                        self.person.say(&format!(
                            "Stopped without writing anything: {shown} was not written."
                        ));
                        return Ok(Delivery::NotWritten);
                    }
                    Consent::ShowFirst if self.person.replayed() => {
                        return Err(Error::Usage(
                            "the answers file's `decisions.consent` is \"D\" (show the document first), which needs a person to read it; record A, B or C".into(),
                        ));
                    }
                    Consent::ShowFirst => {
                        self.print_document(text)?;
                        self.person.say("(end of the document)");
                    }
                }
            }
        }
        let mut target = self.place(path)?;
        let ours = self.own_document(&target, text);
        if target.exists() && !ours {
            let beside = beside_path(&target.path);
            let choice = self.decide(&Decision {
                id: DecisionId::Overwrite,
                context: format!("{shown} already exists"),
                options: Overwrite::ALL
                    .iter()
                    .map(|o| match o {
                        Overwrite::Replace => format!("Overwrite {shown}"),
                        Overwrite::Beside => format!("Write beside it, as {}", self.shown(&beside)),
                        Overwrite::Stop => "Stop without writing".into(),
                    })
                    .collect(),
                recommended: Overwrite::Beside.index(),
                reason: "nothing already written is lost".into(),
            })?;
            match choice {
                Overwrite::Replace => {}
                Overwrite::Beside => target = self.place(&beside)?,
                Overwrite::Stop => {
                    self.person.say(&format!(
                        "Stopped without writing: {shown} was left as it was."
                    ));
                    return Ok(Delivery::NotWritten);
                }
            }
        }
        self.write_recorded(&target, text.as_bytes(), Written::Document)?;
        let shown = self.shown(&target.path);
        self.person.say(&format!("Wrote {shown}"));
        Ok(Delivery::Written(target.path))
    }

    /// Where a document or clarification goes, through the one door of the tool's writes
    /// ([`crate::own_writes`]): its directories made, never through a link, never in a git
    /// directory.
    fn place(&self, path: &Path) -> Result<Place> {
        Beneath::new(&self.repo.worktree, &self.repo.common_dir)
            .place(path, true)
            .map_err(|why| self.not_written(path, &why.to_string()))
    }

    /// A write that failed at the end: the answers are kept, and the person is told how to
    /// finish somewhere else.
    fn not_written(&self, path: &Path, why: &str) -> Error {
        let id = &self.state.session;
        Error::DocumentNotWritten {
            path: self.shown(path),
            why: why.into(),
            session: id.clone(),
        }
    }

    /// A file outside the tier, written through a temporary file whose name, with the path and
    /// hash of what is written, the state records first: in the tier's `tmp/` (beside the file
    /// only when that is another file system), so a kill leaves nothing in a committed folder
    /// that a resume does not remove, and a resume knows the written file as its own.
    fn write_recorded(&mut self, place: &Place, bytes: &[u8], what: Written) -> Result<()> {
        let path = &place.path;
        let name = temp_name(&self.state.session, what);
        let tier_tmp = self.tier.root.join(tier::TMP_DIR);
        let tmp_dir = Dir::open_ambient_dir(&tier_tmp, cap_std::ambient_authority())
            .ok()
            .filter(|d| place.same_filesystem(d));
        let tmp = match &tmp_dir {
            Some(_) => tier_tmp.join(&name),
            None => path.with_file_name(&name),
        };
        let writing = Writing {
            path: path.display().to_string(),
            sha256: sha256_hex(bytes),
            tmp: Some(tmp.display().to_string()),
        };
        self.record(|s| match what {
            Written::Document => s.writing = Some(writing),
            Written::Clarifications => s.clarifying = Some(writing),
        })?;
        let turn = self.state.turn;
        place
            .write(
                bytes,
                Mode::Document,
                (tmp_dir.as_ref(), Some(&name)),
                || super::test_hook::pause_at("renaming", turn),
            )
            .map_err(|e| self.not_written(path, &e.to_string()))
    }

    /// Remove the temporary files a killed write of this session left (their names are in the
    /// state; a file of any other name is never touched, whatever the state says).
    pub(super) fn remove_killed_writes(&self) {
        let recorded = [
            (self.state.writing.as_ref(), Written::Document),
            (self.state.clarifying.as_ref(), Written::Clarifications),
        ];
        for (writing, what) in recorded {
            let Some(tmp) = writing.and_then(|w| w.tmp.as_deref()).map(Path::new) else {
                continue;
            };
            let ours = tmp
                .file_name()
                .is_some_and(|n| n.to_string_lossy() == temp_name(&self.state.session, what));
            if ours && std::fs::symlink_metadata(tmp).is_ok_and(|m| !m.is_dir()) {
                let _ = std::fs::remove_file(tmp);
            }
        }
    }

    /// The file at `target` is this document already, or the session's own earlier write of
    /// it (a run killed after writing): no need to ask about overwriting it.
    fn own_document(&self, target: &Place, text: &str) -> bool {
        // Only a regular file (a FIFO there never blocks; it is not ours either).
        let Ok(Some(existing)) = target.read(DOCUMENT_CAP) else {
            return false;
        };
        if existing == text.as_bytes() {
            return true;
        }
        self.state
            .writing
            .as_ref()
            .is_some_and(|w| Path::new(&w.path) == target.path && w.sha256 == sha256_hex(&existing))
    }

    /// `--clarify-into FILE`: append the answered questions as spec-kit clarifications.
    fn clarify_into(&mut self, spec: &Path) -> Result<()> {
        let path = if spec.is_absolute() {
            spec.to_path_buf()
        } else {
            self.repo.worktree.join(spec)
        };
        let place = self.place(&path)?;
        let existing = match place.read(DOCUMENT_CAP) {
            Ok(None) => String::new(),
            Ok(Some(bytes)) => String::from_utf8(bytes).map_err(|_| Error::ClarifyNotText {
                path: self.shown(&path),
            })?,
            Err(source) => {
                return Err(Error::ClarifyUnreadable {
                    path: self.shown(&path),
                    source,
                });
            }
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
        self.write_recorded(&place, updated.as_bytes(), Written::Clarifications)?;
        self.person.say(&format!(
            "Added {} clarification(s) to {}",
            qa.len(),
            self.shown(&path)
        ));
        Ok(())
    }
}

/// Which of a session's writes outside the tier.
#[derive(Debug, Clone, Copy)]
enum Written {
    Document,
    Clarifications,
}

/// The temporary file of one of a session's writes: `.tmp-<session>-document`.
fn temp_name(session: &str, what: Written) -> String {
    let what = match what {
        Written::Document => "document",
        Written::Clarifications => "clarifications",
    };
    format!(".tmp-{session}-{what}")
}

/// The most of a document (or a `--clarify-into` file) read back.
const DOCUMENT_CAP: u64 = 64 * 1024 * 1024;

/// Whether the regular file at `path` (not a link) holds exactly what hashes to `sha256`.
fn holds(path: &Path, sha256: &str) -> bool {
    crate::input::read_regular(path, DOCUMENT_CAP, crate::input::Links::Refuse)
        .is_ok_and(|bytes| sha256_hex(&bytes) == sha256)
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
        if std::fs::symlink_metadata(&candidate).is_err() {
            return candidate;
        }
        n += 1;
    }
}

/// Today's date (UTC), or the date of `SOURCE_DATE_EPOCH` when set, as `YYYY-MM-DD`.
pub(super) fn today() -> String {
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
