//! Unit tests of `render.rs`.

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
        assert!(joined.contains("platform team  (k8s)") || joined.contains("platform team (k8s)"));
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
