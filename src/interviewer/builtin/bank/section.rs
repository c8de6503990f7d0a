//! A bug whose subject the documentation covers in a section of its own: a heading that shares a
//! word with the item's title, over lines that name what the item names ("Using a different
//! pager" over `PAGER`). Whether the documented way answers the report is what a maintainer
//! settles first; a changelog's entry is no such section.

use super::*;
use crate::interviewer::builtin::words::words;

/// Lines above a doc's mention read at most to find its heading.
const MAX_ABOVE: usize = 60;

/// The Markdown heading above line `line` (1-based) of `lines`, when that line is prose: its
/// line and text. A line of a code block (a sample's output listing every flag) documents no
/// behaviour, and its `# comment` is no heading.
fn heading_above(lines: &[&str], line: u32) -> Option<(u32, String)> {
    let at = (line as usize).checked_sub(1)?;
    let mut fenced = false;
    let fences: Vec<bool> = lines
        .iter()
        .map(|l| {
            if l.trim_start().starts_with("```") {
                fenced = !fenced;
                true
            } else {
                fenced
            }
        })
        .collect();
    if *fences.get(at)? {
        return None;
    }
    (at.saturating_sub(MAX_ABOVE)..=at.min(lines.len().saturating_sub(1)))
        .rev()
        .find(|i| !fences[*i] && lines[*i].starts_with('#') && lines[*i].contains("# "))
        .map(|i| {
            let text = lines[i].trim_start_matches('#').trim().to_string();
            (i as u32 + 1, text)
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
    use super::heading_above;

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
}
