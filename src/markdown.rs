//! Markdown only the tool structures: text from a work item, a runner or a person is escaped so
//! a CommonMark reader finds no heading, quote, fence, table, thematic break or HTML in it that
//! the tool did not write, while a work item's own code blocks stay code blocks and its list
//! items stay list items (one level, their text escaped like the rest).
//!
//! Not for: deciding what a document contains (see `document`).

/// Text of one line for a heading or a list item the tool writes: one line, escaped.
pub fn inline(text: &str) -> String {
    let flat = flatten(text)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    escape_line(&flat)
}

/// A block of text as paragraphs and lists: every line kept (a paragraph's ended by a hard
/// break), blank lines kept as paragraph breaks, a line that is a list item (`- x`, `* x`,
/// `1. x`) a list item of one level, nothing in it able to open any other block.
pub fn prose(text: &str) -> String {
    let text = flatten(text);
    let lines: Vec<&str> = text.lines().collect();
    blocks(&lines, Lists::Kept)
}

/// A work item's text as the tool quotes it: a block quote whose prose is escaped like
/// [`prose`] and whose fenced or indented code blocks are code blocks again, each closed by the
/// tool with a fence no line inside can close early (an unclosed fence runs to the end, as it
/// does in the item).
pub fn quoted_item(text: &str) -> String {
    let text = flatten(text);
    let mut out: Vec<String> = Vec::new();
    let mut paragraph: Vec<&str> = Vec::new();
    let flush = |paragraph: &mut Vec<&str>, out: &mut Vec<String>| {
        if !paragraph.is_empty() {
            out.push(blocks(paragraph, Lists::AsText));
            paragraph.clear();
        }
    };
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    let mut after_blank = true;
    let mut last_was_list = false;
    while i < lines.len() {
        let line = lines[i];
        if let Some((fence_char, fence_len, info)) = fence_open(line) {
            flush(&mut paragraph, &mut out);
            let mut body = Vec::new();
            i += 1;
            while i < lines.len() && !fence_closes(lines[i], fence_char, fence_len) {
                body.push(lines[i]);
                i += 1;
            }
            i += 1; // the closing fence, if there was one
            out.push(code_block(&info, &body));
            after_blank = true;
            last_was_list = false;
            continue;
        }
        if after_blank && !last_was_list && indented_code(line) {
            flush(&mut paragraph, &mut out);
            let mut body = Vec::new();
            while i < lines.len() && (indented_code(lines[i]) || lines[i].trim().is_empty()) {
                body.push(lines[i]);
                i += 1;
            }
            while body.last().is_some_and(|l| l.trim().is_empty()) {
                body.pop();
            }
            let body: Vec<&str> = body.iter().map(|l| strip_indent(l, 4)).collect();
            out.push(code_block("", &body));
            after_blank = true;
            continue;
        }
        if line.trim().is_empty() {
            flush(&mut paragraph, &mut out);
            after_blank = true;
        } else {
            last_was_list = list_item(line).is_some();
            after_blank = false;
            paragraph.push(line);
        }
        i += 1;
    }
    flush(&mut paragraph, &mut out);
    let mut quoted = String::new();
    for (n, block) in out.iter().enumerate() {
        if n > 0 {
            quoted.push_str(">\n");
        }
        for line in block.lines() {
            if line.is_empty() {
                quoted.push_str(">\n");
            } else {
                quoted.push_str("> ");
                quoted.push_str(line);
                quoted.push('\n');
            }
        }
    }
    quoted
}

/// Line breaks normalised (`\r\n`, `\r`, U+2028 and U+2029 all become `\n`).
fn flatten(text: &str) -> String {
    text.replace("\r\n", "\n")
        .replace(['\r', '\u{2028}', '\u{2029}'], "\n")
}

/// Whether [`blocks`] keeps list items as list items or escapes their markers as text.
#[derive(Clone, Copy, PartialEq)]
enum Lists {
    Kept,
    AsText,
}

