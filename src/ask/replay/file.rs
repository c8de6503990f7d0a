//! The answers file (`--answers FILE`, a session's `answers.json`): its format, read strictly
//! (every error names the file and the JSON path) and written back.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::ask::{GateChoice, classify_gate};
use crate::receipt::{is_topic, json_kind};

/// The version of the format this tool reads and writes.
pub(super) const VERSION: u64 = 1;

/// Replay files larger than this are refused: they are hand-written fixtures, not data.
pub(super) const MAX_BYTES: u64 = 1024 * 1024;

/// Why a replay file was refused: the file, the JSON path, and what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {path}: {message}", file.display())]
pub struct ReplayError {
    pub file: PathBuf,
    /// A JSON path such as `$.answers.scope`.
    pub path: String,
    pub message: String,
}

/// A parsed answers file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReplayFile {
    /// What was typed at each round's entry gate, in order; the last one repeats. Empty means
    /// "y". Written as one string when every round had the same answer.
    pub gate: Vec<String>,
    /// Topic → what was typed at that question.
    pub answers: BTreeMap<String, String>,
    /// Decision id → the letter typed.
    pub decisions: BTreeMap<String, String>,
    /// What the answers were given about, as typed: `intent 42`, `reflect v1.2.0`.
    pub subject: Option<String>,
}

#[derive(Serialize)]
#[serde(untagged)]
enum GateOut<'a> {
    One(&'a str),
    Many(&'a [String]),
}

#[derive(Serialize)]
struct FileOut<'a> {
    interview_answers: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    subject: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    gate: Option<GateOut<'a>>,
    answers: &'a BTreeMap<String, String>,
    decisions: &'a BTreeMap<String, String>,
}

impl ReplayFile {
    /// Read and parse `path`.
    pub fn load(path: &Path) -> Result<ReplayFile, ReplayError> {
        let err = |message: String| ReplayError {
            file: path.to_path_buf(),
            path: "$".into(),
            message,
        };
        // Whatever it is (a FIFO, /dev/stdin, a device): capped, and never blocking in open().
        let bytes = crate::input::read_capped(path, MAX_BYTES)
            .map_err(|e| err(format!("cannot read the answers file: {e}")))?;
        let text = String::from_utf8(bytes)
            .map_err(|e| err(format!("not UTF-8 (byte {})", e.utf8_error().valid_up_to())))?;
        ReplayFile::parse(crate::input::without_bom(&text), path)
    }

    /// Parse the text of an answers file; `file` names it in errors.
    pub fn parse(text: &str, file: &Path) -> Result<ReplayFile, ReplayError> {
        let err = |path: &str, message: String| ReplayError {
            file: file.to_path_buf(),
            path: path.to_string(),
            message,
        };
        let value: Value =
            serde_json::from_str(text).map_err(|e| err("$", format!("not valid JSON: {e}")))?;
        if let Some(path) = first_duplicate_key(text) {
            return Err(err(
                &path,
                "this key appears more than once; keep only one".into(),
            ));
        }
        let Value::Object(root) = value else {
            return Err(err(
                "$",
                format!(
                    "expected an object like {{\"interview_answers\": 1, \"answers\": {{…}}}}, found {}",
                    json_kind(&value)
                ),
            ));
        };
        let mut out = ReplayFile::default();
        let mut version = None;
        for (key, v) in &root {
            let here = format!("$.{key}");
            match key.as_str() {
                "interview_answers" => {
                    version = Some(v.as_u64().filter(|n| *n == VERSION).ok_or_else(|| {
                        err(
                            &here,
                            format!(
                                "unknown version {v}; this tool reads version {VERSION}: set \"interview_answers\": {VERSION}"
                            ),
                        )
                    })?);
                }
                "gate" => out.gate = parse_gate(v, &here).map_err(|(p, m)| err(&p, m))?,
                "subject" => {
                    out.subject = Some(string(v, &here).map_err(|(p, m)| err(&p, m))?);
                }
                "answers" => out.answers = parse_answers(v, &here).map_err(|(p, m)| err(&p, m))?,
                "decisions" => {
                    out.decisions = parse_decisions(v, &here).map_err(|(p, m)| err(&p, m))?;
                }
                _ => {
                    return Err(err(
                        &here,
                        "unknown key: an answers file has only interview_answers, subject, gate, answers and decisions".into(),
                    ));
                }
            }
        }
        if version.is_none() {
            return Err(err(
                "$",
                format!("missing \"interview_answers\": {VERSION} (the format version)"),
            ));
        }
        Ok(out)
    }

    /// The file as pretty JSON, keys in the documented order, ending in a newline.
    pub fn to_json_pretty(&self) -> Result<String, serde_json::Error> {
        let gate = match self.gate.as_slice() {
            [] => None,
            [first, rest @ ..] if rest.iter().all(|g| g == first) => Some(GateOut::One(first)),
            all => Some(GateOut::Many(all)),
        };
        let out = FileOut {
            interview_answers: VERSION,
            subject: self.subject.as_deref(),
            gate,
            answers: &self.answers,
            decisions: &self.decisions,
        };
        let mut text = serde_json::to_string_pretty(&out)?;
        text.push('\n');
        Ok(text)
    }

    /// Record what was typed at a round's entry gate.
    pub fn record_gate(&mut self, raw: &str) {
        self.gate.push(raw.to_string());
    }

