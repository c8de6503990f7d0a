//! The lines that call a name, out of the lines that mention it: a comment about the `:banner`
//! option, the string "banner" or the line that defines `banner` is no call site. Each line is
//! read in its file's language: its comments (`#`, `//`, `/* */`, `--`) and string literals
//! are taken out, then a call has a call's shape — `name(`, `.name`, `::name`, or in the
//! languages that call without parentheses (Ruby, shell, Perl, Haskell) `name` followed by its
//! arguments.
//!
//! Not for: finding the lines (`search` does; this only reads the ones it found).

use super::search::Hit;

/// How a language writes comments and calls, from a file's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Syntax {
    /// `//` and `/* */` (C, Rust, Go, Java, JavaScript, C#, Swift, Kotlin, PHP …).
    Slashes,
    /// `#` comments, calls without parentheses (Ruby, shell, Perl, …).
    Hash { bare_calls: bool },
    /// `--` and `{- -}` comments, calls without parentheses (Haskell, Lua, SQL).
    Dashes,
}

fn syntax(path: &str) -> Syntax {
    let file = path.rsplit('/').next().unwrap_or(path);
    let ext = file.rsplit_once('.').map_or("", |(_, e)| e);
    match ext {
        "rb" | "rake" | "gemspec" | "sh" | "bash" | "zsh" | "fish" | "pl" | "pm" => {
            Syntax::Hash { bare_calls: true }
        }
        // A script without an extension (`libexec/pyenv-rehash`) is a shell script.
        "" => Syntax::Hash { bare_calls: true },
        "py" | "pyi" | "r" | "R" | "yml" | "yaml" | "toml" | "cmake" | "nim" | "jl" => {
            Syntax::Hash { bare_calls: false }
        }
        "hs" | "lhs" | "lua" | "sql" | "elm" => Syntax::Dashes,
        _ => Syntax::Slashes,
    }
}

/// `line` (of the file at `path`) without its comments and the insides of its string literals
/// (the quotes stay, empty). A line inside a block comment (`* …`) or a docstring is nothing.
pub(super) fn code_of(path: &str, line: &str) -> String {
    let syntax = syntax(path);
    let t = line.trim();
    let block = t.starts_with("* ") || t == "*" || t.starts_with("*/") || t.starts_with("\"\"\"");
    if block || t.starts_with("'''") {
        return String::new();
    }
    let mut out = String::new();
    let chars: Vec<char> = t.chars().collect();
    let mut i = 0;
    // Rust's `'a` is a lifetime, not a quote: single quotes are strings elsewhere.
    let single_quotes = !path.ends_with(".rs");
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        let comment = match syntax {
            Syntax::Slashes => c == '/' && next == Some('/'),
            Syntax::Hash { .. } => {
                c == '#' && next != Some('{') && (i == 0 || chars[i - 1].is_whitespace())
            }
            Syntax::Dashes => c == '-' && next == Some('-'),
        };
        if comment {
            break;
        }
        let dashes = syntax == Syntax::Dashes;
        if c == '/' && next == Some('*') || dashes && c == '{' && next == Some('-') {
            let close = if c == '/' { "*/" } else { "-}" };
            let rest: String = chars[i + 2..].iter().collect();
            match rest.find(close) {
                Some(at) => {
                    i += 2 + rest[..at].chars().count() + 2;
                    out.push(' ');
                    continue;
                }
                None => break,
            }
        }
        if c == '"' || c == '`' || (c == '\'' && single_quotes) {
            out.push(c);
            i += 1;
            while i < chars.len() && chars[i] != c {
                // Code interpolated into a string is code: `"#{banner(cmd)}"`, `${x}`, `$(f)`.
                let opens = matches!(chars[i], '#' | '$')
                    && matches!(chars.get(i + 1), Some('{' | '('))
                    && c != '\'';
                if opens {
                    let close = if chars[i + 1] == '{' { '}' } else { ')' };
                    out.push(' ');
                    i += 2;
                    while i < chars.len() && chars[i] != close {
                        out.push(chars[i]);
                        i += 1;
                    }
                    out.push(' ');
                    i += 1;
                    continue;
                }
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            out.push(c);
            i += 1;
            continue;
        }
        out.push(c);
        i += 1;
    }
    out
}

/// Keywords that define the name that follows them.
const DEFINERS: &[&str] = &[
    "def", "fn", "func", "function", "fun", "sub", "proc", "method", "macro", "alias",
];

