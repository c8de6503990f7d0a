//! The mounts that show or hide a store in the runner's mount namespace: each state view put
//! in place (an overlay, or a copy of a file: state.rs plans them) and each of the person's
//! credential stores covered (secrets.rs lists them).
//!
//! Runs only in the launcher (a single-threaded process of its own), never in the tool.

use std::path::{Path, PathBuf};

use crate::sandbox::state::View;

/// In the launcher, in the new mount namespace: put each view in place. A directory whose
/// overlay cannot be mounted (a kernel without overlays in user namespaces, a path overlayfs
/// cannot take) gets `fallback` instead (a throwaway file system showing its entries read-only).
pub(super) fn mount_views(
    views: &[View],
    fallback: impl Fn(&Path) -> Result<(), String>,
) -> Result<(), String> {
    use nix::mount::{MsFlags, mount};
    for view in views {
        if view.upper.is_dir() {
            if overlay(view).is_err() {
                fallback(&view.real)?;
            }
            continue;
        }
        mount(
            Some(&view.upper),
            &view.real,
            None::<&str>,
            MsFlags::MS_BIND,
            None::<&str>,
        )
        .map_err(|e| format!("cannot show a copy of {}: {e}", view.real.display()))?;
        let flags = MsFlags::MS_BIND
            | MsFlags::MS_REMOUNT
            | MsFlags::MS_NOSUID
            | MsFlags::MS_NODEV
            | super::world::locked_flags(&view.real);
        mount(None::<&str>, &view.real, None::<&str>, flags, None::<&str>)
            .map_err(|e| format!("cannot remount {}: {e}", view.real.display()))?;
    }
    Ok(())
}

fn overlay(view: &View) -> Result<(), nix::errno::Errno> {
    use nix::mount::{MsFlags, mount};
    let paths = [&view.real, &view.upper, &view.work];
    // overlayfs splits its options at `,` and `:`; a path with one is not given to it.
    let Some([lower, upper, work]) = paths
        .iter()
        .map(|p| p.to_str().filter(|s| !s.contains([',', ':', '\\'])))
        .collect::<Option<Vec<_>>>()
        .and_then(|v| <[&str; 3]>::try_from(v).ok())
    else {
        return Err(nix::errno::Errno::EINVAL);
    };
    let base = format!("lowerdir={lower},upperdir={upper},workdir={work}");
    let flags = MsFlags::MS_NOSUID | MsFlags::MS_NODEV;
    // `userxattr` keeps overlayfs's own attributes in `user.` where `trusted.` is not ours.
    mount(
        Some("overlay"),
        &view.real,
        Some("overlay"),
        flags,
        Some(format!("{base},userxattr").as_str()),
    )
    .or_else(|_| {
        mount(
            Some("overlay"),
            &view.real,
            Some("overlay"),
            flags,
            Some(base.as_str()),
        )
    })
}

/// In the runner's mount namespace (Linux): cover each store that exists, a directory with an
/// empty read-only file system, a file (or socket) with `/dev/null`; a link is covered where it
/// leads. A store this user cannot reach is not the runner's to read either.
pub(super) fn hide(paths: &[PathBuf]) -> Result<(), String> {
    use nix::errno::Errno;
    use nix::mount::{MsFlags, mount};
    for path in paths {
        let Ok(meta) = std::fs::metadata(path) else {
            continue;
        };
        let done = if meta.is_dir() {
            mount(
                Some("tmpfs"),
                path,
                Some("tmpfs"),
                MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_NOEXEC | MsFlags::MS_RDONLY,
                Some("mode=0755,size=4k"),
            )
        } else {
            mount(
                Some("/dev/null"),
                path,
                None::<&str>,
                MsFlags::MS_BIND,
                None::<&str>,
            )
        };
        match done {
            Ok(()) | Err(Errno::EACCES | Errno::ENOENT) => {}
            Err(e) => return Err(format!("cannot hide {}: {e}", path.display())),
        }
    }
    Ok(())
}
