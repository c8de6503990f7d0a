//! The sanitiser: makes runner text safe to show on a terminal or write to a file (see `docs/receipt.md`, "Sanitising").
//!
//! Escape sequences and control characters are removed; invisible characters that change how
//! text reads (bidi controls, zero-width characters, tag characters) are replaced by a visible
//! marker such as `<U+202E>`, so a reviewer sees that something was there.

use std::fmt;

use serde::Serialize;

/// How many things of each kind the sanitiser removed or marked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct SanitizeReport {
    /// Terminal escape sequences removed whole (CSI, OSC, DCS, APC, PM, SOS, two-character escapes,
    /// lone ESC), in 7-bit and 8-bit form.
    pub escape_sequences: usize,
    /// C0 controls other than `\n` and `\t`, DEL, and C1 controls, removed.
    pub control_chars: usize,
    /// Bidi controls (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C), marked.
    pub bidi_controls: usize,
    /// Zero-width characters (U+200B, U+200C, U+2060, U+FEFF), marked.
    pub zero_width: usize,
    /// Tag characters (U+E0000–U+E007F), marked.
    pub tag_chars: usize,
}

impl SanitizeReport {
    /// Add the counts of `other` to these.
    pub fn merge(&mut self, other: &SanitizeReport) {
        self.escape_sequences += other.escape_sequences;
        self.control_chars += other.control_chars;
        self.bidi_controls += other.bidi_controls;
        self.zero_width += other.zero_width;
        self.tag_chars += other.tag_chars;
    }

    /// True when the text was left unchanged.
    pub fn is_empty(&self) -> bool {
        self.total() == 0
    }

    /// Everything removed or marked, all kinds together.
    pub fn total(&self) -> usize {
        self.escape_sequences
            + self.control_chars
            + self.bidi_controls
            + self.zero_width
            + self.tag_chars
    }
}

fn counted(n: usize, one: &str, many: &str) -> Option<String> {
    match n {
        0 => None,
        1 => Some(format!("1 {one}")),
        n => Some(format!("{n} {many}")),
    }
}

impl fmt::Display for SanitizeReport {
    /// `removed 2 escape sequences, 1 control character; marked 1 bidi control`, or
    /// `nothing removed`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let removed: Vec<String> = [
            counted(self.escape_sequences, "escape sequence", "escape sequences"),
            counted(
                self.control_chars,
                "control character",
                "control characters",
            ),
        ]
        .into_iter()
        .flatten()
        .collect();
        let marked: Vec<String> = [
            counted(self.bidi_controls, "bidi control", "bidi controls"),
            counted(
                self.zero_width,
                "zero-width character",
                "zero-width characters",
            ),
            counted(self.tag_chars, "tag character", "tag characters"),
        ]
        .into_iter()
        .flatten()
        .collect();
        let mut parts = Vec::new();
        if !removed.is_empty() {
            parts.push(format!("removed {}", removed.join(", ")));
        }
        if !marked.is_empty() {
            parts.push(format!("marked {}", marked.join(", ")));
        }
        if parts.is_empty() {
            f.write_str("nothing removed")
        } else {
            f.write_str(&parts.join("; "))
        }
    }
}

const ESC: char = '\u{1b}';
const BEL: char = '\u{07}';
const CAN: char = '\u{18}';
const SUB: char = '\u{1a}';
/// 8-bit String Terminator.
const ST8: char = '\u{9c}';

