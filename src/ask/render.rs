//! The exact text the person sees: entry gate, intro, question with progress header, decision
//! box. Pure functions, so the wording is tested without a terminal.
//!
//! Every runner-supplied string passes the receipt sanitiser and is kept on one line here.

use crate::ask::Decision;
use crate::ask::style::Style;
use crate::receipt::Question;

/// Runner-supplied text made safe for one terminal line.
pub(crate) fn line(text: &str) -> String {
    crate::receipt::sanitize_line(text).0
}

/// The entry gate (answer the questions, or skip them all), wrapped to a terminal `width`
/// columns wide.
pub(crate) fn gate(count: usize, width: usize) -> String {
    let count_line =
        format!("📋 The interviewer has {count} clarifying question(s) about your work.");
    paragraphs(
        &[
            (count_line.as_str(), 3),
            ("", 0),
            (
                "Answering them improves the document's accuracy — ambiguities that go \
                 unanswered will be marked as open-question in the document and flagged for \
                 review.",
                0,
            ),
            ("", 0),
            ("  [Y] Answer questions now  (recommended)", 6),
            ("  [N] Skip Q&A and continue without answers", 6),
            ("", 0),
            ("Press Enter or type Y to proceed, N to skip entirely.", 0),
        ],
        width,
    )
}

/// Each `(text, indent)` wrapped to `width` and ended with a line break (an empty text is an
/// empty line).
fn paragraphs(parts: &[(&str, usize)], width: usize) -> String {
    let mut out = String::new();
    for (text, indent) in parts {
        for l in wrap(text, *indent, width) {
            out.push_str(&l);
            out.push('\n');
        }
    }
    out
}

/// `text` wrapped to `width` columns at spaces, its continuation lines indented by `indent`
/// spaces (a word longer than a line is broken; paths keep their hyphens). Leading spaces of
/// the first line are kept. An empty text is one empty line.
pub(crate) fn wrap(text: &str, indent: usize, width: usize) -> Vec<String> {
    if text.is_empty() {
        return vec![String::new()];
    }
    let width = width.max(20);
    let pad = " ".repeat(indent.min(width / 2));
    let opts = textwrap::Options::new(width)
        .subsequent_indent(&pad)
        .word_splitter(textwrap::WordSplitter::NoHyphenation);
    textwrap::wrap(text, opts)
        .into_iter()
        .map(|l| l.into_owned())
        .collect()
}

/// Said when the gate's answer is neither yes nor no.
pub(crate) const GATE_REASK: &str =
    "Please press Enter or type Y to answer the questions, or N to skip them.";

/// Said when a number picks no option; the question is asked again (such a number is never
/// kept as the answer's text).
pub(crate) fn no_such_option(raw: &str, options: usize) -> String {
    format!("{raw} is not an option: type a number from 1 to {options}, your own answer, or skip.")
}

/// The intro before the first question, wrapped to `width`. It counts this
/// round's questions only, so it never disagrees with a document that lists more open points.
pub(crate) fn intro(total: usize, width: usize) -> String {
    let first = format!("This round has {total} point(s) needing clarification.");
    let second =
        format!("I'll ask up to {total} question(s) — you can type \"skip\" to skip a question");
    paragraphs(
        &[
            (first.as_str(), 0),
            (second.as_str(), 0),
            ("or \"skip all\" to skip the entire Q&A.", 0),
        ],
        width,
    )
}

/// The time-remaining label over each question, worded as an estimate rather than a
/// countdown ("about 25 s left"). `index` is 0-based; `elapsed_ms` is the time since the loop
/// started.
pub(crate) fn time_label(index: usize, total: usize, elapsed_ms: u64) -> String {
    if index == 0 {
        return String::new();
    }
    let left = total.saturating_sub(index) as u128;
    // ceil(left * elapsed / index / 1000) in integers: exact, no float rounding.
    let num = left * u128::from(elapsed_ms);
    let den = index as u128 * 1000;
    let remaining_s = num.div_ceil(den);
    let rounded_s = (remaining_s.div_ceil(5) * 5).max(5);
    if rounded_s < 60 {
        format!(" · about {rounded_s} s left")
    } else {
        format!(" · under {} min left", rounded_s.div_ceil(60))
    }
}

