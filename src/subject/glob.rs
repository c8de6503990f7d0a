//! Globs for tracker paths: `*`, `?`, `[...]` within a path segment and `**` for any number of
//! segments, matched by git's wildmatch (the guard's engine too). Paths and patterns are
//! `/`-separated and relative to the repository.
//!
//! Not for: gitignore semantics (no negation, no anchoring rules).

/// Whether `path` matches `pattern`, by git's wildmatch (`gix::glob`), `*` staying within a
/// segment. What the tracker globs have always meant besides: empty segments are ignored, an
/// unclosed `[` is itself, and `dir/**` also matches `dir`.
pub(super) fn matches(pattern: &str, path: &str) -> bool {
    use gix::bstr::ByteSlice;
    use gix::glob::wildmatch::Mode;
    let segments: Vec<String> = pattern
        .split('/')
        .filter(|s| !s.is_empty())
        .map(unclosed_classes_literal)
        .collect();
    let path: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let path = path.join("/");
    let matches = |segments: &[String]| {
        gix::glob::wildmatch(
            segments.join("/").as_bytes().as_bstr(),
            path.as_bytes().as_bstr(),
            Mode::NO_MATCH_SLASH_LITERAL,
        )
    };
    matches(&segments)
        || segments
            .split_last()
            .is_some_and(|(last, dir)| last == "**" && matches(dir))
}

/// `segment` with each `[` that opens no class (no `]` closes it in the segment) escaped.
fn unclosed_classes_literal(segment: &str) -> String {
    let bytes = segment.as_bytes();
    let mut out = String::with_capacity(segment.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'[' {
            // A `]` first in the class (after `!` or `^`) is a member, not its end.
            let mut first = i + 1;
            if matches!(bytes.get(first), Some(b'!' | b'^')) {
                first += 1;
            }
            match bytes
                .get(first + 1..)
                .and_then(|rest| rest.iter().position(|&b| b == b']'))
            {
                Some(end) => {
                    let close = first + 1 + end;
                    out.push_str(&segment[i..=close]);
                    i = close + 1;
                }
                None => {
                    out.push_str("\\[");
                    i += 1;
                }
            }
            continue;
        }
        let c = segment[i..].chars().next().unwrap_or_default();
        out.push(c);
        i += c.len_utf8().max(1);
    }
    out
}

/// Escape glob metacharacters so `text` matches only itself (used for the work-item id).
pub(super) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '*' | '?' | '[' | ']' => {
                out.push('[');
                out.push(c);
                out.push(']');
            }
            _ => out.push(c),
        }
    }
    out
}

/// The leading segments of `pattern` without metacharacters: where a walk can start.
pub(super) fn literal_prefix(pattern: &str) -> Vec<&str> {
    pattern
        .split('/')
        .filter(|s| !s.is_empty())
        .take_while(|s| !s.contains(['*', '?', '[']))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn star_stays_within_a_segment() {
        assert!(matches("docs/intents/42*.md", "docs/intents/42-export.md"));
        assert!(!matches("docs/intents/42*.md", "docs/intents/sub/42.md"));
        assert!(!matches("docs/*.md", "docs/a/b.md"));
    }

    #[test]
    fn double_star_spans_zero_or_more_segments() {
        assert!(matches("docs/**/42[-_ .]*.md", "docs/42-x.md"));
        assert!(matches("docs/**/42[-_ .]*.md", "docs/a/b/42_x.md"));
        assert!(!matches("docs/**/42[-_ .]*.md", "docs/a/421-x.md"));
        assert!(!matches("docs/**/42[-_ .]*.md", "other/42-x.md"));
    }

    #[test]
    fn classes_ranges_and_negation() {
        assert!(matches("a[0-9].md", "a7.md"));
        assert!(!matches("a[!0-9].md", "a7.md"));
        assert!(matches("a[^0-9].md", "ab.md"));
        assert!(matches("a[.md", "a[.md"));
    }

    #[test]
    fn escaped_ids_match_only_themselves() {
        let p = format!("docs/{}*.md", escape("4[2]*"));
        assert!(matches(&p, "docs/4[2]*-x.md"));
        assert!(!matches(&p, "docs/42-x.md"));
    }

    #[test]
    fn a_trailing_double_star_matches_the_directory_and_empty_segments_are_ignored() {
        assert!(matches("docs/**", "docs"));
        assert!(matches("docs/**", "docs/a/b.md"));
        assert!(matches("docs//intents/*.md", "docs/intents/42.md"));
        assert!(matches("**/42.md", "42.md"));
        assert!(matches("a[b/[c]d", "a[b/cd"));
        assert!(!matches("a[b/[c]d", "ab/cd"));
    }

    #[test]
    fn literal_prefix_stops_at_the_first_metacharacter() {
        assert_eq!(literal_prefix("docs/**/42*.md"), vec!["docs"]);
        assert_eq!(
            literal_prefix("docs/intents/42*.md"),
            vec!["docs", "intents"]
        );
    }
}