/// `lines` as blocks, a blank line between two: split at empty lines, then (with
/// [`Lists::Kept`]) into runs of list items (each `- ` or its number, then its text escaped) and
/// paragraphs (each line escaped and, but the last, ended by a hard line break). A list and a
/// paragraph next to each other are apart, so neither runs into the other.
fn blocks<'a>(lines: &[&'a str], lists: Lists) -> String {
    let list_item = |line: &'a str| list_item(line).filter(|_| lists == Lists::Kept);
    let mut out: Vec<String> = Vec::new();
    for group in lines.split(|l| l.trim().is_empty()) {
        for run in group.chunk_by(|a, b| list_item(a).is_some() == list_item(b).is_some()) {
            let is_list = run.first().is_some_and(|l| list_item(l).is_some());
            let block: Vec<String> = if is_list {
                run.iter()
                    .filter_map(|l| list_item(l))
                    .map(|(marker, text)| format!("{marker} {}", escape_line(text)))
                    .collect()
            } else {
                run.iter().map(|l| escape_line(l)).collect()
            };
            out.push(block.join(if is_list { "\n" } else { "\\\n" }));
        }
    }
    let mut text = out.join("\n\n");
    text.push('\n');
    text
}

/// A line that is a list item with text: its marker as the tool writes it (`-` for any bullet,
/// the number with its `.` or `)`) and its text.
fn list_item(line: &str) -> Option<(String, &str)> {
    let t = line.trim();
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    let (marker, rest) = match t.as_bytes().first()? {
        b'-' | b'*' | b'+' => ("-".to_string(), &t[1..]),
        _ if (1..=9).contains(&digits) && matches!(t.as_bytes().get(digits), Some(b'.' | b')')) => {
            (t[..=digits].to_string(), &t[digits + 1..])
        }
        _ => return None,
    };
    let text = rest.strip_prefix([' ', '\t'])?.trim();
    (!text.is_empty()).then_some((marker, text))
}

/// One line of text that cannot start a block: leading blanks dropped, a first character that
/// could open a block escaped, `<` and `|` escaped outside code spans, a trailing backslash
/// escaped (so the tool's own line break stays one).
fn escape_line(line: &str) -> String {
    let line = line.trim();
    let mut out = String::with_capacity(line.len() + 4);
    let mut rest = line;
    if let Some(c) = rest.chars().next() {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        // Backticks and tildes open a block only as a fence of three or more; fewer start a
        // code span, which stays one.
        let fence = matches!(c, '`' | '~') && rest.chars().take_while(|&x| x == c).count() >= 3;
        if fence || matches!(c, '#' | '>' | '-' | '+' | '*' | '=' | '_' | '[' | ':') {
            out.push('\\');
            out.push(c);
            rest = &rest[c.len_utf8()..];
        } else if digits > 0 && matches!(rest.as_bytes().get(digits), Some(b'.' | b')')) {
            out.push_str(&rest[..digits]);
            out.push('\\');
            rest = &rest[digits..];
        }
    }
    escape_inline(rest, &mut out);
    if out.ends_with('\\') && !out.ends_with("\\\\") {
        out.push('\\');
    }
    out
}

/// `<` and `|` escaped, code spans kept as they are, a backtick run without its closing run
/// escaped.
fn escape_inline(text: &str, out: &mut String) {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < text.len() {
        let b = bytes[i];
        if b == b'`' {
            let run = bytes[i..].iter().take_while(|&&c| c == b'`').count();
            if let Some(end) = closing_run(&text[i + run..], run) {
                let span_end = i + run + end + run;
                out.push_str(&text[i..span_end]);
                i = span_end;
            } else {
                for _ in 0..run {
                    out.push_str("\\`");
                }
                i += run;
            }
            continue;
        }
        match b {
            b'<' => out.push_str("\\<"),
            b'|' => out.push_str("\\|"),
            _ => {
                let c = text[i..].chars().next().unwrap_or(' ');
                out.push(c);
                i += c.len_utf8();
                continue;
            }
        }
        i += 1;
    }
}

/// Where a run of exactly `n` backticks starts in `text`, if one does.
fn closing_run(text: &str, n: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'`' {
            let run = bytes[i..].iter().take_while(|&&c| c == b'`').count();
            if run == n {
                return Some(i);
            }
            i += run;
        } else {
            i += 1;
        }
    }
    None
}

