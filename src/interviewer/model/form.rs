//! The receipt as a small model can get it right: the brief's one-line forms (whose
//! placeholders a small model copies) replaced by a description with an example that is plainly
//! about another project; a schema whose `ask` and `done` are alternatives (`anyOf` below the
//! root, which strict mode and llama.cpp's grammars both take); and the model's object put in
//! order before it is printed — `version` filled in, the other form's fields dropped, a `qa:`
//! citation of a question by its position turned into its topic. The receipt's checks are not
//! touched: what comes out of here is checked exactly like any receipt.
//!
//! Not for: the conversation (`chat.rs`) or the checks (`crate::receipt`).

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::{Map, Value, json};

use crate::protocol::limits::*;
use crate::receipt::{CheckContext, Form};

/// What the runner reads of the brief: whether this is the final turn, and the questions asked
/// so far in order, with whether each was answered.
#[derive(Debug, Default, Clone)]
pub(super) struct BriefFacts {
    pub final_turn: bool,
    /// `(topic, answered)` per question of the transcript, in order, per round.
    pub rounds: Vec<Vec<(String, bool)>>,
}

impl BriefFacts {
    pub(super) fn read(brief: &str) -> BriefFacts {
        let mut facts = BriefFacts {
            final_turn: brief.contains("**This is the final turn"),
            rounds: Vec::new(),
        };
        let Some(at) = brief.find("\n## Transcript so far") else {
            return facts;
        };
        for line in brief[at..].lines() {
            if line.starts_with("### Turn ") {
                facts.rounds.push(Vec::new());
            } else if let Some(rest) = line.strip_prefix("- `")
                && let Some((topic, said)) = rest.split_once("` — ")
                && let Some(round) = facts.rounds.last_mut()
            {
                let answered = said.contains(" → answered: ");
                round.push((topic.to_string(), answered));
            }
        }
        facts
    }

    pub(super) fn asked(&self) -> BTreeSet<String> {
        self.rounds
            .iter()
            .flatten()
            .map(|(t, _)| t.clone())
            .collect()
    }

    pub(super) fn answered(&self) -> BTreeSet<String> {
        self.rounds
            .iter()
            .flatten()
            .filter(|(_, a)| *a)
            .map(|(t, _)| t.clone())
            .collect()
    }

    /// Check `text` as the session will (without knowing the work item's path, which only
    /// makes the session stricter about citing it).
    pub(super) fn check(&self, text: &str, root: &Path) -> Result<(), String> {
        let (asked, answered) = (self.asked(), self.answered());
        let ctx = CheckContext {
            final_turn: self.final_turn,
            asked_topics: &asked,
            answered_topics: &answered,
            repo_root: root,
            work_item: None,
        };
        crate::receipt::parse_and_check_as(text, &ctx, Form::Strict)
            .map(|_| ())
            .map_err(|e| e.to_string())
    }
}

/// The brief with its receipt forms described for a model that copies what it sees.
pub(super) fn brief(brief: &str, facts: &BriefFacts) -> String {
    let lines: Vec<&str> = brief.lines().collect();
    let ask = lines
        .iter()
        .position(|l| l.starts_with("- Either ask: `{\"receipt\":\"ask\""));
    let done = lines
        .iter()
        .position(|l| l.starts_with("- or finish: `{\"receipt\":\"done\""));
    let (Some(ask), Some(done)) = (ask, done) else {
        return brief.to_string();
    };
    let mut out: Vec<String> = lines[..ask].iter().map(|l| l.to_string()).collect();
    out.push(forms(facts));
    out.extend(lines[done + 1..].iter().map(|l| l.to_string()));
    out.join("\n") + "\n"
}

