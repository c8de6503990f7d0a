//! The receipt checks of `docs/receipt.md`: a walk over the parsed JSON that sanitises every string and
//! names each broken rule by its JSON path, then builds the checked [`Receipt`].

use std::collections::BTreeMap;

use super::json::{Json, JsonPath};
use super::sanitize::{quoted, sanitize, sanitize_line};
use super::sources::{Evidence, check_relative_path};
use super::{
    Ask, CheckContext, Clarity, Done, Entry, Question, QuestionOption, Receipt, ReceiptError,
    SanitizeReport, Violation, json,
};

pub use crate::protocol::limits::*;

/// `^[a-z][a-z0-9_]{0,63}$`, by hand.
pub fn is_topic(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && text.len() <= MAX_TOPIC_CHARS
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// Parse, sanitise and check a receipt. On success every string in it is sanitised and every
/// rule holds; the report counts what the sanitiser removed or marked.
pub fn parse_and_check(
    text: &str,
    ctx: &CheckContext<'_>,
) -> Result<(Receipt, SanitizeReport), ReceiptError> {
    // A byte-order mark is an editor's habit, not content.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let value = json::parse(text).map_err(|e| {
        let message = e.to_string();
        // serde_json appends the position; it is reported in its own fields.
        let reason = message
            .rfind(" at line ")
            .map_or(message.as_str(), |at| &message[..at]);
        ReceiptError::Json {
            line: e.line(),
            column: e.column(),
            reason: sanitize_line(reason).0,
        }
    })?;
    let mut checker = Checker {
        ctx,
        violations: Vec::new(),
        report: SanitizeReport::default(),
        evidence: Evidence::new(ctx.repo_root),
    };
    let receipt = checker.receipt(&value);
    match receipt {
        Some(receipt) if checker.violations.is_empty() => Ok((receipt, checker.report)),
        _ => Err(ReceiptError::Rejected(checker.violations)),
    }
}

/// The fields of one JSON object, after unknown and duplicate keys were reported.
struct Fields<'j> {
    path: JsonPath,
    fields: BTreeMap<&'j str, &'j Json>,
}

impl<'j> Fields<'j> {
    fn get(&self, name: &str) -> Option<&'j Json> {
        self.fields.get(name).copied()
    }

    /// The field, treating an explicit `null` as absent.
    fn get_present(&self, name: &str) -> Option<&'j Json> {
        self.get(name).filter(|v| !matches!(v, Json::Null))
    }

    fn at(&self, name: &str) -> JsonPath {
        self.path.key(name)
    }
}

/// Which text rules a string must meet.
struct TextRule {
    max_chars: usize,
    allow_empty: bool,
    one_line: bool,
}

const LINE_BREAKS: [char; 3] = ['\n', '\u{2028}', '\u{2029}'];

struct Checker<'c, 'a> {
    ctx: &'c CheckContext<'a>,
    violations: Vec<Violation>,
    report: SanitizeReport,
    evidence: Evidence<'a>,
}

impl<'c, 'a> Checker<'c, 'a> {
    fn fail(&mut self, path: &JsonPath, message: impl Into<String>) {
        self.violations.push(Violation {
            path: path.to_string(),
            message: message.into(),
        });
    }

