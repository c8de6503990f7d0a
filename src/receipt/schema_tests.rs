//! The schema parses, agrees with the checks' limits, and fits the examples of docs/receipt.md.

use serde_json::{Value, json};

use super::check::*;
use crate::protocol::SCHEMA;

fn schema() -> Value {
    serde_json::from_str(SCHEMA).expect("schema/receipt.schema.json is JSON")
}

fn def(name: &str) -> Value {
    schema()["$defs"][name].clone()
}

/// Resolve a local `$ref` (`#/$defs/x`).
fn resolve(node: &Value) -> Value {
    match node["$ref"].as_str() {
        Some(r) => def(r.trim_start_matches("#/$defs/")),
        None => node.clone(),
    }
}

/// A small structural check: type object, required keys present, no keys beyond `properties`,
/// `const`/`enum`, array sizes, recursing through `items`. Enough to catch a schema that drifts
/// from the examples; not a validator.
fn fits(node: &Value, value: &Value, at: &str) -> Result<(), String> {
    let node = resolve(node);
    if let Some(c) = node.get("const") {
        return if c == value {
            Ok(())
        } else {
            Err(format!("{at}: not {c}"))
        };
    }
    if let Some(e) = node["enum"].as_array() {
        return if e.contains(value) {
            Ok(())
        } else {
            Err(format!("{at}: not in enum"))
        };
    }
    if let Value::Object(map) = value {
        for req in node["required"].as_array().into_iter().flatten() {
            let req = req.as_str().unwrap();
            if !map.contains_key(req) {
                return Err(format!("{at}.{req}: required by the schema"));
            }
        }
        for (k, v) in map {
            let prop = &node["properties"][k];
            if prop.is_null() {
                return Err(format!("{at}.{k}: not in the schema's properties"));
            }
            fits(prop, v, &format!("{at}.{k}"))?;
        }
    }
    if let Value::Array(items) = value {
        if let Some(min) = node["minItems"].as_u64()
            && (items.len() as u64) < min
        {
            return Err(format!("{at}: fewer than {min} items"));
        }
        if let Some(max) = node["maxItems"].as_u64()
            && items.len() as u64 > max
        {
            return Err(format!("{at}: more than {max} items"));
        }
        for (i, item) in items.iter().enumerate() {
            fits(&node["items"], item, &format!("{at}[{i}]"))?;
        }
    }
    Ok(())
}

fn matching_form(value: &Value) -> Vec<usize> {
    let s = schema();
    s["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .filter(|(_, form)| fits(form, value, "$").is_ok())
        .map(|(i, _)| i)
        .collect()
}

#[test]
fn the_schema_is_draft_2020_12_json() {
    let s = schema();
    assert_eq!(s["$schema"], "https://json-schema.org/draft/2020-12/schema");
    assert_eq!(s["oneOf"].as_array().map(Vec::len), Some(2));
}

#[test]
fn the_design_ask_example_fits_only_the_ask_form() {
    let ask = json!({ "receipt": "ask", "version": 1,
      "questions": [
        { "topic": "deployment_target", "question_text": "Where will this service run?", "severity": 7,
          "options": [ {"label": "Kubernetes", "value": "k8s"}, {"label": "One VM", "value": "vm"} ],
          "recommended": "k8s" } ] });
    assert_eq!(matching_form(&ask), vec![0]);
}

#[test]
fn the_design_done_example_fits_only_the_done_form() {
    let done = json!({ "receipt": "done", "version": 1, "title": "Intent of #42: export to CSV",
      "summary": "…",
      "entries": [
        { "title": "…", "content": "…", "clarity": "declared-by-user", "sources": ["qa:deployment_target"] },
        { "title": "…", "content": "…", "clarity": "confirmed", "sources": ["src/export.rs:40"] },
        { "title": "Which encodings must be supported?", "content": "…", "clarity": "open-question", "sources": [] } ] });
    assert_eq!(matching_form(&done), vec![1]);
}

#[test]
fn an_unknown_field_fits_no_form() {
    let bad = json!({ "receipt": "ask", "version": 1, "questions": [
        { "topic": "a", "question_text": "Q?", "severity": 1, "colour": "red" } ] });
    assert!(matching_form(&bad).is_empty());
}

#[test]
fn the_schema_limits_match_the_checks() {
    let ask = def("ask");
    assert_eq!(ask["properties"]["version"]["const"], json!(VERSION));
    assert_eq!(
        ask["properties"]["questions"]["maxItems"],
        json!(MAX_QUESTIONS)
    );
    let q = def("question");
    assert_eq!(
        q["properties"]["topic"]["pattern"],
        "^[a-z][a-z0-9_]{0,63}$"
    );
    assert_eq!(
        q["properties"]["question_text"]["maxLength"],
        json!(MAX_QUESTION_TEXT_CHARS)
    );
    assert_eq!(
        q["properties"]["severity"]["minimum"],
        json!(SEVERITY_RANGE.start())
    );
    assert_eq!(
        q["properties"]["severity"]["maximum"],
        json!(SEVERITY_RANGE.end())
    );
    assert_eq!(q["properties"]["options"]["minItems"], json!(MIN_OPTIONS));
    assert_eq!(q["properties"]["options"]["maxItems"], json!(MAX_OPTIONS));
    let o = def("option");
    assert_eq!(
        o["properties"]["label"]["maxLength"],
        json!(MAX_OPTION_CHARS)
    );
    assert_eq!(
        o["properties"]["value"]["maxLength"],
        json!(MAX_OPTION_CHARS)
    );
    let d = def("done");
    assert_eq!(
        d["properties"]["title"]["maxLength"],
        json!(MAX_TITLE_CHARS)
    );
    assert_eq!(
        d["properties"]["summary"]["maxLength"],
        json!(MAX_SUMMARY_CHARS)
    );
    assert_eq!(d["properties"]["entries"]["maxItems"], json!(MAX_ENTRIES));
    let e = def("entry");
    assert_eq!(
        e["properties"]["title"]["maxLength"],
        json!(MAX_ENTRY_TITLE_CHARS)
    );
    assert_eq!(
        e["properties"]["content"]["maxLength"],
        json!(MAX_CONTENT_CHARS)
    );
    assert_eq!(e["properties"]["sources"]["maxItems"], json!(MAX_SOURCES));
    assert_eq!(def("source")["maxLength"], json!(MAX_SOURCE_CHARS));
}

#[test]
fn the_schema_names_every_clarity() {
    let e = def("entry");
    let names: Vec<&str> = e["properties"]["clarity"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let all = [
        super::Clarity::Confirmed,
        super::Clarity::Inferred,
        super::Clarity::DeclaredByUser,
        super::Clarity::OpenQuestion,
    ];
    assert_eq!(names, all.map(|c| c.as_str()));
}