/// An opening code fence: up to three spaces, then three or more backticks (with no backtick in
/// the info string) or tildes. Returns the fence character, its length and the language.
fn fence_open(line: &str) -> Option<(char, usize, String)> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let c = rest.chars().next().filter(|c| matches!(c, '`' | '~'))?;
    let len = rest.chars().take_while(|&x| x == c).count();
    if len < 3 {
        return None;
    }
    let info = &rest[len..];
    if c == '`' && info.contains('`') {
        return None;
    }
    let lang: String = info
        .split_whitespace()
        .next()
        .unwrap_or("")
        .chars()
        .filter(|ch| ch.is_ascii_alphanumeric() || matches!(ch, '_' | '+' | '-' | '.'))
        .take(20)
        .collect();
    Some((c, len, lang))
}

fn fence_closes(line: &str, c: char, len: usize) -> bool {
    let indent = line.len() - line.trim_start_matches(' ').len();
    let rest = line[indent..].trim_end();
    indent <= 3 && rest.chars().count() >= len && rest.chars().all(|x| x == c)
}

fn indented_code(line: &str) -> bool {
    !line.trim().is_empty() && (line.starts_with("    ") || line.starts_with('\t'))
}

fn strip_indent(line: &str, n: usize) -> &str {
    if let Some(rest) = line.strip_prefix('\t') {
        return rest;
    }
    let spaces = line.len() - line.trim_start_matches(' ').len();
    &line[spaces.min(n)..]
}

/// A fenced code block the tool writes: backticks one longer than any run inside.
fn code_block(lang: &str, body: &[&str]) -> String {
    let longest = body
        .iter()
        .flat_map(|l| l.split(|c| c != '`'))
        .map(str::len)
        .max()
        .unwrap_or(0);
    let fence = "`".repeat((longest + 1).max(3));
    let mut out = format!("{fence}{lang}\n");
    for line in body {
        out.push_str(line);
        out.push('\n');
    }
    out.push_str(&fence);
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_starters_are_escaped() {
        assert_eq!(escape_line("# Title"), "\\# Title");
        assert_eq!(escape_line("---"), "\\---");
        assert_eq!(escape_line("1. first"), "1\\. first");
        assert_eq!(escape_line("<div>x</div>"), "\\<div>x\\</div>");
        assert_eq!(escape_line("a | b"), "a \\| b");
        assert_eq!(escape_line("see `a<b` here"), "see `a<b` here");
        assert_eq!(escape_line("```rust"), "\\`\\`\\`rust");
        assert_eq!(escape_line("ends with \\"), "ends with \\\\");
        assert_eq!(escape_line("`code` first"), "`code` first");
    }

    #[test]
    fn prose_keeps_every_line() {
        assert_eq!(prose("a\nb\n\nc"), "a\\\nb\n\nc\n");
    }

    #[test]
    fn list_items_stay_list_items_with_their_text_escaped() {
        assert_eq!(
            prose("Files:\n- `a.rs`: +1\n* # not a heading\n+ <b>\nafter"),
            "Files:\n\n- `a.rs`: +1\n- \\# not a heading\n- \\<b>\n\nafter\n"
        );
        assert_eq!(prose("1. first\n2) second"), "1. first\n2) second\n");
        // Not an item: no text, or no space after the marker.
        assert_eq!(prose("-\n-x\n2024.ok"), "\\-\\\n\\-x\\\n2024\\.ok\n");
        let q = quoted_item("Steps:\n- one\n- two");
        assert_eq!(q, "> Steps:\\\n> \\- one\\\n> \\- two\n");
    }

    #[test]
    fn code_blocks_of_an_item_survive_and_are_closed() {
        let q = quoted_item("Steps:\n```sh\ncargo run -- --x\n```\nthen\n```\nunclosed");
        assert!(q.contains("> ```sh\n> cargo run -- --x\n> ```\n"), "{q}");
        assert!(q.ends_with("> ```\n> unclosed\n> ```\n"), "{q}");
    }

    #[test]
    fn a_fence_inside_code_cannot_close_the_tool_fence() {
        let q = quoted_item("````\n```\nstill code\n````\n");
        assert!(
            q.starts_with("> ````\n> ```\n> still code\n> ````\n"),
            "{q}"
        );
    }
}
