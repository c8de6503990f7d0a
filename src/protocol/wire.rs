//! The receipt schema as the model services accept it: the "wire" schema the Claude Code and
//! Codex presets hand their CLI, derived from `schema/receipt.schema.json` (the one source).
//!
//! The services accept only a subset of JSON Schema for structured output (see
//! `docs/runners.md`, "Schemas"): an object at the root, every property listed in `required`
//! (optional ones nullable instead), `additionalProperties: false` on every object, and no
//! `oneOf`/`allOf`/`not`/`if`. So both receipt forms become one object whose fields of the other
//! form are `null`; the limits a schema cannot carry there are written into descriptions and
//! enforced, as for every receipt, by the checks. The receipt checks read a wire receipt with
//! [`crate::receipt::Form::Wire`], which accepts exactly those `null`s and nothing more.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use super::SCHEMA;

/// A provider family whose structured-output rules a wire schema must obey.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// Anthropic Messages API tool `input_schema` (Claude Code's `StructuredOutput` tool).
    Anthropic,
    /// OpenAI Responses API `text.format` with `strict: true` (Codex's `--output-schema`).
    OpenAi,
}

/// Keywords kept in a wire schema; everything else is dropped (limits go into descriptions).
const KEPT: [&str; 7] = [
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "description",
];

/// The wire schema for `family`. Today both families get the same schema: the subset both
/// accept. It is derived, so a change to the published schema reaches it.
pub fn schema(family: Family) -> Value {
    let _ = family;
    let published: Value = serde_json::from_str(SCHEMA).unwrap_or(Value::Null);
    derive(&published)
}

/// [`schema`] as compact JSON text.
pub(crate) fn schema_text(family: Family) -> String {
    schema(family).to_string()
}

/// The fields of the other form, which are `null` in a wire receipt of form `tag`.
pub(crate) fn other_form_fields(tag: &str) -> &'static [&'static str] {
    match tag {
        "ask" => &["title", "summary", "entries"],
        "done" => &["questions"],
        _ => &[],
    }
}

