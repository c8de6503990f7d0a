//! What a work item names that the repository may hold: backticked identifiers, `--flags`,
//! paths, crate and package names, type and function names, error messages and versions, each
//! with the line of the item that names it.

/// What kind of thing a name is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum NameKind {
    Flag,
    Path,
    /// An identifier: a function, type, module, crate or variable name.
    Ident,
    /// A message quoted from an error or log output.
    Message,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Name {
    pub text: String,
    pub kind: NameKind,
    /// The item's line (1-based) that names it first.
    pub line: u32,
    /// Written in backticks or as a link to a package registry (a deliberate reference to the
    /// project's: off for another program's words, a placeholder, a version, or the project's
    /// own command as typed — found or not, their absence is never asked).
    pub marked: bool,
    /// For a path from a trace (`src/lib.rs:131:9`), the line it points at.
    pub at: Option<u32>,
    /// For the last segment of a qualified name (`Colour` of `ansi_term::Colour`), the first
    /// segment: the crate or module it belongs to.
    pub within: Option<String>,
}

/// At most this many names are searched for.
const MAX_NAMES: usize = 40;

/// Extensions that make a bare word a file name.
const FILE_EXTS: &[&str] = &[
    "rs", "toml", "md", "c", "h", "cc", "cpp", "hpp", "py", "go", "js", "ts", "tsx", "jsx", "json",
    "yaml", "yml", "sh", "lock", "txt", "java", "kt", "rb", "swift", "proto", "sql", "cfg", "ini",
];

/// Whether `word` is a file extension (`rb` of `test.rb`), not a name.
pub(super) fn is_file_ext(word: &str) -> bool {
    FILE_EXTS.contains(&word)
}

/// Words shaped like identifiers that are not worth searching for.
const NOT_NAMES: &[&str] = &[
    "GitHub",
    "JavaScript",
    "TypeScript",
    "macOS",
    "iOS",
    "YouTube",
    "PowerShell",
    "OpenSSL",
    "WebAssembly",
    "PyPI",
    "README",
    "e.g",
    "i.e",
    "TODO",
    "FIXME",
    "CI",
    "API",
    "CLI",
    "UTF-8",
];

/// `text` as a name of `kind` found on `line`, unless too short, too long, no name at all or
/// there already (then marked if this one is).
fn add_name(out: &mut Vec<Name>, text: &str, kind: NameKind, line: u32, marked: bool) {
    let text = text.trim();
    let short_flag = kind == NameKind::Flag && text.len() == 2;
    if (text.chars().count() < 3 && !short_flag)
        || text.chars().count() > 120
        || NOT_NAMES.contains(&text)
    {
        return;
    }
    if let Some(existing) = out.iter_mut().find(|n| n.text == text) {
        existing.marked |= marked;
        return;
    }
    out.push(Name {
        text: text.to_string(),
        kind,
        line,
        marked,
        at: None,
        within: None,
    });
}

/// The names of one line of prose: its code spans and registry links (written deliberately,
/// marked), then its bare flags, paths with a folder and code-shaped words.
fn prose_names(line: &str) -> Vec<(String, NameKind, bool)> {
    let mut out = Vec::new();
    for span in code_spans(line) {
        out.extend(classify_span(span).into_iter().map(|(t, k)| (t, k, true)));
    }
    for link in registry_links(line) {
        out.push((link, NameKind::Ident, true));
    }
    let bare = without_foreign_quotes(&without_code_spans(line));
    for flag in flags(&bare) {
        out.push((flag.to_string(), NameKind::Flag, false));
    }
    for word in bare.split(|c: char| {
        c.is_whitespace() || matches!(c, ',' | ';' | '(' | ')' | '"' | '\'' | '[' | ']')
    }) {
        let word = word.trim_end_matches(['.', ':', '!', '?']);
        // A bare file name (`README.md`) may be anyone's; a path with a folder is this one's.
        if is_path(word) && word.contains('/') {
            out.push((word.to_string(), NameKind::Path, false));
        } else if is_code_ident(word) {
            out.push((
                word.trim_end_matches("()").to_string(),
                NameKind::Ident,
                false,
            ));
        }
    }
    out
}

