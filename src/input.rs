//! Reading an input file of any kind with a hard cap: an answers file, a work item, a
//! configuration file. A regular file is read up to the cap; anything else (a FIFO, `/dev/stdin`,
//! a process substitution, a device) is opened without blocking and read while it has data, and
//! an interrupting signal ends the wait. Nothing is ever read past the cap (docs/ci.md).

use std::fs::File;
use std::io::Read;
use std::os::fd::AsFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::time::Duration;

use nix::fcntl::OFlag;
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};

/// Why an input could not be read.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("it is larger than {cap} bytes; at most {cap} are read")]
    TooLarge { cap: u64 },
    #[error("it is a directory")]
    Directory,
    #[error("interrupted while reading it")]
    Interrupted,
}

/// How often a wait for more input looks at the interrupting signals.
const POLL_SLICE: Duration = Duration::from_millis(100);

/// Read at most `cap` bytes of `path` (more is an error), never blocking in `open()`.
pub fn read_capped(path: &Path, cap: u64) -> Result<Vec<u8>, InputError> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(OFlag::O_NONBLOCK.bits())
        .open(path)?;
    read_file_capped(file, cap)
}

/// Read at most `cap` bytes of an open file (standard input, say), waiting for data only while
/// no interrupting signal arrived.
pub fn read_file_capped(mut file: File, cap: u64) -> Result<Vec<u8>, InputError> {
    let kind = file.metadata()?.file_type();
    if kind.is_dir() {
        return Err(InputError::Directory);
    }
    let mut bytes = Vec::new();
    if kind.is_file() {
        (&mut file).take(cap + 1).read_to_end(&mut bytes)?;
    } else {
        let mut buf = [0u8; 64 * 1024];
        loop {
            if crate::signals::interrupted() {
                return Err(InputError::Interrupted);
            }
            match file.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    bytes.extend_from_slice(&buf[..n]);
                    if bytes.len() as u64 > cap {
                        break;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    let mut fds = [PollFd::new(file.as_fd(), PollFlags::POLLIN)];
                    let slice = PollTimeout::try_from(POLL_SLICE).unwrap_or(PollTimeout::NONE);
                    match poll(&mut fds, slice) {
                        Ok(_) | Err(nix::errno::Errno::EINTR) => {}
                        Err(e) => return Err(std::io::Error::from(e).into()),
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e.into()),
            }
        }
    }
    if bytes.len() as u64 > cap {
        return Err(InputError::TooLarge { cap });
    }
    Ok(bytes)
}

/// `bytes` as text without a leading UTF-8 byte-order mark.
pub fn without_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_device_that_never_ends_is_cut_at_the_cap() {
        let start = std::time::Instant::now();
        let e = read_capped(Path::new("/dev/zero"), 1024).unwrap_err();
        assert!(matches!(e, InputError::TooLarge { cap: 1024 }), "{e}");
        assert!(start.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn a_fifo_without_a_writer_does_not_block_the_open() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        let start = std::time::Instant::now();
        let bytes = read_capped(&fifo, 1024).unwrap();
        assert!(bytes.is_empty());
        assert!(start.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn a_regular_file_is_read_whole_up_to_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a");
        std::fs::write(&f, b"12345").unwrap();
        assert_eq!(read_capped(&f, 5).unwrap(), b"12345");
        assert!(matches!(
            read_capped(&f, 4),
            Err(InputError::TooLarge { cap: 4 })
        ));
        assert!(matches!(
            read_capped(dir.path(), 4),
            Err(InputError::Directory)
        ));
    }

    #[test]
    fn a_bom_is_dropped() {
        assert_eq!(without_bom("\u{feff}{}"), "{}");
        assert_eq!(without_bom("{}"), "{}");
    }
}
