//! The questions about the code an item names itself, quoted where the repository defines it:
//! the function a bug report's snippet calls, the one its own guess at the cause names
//! (`pointed::called`, `pointed::suspected`).
//!
//! Not for: finding them (`pointed`), nor the code nearest the item's words (`questions.rs`).

use super::Finding;
use super::kind::ItemKind;
use super::reading::Reading;

/// The function a bug report's code calls, where nothing else of the round names code: what the
/// maintainer decides about is what the snippet calls (`pointed::called`), quoted where it is
/// defined.
pub(super) fn called(r: &Reading, asked: &[&str]) -> Option<Finding> {
    let c = r
        .called
        .as_ref()
        .filter(|_| r.class.kind == ItemKind::Bug)?;
    if cites_place(asked, &c.def.path, c.def.line) {
        return None;
    }
    let quote = c.quote.replace('`', "'");
    let ask = |max: usize| {
        format!(
            "Line {} calls `{}`; `{}` is defined at {}:{}: `{}`. Is this where what the report \
             shows is decided — a bug, or intended?",
            c.line,
            c.said,
            c.def.name,
            c.def.path,
            c.def.line,
            super::text::one_line(&quote, max)
        )
    };
    let question = super::text::first_fitting([100, 60, 30], ask)?;
    Some(Finding::new("called_code", 7, question).titled("The code the report calls"))
}

/// The definition the item's own guess at the cause names (`pointed::suspected`), put to the
/// maintainer with the guess: confirmed or refuted, it is where the decision is.
pub(super) fn suspected(r: &Reading, asked: &[&str]) -> Option<Finding> {
    let c = r.suspected.as_ref()?;
    if cites_place(asked, &c.def.path, c.def.line) {
        return None;
    }
    let ask = |max: usize| {
        format!(
            "Line {} suspects the cause: \"{}\" `{}` is defined at {}:{}: `{}`. Right, or is the \
             cause elsewhere?",
            c.line,
            super::text::one_line(&c.said, max),
            c.def.name,
            c.def.path,
            c.def.line,
            super::text::one_line(&c.quote.replace('`', "'"), 60)
        )
    };
    let question = super::text::first_fitting([160, 100, 60, 30], ask)?;
    Some(Finding::new("suspected_cause", 7, question).titled("The cause the item suspects"))
}

/// Whether a question of `asked` cites `path:line` (not `path:line0`, nor `dir/path:line`).
pub(super) fn cites_place(asked: &[&str], path: &str, line: u32) -> bool {
    let place = format!("{path}:{line}");
    let in_path = |c: char| c.is_alphanumeric() || "/_-.".contains(c);
    asked.iter().any(|q| {
        q.match_indices(&place).any(|(i, _)| {
            !q[..i].ends_with(in_path)
                && !q[i + place.len()..].starts_with(|c: char| c.is_ascii_digit())
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_place_another_question_cites_is_cited_only_at_its_own_line() {
        let asked = ["What exactly did you run? `BAT_PAGER` (src/output.rs:25): set, to what?"];
        assert!(cites_place(&asked, "src/output.rs", 25));
        assert!(!cites_place(&asked, "src/output.rs", 2));
        assert!(!cites_place(&asked, "output.rs", 25));
    }
}