/// Names from the item's lines; `code` tells which lines are inside code blocks.
pub(super) fn extract(lines: &[(u32, &str, bool)], programs: &[String]) -> Vec<Name> {
    let mut out: Vec<Name> = Vec::new();
    let mut traced: Vec<(&str, u32, u32)> = Vec::new();
    let mut add = |text: &str, kind: NameKind, line: u32, marked: bool| {
        add_name(&mut out, text, kind, line, marked);
    };
    for &(n, line, in_code) in lines {
        if in_code {
            traced.extend(located_paths(line).into_iter().map(|(p, at)| (p, n, at)));
            if let Some(message) = error_message(line) {
                add(&message, NameKind::Message, n, true);
            }
            for flag in flags(line) {
                add(flag, NameKind::Flag, n, true);
            }
            continue;
        }
        for (text, kind, marked) in prose_names(line) {
            add(&text, kind, n, marked);
        }
    }
    for (path, line, at) in traced {
        add_at(&mut out, path, line, at);
    }
    // A message the item's own program prints (`println!("End of main")`) is its output, not
    // one of the repository's.
    // So is a plain word it prints (`println!("tick")`, then "three `tick` lines").
    out.retain(|n| {
        let printed = match n.kind {
            NameKind::Message => true,
            NameKind::Ident => !code_shaped(&n.text),
            NameKind::Flag | NameKind::Path => false,
        };
        !printed || !quoted_in_code(lines, &n.text)
    });
    // What the item's own code declares (`.option('required', …)`) or runs (`node ./main.js
    // init`) is the reporter's: never asked as the project's.
    let code: Vec<&str> = lines.iter().filter(|l| l.2).map(|l| l.1).collect();
    let runs: Vec<&str> = lines
        .iter()
        .flat_map(
            |(_, l, in_code)| {
                if *in_code { vec![*l] } else { code_spans(l) }
            },
        )
        .flat_map(super::own_code::script_words)
        .collect();
    // A flag given to the reporter's script may still be the project's (`-h` of a parser):
    // only the flags its code declares are left out.
    out.retain(|n| match n.kind {
        NameKind::Flag => !super::own_code::declares_flag(&code, &n.text, programs),
        _ => !runs.contains(&n.text.as_str()),
    });
    // A phrase the item says was run ("when I run `tool local 3.8`") is a command, not a message.
    out.retain(|n| n.kind != NameKind::Message || !said_to_be_run(lines, &n.text));
    unmark_others(&mut out, lines, programs);
    out.truncate(MAX_NAMES);
    // `Colour` of `ansi_term::Colour` belongs to `ansi_term`.
    let qualified: Vec<(String, String)> = out
        .iter()
        .filter_map(|n| {
            let (first, _) = n.text.split_once("::")?;
            let last = n.text.rsplit("::").next()?;
            Some((last.to_string(), first.to_string()))
        })
        .collect();
    for n in out.iter_mut().filter(|n| !n.text.contains("::")) {
        if let Some((_, first)) = qualified.iter().find(|(last, _)| *last == n.text) {
            n.within = Some(first.clone());
        }
    }
    out
}

/// Another program's words and flags, a synopsis's placeholder, a version (`4.2.x`): written
/// deliberately, yet never a name of the project's that its absence would question. Nor is the
/// project's own program's command as typed (`tool alias name 4.2`): searched, but no message
/// whose absence is asked (`marked` off).
fn unmark_others(out: &mut [Name], lines: &[(u32, &str, bool)], programs: &[String]) {
    let commands: Vec<&str> = lines
        .iter()
        .flat_map(|&(_, l, in_code)| if in_code { vec![l] } else { code_spans(l) })
        .collect();
    let others = super::outside::others_words(&commands, programs);
    let own = |w: &str| programs.iter().any(|p| p.eq_ignore_ascii_case(w));
    for n in out.iter_mut() {
        n.marked &= !others.contains(&n.text) && !super::outside::version_like(&n.text);
        if n.kind == NameKind::Message {
            n.marked &= !n.text.split(' ').next().is_some_and(own);
        }
    }
}

/// Whether a prose line writes `text` as a code span right after a word that says it was run.
fn said_to_be_run(lines: &[(u32, &str, bool)], text: &str) -> bool {
    let span = format!("`{text}`");
    lines.iter().filter(|(_, _, code)| !code).any(|(_, l, _)| {
        l.match_indices(&span).any(|(at, _)| {
            let before = l[..at].trim_end().to_lowercase();
            let word = before.rsplit(|c: char| !c.is_alphanumeric()).next();
            word.is_some_and(|w| super::outcome::RAN.contains(&w))
        })
    })
}

