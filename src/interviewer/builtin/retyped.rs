//! A message the item quotes, found however the reporter retyped it: other capitals, quotes
//! changed or dropped, a trailing full stop, and a value (a path, a number, a name) where the
//! source formats a placeholder (`{}`, `{name}`, `%s`, `%d`, `${x}`, `#{x}`, `\(x)`). Only these:
//! the words themselves must be the source's, in the source's order.
//!
//! Not for: the exact search of names (see `search`), a message's fixed part (`reading`).

/// The key of a message's retyped group in the search: the message after this prefix.
pub(super) const KEY: &str = "retyped message: ";

/// At least this many of the message's words must stand literally in the source's line, and
/// together at least [`MIN_CHARS`] characters long.
const MIN_WORDS: usize = 3;
const MIN_CHARS: usize = 12;

/// One word of a message or of a source line.
#[derive(Debug, PartialEq, Eq)]
enum Tok {
    /// A word, in lower case, its surrounding quotes and punctuation left out.
    Word(String),
    /// A placeholder the source formats a value into: it stands for any one word.
    Hole,
}

/// The search group's key for `message`.
pub(super) fn key(message: &str) -> String {
    format!("{KEY}{message}")
}

/// What the search's prefilter looks for, in lower case: every two neighbouring words of the
/// message, one space between (a line that holds three of its words in order, a placeholder
/// at most between every other two, holds one of these pairs).
pub(super) fn pairs(message: &str) -> Vec<String> {
    let toks = tokens(message);
    toks.windows(2)
        .filter_map(|w| match w {
            [Tok::Word(a), Tok::Word(b)] if !a.contains('\'') && !b.contains('\'') => {
                Some(format!("{a} {b}"))
            }
            _ => None,
        })
        .collect()
}

/// Whether a source `line` holds `message` as retyped: a run of the line's words that the
/// message's words follow in order, each the same word in any case or a placeholder standing
/// for one word, with at least [`MIN_WORDS`] words the same, and covering the whole message or
/// at least four of its words. A comment never holds it.
pub(super) fn holds(line: &str, message: &str) -> bool {
    if super::text::is_comment(line.trim_start()) {
        return false;
    }
    let msg = tokens(message);
    if msg.contains(&Tok::Hole) {
        return false;
    }
    let src = tokens(line);
    let need = msg.len().min(4);
    for i in 0..src.len() {
        for j in 0..msg.len() {
            let (mut run, mut same, mut chars) = (0, 0, 0);
            while let (Some(s), Some(Tok::Word(m))) = (src.get(i + run), msg.get(j + run)) {
                match s {
                    Tok::Hole => {}
                    Tok::Word(w) if w == m => {
                        same += 1;
                        chars += w.len();
                    }
                    Tok::Word(_) => break,
                }
                run += 1;
            }
            if run >= need && same >= MIN_WORDS && chars >= MIN_CHARS {
                return true;
            }
        }
    }
    false
}

/// The words of a text: split at blanks (a literal's `\n` and `\t` too), each without the quotes and punctuation around it,
/// curly apostrophes written straight, in lower case; a placeholder is a [`Tok::Hole`].
fn tokens(text: &str) -> Vec<Tok> {
    // A literal's escapes are what it prints: a line break, a tab, a quote.
    let text = text
        .replace("\\n", " ")
        .replace("\\t", " ")
        .replace("\\\"", "\"")
        .replace("\\'", "'");
    text.split_whitespace()
        .filter_map(|w| {
            if placeholder(w) {
                return Some(Tok::Hole);
            }
            let w = w.trim_matches(|c: char| {
                matches!(
                    c,
                    '\'' | '"'
                        | '`'
                        | '‘'
                        | '’'
                        | '“'
                        | '”'
                        | '«'
                        | '»'
                        | '('
                        | ')'
                        | '['
                        | ']'
                        | ','
                        | '.'
                        | ';'
                        | ':'
                        | '!'
                        | '?'
                        | '+'
                )
            });
            let w = w.replace('’', "'").to_lowercase();
            (!w.is_empty()).then_some(Tok::Word(w))
        })
        .collect()
}

