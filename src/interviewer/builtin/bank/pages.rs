//! Whether a documentation line cited as a page to change is about the name it is cited for:
//! the name outside every URL, link target, image or badge and table of contents' entry, and,
//! for "documents" rather than "mentions", in a heading, a code span or a list entry.
//!
//! Not for: finding the lines (`search`) or asking about them (`feature`, `docs`).

use super::has_name;

/// The line with what is no prose of it left out: URLs, link and image targets, HTML
/// attributes' values. `None` for a line that is a badge or an image, a link reference
/// definition (`[x]: https://…`), or a table of contents' entry (a list item of links alone).
fn prose(line: &str) -> Option<String> {
    let t = line.trim_start();
    let item = t.trim_start_matches(['-', '*', '+', ' ']);
    let item = item.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ' ');
    if ["![", "[![", "<img", "<a "]
        .iter()
        .any(|p| item.starts_with(p))
        || (t.starts_with('[') && t.contains("]:"))
    {
        return None;
    }
    static NOT_PROSE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"\]\([^)]*\)|https?://[^\s)>]+|www\.[^\s)>]+|<[A-Za-z/][^>]*>")
            .expect("a valid pattern")
    });
    let out = NOT_PROSE.replace_all(t, |c: &regex::Captures| {
        if c[0].starts_with(']') { "]" } else { " " }.to_string()
    });
    // A list item of links alone, with few words beside them: a table of contents' entry.
    let linked = item.starts_with('[') && line.contains("](");
    let words = out
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .count();
    let listed = t.len() != item.len() || t.starts_with('[');
    if linked && listed && line.contains("](#") && words < 6 {
        return None;
    }
    Some(out.into_owned())
}

/// Whether the documentation line `text` names `name` in its prose (not only inside a URL, a
/// link target, a badge or a table of contents): a page that can describe it.
pub(super) fn names_it(text: &str, name: &str) -> bool {
    prose(text).is_some_and(|p| spelled(&p, name))
}

/// Whether the line is about `name`: a heading, a code span or a list entry that names it.
/// Otherwise it only mentions it.
pub(super) fn about(text: &str, name: &str) -> bool {
    let Some(p) = prose(text) else { return false };
    let t = p.trim_start();
    let entry = t.starts_with('#')
        || t.starts_with(['-', '*', '+'])
        || t.split('.')
            .next()
            .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
    let in_span = p.split('`').skip(1).step_by(2).any(|s| spelled(s, name));
    spelled(&p, name) && (entry || in_span)
}

/// "described" when the first `n` of `pages` are each about `l`, else "mentioned".
pub(super) fn claim(pages: &[&super::Hit], l: &super::Located, n: usize) -> &'static str {
    if pages.iter().take(n).all(|h| about(&h.text, &l.name.text)) {
        "described"
    } else {
        "mentioned"
    }
}

fn spelled(text: &str, name: &str) -> bool {
    let lower = text.to_lowercase();
    let name = name.to_lowercase();
    let bare = name.trim_start_matches('-');
    [
        name.as_str(),
        bare,
        &bare.replace('-', "_"),
        &bare.replace('_', "-"),
    ]
    .iter()
    .any(|n| !n.is_empty() && has_name(&lower, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_inside_a_url_or_badge_is_no_page_about_it() {
        assert!(!names_it(
            "[![Downloads](https://img.shields.io/npm/dm/tabtab.svg)](https://npmjs.org/tabtab)",
            "tabtab"
        ));
        assert!(!names_it(
            "See https://pkg.example.org/tabtab for more.",
            "tabtab"
        ));
        assert!(!names_it(
            "Read [the guide](docs/tabtab.md) first.",
            "tabtab"
        ));
        assert!(!names_it("- [Tabtab](#tabtab)", "tabtab"));
        assert!(!names_it("[tabtab]: https://example.org/tabtab", "tabtab"));
        assert!(names_it("Completion uses tabtab under the hood.", "tabtab"));
        assert!(names_it(
            "See [tabtab](https://example.org/x) for more.",
            "tabtab"
        ));
        assert!(about("## Completion with `--shell`", "--shell"));
        assert!(about("- `--shell`: the shell to complete for", "--shell"));
        assert!(!about("Most users never pass a shell here.", "shell"));
    }
}
