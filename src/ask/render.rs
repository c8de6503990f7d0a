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
mod tests {
    use super::*;
    use crate::receipt::QuestionOption;

    fn q(options: &[(&str, &str)], recommended: Option<&str>) -> Question {
        Question {
            topic: "deployment_target".into(),
            question_text: "Where will this service run?".into(),
            severity: 7,
            options: if options.is_empty() {
                None
            } else {
                Some(
                    options
                        .iter()
                        .map(|(l, v)| QuestionOption {
                            label: l.to_string(),
                            value: v.to_string(),
                        })
                        .collect(),
                )
            },
            recommended: recommended.map(str::to_string),
        }
    }

    // The time label: none on the first question, then an estimate from the pace so far.
    #[test]
    fn time_label_is_empty_on_the_first_question() {
        assert_eq!(time_label(0, 5, 999_999), "");
    }

    #[test]
    fn time_label_uses_the_running_average_over_completed_questions() {
        // 2 done in 20 s → 10 s each; 3 left (current included) → 30 s.
        assert_eq!(time_label(2, 5, 20_000), " · about 30 s left");
    }

    #[test]
    fn time_label_rounds_up_to_the_next_5_seconds() {
        // 1 done in 11 s; 1 left → 11 s → 15 s.
        assert_eq!(time_label(1, 2, 11_000), " · about 15 s left");
        // 1 done in 10.001 s → ceil to 11 s → 15 s.
        assert_eq!(time_label(1, 2, 10_001), " · about 15 s left");
    }

    #[test]
    fn time_label_never_says_less_than_5_seconds() {
        assert_eq!(time_label(1, 2, 0), " · about 5 s left");
        assert_eq!(time_label(4, 5, 400), " · about 5 s left");
    }

    #[test]
    fn time_label_switches_to_minutes_at_60_seconds() {
        assert_eq!(time_label(1, 2, 55_000), " · about 55 s left");
        assert_eq!(time_label(1, 2, 56_000), " · under 1 min left");
        assert_eq!(time_label(1, 2, 60_000), " · under 1 min left");
        assert_eq!(time_label(1, 2, 61_000), " · under 2 min left");
        assert_eq!(time_label(1, 5, 60_000), " · under 4 min left");
    }

    #[test]
    fn time_label_survives_huge_elapsed_times() {
        assert!(time_label(1, 5, u64::MAX).ends_with("min left"));
    }

    #[test]
    fn question_without_options_shows_header_and_question_only() {
        let text = question(&Style::PLAIN, 0, 2, "", &q(&[], None), 80);
        assert_eq!(
            text,
            "📋 Q&A Progress — Question 1 of 2\n\nWhere will this service run?\n"
        );
    }

    #[test]
    fn question_with_options_lists_them_numbered_with_values_and_the_hint() {
        let text = question(
            &Style::PLAIN,
            1,
            3,
            " · about 10 s left",
            &q(&[("Kubernetes", "k8s"), ("One VM", "vm")], None),
            80,
        );
        assert_eq!(
            text,
            "📋 Q&A Progress — Question 2 of 3 · about 10 s left\n\n\
             Where will this service run?\n\n\
             Options:\n  1. Kubernetes  (k8s)\n  2. One VM  (vm)\n\n\
             (Type your answer, a number to pick an option, \"skip\", or \"skip all\")\n"
        );
    }

    #[test]
    fn question_marks_the_recommended_option_and_offers_r() {
        let text = question(
            &Style::PLAIN,
            0,
            1,
            "",
            &q(&[("Kubernetes", "k8s"), ("One VM", "vm")], Some("vm")),
            80,
        );
        assert!(text.contains("  2. One VM  (vm)  ← recommended\n"));
        assert!(text.contains("  1. Kubernetes  (k8s)\n"));
        assert!(text.contains("\"r\" for the recommended one"));
    }

    #[test]
    fn header_and_question_are_bold_when_styled() {
        let style = Style {
            bold: true,
            bell: false,
        };
        let text = question(&style, 0, 1, "", &q(&[], None), 80);
        assert!(text.starts_with("\x1b[1m📋 Q&A Progress — Question 1 of 1\x1b[0m\n\n"));
        assert!(text.contains("\x1b[1mWhere will this service run?\x1b[0m"));
    }