    /// An object with only `allowed` keys, each at most once.
    fn object<'j>(
        &mut self,
        value: &'j Json,
        path: &JsonPath,
        allowed: &[&str],
    ) -> Option<Fields<'j>> {
        let Json::Object(pairs) = value else {
            self.fail(path, format!("expected an object, found {}", value.kind()));
            return None;
        };
        let mut fields = BTreeMap::new();
        for (key, value) in pairs {
            let at = path.key(key);
            if !allowed.contains(&key.as_str()) {
                self.fail(
                    &at,
                    format!("unknown field; allowed here: {}", allowed.join(", ")),
                );
            } else if fields.insert(key.as_str(), value).is_some() {
                self.fail(&at, "duplicate field; give each field once");
            }
        }
        Some(Fields {
            path: path.clone(),
            fields,
        })
    }

    /// A required field, or a "missing field" violation.
    fn required<'j>(&mut self, fields: &Fields<'j>, name: &str) -> Option<&'j Json> {
        let value = fields.get(name);
        if value.is_none() {
            self.fail(&fields.at(name), "missing field");
        }
        value
    }

    fn string<'j>(&mut self, value: &'j Json, path: &JsonPath) -> Option<&'j str> {
        match value {
            Json::String(s) => Some(s),
            other => {
                self.fail(path, format!("expected a string, found {}", other.kind()));
                None
            }
        }
    }

    fn array<'j>(&mut self, value: &'j Json, path: &JsonPath) -> Option<&'j [Json]> {
        match value {
            Json::Array(items) => Some(items),
            other => {
                self.fail(path, format!("expected an array, found {}", other.kind()));
                None
            }
        }
    }

    /// A free-text string: sanitised (counted in the report), then measured in characters.
    fn text(&mut self, value: &Json, path: &JsonPath, rule: &TextRule) -> Option<String> {
        let raw = self.string(value, path)?;
        let (clean, report) = sanitize(raw);
        self.report.merge(&report);
        let chars = clean.chars().count();
        if !rule.allow_empty && clean.trim().is_empty() {
            self.fail(path, "must not be empty");
        } else if chars > rule.max_chars {
            self.fail(
                path,
                format!(
                    "{chars} characters, over the limit of {}; shorten it",
                    rule.max_chars
                ),
            );
        } else if rule.one_line && clean.contains(LINE_BREAKS) {
            self.fail(path, "must be one line, without line breaks");
        }
        Some(clean)
    }

    /// An identifier string (topic, source): checked as given, never altered by the sanitiser,
    /// so hidden characters cannot be stripped into a valid value.
    fn clean_identifier<'j>(&mut self, value: &'j Json, path: &JsonPath) -> Option<&'j str> {
        let raw = self.string(value, path)?;
        if sanitize(raw).1.is_empty() {
            Some(raw)
        } else {
            self.fail(
                path,
                format!("{} contains control or invisible characters", quoted(raw)),
            );
            None
        }
    }

    fn receipt(&mut self, value: &Json) -> Option<Receipt> {
        let root = JsonPath::root();
        let Json::Object(pairs) = value else {
            self.fail(
                &root,
                format!("expected a receipt object, found {}", value.kind()),
            );
            return None;
        };
        let tag_path = root.key("receipt");
        let tag = match pairs.iter().find(|(k, _)| k == "receipt") {
            None => {
                self.fail(&tag_path, "missing field; expected \"ask\" or \"done\"");
                return None;
            }
            Some((_, tag)) => self.string(tag, &tag_path)?,
        };
        match tag {
            "ask" => {
                let fields = self.object(value, &root, &["receipt", "version", "questions"])?;
                self.version(&fields);
                if self.ctx.final_turn {
                    self.fail(
                        &tag_path,
                        "questions are not allowed on the final turn; finish with a \"done\" receipt",
                    );
                }
                let questions = self.questions(&fields);
                questions.map(|questions| Receipt::Ask(Ask { questions }))
            }
            "done" => {
                let fields = self.object(
                    value,
                    &root,
                    &["receipt", "version", "title", "summary", "entries"],
                )?;
                self.version(&fields);
                self.done(&fields).map(Receipt::Done)
            }
            other => {
                self.fail(
                    &tag_path,
                    format!(
                        "{} is not a receipt kind; expected \"ask\" or \"done\"",
                        quoted(other)
                    ),
                );
                None
            }
        }
    }

    fn version(&mut self, fields: &Fields<'_>) {
        let Some(value) = self.required(fields, "version") else {
            return;
        };
        if *value != Json::Int(VERSION) {
            let found = match value {
                Json::Int(n) => n.to_string(),
                Json::Float(f) => f.to_string(),
                other => other.kind().to_string(),
            };
            self.fail(
                &fields.at("version"),
                format!(
                    "expected {VERSION}, found {found}; this tool reads receipt version {VERSION}"
                ),
            );
        }
    }

    fn questions(&mut self, fields: &Fields<'_>) -> Option<Vec<Question>> {
        let path = fields.at("questions");
        let items = self.required(fields, "questions")?;
        let items = self.array(items, &path)?;
        if items.is_empty() || items.len() > MAX_QUESTIONS {
            self.fail(
                &path,
                format!(
                    "{} questions; ask 1 to {MAX_QUESTIONS} per turn",
                    items.len()
                ),
            );
        }
        let mut seen: BTreeMap<String, JsonPath> = BTreeMap::new();
        let mut questions = Vec::new();
        for (i, item) in items.iter().enumerate() {
            if let Some(q) = self.question(item, &path.index(i), &mut seen) {
                questions.push(q);
            }
        }
        (questions.len() == items.len()).then_some(questions)
    }

    fn question(
        &mut self,
        value: &Json,
        path: &JsonPath,
        seen: &mut BTreeMap<String, JsonPath>,
    ) -> Option<Question> {
        let fields = self.object(
            value,
            path,
            &[
                "topic",
                "question_text",
                "severity",
                "options",
                "recommended",
            ],
        )?;
        let topic = self.topic(&fields, seen);
        let question_text = self.required(&fields, "question_text").and_then(|v| {
            self.text(
                v,
                &fields.at("question_text"),
                &TextRule {
                    max_chars: MAX_QUESTION_TEXT_CHARS,
                    allow_empty: false,
                    one_line: true,
                },
            )
        });
        let severity = self.severity(&fields);
        let options = match fields.get_present("options") {
            None => Some(None),
            Some(v) => self.options(v, &fields.at("options")).map(Some),
        };
        let recommended = match fields.get_present("recommended") {
            None => Some(None),
            Some(v) => self
                .recommended(v, &fields.at("recommended"), options.as_ref())
                .map(Some),
        };
        Some(Question {
            topic: topic?,
            question_text: question_text?,
            severity: severity?,
            options: options?,
            recommended: recommended?,
        })
    }

    fn topic(
        &mut self,
        fields: &Fields<'_>,
        seen: &mut BTreeMap<String, JsonPath>,
    ) -> Option<String> {
        let path = fields.at("topic");
        let value = self.required(fields, "topic")?;
        let topic = self.string(value, &path)?;
        if !is_topic(topic) {
            self.fail(
                &path,
                format!("{} does not match ^[a-z][a-z0-9_]{{0,63}}$", quoted(topic)),
            );
            return None;
        }
        if let Some(first) = seen.get(topic) {
            let first = first.clone();
            self.fail(
                &path,
                format!(
                    "{} is already used by {first}; topics must be unique",
                    quoted(topic)
                ),
            );
            return None;
        }
        if self.ctx.asked_topics.contains(topic) {
            self.fail(
                &path,
                format!(
                    "{} was already asked in an earlier round; ask about something else",
                    quoted(topic)
                ),
            );
            return None;
        }
        seen.insert(topic.to_string(), path);
        Some(topic.to_string())
    }

    fn severity(&mut self, fields: &Fields<'_>) -> Option<u8> {
        let value = self.required(fields, "severity")?;
        match value {
            Json::Int(n) if SEVERITY_RANGE.contains(n) => u8::try_from(*n).ok(),
            other => {
                let found = match other {
                    Json::Int(n) => n.to_string(),
                    Json::Float(f) => f.to_string(),
                    other => other.kind().to_string(),
                };
                self.fail(
                    &fields.at("severity"),
                    format!("expected an integer from 1 to 10, found {found}"),
                );
                None
            }
        }
    }

    fn options(&mut self, value: &Json, path: &JsonPath) -> Option<Vec<QuestionOption>> {
        let items = self.array(value, path)?;
        if !(MIN_OPTIONS..=MAX_OPTIONS).contains(&items.len()) {
            self.fail(
                path,
                format!(
                    "{} options; give {MIN_OPTIONS} to {MAX_OPTIONS}, or leave `options` out for a free-text answer",
                    items.len()
                ),
            );
        }
        let rule = TextRule {
            max_chars: MAX_OPTION_CHARS,
            allow_empty: false,
            one_line: true,
        };
        let mut values: BTreeMap<String, JsonPath> = BTreeMap::new();
        let mut options = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let at = path.index(i);
            let Some(fields) = self.object(item, &at, &["label", "value"]) else {
                continue;
            };
            let label = self
                .required(&fields, "label")
                .and_then(|v| self.text(v, &fields.at("label"), &rule));
            let value = self
                .required(&fields, "value")
                .and_then(|v| self.text(v, &fields.at("value"), &rule));
            if let Some(value) = &value {
                if let Some(first) = values.get(value) {
                    let first = first.clone();
                    self.fail(
                        &fields.at("value"),
                        format!(
                            "{} repeats {first}; option values must be unique",
                            quoted(value)
                        ),
                    );
                } else {
                    values.insert(value.clone(), fields.at("value"));
                }
            }
            if let (Some(label), Some(value)) = (label, value) {
                options.push(QuestionOption { label, value });
            }
        }
        (options.len() == items.len()).then_some(options)
    }

    fn recommended(
        &mut self,
        value: &Json,
        path: &JsonPath,
        options: Option<&Option<Vec<QuestionOption>>>,
    ) -> Option<String> {
        let recommended = self.text(
            value,
            path,
            &TextRule {
                max_chars: MAX_OPTION_CHARS,
                allow_empty: false,
                one_line: true,
            },
        )?;
        match options {
            // The options were invalid and already reported.
            None => None,
            Some(None) => {
                self.fail(path, "needs `options` to recommend one of them");
                None
            }
            Some(Some(options)) => {
                if options.iter().any(|o| o.value == recommended) {
                    Some(recommended)
                } else {
                    let values: Vec<String> = options.iter().map(|o| quoted(&o.value)).collect();
                    self.fail(
                        path,
                        format!(
                            "{} is not one of the option values ({})",
                            quoted(&recommended),
                            values.join(", ")
                        ),
                    );
                    None
                }
            }
        }
    }

    fn done(&mut self, fields: &Fields<'_>) -> Option<Done> {
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
        // Evidence found, and whether any was attempted (a failed attempt is reported itself).
        let (mut repo_evidence, mut repo_attempted) = (0, false);
        let (mut qa_evidence, mut qa_attempted) = (0, false);
        for (i, item) in items.iter().enumerate() {
            let at = path.index(i);
            let Some(source) = self.clean_identifier(item, &at) else {
                continue;
            };
            let chars = source.chars().count();
            if source.trim().is_empty() {
                self.fail(&at, "must not be empty");
                continue;
            }
            if chars > MAX_SOURCE_CHARS {
                self.fail(
                    &at,
                    format!("{chars} characters, over the limit of {MAX_SOURCE_CHARS}"),
                );
                continue;
            }
            let verdict = match Source::classify(source) {
                Source::Qa(topic) => {
                    qa_attempted = true;
                    let v = self.qa_source(topic);
                    qa_evidence += usize::from(v.is_ok());
                    v
                }
                Source::Commit(hex) => {
                    repo_attempted = true;
                    let v = self.commit_source(hex);
                    repo_evidence += usize::from(v.is_ok());
                    v
                }
                Source::FileLine(file, line) => {
                    repo_attempted = true;
                    let v = self.file_source(file, line);
                    repo_evidence += usize::from(v.is_ok());
                    v
                }
                Source::Other => Ok(()),
            };
            match verdict {
                Ok(()) => sources.push(source.to_string()),
                Err(message) => self.fail(&at, message),
            }
        }
        match clarity {
            Some(Clarity::Confirmed) if repo_evidence == 0 && !repo_attempted => self.fail(
                path,
                "a confirmed entry needs at least one source that is `path:line` of a file in \
                 the repository or `commit:<hex>`",
            ),
            Some(Clarity::DeclaredByUser) if qa_evidence == 0 && !qa_attempted => self.fail(
                path,
                "a declared-by-user entry needs at least one `qa:<topic>` source naming a \
                 question the person answered",
            ),
            _ => {}
        }
        (sources.len() == items.len()).then_some(sources)
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

#[cfg(test)]
#[path = "check_tests.rs"]
mod tests;