fn derive(published: &Value) -> Value {
    let defs = published.get("$defs").cloned().unwrap_or(Value::Null);
    let branches: Vec<Value> = published
        .get("oneOf")
        .and_then(Value::as_array)
        .map(|a| a.iter().map(|b| resolve(b, &defs)).collect())
        .unwrap_or_default();
    let mut names: Vec<String> = Vec::new();
    for branch in &branches {
        for name in properties(branch).keys() {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
    }
    let mut props = Map::new();
    for name in &names {
        let schemas: Vec<&Value> = branches
            .iter()
            .filter_map(|b| b.get("properties").and_then(|p| p.get(name)))
            .collect();
        let everywhere = schemas.len() == branches.len()
            && branches.iter().all(|b| required(b).contains(name.as_str()));
        let consts: Vec<&Value> = schemas.iter().filter_map(|s| s.get("const")).collect();
        let merged = if everywhere && consts.len() == schemas.len() {
            let mut values: Vec<Value> = Vec::new();
            for c in consts {
                if !values.contains(c) {
                    values.push(c.clone());
                }
            }
            json!({ "type": type_of(&values[0]), "enum": values })
        } else if everywhere {
            convert(schemas[0], &defs)
        } else {
            nullable(convert(schemas[0], &defs))
        };
        props.insert(name.clone(), merged);
    }
    let mut root = Map::new();
    root.insert("type".into(), json!("object"));
    if let Some(d) = published.get("description") {
        root.insert(
            "description".into(),
            json!(format!(
                "{} Both forms are one object here: the fields of the other form are null.",
                d.as_str().unwrap_or("")
            )),
        );
    }
    root.insert("additionalProperties".into(), json!(false));
    root.insert("required".into(), json!(names));
    root.insert("properties".into(), Value::Object(props));
    Value::Object(root)
}

fn properties(node: &Value) -> Map<String, Value> {
    node.get("properties")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default()
}

fn required(node: &Value) -> BTreeSet<&str> {
    node.get("required")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// A local `$ref` (`#/$defs/x`) replaced by what it names.
fn resolve(node: &Value, defs: &Value) -> Value {
    match node.get("$ref").and_then(Value::as_str) {
        Some(r) => defs
            .get(r.trim_start_matches("#/$defs/"))
            .cloned()
            .unwrap_or(Value::Null),
        None => node.clone(),
    }
}

fn type_of(v: &Value) -> &'static str {
    match v {
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::Bool(_) => "boolean",
        Value::Null => "null",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
        Value::String(_) => "string",
    }
}

/// One schema node in the wire subset: references inlined, constants as one-value enums,
/// objects closed with every property required, limits moved into the description.
fn convert(node: &Value, defs: &Value) -> Value {
    let node = resolve(node, defs);
    let Value::Object(map) = &node else {
        return node;
    };
    let mut out = Map::new();
    let notes = limit_notes(map);
    if let Some(c) = map.get("const") {
        out.insert("type".into(), json!(type_of(c)));
        out.insert("enum".into(), json!([c]));
    }
    for (key, value) in map {
        if !KEPT.contains(&key.as_str()) {
            continue;
        }
        let value = match key.as_str() {
            "items" => convert(value, defs),
            "properties" => Value::Null, // rebuilt below
            _ => value.clone(),
        };
        if !value.is_null() {
            out.insert(key.clone(), value);
        }
    }
    if let Some(values) = map.get("enum").and_then(Value::as_array)
        && !out.contains_key("type")
        && let Some(first) = values.first()
    {
        out.insert("type".into(), json!(type_of(first)));
    }
    if map.get("type") == Some(&json!("object")) || map.contains_key("properties") {
        let needed = required(&node);
        let mut props = Map::new();
        let mut names = Vec::new();
        for (name, schema) in properties(&node) {
            let converted = convert(&schema, defs);
            let converted = if needed.contains(name.as_str()) {
                converted
            } else {
                nullable(converted)
            };
            names.push(json!(name));
            props.insert(name, converted);
        }
        out.insert("type".into(), json!("object"));
        out.insert("additionalProperties".into(), json!(false));
        out.insert("required".into(), Value::Array(names));
        out.insert("properties".into(), Value::Object(props));
    }
    if !notes.is_empty() {
        let said = out
            .get("description")
            .and_then(Value::as_str)
            .map(|d| format!("{d} "))
            .unwrap_or_default();
        out.insert(
            "description".into(),
            json!(format!("{said}({}).", notes.join(", "))),
        );
    }
    Value::Object(out)
}

/// The limits of a schema node (items, characters, range, pattern) in words, for its
/// description: the wire subset has no keywords for them.
fn limit_notes(map: &Map<String, Value>) -> Vec<String> {
    let mut notes: Vec<String> = Vec::new();
    if let (Some(lo), Some(hi)) = (map.get("minItems"), map.get("maxItems")) {
        notes.push(format!("{lo} to {hi} items"));
    } else if let Some(hi) = map.get("maxItems") {
        notes.push(format!("at most {hi} items"));
    }
    match (map.get("minLength"), map.get("maxLength")) {
        (Some(lo), Some(hi)) => notes.push(format!("{lo} to {hi} characters")),
        (None, Some(hi)) => notes.push(format!("at most {hi} characters")),
        _ => {}
    }
    if let (Some(lo), Some(hi)) = (map.get("minimum"), map.get("maximum")) {
        notes.push(format!("an integer from {lo} to {hi}"));
    }
    if let Some(p) = map.get("pattern").and_then(Value::as_str) {
        if p == "^[^\\n\\u2028\\u2029]*$" {
            notes.push("one line".into());
        } else {
            notes.push(format!("matching {p}"));
        }
    }
    notes
}

/// `null` allowed too: added to the type and to an enum.
fn nullable(mut node: Value) -> Value {
    if let Value::Object(map) = &mut node {
        match map.get_mut("type") {
            Some(Value::String(t)) if t != "null" => {
                let t = t.clone();
                map.insert("type".into(), json!([t, "null"]));
            }
            Some(Value::Array(types)) if !types.contains(&json!("null")) => {
                types.push(json!("null"));
            }
            _ => {}
        }
        if let Some(Value::Array(values)) = map.get_mut("enum")
            && !values.contains(&Value::Null)
        {
            values.push(Value::Null);
        }
    }
    node
}

/// The provider's documented rules that `schema` breaks, each with its JSON path (empty when it
/// obeys them). The mock model servers of the tests enforce the same rules on their own.
#[cfg(test)]
pub(crate) fn rule_violations(schema: &Value, family: Family) -> Vec<String> {
    let mut found = Vec::new();
    if schema.get("type") != Some(&json!("object")) {
        found.push("$: the root must be `type: object`".to_string());
    }
    for key in ["oneOf", "anyOf", "allOf"] {
        if schema.get(key).is_some() {
            found.push(format!("$: `{key}` is not allowed at the top level"));
        }
    }
    if family == Family::OpenAi {
        strict_rules(schema, "$", &mut found);
    }
    found
}

/// OpenAI strict mode, below the root too.
#[cfg(test)]
fn strict_rules(node: &Value, path: &str, found: &mut Vec<String>) {
    const UNSUPPORTED: [&str; 20] = [
        "oneOf",
        "allOf",
        "not",
        "if",
        "then",
        "else",
        "dependentRequired",
        "dependentSchemas",
        "patternProperties",
        "minLength",
        "maxLength",
        "pattern",
        "format",
        "minimum",
        "maximum",
        "minItems",
        "maxItems",
        "uniqueItems",
        "contains",
        "const",
    ];
    let Value::Object(map) = node else {
        return;
    };
    for key in UNSUPPORTED {
        if map.contains_key(key) {
            found.push(format!("{path}: `{key}` is not supported in strict mode"));
        }
    }
    if let Some(Value::Object(props)) = map.get("properties") {
        if map.get("additionalProperties") != Some(&json!(false)) {
            found.push(format!(
                "{path}: an object needs `additionalProperties: false`"
            ));
        }
        let listed = required(node);
        for (name, schema) in props {
            if !listed.contains(name.as_str()) {
                found.push(format!(
                    "{path}.{name}: every property must be in `required`"
                ));
            }
            strict_rules(schema, &format!("{path}.{name}"), found);
        }
    }
    if let Some(items) = map.get("items") {
        strict_rules(items, &format!("{path}[]"), found);
    }
    if let Some(Value::Array(any)) = map.get("anyOf") {
        for (i, s) in any.iter().enumerate() {
            strict_rules(s, &format!("{path}.anyOf[{i}]"), found);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_published_schema_breaks_both_families_rules() {
        let published: Value = serde_json::from_str(SCHEMA).unwrap();
        let anthropic = rule_violations(&published, Family::Anthropic);
        assert!(
            anthropic.iter().any(|v| v.contains("`oneOf`")),
            "{anthropic:?}"
        );
        let openai = rule_violations(&published, Family::OpenAi);
        assert!(
            openai.iter().any(|v| v.contains("type: object")),
            "{openai:?}"
        );
    }

    #[test]
    fn the_wire_schema_obeys_every_familys_rules() {
        for family in [Family::Anthropic, Family::OpenAi] {
            let v = rule_violations(&schema(family), Family::OpenAi);
            assert!(v.is_empty(), "{family:?}: {v:?}");
            let v = rule_violations(&schema(family), family);
            assert!(v.is_empty(), "{family:?}: {v:?}");
        }
    }

    #[test]
    fn the_wire_schema_has_both_forms_with_the_other_forms_fields_nullable() {
        let wire = schema(Family::OpenAi);
        let mut fields: Vec<&str> = wire["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        fields.sort();
        assert_eq!(
            fields,
            [
                "entries",
                "questions",
                "receipt",
                "summary",
                "title",
                "version"
            ]
        );
        assert_eq!(
            wire["properties"]["receipt"],
            json!({"type": "string", "enum": ["ask", "done"]})
        );
        assert_eq!(
            wire["properties"]["version"],
            json!({"type": "integer", "enum": [1]})
        );
        assert_eq!(
            wire["properties"]["questions"]["type"],
            json!(["array", "null"])
        );
        assert_eq!(
            wire["properties"]["title"]["type"],
            json!(["string", "null"])
        );
        assert_eq!(
            wire["properties"]["entries"]["type"],
            json!(["array", "null"])
        );
        let question = &wire["properties"]["questions"]["items"];
        assert_eq!(
            question["required"],
            json!([
                "options",
                "question_text",
                "recommended",
                "severity",
                "topic"
            ])
        );
        assert_eq!(question["properties"]["severity"]["type"], json!("integer"));
        assert_eq!(
            question["properties"]["options"]["type"],
            json!(["array", "null"])
        );
        let entry = &wire["properties"]["entries"]["items"];
        assert_eq!(
            entry["properties"]["clarity"]["enum"],
            json!(["confirmed", "inferred", "declared-by-user", "open-question"])
        );
        assert_eq!(
            entry["properties"]["sources"]["type"],
            json!(["array", "null"])
        );
    }

    /// Whether `value` fits `schema` in the wire subset (type, enum, required, closed objects,
    /// items): the keywords a wire schema has, all of them.
    fn fits(schema: &Value, value: &Value, at: &str) -> Result<(), String> {
        if let Some(values) = schema.get("enum").and_then(Value::as_array)
            && !values.contains(value)
        {
            return Err(format!("{at}: {value} is not one of {values:?}"));
        }
        let types: Vec<&str> = match schema.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ => vec![],
        };
        let is = |t: &str| match t {
            "null" => value.is_null(),
            "string" => value.is_string(),
            "integer" => value.is_i64() || value.is_u64(),
            "array" => value.is_array(),
            "object" => value.is_object(),
            _ => false,
        };
        if !types.iter().any(|t| is(t)) {
            return Err(format!("{at}: {value} is not {types:?}"));
        }
        if let Value::Object(map) = value {
            for name in required(schema) {
                if !map.contains_key(name) {
                    return Err(format!("{at}.{name}: missing"));
                }
            }
            let props = properties(schema);
            for (k, v) in map {
                let sub = props.get(k).ok_or(format!("{at}.{k}: not allowed"))?;
                fits(sub, v, &format!("{at}.{k}"))?;
            }
        }
        if let (Value::Array(items), Some(item)) = (value, schema.get("items")) {
            for (i, v) in items.iter().enumerate() {
                fits(item, v, &format!("{at}[{i}]"))?;
            }
        }
        Ok(())
    }

    /// The strict receipt in wire form: every field of both forms, absent ones `null`.
    fn to_wire(strict: &Value) -> Value {
        let mut v = strict.clone();
        let fill = |obj: &mut Value, keys: &[&str]| {
            for k in keys {
                if obj.get(*k).is_none() {
                    obj[*k] = Value::Null;
                }
            }
        };
        fill(&mut v, &["questions", "title", "summary", "entries"]);
        for q in v["questions"].as_array_mut().into_iter().flatten() {
            fill(q, &["options", "recommended"]);
        }
        for e in v["entries"].as_array_mut().into_iter().flatten() {
            fill(e, &["sources"]);
        }
        v
    }

    /// The receipts the docs show, as a model would return them in the wire form: they fit the
    /// wire schema, and read back through the checks as the same receipts as the strict forms.
    #[test]
    fn receipts_fit_the_wire_schema_and_read_back_as_the_strict_receipt() {
        use crate::receipt::{CheckContext, Form, parse_and_check_as};
        let ask = json!({"receipt": "ask", "version": 1, "questions": [
            {"topic": "deployment_target", "question_text": "Where will this service run?",
             "severity": 7, "options": [{"label": "Kubernetes", "value": "k8s"},
             {"label": "One VM", "value": "vm"}], "recommended": "k8s"},
            {"topic": "data_retention", "question_text": "How long?", "severity": 4}]});
        let done = json!({"receipt": "done", "version": 1, "title": "Intent of #42",
            "entries": [{"title": "CSV dialect", "content": "Probably RFC 4180.",
            "clarity": "inferred"}, {"title": "Which encodings?", "content": "",
            "clarity": "open-question", "sources": ["a URL"]}]});
        let dir = tempfile::tempdir().unwrap();
        let none = std::collections::BTreeSet::new();
        let ctx = CheckContext {
            final_turn: false,
            asked_topics: &none,
            answered_topics: &none,
            repo_root: dir.path(),
            work_item: None,
        };
        for family in [Family::Anthropic, Family::OpenAi] {
            let wire = schema(family);
            for strict in [&ask, &done] {
                let w = to_wire(strict);
                fits(&wire, &w, "$").unwrap_or_else(|e| panic!("{family:?}: {e}"));
                // The strict form does not fit (fields are missing): the forms really differ.
                assert!(fits(&wire, strict, "$").is_err());
                let from_wire = parse_and_check_as(&w.to_string(), &ctx, Form::Wire)
                    .unwrap()
                    .0;
                let from_strict = parse_and_check_as(&strict.to_string(), &ctx, Form::Strict)
                    .unwrap()
                    .0;
                assert_eq!(from_wire, from_strict);
            }
        }
    }

    #[test]
    fn the_limits_the_wire_schema_cannot_carry_are_in_its_descriptions() {
        let wire = schema_text(Family::Anthropic);
        for needle in [
            "(1 to 5 items)",
            "(1 to 200 characters, one line)",
            "(an integer from 1 to 10)",
            "(2 to 9 items)",
            "(1 to 80 characters, one line)",
            "(1 to 20 items)",
        ] {
            assert!(
                wire.contains(needle),
                "the wire schema lacks {needle}: {wire}"
            );
        }
    }
}