/// Whether a word of a source line is (or holds) a placeholder a value is formatted into:
/// `{}`, `{0}`, `{name}`, `{:?}`, `%s`, `%d`, `%-5s`, `%(name)s`, `%v`, `${x}`, `#{x}`, `$x`,
/// `\(x)`.
fn placeholder(word: &str) -> bool {
    let brace = word.find('{').is_some_and(|at| word[at..].contains('}'));
    let dollar = word.split('$').skip(1).any(|rest| {
        rest.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
    });
    let swift = word.contains("\\(") && word.contains(')');
    brace || dollar || swift || printf(word)
}

/// Whether a word holds a printf conversion: `%`, flags and width, then a conversion letter.
fn printf(word: &str) -> bool {
    word.match_indices('%').any(|(at, _)| {
        let rest = &word[at + 1..];
        let rest = rest
            .strip_prefix('(')
            .and_then(|r| r.split_once(')'))
            .map_or(rest, |(_, r)| r);
        let spec = rest.trim_start_matches(|c: char| c.is_ascii_digit() || "-+ #.*l".contains(c));
        spec.chars()
            .next()
            .is_some_and(|c| "sdifuxXoqvrceEgGp@".contains(c))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_is_found_with_other_capitals_quotes_and_a_full_stop() {
        // Ruby: the source prints it in lower case, the reporter wrote a capital and a stop.
        assert!(holds(
            "too_many_arguments: \"too many arguments\",",
            "Too many arguments."
        ));
        // Quotes changed around a word, curly apostrophe for a straight one.
        assert!(holds(
            "die \"Can't open the 'config' file\";",
            "can’t open the \"config\" file"
        ));
        // Other words are not the message, nor is a comment holding it.
        assert!(!holds("\"too many options\",", "Too many arguments"));
        assert!(!holds("# too many arguments here", "Too many arguments"));
        assert!(!holds("\"arguments many too\"", "Too many arguments"));
    }

    #[test]
    fn a_value_the_source_formats_with_a_placeholder_is_any_word() {
        // Python: `str.format` fields, the message split over two literals.
        assert!(holds(
            "'{func}: argument {flags} does not fit '",
            "main: argument name does not fit function signature: args"
        ));
        // Rust, C and JavaScript placeholders.
        assert!(holds(
            "bail!(\"cannot read config file {}: not found\", path)",
            "Cannot read config file ~/.toolrc: not found"
        ));
        assert!(holds(
            "fprintf(stderr, \"unknown option '%s' given\\n\", arg);",
            "Unknown option '--frob' given"
        ));
        assert!(holds(
            "throw new Error(`Unknown command ${name} for this tool`);",
            "unknown command frob for this tool"
        ));
        // Placeholders alone never make a match: three words must be the message's own.
        assert!(!holds(
            "format!(\"{} {} {} {}\", a, b, c, d)",
            "one two three four"
        ));
        assert!(!holds(
            "\"cannot write config file {}\"",
            "Cannot read config file x"
        ));
    }

    #[test]
    fn placeholders_of_every_language_are_holes() {
        for p in [
            "{}", "{0}", "{name}", "{:?}", "%s", "%d", "%-5s", "%(name)s", "%v", "${x}", "#{x}",
            "$x", "\\(x)", "'%s'", "{path}:",
        ] {
            assert!(placeholder(p), "{p}");
        }
        for w in ["50%", "100%,", "$", "cost:", "{"] {
            assert!(!placeholder(w), "{w}");
        }
    }

    #[test]
    fn the_prefilter_holds_every_two_neighbouring_words() {
        assert_eq!(pairs("Too many arguments."), ["too many", "many arguments"]);
    }
}