    /// Record what was typed at the gate of round `index` (0-based): a gate shown again when a
    /// session is resumed replaces its round's line instead of adding one.
    pub fn record_gate_at(&mut self, index: usize, raw: &str) {
        match self.gate.get_mut(index) {
            Some(line) => *line = raw.to_string(),
            None => self.gate.push(raw.to_string()),
        }
    }

    /// Record what was typed at the question on `topic`, as typed ("2" stays "2").
    pub fn record_answer(&mut self, topic: &str, raw: &str) {
        self.answers.insert(topic.to_string(), raw.to_string());
    }

    /// Record the letter typed for decision `id`.
    pub fn record_decision(&mut self, id: &str, raw: &str) {
        self.decisions
            .insert(id.to_string(), raw.trim().to_string());
    }
}

/// The JSON path of the first key that appears twice in one object: `serde_json::Value`
/// silently keeps the last, which would hide a mistake in a hand-edited file.
fn first_duplicate_key(text: &str) -> Option<String> {
    use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
    use std::cell::RefCell;

    struct Walk<'f> {
        path: String,
        found: &'f RefCell<Option<String>>,
    }

    impl<'de> DeserializeSeed<'de> for Walk<'_> {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_any(self)
        }
    }

    impl<'de> Visitor<'de> for Walk<'_> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            let mut seen = BTreeSet::new();
            while let Some(key) = map.next_key::<String>()? {
                let path = format!("{}.{key}", self.path);
                if !seen.insert(key) && self.found.borrow().is_none() {
                    *self.found.borrow_mut() = Some(path.clone());
                }
                map.next_value_seed(Walk {
                    path,
                    found: self.found,
                })?;
            }
            Ok(())
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            let mut i = 0;
            while seq
                .next_element_seed(Walk {
                    path: format!("{}[{i}]", self.path),
                    found: self.found,
                })?
                .is_some()
            {
                i += 1;
            }
            Ok(())
        }
        fn visit_bool<E>(self, _: bool) -> Result<(), E> {
            Ok(())
        }
        fn visit_i64<E>(self, _: i64) -> Result<(), E> {
            Ok(())
        }
        fn visit_u64<E>(self, _: u64) -> Result<(), E> {
            Ok(())
        }
        fn visit_f64<E>(self, _: f64) -> Result<(), E> {
            Ok(())
        }
        fn visit_str<E>(self, _: &str) -> Result<(), E> {
            Ok(())
        }
        fn visit_unit<E>(self) -> Result<(), E> {
            Ok(())
        }
    }

    let found = RefCell::new(None);
    let mut de = serde_json::Deserializer::from_str(text);
    Walk {
        path: "$".into(),
        found: &found,
    }
    .deserialize(&mut de)
    .ok()?;
    found.into_inner()
}

type At = (String, String);

fn object<'a>(v: &'a Value, at: &str) -> Result<&'a serde_json::Map<String, Value>, At> {
    v.as_object().ok_or_else(|| {
        (
            at.to_string(),
            format!("expected an object, found {}", json_kind(v)),
        )
    })
}

fn string(v: &Value, at: &str) -> Result<String, At> {
    v.as_str().map(str::to_string).ok_or_else(|| {
        (
            at.to_string(),
            format!(
                "expected a string (what a person would type), found {}",
                json_kind(v)
            ),
        )
    })
}

/// `answers`: each question's topic and its answer as text.
fn parse_answers(v: &Value, at: &str) -> Result<BTreeMap<String, String>, At> {
    let mut answers = BTreeMap::new();
    for (topic, answer) in object(v, at)? {
        let here = format!("{at}.{topic}");
        if !is_topic(topic) {
            return Err((
                here,
                "not a question topic: topics are lowercase letters, digits and `_`, starting with a letter".into(),
            ));
        }
        answers.insert(topic.clone(), string(answer, &here)?);
    }
    Ok(answers)
}

/// `decisions`: each decision's id and the letter chosen (A to D).
fn parse_decisions(v: &Value, at: &str) -> Result<BTreeMap<String, String>, At> {
    let mut decisions = BTreeMap::new();
    for (id, letter) in object(v, at)? {
        let here = format!("{at}.{id}");
        let letter = string(letter, &here)?;
        if crate::ask::parse_letter(&letter, 4).is_none() {
            return Err((
                here,
                format!("\"{letter}\" is not a choice: use one letter, A to D"),
            ));
        }
        decisions.insert(id.clone(), letter);
    }
    Ok(decisions)
}

fn parse_gate(v: &Value, at: &str) -> Result<Vec<String>, At> {
    let one = |v: &Value, at: &str| -> Result<String, At> {
        let s = string(v, at)?;
        if classify_gate(&s) == GateChoice::Unclear {
            return Err((
                at.to_string(),
                format!("\"{s}\" is not a gate answer: use \"y\" to answer or \"n\" to skip"),
            ));
        }
        Ok(s)
    };
    match v {
        Value::Array(items) if !items.is_empty() => items
            .iter()
            .enumerate()
            .map(|(i, item)| one(item, &format!("{at}[{i}]")))
            .collect(),
        Value::Array(_) => Err((at.to_string(), "an empty list: omit `gate` instead".into())),
        _ => Ok(vec![one(v, at)?]),
    }
}