fn is_bidi(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

fn is_zero_width(c: char) -> bool {
    matches!(c, '\u{200B}' | '\u{200C}' | '\u{2060}' | '\u{FEFF}')
}

fn is_tag(c: char) -> bool {
    matches!(c, '\u{E0000}'..='\u{E007F}')
}

fn is_removed_control(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t') || c == '\u{7f}'
}

/// True for every code point the sanitiser never lets through unchanged.
pub(crate) fn is_forbidden(c: char) -> bool {
    is_removed_control(c) || is_bidi(c) || is_zero_width(c) || is_tag(c)
}

/// What kind of escape sequence starts here.
enum Sequence {
    /// Control Sequence Introducer: parameters and intermediates, then one final byte.
    Csi,
    /// OSC, DCS, APC, PM, SOS: a string ended by ST (or BEL).
    String,
}

/// Skip the body of a CSI sequence: parameter bytes 0x30–0x3F, intermediate bytes 0x20–0x2F,
/// then a final byte 0x40–0x7E. Anything else ends the sequence early and is left for the
/// caller, as a terminal would execute it.
fn skip_csi(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    while let Some(&c) = chars.peek() {
        match c {
            '\u{20}'..='\u{3f}' => {
                chars.next();
            }
            '\u{40}'..='\u{7e}' => {
                chars.next();
                return;
            }
            _ => return,
        }
    }
}

/// Skip the body of a control string up to and including its terminator: ST (`ESC \` or
/// U+009C) or BEL. CAN and SUB abort it (consumed); an ESC that is not part of ST ends it and
/// starts a new sequence, left for the caller. Unterminated strings run to the end of the text,
/// as a terminal would swallow them.
fn skip_string(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    while let Some(&c) = chars.peek() {
        match c {
            BEL | ST8 | CAN | SUB => {
                chars.next();
                return;
            }
            ESC => {
                let mut ahead = chars.clone();
                ahead.next();
                if ahead.peek() == Some(&'\\') {
                    chars.next();
                    chars.next();
                }
                return;
            }
            _ => {
                chars.next();
            }
        }
    }
}

/// Remove terminal escape sequences and control characters (but `\n` and `\t`), and replace bidi
/// controls, zero-width and tag characters by visible `<U+XXXX>` markers.
///
/// Idempotent: the output contains none of the characters it acts on.
pub(crate) fn sanitize(text: &str) -> (String, SanitizeReport) {
    let mut report = SanitizeReport::default();
    // Fast path: most text has nothing to do.
    if !text.chars().any(is_forbidden) {
        return (text.to_string(), report);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let sequence = match c {
            ESC => match chars.peek().copied() {
                Some('[') => {
                    chars.next();
                    Some(Sequence::Csi)
                }
                Some(']' | 'P' | '_' | '^' | 'X') => {
                    chars.next();
                    Some(Sequence::String)
                }
                // nF sequences: intermediates 0x20–0x2F, then a final byte 0x30–0x7E.
                Some('\u{20}'..='\u{2f}') => {
                    while chars
                        .next_if(|c| matches!(c, '\u{20}'..='\u{2f}'))
                        .is_some()
                    {}
                    chars.next_if(|c| matches!(c, '\u{30}'..='\u{7e}'));
                    report.escape_sequences += 1;
                    None
                }
                // Two-character escapes (ESC 7, ESC c, ESC =, ESC \ …).
                Some('\u{30}'..='\u{7e}') => {
                    chars.next();
                    report.escape_sequences += 1;
                    None
                }
                // A lone ESC.
                _ => {
                    report.escape_sequences += 1;
                    None
                }
            },
            '\u{9b}' => Some(Sequence::Csi),
            '\u{9d}' | '\u{90}' | '\u{9f}' | '\u{9e}' | '\u{98}' => Some(Sequence::String),
            c if is_removed_control(c) => {
                report.control_chars += 1;
                None
            }
            c if is_bidi(c) || is_zero_width(c) || is_tag(c) => {
                if is_bidi(c) {
                    report.bidi_controls += 1;
                } else if is_zero_width(c) {
                    report.zero_width += 1;
                } else {
                    report.tag_chars += 1;
                }
                out.push_str(&format!("<U+{:04X}>", u32::from(c)));
                None
            }
            c => {
                out.push(c);
                None
            }
        };
        match sequence {
            Some(Sequence::Csi) => {
                skip_csi(&mut chars);
                report.escape_sequences += 1;
            }
            Some(Sequence::String) => {
                skip_string(&mut chars);
                report.escape_sequences += 1;
            }
            None => {}
        }
    }
    (out, report)
}

/// [`sanitize`], then line breaks and tabs become spaces: for text shown on one line.
pub(crate) fn sanitize_line(text: &str) -> (String, SanitizeReport) {
    let (clean, report) = sanitize(text);
    let line = clean
        .chars()
        .map(|c| match c {
            '\n' | '\t' | '\u{2028}' | '\u{2029}' => ' ',
            c => c,
        })
        .collect();
    (line, report)
}

/// A value quoted for a message: one line, sanitised, shortened, in JSON-like quotes.
pub(crate) fn quoted(text: &str) -> String {
    const MAX: usize = 60;
    let (line, _) = sanitize_line(text);
    let short: String = if line.chars().count() > MAX {
        line.chars().take(MAX).chain(['…']).collect()
    } else {
        line
    };
    format!("{short:?}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn clean(text: &str) -> String {
        sanitize(text).0
    }

    #[test]
    fn plain_text_is_unchanged_and_reports_nothing() {
        let text = "Where will this run?\n\tIndented, with ünïcödé and emoji 🚀";
        assert_eq!(
            sanitize(text),
            (text.to_string(), SanitizeReport::default())
        );
    }

    #[test]
    fn csi_sequences_are_removed_whole() {
        let (out, report) = sanitize("a\u{1b}[31mred\u{1b}[0m b\u{1b}[2J\u{1b}[?1049h");
        assert_eq!(out, "ared b");
        assert_eq!(report.escape_sequences, 4);
        assert_eq!(report.total(), 4);
    }

    #[test]
    fn osc8_hyperlink_is_removed_whole_and_its_text_kept() {
        let text = "see \u{1b}]8;;https://evil.example/\u{1b}\\this link\u{1b}]8;;\u{1b}\\ now";
        let (out, report) = sanitize(text);
        assert_eq!(out, "see this link now");
        assert_eq!(report.escape_sequences, 2);
    }

    #[test]
    fn osc52_clipboard_write_is_removed_whole() {
        let (out, report) = sanitize("x\u{1b}]52;c;cm0gLXJmIH4K\u{07}y");
        assert_eq!(out, "xy");
        assert_eq!(report.escape_sequences, 1);
    }

    #[test]
    fn osc_title_ended_by_st_is_removed_whole() {
        let (out, report) = sanitize("\u{1b}]0;pwned title\u{1b}\\ok");
        assert_eq!(out, "ok");
        assert_eq!(report.escape_sequences, 1);
    }

    #[test]
    fn dcs_apc_pm_sos_strings_are_removed_whole() {
        let text = "1\u{1b}Pq#0;2;0;0;0\u{1b}\\2\u{1b}_apc body\u{1b}\\3\u{1b}^pm body\u{1b}\\4\u{1b}Xsos\u{1b}\\5";
        let (out, report) = sanitize(text);
        assert_eq!(out, "12345");
        assert_eq!(report.escape_sequences, 4);
    }

    #[test]
    fn eight_bit_c1_sequences_are_removed_whole() {
        let text = "a\u{9b}31mb\u{9d}8;;http://x\u{9c}c\u{90}dcs\u{9c}d\u{9f}apc\u{9c}e";
        let (out, report) = sanitize(text);
        assert_eq!(out, "abcde");
        assert_eq!(report.escape_sequences, 4);
        assert_eq!(report.control_chars, 0);
    }

    #[test]
    fn unterminated_osc_swallows_the_rest_like_a_terminal() {
        let (out, report) = sanitize("keep\u{1b}]8;;http://x hidden");
        assert_eq!(out, "keep");
        assert_eq!(report.escape_sequences, 1);
    }

    #[test]
    fn two_character_and_nf_escapes_and_lone_esc_are_removed() {
        let (out, report) = sanitize("a\u{1b}7b\u{1b}cc\u{1b}(Bd\u{1b}");
        assert_eq!(out, "abcd");
        assert_eq!(report.escape_sequences, 4);
    }

    #[test]
    fn c0_controls_but_newline_and_tab_are_removed_and_counted() {
        let (out, report) = sanitize("a\rb\u{0}c\u{8}d\u{7}e\nf\tg\u{7f}h");
        assert_eq!(out, "abcde\nf\tgh");
        assert_eq!(report.control_chars, 5);
        assert_eq!(report.escape_sequences, 0);
    }

    #[test]
    fn c1_controls_are_removed_and_counted() {
        let (out, report) = sanitize("a\u{80}b\u{85}c\u{9a}d");
        assert_eq!(out, "abcd");
        assert_eq!(report.control_chars, 3);
    }

    #[test]
    fn bidi_controls_are_marked_and_counted() {
        let (out, report) =
            sanitize("a\u{202E}b\u{2066}c\u{200E}d\u{200F}e\u{061C}f\u{202A}g\u{2069}");
        assert_eq!(
            out,
            "a<U+202E>b<U+2066>c<U+200E>d<U+200F>e<U+061C>f<U+202A>g<U+2069>"
        );
        assert_eq!(report.bidi_controls, 7);
        assert_eq!(report.total(), 7);
    }

    #[test]
    fn zero_width_characters_are_marked_and_counted() {
        let (out, report) = sanitize("a\u{200B}b\u{200C}c\u{2060}d\u{FEFF}");
        assert_eq!(out, "a<U+200B>b<U+200C>c<U+2060>d<U+FEFF>");
        assert_eq!(report.zero_width, 4);
    }

    #[test]
    fn tag_characters_are_marked_and_counted() {
        let (out, report) = sanitize("ok\u{E0001}\u{E0041}\u{E007F}");
        assert_eq!(out, "ok<U+E0001><U+E0041><U+E007F>");
        assert_eq!(report.tag_chars, 3);
    }

    #[test]
    fn sanitize_line_turns_line_breaks_and_tabs_into_spaces() {
        let (out, report) = sanitize_line("one\ntwo\tthree\u{2028}four\r\n");
        assert_eq!(out, "one two three four ");
        assert_eq!(report.control_chars, 1);
    }

    #[test]
    fn report_display_names_each_kind() {
        let (_, report) = sanitize("\u{1b}[1m\u{1b}[0m\u{202E}\r");
        assert_eq!(
            report.to_string(),
            "removed 2 escape sequences, 1 control character; marked 1 bidi control"
        );
        assert_eq!(SanitizeReport::default().to_string(), "nothing removed");
    }

    #[test]
    fn merge_adds_counts() {
        let (_, mut a) = sanitize("\u{1b}[1m\u{200B}");
        let (_, b) = sanitize("\u{1b}[1m\u{E0041}\r");
        a.merge(&b);
        assert_eq!(
            a,
            SanitizeReport {
                escape_sequences: 2,
                control_chars: 1,
                bidi_controls: 0,
                zero_width: 1,
                tag_chars: 1,
            }
        );
        assert_eq!(a.total(), 5);
        assert!(!a.is_empty());
    }

    #[test]
    fn escape_text_after_a_removed_control_stays_inert() {
        // ESC NUL [31m: the ESC is lone, the NUL a control; "[31m" is left as harmless text.
        assert_eq!(clean("\u{1b}\u{0}[31m"), "[31m");
    }

    /// Text made of the characters that matter here, so sequences actually occur.
    fn hostile_text() -> impl Strategy<Value = String> {
        let pieces = prop::collection::vec(
            prop_oneof![
                Just("\u{1b}".to_string()),
                Just("[".to_string()),
                Just("]".to_string()),
                Just("\\".to_string()),
                Just("\u{7}".to_string()),
                Just("\u{9b}".to_string()),
                Just("\u{9c}".to_string()),
                Just("\u{9d}".to_string()),
                Just("P".to_string()),
                Just("8;;".to_string()),
                Just("\u{202E}".to_string()),
                Just("\u{E0041}".to_string()),
                Just("\u{200B}".to_string()),
                Just("\r\n\t".to_string()),
                any::<char>().prop_map(String::from),
                "[a-z0-9;]{0,4}",
            ],
            0..40,
        );
        pieces.prop_map(|p| p.concat())
    }

    proptest! {
        #[test]
        fn output_never_contains_a_forbidden_code_point(text in hostile_text()) {
            let (out, _) = sanitize(&text);
            prop_assert!(!out.chars().any(is_forbidden), "{out:?}");
        }

        #[test]
        fn output_of_arbitrary_strings_never_contains_a_forbidden_code_point(text in any::<String>()) {
            let (out, _) = sanitize(&text);
            prop_assert!(!out.chars().any(is_forbidden), "{out:?}");
            let (line, _) = sanitize_line(&text);
            prop_assert!(!line.contains(['\n', '\t']));
        }

        #[test]
        fn sanitizing_is_idempotent(text in hostile_text()) {
            let (once, _) = sanitize(&text);
            let (twice, report) = sanitize(&once);
            prop_assert_eq!(&twice, &once);
            prop_assert!(report.is_empty());
        }

        #[test]
        fn unchanged_text_reports_nothing(text in any::<String>()) {
            let (out, report) = sanitize(&text);
            prop_assert_eq!(out == text, report.is_empty());
        }
    }
}
