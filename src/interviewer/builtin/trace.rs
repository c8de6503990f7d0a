//! A stack trace's frame line, in any language: what a program printed as it failed, a sign
//! of a bug report whatever the reporter's words (`classify.rs`).

use super::item::Item;

/// The first frame line of a stack trace the item quotes, trimmed: Ruby's `from x.rb:12:in
/// 'f'`, Python's `File "x.py", line 3, in f`, Java's `at a.B.c(B.java:1)`, C#'s `at A.B() in
/// x.cs:line 4`, JavaScript's `at f (x.js:1:2)`, Go's `goroutine 1 [running]:` and its
/// `/x/y.go:12 +0x1d`.
pub(super) fn frame<'i>(item: &'i Item) -> Option<&'i str> {
    item.all
        .iter()
        .map(|(_, l, _)| l.trim())
        .find(|l| is_frame(l))
}

fn is_frame(l: &str) -> bool {
    ruby(l) || python(l) || at_frame(l) || go(l)
}

/// Digits at the start of `s`, and what follows them; None without a digit.
fn digits(s: &str) -> Option<&str> {
    let rest = s.trim_start_matches(|c: char| c.is_ascii_digit());
    (rest.len() < s.len()).then_some(rest)
}

/// `…/option.rb:54:in `ensure_call'`, `from x.rb:12:in 'f'`.
fn ruby(l: &str) -> bool {
    l.match_indices(".rb:")
        .any(|(at, m)| digits(&l[at + m.len()..]).is_some_and(|rest| rest.starts_with(":in ")))
}

/// `File "x.py", line 12, in parse`.
fn python(l: &str) -> bool {
    l.strip_prefix("File \"").is_some_and(|rest| {
        rest.split_once("\", line ")
            .is_some_and(|(_, n)| digits(n).is_some())
    })
}

/// A frame that starts with "at ": Java's and Kotlin's `at a.B.c(B.java:1)` (or `(Native
/// Method)`, `(Unknown Source)`), C#'s `at A.B() in x.cs:line 4`, JavaScript's
/// `at f (x.js:1:2)` and `at x.js:1:2`.
fn at_frame(l: &str) -> bool {
    let Some(rest) = l.strip_prefix("at ") else {
        return false;
    };
    // C#: `in path:line 4`.
    if let Some((_, n)) = rest.rsplit_once(":line ") {
        return rest.contains(" in ") && digits(n).is_some_and(str::is_empty);
    }
    // The location: inside the last parentheses, else the rest.
    let loc = match (rest.rfind('('), rest.strip_suffix(')')) {
        (Some(p), Some(inner)) if p < inner.len() => &inner[p + 1..],
        _ => rest,
    };
    if loc == "Native Method" || loc == "Unknown Source" {
        return true;
    }
    // `Parser.java:42`, `/x/parse.js:12:7`: a file's extension, a line (and a column).
    let mut file = loc;
    let mut numbers = 0;
    while let Some((before, n)) = file.rsplit_once(':') {
        if n.is_empty() || !n.chars().all(|c| c.is_ascii_digit()) || numbers == 2 {
            break;
        }
        file = before;
        numbers += 1;
    }
    numbers > 0
        && file.rsplit_once('.').is_some_and(|(name, ext)| {
            !name.is_empty()
                && (1..=5).contains(&ext.len())
                && ext.chars().all(|c| c.is_ascii_alphanumeric())
        })
}

/// Go: `goroutine 1 [running]:`, or a frame's file line `/x/parse.go:12 +0x1d`.
fn go(l: &str) -> bool {
    if let Some(rest) = l.strip_prefix("goroutine ") {
        return digits(rest).is_some_and(|r| r.starts_with(" ["));
    }
    l.split_once(".go:")
        .is_some_and(|(_, r)| digits(r).is_some_and(|after| after.starts_with(" +0x")))
}

