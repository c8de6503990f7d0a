//! The names the tool treats as its own or as protected (`.git`, `.interview`, `interview.toml`),
//! compared as a case-insensitive, normalisation-insensitive file system would: on macOS or
//! Windows `.GIT`, `.Interview` or a decomposed spelling is the same directory.

use std::ffi::OsStr;

use unicode_normalization::UnicodeNormalization;

/// A file name as such a file system compares it: code points HFS+ ignores removed, canonically
/// decomposed, case-folded, and the trailing dots and spaces Windows drops trimmed.
pub(crate) fn folded(name: &OsStr) -> String {
    let name = name.to_string_lossy();
    let kept: String = name.chars().filter(|c| !ignored(*c)).collect();
    let folded: String = kept.nfd().flat_map(char::to_lowercase).collect();
    // Lowercasing can itself produce decomposable text (`İ`): normalise once more.
    let folded: String = folded.nfd().collect();
    folded.trim_end_matches(['.', ' ']).to_string()
}

/// Whether `name` is the same name as `protected` (written in lowercase ASCII) on some file
/// system the repository may be checked out on.
pub(crate) fn same_name(name: &OsStr, protected: &str) -> bool {
    folded(name) == protected
}

/// Whether a path component names a git directory: `.git` in any case or spelling, or its
/// Windows short name `git~1`.
pub(crate) fn is_git_dir_name(name: &OsStr) -> bool {
    let f = folded(name);
    f == ".git" || f == "git~1"
}

/// Whether a path component is one the tool keeps for itself or protects: a git directory or
/// the local tier `.interview`.
pub(crate) fn is_protected(name: &OsStr) -> bool {
    is_git_dir_name(name) || same_name(name, ".interview")
}

/// Code points HFS+ leaves out of a name when comparing it (the list git itself checks in
/// `is_hfs_dotgit`): zero-width and direction marks.
fn ignored(c: char) -> bool {
    matches!(
        c,
        '\u{200c}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{206a}'..='\u{206f}' | '\u{feff}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spellings_a_file_system_confuses_are_the_same_name() {
        for name in [
            ".git",
            ".GIT",
            ".Git",
            ".g\u{200c}it",
            ".git.",
            ".git ",
            "GIT~1",
        ] {
            assert!(is_git_dir_name(OsStr::new(name)), "{name:?}");
        }
        for name in [".gitignore", "git", ".gît", "x.git"] {
            assert!(!is_git_dir_name(OsStr::new(name)), "{name:?}");
        }
        assert!(same_name(OsStr::new(".Interview"), ".interview"));
        assert!(same_name(OsStr::new("INTERVIEW.TOML"), "interview.toml"));
        // The Kelvin sign is canonically the letter K.
        assert_eq!(folded(OsStr::new("\u{212a}")), "k");
        // A decomposed and a composed accent are one name.
        assert_eq!(
            folded(OsStr::new("caf\u{e9}")),
            folded(OsStr::new("cafe\u{301}"))
        );
    }
}
