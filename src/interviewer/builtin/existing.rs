//! The option, setting or API that already gives what an item wishes for. A maintainer most
//! often answers "how do I …", "is there a way …", "it would make it possible to …" with what
//! exists: a flag, a public function, a variable. It is found among what the repository defines
//! by the words of the item's wish (not all its words), and kept only when weak cues agree: its
//! name is made of the wish's words, one of them rare among the repository's names; its own
//! documentation (a doc comment, a flag's help) says a word of the wish; and two more of four
//! (the project's documentation covers it, its name says two rare words of the wish, its rare
//! word is rarer still, its documentation says a word of the wish beyond its name's). Anything
//! less asks nothing: a wrong "already exists" is worse than none.
//!
//! Not for: the names the item spells out in its prose (the bank's `existing_` questions ask
//! those), nor the code nearest to the whole item (`nearest.rs`).

use std::collections::BTreeSet;
use std::path::Path;

use super::defs::Sources;
use super::item::Item;
use super::kind::ItemKind;
use super::nearest::{Def, DefKind};
use super::options::Declarations;
use super::words::{ACTIONS, GENERIC, words};

/// What a sentence says when it wishes for a way to do something, lower case.
const WISH: &[&str] = &[
    "how do i ",
    "how can i ",
    "how to ",
    "is there a way",
    "is there any way",
    "is there an option",
    "is it possible",
    "would like to",
    "i'd like to",
    "i want ",
    "should be able to",
    "would be nice",
    "would be great",
    "would be useful",
    "make it possible",
    "ability to",
];

/// Of those, the ones that ask how (a usage question), not for a change.
const HOW: &[&str] = &[
    "how do i ",
    "how can i ",
    "is there a way",
    "is there any way",
    "is there an option",
    "is it possible",
];

/// A word counts when at most one name in this many holds it, or this few; it is rarer still at
/// one in the second many, or the second few.
const RARE_IN: usize = 50;
const MIN_RARE: usize = 8;
const RARER_IN: usize = 100;
const MIN_RARER: usize = 3;

/// Lines above a definition read at most for its comment, and the quote's length.
const DOC_LINES: usize = 200;
const MAX_QUOTE: usize = 60;

/// An existing thing the item's wish points at, with what documents it.
#[derive(Debug, Clone)]
pub(super) struct Existing {
    pub def: Def,
    /// The first sentence of its own documentation, as written.
    pub doc: String,
    /// Where the project's documentation covers it: path, line, and the section's heading when
    /// that is how (none when its name agrees with the wish twice).
    pub documented: Option<(String, u32, Option<String>)>,
    /// The line of the item that says the wish.
    pub line: u32,
    /// The line of the item that shows this flag in use (`tool --x`), when that is how it was
    /// found: the reporter knows it already, the question is whether it can do what is wished.
    pub used: Option<u32>,
}

/// The item's wish: the line that says it, and its telling words (not generic, not an action;
/// `sub-commands` also read as `subcommand`). A feature's title says its wish too; a question
/// asking how says it in its title and the sentence before it ("… is not shown. How do I enable
/// it?"). A bug report's wish counts only when it asks how.
fn wish(item: &Item, title: &str, kind: ItemKind) -> Option<(u32, Wish)> {
    let skip: BTreeSet<String> = GENERIC
        .iter()
        .chain(ACTIONS)
        .flat_map(|w| words(w))
        .collect();
    let cues = if kind == ItemKind::Bug { HOW } else { WISH };
    let says = |s: &str, cues: &[&str]| {
        let lower = format!(" {}", s.to_lowercase());
        cues.iter().any(|c| lower.contains(&format!(" {c}")))
    };
    let mut first = None;
    let mut text: Vec<&str> = Vec::new();
    for (i, (n, s)) in item.sentences.iter().enumerate() {
        if !says(s, cues) {
            continue;
        }
        first.get_or_insert(*n);
        text.push(s);
        if says(s, HOW) && i > 0 {
            text.push(&item.sentences[i - 1].1);
        }
    }
    // A feature's title says what it wants even when no sentence wishes ("Colored output in
    // the listing"): the title is the wish then (line 0).
    let line = match first {
        Some(n) => n,
        None if kind == ItemKind::Feature => 0,
        None => return None,
    };
    if kind == ItemKind::Feature || text.iter().any(|s| says(s, HOW)) {
        text.push(title);
    }
    let mut all: BTreeSet<String> = text.iter().flat_map(|s| words(s)).collect();
    all.extend(text.iter().flat_map(|s| joined(s)));
    // The wish's own words ("would be nice") say nothing of what is wished.
    let said: BTreeSet<String> = WISH.iter().flat_map(|c| words(c)).collect();
    all.retain(|w| !said.contains(w));
    let telling: BTreeSet<String> = all.iter().filter(|w| !skip.contains(*w)).cloned().collect();
    // A name spells a generic word the wish says as the wish does or short (`withRequiredArg`
    // for "a required argument"): it may make up a name, never tell it.
    let short: Vec<String> = SHORT
        .iter()
        .filter(|(long, _)| words(long).iter().all(|w| all.contains(w)))
        .flat_map(|(_, short)| words(short))
        .collect();
    all.extend(short);
    (!telling.is_empty()).then_some((line, Wish { telling, all }))
}

