//! The receipt checks of `docs/receipt.md`: a walk over the parsed JSON that sanitises every string and
//! names each broken rule by its JSON path, then builds the checked [`Receipt`].

use std::collections::BTreeMap;

use super::json::{Json, JsonPath};
use super::sanitize::{quoted, sanitize, sanitize_line};
use super::sources::{Evidence, check_relative_path};
use super::{
    Ask, CheckContext, Clarity, Done, Entry, Form, Question, QuestionOption, Receipt, ReceiptError,
    SanitizeReport, Violation, json,
};

mod ask;
mod done;

pub(super) use crate::protocol::limits::*;

/// `^[a-z][a-z0-9_]{0,63}$`, by hand.
pub(crate) fn is_topic(text: &str) -> bool {
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
    parse_and_check_as(text, ctx, Form::Strict)
}

/// [`parse_and_check`] for a receipt in `form`: a [`Form::Wire`] receipt (from a CLI given the
/// wire schema) may also carry the other form's fields, as `null`, and nothing else.
pub(crate) fn parse_and_check_as(
    text: &str,
    ctx: &CheckContext<'_>,
    form: Form,
) -> Result<(Receipt, SanitizeReport), ReceiptError> {
    // A byte-order mark is an editor's habit, not content.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut value = json::parse(text).map_err(|e| {
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
    if form == Form::Wire {
        checker.drop_other_form(&mut value);
    }
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
    /// A wire receipt's fields of the other form: dropped when `null`, a violation otherwise.
    fn drop_other_form(&mut self, value: &mut Json) {
        let Json::Object(pairs) = value else {
            return;
        };
        let tag = match pairs.iter().find(|(k, _)| k == "receipt") {
            Some((_, Json::String(tag))) => tag.clone(),
            _ => return,
        };
        let other = crate::protocol::wire::other_form_fields(&tag);
        let root = JsonPath::root();
        pairs.retain(|(key, v)| {
            if !other.contains(&key.as_str()) {
                return true;
            }
            if !matches!(v, Json::Null) {
                self.fail(
                    &root.key(key),
                    format!("must be null in a {tag:?} receipt (it belongs to the other form)"),
                );
            }
            false
        });
    }

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
}

#[cfg(test)]
#[path = "../check_tests.rs"]
mod tests;