/// Whether a name has the shape only code gives it (`_`, `::`, `.`, `/`, a capital, a digit,
/// a dash, `()`): a plain lower-case word in backticks (`telescope`, `overrides`) is prose,
/// and not finding it says nothing.
pub(super) fn code_shaped(text: &str) -> bool {
    text.chars().any(|c| {
        c.is_uppercase() || c.is_ascii_digit() || matches!(c, '_' | ':' | '.' | '/' | '-' | '(')
    })
}

/// Whether a code block of the item holds `text` inside a string literal: its own program
/// prints or declares it (`println!("End of main")`, `.option('--log [path]')`).
pub(super) fn quoted_in_code(lines: &[(u32, &str, bool)], text: &str) -> bool {
    lines
        .iter()
        .filter(|(_, _, code)| *code)
        .any(|(_, line, _)| {
            ['"', '\''].iter().any(|q| {
                line.split(*q)
                    .skip(1)
                    .step_by(2)
                    .any(|inside| super::search::has_name(inside, text))
            })
        })
}

/// `crates/matcher/src/lib.rs:131:9` in a trace: a path with the line it points at.
fn located_paths(line: &str) -> Vec<(&str, u32)> {
    line.split(|c: char| c.is_whitespace() || matches!(c, '\'' | '"' | ',' | '(' | ')' | '`'))
        .filter_map(|token| {
            let mut parts = token.split(':');
            let path = parts.next()?;
            let at: u32 = parts.next()?.parse().ok()?;
            (at > 0 && path.contains('/') && is_path(path.trim_start_matches('/')))
                .then_some((path, at))
        })
        .collect()
}

/// Add a path that a trace names at a line (kept once, the first line wins).
fn add_at(out: &mut Vec<Name>, path: &str, line: u32, at: u32) {
    if out.len() >= MAX_NAMES || out.iter().any(|n| n.text == path) {
        return;
    }
    out.push(Name {
        text: path.to_string(),
        kind: NameKind::Path,
        line,
        marked: true,
        at: Some(at),
        within: None,
    });
}

/// The contents of the code spans of a line.
pub(super) fn code_spans(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(open) = rest.find('`') {
        let run = rest[open..].chars().take_while(|&c| c == '`').count();
        let after = &rest[open + run..];
        let fence = &rest[open..open + run];
        match after.find(fence) {
            Some(close) => {
                out.push(after[..close].trim());
                rest = &after[close + run..];
            }
            None => break,
        }
    }
    out
}

/// A line without the quoted command lines of other programs (`PAGER='less -R'`): their
/// flags are not this project's.
fn without_foreign_quotes(line: &str) -> String {
    let mut out = line.to_string();
    for q in ['\'', '"'] {
        let inside: Vec<String> = out
            .split(q)
            .skip(1)
            .step_by(2)
            .filter(|s| super::outside::foreign_command(s))
            .map(str::to_string)
            .collect();
        for s in inside {
            out = out.replacen(&s, " ", 1);
        }
    }
    out
}

fn without_code_spans(line: &str) -> String {
    let mut out = line.to_string();
    for span in code_spans(line) {
        if !span.is_empty() {
            out = out.replacen(span, " ", 1);
        }
    }
    out
}