/// The words of an item's wish: those that tell what it wishes (no generic word), and all it
/// says, with the short forms names use for them.
struct Wish {
    telling: BTreeSet<String>,
    all: BTreeSet<String>,
}

/// Generic words of the prose and the short forms names spell them with.
const SHORT: &[(&str, &str)] = &[
    ("argument", "arg"),
    ("option", "opt"),
    ("command", "cmd"),
    ("parameter", "param"),
    ("configuration", "config"),
    ("message", "msg"),
    ("value", "val"),
];

/// `sub-commands` as one word (`subcommand`): how a name spells what prose hyphenates.
fn joined(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '-'))
        .filter(|t| t.trim_matches('-').contains('-'))
        .flat_map(|t| words(&t.replace('-', "")))
        .collect()
}

/// What the item's wish points at, when its cues agree (see the module's comment). Of
/// several, a flag before a function, a variable, a type; then the index's order.
pub(super) fn find(
    defs: &[Def],
    item: &Item,
    title: &str,
    kind: ItemKind,
    named: &[&str],
    programs: &[String],
    worktree: &Path,
) -> Option<Existing> {
    // A question about how to use what exists reads as documentation: its way is asked too.
    if !matches!(
        kind,
        ItemKind::Bug | ItemKind::Feature | ItemKind::Refactor | ItemKind::Docs
    ) {
        return None;
    }
    let (line, Wish { telling, all }) = wish(item, title, kind)?;
    // Its own reading of the files: the nearest code's budget stays whole.
    let mut sources = Sources::default();
    // The wish's line is the question's, the flag's the reporter's run.
    if let Some(e) = in_use(
        defs,
        item,
        title,
        &telling,
        programs,
        worktree,
        &mut sources,
    ) {
        return Some(Existing { line, ..e });
    }
    // Spelled by the item in any case or separator (`--fixed-strings`, `fixed_strings()`).
    let spelled = |d: &Def| named.iter().any(|n| words(n) == d.name_words());
    // A type's declaration read as a function too (`abstract class Subcommand(…)`) is a type.
    let types: BTreeSet<(&str, u32, &str)> = defs
        .iter()
        .filter(|t| t.kind == DefKind::Type)
        .map(|t| (t.path.as_str(), t.line, t.name.as_str()))
        .collect();
    let a_type = |d: &Def| {
        d.kind == DefKind::Function && types.contains(&(d.path.as_str(), d.line, d.name.as_str()))
    };
    // A word many names share is the project's own vocabulary (`match` in a search tool): it
    // says nothing of which thing: a name must hold a rare one. And a name all of whose words
    // the wish says (`subcommands()` for "nested sub-commands", not `linewrapIndent()` for
    // "indent").
    let code: Vec<&Def> = defs.iter().filter(|d| d.kind != DefKind::Heading).collect();
    // Counted over names, not definitions: overloads of one name are one name.
    let names: BTreeSet<(&str, &[String])> = code
        .iter()
        .map(|d| (d.name.as_str(), d.name_words()))
        .collect();
    let holding = |w: &String| names.iter().filter(|(_, nw)| nw.contains(w)).count();
    let (most, fewest) = (
        (names.len() / RARE_IN).max(MIN_RARE),
        (names.len() / RARER_IN).max(MIN_RARER),
    );
    let counted: Vec<(&String, usize)> = telling.iter().map(|w| (w, holding(w))).collect();
    let rare: BTreeSet<&String> = counted
        .iter()
        .filter(|(_, n)| *n <= most)
        .map(|(w, _)| *w)
        .collect();
    let rarest: BTreeSet<&String> = counted
        .iter()
        .filter(|(_, n)| *n <= fewest)
        .map(|(w, _)| *w)
        .collect();
    let mut candidates: Vec<&Def> = code
        .into_iter()
        .filter(|d| d.name_words().iter().any(|w| rare.contains(w)))
        .filter(|d| d.name_words().iter().all(|w| all.contains(w)))
        .filter(|d| !spelled(d) && !a_type(d))
        .collect();
    // A flag or a command before a function, a variable, a type.
    candidates.sort_by_key(|d| match d.kind {
        DefKind::Flag | DefKind::Subcommand => 0,
        DefKind::Function => 1,
        DefKind::EnvVar => 2,
        _ => 3,
    });
    candidates.into_iter().take(MAX_CANDIDATES).find_map(|d| {
        let lines = sources.lines(worktree, &d.path)?;
        let at = (d.line as usize).checked_sub(1)?;
        if !public(lines.get(at)?) || !declared(lines, d) {
            return None;
        }
        let doc = documentation(lines, at, d.kind)?;
        let doc_words = words(&doc);
        if !doc_words.iter().any(|w| telling.contains(w)) {
            return None;
        }
        // Then at least two more cues of four: the project's documentation covers it (a section
        // whose heading says its name's rare word and nothing the wish does not,
        // "Subcommands", or prose that spells its name); its name says two of the wish's rare
        // words (`setColumnWidths()` for "set the column widths"); its rare word is rarer
        // still; its documentation or that heading says a word of the wish beyond its name's.
        let own: BTreeSet<&String> = d.name_words().iter().collect();
        let beyond = |w: &String| telling.contains(w) && !own.contains(w);
        let heading = defs
            .iter()
            .filter(|h| h.kind == DefKind::Heading && !changelog(&h.path))
            .find(|h| {
                let hw = h.name_words();
                hw.iter().any(|w| own.contains(w) && rare.contains(w))
                    && hw.iter().all(|w| own.contains(w) || telling.contains(w))
            });
        let more = doc_words.iter().any(beyond)
            || heading.is_some_and(|h| h.name_words().iter().any(beyond));
        let twice = own.iter().filter(|w| rare.contains(*w)).count() >= 2;
        let rarer = own.iter().any(|w| rarest.contains(w));
        let documented = heading
            .map(|h| (h.path.clone(), h.line, Some(h.name.clone())))
            .or_else(|| mentioned(defs, d, worktree, &mut sources));
        let cues = [documented.is_some(), twice, rarer, more];
        if cues.iter().filter(|c| **c).count() < 2 {
            return None;
        }
        Some(Existing {
            def: d.clone(),
            doc,
            documented,
            line,
            used: None,
        })
    })
}