/// The two forms in words, an example of each about a made-up project, and the topics that
/// may be cited.
pub(super) fn forms(facts: &BriefFacts) -> String {
    let (low, high) = (SEVERITY_RANGE.start(), SEVERITY_RANGE.end());
    let answered = facts.answered();
    let cite = if answered.is_empty() {
        "No question has been answered yet: there is nothing to cite with `qa:`.".to_string()
    } else {
        format!(
            "Answers you may cite, exactly as written: {}.",
            answered
                .iter()
                .map(|t| format!("`qa:{t}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let ask = if facts.final_turn {
        String::new()
    } else {
        format!(
            "- Form `ask`: {MIN_QUESTIONS} to {MAX_QUESTIONS} questions for the person. Each has a \
             `topic` (a new id of your own: lowercase letters, digits and `_`, naming what the \
             question is about, never one asked before), a `question_text` (one line, at most \
             {MAX_QUESTION_TEXT_CHARS} characters), a `severity` from {low} to {high} (how much the \
             answer matters), optionally {MIN_OPTIONS} to {MAX_OPTIONS} `options` (each a `label` and \
             a short `value`) and a `recommended` option's value. An example about a made-up \
             project (write your own about this one): {}\n",
            json!({"receipt": "ask", "questions": [{"topic": "audit_log_retention",
                "question_text": "How long must the audit log of the billing service be kept?",
                "severity": 6, "options": [{"label": "30 days", "value": "30d"},
                {"label": "One year", "value": "1y"}], "recommended": "1y"}]})
        )
    };
    format!(
        "{ask}- Form `done`: the finished document. A `title` (at most {MAX_TITLE_CHARS} \
         characters), a `summary`, and {MIN_ENTRIES} to {MAX_ENTRIES} `entries`, each a `title`, \
         `content`, `clarity` and `sources`. `confirmed`: cite, as `path:line`, a line one of \
         your tools showed you in this repository, or a commit as `commit:<oid>`; \
         `declared-by-user`: cite the answer as `qa:<topic>`; `inferred`: your reading, sources \
         optional; `open-question`: what stays unclear. {cite} An example about a made-up project: {}",
        json!({"receipt": "done", "title": "Keep the billing audit log for a year",
            "summary": "Audit entries are kept for one year, then deleted by a nightly job.",
            "entries": [{"title": "Entries older than a year are deleted",
            "content": "The nightly job deletes what is older than 365 days.",
            "clarity": "confirmed", "sources": ["jobs/prune.py:14"]}]})
    )
}

/// The schema the receipt is asked for with: `{"reply": <ask or done>}` (the alternatives
/// below the root, where strict mode allows `anyOf`); on the final turn `done` only. `entries`
/// is the schema of `done`'s entries (`Citable::entries_schema`: the sources that hold).
pub(super) fn schema(final_turn: bool, entries: Value) -> Value {
    let text = json!({"type": "string"});
    let nullable = |v: Value| json!({"anyOf": [v, {"type": "null"}]});
    let object = |props: Value| {
        let required: Vec<String> = props.as_object().unwrap().keys().cloned().collect();
        json!({"type": "object", "properties": props, "required": required,
            "additionalProperties": false})
    };
    let option = object(json!({"label": text, "value": text}));
    let question = object(json!({
        "topic": text, "question_text": text, "severity": {"type": "integer"},
        "options": nullable(json!({"type": "array", "items": option})),
        "recommended": nullable(text.clone()),
    }));
    let ask = object(json!({
        "receipt": {"type": "string", "enum": ["ask"]},
        "questions": {"type": "array", "items": question},
    }));
    let done = object(json!({
        "receipt": {"type": "string", "enum": ["done"]},
        "title": text, "summary": text,
        "entries": entries,
    }));
    let forms = if final_turn {
        vec![done]
    } else {
        vec![ask, done]
    };
    object(json!({"reply": {"anyOf": forms}}))
}

/// The receipt made of what the model returned: unwrapped from `reply`, `version` set, the form
/// told by its `receipt` (or by its fields), only that form's fields kept, and `qa:` citations
/// that name a question by its position given its topic.
pub(super) fn tidy(value: Value, facts: &BriefFacts) -> Value {
    let mut value = value;
    if let Some(inner) = value.get("reply").filter(|v| v.is_object()) {
        value = inner.clone();
    }
    let Value::Object(map) = value else {
        return value;
    };
    let tag = match map.get("receipt").and_then(Value::as_str) {
        Some(t @ ("ask" | "done")) => t.to_string(),
        _ if map.get("entries").is_some_and(Value::is_array) => "done".into(),
        _ if map.get("questions").is_some_and(Value::is_array) => "ask".into(),
        _ => return Value::Object(map),
    };
    let mut out = Map::new();
    out.insert("receipt".into(), json!(tag));
    out.insert("version".into(), json!(VERSION));
    if tag == "ask" {
        let questions = map.get("questions").cloned().unwrap_or(Value::Null);
        out.insert("questions".into(), tidy_questions(questions));
    } else {
        for key in ["title", "summary"] {
            if let Some(v) = map.get(key) {
                out.insert(key.into(), v.clone());
            }
        }
        let entries = map.get("entries").cloned().unwrap_or(Value::Null);
        out.insert("entries".into(), tidy_entries(entries, facts));
    }
    Value::Object(out)
}

fn tidy_questions(questions: Value) -> Value {
    let Value::Array(list) = questions else {
        return questions;
    };
    let keys = [
        "topic",
        "question_text",
        "severity",
        "options",
        "recommended",
    ];
    Value::Array(
        list.into_iter()
            .map(|q| match q {
                Value::Object(m) => {
                    let mut q: Map<String, Value> = keys
                        .iter()
                        .filter_map(|k| {
                            m.get(*k)
                                .filter(|v| !v.is_null())
                                .map(|v| (k.to_string(), v.clone()))
                        })
                        .collect();
                    // A recommendation without options recommends nothing.
                    if !q.contains_key("options") {
                        q.remove("recommended");
                    }
                    Value::Object(q)
                }
                other => other,
            })
            .collect(),
    )
}

fn tidy_entries(entries: Value, facts: &BriefFacts) -> Value {
    let Value::Array(mut list) = entries else {
        return entries;
    };
    for entry in &mut list {
        let Value::Object(m) = entry else { continue };
        m.retain(|k, _| ["title", "content", "clarity", "sources"].contains(&k.as_str()));
        if m.get("sources").is_some_and(Value::is_null) {
            m.remove("sources");
        }
        if let Some(Value::Array(sources)) = m.get_mut("sources") {
            for s in sources.iter_mut() {
                if let Some(text) = s.as_str()
                    && let Some(topic) = cited_topic(text, facts)
                {
                    *s = json!(format!("qa:{topic}"));
                }
            }
        }
    }
    Value::Array(list)
}

/// The topic a citation means where it names an answered question other than by its topic and
/// only one can be meant: `qa:question_2`, `qa:2`, `qa:q2` by its position (when the transcript
/// has one round), `user:…` or `qa:user` when one question was answered, or the bare topic.
fn cited_topic(source: &str, facts: &BriefFacts) -> Option<String> {
    let answered = facts.answered();
    if source.starts_with("qa:") && answered.contains(&source[3..]) {
        return None;
    }
    if answered.contains(source) {
        return Some(source.to_string());
    }
    let lower = source.to_ascii_lowercase();
    let rest = lower.strip_prefix("qa:");
    if let Some(rest) = rest {
        let digits = rest
            .trim_start_matches("question")
            .trim_start_matches('q')
            .trim_start_matches(['_', '-', ' ']);
        if let (Ok(n), [round]) = (digits.parse::<usize>(), facts.rounds.as_slice())
            && let Some((topic, true)) = n.checked_sub(1).and_then(|i| round.get(i))
        {
            return Some(topic.clone());
        }
    }
    let about_the_person = lower.starts_with("user") || rest.is_some_and(|r| r.starts_with("user"));
    if about_the_person && answered.len() == 1 {
        return answered.into_iter().next();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRANSCRIPT: &str = "## Facts\n\nx\n\n## Transcript so far\n\n### Turn 1\n\n\
        - `export_format` — Which format? → answered: csv\n\
        - `who_exports` — Who may export? → skipped\n\
        - `columns` — Which columns? → answered: name, owner\n";

    #[test]
    fn the_transcript_gives_the_asked_and_the_answered_topics() {
        let facts = BriefFacts::read(TRANSCRIPT);
        assert!(!facts.final_turn);
        assert_eq!(facts.asked().len(), 3);
        assert_eq!(
            facts.answered().into_iter().collect::<Vec<_>>(),
            ["columns", "export_format"]
        );
    }

    #[test]
    fn an_ask_keeps_only_its_own_fields_and_gets_its_version() {
        let model = json!({"reply": {"receipt": "ask", "title": "x", "summary": "y",
            "entries": [], "questions": [{"topic": "a", "question_text": "Q?", "severity": 3,
            "options": null, "recommended": null, "extra": 1}]}});
        let tidy = tidy(model, &BriefFacts::default());
        assert_eq!(
            tidy,
            json!({"receipt": "ask", "version": 1, "questions": [
                {"topic": "a", "question_text": "Q?", "severity": 3}]})
        );
    }

    #[test]
    fn a_question_cited_by_its_position_is_cited_by_its_topic() {
        let facts = BriefFacts::read(TRANSCRIPT);
        let cite = |s: &str| cited_topic(s, &facts);
        assert_eq!(cite("qa:question_1").as_deref(), Some("export_format"));
        assert_eq!(cite("qa:3").as_deref(), Some("columns"));
        assert_eq!(cite("qa:q2"), None, "skipped: nothing to cite");
        assert_eq!(cite("columns").as_deref(), Some("columns"));
        assert_eq!(
            cite("user:line"),
            None,
            "two answers: which one is not known"
        );
        assert_eq!(cite("qa:columns"), None, "already right");
        assert_eq!(cite("README.md:1"), None);
    }

    #[test]
    fn the_briefs_placeholders_give_way_to_an_example_about_another_project() {
        let brief = "# Brief\n\n- Either ask: `{\"receipt\":\"ask\",\"questions\":[{\"topic\":\"snake_case_id\"}]}` x;\n\
            - or finish: `{\"receipt\":\"done\",\"title\":\"≤ 80 chars\"}` y.\n\
            - This is not the final turn.\n";
        let out = super::brief(brief, &BriefFacts::default());
        assert!(
            !out.contains("snake_case_id") && !out.contains("≤ 80 chars"),
            "{out}"
        );
        // A small model cited the example path `src/main.rs:12` of another repository.
        assert!(!out.contains("src/main.rs"), "{out}");
        assert!(out.contains("audit_log_retention") && out.contains("This is not the final turn"));
    }
}
