//! The checks of a `done` receipt: its title, summary and entries, and every entry's sources
//! against the repository and the answers (see `docs/receipt.md`).

use super::*;

impl<'a> Checker<'_, 'a> {
    pub(super) fn done(&mut self, fields: &Fields<'_>) -> Option<Done> {
        let title = self.required(fields, "title").and_then(|v| {
            self.text(
                v,
                &fields.at("title"),
                &TextRule {
                    max_chars: MAX_TITLE_CHARS,
                    allow_empty: false,
                    one_line: true,
                },
            )
        });
        let summary = match fields.get_present("summary") {
            None => Some(String::new()),
            Some(v) => self.text(
                v,
                &fields.at("summary"),
                &TextRule {
                    max_chars: MAX_SUMMARY_CHARS,
                    allow_empty: true,
                    one_line: false,
                },
            ),
        };
        let entries = self.entries(fields);
        Some(Done {
            title: title?,
            summary: summary?,
            entries: entries?,
        })
    }

    fn entries(&mut self, fields: &Fields<'_>) -> Option<Vec<Entry>> {
        let path = fields.at("entries");
        let items = self.required(fields, "entries")?;
        let items = self.array(items, &path)?;
        if items.is_empty() || items.len() > MAX_ENTRIES {
            self.fail(
                &path,
                format!("{} entries; give 1 to {MAX_ENTRIES}", items.len()),
            );
        }
        let mut entries = Vec::new();
        for (i, item) in items.iter().enumerate() {
            if let Some(entry) = self.entry(item, &path.index(i)) {
                entries.push(entry);
            }
        }
        (entries.len() == items.len()).then_some(entries)
    }

    fn entry(&mut self, value: &Json, path: &JsonPath) -> Option<Entry> {
        let fields = self.object(value, path, &["title", "content", "clarity", "sources"])?;
        let title = self.required(&fields, "title").and_then(|v| {
            self.text(
                v,
                &fields.at("title"),
                &TextRule {
                    max_chars: MAX_ENTRY_TITLE_CHARS,
                    allow_empty: false,
                    one_line: true,
                },
            )
        });
        let content = self.required(&fields, "content").and_then(|v| {
            self.text(
                v,
                &fields.at("content"),
                &TextRule {
                    max_chars: MAX_CONTENT_CHARS,
                    allow_empty: true,
                    one_line: false,
                },
            )
        });
        let clarity = self.clarity(&fields);
        let sources = match fields.get_present("sources") {
            None => Some(Vec::new()),
            Some(v) => self.sources(v, &fields.at("sources"), clarity),
        };
        Some(Entry {
            title: title?,
            content: content?,
            clarity: clarity?,
            sources: sources?,
        })
    }

    fn clarity(&mut self, fields: &Fields<'_>) -> Option<Clarity> {
        let path = fields.at("clarity");
        let value = self.required(fields, "clarity")?;
        let text = self.string(value, &path)?;
        let all = [
            Clarity::Confirmed,
            Clarity::Inferred,
            Clarity::DeclaredByUser,
            Clarity::OpenQuestion,
        ];
        let found = all.into_iter().find(|c| c.as_str() == text);
        if found.is_none() {
            self.fail(
                &path,
                format!(
                    "{} is not a clarity; expected one of confirmed, inferred, declared-by-user, open-question",
                    quoted(text)
                ),
            );
        }
        found
    }

    /// The sources of one entry: every `qa:`, `commit:` and `path:line` source must hold, and a
    /// `confirmed` or `declared-by-user` entry needs at least one of its kind of evidence.
    fn sources(
        &mut self,
        value: &Json,
        path: &JsonPath,
        clarity: Option<Clarity>,
    ) -> Option<Vec<String>> {
        let items = self.array(value, path)?;
        if items.len() > MAX_SOURCES {
            self.fail(
                path,
                format!("{} sources; give at most {MAX_SOURCES}", items.len()),
            );
        }
        let mut sources = Vec::new();
        let mut evidence = Evidence::default();
        for (i, item) in items.iter().enumerate() {
            let at = path.index(i);
            let Some(source) = self.source_text(item, &at) else {
                continue;
            };
            match self.source_verdict(source, &mut evidence) {
                Ok(()) => sources.push(source.to_string()),
                Err(message) => self.fail(&at, message),
            }
        }
        self.require_evidence(path, clarity, &evidence);
        (sources.len() == items.len()).then_some(sources)
    }

    /// One source as text: a clean identifier, not empty, not over [`MAX_SOURCE_CHARS`].
    fn source_text<'j>(&mut self, item: &'j Json, at: &JsonPath) -> Option<&'j str> {
        let source = self.clean_identifier(item, at)?;
        let chars = source.chars().count();
        if source.trim().is_empty() {
            self.fail(at, "must not be empty");
            return None;
        }
        if chars > MAX_SOURCE_CHARS {
            self.fail(
                at,
                format!("{chars} characters, over the limit of {MAX_SOURCE_CHARS}"),
            );
            return None;
        }
        Some(source)
    }

    /// Whether one source holds, counted in `evidence` by its kind.
    fn source_verdict(&mut self, source: &str, evidence: &mut Evidence) -> Result<(), String> {
        match Source::classify(source) {
            Source::Qa(topic) => {
                evidence.qa_attempted = true;
                let v = self.qa_source(topic);
                evidence.qa += usize::from(v.is_ok());
                v
            }
            Source::Commit(hex) => {
                evidence.repo_attempted = true;
                let v = self.commit_source(hex);
                evidence.repo += usize::from(v.is_ok());
                v
            }
            // The work item's own lines are valid sources but no evidence of what it says.
            Source::FileLine(file, line) if self.ctx.work_item == Some(file) => {
                evidence.item_cited = true;
                self.file_source(file, line)
            }
            Source::FileLine(file, line) => {
                evidence.repo_attempted = true;
                let v = self.file_source(file, line);
                evidence.repo += usize::from(v.is_ok());
                v
            }
            Source::Other => Ok(()),
        }
    }

    /// A `confirmed` entry needs evidence in the repository, a `declared-by-user` one an answer
    /// (a failed attempt at either was reported itself).
    fn require_evidence(&mut self, path: &JsonPath, clarity: Option<Clarity>, evidence: &Evidence) {
        let Evidence {
            repo,
            repo_attempted,
            qa,
            qa_attempted,
            item_cited,
        } = *evidence;
        match clarity {
            Some(Clarity::Confirmed) if repo == 0 && !repo_attempted && item_cited => self.fail(
                path,
                "a confirmed entry cites only the work item, but what the item states is not \
                 confirmed by saying it: cite the code or commit that shows it, or make the \
                 entry `inferred`",
            ),
            Some(Clarity::Confirmed) if repo == 0 && !repo_attempted => self.fail(
                path,
                "a confirmed entry needs at least one source that is `path:line` of a file in \
                 the repository or `commit:<hex>`",
            ),
            Some(Clarity::DeclaredByUser) if qa == 0 && !qa_attempted => self.fail(
                path,
                "a declared-by-user entry needs at least one `qa:<topic>` source naming a \
                 question the person answered",
            ),
            _ => {}
        }
    }

    fn qa_source(&mut self, topic: &str) -> Result<(), String> {
        if self.ctx.answered_topics.contains(topic) {
            Ok(())
        } else if self.ctx.asked_topics.contains(topic) {
            Err(format!(
                "the person did not answer {}; cite only answered questions",
                quoted(topic)
            ))
        } else {
            Err(format!(
                "no question with topic {} was answered",
                quoted(topic)
            ))
        }
    }

    fn commit_source(&mut self, hex: &str) -> Result<(), String> {
        let hex_ok = (MIN_COMMIT_HEX..=MAX_COMMIT_HEX).contains(&hex.len())
            && hex.chars().all(|c| c.is_ascii_hexdigit());
        if !hex_ok {
            return Err(format!(
                "{} is not a commit id; write commit:<{MIN_COMMIT_HEX} to {MAX_COMMIT_HEX} hex digits>",
                quoted(hex)
            ));
        }
        self.evidence.commit(&hex.to_ascii_lowercase())
    }

    fn file_source(&mut self, file: &str, line: &str) -> Result<(), String> {
        check_relative_path(file)?;
        let line: u64 = match line.parse() {
            Ok(0) => return Err("line numbers start at 1".into()),
            Ok(n) => n,
            Err(_) => return Err(format!("line number {} is too large", quoted(line))),
        };
        self.evidence.file_line(file, line)
    }
}

/// What a source string cites.
enum Source<'s> {
    Qa(&'s str),
    Commit(&'s str),
    FileLine(&'s str, &'s str),
    /// Anything else (a URL, a document name): kept as given, not checked.
    Other,
}

impl<'s> Source<'s> {
    fn classify(source: &'s str) -> Source<'s> {
        if let Some(topic) = source.strip_prefix("qa:") {
            return Source::Qa(topic);
        }
        if let Some(hex) = source.strip_prefix("commit:") {
            return Source::Commit(hex);
        }
        match source.rsplit_once(':') {
            Some((file, line))
                if !line.is_empty()
                    && line.chars().all(|c| c.is_ascii_digit())
                    && !source.contains("://") =>
            {
                Source::FileLine(file, line)
            }
            _ => Source::Other,
        }
    }
}

/// The evidence an entry's sources gave: how many held of each kind, and whether any was
/// attempted.
#[derive(Debug, Default, Clone, Copy)]
struct Evidence {
    /// `path:line` or `commit:` sources that held.
    repo: usize,
    repo_attempted: bool,
    /// `qa:` sources that held.
    qa: usize,
    qa_attempted: bool,
    /// The work item's own lines were cited.
    item_cited: bool,
}
