//! Text for receipt fields: one line and capped, list de-duplication, and whether a `path:line`
//! source exists in the worktree.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

use crate::subject::reflect::cap;

/// Whether `path:line` exists in the worktree as a regular file (what the receipt check needs).
pub(super) fn line_exists(worktree: &Path, path: &str, line: u32) -> bool {
    let plain = !path.is_empty()
        && !path.starts_with('/')
        && path
            .split('/')
            .all(|s| !matches!(s, "" | "." | ".." | ".git" | ".interview"));
    if !plain || line == 0 {
        return false;
    }
    let full = worktree.join(path);
    let Ok(meta) = std::fs::symlink_metadata(&full) else {
        return false;
    };
    if !meta.is_file() {
        return false;
    }
    let Ok(file) = std::fs::File::open(&full) else {
        return false;
    };
    let mut count: u64 = 0;
    let mut last_byte = None;
    let mut reader = std::io::BufReader::new(file.take(64 * 1024 * 1024));
    let mut buf = [0u8; 64 * 1024];
    loop {
        match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                count += buf[..n].iter().filter(|&&b| b == b'\n').count() as u64;
                last_byte = buf[..n].last().copied();
                if count >= u64::from(line) {
                    return true;
                }
            }
            Err(_) => return false,
        }
    }
    // A last line without a newline still counts.
    let lines = count + u64::from(last_byte.is_some_and(|b| b != b'\n'));
    lines >= u64::from(line)
}

/// `text` on one line (controls and line breaks become spaces), at most `max` characters.
pub(super) fn one_line(text: &str, max: usize) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let squeezed = flat.split_whitespace().collect::<Vec<_>>().join(" ");
    words_cut(&squeezed, max)
}

/// A question on one line in at most `max` characters, its own words kept: what is shortened
/// is quoted material inside it — the longest `"…"` quote first, then a `name` said twice is
/// "it" the second time, then lists of `names` lose their last items — and only a question
/// that still does not fit is cut, as it was written.
pub(super) fn fit_question(text: &str, max: usize) -> String {
    let whole = one_line(text, usize::MAX);
    let mut text = whole.clone();
    while text.chars().count() > max {
        let over = text.chars().count() - max;
        match shorter_quote(&text, over)
            .or_else(|| said_again(&text))
            .or_else(|| shorter_list(&text))
        {
            Some(shorter) => text = shorter,
            None => return words_cut(&whole, max),
        }
    }
    text
}

/// `text` with its longest double-quoted span (over 24 characters) shortened by about `over`
/// characters where a word ends, to no fewer than 24.
fn shorter_quote(text: &str, over: usize) -> Option<String> {
    let quotes: Vec<usize> = text.match_indices('"').map(|(i, _)| i).collect();
    let (start, end) = quotes
        .chunks_exact(2)
        .map(|pair| (pair[0] + 1, pair[1]))
        .filter(|(a, b)| text[*a..*b].chars().count() > 24)
        .max_by_key(|(a, b)| text[*a..*b].chars().count())?;
    let quote = &text[start..end];
    let len = quote.chars().count();
    let keep = len.saturating_sub(over + 1).max(24);
    let cut = words_cut(quote, keep);
    (cut.chars().count() < len).then(|| format!("{}{cut}{}", &text[..start], &text[end..]))
}

/// `text` with the last repeat of a code span it already said (`` Is `f()` involved `` after
/// `` `f()` (a.rs:3) ``) said as "it": the question keeps its point, not a second copy.
fn said_again(text: &str) -> Option<String> {
    let ticks: Vec<usize> = text.match_indices('`').map(|(i, _)| i).collect();
    let spans: Vec<(usize, usize)> = ticks
        .chunks_exact(2)
        .map(|pair| (pair[0], pair[1] + 1))
        .collect();
    let (_, &(start, end)) = spans.iter().enumerate().rev().find(|(i, (a, b))| {
        spans[..*i]
            .iter()
            .any(|(c, d)| text[*c..*d] == text[*a..*b])
    })?;
    Some(format!("{}it{}", &text[..start], &text[end..]))
}

