//! Finding the receipt in what a runner printed: the last stage after a preset has unwrapped its
//! CLI's JSON envelope. Exactly one top-level JSON object, bare or inside one fenced block.

use super::search::{Attempt, Search};
use super::{MAX_RECEIPT_BYTES, ReceiptError};

/// Printed output larger than this is not searched (the receipt itself is limited to 256 KiB;
/// the rest is room for the prose around it).
pub(crate) use crate::protocol::limits::MAX_STDOUT_BYTES;

/// Extract the one JSON object from a runner's printed output (or the text a preset took out of
/// its CLI's envelope).
///
/// The object may stand alone or sit inside a fenced block (```` ```json ```` or ```` ``` ````);
/// prose around it is ignored. Every top-level JSON object in the text counts, fenced or not, so
/// an example object next to the receipt is an error rather than a guess.
///
/// Linear in the size of the text: each brace is tried once, a found object is skipped whole, and
/// the bytes read by attempts that failed are bounded (see `Search`) (a text made of
/// unfinished objects is refused rather than searched for minutes).
pub(crate) fn extract_from_stdout(stdout: &str) -> Result<String, ReceiptError> {
    if stdout.len() > MAX_STDOUT_BYTES {
        return Err(ReceiptError::OutputTooLarge {
            size: stdout.len(),
            max: MAX_STDOUT_BYTES,
        });
    }
    let mut search = Search::new(stdout);
    let mut lines = LineCounter::new(stdout);
    let mut first: Option<(usize, usize)> = None;
    let mut count = 0usize;
    let mut shown_lines: Vec<usize> = Vec::new();
    let mut at = 0;
    let bytes = stdout.as_bytes();
    let mut braces = 0u32;
    while at < bytes.len() {
        // Megabytes of braces take a moment in a debug build: a Ctrl+C is not kept waiting.
        braces = braces.wrapping_add(1);
        if braces.is_multiple_of(4096) && crate::signals::interrupted() {
            return Err(ReceiptError::Interrupted);
        }
        let Some(start) = next_brace(stdout, at) else {
            break;
        };
        if search.known_to_fail(start) {
            at = start + 1;
            continue;
        }
        // Most braces in prose or code are not followed by a key: no parser needed to tell.
        let inside = past_blanks(bytes, start + 1);
        let attempt = match bytes.get(inside) {
            Some(b'"') => search.value_at::<serde::de::IgnoredAny>(start),
            Some(b'}') => Attempt::Value(serde::de::IgnoredAny, inside + 1),
            _ => {
                at = start + 1;
                continue;
            }
        };
        match attempt {
            Attempt::Value(_, end) => {
                count += 1;
                first.get_or_insert((start, end));
                if shown_lines.len() < SEVERAL_LINES_SHOWN {
                    shown_lines.push(lines.line_of(start));
                }
                at = end;
            }
            // An object broken by a raw line break in a string (a CLI that wraps its output):
            // say so, rather than report the smaller objects inside it.
            Attempt::Failed { error: e, until } if is_broken_string(&e, stdout, start, until) => {
                return Err(broken_string(stdout, start, lines.line_of(start), &e));
            }
            // Not JSON here (prose braces, code): look at the next brace (the braces nested in
            // what was read, and still open where it failed, fail there too: not tried again).
            Attempt::Failed { until, .. } => {
                search.pass_over_open_objects(start, until);
                at = start + 1;
            }
            Attempt::OverBudget => {
                return Err(ReceiptError::OutputTooTangled {
                    line: lines.line_of(start),
                });
            }
        }
    }
    the_one_object(stdout, count, first, shown_lines)
}

/// The first `{` at or after `at`.
fn next_brace(text: &str, at: usize) -> Option<usize> {
    if text.as_bytes()[at] == b'{' {
        Some(at)
    } else {
        text[at..].find('{').map(|offset| at + offset)
    }
}

/// The first byte at or after `at` that is no blank (space, tab, line break).
fn past_blanks(bytes: &[u8], mut at: usize) -> usize {
    while at < bytes.len() && matches!(bytes[at], b' ' | b'\n' | b'\t' | b'\r') {
        at += 1;
    }
    at
}

/// The error of an object at `start` (on line `start_line`) broken by a raw line break in a
/// string, at the line and column of the text where it broke.
fn broken_string(
    text: &str,
    start: usize,
    start_line: usize,
    e: &serde_json::Error,
) -> ReceiptError {
    let before = &text[..start];
    let line = start_line - 1 + e.line();
    let column = if e.line() == 1 {
        before.len() - before.rfind('\n').map_or(0, |i| i + 1) + e.column()
    } else {
        e.column()
    };
    ReceiptError::Json {
        line,
        column,
        reason: "a raw line break inside a string (write line breaks as \\n; \
                 the CLI may have wrapped its output)"
            .into(),
    }
}

/// The receipt when exactly one object was found (`first`, of `count`); else what was wrong,
/// with the lines of the first few objects.
fn the_one_object(
    text: &str,
    count: usize,
    first: Option<(usize, usize)>,
    shown_lines: Vec<usize>,
) -> Result<String, ReceiptError> {
    match (count, first) {
        (1, Some((start, end))) => {
            let object = &text[start..end];
            if object.len() as u64 > MAX_RECEIPT_BYTES {
                return Err(ReceiptError::TooLarge {
                    file: "printed by the runner".into(),
                    size: object.len() as u64,
                });
            }
            Ok(object.to_string())
        }
        (0, _) | (_, None) => Err(ReceiptError::NoObjectInOutput),
        (count, Some(_)) => Err(ReceiptError::SeveralObjectsInOutput {
            count,
            lines: shown_lines,
        }),
    }
}

