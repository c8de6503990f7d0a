//! Finding the receipt in what a runner printed: the last stage after a preset has unwrapped its
//! CLI's JSON envelope. Exactly one top-level JSON object, bare or inside one fenced block.

use super::{MAX_RECEIPT_BYTES, ReceiptError};

/// Printed output larger than this is not searched (the receipt itself is limited to 256 KiB;
/// the rest is room for the prose around it).
pub use crate::protocol::limits::MAX_STDOUT_BYTES;

/// Extract the one JSON object from a runner's printed output (or the text a preset took out of
/// its CLI's envelope).
///
/// The object may stand alone or sit inside a fenced block (```` ```json ```` or ```` ``` ````);
/// prose around it is ignored. Every top-level JSON object in the text counts, fenced or not, so
/// an example object next to the receipt is an error rather than a guess.
pub fn extract_from_stdout(stdout: &str) -> Result<String, ReceiptError> {
    if stdout.len() > MAX_STDOUT_BYTES {
        return Err(ReceiptError::OutputTooLarge {
            size: stdout.len(),
            max: MAX_STDOUT_BYTES,
        });
    }
    let mut found: Vec<(usize, usize)> = Vec::new();
    let mut at = 0;
    while let Some(offset) = stdout[at..].find('{') {
        let start = at + offset;
        let mut values = serde_json::Deserializer::from_str(&stdout[start..])
            .into_iter::<serde::de::IgnoredAny>();
        match values.next() {
            Some(Ok(_)) => {
                let end = start + values.byte_offset();
                found.push((start, end));
                at = end;
            }
            // An object broken by a raw line break in a string (a CLI that wraps its output):
            // say so, rather than report the smaller objects inside it.
            Some(Err(e)) if is_broken_string(&e, &stdout[start..]) => {
                let before = &stdout[..start];
                let line = before.matches('\n').count() + e.line();
                let column = if e.line() == 1 {
                    before.len() - before.rfind('\n').map_or(0, |i| i + 1) + e.column()
                } else {
                    e.column()
                };
                return Err(ReceiptError::Json {
                    line,
                    column,
                    reason: "a raw line break inside a string (write line breaks as \\n; \
                             the CLI may have wrapped its output)"
                        .into(),
                });
            }
            // Not JSON here (prose braces, code): look at the next brace.
            _ => at = start + 1,
        }
    }
    match found.as_slice() {
        [] => Err(ReceiptError::NoObjectInOutput),
        [(start, end)] => {
            let object = &stdout[*start..*end];
            if object.len() as u64 > MAX_RECEIPT_BYTES {
                return Err(ReceiptError::TooLarge {
                    file: "printed by the runner".into(),
                    size: object.len() as u64,
                });
            }
            Ok(object.to_string())
        }
        several => Err(ReceiptError::SeveralObjectsInOutput {
            count: several.len(),
            lines: several
                .iter()
                .map(|(start, _)| stdout[..*start].matches('\n').count() + 1)
                .collect(),
        }),
    }
}

