//! A bug whose subject the documentation covers in a section of its own: a heading that shares a
//! word with the item's title, over lines that name what the item names ("Using a different
//! pager" over `PAGER`). Whether the documented way answers the report is what a maintainer
//! settles first; a changelog's entry is no such section.

use super::*;
use crate::interviewer::builtin::search::has_name;
use crate::interviewer::builtin::words::words;

/// Lines above a doc's mention read at most to find its heading.
const MAX_ABOVE: usize = 60;

/// Which lines of `lines` are no prose: inside a fenced code block (the fences included) or
/// touched by an HTML comment (`<!-- … -->`, across lines), whose Markdown is hidden, neither a
/// heading nor a sentence the documentation says. A fence closes only on the character that
/// opened it, at least as long (a ```` fence holds ``` lines); a comment's `<!--` inside a fence
/// is code, and a fence inside a comment is hidden.
pub(super) fn fenced(lines: &[&str]) -> Vec<bool> {
    let mut open: Option<(char, usize)> = None;
    let mut comment = false;
    lines
        .iter()
        .map(|l| {
            if comment || (open.is_none() && l.contains("<!--")) {
                comment = still_open(l, comment);
                return true;
            }
            let t = l.trim_start();
            let fence = ['`', '~'].into_iter().find_map(|c| {
                let n = t.chars().take_while(|x| *x == c).count();
                (n >= 3).then_some((c, n))
            });
            match (open, fence) {
                (None, Some(f)) => open = Some(f),
                (Some((c, n)), Some((fc, fnum)))
                    if fc == c && fnum >= n && t.trim_end().chars().all(|x| x == c) =>
                {
                    open = None
                }
                (None, None) => return false,
                _ => {}
            }
            true
        })
        .collect()
}

/// Whether an HTML comment is still open after `line`, given whether it was open before.
fn still_open(line: &str, mut open: bool) -> bool {
    let mut rest = line;
    loop {
        let mark = if open { "-->" } else { "<!--" };
        match rest.find(mark) {
            Some(at) => {
                rest = &rest[at + mark.len()..];
                open = !open;
            }
            None => return open,
        }
    }
}

/// The heading line `i` of `lines` starts, when it starts one: an ATX heading (`## Text`, up
/// to three spaces in), an HTML `<h2>`, or a line over a setext underline (`===`, `---`).
pub(super) fn heading(lines: &[&str], fences: &[bool], i: usize) -> Option<String> {
    let line = *lines.get(i)?;
    if fences[i] || line.starts_with("    ") || line.trim().is_empty() {
        return None;
    }
    let t = line.trim();
    if let Some(rest) = t.strip_prefix('#') {
        let rest = rest.trim_start_matches('#');
        let hashes = t.len() - rest.len();
        return (hashes <= 6 && (rest.is_empty() || rest.starts_with([' ', '\t'])))
            .then(|| super::super::text::without_tags(rest.trim().trim_end_matches('#')));
    }
    let lower = t.to_ascii_lowercase();
    if lower.len() > 3 && lower.starts_with("<h") && lower.as_bytes()[2].is_ascii_digit() {
        let mut text = String::new();
        let mut tag = false;
        for c in t.chars() {
            match c {
                '<' => tag = true,
                '>' => tag = false,
                c if !tag => text.push(c),
                _ => {}
            }
        }
        return Some(text.trim().to_string());
    }
    let under = lines.get(i + 1)?;
    let u = under.trim();
    let setext = !fences.get(i + 1).copied().unwrap_or(true)
        && !under.starts_with("    ")
        && !u.is_empty()
        && (u.chars().all(|c| c == '=') || u.chars().all(|c| c == '-'))
        // A list item or a quote over a rule is no heading; `---` after a list ends it.
        && !t.starts_with(['-', '*', '+', '>', '|']);
    setext.then(|| t.to_string())
}