    #[test]
    fn runner_text_is_sanitised_and_kept_on_one_line() {
        let mut question_ = q(&[("a\x1b]52;c;SGVsbG8=\x07b", "v\nw")], None);
        question_.question_text = "Why\x1b[2J now?".into();
        let text = question(&Style::PLAIN, 0, 1, "", &question_, 80);
        assert!(!text.contains('\x1b'));
        assert!(!text.contains('\x07'));
        assert!(text.contains("(v w)"));
    }

    #[test]
    fn gate_shows_the_count_and_both_choices() {
        let text = gate(3, 80);
        assert!(text.starts_with("📋 The interviewer has 3 clarifying question(s)"));
        assert!(text.contains("\n  [Y] Answer questions now  (recommended)\n"));
        assert!(text.contains("\n  [N] Skip Q&A and continue without answers\n"));
        assert!(text.ends_with("Press Enter or type Y to proceed, N to skip entirely.\n"));
    }

    #[test]
    fn intro_names_skip_and_skip_all() {
        let text = intro(2, 80);
        assert!(text.contains("I'll ask up to 2 question(s)"));
        assert!(text.contains("\"skip\""));
        assert!(text.contains("\"skip all\""));
    }

    #[test]
    fn decision_box_matches_the_choose_format() {
        let d = Decision {
            id: crate::ask::DecisionId::Guard,
            context: "the runner changed the repository".into(),
            options: vec![
                "Stop and keep for review".into(),
                "Restore hooks and git metadata, then stop".into(),
                "Accept and continue".into(),
            ],
            recommended: 0,
            reason: "nothing is lost".into(),
        };
        assert_eq!(
            decision(&Style::PLAIN, &d, 80),
            // The rules are as wide as the title.
            "═════════════════════════════════════════════════════\n\
             \x20DECISION REQUIRED: the runner changed the repository\n\
             ═════════════════════════════════════════════════════\n\
             \x20A) Stop and keep for review\n\
             \x20B) Restore hooks and git metadata, then stop\n\
             \x20C) Accept and continue\n\
             ═════════════════════════════════════════════════════\n\
             \x20Recommendation: A — nothing is lost\n\
             ═════════════════════════════════════════════════════\n\
             Choose A, B or C: "
        );
    }

    fn long_decision() -> Decision {
        Decision {
            id: crate::ask::DecisionId::Consent,
            context: "write the document to docs/interviews/intent-export-to-csv-for-analysts.md?"
                .into(),
            options: vec![
                "Write the document to docs/interviews/intent-export-to-csv-for-analysts.md".into(),
                "Print it here instead and write nothing".into(),
            ],
            recommended: 0,
            reason: "the document is meant to be reviewed and committed with the work".into(),
        }
    }

    fn width(line: &str) -> usize {
        textwrap::core::display_width(line)
    }

    #[test]
    fn the_rules_are_as_wide_as_the_widest_line() {
        let text = decision(&Style::PLAIN, &long_decision(), 200);
        let lines: Vec<&str> = text.lines().collect();
        let rule = width(lines[0]);
        let widest = lines.iter().map(|l| width(l)).max().unwrap();
        assert_eq!(rule, widest, "{text}");
        assert_eq!(rule, width(lines[1]), "{text}");
    }

    #[test]
    fn at_any_width_from_40_every_line_fits() {
        let natural = width(
            decision(&Style::PLAIN, &long_decision(), 1000)
                .lines()
                .next()
                .unwrap(),
        );
        for cols in 40..=120 {
            let text = decision(&Style::PLAIN, &long_decision(), cols);
            for l in text.lines() {
                assert!(width(l) <= cols, "{cols} columns: {l:?}\n{text}");
            }
            let rule = text.lines().next().unwrap();
            assert!(rule.chars().all(|c| c == '═'));
            assert_eq!(width(rule), cols.min(natural), "{cols} columns:\n{text}");
            if cols >= 60 {
                assert!(
                    text.contains("intent-export-to-csv-for-analysts.md"),
                    "{text}"
                );
            }
        }
    }

    #[test]
    fn short_text_keeps_the_choose_formats_width() {
        let d = Decision {
            options: vec!["Yes".into(), "No".into()],
            context: "go on?".into(),
            reason: "why not".into(),
            ..long_decision()
        };
        let text = decision(&Style::PLAIN, &d, 120);
        assert!(
            text.starts_with(&format!("{}\n", "═".repeat(RULE_MIN))),
            "{text}"
        );
    }