/// The flag the item shows in use (a command running the project's program that passes it,
/// `tool install --no-x`), declared with a help text that says a word of the wish beyond the
/// generic ones: the way the reporter tried, asked whether it can do what is wished. Of two
/// such flags, neither: a tie names no way. A flag the title or prose names as itself
/// ("I pass `--x`") is the bank's to ask (`used_` and `existing_` questions).
fn in_use(
    defs: &[Def],
    item: &Item,
    title: &str,
    telling: &BTreeSet<String>,
    programs: &[String],
    worktree: &Path,
    sources: &mut Sources,
) -> Option<Existing> {
    let flags: BTreeSet<&str> = defs
        .iter()
        .filter(|d| d.kind == DefKind::Flag && d.name.starts_with('-'))
        .map(|d| d.name.as_str())
        .collect();
    let mut found: Vec<(Existing, &str)> = Vec::new();
    for flag in flags {
        let Some(n) = super::shape::uses_flag(item, flag, programs) else {
            continue;
        };
        let prose = std::iter::once(title).chain(item.sentences.iter().map(|(_, s)| s.as_str()));
        if prose.into_iter().any(|s| names_option(s, flag)) {
            continue;
        }
        let at = defs
            .iter()
            .filter(|d| d.kind == DefKind::Flag && d.name == flag);
        let declared_at = at.into_iter().find_map(|d| {
            let lines = sources.lines(worktree, &d.path)?;
            let i = (d.line as usize).checked_sub(1)?;
            if !declared(lines, d) {
                return None;
            }
            let doc = documentation(lines, i, d.kind)?;
            words(&doc)
                .iter()
                .any(|w| telling.contains(w))
                .then(|| (d.clone(), doc))
        });
        if let Some((def, doc)) = declared_at {
            let documented = mentioned(defs, &def, worktree, sources);
            let e = Existing {
                def,
                doc,
                documented,
                line: 0,
                used: Some(n),
            };
            found.push((e, flag));
        }
    }
    (found.len() == 1).then(|| found.remove(0).0)
}