/// The heading whose section holds line `line` (1-based) of `lines`, when that line is prose:
/// its line and text. It is the nearest heading above, of any level and any form, so no other
/// heading comes between. A line of a code block (a sample's output listing every flag)
/// documents no behaviour, and its `# comment` is no heading.
fn heading_above(lines: &[&str], line: u32) -> Option<(u32, String)> {
    let at = (line as usize).checked_sub(1)?;
    let fences = fenced(lines);
    if *fences.get(at)? {
        return None;
    }
    (at.saturating_sub(MAX_ABOVE)..=at)
        .rev()
        .find_map(|i| heading(lines, &fences, i).map(|text| (i as u32 + 1, text)))
}

/// Whether `line` names `name` as a name: inside a code span (`` `PAGER` ``), not as a word
/// of its prose ("By default").
fn spans_name(line: &str, name: &str) -> bool {
    let bare = name.trim_start_matches('-');
    let forms = [
        name.to_string(),
        bare.to_string(),
        bare.replace('-', "_"),
        bare.replace('_', "-"),
    ];
    line.split('`')
        .skip(1)
        .step_by(2)
        .any(|span| forms.iter().any(|f| !f.is_empty() && whole_name(span, f)))
}

/// Whether a code span holds `name` as a whole name: bounded by characters that are no part of
/// an identifier, and a method's leading `.` (`.default`) never a named receiver's property
/// (`ctx.default`), only a call of it.
fn whole_name(span: &str, name: &str) -> bool {
    let span = span.trim();
    if span == name {
        return true;
    }
    if !name.starts_with('.') {
        return has_name(span, name);
    }
    let ident = |c: char| c.is_alphanumeric() || matches!(c, '_' | '$');
    span.match_indices(name).any(|(at, _)| {
        let before = span[..at].chars().next_back();
        let after = span[at + name.len()..].chars().next();
        // A property read of a named receiver (`ctx.default`) is that receiver's; a call of it
        // (`schema.default(1)`, `z.string().default(1)`) is the method.
        let called = after == Some('(');
        !before.is_some_and(|c| c == '.' || (ident(c) && !called)) && !after.is_some_and(ident)
    })
}

/// "README.md:214, "Using a different pager", names `PAGER` (line 216). Does what it documents
/// answer the report, or is it a bug?" — of several sections, the one
/// whose heading shares the most words with the title.
pub(super) fn documented_section(r: &Reading) -> Option<Finding> {
    let title = words(&r.facts.title);
    let mut best: Option<(usize, &Hit, u32, String, String)> = None;
    // A section found by a word the item only mentions (a word of a quoted command line) is
    // about something else: nothing is asked rather than a wrong section.
    let about = found_names(r)
        .into_iter()
        .filter(|l| r.item.is_about(&r.facts.title, &l.name.text));
    for l in about {
        for h in l.hits.iter().filter(|h| {
            let lower = h.path.to_lowercase();
            is_doc(&h.path)
                && lower.ends_with(".md")
                && !["changelog", "history", "news", "release"]
                    .iter()
                    .any(|w| lower.contains(w))
        }) {
            let Some(text) = crate::interviewer::builtin::repo::read_text(r.worktree, &h.path)
            else {
                continue;
            };
            let lines: Vec<&str> = text.lines().collect();
            let Some((at, heading)) = heading_above(&lines, h.line) else {
                continue;
            };
            // The line names it as a name (a code span) or is the heading itself: a plain word
            // of the section's prose ("By default") is not what the item names.
            let own = lines.get(h.line as usize - 1).copied().unwrap_or("");
            if at != h.line && !spans_name(own, &l.name.text) {
                continue;
            }
            // The section is about the item's subject: its heading shares a word with the title.
            let mut shared: Vec<String> = words(&heading)
                .into_iter()
                .filter(|w| title.contains(w))
                .collect();
            shared.dedup();
            if !shared.is_empty() && best.as_ref().is_none_or(|b| shared.len() > b.0) {
                best = Some((shared.len(), h, at, heading, l.shown()));
            }
        }
    }
    let (_, h, at, heading, shown) = best?;
    let names = if at == h.line {
        String::new()
    } else {
        format!(", names {shown} (line {})", h.line)
    };
    Some(
        Finding::new(
            format!("documented_section_{}", slug(&heading)),
            8,
            format!(
                "{}:{at}, \"{heading}\"{names}. Does what it documents answer the report, or \
                 is it a bug?",
                h.path
            ),
        )
        .titled(format!("What \"{heading}\" says"))
        .options(&[
            ("The documented way answers it: point there", "documented"),
            ("A bug all the same", "bug"),
            ("Don't know yet", "unknown"),
        ]),
    )
}