/// `text` with the last item of its last list of `names` (", `b`") left out, `…` in its place.
fn shorter_list(text: &str) -> Option<String> {
    let at = text.rfind(", `")?;
    let close = text[at + 3..].find('`')? + at + 3;
    let rest = &text[close + 1..];
    let marker = if rest.starts_with(", …") {
        ""
    } else {
        ", …"
    };
    Some(format!("{}{marker}{rest}", &text[..at]))
}

/// `text` cut to at most `max` characters where a word ends, with `…` ("report only" never
/// becomes "report onl…"); a first word longer than half of `max` is cut as it must be.
fn words_cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let room: String = text.chars().take(max.saturating_sub(1)).collect();
    let next = text.chars().nth(room.chars().count());
    let kept = if next.is_some_and(char::is_whitespace) {
        room.as_str()
    } else {
        match room.rfind(' ') {
            Some(space) if room[..space].chars().count() >= max / 2 => &room[..space],
            _ => return cap(text, max),
        }
    };
    let kept = kept.trim_end_matches(|c: char| c.is_whitespace() || ",;:-–—".contains(c));
    format!("{kept}…")
}

/// A title on one line, at most `max` characters: cut where a word ends, with `…`, never
/// inside a word (but a first word longer than half of `max`, which is cut as it must be).
pub(super) fn title(text: &str, max: usize) -> String {
    one_line(text, max)
}

pub(super) fn snippet(line: &str, max: usize) -> String {
    one_line(
        line.trim().trim_start_matches(['-', '*', '#', '>']).trim(),
        max,
    )
}

pub(super) fn dedup(mut v: Vec<String>) -> Vec<String> {
    let mut seen = BTreeMap::new();
    v.retain(|s| seen.insert(s.clone(), ()).is_none());
    v
}

/// `text` as one Markdown code span, its own backticks kept: the span's run is longer than any
/// run inside (`` a `b` ``).
pub(super) fn code_span(text: &str) -> String {
    let text = one_line(text, usize::MAX);
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// At most `max` characters of `sentence` around `word` (which it contains), with `…` where
/// it is cut: the word a question points at is always in the quote.
pub(super) fn around(sentence: &str, word: &str, max: usize) -> String {
    let flat = one_line(sentence, usize::MAX);
    let chars: Vec<char> = flat.chars().collect();
    if chars.len() <= max {
        return flat;
    }
    let lower = flat.to_lowercase();
    let at = lower
        .find(&word.to_lowercase())
        .map_or(0, |b| lower[..b].chars().count());
    let half = max / 2;
    let mut start = at.saturating_sub(half).min(chars.len().saturating_sub(max));
    let mut end = (start + max).min(chars.len());
    // Whole words only: a cut inside a word moves to the space after (or before) it, never
    // past the word the question points at.
    let word_end = at + word.chars().count();
    if start > 0
        && !chars[start - 1].is_whitespace()
        && let Some(s) = (start..at).find(|&i| chars[i].is_whitespace())
    {
        start = s + 1;
    }
    if end < chars.len()
        && !chars[end].is_whitespace()
        && let Some(e) = (word_end..end).rev().find(|&i| chars[i].is_whitespace())
    {
        end = e;
    }
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    out.extend(&chars[start..end]);
    let out = out.trim_end().to_string();
    if end < chars.len() {
        return format!("{out}…");
    }
    out
}
/// A topic id made from a name: lower case, `_` for anything else, at most 40 characters.
pub(super) fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        let c = c.to_ascii_lowercase();
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('_') && !out.is_empty() {
            out.push('_');
        }
    }
    let out: String = out.trim_end_matches('_').chars().take(40).collect();
    if out.is_empty() { "name".into() } else { out }
}

/// A heading's text without its HTML tags (`<a id="x">Number to words</a>` → `Number to words`).
pub(super) fn without_tags(text: &str) -> String {
    let mut out = String::new();
    let mut inside = false;
    for c in text.chars() {
        match c {
            '<' => inside = true,
            '>' if inside => inside = false,
            _ if !inside => out.push(c),
            _ => {}
        }
    }
    out.trim().to_string()
}

