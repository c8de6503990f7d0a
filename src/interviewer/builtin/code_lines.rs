//! The code of one line of a source file, outside its comments and its string literals, with
//! the state of both carried from the lines above: a docstring's or a multi-line string's lines
//! are text, not code.

/// How a language writes its strings and comments.
struct Lexis {
    hash: bool,
    slashes: bool,
    /// Quotes that open a string spanning lines (`"""`, `` ` ``).
    long: &'static [&'static str],
    /// Whether `"` strings span lines (Rust).
    plain_spans: bool,
    single_quotes: bool,
    rust: bool,
}

fn lexis(path: &str) -> Option<Lexis> {
    let ext = path.rsplit_once('.').map_or("", |(_, e)| e);
    let l = |hash, long, plain_spans, single_quotes, rust| Lexis {
        hash,
        slashes: !hash,
        long,
        plain_spans,
        single_quotes,
        rust,
    };
    Some(match ext {
        "py" | "pyi" => l(true, &["\"\"\"", "'''"], false, true, false),
        "rs" => l(false, &[], true, false, true),
        "kt" | "kts" | "swift" | "java" | "scala" | "groovy" => {
            l(false, &["\"\"\""], false, true, false)
        }
        "js" | "mjs" | "cjs" | "jsx" | "ts" | "tsx" | "mts" | "cts" | "go" => {
            l(false, &["`"], false, true, false)
        }
        "c" | "h" | "cc" | "cpp" | "hpp" | "cxx" | "cs" => l(false, &[], false, true, false),
        _ => return None,
    })
}

enum State {
    Code,
    Block,
    Str { close: String, spans: bool },
}

/// The code of line `line` (1-based) of `source`, the file at `path`: its comments and strings
/// blanked. A language it does not know is read one line at a time.
pub(super) fn code_at(source: &str, path: &str, line: u32) -> String {
    let Some(lx) = lexis(path) else {
        let text = source.lines().nth(line.saturating_sub(1) as usize);
        return super::calls::code_of(path, text.unwrap_or(""));
    };
    let mut state = State::Code;
    for (n, text) in source.lines().enumerate() {
        let out = scan(&lx, text, &mut state);
        if n + 1 == line as usize {
            return out;
        }
    }
    String::new()
}

fn scan(lx: &Lexis, text: &str, state: &mut State) -> String {
    let chars: Vec<char> = text.chars().collect();
    let at = |i: usize, s: &str| {
        s.chars()
            .enumerate()
            .all(|(k, c)| chars.get(i + k) == Some(&c))
    };
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        match state {
            State::Block => {
                if at(i, "*/") {
                    *state = State::Code;
                    out.push(' ');
                    i += 2;
                } else {
                    i += 1;
                }
            }
            State::Str { close, .. } => {
                if chars[i] == '\\' && close.len() == 1 {
                    i += 2;
                } else if at(i, close) {
                    i += close.chars().count();
                    *state = State::Code;
                    out.push(' ');
                } else {
                    i += 1;
                }
            }
            State::Code => {
                let c = chars[i];
                if lx.hash && c == '#' || lx.slashes && at(i, "//") {
                    break;
                }
                if lx.slashes && at(i, "/*") {
                    *state = State::Block;
                    i += 2;
                    continue;
                }
                if let Some(q) = lx.long.iter().find(|q| at(i, q)) {
                    *state = State::Str {
                        close: (*q).into(),
                        spans: true,
                    };
                    i += q.chars().count();
                    continue;
                }
                if lx.rust && c == 'r' && (at(i + 1, "\"") || at(i + 1, "#")) {
                    let hashes = chars[i + 1..].iter().take_while(|&&h| h == '#').count();
                    if chars.get(i + 1 + hashes) == Some(&'"') {
                        *state = State::Str {
                            close: format!("\"{}", "#".repeat(hashes)),
                            spans: true,
                        };
                        i += 2 + hashes;
                        continue;
                    }
                }
                if lx.rust && c == '\'' {
                    // A character (`'"'`, `'\''`) or a lifetime (`'a`).
                    if chars.get(i + 1) == Some(&'\\') {
                        i += chars[i + 2..]
                            .iter()
                            .position(|&q| q == '\'')
                            .map_or(1, |p| p + 3);
                        continue;
                    }
                    if chars.get(i + 2) == Some(&'\'') {
                        i += 3;
                        continue;
                    }
                }
                if c == '"' || c == '\'' && lx.single_quotes {
                    *state = State::Str {
                        close: c.into(),
                        spans: lx.plain_spans && c == '"',
                    };
                    i += 1;
                    continue;
                }
                out.push(c);
                i += 1;
            }
        }
    }
    if let State::Str { spans: false, .. } = state {
        *state = State::Code;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::code_at;

    fn names(source: &str, path: &str, line: u32, name: &str) -> bool {
        super::super::search::has_name(&code_at(source, path, line), name)
    }

    #[test]
    fn a_python_docstring_is_not_code() {
        let s = "def run(x):\n    \"\"\"Call\n    parse_args(x) first.\n    \"\"\"\n    parse_args(x)\n";
        assert!(!names(s, "a.py", 3, "parse_args"));
        assert!(names(s, "a.py", 5, "parse_args"));
        let s = "x = '''\nparse_args\n'''\n";
        assert!(!names(s, "a.py", 2, "parse_args"));
    }

    #[test]
    fn a_rust_string_spanning_lines_is_not_code() {
        let s = "Arg::new(\"x\")\n    .long_help(\"Use it with\n--vimgrep to see.\")\n    .vimgrep(true)\n";
        assert!(!names(s, "src/a.rs", 3, "vimgrep"));
        assert!(names(s, "src/a.rs", 4, "vimgrep"));
        let s = "let h = r#\"a \"quoted\"\nvimgrep\n\"#; vimgrep();\nlet c = '\"'; vimgrep();\n";
        assert!(!names(s, "src/a.rs", 2, "vimgrep"));
        assert!(names(s, "src/a.rs", 3, "vimgrep"));
        assert!(names(s, "src/a.rs", 4, "vimgrep"));
    }

    #[test]
    fn a_text_block_is_not_code() {
        for path in ["A.kt", "A.swift", "A.java"] {
            let s = "val usage = \"\"\"\n  --indent sets it\n\"\"\"\nfun indent() {}\n";
            assert!(!names(s, path, 2, "indent"), "{path}");
            assert!(names(s, path, 4, "indent"), "{path}");
        }
    }

    #[test]
    fn a_template_literal_is_not_code() {
        let s = "const help = `\n  strict mode\n`;\nfunction strict() {}\n/* strict\n strict */\n";
        assert!(!names(s, "a.ts", 2, "strict"));
        assert!(names(s, "a.ts", 4, "strict"));
        assert!(!names(s, "a.ts", 6, "strict"));
    }
}
