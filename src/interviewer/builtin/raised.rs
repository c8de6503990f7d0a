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

#[cfg(test)]
mod tests {
    use super::key;

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