/// What a code span names: a flag, a path, an identifier, the flags of a command line, or a
/// message.
fn classify_span(span: &str) -> Vec<(String, NameKind)> {
    let span = span.trim();
    if is_short_flag(span) {
        return vec![(span.to_string(), NameKind::Flag)];
    }
    // `-NF` is `-N` and `-F` written together: each is looked up.
    if let Some(parts) = short_cluster(span) {
        return parts.into_iter().map(|f| (f, NameKind::Flag)).collect();
    }
    // `-j1` is `-j` with its value written against it.
    if let Some(flag) = short_with_value(span) {
        return vec![(flag.to_string(), NameKind::Flag)];
    }
    if span.starts_with("--") && !span.contains(' ') {
        let flag = span.split('=').next().unwrap_or(span);
        return vec![(flag.to_string(), NameKind::Flag)];
    }
    if !span.contains(' ') {
        if is_path(span) {
            return vec![(span.to_string(), NameKind::Path)];
        }
        let ident = span.trim_end_matches("()").trim_end_matches('!');
        // `Thor#banner`, Ruby's (and the docs') way to write a method of a class: the method
        // is what the code spells.
        if let Some((class, method)) = ident.split_once('#')
            && is_word(class)
            && is_word(method)
            && class.starts_with(char::is_uppercase)
        {
            return vec![(method.to_string(), NameKind::Ident)];
        }
        // One colon is no path of the code: `src/lib.rs:12` is a file at a line, and
        // `file:LINE:text` a format, not a name.
        if ident.replace("::", "").contains(':') {
            let file = ident.split(':').next().unwrap_or(ident);
            return if is_path(file) {
                vec![(file.to_string(), NameKind::Path)]
            } else {
                Vec::new()
            };
        }
        if ident
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | ':' | '-' | '.'))
            && ident.chars().any(char::is_alphabetic)
        {
            // `foo::bar::Baz`: the last segment is what the code spells.
            let last = ident.rsplit("::").next().unwrap_or(ident);
            let mut out = vec![(ident.to_string(), NameKind::Ident)];
            if last != ident && last.len() >= 3 {
                out.push((last.to_string(), NameKind::Ident));
            }
            return out;
        }
        return Vec::new();
    }
    // A message quoted in prose (`error: Unsupported --x value '1'`): its fixed words, searched
    // as a message, and the flags it names.
    if let Some(message) = error_message(span) {
        let mut out = vec![(message, NameKind::Message)];
        out.extend(
            flags(span)
                .into_iter()
                .map(|f| (f.to_string(), NameKind::Flag)),
        );
        return out;
    }
    // A command line: its flags, unless another program's (`less -R`).
    if super::outside::foreign_command(span) {
        return Vec::new();
    }
    let found: Vec<(String, NameKind)> = flags(span)
        .into_iter()
        .map(|f| (f.to_string(), NameKind::Flag))
        .collect();
    if !found.is_empty() {
        return found;
    }
    // A phrase (not a command line with `-x` options or quoted arguments) may be a message.
    // A shell's operators (`pyenv rehash && rehash`, `ls | wc`) make it a command line too.
    let command = span
        .split_whitespace()
        .any(|w| w.starts_with('-') || w.starts_with('\'') || w.starts_with('"'))
        || ["&&", "||", " | ", "$(", " > ", " >> ", "; "]
            .iter()
            .any(|op| span.contains(op));
    if span.split_whitespace().count() >= 3 && !command {
        return vec![(span.to_string(), NameKind::Message)];
    }
    Vec::new()
}

/// `-NF`: a dash and two to four letters, the short flags `-N` and `-F` written together.
pub(super) fn short_cluster(word: &str) -> Option<Vec<String>> {
    let letters = word.strip_prefix('-')?;
    ((2..=4).contains(&letters.len()) && letters.chars().all(|c| c.is_ascii_alphabetic()))
        .then(|| letters.chars().map(|c| format!("-{c}")).collect())
}

/// `-j1`, `-j16`: the short flag `-j` with a number written against it.
fn short_with_value(word: &str) -> Option<&str> {
    let b = word.as_bytes();
    (b.len() >= 3
        && b[0] == b'-'
        && b[1].is_ascii_alphabetic()
        && b[2..].iter().all(u8::is_ascii_digit))
    .then(|| &word[..2])
}

/// `-X`: a dash and one letter or digit.
fn is_short_flag(word: &str) -> bool {
    let b = word.as_bytes();
    b.len() == 2 && b[0] == b'-' && b[1].is_ascii_alphanumeric()
}

/// `--long-flags` and `-x` short flags in a text.
fn flags(text: &str) -> Vec<&str> {
    text.split(|c: char| {
        c.is_whitespace() || matches!(c, ',' | '(' | ')' | '"' | '\'' | '`' | '[' | ']')
    })
    .filter_map(|w| {
        let w = w
            .split('=')
            .next()
            .unwrap_or(w)
            .trim_end_matches(['.', ':', ';', '?', '!']);
        if is_short_flag(w) && w.as_bytes()[1].is_ascii_alphabetic() {
            return Some(w);
        }
        let body = w.strip_prefix("--")?;
        let ok = body.len() >= 2
            && body.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && body.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
        ok.then_some(w)
    })
    .collect()
}