/// Whether the code of a line (`code_of`) calls `name`.
fn calls_in(syntax: Syntax, code: &str, name: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut from = 0;
    while let Some(at) = code[from..].find(name).map(|a| a + from) {
        from = at + name.len();
        let before = &code[..at];
        let after = &code[at + name.len()..];
        if before.chars().next_back().is_some_and(ident)
            || after
                .chars()
                .next()
                .is_some_and(|c| ident(c) || c == '?' || c == '!')
                && !after.starts_with("!(")
        {
            continue;
        }
        let head = before.trim_end();
        // Its definition (`def banner`, `def self.banner`, `fn banner`, `banner() {`).
        let word_before = head
            .trim_end_matches("self.")
            .trim_end()
            .rsplit(|c: char| !ident(c))
            .next()
            .unwrap_or("");
        if DEFINERS.contains(&word_before) || after.trim_start().starts_with("() {") {
            return false;
        }
        // A symbol, a keyword argument, a variable: `:banner`, `banner:`, `@banner`, `$banner`.
        let mention = head.ends_with(':') && !head.ends_with("::")
            || after.starts_with(':') && !after.starts_with("::")
            || head.ends_with(['@', '$', '%']);
        if mention {
            continue;
        }
        let rest = after.trim_start();
        if rest.starts_with('(') || after.starts_with("!(") {
            // A method declared with its type before it (`public String banner(…) {`).
            let declared = matches!(syntax, Syntax::Slashes)
                && !head.is_empty()
                && head
                    .split_whitespace()
                    .all(|w| w.chars().all(|c| ident(c) || "<>[],?*&".contains(c)))
                && !["return", "new", "await", "throw", "yield", "else", "case"]
                    .iter()
                    .any(|k| head.split_whitespace().any(|w| w == *k));
            if declared {
                return false;
            }
            return true;
        }
        if head.ends_with('.') || head.ends_with("::") || head.ends_with("->") {
            return true;
        }
        let bare_calls = matches!(syntax, Syntax::Hash { bare_calls: true } | Syntax::Dashes);
        // `banner cmd, subcommand`, `banner "x"`, a bare `banner` ending a statement.
        if bare_calls
            && (after.starts_with(' ')
                && rest
                    .chars()
                    .next()
                    .is_some_and(|c| ident(c) || "\"'`:@$-[".contains(c))
                && !rest.starts_with("= ")
                || rest.is_empty()
                || rest.starts_with([')', ',', ';', '}', '|', '&']))
        {
            return true;
        }
    }
    false
}

/// The lines of `hits` that call `name` (the last segment of `a::b` or `a.b`): comments,
/// strings, definitions and other names' spellings left out.
pub(super) fn calls<'h>(name: &str, hits: &[&'h Hit]) -> Vec<&'h Hit> {
    let bare = name
        .rsplit([':', '.', '#'])
        .next()
        .unwrap_or(name)
        .trim_end_matches("()");
    if bare.is_empty() {
        return Vec::new();
    }
    // A same-named attribute (`attr_reader :banner`, `val banner`) is read as `banner` in its
    // class: in its folder (its file, its subclasses beside it) only a call with arguments is
    // the method's.
    let folder = |path: &str| path.rsplit_once('/').map_or("", |(dir, _)| dir).to_string();
    let attribute: Vec<String> = hits
        .iter()
        .filter(|h| declares_attribute(&code_of(&h.path, &h.text), bare))
        .map(|h| folder(&h.path))
        .collect();
    hits.iter()
        .copied()
        .filter(|h| {
            let code = code_of(&h.path, &h.text);
            calls_in(syntax(&h.path), &code, bare)
                && (!attribute.contains(&folder(&h.path)) || with_arguments(&code, bare))
        })
        .collect()
}

/// Whether the code of a line declares `name` as an attribute or property: Ruby's
/// `attr_reader :name`, Kotlin's and Swift's `val name`/`var name`, `this.name =`, `self.name =`.
fn declares_attribute(code: &str, name: &str) -> bool {
    let t = code.trim_start();
    let word = |w: &str| w.trim_matches(|c: char| !(c.is_alphanumeric() || c == '_')) == name;
    if ["attr_reader", "attr_accessor", "attr_writer"]
        .iter()
        .any(|a| t.starts_with(a))
    {
        return t
            .split([' ', ','])
            .any(|w| w.strip_prefix(':').is_some_and(word));
    }
    let words: Vec<&str> = t.split_whitespace().collect();
    words
        .windows(2)
        .any(|p| matches!(p[0], "val" | "var" | "let") && word(p[1].trim_end_matches(':')))
        || [format!("this.{name} ="), format!("self.{name} =")]
            .iter()
            .any(|a| t.starts_with(a.as_str()))
}

