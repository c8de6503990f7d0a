//! Case-only renames, for case-insensitive file systems (APFS and HFS+ by default, NTFS, FAT):
//! there `README.md` renamed to `readme.md` still opens under its tracked name, so the tracked
//! file looks untouched, and git itself (`core.ignoreCase`) shows nothing. The walk lists names
//! as the directory spells them, so the new spelling is an untracked name; this names the
//! tracked path it stands for.
//!
//! Not for: deciding what is tracked (that is exact, byte for byte, on every platform).

use std::ops::Range;

/// Whether `a` and `b` differ only in case (Unicode lower case for UTF-8 names, ASCII otherwise).
pub(super) fn same_but_case(a: &[u8], b: &[u8]) -> bool {
    a != b && a.len().abs_diff(b.len()) <= 8 && fold(a) == fold(b)
}

fn fold(name: &[u8]) -> Vec<u8> {
    match std::str::from_utf8(name) {
        Ok(s) => s.to_lowercase().into_bytes(),
        Err(_) => name.to_ascii_lowercase(),
    }
}

/// The names directly inside a directory whose index paths are `below` (sorted) and start with
/// `prefix` (`dir/`, or empty for the root): its tracked files, and the first component of
/// deeper paths, each subtree skipped by binary search.
pub(super) fn tracked_names<'a>(
    path: impl Fn(usize) -> &'a [u8],
    below: Range<usize>,
    prefix_len: usize,
) -> Vec<&'a [u8]> {
    let mut out = Vec::new();
    let mut i = below.start;
    while i < below.end {
        let p = path(i);
        let Some(rest) = p.get(prefix_len..) else {
            i += 1;
            continue;
        };
        match rest.iter().position(|b| *b == b'/') {
            None => {
                out.push(rest);
                i += 1;
            }
            Some(slash) => {
                out.push(&rest[..slash]);
                let sub = &p[..prefix_len + slash + 1];
                let (mut lo, mut hi) = (i, below.end);
                while lo < hi {
                    let mid = lo + (hi - lo) / 2;
                    if path(mid).starts_with(sub) {
                        lo = mid + 1;
                    } else {
                        hi = mid;
                    }
                }
                i = lo.max(i + 1);
            }
        }
    }
    out
}

/// The tracked name `name` is a case-only rename of: one in `tracked` that differs only in case
/// and is not itself listed in the directory (`listed`; on a case-sensitive file system both can
/// exist, and then nothing was renamed).
pub(super) fn renamed_from<'a>(
    name: &[u8],
    tracked: &[&'a [u8]],
    listed: impl Fn(&[u8]) -> bool,
) -> Option<&'a [u8]> {
    tracked
        .iter()
        .copied()
        .find(|t| same_but_case(t, name) && !listed(t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_differ_only_in_case_match_and_nothing_else_does() {
        assert!(same_but_case(b"README.md", b"readme.md"));
        assert!(same_but_case(b"src", b"SRC"));
        assert!(same_but_case(
            "Überblick.md".as_bytes(),
            "überblick.md".as_bytes()
        ));
        assert!(same_but_case(b"A\xff", b"a\xff"));
        assert!(!same_but_case(b"README.md", b"README.md"));
        assert!(!same_but_case(b"README.md", b"README.txt"));
        assert!(!same_but_case(b"a", b"b"));
    }

    #[test]
    fn the_direct_names_of_a_directory_skip_its_subtrees() {
        let paths: Vec<&[u8]> = vec![
            b"README.md",
            b"src/a.rs",
            b"src/deep/b.rs",
            b"src/deep/c.rs",
            b"src/z.rs",
            b"zz",
        ];
        let at = |i: usize| paths[i];
        assert_eq!(
            tracked_names(at, 0..paths.len(), 0),
            vec![&b"README.md"[..], b"src", b"zz"]
        );
        assert_eq!(
            tracked_names(at, 1..5, 4),
            vec![&b"a.rs"[..], b"deep", b"z.rs"]
        );
    }

    #[test]
    fn a_case_only_rename_names_the_tracked_path_unless_both_are_listed() {
        let tracked: Vec<&[u8]> = vec![b"README.md", b"src"];
        // Case-insensitive: the directory lists the new spelling only.
        assert_eq!(
            renamed_from(b"readme.md", &tracked, |n| n == b"readme.md"),
            Some(&b"README.md"[..])
        );
        assert_eq!(
            renamed_from(b"SRC", &tracked, |n| n == b"SRC"),
            Some(&b"src"[..])
        );
        // Case-sensitive, both spellings present: a new file, no rename.
        assert_eq!(renamed_from(b"readme.md", &tracked, |_| true), None);
        assert_eq!(renamed_from(b"notes.md", &tracked, |_| false), None);
    }
}
