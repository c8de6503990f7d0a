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

/// Whether the line documents `name`: a heading that names it, or an entry of a list or a
/// definition list whose term is it (`- \`--shell\`: the shell …`, `--shell  the shell …`), or
/// a sentence whose subject it is (`` The `--shell` flag picks … ``).
/// A line that only names it in a sentence, in a code span or not, mentions it.
pub(super) fn about(text: &str, name: &str) -> bool {
    let Some(p) = prose(text) else { return false };
    let t = p.trim_start();
    if t.starts_with('#') || t.starts_with('=') {
        return heading_names(t, name);
    }
    let item = t.trim_start_matches(['-', '*', '+', ' ']);
    let item = item.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ' ');
    let term = item
        .trim_start_matches(['`', '*', '_', '['])
        .split(['`', '*', ']', ':', ','])
        .next()
        .unwrap_or("");
    let term = term.split("  ").next().unwrap_or("").trim();
    // A sentence whose subject is the name (`` The `--color` flag sets … ``) defines it too.
    let subject = ["The ", "the "]
        .iter()
        .find_map(|a| item.strip_prefix(a))
        .unwrap_or(item)
        .strip_prefix('`')
        .and_then(|r| r.split('`').next())
        .is_some_and(|span| spelled(span, name));
    subject || (spelled(term, name) && term.split_whitespace().count() <= 3)
}

/// Whether the documentation line `h` can be cited for `l`'s name: it names it in its prose
/// ([`names_it`]), and, when the name is a plain word that the documentation also writes as
/// English (`find`, `path`: more than one of its lines holds it only in a sentence, or another
/// holds it as a name), as a name: in a code span or a code line, as a flag, a call or a
/// qualified name, or in a heading.
pub(super) fn cites(l: &super::Located, h: &super::Hit) -> bool {
    let name = l.name.text.as_str();
    if !names_it(&h.text, name) {
        return false;
    }
    if !plain_word(name) {
        return true;
    }
    let docs: Vec<&super::Hit> = l
        .in_docs()
        .into_iter()
        .filter(|d| names_it(&d.text, name))
        .collect();
    let in_prose = docs.iter().filter(|d| !as_name(&d.text, name)).count();
    let everyday = in_prose >= 2 || in_prose < docs.len();
    !everyday || as_name(&h.text, name)
}

/// A name that English prose could hold as a word of its own: lower-case letters alone.
fn plain_word(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_lowercase())
}

/// Whether the line holds `name` as a name rather than as a word of a sentence: in a code
/// span, on a code line (indented four spaces or a shell prompt), as a flag (`--find`), a call
/// (`find()`), a qualified name (`os.path`, `fs::find`), or in a heading.
fn as_name(text: &str, name: &str) -> bool {
    let Some(p) = prose(text) else { return false };
    let t = p.trim_start();
    if t.starts_with('#') {
        return heading_names(t, name);
    }
    if text.starts_with("    ") || text.starts_with('\t') || t.starts_with("$ ") {
        return spelled(t, name);
    }
    if p.split('`').skip(1).step_by(2).any(|s| spelled(s, name)) {
        return true;
    }
    let lower = p.to_lowercase();
    let name = name.to_lowercase();
    let mut start = 0;
    while let Some(at) = lower[start..].find(&name).map(|i| start + i) {
        let end = at + name.len();
        start = end;
        if !has_name(&lower[at..], &name) || lower[..at].ends_with(|c: char| c.is_alphanumeric()) {
            continue;
        }
        let before = &lower[..at];
        let after = &lower[end..];
        if after.starts_with(|c: char| c.is_alphanumeric() || c == '_') {
            continue;
        }
        if before.ends_with('-')
            || before.ends_with("::")
            || after.starts_with("::")
            || after.starts_with('(')
            || (before.ends_with('.')
                && before[..before.len() - 1].ends_with(|c: char| c.is_alphanumeric()))
            || (after.starts_with('.') && after[1..].starts_with(|c: char| c.is_alphabetic()))
        {
            return true;
        }
    }
    false
}

/// Whether a heading has `name` as its subject written as a name: the heading is the name,
/// or names it in a code span, as a flag, a call or a qualified name. A heading that holds it
/// as a word of a sentence or a question (`## Why should I use it?` for `use`) does not.
fn heading_names(heading: &str, name: &str) -> bool {
    let h = heading.trim_matches(|c: char| c == '#' || c == '=' || c.is_whitespace());
    let bare = h
        .trim_end_matches(['?', ':', '.', '!'])
        .trim_matches(['`', '*', '_', ' ']);
    let whole = |n: &str| !n.is_empty() && bare.eq_ignore_ascii_case(n);
    let n = name.trim_start_matches('-');
    whole(name) || whole(n) || whole(&n.replace('-', "_")) || (!h.is_empty() && as_name(h, name))
}

/// Whether the documentation line `h` describes `name` ([`about`]): a `#` line describes only
/// in a Markdown page (in a script or a text file it is a comment).
pub(super) fn describes(h: &super::Hit, name: &str) -> bool {
    let lower = h.path.to_lowercase();
    let markup = [".md", ".markdown", ".mdx"]
        .iter()
        .any(|e| lower.ends_with(e));
    (markup || !h.text.trim_start().starts_with('#')) && about(&h.text, name)
}

/// "described" when the first `n` of `pages` are each about `l`, else "mentioned".
pub(super) fn claim(pages: &[&super::Hit], l: &super::Located, n: usize) -> &'static str {
    if pages.iter().take(n).all(|h| describes(h, &l.name.text)) {
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

    #[test]
    fn documented_means_a_heading_or_an_entry_about_it() {
        assert!(about("### `--shell`", "--shell"));
        assert!(about(
            "* **`--shell`** - the shell to complete for",
            "--shell"
        ));
        assert!(about(
            "--shell <name>  the shell to complete for",
            "--shell"
        ));
        assert!(!about(
            "Pass `--shell` when the shell is not detected.",
            "--shell"
        ));
        assert!(!about("- Completion reads `--shell` first", "--shell"));
    }

    #[test]
    fn a_plain_word_is_a_name_only_where_written_as_one() {
        assert!(as_name("Use `find` to list them.", "find"));
        assert!(as_name("    find . -name x", "find"));
        assert!(as_name("$ find . -name x", "find"));
        assert!(as_name("Call fs.find() on it.", "find"));
        assert!(as_name("Pass --find to do it.", "find"));
        assert!(as_name("## find", "find"));
        assert!(!as_name("You can find the files here.", "find"));
        assert!(!as_name("The path is printed. Then find it", "find"));
        // A heading holds a plain word as a name only as its subject written as a name.
        assert!(!as_name("## Why should I use it?", "use"));
        assert!(as_name("## `use`", "use") && as_name("### use", "use"));
    }

    #[test]
    fn a_heading_describes_a_name_only_as_its_subject_written_as_a_name() {
        assert!(!about("## Why should I use a pager?", "use"));
        assert!(!about("## How do I find the files?", "find"));
        assert!(about("## The `find` command", "find"));
        assert!(about("## find", "find"));
        assert!(about("### --color:", "--color"));
        assert!(about("## Table::render", "render"));
        let hit = |path: &str, text: &str| super::super::Hit {
            path: path.into(),
            line: 3,
            text: text.into(),
        };
        assert!(!describes(&hit("docs/setup.sh", "# pager"), "pager"));
        assert!(describes(&hit("docs/guide.md", "# pager"), "pager"));
    }
}
