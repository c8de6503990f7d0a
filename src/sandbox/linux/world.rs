//! The runner's world, deny by default: after its own mounts are in place, every other mount of
//! its mount namespace is made read-only, `nosuid` and `nodev`; the directories where servers
//! keep their sockets are covered by empty file systems, and every named socket that exists when
//! the turn starts is masked, so the runner can reach no server through the file system; and
//! `/dev/shm` is its own.
//!
//! Runs only in the launcher (a single-threaded process of its own), never in the tool.
//! Not for: which paths are writable (the policy, decided in the tool).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use nix::mount::{MsFlags, mount};
use nix::sys::statvfs::{FsFlags, statvfs};

/// At most this many entries are looked at under each socket directory: a machine with more is
/// not made slower by them (the sockets listed by the kernel are masked all the same).
const WALK_LIMIT: usize = 20_000;

/// Directories that hold only servers' runtime files (sockets, pids): covered whole by an empty
/// file system. `/run/user/<uid>` is every user's `XDG_RUNTIME_DIR` (the session bus, the
/// systemd user instance, podman, pipewire, editors' servers); `/run/screen` and the like hold
/// terminal multiplexers' sockets.
const RUNTIME_DIRS: &[&str] = &[
    "/run/user",
    "/var/run/user",
    "/run/screen",
    "/var/run/screen",
    "/run/tmux",
    "/run/dbus",
    "/var/run/dbus",
];

/// Where the kernel lists the named UNIX sockets bound in this network namespace.
const NET_UNIX: &str = "/proc/net/unix";

/// The named sockets a runner must not reach, found before the namespaces exist (as the tool's
/// own user, who may see more than the runner's mapped one): every bound socket the kernel
/// lists, and every socket under `/run` and `/var/run`.
pub(super) fn sockets() -> Vec<PathBuf> {
    let mut found: BTreeSet<PathBuf> = BTreeSet::new();
    if let Ok(text) = std::fs::read_to_string(NET_UNIX) {
        found.extend(listed_sockets(&text));
    }
    for root in ["/run", "/var/run"] {
        walk_sockets(Path::new(root), &mut found);
    }
    found.into_iter().collect()
}

/// The paths in `/proc/net/unix` (its last column, when it is an absolute path).
fn listed_sockets(text: &str) -> impl Iterator<Item = PathBuf> + '_ {
    text.lines().skip(1).filter_map(|line| {
        let path = line.split_whitespace().nth(7)?;
        path.starts_with('/').then(|| PathBuf::from(path))
    })
}

fn walk_sockets(root: &Path, found: &mut BTreeSet<PathBuf>) {
    use std::os::unix::fs::FileTypeExt;
    if !std::fs::symlink_metadata(root).is_ok_and(|m| m.is_dir()) {
        return; // a link (/var/run → /run) is walked where it leads
    }
    for entry in walkdir::WalkDir::new(root)
        .follow_links(false)
        .max_depth(6)
        .into_iter()
        .take(WALK_LIMIT)
        .flatten()
    {
        if entry.file_type().is_socket() {
            found.insert(entry.into_path());
        }
    }
}

/// Cover the runtime directories (and `$XDG_RUNTIME_DIR`) with empty file systems, and mask
/// each socket in `sockets` that is still reachable with `/dev/null` (a connect is refused: it
/// is no socket; the remount below makes it unopenable too). `keep`: paths the runner needs
/// (a runtime directory holding one is left as it is, its sockets masked one by one).
pub(super) fn hide_servers(sockets: &[PathBuf], keep: &[PathBuf]) -> Result<(), String> {
    let mut dirs: Vec<PathBuf> = RUNTIME_DIRS.iter().map(PathBuf::from).collect();
    if let Some(dir) = std::env::var_os("XDG_RUNTIME_DIR") {
        dirs.push(PathBuf::from(dir));
    }
    let mut covered: Vec<PathBuf> = Vec::new();
    for dir in dirs {
        if !dir.is_absolute() || !std::fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir()) {
            continue;
        }
        if keep.iter().any(|k| k.starts_with(&dir)) {
            continue;
        }
        match mount(
            Some("tmpfs"),
            &dir,
            Some("tmpfs"),
            MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_NOEXEC | MsFlags::MS_RDONLY,
            Some("mode=0755,size=4k"),
        ) {
            Ok(()) => covered.push(dir),
            // Not reachable by this user: not by the runner either.
            Err(nix::errno::Errno::EACCES | nix::errno::Errno::ENOENT) => {}
            Err(e) => return Err(format!("cannot hide {}: {e}", dir.display())),
        }
    }
    for socket in sockets {
        if covered.iter().any(|d| socket.starts_with(d)) {
            continue;
        }
        mask(socket)?;
    }
    Ok(())
}

/// Put `/dev/null` over the socket at `path`, if it is still a socket there.
fn mask(path: &Path) -> Result<(), String> {
    use std::os::unix::fs::FileTypeExt;
    if !std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_socket()) {
        return Ok(()); // gone, hidden already, or not reachable by this user
    }
    match mount(
        Some("/dev/null"),
        path,
        None::<&str>,
        MsFlags::MS_BIND,
        None::<&str>,
    ) {
        Ok(()) | Err(nix::errno::Errno::EACCES | nix::errno::Errno::ENOENT) => Ok(()),
        Err(e) => Err(format!("cannot mask the socket {}: {e}", path.display())),
    }
}

/// A `/dev/shm` of the runner's own (the IPC namespace gives it its own System V objects).
pub(super) fn private_shm() -> Result<(), String> {
    let shm = Path::new("/dev/shm");
    if !std::fs::symlink_metadata(shm).is_ok_and(|m| m.is_dir()) {
        return Ok(());
    }
    mount(
        Some("tmpfs"),
        shm,
        Some("tmpfs"),
        MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_NOEXEC,
        Some("mode=1777,size=64m"),
    )
    .map_err(|e| format!("cannot mount a private /dev/shm: {e}"))
}