    #[test]
    fn a_wrapped_option_is_indented_under_its_text() {
        let text = decision(&Style::PLAIN, &long_decision(), 40);
        assert!(text.contains("\n A) Write the document to\n    "), "{text}");
    }

    fn long_question() -> Question {
        let mut long = q(
            &[
                (
                    "Kubernetes on the shared production cluster of the platform team",
                    "k8s",
                ),
                ("One VM", "vm"),
            ],
            Some("vm"),
        );
        long.question_text = "Where will this service run once it leaves the prototype stage, \
                              and who operates it at night?"
            .into();
        long
    }

    #[test]
    fn at_any_width_from_40_the_gate_intro_and_question_fit() {
        for cols in 40..=120 {
            let texts = [
                gate(12, cols),
                intro(12, cols),
                question(
                    &Style::PLAIN,
                    9,
                    12,
                    " · under 10 min left",
                    &long_question(),
                    cols,
                ),
            ];
            for text in &texts {
                for l in text.lines() {
                    assert!(width(l) <= cols, "{cols} columns: {l:?}\n{text}");
                }
            }
            // Nothing is lost by the wrapping.
            let joined = texts[2].split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(joined.contains("who operates it at night?"), "{joined}");
            assert!(
                joined.contains("platform team  (k8s)") || joined.contains("platform team (k8s)")
            );
            assert!(
                joined.contains("Question 10 of 12 · under 10 min left"),
                "{joined}"
            );
        }
    }

    #[test]
    fn a_wrapped_question_keeps_its_options_indented_and_its_header_bold() {
        let style = Style {
            bold: true,
            bell: false,
        };
        let text = question(&style, 0, 1, "", &long_question(), 40);
        assert!(
            text.contains("  1. Kubernetes on the shared production\n     cluster"),
            "{text}"
        );
        let head: Vec<&str> = text
            .lines()
            .take_while(|l| *l != "Options:")
            .filter(|l| !l.is_empty())
            .collect();
        assert_eq!(head.len(), 4, "{text}");
        for l in head {
            assert!(l.starts_with("\x1b[1m") && l.ends_with("\x1b[0m"), "{l:?}");
        }
    }

    #[test]
    fn a_box_is_as_wide_as_its_widest_line_or_the_terminal() {
        let sections = vec![
            vec![BoxLine::new(" TITLE", 1)],
            vec![
                BoxLine::new(format!(" Action:  {}", "word ".repeat(20).trim_end()), 10),
                BoxLine::new(" Now:     short", 10),
            ],
        ];
        let natural = " Action:  ".len() + "word ".repeat(20).trim_end().len();
        for cols in [40, 60, 80, 120, 200] {
            let text = framed(&Style::PLAIN, &sections, 51, cols, false);
            let lines: Vec<&str> = text.lines().collect();
            let rules: Vec<&&str> = lines.iter().filter(|l| l.starts_with('═')).collect();
            assert_eq!(rules.len(), 3, "{text}");
            for rule in &rules {
                assert_eq!(width(rule), natural.min(cols), "{cols}:\n{text}");
            }
            for l in &lines {
                assert!(width(l) <= cols, "{cols}: {l:?}");
            }
            if cols < natural {
                assert!(
                    text.contains("\n          word"),
                    "{cols}: continuation\n{text}"
                );
            }
        }
        // Short text keeps the box's least width.
        let short = framed(
            &Style::PLAIN,
            &[vec![BoxLine::new(" x", 1)]],
            51,
            120,
            false,
        );
        assert!(
            short.starts_with(&format!("{}\n", "═".repeat(51))),
            "{short}"
        );
    }

    #[test]
    fn the_width_is_the_terminals_then_columns_then_80() {
        use crate::ask::style::width_from;
        assert_eq!(width_from(Some(57), Some("100")), 57);
        assert_eq!(width_from(None, Some("100")), 100);
        assert_eq!(width_from(Some(0), Some(" 42 ")), 42);
        assert_eq!(width_from(None, Some("wide")), 80);
        assert_eq!(width_from(None, Some("0")), 80);
        assert_eq!(width_from(None, None), 80);
    }

    #[test]
    fn decision_reask_lists_the_letters() {
        assert_eq!(
            decision_reask(" x ", 2),
            "“x” is not one of the choices: type A or B."
        );
    }
}