/// The question of a flag the item shows in use on line `n`: what it does and where, then
/// whether it (or another way) can do what `place` wishes, or that is not supported yet.
pub(super) fn used_question(e: &Existing, n: u32, place: &str) -> super::Finding {
    let documented = e
        .documented
        .as_ref()
        .map(|(path, line, _)| format!("; {path}:{line}"))
        .unwrap_or_default();
    super::Finding::new(
        "existing_way",
        8,
        format!(
            "Line {n} already passes {} ({}:{}: \"{}\"{documented}). Can it, or another existing \
             way, do what {place} asks, or is that not supported yet?",
            e.def.named(),
            e.def.path,
            e.def.line,
            e.doc,
        ),
    )
    .titled(format!("What {} already does", e.def.named()))
    .options(&[
        ("It can: point them to how", "enough"),
        ("Not supported yet", "extend"),
        ("Unrelated to what they want", "unrelated"),
    ])
}

/// Whether `text` names `flag` as itself: a whole token (`-N` is not named by `-NF`), not inside
/// a code span that starts with a program's name (`` `rg -N foo` `` is a command line).
pub(super) fn names_option(text: &str, flag: &str) -> bool {
    let token = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_');
    text.match_indices(flag).any(|(i, _)| {
        let before = &text[..i];
        if token(before.chars().next_back()) || token(text[i + flag.len()..].chars().next()) {
            return false;
        }
        // Inside a code span: what the span starts with.
        if before.matches('`').count() % 2 == 1 {
            let span = before.rsplit('`').next().unwrap_or("");
            return span.trim_start().is_empty() || span.trim_start().starts_with('-');
        }
        true
    })
}

/// Definitions whose files are read at most, and documentation files read for a name.
const MAX_CANDIDATES: usize = 16;
const MAX_DOC_FILES: usize = 8;

/// The first prose line of the project's documentation (the Markdown files indexed for their
/// headings) that spells a definition's name: `--name` or `NAME` whole, `name(` or `` `name` ``.
/// A line of a code block is a sample, not documentation.
fn mentioned(
    defs: &[Def],
    d: &Def,
    worktree: &Path,
    sources: &mut Sources,
) -> Option<(String, u32, Option<String>)> {
    let mut paths: Vec<&str> = defs
        .iter()
        .filter(|h| h.kind == DefKind::Heading && !changelog(&h.path))
        .map(|h| h.path.as_str())
        .collect();
    paths.dedup();
    // A command is spelled as typed, in a code span (`tool init`).
    let sub = d.name.rsplit(' ').next().unwrap_or(&d.name);
    let typed = |line: &str| {
        line.split('`').skip(1).step_by(2).any(|span| {
            let tokens: Vec<&str> = span.split_whitespace().collect();
            tokens.iter().skip(1).any(|t| *t == sub) || span.trim() == d.name
        })
    };
    let spelled = |line: &str| match d.kind {
        DefKind::Subcommand => typed(line),
        DefKind::Flag | DefKind::EnvVar => line.match_indices(d.name.as_str()).any(|(i, _)| {
            let after = line[i + d.name.len()..].chars().next();
            let before = line[..i].chars().next_back();
            !after.is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_')
                && !before.is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_')
        }),
        _ => line.contains(&format!("{}(", d.name)) || line.contains(&format!("`{}`", d.name)),
    };
    for path in paths.into_iter().take(MAX_DOC_FILES) {
        let Some(lines) = sources.lines(worktree, path) else {
            continue;
        };
        let mut fenced = false;
        for (i, l) in lines.iter().enumerate() {
            if l.trim_start().starts_with("```") {
                fenced = !fenced;
            } else if !fenced && spelled(l) {
                return Some((path.to_string(), u32::try_from(i + 1).ok()?, None));
            }
        }
    }
    None
}

