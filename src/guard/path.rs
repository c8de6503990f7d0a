//! Repository paths as raw bytes, shown safely: non-UTF-8 bytes and control characters escaped.

use std::ffi::OsStr;
use std::fmt;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use serde::{Serialize, Serializer};

/// A path as the filesystem spells it (bytes, not necessarily UTF-8).
///
/// `Display` and `Serialize` render it escaped, so a hostile file name cannot smuggle terminal
/// escape sequences or bidi controls into a report.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct RepoPath(pub Vec<u8>);

impl RepoPath {
    pub fn new(bytes: impl Into<Vec<u8>>) -> RepoPath {
        RepoPath(bytes.into())
    }

    pub fn from_path(path: &Path) -> RepoPath {
        RepoPath(path.as_os_str().as_bytes().to_vec())
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    pub fn as_path(&self) -> &Path {
        Path::new(OsStr::from_bytes(&self.0))
    }

    /// The escaped, printable form (what `Display` shows).
    pub fn escaped(&self) -> String {
        escape_bytes(&self.0)
    }
}

impl fmt::Display for RepoPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&escape_bytes(&self.0))
    }
}

impl Serialize for RepoPath {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&escape_bytes(&self.0))
    }
}

/// Render bytes printable: valid UTF-8 stays as is except `\`, control, bidi, zero-width and tag
/// characters, which become `\xNN` / `\u{NNNN}`; invalid UTF-8 bytes become `\xNN`.
pub(crate) fn escape_bytes(bytes: &[u8]) -> String {
    // Most paths are printable ASCII without a backslash: nothing to escape.
    if bytes
        .iter()
        .all(|b| (b' '..=b'~').contains(b) && *b != b'\\')
    {
        return String::from_utf8_lossy(bytes).into_owned();
    }
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            push_char(&mut out, c);
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

fn push_char(out: &mut String, c: char) {
    let code = c as u32;
    let hidden = c.is_control()
        || (0x202A..=0x202E).contains(&code)
        || (0x2066..=0x2069).contains(&code)
        || matches!(code, 0x200B..=0x200F | 0x061C | 0x2060 | 0xFEFF)
        || (0xE0000..=0xE007F).contains(&code);
    if c == '\\' {
        out.push_str("\\\\");
    } else if hidden && code < 0x100 {
        out.push_str(&format!("\\x{code:02x}"));
    } else if hidden {
        out.push_str(&format!("\\u{{{code:04x}}}"));
    } else {
        out.push(c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printable_ascii_stays_as_is_and_a_backslash_or_delete_does_not() {
        assert_eq!(escape_bytes(b"src/a b~.rs"), "src/a b~.rs");
        assert_eq!(escape_bytes(b"a\\b"), "a\\\\b");
        assert_eq!(escape_bytes(b"a\x7fb"), "a\\x7fb");
        assert_eq!(escape_bytes(b""), "");
    }

    #[test]
    fn invalid_utf8_bytes_are_escaped() {
        assert_eq!(escape_bytes(b"a\xffb"), "a\\xffb");
    }

    #[test]
    fn terminal_escapes_and_bidi_controls_are_escaped() {
        assert_eq!(
            escape_bytes("x\u{1b}[31m\u{202e}".as_bytes()),
            "x\\x1b[31m\\u{202e}"
        );
    }

    #[test]
    fn backslash_is_doubled_so_escapes_stay_unambiguous() {
        assert_eq!(escape_bytes(b"a\\xff"), "a\\\\xff");
    }

    #[test]
    fn plain_unicode_is_kept() {
        assert_eq!(
            escape_bytes("répertoire/ファイル".as_bytes()),
            "répertoire/ファイル"
        );
    }
}