/// How many of several objects' lines an error names (the count is always exact).
pub(super) const SEVERAL_LINES_SHOWN: usize = 10;

/// True when the attempt at `start` starts like a JSON object (`{"key"`) and failed on a
/// control character inside a string (at `until` or the byte after: the cheap tests first).
fn is_broken_string(e: &serde_json::Error, text: &str, start: usize, until: usize) -> bool {
    let looks_like_object = text[start + 1..].trim_start().starts_with('"');
    let near = &text.as_bytes()[until.min(text.len())..(until + 2).min(text.len())];
    looks_like_object
        && e.classify() == serde_json::error::Category::Syntax
        && near.iter().any(|&b| b < 0x20)
        && e.to_string().starts_with("control character")
}

/// The line numbers of increasing byte offsets, counted once from the last offset asked.
struct LineCounter<'a> {
    text: &'a [u8],
    at: usize,
    line: usize,
}

impl<'a> LineCounter<'a> {
    fn new(text: &'a str) -> LineCounter<'a> {
        LineCounter {
            text: text.as_bytes(),
            at: 0,
            line: 1,
        }
    }

    /// The 1-based line of byte `offset` (never smaller than an offset asked before).
    fn line_of(&mut self, offset: usize) -> usize {
        let offset = offset.clamp(self.at, self.text.len());
        self.line += self.text[self.at..offset]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        self.at = offset;
        self.line
    }
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

    /// The search as it was before it was made linear (it read the text again from every
    /// brace that did not start an object): what the linear one must still find.
    fn quadratic_reference(stdout: &str) -> Result<String, ReceiptError> {
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
                Some(Err(e))
                    if e.to_string().starts_with("control character")
                        && stdout[start + 1..].trim_start().starts_with('"') =>
                {
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
                        reason: String::new(),
                    });
                }
                _ => at = start + 1,
            }
        }
        match found.as_slice() {
            [] => Err(ReceiptError::NoObjectInOutput),
            [(start, end)] => Ok(stdout[*start..*end].to_string()),
            several => Err(ReceiptError::SeveralObjectsInOutput {
                count: several.len(),
                lines: several
                    .iter()
                    .map(|(start, _)| stdout[..*start].matches('\n').count() + 1)
                    .take(SEVERAL_LINES_SHOWN)
                    .collect(),
            }),
        }
    }

    /// Where a runner's 4 MiB goes: each text is nearly [`MAX_STDOUT_BYTES`] long.
    fn four_mib_of(unit: &str, then: &str) -> String {
        let mut text = unit.repeat((MAX_STDOUT_BYTES - then.len()) / unit.len());
        text.push_str(then);
        text
    }

    #[test]
    fn four_mib_of_any_brace_pattern_is_searched_in_linear_time() {
        let patterns = [
            // Each nested deeper, read up to the nesting limit before it fails.
            ("{\"a\":", ""),
            ("{\"a\":[1,", ""),
            ("{{{{", RECEIPT),
            ("{\"a\":\"{\",", ""),
            // Many small objects: each one's line was counted from the start of the text.
            ("{}\n", ""),
            ("x\n", RECEIPT),
            ("[1, {\"b\": 2} ", ""),
        ];
        for (unit, then) in patterns {
            let text = four_mib_of(unit, then);
            let started = std::time::Instant::now();
            let result = extract_from_stdout(&text);
            let took = started.elapsed();
            eprintln!("{unit:?}: {took:?}");
            // Milliseconds in a release build; a debug build on a loaded machine is far slower,
            // and the quadratic search took minutes.
            assert!(
                took < std::time::Duration::from_secs(15),
                "{unit:?} took {took:?}: {result:?}"
            );
        }
    }

    #[test]
    fn a_receipt_after_four_mib_of_prose_is_found() {
        let text = four_mib_of("Some prose, a brace { and code(); }\n", RECEIPT);
        assert_eq!(extract_from_stdout(&text).unwrap(), RECEIPT);
    }

    #[test]
    fn nested_unfinished_objects_are_passed_over_not_read_again() {
        let text = four_mib_of("{\"a\":", RECEIPT);
        assert_eq!(extract_from_stdout(&text).unwrap(), RECEIPT);
    }

    #[test]
    fn many_objects_are_counted_and_the_first_lines_named() {
        let text = "{}\n".repeat(1000);
        let err = extract_from_stdout(&text).unwrap_err();
        assert_eq!(
            err,
            ReceiptError::SeveralObjectsInOutput {
                count: 1000,
                lines: (1..=SEVERAL_LINES_SHOWN).collect()
            }
        );
        assert!(
            err.to_string()
                .starts_with("1000 JSON objects in the runner's output (at lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, …);"),
            "{err}"
        );
    }

    /// Mostly JSON punctuation, so that objects, broken objects and strings all occur.
    fn jsonish() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            prop_oneof![
                Just("{"),
                Just("}"),
                Just("["),
                Just("]"),
                Just("\""),
                Just(":"),
                Just(","),
                Just("\\"),
                Just("\n"),
                Just(" "),
                Just("a"),
                Just("1"),
                Just("\"a\":"),
                Just("{}"),
                Just("\u{1}"),
                Just("é"),
            ],
            0..60,
        )
        .prop_map(|parts| parts.concat())
    }

    proptest! {
        #[test]
        fn the_linear_search_finds_what_the_quadratic_one_found(text in jsonish()) {
            let linear = extract_from_stdout(&text);
            let reference = quadratic_reference(&text);
            match (&linear, &reference) {
                (
                    Err(ReceiptError::Json { line, column, .. }),
                    Err(ReceiptError::Json { line: l, column: c, .. }),
                ) => prop_assert_eq!((line, column), (l, c)),
                _ => prop_assert_eq!(linear, reference),
            }
        }

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
