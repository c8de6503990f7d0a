//! The checks of an `ask` receipt: its questions, their topics, severities, options and
//! recommendation (see `docs/receipt.md`).

use std::collections::BTreeMap;

use super::*;

impl Checker<'_, '_> {
    pub(super) fn questions(&mut self, fields: &Fields<'_>) -> Option<Vec<Question>> {
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
}