/// Whether some use of `name` in the code of a line passes arguments: `name(x)`, `name x`.
fn with_arguments(code: &str, name: &str) -> bool {
    code.match_indices(name).any(|(at, _)| {
        let after = &code[at + name.len()..];
        let rest = after.trim_start();
        // Interpolated into a string (`"[#{banner}]"`): the quote after it closes the string.
        let in_string = code[..at].matches('"').count() % 2 == 1;
        rest.starts_with('(') && !rest[1..].trim_start().starts_with(')')
            || !in_string
                && after.starts_with(' ')
                && rest
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_alphanumeric() || "\"'`:@$[".contains(c))
                && !rest.starts_with(": ")
                && !rest.starts_with("if ")
                && !rest.starts_with("unless ")
                && !rest.starts_with("do")
                && !rest.starts_with("and ")
                && !rest.starts_with("or ")
    })
}

/// The lines of `hits` that use `name`: a function's or method's calls (`calls`), a type's
/// (`Session`, capitalised) code lines that name it outside comments, strings and its own
/// definition. Whether they are calls is the second value.
pub(super) fn uses<'h>(name: &str, hits: &[&'h Hit]) -> (Vec<&'h Hit>, bool) {
    let bare = name.rsplit([':', '.', '#']).next().unwrap_or(name);
    if !bare.starts_with(|c: char| c.is_uppercase()) {
        return (calls(name, hits), true);
    }
    let typed = hits
        .iter()
        .copied()
        .filter(|h| {
            let code = code_of(&h.path, &h.text);
            let defines = [
                "struct",
                "enum",
                "trait",
                "class",
                "interface",
                "type",
                "record",
                "object",
                "protocol",
            ]
            .iter()
            .any(|k| super::search::has_name(&code, &format!("{k} {bare}")));
            !defines && super::search::has_name(&code, bare)
        })
        .collect();
    (typed, false)
}

/// The lines of `hits` that are code, not comments (a package's uses, `use ansi_term::Colour`,
/// in whichever spelling the search found).
pub(super) fn in_code<'h>(hits: &[&'h Hit]) -> Vec<&'h Hit> {
    hits.iter()
        .copied()
        .filter(|h| !code_of(&h.path, &h.text).trim().is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(path: &str, text: &str) -> Hit {
        Hit {
            path: path.into(),
            line: 1,
            text: text.into(),
        }
    }

    fn calls_line(path: &str, text: &str, name: &str) -> bool {
        let h = hit(path, text);
        !calls(name, &[&h]).is_empty()
    }

    #[test]
    fn calls_have_a_calls_shape() {
        assert!(calls_line(
            "lib/thor.rb",
            "banner(command, nil, subcommand)",
            "banner"
        ));
        assert!(calls_line("lib/thor.rb", "say banner cmd, false", "banner"));
        assert!(calls_line("lib/thor.rb", "klass.banner(cmd)", "banner"));
        assert!(calls_line("src/a.rs", "let b = self.banner();", "banner"));
        assert!(calls_line("src/a.rs", "Thor::banner(x)", "banner"));
        assert!(calls_line(
            "libexec/pyenv",
            "  make_shims \"$dir\"",
            "make_shims"
        ));
        assert!(calls_line("App.java", "return banner(x);", "banner"));
        assert!(calls_line(
            "lib/thor.rb",
            "shell.say \"  #{banner(command)}\"",
            "banner"
        ));
        assert!(calls_line(
            "lib/x.sh",
            "echo \"$(make_shims a)\"",
            "make_shims"
        ));
    }

    #[test]
    fn mentions_are_not_calls() {
        // Comments, strings, symbols, keyword arguments and definitions.
        assert!(!calls_line(
            "lib/thor/base.rb",
            "# :banner - String to show on usage notes.",
            "banner"
        ));
        assert!(!calls_line(
            "lib/thor/base.rb",
            "method_option :banner => \"NAME\"",
            "banner"
        ));
        assert!(!calls_line(
            "lib/thor/base.rb",
            "option :x, banner: \"NAME\"",
            "banner"
        ));
        assert!(!calls_line(
            "lib/thor.rb",
            "def banner(command, namespace = nil)",
            "banner"
        ));
        assert!(!calls_line(
            "lib/thor.rb",
            "def self.banner(command)",
            "banner"
        ));
        assert!(!calls_line(
            "src/a.rs",
            "// banner(x) is called later",
            "banner"
        ));
        assert!(!calls_line(
            "src/a.rs",
            "pub fn banner(&self) -> String {",
            "banner"
        ));
        assert!(!calls_line("src/a.c", "/* banner(x) */ int y;", "banner"));
        assert!(!calls_line("src/a.js", "log(\"banner(x)\")", "banner"));
        assert!(!calls_line(
            "App.java",
            "public String banner(String x) {",
            "banner"
        ));
        assert!(!calls_line("src/a.py", "banner_text = 1", "banner"));
        assert!(!calls_line("lib/x.sh", "make_shims() {", "make_shims"));
        assert!(!calls_line("src/A.hs", "-- banner x", "banner"));
    }
}
