//! A runtime's error names the code that raised it: JavaScript's "args.push is not a function"
//! is a call `args.push(` that failed, Python's "object has no attribute 'name'" an access
//! `.name`, Ruby's "undefined method `name'" a call of `name`. No project prints such a
//! message, so it appears nowhere as written; what the maintainer looks at is the code that
//! makes that call, and the function it is in.
//!
//! Not for: messages the project prints itself (`reading::fixed_part` finds those).

use regex::Regex;

use super::search::{Hit, Search};

/// The code a runtime error names, as a search key (`args.push(`, `.name`), with the
/// language whose runtime says it so.
pub(super) fn key(message: &str) -> Option<(String, &'static str)> {
    let patterns: &[(&str, &str, &str)] = &[
        // (pattern, key shape with {} for the capture, language)
        (
            r"([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+) is not a function",
            "{}(",
            "JavaScript",
        ),
        (r"reading '([A-Za-z_$][\w$]*)'\)", ".{}", "JavaScript"),
        (
            r"Cannot read property '([A-Za-z_$][\w$]*)' of",
            ".{}",
            "JavaScript",
        ),
        (r"has no attribute '([A-Za-z_]\w*)'", ".{}", "Python"),
        (r"undefined method [`']([A-Za-z_]\w*[?!]?)'", "{}", "Ruby"),
    ];
    patterns.iter().find_map(|(p, shape, lang)| {
        let re = Regex::new(p).ok()?;
        let name = re.captures(message)?.get(1)?.as_str().to_string();
        Some((shape.replace("{}", &name), *lang))
    })
}

/// Where the code a runtime error names is: its lines in source code (not tests, docs,
/// examples or comments).
#[derive(Debug, Clone)]
pub(super) struct Raised {
    pub message: String,
    pub key: String,
    pub language: &'static str,
    pub at: Vec<Hit>,
}

/// Places beyond this many are not a place to point at.
const MAX_PLACES: usize = 4;

/// The places of each runtime error among `messages`, found by the search (`search`).
pub(super) fn find(messages: &[&str], search: &Search) -> Vec<Raised> {
    let mut out = Vec::new();
    for m in messages {
        let Some((key, language)) = key(m) else {
            continue;
        };
        let Some(found) = search.get(&key) else {
            continue;
        };
        let at: Vec<Hit> = found
            .code
            .iter()
            .filter(|h| {
                !super::place::secondary(&h.path) && !super::calls::in_code(&[h]).is_empty()
            })
            .cloned()
            .collect();
        if at.is_empty() || at.len() > MAX_PLACES {
            continue;
        }
        out.push(Raised {
            message: m.to_string(),
            key,
            language,
            at,
        });
    }
    out
}

/// The function a line of code is in: the nearest definition above it that is indented less
/// (`fn`, `def`, `func`, `function`, `fun`, `sub`, `name = function`, a Java, C# or PHP
/// method with its modifiers, a shell function `name() {`), within 200 lines. None at a
/// script's top level, or when nothing above looks like a definition.
pub(super) fn enclosing(lines: &[String], line: u32) -> Option<String> {
    let def = Regex::new(
        r"(?x)
        \b(?:fn|def|func|function|fun|sub)\s+(?:\([^)]*\)\s*)?(?:self\.)?([A-Za-z_][A-Za-z0-9_]*[?!]?)
        | ([A-Za-z_$][\w$]*)\s*[=:]\s*(?:async\s+)?function\b
        | ^\s*(?:(?:public|private|protected|internal|static|final|abstract|override|virtual|async|synchronized)\s+)+[\w<>\[\],.?]+\s+([A-Za-z_]\w*)\s*\(
        | ^\s*([A-Za-z_][\w-]*)\s*\(\)\s*\{",
    )
    .ok()?;
    let indent = |s: &str| s.len() - s.trim_start().len();
    let at = lines.get((line as usize).checked_sub(1)?)?;
    let mut deepest = indent(at);
    for text in lines[..line as usize - 1].iter().rev().take(200) {
        if text.trim().is_empty() {
            continue;
        }
        let i = indent(text);
        if i >= deepest {
            continue;
        }
        deepest = i;
        if let Some(c) = def.captures(text) {
            return (1..=4)
                .find_map(|g| c.get(g))
                .map(|m| m.as_str().to_string());
        }
        if i == 0 {
            return None;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{enclosing, key};

    #[test]
    fn the_function_a_line_is_in_is_the_definition_above_it_indented_less() {
        let lines = |t: &str| t.lines().map(String::from).collect::<Vec<_>>();
        let js = lines(
            "function other() {\n  return 1;\n}\n\nCommand.prototype.missing = function(option) {\n  const message = `error: required option`;\n  console.error(message);\n};",
        );
        assert_eq!(enclosing(&js, 6).as_deref(), Some("missing"));
        let rb = lines(
            "module Thor\n  def handle_argument_error(command)\n    if x\n      msg = \"was called with \"\n    end\n  end\nend",
        );
        assert_eq!(enclosing(&rb, 4).as_deref(), Some("handle_argument_error"));
        let sh = lines("other() {\n  :\n}\necho \"pyenv: cannot rehash: $x exists\"");
        assert_eq!(enclosing(&sh, 4), None);
        let java = lines(
            "class R {\n    public String readLine(String p) throws EndOfFileException {\n        throw new EndOfFileException();\n    }\n}",
        );
        assert_eq!(enclosing(&java, 3).as_deref(), Some("readLine"));
    }

    #[test]
    fn a_runtimes_error_names_the_code_that_raised_it() {
        let k = |m: &str| key(m).map(|(k, _)| k);
        assert_eq!(
            k("TypeError: args.push is not a function").as_deref(),
            Some("args.push(")
        );
        assert_eq!(
            k("Cannot read properties of undefined (reading 'length')").as_deref(),
            Some(".length")
        );
        assert_eq!(
            k("AttributeError: 'NoneType' object has no attribute 'group'").as_deref(),
            Some(".group")
        );
        assert_eq!(
            k("undefined method `banner' for nil:NilClass").as_deref(),
            Some("banner")
        );
        assert_eq!(k("could not parse the file"), None);
    }
}
