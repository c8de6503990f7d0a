//! The runner's pid file: its own line, then a line per descendant noted while it runs, so a
//! later run can end what a killed tool left behind ([`super::end_orphan`]).

use std::fs::File;

/// A pid file longer than this is not read (it holds a line per process).
const PID_FILE_CAP: u64 = 256 * 1024;

/// Read a pid file without following a link or blocking on a FIFO put in its place, capped.
pub(super) fn read_pid_file(path: &std::path::Path) -> std::io::Result<String> {
    use std::io::Read;
    let file = open_pid_file(path, false)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    let mut text = String::new();
    file.take(PID_FILE_CAP).read_to_string(&mut text)?;
    Ok(text)
}

/// Open a pid file to read, or to append to (creating it), never through a link or a FIFO.
fn open_pid_file(path: &std::path::Path, append: bool) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(!append)
        .append(append)
        .create(append)
        .mode(0o600)
        .custom_flags(nix::libc::O_NOFOLLOW | nix::libc::O_NONBLOCK)
        .open(path)
}

/// Note `(pid, start time)` lines at the end of a pid file; a failure only loses the note.
pub(super) fn note_pids(path: &std::path::Path, pids: &[(i32, u64)]) {
    use std::io::Write;
    if pids.is_empty() {
        return;
    }
    let text: String = pids.iter().map(|(p, s)| format!("{p} {s}\n")).collect();
    if let Ok(mut file) = open_pid_file(path, true)
        && file.metadata().is_ok_and(|m| m.is_file())
    {
        let _ = file.write_all(text.as_bytes());
    }
}
