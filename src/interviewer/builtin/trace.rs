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

#[cfg(test)]
mod tests {
    use super::is_frame;

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
}
