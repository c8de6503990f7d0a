//! A small glob matcher for tracker paths: `*`, `?`, `[...]` within a path segment and `**` for
//! any number of segments. Paths and patterns are `/`-separated and relative to the repository.
//!
//! Not for: gitignore semantics (no negation, no anchoring rules).

/// Whether `path` matches `pattern`.
pub fn matches(pattern: &str, path: &str) -> bool {
    let pat: Vec<&str> = pattern.split('/').filter(|s| !s.is_empty()).collect();
    let segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    match_segments(&pat, &segs)
}

fn match_segments(pat: &[&str], segs: &[&str]) -> bool {
    // Iterative over `**` positions to stay linear-ish on deep trees: try each split point.
    match pat.split_first() {
        None => segs.is_empty(),
        Some((&"**", rest)) => (0..=segs.len()).any(|i| match_segments(rest, &segs[i..])),
        Some((first, rest)) => match segs.split_first() {
            Some((seg, segs_rest)) => {
                match_segment(first.as_bytes(), seg.as_bytes()) && match_segments(rest, segs_rest)
            }
            None => false,
        },
    }
}

/// One segment: `*` matches any run of characters (none of them `/`), `?` one character,
/// `[abc]`, `[a-z]`, `[!x]` / `[^x]` one character of a set. Works on bytes; sets compare bytes.
fn match_segment(pat: &[u8], text: &[u8]) -> bool {
    // Classic backtracking over the last `*`: O(len(pat) * len(text)) at worst.
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pat.len() {
            match pat[p] {
                b'*' => {
                    star = Some((p, t));
                    p += 1;
                    continue;
                }
                b'?' => {
                    p += 1;
                    t += 1;
                    continue;
                }
                b'[' => {
                    if let Some((matched, next)) = match_class(&pat[p..], text[t]) {
                        if matched {
                            p += next;
                            t += 1;
                            continue;
                        }
                    } else if text[t] == b'[' {
                        // An unclosed `[` is a literal.
                        p += 1;
                        t += 1;
                        continue;
                    }
                }
                c if c == text[t] => {
                    p += 1;
                    t += 1;
                    continue;
                }
                _ => {}
            }
        }
        match star {
            Some((sp, st)) => {
                p = sp + 1;
                t = st + 1;
                star = Some((sp, st + 1));
            }
            None => return false,
        }
    }
    pat[p..].iter().all(|&c| c == b'*')
}

/// Match `c` against the class at the start of `pat` (which begins with `[`). Returns whether it
/// matched and the length of the class, or `None` when the class is not closed.
fn match_class(pat: &[u8], c: u8) -> Option<(bool, usize)> {
    let mut i = 1;
    let negate = matches!(pat.get(i), Some(b'!') | Some(b'^'));
    if negate {
        i += 1;
    }
    let mut matched = false;
    let mut first = true;
    while i < pat.len() {
        let lo = pat[i];
        if lo == b']' && !first {
            return Some((matched != negate, i + 1));
        }
        first = false;
        if pat.get(i + 1) == Some(&b'-') && pat.get(i + 2).is_some_and(|&h| h != b']') {
            let hi = pat[i + 2];
            matched |= lo <= c && c <= hi;
            i += 3;
        } else {
            matched |= lo == c;
            i += 1;
        }
    }
    None
}

/// Escape glob metacharacters so `text` matches only itself (used for the work-item id).
pub fn escape(text: &str) -> String {
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
pub fn literal_prefix(pattern: &str) -> Vec<&str> {
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
    fn literal_prefix_stops_at_the_first_metacharacter() {
        assert_eq!(literal_prefix("docs/**/42*.md"), vec!["docs"]);
        assert_eq!(
            literal_prefix("docs/intents/42*.md"),
            vec!["docs", "intents"]
        );
    }
}
