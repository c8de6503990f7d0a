//! What the tool draws fits the terminal at any width from 40 columns: the gate, the question
//! with its progress header, the decision box and the status box, at real pseudo-terminals of
//! 40, 60 and 120 columns (docs/person.md).

use expectrl::Expect;

use crate::util::*;

/// Every byte an interview with a long question wrote at a terminal `cols` wide, answered to
/// the end, then every byte `interview status` wrote there.
fn shown_at(cols: u16) -> (Vec<u8>, Vec<u8>) {
    let repo = TempRepo::new();
    let mut pty = Interview::of_work_item(&repo)
        .runner("asks-at-length.sh")
        .at_terminal_sized(cols);
    let mut seen = Vec::new();
    let mut wait = |pty: &mut Pty, text: &str| {
        let found = pty
            .session
            .expect(text)
            .unwrap_or_else(|e| panic!("{cols} columns: expected {text:?}: {e}"));
        seen.extend_from_slice(found.before());
        seen.extend_from_slice(found.get(0).unwrap_or_default());
    };
    wait(&mut pty, "Press Enter or type Y");
    pty.send_line("y");
    wait(&mut pty, "(Type your answer");
    pty.send_line("r");
    wait(&mut pty, "Choose A");
    pty.send_line("A");
    let (code, rest) = pty.finish();
    seen.extend_from_slice(rest.as_bytes());
    assert_eq!(
        code,
        0,
        "{cols} columns:\n{}",
        String::from_utf8_lossy(&seen)
    );
    let (code, status) = Pty::spawn_sized(&repo, &["status"], &[], cols).finish();
    assert_eq!(code, 0, "{status}");
    (seen, status.into_bytes())
}

/// The rows a terminal `cols` wide shows for `bytes`, and whether any of them had to be wrapped
/// by the terminal itself (a line longer than the terminal).
fn rows_at(bytes: &[u8], cols: u16) -> (Vec<String>, Vec<String>) {
    let size = |n: u16| std::num::NonZero::new(n).unwrap();
    let mut parser = vt100::Parser::new(size(1000), size(cols), 0);
    parser.process(bytes);
    let screen = parser.screen();
    let rows: Vec<String> = screen.rows(0, cols).collect();
    let wrapped = (0..1000u16)
        .filter(|&r| screen.row_wrapped(r))
        .map(|r| rows[usize::from(r)].clone())
        .collect();
    (rows, wrapped)
}

fn width(text: &str) -> usize {
    textwrap::core::display_width(text.trim_end())
}

/// Each box on the screen: its rule rows' width and the widest row inside it.
fn boxes(rows: &[String]) -> Vec<(Vec<usize>, usize)> {
    let is_rule = |r: &str| r.starts_with('═') && r.trim_end().chars().all(|c| c == '═');
    let mut found = Vec::new();
    let mut i = 0;
    while i < rows.len() {
        if !is_rule(&rows[i]) {
            i += 1;
            continue;
        }
        // A box runs from a rule to its last rule, with no empty row inside.
        let mut end = i;
        let mut j = i + 1;
        while j < rows.len() && !rows[j].trim().is_empty() {
            if is_rule(&rows[j]) {
                end = j;
            }
            j += 1;
        }
        let rules = (i..=end)
            .filter(|&k| is_rule(&rows[k]))
            .map(|k| width(&rows[k]))
            .collect();
        let inner = (i..=end)
            .filter(|&k| !is_rule(&rows[k]))
            .map(|k| width(&rows[k]))
            .max()
            .unwrap_or(0);
        found.push((rules, inner));
        i = end + 1;
    }
    found
}

/// The rows from the first that contains `from` (or the first rule) to the last rule: what the
/// tool draws itself (messages before and after it are left to the terminal's own wrapping).
fn drawn(rows: &[String], from: Option<&str>) -> std::ops::RangeInclusive<usize> {
    let is_rule = |r: &String| r.starts_with('═');
    let start = match from {
        Some(text) => rows.iter().position(|r| r.contains(text)),
        None => rows.iter().position(is_rule),
    };
    let end = rows.iter().rposition(is_rule);
    match (start, end) {
        (Some(s), Some(e)) => s..=e,
        _ => panic!("nothing drawn: {rows:#?}"),
    }
}

