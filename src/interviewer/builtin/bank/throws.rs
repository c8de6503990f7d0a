//! A bug whose report shows an exception that the API it called documents as thrown (`@throws X`
//! of Java, Kotlin, PHP and JavaScript doc comments, `@exception X`, Python's `:raises X:`, C#'s
//! `<exception cref="X">`): the documented behaviour, which the caller handles, or a bug? What a
//! maintainer answers first when the exception is the API's way of saying something.

use regex::Regex;

use super::*;
use crate::interviewer::builtin::item::Item;
use crate::interviewer::builtin::search::Group;

/// The search key of an exception's documented throws (`throws:EndOfFileException`).
const KEY: &str = "throws:";

/// The exception types the item names: a capitalised word ending in `Exception` or `Error`
/// (the last part of a qualified name), at most four.
pub(in crate::interviewer::builtin) fn thrown(item: &Item) -> Vec<String> {
    let Ok(re) = Regex::new(r"\b([A-Z][A-Za-z0-9]*(?:Exception|Error))\b") else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    for (_, line, _) in &item.all {
        for c in re.captures_iter(line) {
            let name = c[1].to_string();
            if out.len() < 4 && !out.contains(&name) {
                out.push(name);
            }
        }
    }
    out
}

/// The search groups: every way a doc comment says a function throws one of them.
pub(in crate::interviewer::builtin) fn groups(item: &Item) -> Vec<Group> {
    thrown(item)
        .into_iter()
        .map(|e| Group {
            key: format!("{KEY}{e}"),
            spellings: vec![
                format!("@throws {e}"),
                format!("@throws {{{e}}}"),
                format!("@exception {e}"),
                format!(":raises {e}"),
                format!("<exception cref=\"{e}\""),
            ],
            within: None,
        })
        .collect()
}

/// The function a doc comment at `line` documents: Python's docstring is inside the `def`
/// above it; elsewhere the comment is above the declaration, the first line below it that is
/// neither comment nor annotation. With the declaration's line, where one is read (a
/// function documented twice is one declaration).
fn documented_fn(path: &str, lines: &[String], line: u32) -> Option<(String, Option<usize>)> {
    if path.ends_with(".py") {
        return crate::interviewer::builtin::raised::enclosing(lines, line).map(|f| (f, None));
    }
    let decl = Regex::new(r"([A-Za-z_]\w*)\s*(?:<[^>]*>\s*)?\(").ok()?;
    let (at, below) = lines
        .iter()
        .enumerate()
        .skip(line as usize)
        .take(20)
        .find(|(_, l)| {
            let t = l.trim_start();
            !(t.is_empty()
                || t.starts_with('*')
                || t.starts_with("/*")
                || t.starts_with("//")
                || t.starts_with('@')
                || t.starts_with('#')
                || t.starts_with('['))
        })?;
    decl.captures(below).map(|c| (c[1].to_string(), Some(at)))
}

/// "`readLine` is documented to throw `EndOfFileException` (LineReader.java:446: "…").
/// Intended, so the caller handles it, or a bug?" — only when the documented function is one
/// the item names (its trace's frame, its code), never an unrelated function that throws it.
pub(super) fn documented_throw(r: &Reading) -> Option<Finding> {
    let words = r.facts.text.as_str();
    for e in thrown(&r.item) {
        let Some(found) = r.search.get(&format!("{KEY}{e}")) else {
            continue;
        };
        let mut documented: Vec<(&Hit, String, Option<usize>)> = found
            .hits
            .iter()
            .filter(|h| {
                !is_doc(&h.path)
                    && !is_test(&h.path)
                    && !crate::interviewer::builtin::place::secondary(&h.path)
            })
            .filter_map(|h| {
                let text = crate::interviewer::builtin::repo::read_text(r.worktree, &h.path)?;
                let lines: Vec<String> = text.lines().map(String::from).collect();
                let (f, at) = documented_fn(&h.path, &lines, h.line)?;
                has_name(words, &f).then_some((h, f, at))
            })
            .collect();
        // One declaration documented on two lines counts once.
        documented.dedup_by(|a, b| a.0.path == b.0.path && a.2.is_some() && a.2 == b.2);
        let Some((h, f, _)) = documented.first() else {
            continue;
        };
        let more = documented.iter().filter(|(_, g, _)| g == f).count() - 1;
        let also = match more {
            0 => String::new(),
            n => format!(", and on {}", counted(n, "more declaration")),
        };
        // What the doc says of when it is thrown: the rest of its line.
        let when = h
            .text
            .split_once(e.as_str())
            .map(|(_, rest)| {
                rest.trim_matches(|c: char| {
                    c.is_whitespace() || matches!(c, '}' | ':' | '"' | '>' | '-')
                })
            })
            .unwrap_or("");
        let ask = "Intended, so the caller handles it, or a bug?";
        let said = |when: &str, also: &str| {
            let when = if when.is_empty() {
                String::new()
            } else {
                format!(": \"{when}\"")
            };
            format!(
                "`{f}` is documented to throw `{e}` ({}{when}{also}). {ask}",
                h.cite()
            )
        };
        // The doc's own words are the evidence: kept before the count of other declarations.
        let text = [said(when, &also), said(when, ""), said("", &also)]
            .into_iter()
            .find(|t| t.chars().count() <= crate::protocol::limits::MAX_QUESTION_TEXT_CHARS)
            .unwrap_or_else(|| said("", ""));
        return Some(
            Finding::new(format!("documented_throw_{}", slug(&e)), 9, text)
                .titled(format!("`{f}` documents `{e}`"))
                .options(&[
                    (
                        "Intended, as documented: the caller handles it",
                        "documented",
                    ),
                    ("A bug all the same", "bug"),
                    ("Don't know yet", "unknown"),
                ])
                .recommend("documented"),
        );
    }
    None
}

#[cfg(test)]
mod tests {
    use super::documented_fn;

    #[test]
    fn a_doc_comment_documents_the_declaration_below_it_or_the_def_it_is_in() {
        let lines = |t: &str| t.lines().map(String::from).collect::<Vec<_>>();
        let java = lines(
            "interface R {\n    /**\n     * @throws EndOfFileException at the end\n     */\n    @Deprecated\n    String readLine() throws EndOfFileException;\n}",
        );
        assert_eq!(
            documented_fn("R.java", &java, 3),
            Some(("readLine".to_string(), Some(5)))
        );
        let py = lines(
            "def parse(text):\n    \"\"\"Parse it.\n\n    :raises ValueError: when empty\n    \"\"\"\n    return 1\n",
        );
        assert_eq!(
            documented_fn("p.py", &py, 4),
            Some(("parse".to_string(), None))
        );
    }
}