/// Whether a flag is declared where it was indexed, not named in a help text or an example.
fn declared(lines: &[String], d: &Def) -> bool {
    let Some(flag) = super::defs::Flag::parse(&d.name) else {
        return d.kind != DefKind::Flag;
    };
    if d.kind != DefKind::Flag {
        return true;
    }
    let hit = super::search::Hit {
        path: d.path.clone(),
        line: d.line,
        text: String::new(),
    };
    super::defs::declares_flag(lines, &hit, flag)
}

/// Whether a document is a changelog (its entries record changes, they document nothing).
pub(super) fn changelog(path: &str) -> bool {
    let file = path.rsplit('/').next().unwrap_or(path).to_lowercase();
    ["changelog", "changes", "history", "news", "release"]
        .iter()
        .any(|c| file.starts_with(c))
}

/// Whether a declaration is open to the project's users: not private, protected or internal,
/// a Rust item marked `pub`, a Python or Ruby name without a leading underscore.
fn public(line: &str) -> bool {
    let t = line.trim_start();
    let closed = ["private", "protected", "internal", "fileprivate"]
        .iter()
        .any(|k| t.split_whitespace().any(|w| w == *k));
    let rust_private = (t.starts_with("fn ") || t.starts_with("struct ") || t.starts_with("enum "))
        || t.starts_with("pub(");
    let underscored = ["def _", "fun _", "function _"]
        .iter()
        .any(|p| t.contains(p));
    !(closed || rust_private || underscored)
}

/// The first sentence of a definition's own documentation: for a flag, its help text (a string
/// of words on its line or the two below); else the comment right above it (a doc comment,
/// attributes and annotations skipped) or a Python docstring right below.
fn documentation(lines: &[String], at: usize, kind: DefKind) -> Option<String> {
    if kind == DefKind::Subcommand {
        let line = lines.get(at)?;
        return line
            .strip_prefix("# Summary:")
            .map(|s| s.trim().to_string())
            .or_else(|| super::commands::Commands::new().help(lines, at))
            .map(|s| first_sentence(&s));
    }
    if kind == DefKind::Flag {
        return Declarations::new()
            .help(lines, at)
            .map(|s| first_sentence(&s));
    }
    // The comment block above, read up to its top; its description is its first paragraph
    // (a blank comment line, a tag such as `@param`, an example's fence ends it).
    let mut block = Vec::new();
    for l in lines[..at].iter().rev().take(DOC_LINES) {
        let t = l.trim();
        // Annotations and attributes sit between a comment and its declaration.
        if t.starts_with('@') || t.starts_with("#[") || t.starts_with('[') || t == "*/" {
            continue;
        }
        if !["//", "/*", "*", "#", "--"]
            .iter()
            .any(|c| t.starts_with(c))
        {
            break;
        }
        block.push(
            t.trim_start_matches(['/', '*', '#', '-', '|', '!', ' '])
                .trim(),
        );
    }
    block.reverse();
    // A C# summary's tags are markup; its `<param>` ends the description as `@param` does.
    let tags = |t: &str| t.replace("<summary>", "").replace("</summary>", "");
    let ends = |t: &str| t.starts_with('@') || t.starts_with("```") || t.starts_with("<param");
    let mut above: Vec<String> = block
        .into_iter()
        .map(|t| tags(t).trim().to_string())
        .skip_while(String::is_empty)
        .take_while(|t| !t.is_empty() && !ends(t))
        .collect();
    if above.is_empty()
        && let Some(next) = lines.get(at + 1)
    {
        let t = next.trim();
        if let Some(rest) = t.strip_prefix("\"\"\"").or_else(|| t.strip_prefix("'''")) {
            above.push(rest.trim_end_matches("\"\"\"").to_string());
        }
    }
    let text = above.join(" ");
    (!text.trim().is_empty()).then(|| first_sentence(&text))
}

