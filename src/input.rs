//! Reading an input file of any kind with a hard cap: an answers file, a work item, a
//! configuration file. A regular file is read up to the cap; anything else (a FIFO, `/dev/stdin`,
//! a process substitution, a device) is opened without blocking and read while it has data, and
//! an interrupting signal ends the wait. Nothing is ever read past the cap (docs/ci.md).
//!
//! The tool's own files (the local tier's state, session, answers and transcript) are read with
//! [`read_regular`]: only a regular file is read, a link in its place is not followed and a FIFO
//! never blocks, since a runner without the sandbox could have planted either there.

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
pub(crate) enum InputError {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("it is larger than {cap} bytes; at most {cap} are read")]
    TooLarge { cap: u64 },
    #[error("it is a directory")]
    Directory,
    #[error("interrupted while reading it")]
    Interrupted,
    #[error("it is a symbolic link, which is never followed here")]
    Link,
    #[error("it is {0}, not a regular file")]
    NotRegular(&'static str),
}

/// Whether a symbolic link in place of a file is followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Links {
    /// Read the file a link points to (a document the person linked on purpose).
    Follow,
    /// Refuse a link (the tool's own files: nobody else has reason to link them).
    Refuse,
}

/// Open `path` for reading as a regular file: never blocking in `open()`, never through a link
/// when `links` refuses them, and anything but a regular file (a FIFO, a socket, a device, a
/// directory) refused by what it is.
pub(crate) fn open_regular(path: &Path, links: Links) -> Result<File, InputError> {
    let mut flags = OFlag::O_NONBLOCK;
    if links == Links::Refuse {
        flags |= OFlag::O_NOFOLLOW;
    }
    let file = match std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(flags.bits())
        .open(path)
    {
        Ok(f) => f,
        Err(e) if links == Links::Refuse && e.raw_os_error() == Some(nix::libc::ELOOP) => {
            return Err(InputError::Link);
        }
        // A socket cannot be opened at all.
        Err(e) if e.raw_os_error() == Some(nix::libc::ENXIO) => {
            return Err(InputError::NotRegular("a socket"));
        }
        Err(e) => return Err(e.into()),
    };
    match what_else(&file)? {
        None => Ok(file),
        Some(error) => Err(error),
    }
}

/// `None` for a regular file, else the error naming what it is.
fn what_else(file: &File) -> std::io::Result<Option<InputError>> {
    use std::os::unix::fs::FileTypeExt;
    let kind = file.metadata()?.file_type();
    Ok(if kind.is_file() {
        None
    } else if kind.is_dir() {
        Some(InputError::Directory)
    } else if kind.is_fifo() {
        Some(InputError::NotRegular("a FIFO"))
    } else if kind.is_socket() {
        Some(InputError::NotRegular("a socket"))
    } else if kind.is_char_device() || kind.is_block_device() {
        Some(InputError::NotRegular("a device"))
    } else {
        Some(InputError::NotRegular("not a file"))
    })
}

/// Open `path` to append to (and read), creating it with mode 0600: never through a link and
/// never blocked on a FIFO put in its place; anything but a regular file is refused by what it
/// is. Every error in opening it is [`InputError::Io`].
pub(crate) fn open_append(path: &Path) -> Result<File, InputError> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .create(true)
        .append(true)
        .mode(0o600)
        .custom_flags((OFlag::O_NOFOLLOW | OFlag::O_NONBLOCK).bits())
        .open(path)?;
    match what_else(&file)? {
        None => Ok(file),
        Some(error) => Err(error),
    }
}

/// Read the regular file at `path` whole, at most `cap` bytes (more is an error), as
/// [`open_regular`] opens it.
pub(crate) fn read_regular(path: &Path, cap: u64, links: Links) -> Result<Vec<u8>, InputError> {
    let file = open_regular(path, links)?;
    let mut bytes = Vec::new();
    file.take(cap + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(InputError::TooLarge { cap });
    }
    Ok(bytes)
}

impl InputError {
    /// Whether the file is simply not there.
    pub(crate) fn is_not_found(&self) -> bool {
        matches!(self, InputError::Io(e) if e.kind() == std::io::ErrorKind::NotFound)
    }
}

/// How often a wait for more input looks at the interrupting signals.
const POLL_SLICE: Duration = Duration::from_millis(100);

/// Read at most `cap` bytes of `path` (more is an error), never blocking in `open()`.
pub(crate) fn read_capped(path: &Path, cap: u64) -> Result<Vec<u8>, InputError> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(OFlag::O_NONBLOCK.bits())
        .open(path)?;
    read_file_capped(file, cap)
}

/// Read at most `cap` bytes of an open file (standard input, say), waiting for data only while
/// no interrupting signal arrived.
pub(crate) fn read_file_capped(mut file: File, cap: u64) -> Result<Vec<u8>, InputError> {
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
pub(crate) fn without_bom(text: &str) -> &str {
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
    fn the_tools_own_files_are_read_only_when_regular_and_never_through_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        let start = std::time::Instant::now();
        let e = read_regular(&fifo, 1024, Links::Refuse).unwrap_err();
        assert_eq!(e.to_string(), "it is a FIFO, not a regular file");
        assert!(start.elapsed() < Duration::from_secs(5));
        let target = dir.path().join("target");
        std::fs::write(&target, "secret").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert!(matches!(
            read_regular(&link, 1024, Links::Refuse),
            Err(InputError::Link)
        ));
        assert_eq!(read_regular(&link, 1024, Links::Follow).unwrap(), b"secret");
        assert!(matches!(
            read_regular(&target, 5, Links::Refuse),
            Err(InputError::TooLarge { cap: 5 })
        ));
        assert!(matches!(
            read_regular(Path::new("/dev/zero"), 5, Links::Follow),
            Err(InputError::NotRegular("a device"))
        ));
        assert!(
            read_regular(&dir.path().join("none"), 5, Links::Refuse)
                .unwrap_err()
                .is_not_found()
        );
    }

    #[test]
    fn a_bom_is_dropped() {
        assert_eq!(without_bom("\u{feff}{}"), "{}");
        assert_eq!(without_bom("{}"), "{}");
    }
}
