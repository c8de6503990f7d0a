//! A JSON value that keeps every key of an object in order, duplicates included, so the checks
//! can reject a duplicated key by its JSON path instead of silently keeping one of them.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, MapAccess, SeqAccess, Visitor};

/// A parsed JSON value; objects keep duplicate keys for the checks to reject.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Json {
    Null,
    Bool(bool),
    /// An integer that fits `i64`.
    Int(i64),
    /// Any other number (fractions, exponents, integers beyond `i64`).
    Float(f64),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

/// The JSON type name of a `serde_json` value, for messages ("a string", "an object"), the
/// same words as `Json::kind`.
pub(crate) fn json_kind(v: &serde_json::Value) -> &'static str {
    use serde_json::Value;
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl Json {
    /// The JSON type name, for messages.
    pub(super) fn kind(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "a boolean",
            Json::Int(_) | Json::Float(_) => "a number",
            Json::String(_) => "a string",
            Json::Array(_) => "an array",
            Json::Object(_) => "an object",
        }
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
        Ok(Json::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
        Ok(Json::Int(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
        Ok(i64::try_from(v).map_or(Json::Float(v as f64), Json::Int))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Json, E> {
        Ok(Json::Float(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Json, E> {
        Ok(Json::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Json, E> {
        Ok(Json::String(v))
    }

    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_none<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Json, D::Error> {
        Json::deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut fields = Vec::new();
        while let Some((key, value)) = map.next_entry::<String, Json>()? {
            fields.push((key, value));
        }
        Ok(Json::Object(fields))
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Json, D::Error> {
        d.deserialize_any(JsonVisitor)
    }
}

/// Parse one JSON document (serde_json's nesting limit applies, so deep input is an error, not a
/// stack overflow).
pub(super) fn parse(text: &str) -> Result<Json, serde_json::Error> {
    serde_json::from_str(text)
}

/// A JSONPath to a value, built while walking the receipt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct JsonPath(String);

impl JsonPath {
    pub(super) fn root() -> JsonPath {
        JsonPath("$".to_string())
    }

    /// `$.key`, or `$["odd key"]` when the key is not a plain name.
    pub(super) fn key(&self, key: &str) -> JsonPath {
        let plain = key
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if plain {
            JsonPath(format!("{}.{key}", self.0))
        } else {
            JsonPath(format!("{}[{}]", self.0, super::sanitize::quoted(key)))
        }
    }

    pub(super) fn index(&self, i: usize) -> JsonPath {
        JsonPath(format!("{}[{i}]", self.0))
    }
}

impl fmt::Display for JsonPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicate_keys_are_kept_in_order() {
        let v = parse(r#"{"a":1,"a":"two"}"#).unwrap();
        assert_eq!(
            v,
            Json::Object(vec![
                ("a".into(), Json::Int(1)),
                ("a".into(), Json::String("two".into()))
            ])
        );
    }

    #[test]
    fn integers_and_fractions_are_told_apart() {
        assert_eq!(parse("7").unwrap(), Json::Int(7));
        assert_eq!(parse("7.0").unwrap(), Json::Float(7.0));
        assert_eq!(parse("-3").unwrap(), Json::Int(-3));
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = "[".repeat(100_000);
        assert!(parse(&deep).is_err());
    }

    #[test]
    fn trailing_text_is_an_error() {
        assert!(parse("{} {}").is_err());
    }

    #[test]
    fn odd_keys_use_bracket_notation() {
        let root = JsonPath::root();
        assert_eq!(root.key("questions").index(1).to_string(), "$.questions[1]");
        assert_eq!(root.key("we ird").to_string(), "$[\"we ird\"]");
    }
}