/// A text's first sentence, cut where a word ends.
fn first_sentence(text: &str) -> String {
    let end = text
        .match_indices(". ")
        .map(|(i, _)| i + 1)
        .next()
        .unwrap_or(text.len());
    super::text::one_line(&text[..end], MAX_QUOTE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wish_is_read_from_the_sentence_that_says_it() {
        let item = Item::new(concat!(
            "Sub-commands look odd.\n\n",
            "Such an API would make it possible to define nested sub-commands.\n"
        ));
        let (line, Wish { telling, .. }) = wish(&item, "API", ItemKind::Feature).expect("a wish");
        assert_eq!(line, 3);
        assert!(
            telling.contains("subcommand") && telling.contains("nest"),
            "{telling:?}"
        );
        // A report's "should" is no wish; its "how do I" is.
        let report = Item::new("It crashes. It would be nice to not crash.\n");
        assert!(wish(&report, "Crash", ItemKind::Bug).is_none());
        let usage = Item::new("The prompt is not echoed. How do I enable echoing it?\n");
        assert!(wish(&usage, "No echo", ItemKind::Bug).is_some());
        // A feature that wishes in no sentence wishes in its title (line 0).
        let plain = Item::new("The output always goes through less.\n");
        let (line, Wish { telling, .. }) =
            wish(&plain, "Use a different pager", ItemKind::Feature).unwrap();
        assert_eq!(line, 0);
        assert!(telling.contains("pager"), "{telling:?}");
        assert!(wish(&plain, "Use a different pager", ItemKind::Bug).is_none());
    }

    /// What `find` says of an item on a worktree holding `files`.
    fn found(files: &[(&str, &str)], item: &str, kind: ItemKind) -> Option<Existing> {
        found_run(files, item, kind, &[])
    }

    /// `found`, with the project's programs (`tool` of `tool build --x`).
    fn found_run(
        files: &[(&str, &str)],
        item: &str,
        kind: ItemKind,
        programs: &[String],
    ) -> Option<Existing> {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let at = dir.path().join(path);
            std::fs::create_dir_all(at.parent().unwrap()).unwrap();
            std::fs::write(at, text).unwrap();
        }
        let indexing = super::super::nearest::Indexing::new(&[]).unwrap();
        let defs: Vec<Def> = super::super::scan::list(dir.path())
            .iter()
            .filter_map(|f| indexing.read(f, &std::fs::read(&f.path).unwrap()))
            .flatten()
            .collect();
        find(
            &defs,
            &Item::new(item),
            "API",
            kind,
            &[],
            programs,
            dir.path(),
        )
    }

    #[test]
    fn a_flag_the_item_runs_is_the_way_asked_when_its_help_says_the_wish() {
        let cli = concat!(
            "import argparse\n",
            "\n",
            "def parser():\n",
            "    p = argparse.ArgumentParser(prog='frob')\n",
            "    p.add_argument('--no-hooks', action='store_true',\n",
            "                   help='Skip running every hook listed in frob.toml.')\n",
            "    p.add_argument('--quiet', action='store_true', help='Print nothing.')\n",
            "    return p\n",
        );
        let item = concat!(
            "# Only my own hooks\n\n",
            "Is it possible to skip only the hooks in my frob.toml and still run the plugins?\n\n",
            "So we run `frob build --no-hooks`, which also stops the plugins.\n",
        );
        let frob = ["frob".to_string()];
        let e = found_run(&[("frob/cli.py", cli)], item, ItemKind::Feature, &frob)
            .expect("the flag in use");
        assert_eq!((e.def.name.as_str(), e.def.line), ("--no-hooks", 5));
        assert_eq!(e.doc, "Skip running every hook listed in frob.toml.");
        assert_eq!((e.line, e.used), (3, Some(5)));
        let asked = used_question(&e, 5, "line 3");
        assert!(
            asked.question.starts_with(
                "Line 5 already passes `--no-hooks` (frob/cli.py:5: \"Skip running every hook"
            ),
            "{}",
            asked.question
        );
        // Not a run of the project's program: no flag in use.
        let other = item.replace("`frob build", "`make build");
        let none = found_run(&[("frob/cli.py", cli)], &other, ItemKind::Feature, &frob);
        assert!(none.as_ref().is_none_or(|e| e.used.is_none()), "{none:?}");
        // A help that says none of the wish's words: not the way.
        let quiet = item.replace("--no-hooks`", "--quiet`");
        let none = found_run(&[("frob/cli.py", cli)], &quiet, ItemKind::Feature, &frob);
        assert!(none.as_ref().is_none_or(|e| e.used.is_none()), "{none:?}");
        // Named in prose as itself ("I pass `--x`"): the bank asks it.
        let prose = item.replace("So we run `frob build --no-hooks`", "I pass `--no-hooks`");
        let none = found_run(&[("frob/cli.py", cli)], &prose, ItemKind::Feature, &frob);
        assert!(none.as_ref().is_none_or(|e| e.used.is_none()), "{none:?}");
        // Two flags in use whose help both say the wish: a tie names neither.
        let two = cli.replace("help='Print nothing.'", "help='Print no hook.'");
        let both = item.replace("--no-hooks`", "--no-hooks --quiet`");
        let none = found_run(&[("frob/cli.py", &two)], &both, ItemKind::Feature, &frob);
        assert!(none.as_ref().is_none_or(|e| e.used.is_none()), "{none:?}");
    }

    const PARSER: &str = concat!(
        "/**\n",
        " * Registers one or more subcommands.\n",
        " *\n",
        " * @param list subcommands to add.\n",
        " */\n",
        "fun subcommands(vararg list: Subcommand) {\n",
        "}\n",
        "\n",
        "/** Parses the arguments. */\n",
        "fun parse(args: Array<String>) {\n",
        "}\n",
    );
    const WISH_ITEM: &str =
        "# API\n\nSuch an API would make it possible to define nested sub-commands.\n";

    #[test]
    fn what_the_wish_names_exists_when_its_doc_and_a_section_agree() {
        let readme = "# Tool\n\n## Subcommands\n\nA parser may have subcommands.\n";
        let e = found(
            &[("src/ArgParser.kt", PARSER), ("README.md", readme)],
            WISH_ITEM,
            ItemKind::Feature,
        )
        .expect("subcommands() already exists");
        assert_eq!((e.def.name.as_str(), e.def.line), ("subcommands", 6));
        assert_eq!(e.doc, "Registers one or more subcommands.");
        assert_eq!(
            e.documented,
            Some(("README.md".into(), 3, Some("Subcommands".into())))
        );
        assert_eq!(e.line, 3);
    }

    #[test]
    fn one_cue_alone_says_nothing_exists() {
        // No section on it: its name and its comment alone are not enough.
        let readme = "# Tool\n\n## Usage\n\nRun it.\n";
        let files = [("src/ArgParser.kt", PARSER), ("README.md", readme)];
        assert!(found(&files, WISH_ITEM, ItemKind::Feature).is_none());
        // A report that wishes without asking how is not asked what exists.
        let report = "# Crash\n\nIt would be nice to define nested sub-commands.\n";
        let readme = "# Tool\n\n## Subcommands\n";
        let files = [("src/ArgParser.kt", PARSER), ("README.md", readme)];
        assert!(found(&files, report, ItemKind::Bug).is_none());
    }

    #[test]
    fn a_flag_is_found_by_its_help_and_a_section_saying_the_wish() {
        let app = concat!(
            "fn app() {\n",
            "    App::new(\"tool\")\n",
            "        .arg(\n",
            "            Arg::with_name(\"pager\")\n",
            "                .long(\"pager\")\n",
            "                .takes_value(true)\n",
            "                .value_name(\"command\")\n",
            "                .hidden_short_help(true)\n",
            "                .help(\"Determine which pager to use.\"),\n",
            "        )\n",
            "        .arg(Arg::with_name(\"wrap\").long(\"wrap\").help(\"Specify the text-wrapping mode.\"))\n",
            "}\n",
        );
        let readme = "# Tool\n\n## Using a different pager\n\nSet `--pager`.\n";
        let item = "# Pager\n\nHow can I make the tool use a different pager?\n";
        let e = found(
            &[("src/app.rs", app), ("README.md", readme)],
            item,
            ItemKind::Feature,
        )
        .expect("--pager already exists");
        assert_eq!((e.def.name.as_str(), e.def.line), ("--pager", 5));
        assert_eq!(e.doc, "Determine which pager to use.");
        assert_eq!(e.documented.map(|d| d.1), Some(3));
        // The next flag's help is not this one's.
        let lines: Vec<String> = app.lines().map(str::to_string).collect();
        assert_eq!(
            documentation(&lines, 10, DefKind::Flag).as_deref(),
            Some("Specify the text-wrapping mode.")
        );
    }

    #[test]
    fn a_scripts_option_is_found_by_its_case_arm_and_usage_line() {
        let script = concat!(
            "#!/usr/bin/env bash\n",
            "usage() {\n",
            "  cat <<EOF\n",
            "  -c, --count    Count the test cases without running any tests\n",
            "EOF\n",
            "}\n",
            "case \"$1\" in\n",
            "  -c|--count)\n",
            "    count=1\n",
            "    ;;\n",
            "esac\n",
        );
        let readme = "# Tool\n\nRun `tool --count` to count the tests.\n";
        let item = "# Count\n\nIs there a way to count the test cases without running them?\n";
        let e = found(
            &[("libexec/tool.sh", script), ("README.md", readme)],
            item,
            ItemKind::Feature,
        )
        .expect("--count already exists");
        assert_eq!((e.def.name.as_str(), e.def.line), ("--count", 8));
        assert_eq!(e.doc, "Count the test cases without running any tests");
    }

    #[test]
    fn a_command_is_found_by_its_summary_and_the_documentation_typing_it() {
        let versions = concat!(
            "#!/usr/bin/env bash\n",
            "# Summary: List all Python versions available to tool\n",
            "# Usage: tool versions [--bare]\n",
        );
        let readme = "# Tool\n\nRun `tool versions` to see them.\n";
        let files = [
            ("libexec/tool-versions", versions),
            (
                "libexec/tool-exec",
                "#!/bin/sh\n# Summary: Run an executable\n",
            ),
            ("README.md", readme),
        ];
        let item = "# Versions\n\nIs there a way to list the Python versions I have?\n";
        let e = found(&files, item, ItemKind::Feature).expect("`tool versions` exists");
        assert_eq!((e.def.name.as_str(), e.def.line), ("tool versions", 2));
        assert_eq!(e.doc, "List all Python versions available to tool");
        assert_eq!(e.documented.map(|d| (d.1, d.2)), Some((3, None)));
        // A wish no command's name says asks nothing.
        let other = "# Retry\n\nIs there a way to retry failing tests?\n";
        assert!(found(&files, other, ItemKind::Feature).is_none());
    }

    #[test]
    fn a_definition_is_documented_by_its_comment_or_help() {
        let code: Vec<String> = [
            "    /**",
            "     * Registers one or more subcommands.",
            "     *",
            "     * @param subcommandsList subcommands to add.",
            "     */",
            "    fun subcommands(vararg subcommandsList: Subcommand) {",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(
            documentation(&code, 5, DefKind::Function).as_deref(),
            Some("Registers one or more subcommands.")
        );
        let flag: Vec<String> = [
            r#"    .option('-p, --port <number>',"#,
            r#"            'port to listen on. Defaults to 80')"#,
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(
            documentation(&flag, 0, DefKind::Flag).as_deref(),
            Some("port to listen on.")
        );
        assert!(public("fun subcommands(vararg list: Subcommand) {"));
        assert!(!public("    private fun parse(args: Array<String>) {"));
        assert!(!public("fn helper() {"));
    }
}