/// `[name](https://crates.io/crates/name)`, `docs.rs/name`, `npmjs.com/package/name`, …
fn registry_links(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    for marker in [
        "crates.io/crates/",
        "docs.rs/",
        "lib.rs/crates/",
        "npmjs.com/package/",
        "pypi.org/project/",
    ] {
        let mut rest = line;
        while let Some(at) = rest.find(marker) {
            let after = &rest[at + marker.len()..];
            let name: String = after
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'))
                .collect();
            if name.len() >= 2 && name != "crate" {
                out.push(name);
            }
            rest = after;
        }
    }
    out
}

pub(super) fn is_path(word: &str) -> bool {
    if word.len() < 4 || word.contains("://") || word.starts_with("--") {
        return false;
    }
    let Some((stem, ext)) = word.rsplit_once('.') else {
        return false;
    };
    let file_like = FILE_EXTS.contains(&ext) && !stem.is_empty();
    let plain = word
        .chars()
        .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'));
    plain && file_like && stem.chars().any(char::is_alphabetic)
}

/// A word only code spells: `snake_case` with an underscore, `CamelCase` with two humps,
/// `path::to`, or a call `name()`.
pub(super) fn is_code_ident(word: &str) -> bool {
    let w = word.trim_end_matches("()");
    if w.len() < 4
        || !w
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
    {
        return false;
    }
    if !w
        .chars()
        .all(|c| c.is_alphanumeric() || c == '_' || c == ':')
    {
        return false;
    }
    let call = word.ends_with("()");
    let snake = w.contains('_') && w.chars().any(|c| c.is_ascii_lowercase());
    let path = w.contains("::");
    let humps = w
        .chars()
        .zip(w.chars().skip(1))
        .filter(|(a, b)| a.is_lowercase() && b.is_uppercase())
        .count();
    let camel = humps >= 1 && w.chars().next().is_some_and(char::is_uppercase);
    call || snake || path || camel
}

/// The searchable part of an error line in a code block: the text after `error:`,
/// `panicked at`, `Error:` or `warning:`, without quotes and up to a location or a value.
fn error_message(line: &str) -> Option<String> {
    let lower = line.to_lowercase();
    let at = ["error:", "error[", "panicked at", "warning:", "fatal:"]
        .iter()
        .filter_map(|m| lower.find(m).map(|i| (i, *m)))
        .min()?;
    let mut rest = &line[at.0 + at.1.len()..];
    if at.1 == "error[" {
        rest = rest.split_once("]:").map_or(rest, |(_, r)| r);
    }
    let rest = rest.trim().trim_start_matches([':', ' ']);
    // A message that opens with a value in quotes (`"thor foo" was called with no arguments`)
    // is its words after the value: the value is what this run filled in.
    let rest = opening_value_skipped(rest)
        .unwrap_or(rest)
        .trim_matches(|c| matches!(c, '\'' | '"' | ':' | ' '));
    // Cut at what differs between runs: a value in quotes or backticks, a location, a number.
    let cut = rest
        .find(|c: char| matches!(c, '`' | '"' | '\'' | '{' | '(' | '[') || c.is_ascii_digit())
        .unwrap_or(rest.len());
    // `assert!(a <= b)` panics with "assertion failed: a <= b": the code spells the expression.
    if let Some(expr) = rest.strip_prefix("assertion failed:") {
        let end = expr.find(['\'', '"']).unwrap_or(expr.len());
        let expr = expr[..end].trim();
        return (expr.len() >= 5).then(|| expr.to_string());
    }
    let message = rest[..cut].trim().trim_end_matches([':', ',', '.']).trim();
    (message.split_whitespace().count() >= 2 && message.len() >= 8).then(|| message.to_string())
}

/// What follows a value in quotes that opens `text`, when words follow it: `was called with no
/// arguments` of `"thor foo" was called with no arguments`.
fn opening_value_skipped(text: &str) -> Option<&str> {
    let quote = text
        .chars()
        .next()
        .filter(|c| matches!(c, '"' | '\'' | '`'))?;
    let close = text[1..].find(quote)? + 1;
    let after = text[close + 1..].trim_start();
    (after.split_whitespace().count() >= 2).then_some(after)
}