/// A question with its progress header ("Question 2 of 3"), plus which option is recommended
/// and how to pick it, wrapped to a terminal `width` columns wide.
pub(crate) fn question(
    style: &Style,
    index: usize,
    total: usize,
    time_label: &str,
    q: &Question,
    width: usize,
) -> String {
    let header = format!(
        "📋 Q&A Progress — Question {} of {total}{time_label}",
        index + 1
    );
    let bold = |text: &str, indent: usize| -> String {
        wrap(text, indent, width)
            .iter()
            .map(|l| format!("{}\n", style.bold(l)))
            .collect()
    };
    let mut out = format!("{}\n{}", bold(&header, 3), bold(&line(&q.question_text), 0));
    if let Some(options) = q.options.as_ref().filter(|o| !o.is_empty()) {
        out.push_str("\nOptions:\n");
        for (i, opt) in options.iter().enumerate() {
            let mark = if q.recommended.as_deref() == Some(opt.value.as_str()) {
                "  ← recommended"
            } else {
                ""
            };
            let text = format!(
                "  {}. {}  ({}){mark}",
                i + 1,
                line(&opt.label),
                line(&opt.value)
            );
            out.push_str(&paragraphs(&[(text.as_str(), 5)], width));
        }
        let r = if q.recommended.is_some() {
            ", \"r\" for the recommended one"
        } else {
            ""
        };
        let hint =
            format!("(Type your answer, a number to pick an option{r}, \"skip\", or \"skip all\")");
        out.push('\n');
        out.push_str(&paragraphs(&[(hint.as_str(), 1)], width));
    }
    out
}

/// One line of a box: its text, and how far its continuation lines are indented when it wraps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BoxLine {
    pub text: String,
    pub indent: usize,
}

impl BoxLine {
    pub(crate) fn new(text: impl Into<String>, indent: usize) -> BoxLine {
        BoxLine {
            text: text.into(),
            indent,
        }
    }
}

/// Sections of lines between rules of `═`, for a terminal `width` columns wide: the rules are
/// as wide as the widest line (at least `min`, at most `width`), and a line wider than `width`
/// wraps (see [`wrap`]), so the box fits its text at any width. With `bold_head` the first
/// section and the rules around it are bold.
pub(crate) fn framed(
    style: &Style,
    sections: &[Vec<BoxLine>],
    min: usize,
    width: usize,
    bold_head: bool,
) -> String {
    let width = width.max(20);
    let longest = sections
        .iter()
        .flatten()
        .map(|l| textwrap::core::display_width(&l.text))
        .max()
        .unwrap_or(0);
    let rule = "═".repeat(longest.max(min).min(width));
    let mut out = String::new();
    for (i, section) in sections.iter().enumerate() {
        let bold = bold_head && i == 0;
        let head = |text: &str| {
            if bold || (bold_head && i == 1) {
                style.bold(text)
            } else {
                text.to_string()
            }
        };
        out.push_str(&head(&rule));
        out.push('\n');
        for l in section {
            for piece in wrap(&l.text, l.indent, width) {
                out.push_str(&if bold { style.bold(&piece) } else { piece });
                out.push('\n');
            }
        }
    }
    if !sections.is_empty() {
        out.push_str(&rule);
        out.push('\n');
    }
    out
}

/// The narrowest a decision box's rules are (the Choose format's own width).
const RULE_MIN: usize = 38;

/// The Choose A/B/C/D box of a decision, and the prompt line under it, for a terminal
/// `width` columns wide. The rules are as wide as the longest line (at least [`RULE_MIN`]); a
/// line wider than the terminal wraps, its continuation indented, so the box fits at any width.
pub(crate) fn decision(style: &Style, d: &Decision, width: usize) -> String {
    let title = BoxLine::new(format!(" DECISION REQUIRED: {}", line(&d.context)), 1);
    let options: Vec<BoxLine> = d
        .options
        .iter()
        .enumerate()
        .map(|(i, opt)| BoxLine::new(format!(" {}) {}", letter(i), line(opt)), 4))
        .collect();
    let advice = BoxLine::new(
        format!(
            " Recommendation: {} — {}",
            letter(d.recommended),
            line(&d.reason)
        ),
        1,
    );
    let mut out = framed(
        style,
        &[vec![title], options, vec![advice]],
        RULE_MIN,
        width,
        true,
    );
    out.push_str(&format!("Choose {}: ", letters(d.options.len())));
    out
}

/// Said when a decision's answer is not one of its letters.
pub(crate) fn decision_reask(raw: &str, count: usize) -> String {
    format!(
        "“{}” is not one of the choices: type {}.",
        line(raw.trim()),
        letters(count)
    )
}

/// `A`, `B`, … for option `i`.
pub(crate) fn letter(i: usize) -> char {
    (b'A' + (i.min(25) as u8)) as char
}

/// `A or B`, `A, B or C`, …
fn letters(count: usize) -> String {
    let all: Vec<String> = (0..count).map(|i| letter(i).to_string()).collect();
    match all.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

#[cfg(test)]
#[path = "render_tests.rs"]
mod tests;
