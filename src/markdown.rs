//! Markdown only the tool structures: text from a work item, a runner, the repository or a person
//! is passed through the sanitiser ([`crate::receipt::sanitize`]), then escaped so a CommonMark
//! reader finds no heading, quote, fence, table, thematic break, raw HTML, image or link in it
//! that the tool did not write — a URL in it is shown as code, never a link a viewer follows or
//! an image it loads — while a work item's own code blocks stay code blocks and its list items
//! stay list items (one level, their text escaped like the rest).
//!
//! Not for: deciding what a document contains (see `document`).

/// Text of one line for a heading or a list item the tool writes: one line, escaped.
pub(crate) fn inline(text: &str) -> String {
    let flat = flatten(text)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    escape_line(&flat)
}

/// A block of text as paragraphs and lists: every line kept (a paragraph's ended by a hard
/// break), blank lines kept as paragraph breaks, a line that is a list item (`- x`, `* x`,
/// `1. x`) a list item of one level, nothing in it able to open any other block.
pub(crate) fn prose(text: &str) -> String {
    let text = flatten(text);
    let lines: Vec<&str> = text.lines().collect();
    blocks(&lines, Lists::Kept)
}

/// A work item's text as the tool quotes it: a block quote whose prose is escaped like
/// [`prose`] and whose fenced or indented code blocks are code blocks again, each closed by the
/// tool with a fence no line inside can close early (an unclosed fence runs to the end, as it
/// does in the item).
pub(crate) fn quoted_item(text: &str) -> String {
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

/// Line breaks normalised (`\r\n`, `\r`, U+2028 and U+2029 all become `\n`), then sanitised:
/// no escape sequence or control character, bidi and other invisible controls made visible.
fn flatten(text: &str) -> String {
    let lines = text
        .replace("\r\n", "\n")
        .replace(['\r', '\u{2028}', '\u{2029}'], "\n");
    crate::receipt::sanitize(&lines).0
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
    // An odd run of backslashes at the end would make the tool's own line break a hard break.
    if out.chars().rev().take_while(|&c| c == '\\').count() % 2 == 1 {
        out.push('\\');
    }
    out
}

/// `<`, `[` and `|` escaped (so no raw HTML, autolink, link, image or table cell can start), a
/// URL put in a code span (so no viewer makes it a link), code spans and backslash escapes kept as
/// they are, a backtick run without its closing run escaped.
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
        // A backslash escape is one literal character to a reader: copied whole, so an escaped
        // backtick opens no code span here that a reader would not see either.
        if b == b'\\' && bytes.get(i + 1).is_some_and(u8::is_ascii_punctuation) {
            out.push_str(&text[i..i + 2]);
            i += 2;
            continue;
        }
        if let Some(len) = url_at(text, i) {
            // A space keeps the span's backticks from joining a backtick next to it into a
            // longer run, which would pair the spans differently for a reader.
            if out.ends_with('`') {
                out.push(' ');
            }
            // Nor may a backslash before the URL escape the span's opening backtick.
            if out.chars().rev().take_while(|&c| c == '\\').count() % 2 == 1 {
                out.push('\\');
            }
            out.push('`');
            out.push_str(&text[i..i + len]);
            out.push('`');
            i += len;
            if text[i..].starts_with('`') {
                out.push(' ');
            }
            continue;
        }
        match b {
            b'<' => out.push_str("\\<"),
            b'[' => out.push_str("\\["),
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

/// The length of the URL starting at byte `i` of `text`, if one does there: `http://`,
/// `https://`, `ftp://` or `www.` at the start of a word, up to a blank, a quote, a backtick or an
/// angle bracket, without the punctuation that ends a sentence or an unmatched `)` (as a GFM
/// viewer would find it to make it a link).
fn url_at(text: &str, i: usize) -> Option<usize> {
    let rest = &text[i..];
    let starts = ["http://", "https://", "ftp://", "www."].iter().any(|p| {
        rest.get(..p.len())
            .is_some_and(|s| s.eq_ignore_ascii_case(p))
    });
    let after_word = text[..i]
        .chars()
        .next_back()
        .is_some_and(|c| c.is_alphanumeric());
    if !starts || after_word {
        return None;
    }
    let mut len = rest
        .find(|c: char| c.is_whitespace() || matches!(c, '`' | '<' | '>' | '"' | '\''))
        .unwrap_or(rest.len());
    // Counted once, so a URL ending in many `)` is trimmed in linear time.
    let open = rest[..len].matches('(').count();
    let mut close = rest[..len].matches(')').count();
    loop {
        let last = rest[..len].chars().next_back()?;
        let unmatched_paren = last == ')' && close > open;
        if matches!(
            last,
            '.' | ',' | ':' | ';' | '!' | '?' | '*' | '_' | '~' | '\\'
        ) || unmatched_paren
        {
            len -= last.len_utf8();
            close -= usize::from(last == ')');
        } else {
            break;
        }
    }
    // A bare scheme or `www.` with nothing after it is no URL.
    (rest[..len].trim_end_matches('/').len() > rest[..len].find([':', '.'])? + 1).then_some(len)
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
    use proptest::prelude::*;
    use pulldown_cmark::{Event, Options, Parser, Tag};

    /// What a Markdown viewer would make live in `md`: raw HTML, images and links (autolinks
    /// included), as a CommonMark reader with every extension finds them.
    fn live(md: &str) -> Vec<String> {
        Parser::new_ext(md, Options::all())
            .filter_map(|e| match e {
                Event::Html(h) | Event::InlineHtml(h) => Some(format!("html {h}")),
                Event::Start(Tag::Image { dest_url, .. }) => Some(format!("image {dest_url}")),
                Event::Start(Tag::Link { dest_url, .. }) => Some(format!("link {dest_url}")),
                _ => None,
            })
            .collect()
    }

    /// The code spans a reader finds in `md`.
    fn code_spans(md: &str) -> Vec<String> {
        Parser::new_ext(md, Options::all())
            .filter_map(|e| match e {
                Event::Code(c) => Some(c.to_string()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn escape_sequences_and_controls_are_removed_and_bidi_marked_before_escaping() {
        let hostile = "a\u{1b}]52;c;cm0gLXJmIH4K\u{7}b\u{1b}[2Jc\u{0}d\u{9b}2Je\u{202E}f\u{85}";
        assert_eq!(inline(hostile), "abcde\\<U+202E>f");
        assert_eq!(prose(hostile), "abcde\\<U+202E>f\n");
        assert_eq!(quoted_item(hostile), "> abcde\\<U+202E>f\n");
        let in_code = quoted_item("```\nx\u{1b}[2J\u{0}\u{202E}y\n```");
        assert_eq!(in_code, "> ```\n> x<U+202E>y\n> ```\n");
    }

    #[test]
    fn raw_html_is_shown_as_text() {
        for html in [
            "<img src=x onerror=alert(1)>",
            "<script>fetch('https://example.invalid/')</script>",
            "<!-- hidden -->",
            "<details open><summary>x</summary></details>",
        ] {
            for md in [
                inline(html),
                prose(html),
                quoted_item(&format!("text {html}")),
            ] {
                assert_eq!(live(&md), Vec::<String>::new(), "{md}");
            }
        }
        assert_eq!(inline("<img src=x>"), "\\<img src=x>");
    }

    #[test]
    fn an_image_is_shown_as_text_with_its_url_as_code() {
        let md = prose("see ![](https://example.invalid/?leak=SECRET) here");
        assert_eq!(live(&md), Vec::<String>::new(), "{md}");
        assert_eq!(
            md,
            "see !\\[](`https://example.invalid/?leak=SECRET`) here\n"
        );
        let by_reference = prose("![logo][r]\n\n[r]: https://example.invalid/p.png");
        assert_eq!(live(&by_reference), Vec::<String>::new(), "{by_reference}");
    }

    #[test]
    fn a_link_is_shown_as_text_with_its_url_as_code() {
        let md = inline("[click](https://example.invalid/a?b=c) [ref][1] [[wiki]]");
        assert_eq!(live(&md), Vec::<String>::new(), "{md}");
        assert_eq!(code_spans(&md), ["https://example.invalid/a?b=c"]);
    }

    #[test]
    fn an_autolink_or_a_bare_url_is_shown_as_code() {
        let md = inline(
            "<https://example.invalid/auto> and https://example.invalid/bare, www.example.invalid.",
        );
        assert_eq!(live(&md), Vec::<String>::new(), "{md}");
        assert_eq!(
            code_spans(&md),
            [
                "https://example.invalid/auto",
                "https://example.invalid/bare",
                "www.example.invalid"
            ]
        );
        // Parentheses a URL holds stay in it; the one that closes the sentence does not.
        assert_eq!(
            inline("(see https://e.invalid/Rust_(language))"),
            "(see `https://e.invalid/Rust_(language)`)"
        );
        // Not a URL: a word that only contains one, or a scheme alone.
        assert_eq!(inline("awww.x http:// https"), "awww.x http:// https");
    }

    #[test]
    fn an_escaped_backtick_opens_no_code_span_hiding_html() {
        let md = inline("\\`<img src=x onerror=alert(1)>`");
        assert_eq!(live(&md), Vec::<String>::new(), "{md}");
    }

    #[test]
    fn a_url_next_to_backticks_cannot_join_them_into_one_run() {
        for text in [
            "https://x.invalid``<img src=x onerror=alert(1)>``",
            "``<img src=x onerror=alert(1)>``https://x.invalid",
            "`a`https://x.invalid`<img src=x>`",
        ] {
            let md = inline(text);
            assert_eq!(live(&md), Vec::<String>::new(), "{text} gave {md}");
        }
    }

    #[test]
    fn a_backslash_before_a_url_cannot_escape_its_code_span() {
        let md = inline("\\https://e.invalid/`<!-->`");
        assert_eq!(live(&md), Vec::<String>::new(), "{md}");
        assert_eq!(md, "\\\\`https://e.invalid/` `<!-->`");
    }

    #[test]
    fn code_spans_stay_code_spans() {
        assert_eq!(inline("run `a <b> [c](d)` now"), "run `a <b> [c](d)` now");
    }

    /// Text made of what opens HTML, images, links and code spans, so they actually occur.
    fn hostile_markdown() -> impl Strategy<Value = String> {
        let pieces = prop::collection::vec(
            prop_oneof![
                Just("<".to_string()),
                Just(">".to_string()),
                Just("img src=x onerror=y".to_string()),
                Just("!".to_string()),
                Just("[".to_string()),
                Just("]".to_string()),
                Just("(".to_string()),
                Just(")".to_string()),
                Just("`".to_string()),
                Just("\\".to_string()),
                Just("https://e.invalid/".to_string()),
                Just("www.e.invalid".to_string()),
                Just("<!--".to_string()),
                Just(":".to_string()),
                Just("\n".to_string()),
                Just(" ".to_string()),
                Just("\u{1b}[2J".to_string()),
                Just("\u{202E}".to_string()),
                "[a-z]{0,3}",
            ],
            0..30,
        );
        pieces.prop_map(|p| p.concat())
    }

    proptest! {
        #[test]
        fn nothing_a_text_holds_becomes_live_or_invisible(text in hostile_markdown()) {
            for md in [inline(&text), prose(&text), quoted_item(&text)] {
                prop_assert_eq!(live(&md), Vec::<String>::new(), "{:?} gave {:?}", text, md);
                prop_assert!(!md.chars().any(crate::receipt::is_forbidden), "{:?}", md);
            }
        }
    }

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
