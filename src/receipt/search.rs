//! Reading a JSON value at many places of one text, in time linear in the text: the search for
//! a receipt among a runner's prose, and for a CLI's envelope after its warning lines.
//!
//! Attempts that succeed do not overlap. An attempt that fails may have read far (an object left
//! open to the end), and each brace nested in what it read and still open where it failed would
//! fail at the same byte: those are passed over, not read again. Whatever is left (text that
//! reads as JSON two ways at once, strings inside out) is bounded by a budget on the bytes read
//! by failed attempts, [`BYTES_PER_BYTE`] times the text plus [`BYTES_FLOOR`].

/// Failed attempts may read this many bytes per byte of the text…
pub(crate) const BYTES_PER_BYTE: usize = 4;
/// …plus this many, so a short text is always searched in full.
pub(crate) const BYTES_FLOOR: usize = 1 << 20;

/// A failed attempt shorter than this is not looked into for braces to pass over.
const LOOK_INTO: usize = 16;
/// Braces this close to where an attempt failed are tried anyway: serde_json names the failing
/// byte with a little slack (a `\u` escape's four digits), and a brace wrongly passed over would
/// hide an object.
const SLACK: usize = 8;

/// What one attempt to read a JSON value at a byte of the text gave.
pub(crate) enum Attempt<T> {
    /// The value, and the byte just after it.
    Value(T, usize),
    /// No value there; the text from the attempt's start to `until` was read as JSON.
    Failed {
        error: serde_json::Error,
        until: usize,
    },
    /// Failed attempts have read as much as the search may: stop.
    OverBudget,
}

pub(crate) struct Search<'a> {
    text: &'a str,
    left: usize,
    /// Braces known to fail where an earlier attempt failed (empty until one is found).
    known_to_fail: Vec<bool>,
}

impl<'a> Search<'a> {
    pub(crate) fn new(text: &'a str) -> Search<'a> {
        Search {
            text,
            left: text
                .len()
                .saturating_mul(BYTES_PER_BYTE)
                .saturating_add(BYTES_FLOOR),
            known_to_fail: Vec::new(),
        }
    }

    /// Read one JSON value starting at byte `start`, a `{` or `[` (self-delimited: nothing after
    /// it is looked at).
    pub(crate) fn value_at<T: serde::de::DeserializeOwned>(&mut self, start: usize) -> Attempt<T> {
        if self.left == 0 {
            return Attempt::OverBudget;
        }
        let rest = &self.text[start..];
        let mut values = serde_json::Deserializer::from_str(rest).into_iter::<T>();
        match values.next() {
            Some(Ok(value)) => Attempt::Value(value, start + values.byte_offset()),
            Some(Err(error)) => {
                let read = failed_at(rest, &error);
                self.left = self.left.saturating_sub(read);
                Attempt::Failed {
                    error,
                    until: start + read,
                }
            }
            None => Attempt::Failed {
                error: <serde_json::Error as serde::de::Error>::custom("no value"),
                until: start,
            },
        }
    }

    /// True when the brace at `start` is known to fail (see [`Search::pass_over_open_objects`]).
    pub(crate) fn known_to_fail(&self, start: usize) -> bool {
        self.known_to_fail.get(start).copied().unwrap_or(false)
    }

    /// An attempt at `start` failed at `until`: note the objects opened in what it read and
    /// still open there, which would fail at the same byte.
    pub(crate) fn pass_over_open_objects(&mut self, start: usize, until: usize) {
        if until.saturating_sub(start) < LOOK_INTO || self.left == 0 {
            return;
        }
        self.left = self.left.saturating_sub(until - start);
        let open = open_objects(&self.text.as_bytes()[start..until]);
        if self.known_to_fail.is_empty() {
            self.known_to_fail = vec![false; self.text.len()];
        }
        let last = until - start - SLACK.min(until - start);
        for at in open.into_iter().filter(|&at| at > 0 && at < last) {
            self.known_to_fail[start + at] = true;
        }
    }
}

/// The offsets of the `{` still open at the end of `json`, a prefix of a JSON value that
/// serde_json read without fault.
fn open_objects(json: &[u8]) -> Vec<usize> {
    let mut open: Vec<(u8, usize)> = Vec::new();
    let (mut in_string, mut escaped, mut hex) = (false, false, 0u8);
    for (at, &b) in json.iter().enumerate() {
        if in_string {
            if hex > 0 {
                hex -= 1;
            } else if escaped {
                escaped = false;
                if b == b'u' {
                    hex = 4;
                }
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => open.push((b, at)),
            b'}' | b']' => {
                open.pop();
            }
            _ => {}
        }
    }
    open.into_iter()
        .filter(|&(b, _)| b == b'{')
        .map(|(_, at)| at)
        .collect()
}

/// How far into `text` serde_json read before `error`: the failing byte, which its line and
/// column name one past (the end of the text for an unexpected end).
fn failed_at(text: &str, error: &serde_json::Error) -> usize {
    if error.classify() == serde_json::error::Category::Eof {
        return text.len();
    }
    let start_of_line = match error.line() {
        0 | 1 => 0,
        line => text
            .bytes()
            .enumerate()
            .filter(|&(_, b)| b == b'\n')
            .nth(line - 2)
            .map_or(text.len(), |(i, _)| i + 1),
    };
    start_of_line
        .saturating_add(error.column())
        .saturating_sub(1)
        .clamp(1, text.len().max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_objects_still_open_are_found_past_strings_and_escapes() {
        let json = br#"{"a":{"b":"{\"\u007b{","c":[{}],"d":{"#;
        assert_eq!(open_objects(json), vec![0, 5, 36]);
    }

    #[test]
    fn an_unexpected_end_is_at_the_end_and_other_faults_at_their_byte() {
        let fail = |text: &str| {
            let mut values =
                serde_json::Deserializer::from_str(text).into_iter::<serde::de::IgnoredAny>();
            let error = values.next().unwrap().unwrap_err();
            failed_at(text, &error)
        };
        assert_eq!(fail("{\"a\":{"), 6);
        assert_eq!(fail("{\"a\" 1}"), 5);
        assert_eq!(fail("{\n\"a\":\n[1}"), 9);
    }
}