/// The message of an exception a code line of the item shows, in any language's form, where
/// no `error:` opens it: Java's and C#'s `a.b.MissingOptionException: Missing option x`
/// (after `Exception in thread "main"` or `Unhandled exception.`), PHP's `Uncaught
/// A\B\Missing: Operand x is required in /x.php:3`, Ruby's first frame `x.rb:54:in
/// 'f': missing argument for -p (A::MissingArgument)`, a test runner's `a.b.BadException : x`.
/// Its words up to what a run fills in (a value in quotes or brackets, a number, a location, a
/// second sentence); None under two words. A line of prose (`code` off, a quote's `>` left out)
/// gives one only where the exception opens it.
pub(super) fn thrown(line: &str, code: bool) -> Option<String> {
    // A quoted line (`> a.b.BadException: …`) is the text it quotes.
    let l = line.trim().trim_start_matches('>').trim();
    let message = if ruby(l) {
        let (_, after) = l.split_once(":in ")?;
        let close = after.get(1..)?.find(['\'', '`'])? + 2;
        let rest = after.get(close..)?.strip_prefix(':')?.trim();
        match rest.rfind(" (") {
            Some(i) if rest.ends_with(')') && class_name(&rest[i + 2..rest.len() - 1]) => {
                &rest[..i]
            }
            _ => return None,
        }
    } else {
        let (at, word) = l
            .match_indices(|c: char| c.is_whitespace())
            .map(|(i, w)| i + w.len())
            .chain([0])
            .filter_map(|i| {
                let mut words = l[i..].split_whitespace();
                let first = words.next()?;
                // .NET's test runners print `System.InvalidOperationException : message`.
                let (class, word) = match first.strip_suffix(':') {
                    Some(class) => (class, first),
                    None if words.next() == Some(":") => {
                        let end = i + first.len();
                        (first, &l[i..end + l[end..].find(':')? + 1])
                    }
                    None => return None,
                };
                // `TypeError: x` is `error:`'s, read where the item's names are.
                let exception = class
                    .rsplit(['.', '\\'])
                    .next()
                    .is_some_and(|s| s.ends_with("Exception"));
                (class_name(class) && (exception || class.contains(['.', '\\'])))
                    .then_some((i, word))
            })
            .min()
            .filter(|(at, _)| code || *at == 0)?;
        let rest = l[at + word.len()..].trim();
        // PHP's ` in /x/GetOpt.php:197`: where it was thrown.
        match rest.find(" in ") {
            Some(i)
                if rest[i + 4..].starts_with(['/', '\\'])
                    || rest[i + 4..].get(1..3) == Some(":\\") =>
            {
                &rest[..i]
            }
            _ => rest,
        }
    };
    // Its first sentence: what follows names what the run filled in.
    let cut = message
        .find(|c: char| matches!(c, '`' | '"' | '\'' | '{' | '(' | '[') || c.is_ascii_digit())
        .into_iter()
        .chain(message.find(". "))
        .min()
        .unwrap_or(message.len());
    let message = message[..cut]
        .trim()
        .trim_end_matches([':', ',', '.'])
        .trim();
    (message.split_whitespace().count() >= 2 && message.len() >= 8).then(|| message.to_string())
}

/// A class's name, qualified or not (`java.lang.IllegalStateException`, `A\B\Missing`,
/// `Slop::MissingArgument`): its last segment opens with a capital, and every character is a
/// letter, a digit, `_`, `$` or a separator.
fn class_name(s: &str) -> bool {
    let last = s.rsplit(['.', '\\', ':']).next().unwrap_or("");
    last.starts_with(|c: char| c.is_ascii_uppercase())
        && last.chars().any(|c| c.is_ascii_lowercase())
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.' | '\\' | ':'))
}

#[cfg(test)]
mod tests {
    use super::{is_frame, thrown};

    #[test]
    fn frames_of_every_language_and_no_prose() {
        for l in [
            "from /g/slop-4.4.1/lib/slop/parser.rb:103:in `process'",
            "/g/lib/slop/option.rb:54:in `ensure_call': missing argument",
            "File \"/usr/lib/tiny/parse.py\", line 12, in parse",
            "at org.tiny.Parser.parse(Parser.java:42)",
            "at java.base/java.lang.Thread.run(Thread.java:833)",
            "at sun.reflect.NativeMethodAccessorImpl.invoke0(Native Method)",
            "at Tiny.Parser.Parse() in C:\\src\\Parser.cs:line 12",
            "at parse (/home/u/tiny/lib/parse.js:12:7)",
            "at /home/u/tiny/index.js:3:1",
            "at Object.<anonymous> (/home/u/tiny/index.js:3:1)",
            "goroutine 1 [running]:",
            "/home/u/tiny/parse.go:12 +0x1d",
        ] {
            assert!(is_frame(l), "{l}");
        }
        for l in [
            "at the moment it fails (see above)",
            "at least one value: 3",
            "from what I see in config.rb it works",
            "File names are listed, line by line",
            "goroutine leaks are a concern",
            "at 10:30 it failed",
        ] {
            assert!(!is_frame(l), "{l}");
        }
    }

    #[test]
    fn an_exceptions_message_in_every_languages_form_and_not_where_error_opens_it() {
        let java = "Exception in thread \"main\" a.b.MissingOptionException: Missing option [x]";
        assert_eq!(thrown(java, true).as_deref(), Some("Missing option"));
        let php = "PHP Fatal error:  Uncaught A\\B\\Missing: Operand file is required in \
                   /home/me/x.php:197";
        assert_eq!(
            thrown(php, true).as_deref(),
            Some("Operand file is required")
        );
        let ruby = "/g/lib/x/option.rb:54:in `check': missing argument for -p (X::MissingArgument)";
        assert_eq!(
            thrown(ruby, true).as_deref(),
            Some("missing argument for -p")
        );
        let cs = "Unhandled exception. System.InvalidOperationException: No command was given.";
        assert_eq!(thrown(cs, true).as_deref(), Some("No command was given"));
        // `error:` opens these: read where the item's names are.
        assert_eq!(thrown("TypeError: args.push is not a function", true), None);
        assert_eq!(thrown("Note: see the docs", true), None);
        // Prose gives one only where the exception opens the line.
        assert_eq!(
            thrown("It says x.y.BadException: went wrong here", false),
            None
        );
        assert!(thrown("x.y.BadException: went wrong here", false).is_some());
        // Any whitespace, one byte or more, stands before the class.
        let nbsp = "Uncaught\u{a0}x.y.BadException: went wrong here";
        assert_eq!(thrown(nbsp, true).as_deref(), Some("went wrong here"));
        // A test runner's ` : ` after the class, in a quote of prose; the first sentence only.
        let spaced = "> System.InvalidOperationException : Ambiguous name. Both A.B and C.D \
                      produce it.";
        assert_eq!(thrown(spaced, false).as_deref(), Some("Ambiguous name"));
        assert_eq!(thrown("> It says x : went wrong", false), None);
    }
}
