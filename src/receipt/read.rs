//! Reading `receipt.json` from a turn's `out/` directory through a capability, never following
//! a link, never blocking, never reading more than the size limit.

use std::io::Read;
use std::path::Path;

use cap_fs_ext::{FollowSymlinks, OpenOptionsFollowExt, OpenOptionsSyncExt};
use cap_std::fs::{Dir, FileType, FileTypeExt, Metadata, MetadataExt, OpenOptions};

use super::ReceiptError;

/// The receipt's file name inside the turn's `out/` directory.
pub(super) use crate::protocol::files::RECEIPT as RECEIPT_FILE;

/// The largest receipt accepted, in bytes.
pub(crate) use crate::protocol::limits::MAX_RECEIPT_BYTES;

fn kind_name(t: FileType) -> &'static str {
    if t.is_dir() {
        "directory"
    } else if t.is_symlink() {
        "symbolic link"
    } else if t.is_fifo() {
        "FIFO (named pipe)"
    } else if t.is_socket() {
        "socket"
    } else if t.is_block_device() {
        "block device"
    } else if t.is_char_device() {
        "character device"
    } else {
        "special file"
    }
}

/// The checks that hold for both the path's metadata and the opened file's.
fn check_metadata(file: &str, meta: &Metadata) -> Result<(), ReceiptError> {
    let t = meta.file_type();
    if t.is_symlink() {
        return Err(ReceiptError::Symlink {
            file: file.to_string(),
        });
    }
    if !t.is_file() {
        return Err(ReceiptError::NotRegularFile {
            file: file.to_string(),
            kind: kind_name(t),
        });
    }
    if meta.nlink() > 1 {
        return Err(ReceiptError::HardLinked {
            file: file.to_string(),
            links: meta.nlink(),
        });
    }
    if meta.len() > MAX_RECEIPT_BYTES {
        return Err(ReceiptError::TooLarge {
            file: file.to_string(),
            size: meta.len(),
        });
    }
    Ok(())
}