fn assert_fits(what: &str, bytes: &[u8], cols: u16, from: Option<&str>) {
    let (rows, wrapped) = rows_at(bytes, cols);
    let screen = rows.join("\n");
    let screen = screen.trim_end();
    let region = drawn(&rows, from);
    let wrapped: Vec<&String> = wrapped
        .iter()
        .filter(|w| rows[region.clone()].contains(w))
        .collect();
    assert!(
        wrapped.is_empty(),
        "{what} at {cols} columns: rows wrapped by the terminal: {wrapped:#?}\n{screen}"
    );
    let found = boxes(&rows);
    assert_eq!(found.len(), 1, "{what} at {cols}:\n{screen}");
    for (rules, inner) in found {
        let rule = rules[0];
        assert!(
            rules.iter().all(|&r| r == rule),
            "{what} at {cols}: rules of different widths {rules:?}\n{screen}"
        );
        assert!(
            rule >= inner,
            "{what} at {cols}: a rule of {rule} is narrower than its text ({inner})\n{screen}"
        );
        assert!(rule <= usize::from(cols), "{what} at {cols}:\n{screen}");
    }
}

#[test]
fn every_box_fits_its_text_at_40_60_and_120_columns() {
    for cols in [40, 60, 120] {
        let (interview, status) = shown_at(cols);
        assert_fits(
            "the interview",
            &interview,
            cols,
            Some("📋 The interviewer"),
        );
        assert_fits("the status", &status, cols, None);
        // Wrapped, nothing of the question was lost.
        let (rows, _) = rows_at(&interview, cols);
        let text = rows
            .join(" ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        assert!(
            text.contains("takes longer than expected?"),
            "{cols}: {text}"
        );
        // A word longer than a line is broken, not cut.
        assert!(
            text.replace(' ', "")
                .contains("(shared-production-kubernetes-cluster)"),
            "{cols}: {text}"
        );
        assert!(text.contains("DECISION REQUIRED"), "{cols}: {text}");
        let (rows, _) = rows_at(&status, cols);
        let text = rows
            .join(" ")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        assert!(
            text.contains("Action: nothing: the document is at docs/interviews/intent-7.md"),
            "{cols}: {text}"
        );
    }
}

/// The sandbox's start line — said when something of it is missing (here user namespaces, as
/// simulated), in full with `--verbose` — fits terminals of 40, 80 and 120 columns: wrapped
/// between words by the tool, never cut by the terminal (docs/sandbox.md).
#[test]
fn the_sandbox_start_line_fits_at_40_80_and_120_columns() {
    for verbose in [false, true] {
        for cols in [40, 80, 120] {
            let repo = TempRepo::new();
            let mut interview = Interview::of_work_item(&repo)
                .runner("asks-at-length.sh")
                .env("INTERVIEW_TEST_SANDBOX_NO_NAMESPACES", "1");
            if verbose {
                interview = interview.arg("--verbose");
            }
            let mut pty = interview.at_terminal_sized(cols);
            let found = pty
                .session
                .expect("Press Enter or type Y")
                .unwrap_or_else(|e| panic!("{cols} columns: expected the gate: {e}"));
            let before = found.before().to_vec();
            pty.send_line("y");
            pty.session.expect("(Type your answer").unwrap();
            pty.send_line("r");
            pty.session.expect("Choose A").unwrap();
            pty.send_line("A");
            let (code, rest) = pty.finish();
            assert_eq!(code, 0, "{cols} columns: {rest}");
            let (rows, wrapped) = rows_at(&before, cols);
            let screen = rows.join("\n");
            assert!(
                wrapped.is_empty(),
                "{cols} columns: the terminal had to wrap {wrapped:?}:\n{screen}"
            );
            let text = rows
                .join(" ")
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            let said = if verbose {
                "interview: sandbox: Landlock ABI"
            } else {
                "interview: sandbox: Landlock and seccomp only: chmod of your files and the \
                 CLI's state not protected, UDP open; see `interview runners`"
            };
            assert!(text.contains(said), "{cols} columns: {said:?} in\n{screen}");
        }
    }
}