/// Make every mount of this namespace read-only, `nosuid` and `nodev`, but the mounts at the
/// paths in `writable` (which stay writable, and were mounted `nosuid,nodev` themselves) and the
/// device file systems (which keep their devices: `/dev/null` must stay a device). A mount that
/// this user cannot reach is left: the runner cannot reach it either.
pub(super) fn read_only_rest(writable: &[PathBuf]) -> Result<(), String> {
    let text = std::fs::read_to_string("/proc/self/mountinfo")
        .map_err(|e| format!("cannot read the mount table: {e}"))?;
    let mut seen: BTreeSet<PathBuf> = BTreeSet::new();
    for line in text.lines() {
        let Some(mount) = MountLine::parse(line) else {
            continue;
        };
        if writable.contains(&mount.point) || !seen.insert(mount.point.clone()) {
            continue;
        }
        let devices = matches!(mount.fs_type.as_str(), "devtmpfs" | "devpts")
            || mount.point == Path::new("/dev");
        let mut flags = MsFlags::MS_BIND
            | MsFlags::MS_REMOUNT
            | MsFlags::MS_RDONLY
            | MsFlags::MS_NOSUID
            | locked_flags(&mount.point);
        if !devices {
            flags |= MsFlags::MS_NODEV;
        }
        match nix::mount::mount(
            None::<&str>,
            &mount.point,
            None::<&str>,
            flags,
            None::<&str>,
        ) {
            Ok(()) => {}
            Err(nix::errno::Errno::EACCES | nix::errno::Errno::ENOENT) => {}
            Err(e) => {
                return Err(format!(
                    "cannot make {} read-only: {e}",
                    mount.point.display()
                ));
            }
        }
    }
    Ok(())
}

/// The flags of the mount at `path` that a remount must keep (the kernel locks them on mounts
/// inherited from a more privileged namespace): `nodev`, `noexec`, the atime ones.
pub(super) fn locked_flags(path: &Path) -> MsFlags {
    let Ok(stat) = statvfs(path) else {
        return MsFlags::empty();
    };
    let f = stat.flags();
    let mut m = MsFlags::empty();
    for (fs, ms) in [
        (FsFlags::ST_NOSUID, MsFlags::MS_NOSUID),
        (FsFlags::ST_NODEV, MsFlags::MS_NODEV),
        (FsFlags::ST_NOEXEC, MsFlags::MS_NOEXEC),
        (FsFlags::ST_NOATIME, MsFlags::MS_NOATIME),
        (FsFlags::ST_NODIRATIME, MsFlags::MS_NODIRATIME),
        (FsFlags::ST_RELATIME, MsFlags::MS_RELATIME),
    ] {
        if f.contains(fs) {
            m |= ms;
        }
    }
    m
}

/// One line of `/proc/self/mountinfo`: its mount point and file-system type.
#[derive(Debug, PartialEq)]
struct MountLine {
    point: PathBuf,
    fs_type: String,
}

impl MountLine {
    fn parse(line: &str) -> Option<MountLine> {
        let mut fields = line.split(' ');
        let point = fields.nth(4)?;
        let rest: Vec<&str> = fields.collect();
        let dash = rest.iter().position(|f| *f == "-")?;
        let fs_type = rest.get(dash + 1)?;
        Some(MountLine {
            point: PathBuf::from(unescape(point)),
            fs_type: (*fs_type).to_string(),
        })
    }
}

/// Undo mountinfo's octal escapes (`\040` for a space, `\011`, `\012`, `\134`).
fn unescape(field: &str) -> std::ffi::OsString {
    use std::os::unix::ffi::OsStringExt;
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\'
            && let Some(octal) = bytes.get(i + 1..i + 4)
            && octal.iter().all(|b| (b'0'..=b'7').contains(b))
        {
            let value = octal
                .iter()
                .fold(0u32, |acc, b| acc * 8 + u32::from(b - b'0'));
            if let Ok(byte) = u8::try_from(value) {
                out.push(byte);
                i += 4;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    std::ffi::OsString::from_vec(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mountinfo_lines_give_the_unescaped_point_and_the_type() {
        let line = "61 46 0:6 / /dev rw,relatime - devtmpfs devtmpfs rw,size=1k";
        assert_eq!(
            MountLine::parse(line),
            Some(MountLine {
                point: PathBuf::from("/dev"),
                fs_type: "devtmpfs".into()
            })
        );
        let line = "70 46 0:40 / /mnt/a\\040b rw shared:5 - ext4 /dev/vdb rw";
        assert_eq!(
            MountLine::parse(line).unwrap().point,
            PathBuf::from("/mnt/a b")
        );
        assert_eq!(MountLine::parse("garbage"), None);
    }

    #[test]
    fn the_kernels_socket_list_gives_named_sockets_only() {
        let text = "Num       RefCount Protocol Flags    Type St Inode Path\n\
                    0000000000000000: 00000002 00000000 00010000 0001 01 1234 /run/user/1000/bus\n\
                    0000000000000000: 00000002 00000000 00010000 0001 01 1235 @abstract\n\
                    0000000000000000: 00000002 00000000 00000000 0002 01 1236\n\
                    0000000000000000: 00000002 00000000 00010000 0001 01 1237 /home/p/.gnupg/S.gpg-agent\n";
        let found: Vec<PathBuf> = listed_sockets(text).collect();
        assert_eq!(
            found,
            [
                PathBuf::from("/run/user/1000/bus"),
                PathBuf::from("/home/p/.gnupg/S.gpg-agent")
            ]
        );
    }
}