/// True when `candidate` starts like a JSON object (`{"key"`) and parsing failed on a control
/// character inside a string.
fn is_broken_string(e: &serde_json::Error, candidate: &str) -> bool {
    let looks_like_object = candidate[1..].trim_start().starts_with('"');
    looks_like_object
        && e.classify() == serde_json::error::Category::Syntax
        && e.to_string().starts_with("control character")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const RECEIPT: &str = r#"{"receipt":"done","version":1,"title":"T","entries":[]}"#;

    #[test]
    fn a_raw_line_break_in_a_string_is_named_not_split_into_inner_objects() {
        let text = "Here it is:\n{\"receipt\":\"done\",\"version\":1,\"title\":\"T\",\"entries\":[\
                    {\"title\":\"a\",\"content\":\"wrapped\nhere\",\"clarity\":\"inferred\"},\
                    {\"title\":\"b\",\"content\":\"\",\"clarity\":\"inferred\"}]}\n";
        let err = extract_from_stdout(text).unwrap_err();
        let ReceiptError::Json { line, reason, .. } = &err else {
            panic!("{err:?}");
        };
        assert_eq!(*line, 2, "{err}");
        assert!(reason.contains("raw line break inside a string"), "{err}");
        assert!(!err.to_string().contains("JSON objects"), "{err}");
    }

    #[test]
    fn a_bare_object_is_extracted() {
        assert_eq!(extract_from_stdout(RECEIPT).unwrap(), RECEIPT);
    }

    #[test]
    fn prose_around_the_object_is_ignored() {
        let text = format!("Here is my receipt {{as asked}}:\n{RECEIPT}\nThanks!\n");
        assert_eq!(extract_from_stdout(&text).unwrap(), RECEIPT);
    }

    #[test]
    fn an_object_in_a_json_fence_is_extracted() {
        let text = format!("Done.\n\n```json\n{RECEIPT}\n```\n");
        assert_eq!(extract_from_stdout(&text).unwrap(), RECEIPT);
    }

    #[test]
    fn an_object_in_a_plain_fence_is_extracted() {
        let pretty = "{\n  \"receipt\": \"ask\",\n  \"questions\": [{\"topic\": \"a\"}]\n}";
        let text = format!("```\n{pretty}\n```");
        assert_eq!(extract_from_stdout(&text).unwrap(), pretty);
    }

    #[test]
    fn braces_inside_strings_do_not_split_the_object() {
        let text = r#"{"receipt":"done","title":"a } { b","entries":[{"content":"{}"}]}"#;
        assert_eq!(extract_from_stdout(text).unwrap(), text);
    }

    #[test]
    fn no_object_is_a_named_error() {
        let err = extract_from_stdout("I could not decide. [1, 2]").unwrap_err();
        assert_eq!(err, ReceiptError::NoObjectInOutput);
        assert!(err.to_string().contains("no JSON object"), "{err}");
    }

    #[test]
    fn an_unterminated_object_is_no_object() {
        let err = extract_from_stdout("{\"receipt\": \"done\", ").unwrap_err();
        assert_eq!(err, ReceiptError::NoObjectInOutput);
    }

    #[test]
    fn two_objects_are_a_named_error_with_their_lines() {
        let text = format!("```json\n{RECEIPT}\n```\nor maybe\n```json\n{RECEIPT}\n```\n");
        let err = extract_from_stdout(&text).unwrap_err();
        assert_eq!(
            err,
            ReceiptError::SeveralObjectsInOutput {
                count: 2,
                lines: vec![2, 6]
            }
        );
        assert!(err.to_string().contains("at lines 2, 6"), "{err}");
    }

    #[test]
    fn an_example_object_beside_the_receipt_is_refused() {
        let text = format!("Example: {{}}\n{RECEIPT}");
        assert!(matches!(
            extract_from_stdout(&text),
            Err(ReceiptError::SeveralObjectsInOutput { count: 2, .. })
        ));
    }

    #[test]
    fn oversized_output_is_refused() {
        let text = " ".repeat(MAX_STDOUT_BYTES + 1);
        assert!(matches!(
            extract_from_stdout(&text),
            Err(ReceiptError::OutputTooLarge { .. })
        ));
    }

    #[test]
    fn an_object_over_256_kib_is_refused() {
        let text = format!("{{\"a\":\"{}\"}}", "x".repeat(MAX_RECEIPT_BYTES as usize));
        assert!(matches!(
            extract_from_stdout(&text),
            Err(ReceiptError::TooLarge { .. })
        ));
    }

    #[test]
    fn many_stray_braces_are_searched_quickly() {
        let text = format!("{}{RECEIPT}", "{".repeat(200_000));
        let started = std::time::Instant::now();
        assert_eq!(extract_from_stdout(&text).unwrap(), RECEIPT);
        assert!(started.elapsed().as_secs() < 5);
    }

    proptest! {
        #[test]
        fn extraction_never_panics(text in any::<String>()) {
            let _ = extract_from_stdout(&text);
        }

        #[test]
        fn the_receipt_survives_any_prose_without_braces(
            before in "[^{}]{0,80}",
            after in "[^{}]{0,80}",
        ) {
            let text = format!("{before}\n```json\n{RECEIPT}\n```\n{after}");
            prop_assert_eq!(extract_from_stdout(&text).unwrap(), RECEIPT);
        }
    }
}
