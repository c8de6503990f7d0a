//! The runner's pid file: its own line, then a line per descendant noted while it runs, so a
//! later run can end what a killed tool left behind ([`super::end_orphan`]). Opened like the
//! tool's other own files (`crate::input`): never through a link, never blocked on a FIFO.

use std::io::{Read, Write};
use std::path::Path;

use crate::input::{InputError, Links, open_append, open_regular};

/// A pid file longer than this is read only this far (it holds a line per process).
const PID_FILE_CAP: u64 = 256 * 1024;

/// Read a pid file (at most [`PID_FILE_CAP`] bytes of it) without following a link or blocking
/// on a FIFO put in its place.
pub(super) fn read_pid_file(path: &Path) -> Result<String, InputError> {
    let file = open_regular(path, Links::Refuse)?;
    let mut text = String::new();
    file.take(PID_FILE_CAP).read_to_string(&mut text)?;
    Ok(text)
}

/// Note `(pid, start time)` lines at the end of a pid file (created if missing); a failure only
/// loses the note.
pub(super) fn note_pids(path: &Path, pids: &[(i32, u64)]) {
    if pids.is_empty() {
        return;
    }
    let text: String = pids.iter().map(|(p, s)| format!("{p} {s}\n")).collect();
    if let Ok(mut file) = open_append(path) {
        let _ = file.write_all(text.as_bytes());
    }
}