/// A word of code: letters, digits and `_`, with a letter.
fn is_word(s: &str) -> bool {
    !s.is_empty()
        && s.chars().all(|c| c.is_alphanumeric() || c == '_')
        && s.chars().any(char::is_alphabetic)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Vec<(String, NameKind)> {
        let mut in_code = false;
        let mut lines = Vec::new();
        for (i, l) in text.lines().enumerate() {
            if l.trim_start().starts_with("```") {
                in_code = !in_code;
                continue;
            }
            lines.push((i as u32 + 1, l, in_code));
        }
        extract(&lines, &["rg".to_string()])
            .into_iter()
            .map(|n| (n.text, n.kind))
            .collect()
    }

    #[test]
    fn another_programs_words_placeholders_and_versions_are_not_the_projects() {
        let text = "Like `rvm use 2.1.6 --default`, or `rg -n x | less -R` and `rg --json x`.\n\
                    A tool similar to `pg_ctl` for `4.2.x`, `VERSION` and `parse_args`:\n\
                    ```\npg_ctl <VERSION> <CLUSTER>\nrg -l x | xargs grep -c y\n```\n";
        let lines: Vec<(u32, &str, bool)> = text
            .lines()
            .enumerate()
            .map(|(i, l)| (i as u32 + 1, l, (3..=4).contains(&i)))
            .filter(|(_, l, _)| !l.starts_with("```"))
            .collect();
        let got = extract(&lines, &["rg".to_string()]);
        let marked = |t: &str| got.iter().find(|n| n.text == t).map(|n| n.marked);
        for other in ["--default", "-R", "pg_ctl", "4.2.x", "VERSION", "-c"] {
            assert_eq!(marked(other), Some(false), "{other}");
        }
        for own in ["-n", "--json", "parse_args", "-l"] {
            assert_eq!(marked(own), Some(true), "{own}");
        }
        let typed = extract(
            &[(
                1,
                "Then `rg alias name 4.2` and `the pattern was not found` fail.",
                false,
            )],
            &["rg".to_string()],
        );
        let marked: Vec<(&str, bool)> = typed.iter().map(|n| (n.text.as_str(), n.marked)).collect();
        assert_eq!(
            marked,
            [
                ("rg alias name 4.2", false),
                ("the pattern was not found", true)
            ]
        );
    }

    #[test]
    fn flags_paths_idents_and_messages_are_found() {
        let got = names(
            "Add `--no-pager` like --color does in src/cli.rs.\nUse `ansi_term::Colour` or [yansi](https://crates.io/crates/yansi).\n```\nerror: could not parse config file `x`\n```\nparse_args() and HashMap",
        );
        for want in [
            ("--no-pager", NameKind::Flag),
            ("--color", NameKind::Flag),
            ("src/cli.rs", NameKind::Path),
            ("ansi_term::Colour", NameKind::Ident),
            ("Colour", NameKind::Ident),
            ("yansi", NameKind::Ident),
            ("could not parse config file", NameKind::Message),
            ("parse_args", NameKind::Ident),
            ("HashMap", NameKind::Ident),
        ] {
            assert!(
                got.contains(&(want.0.to_string(), want.1)),
                "{want:?} in {got:?}"
            );
        }
    }

    #[test]
    fn a_command_line_with_shell_operators_is_no_message() {
        assert!(names("I ran `pyenv rehash && rehash` twice.").is_empty());
        assert!(
            names("It says `could not find the file` then.")
                .contains(&("could not find the file".to_string(), NameKind::Message))
        );
    }

    #[test]
    fn what_the_items_own_code_declares_or_runs_is_not_a_name() {
        let got = names(
            "`--required` is not shown.\n```js\nprogram.option('required', 'x')\n```\nI ran `node ./main.js init` and `init` failed.",
        );
        assert!(got.is_empty(), "{got:?}");
        assert!(
            names("Add `--required` like `--force` does.")
                .contains(&("--required".to_string(), NameKind::Flag))
        );
        // The project's own program's flags stay the project's, quoted or not.
        assert!(
            names("`--vimgrep` is wrong.\n```sh\n$ rg --vimgrep '--vimgrep'\n```")
                .contains(&("--vimgrep".to_string(), NameKind::Flag))
        );
    }

    #[test]
    fn plain_words_are_not_names() {
        assert!(names("Please make it faster. It works on Linux and GitHub.").is_empty());
    }
}