/// Read `receipt.json` from the turn's `out/` directory.
///
/// Only through a [`Dir`] opened on `out_dir`; the file must be a regular file with one link (a
/// hard link could expose a file from elsewhere), at most [`MAX_RECEIPT_BYTES`], valid UTF-8.
/// Call it only after the runner's whole process group is gone, so nothing changes underneath.
pub(crate) fn read(out_dir: &Path) -> Result<String, ReceiptError> {
    let file = out_dir.join(RECEIPT_FILE).display().to_string();
    // The turn's directory is the tool's own; `out/` is the runner's, and the runner could have
    // replaced it with a symlink to somewhere else: it is opened without following one.
    let out_error = |e: std::io::Error| ReceiptError::OutDir {
        dir: out_dir.display().to_string(),
        reason: e.to_string(),
    };
    let (Some(parent), Some(name)) = (out_dir.parent(), out_dir.file_name()) else {
        return Err(out_error(std::io::Error::other("not a directory path")));
    };
    let parent = if parent.as_os_str().is_empty() {
        Path::new(".")
    } else {
        parent
    };
    let dir = Dir::open_ambient_dir(parent, cap_std::ambient_authority())
        .and_then(|p| cap_fs_ext::DirExt::open_dir_nofollow(&p, name))
        .map_err(out_error)?;
    let io = |e: std::io::Error| ReceiptError::Io {
        file: file.clone(),
        reason: e.to_string(),
    };

    // Look before opening: a FIFO or a device is never opened at all.
    let meta = match dir.symlink_metadata(RECEIPT_FILE) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(ReceiptError::Missing(file));
        }
        Err(e) => return Err(io(e)),
    };
    check_metadata(&file, &meta)?;

    // Open without following a link and without blocking, in case the entry was swapped since.
    let mut options = OpenOptions::new();
    options.read(true).follow(FollowSymlinks::No).nonblock(true);
    let opened = match dir.open_with(RECEIPT_FILE, &options) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(ReceiptError::Missing(file));
        }
        // ELOOP: the entry became a symbolic link between the look and the open.
        Err(e) if e.raw_os_error() == Some(nix::libc::ELOOP) => {
            return Err(ReceiptError::Symlink { file });
        }
        Err(e) => return Err(io(e)),
    };
    let opened_meta = opened.metadata().map_err(io)?;
    check_metadata(&file, &opened_meta)?;
    if (opened_meta.dev(), opened_meta.ino()) != (meta.dev(), meta.ino()) {
        return Err(ReceiptError::Io {
            file,
            reason: "the file was replaced while it was being read; runners must finish writing \
                     before they exit"
                .into(),
        });
    }

    let mut bytes = Vec::new();
    opened
        .take(MAX_RECEIPT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > MAX_RECEIPT_BYTES {
        return Err(ReceiptError::TooLarge {
            file,
            size: bytes.len() as u64,
        });
    }
    String::from_utf8(bytes).map_err(|e| ReceiptError::NotUtf8 {
        file,
        offset: e.utf8_error().valid_up_to(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn out_dir() -> tempfile::TempDir {
        tempfile::tempdir().expect("tempdir")
    }

    #[test]
    fn a_regular_file_is_read() {
        let dir = out_dir();
        fs::write(dir.path().join(RECEIPT_FILE), "{\"receipt\":\"done\"}").unwrap();
        assert_eq!(read(dir.path()).unwrap(), "{\"receipt\":\"done\"}");
    }

    #[test]
    fn a_missing_file_is_no_receipt() {
        let dir = out_dir();
        let err = read(dir.path()).unwrap_err();
        assert!(matches!(err, ReceiptError::Missing(_)), "{err:?}");
        assert!(err.to_string().starts_with("no receipt"), "{err}");
        assert!(err.to_string().contains("receipt.json"), "{err}");
    }

    #[test]
    fn a_missing_out_dir_is_named() {
        let dir = out_dir();
        let gone = dir.path().join("nope");
        let err = read(&gone).unwrap_err();
        assert!(matches!(err, ReceiptError::OutDir { .. }), "{err:?}");
        assert!(err.to_string().contains("nope"), "{err}");
    }

    #[test]
    fn a_symlink_is_rejected_even_to_a_valid_file() {
        let dir = out_dir();
        let target = dir.path().join("real.json");
        fs::write(&target, "{}").unwrap();
        std::os::unix::fs::symlink(&target, dir.path().join(RECEIPT_FILE)).unwrap();
        let err = read(dir.path()).unwrap_err();
        assert!(matches!(err, ReceiptError::Symlink { .. }), "{err:?}");
        assert!(err.to_string().contains("symbolic link"), "{err}");
    }

    #[test]
    fn a_dangling_symlink_is_rejected_as_a_symlink() {
        let dir = out_dir();
        std::os::unix::fs::symlink("/etc/passwd-nope", dir.path().join(RECEIPT_FILE)).unwrap();
        let err = read(dir.path()).unwrap_err();
        assert!(matches!(err, ReceiptError::Symlink { .. }), "{err:?}");
    }

    #[test]
    fn a_fifo_is_rejected_without_blocking() {
        let dir = out_dir();
        nix::unistd::mkfifo(
            &dir.path().join(RECEIPT_FILE),
            nix::sys::stat::Mode::from_bits_truncate(0o600),
        )
        .unwrap();
        let err = read(dir.path()).unwrap_err();
        assert_eq!(
            err,
            ReceiptError::NotRegularFile {
                file: dir.path().join(RECEIPT_FILE).display().to_string(),
                kind: "FIFO (named pipe)",
            }
        );
    }

    #[test]
    fn a_directory_is_rejected() {
        let dir = out_dir();
        fs::create_dir(dir.path().join(RECEIPT_FILE)).unwrap();
        let err = read(dir.path()).unwrap_err();
        assert!(
            matches!(
                err,
                ReceiptError::NotRegularFile {
                    kind: "directory",
                    ..
                }
            ),
            "{err:?}"
        );
    }

    #[test]
    fn a_socket_is_rejected() {
        let dir = out_dir();
        let _listener =
            std::os::unix::net::UnixListener::bind(dir.path().join(RECEIPT_FILE)).unwrap();
        let err = read(dir.path()).unwrap_err();
        assert!(
            matches!(err, ReceiptError::NotRegularFile { kind: "socket", .. }),
            "{err:?}"
        );
    }

    #[test]
    fn a_hard_link_to_a_file_outside_is_rejected() {
        let outside = out_dir();
        let secret = outside.path().join("secret.json");
        fs::write(&secret, "{\"secret\":true}").unwrap();
        let dir = out_dir();
        fs::hard_link(&secret, dir.path().join(RECEIPT_FILE)).unwrap();
        let err = read(dir.path()).unwrap_err();
        assert!(
            matches!(err, ReceiptError::HardLinked { links: 2, .. }),
            "{err:?}"
        );
        assert!(err.to_string().contains("hard link"), "{err}");
    }

    #[test]
    fn a_file_over_256_kib_is_rejected() {
        let dir = out_dir();
        let big = vec![b' '; MAX_RECEIPT_BYTES as usize + 1];
        fs::write(dir.path().join(RECEIPT_FILE), big).unwrap();
        let err = read(dir.path()).unwrap_err();
        assert!(
            matches!(err, ReceiptError::TooLarge { size, .. } if size == MAX_RECEIPT_BYTES + 1),
            "{err:?}"
        );
    }

    #[test]
    fn a_file_of_exactly_256_kib_is_read() {
        let dir = out_dir();
        let max = vec![b' '; MAX_RECEIPT_BYTES as usize];
        fs::write(dir.path().join(RECEIPT_FILE), max).unwrap();
        assert_eq!(read(dir.path()).unwrap().len() as u64, MAX_RECEIPT_BYTES);
    }

    #[test]
    fn invalid_utf8_is_rejected_with_its_offset() {
        let dir = out_dir();
        fs::write(dir.path().join(RECEIPT_FILE), b"{\"a\":\"\xff\"}").unwrap();
        let err = read(dir.path()).unwrap_err();
        assert!(
            matches!(err, ReceiptError::NotUtf8 { offset: 6, .. }),
            "{err:?}"
        );
        assert!(err.to_string().contains("UTF-8"), "{err}");
    }
}