#[cfg(test)]
mod tests {
    use super::{heading, heading_above, spans_name};

    #[test]
    fn a_headings_anchor_is_markup_not_its_words() {
        let lines = [r#"### <a id="to-words">Numbers to words</a>"#, "", "Text."];
        assert_eq!(
            heading(&lines, &[false; 3], 0).as_deref(),
            Some("Numbers to words")
        );
    }

    #[test]
    fn prose_belongs_to_the_heading_above_it_never_a_code_block_nor_its_comment() {
        let lines = [
            "# tool",
            "",
            "### Using a different pager",
            "",
            "```bash",
            "# set it",
            "export PAGER=less",
            "```",
            "Set `PAGER`.",
        ];
        assert_eq!(heading_above(&lines, 7), None);
        assert_eq!(
            heading_above(&lines, 9),
            Some((3, "Using a different pager".to_string()))
        );
    }

    #[test]
    fn a_setext_an_html_or_an_indented_heading_ends_the_section_above_it() {
        let lines = [
            "## Options",
            "",
            "Set `color`.",
            "",
            "Configuration",
            "-------------",
            "By default it reads `color`.",
            " <h3>Paging</h3>",
            "Set `color` here too.",
            "   ### Colors",
            "`color` again.",
        ];
        assert_eq!(heading_above(&lines, 3), Some((1, "Options".to_string())));
        assert_eq!(
            heading_above(&lines, 7),
            Some((5, "Configuration".to_string()))
        );
        assert_eq!(heading_above(&lines, 9), Some((8, "Paging".to_string())));
        assert_eq!(heading_above(&lines, 11), Some((10, "Colors".to_string())));
    }

    #[test]
    fn a_longer_fence_holds_a_shorter_one_and_a_tilde_fence_holds_a_hash() {
        let lines = [
            "## Usage",
            "````md",
            "```",
            "## Not a heading",
            "```",
            "````",
            "~~~sh",
            "# comment",
            "~~~",
            "Run `it`.",
        ];
        assert_eq!(heading_above(&lines, 10), Some((1, "Usage".to_string())));
        assert_eq!(heading_above(&lines, 8), None);
    }

    #[test]
    fn a_name_counts_in_a_code_span_never_as_a_word_of_prose() {
        assert!(spans_name("Set the `default` key.", "default"));
        assert!(spans_name("Pass `--no-pager`.", "--no-pager"));
        assert!(spans_name("Set `no_pager = true`.", "no-pager"));
        assert!(!spans_name("By default, it pages.", "default"));
        assert!(!spans_name("By default, `less` pages.", "default"));
    }

    #[test]
    fn a_name_matches_a_code_span_only_as_a_whole_name() {
        assert!(spans_name("Call `.default(x)` on it.", ".default"));
        assert!(spans_name("Use `z.string().optional()`.", ".optional"));
        assert!(spans_name("See `.default`.", ".default"));
        // Another receiver's property, or a longer name, is not the method.
        assert!(!spans_name("Read `ctx.default` there.", ".default"));
        assert!(spans_name("Call `schema.default(1)`.", ".default"));
        assert!(!spans_name("Call `.defaultValue()`.", ".default"));
        assert!(!spans_name("Set `PAGER_X`.", "PAGER"));
    }
}