/// Whether byte `at` of `line` is inside a string literal (an odd number of unescaped double
/// quotes before it): a keyword there is text — a usage line, a help string — not code.
pub(super) fn in_string(line: &str, at: usize) -> bool {
    let mut inside = false;
    let mut escaped = false;
    for c in line.get(..at).unwrap_or(line).chars() {
        match c {
            '\\' if !escaped => {
                escaped = true;
                continue;
            }
            '"' if !escaped => inside = !inside,
            _ => {}
        }
        escaped = false;
    }
    inside
}

/// The text beside a definition: the comment lines right above it, the line itself, and for a
/// flag `below` lines below it (its help text).
pub(super) fn beside(all: &[&str], i: usize, below: usize) -> String {
    let mut text = Vec::new();
    let mut j = i;
    while j > 0 && i - j < 4 {
        j -= 1;
        let t = all[j].trim_start();
        if t.starts_with("//") || t.starts_with('#') || t.starts_with('*') || t.starts_with("/*") {
            text.push(t);
        } else {
            break;
        }
    }
    text.push(all[i]);
    text.extend(all.iter().skip(i + 1).take(below));
    text.join(" ")
}

/// Whether a line (trimmed) is a comment: `//`, `///`, `/*`, `*`, or `#` that is no Rust
/// attribute (`#[error("…")]` produces a message).
pub(super) fn is_comment(text: &str) -> bool {
    ["//", "/*", "* "].iter().any(|m| text.starts_with(m))
        || text == "*"
        || (text.starts_with('#') && !text.starts_with("#[") && !text.starts_with("#!["))
}

/// A title without its bracketed prefixes (`[Console] ProgressBar …` → `ProgressBar …`).
pub(super) fn without_prefix(title: &str) -> &str {
    let mut t = title.trim();
    while let Some(rest) = t.strip_prefix('[').and_then(|r| r.split_once(']')) {
        t = rest.1.trim_start();
    }
    t
}

/// A sentence quoted after its place, `: "…"` cut to `max` characters without its full stop,
/// or nothing at all when `max` is 0 (no room for the quote: the place alone, so that the
/// question around it stays).
pub(super) fn said(sentence: &str, max: usize) -> String {
    if max == 0 {
        return String::new();
    }
    let quote = one_line(sentence, max);
    let quote = quote.strip_suffix('.').unwrap_or(&quote);
    format!(": \"{quote}\"")
}

/// The first text `ask` writes, for each of `sizes` in turn, that fits in a question (a quote
/// cut shorter, never the question).
pub(super) fn first_fitting<T>(
    sizes: impl IntoIterator<Item = T>,
    ask: impl FnMut(T) -> String,
) -> Option<String> {
    let limit = crate::protocol::limits::MAX_QUESTION_TEXT_CHARS;
    sizes
        .into_iter()
        .map(ask)
        .find(|q| q.chars().count() <= limit)
}

#[cfg(test)]
mod title_tests {
    use super::*;

    #[test]
    fn a_title_is_cut_where_a_word_ends() {
        assert_eq!(title("Export to CSV", 80), "Export to CSV");
        assert_eq!(
            title("Export every report, monthly", 22),
            "Export every report…"
        );
        assert_eq!(title("Export everything", 13), "Export…");
        assert_eq!(title("Exporteverythingnow", 8), "Exporte…");
    }

    #[test]
    fn a_quote_is_cut_where_a_word_ends() {
        let said = "Is there a way to make it report only the first error?";
        assert_eq!(one_line(said, 35), "Is there a way to make it report…");
        let quoted = around(
            "ripgrep is a line-oriented search tool that recursively searches",
            "search",
            40,
        );
        assert!(!quoted.contains("recur…"), "{quoted}");
        assert!(quoted.contains("search"), "{quoted}");
        assert!(
            quoted.ends_with("tool…") || quoted.ends_with("that…"),
            "{quoted}"
        );
    }
}
