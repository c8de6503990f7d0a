//! The files of one turn in the local tier (`turns/NNN/`): the protocol's and the guard's.

use std::path::{Path, PathBuf};

use crate::protocol::TurnPaths;

/// The files of one turn in the local tier: the protocol's ([`TurnPaths`]) and the guard's
/// restore copies.
pub(super) struct TurnFiles {
    pub(super) dir: PathBuf,
    pub(super) out: PathBuf,
    pub(super) restore: PathBuf,
    pub(super) receipt: PathBuf,
    pub(super) brief_md: PathBuf,
    pub(super) brief_json: PathBuf,
    pub(super) schema: PathBuf,
    pub(super) log: PathBuf,
    pub(super) pid: PathBuf,
}

impl TurnFiles {
    pub(super) fn new(dir: PathBuf) -> TurnFiles {
        let TurnPaths {
            dir,
            brief_md,
            brief_json,
            out,
            receipt,
            schema,
            log,
            pid,
        } = TurnPaths::new(&dir);
        TurnFiles {
            restore: dir.join("restore"),
            dir,
            out,
            receipt,
            brief_md,
            brief_json,
            schema,
            log,
            pid,
        }
    }

    pub(super) fn paths(&self) -> TurnPaths {
        TurnPaths {
            dir: self.dir.clone(),
            brief_md: self.brief_md.clone(),
            brief_json: self.brief_json.clone(),
            out: self.out.clone(),
            receipt: self.receipt.clone(),
            schema: self.schema.clone(),
            log: self.log.clone(),
            pid: self.pid.clone(),
        }
    }

    /// What is written while the runner works: its `out/`, and the log and pid file that
    /// dispatch keeps for it.
    pub(super) fn written_during_turn(&self) -> Vec<PathBuf> {
        vec![self.out.clone(), self.log.clone(), self.pid.clone()]
    }
}

/// The restore copies of the latest turn of the session in `sessions` that changed last, other
/// than `own`: what a first turn links rather than copies again when it still holds the same
/// bytes (the guard compares them first). Only real directories are looked in, never a link;
/// `None` when no other session kept copies.
pub(super) fn latest_copies(sessions: &Path, own: &Path) -> Option<PathBuf> {
    let real_dir = |p: &Path| std::fs::symlink_metadata(p).ok().filter(|m| m.is_dir());
    let (_, turns) = std::fs::read_dir(sessions)
        .ok()?
        .flatten()
        .map(|entry| entry.path().join("turns"))
        .filter(|turns| turns.parent() != Some(own))
        .filter_map(|turns| {
            real_dir(turns.parent()?)?;
            Some((real_dir(&turns)?.modified().ok()?, turns))
        })
        .max()?;
    let mut numbered: Vec<(u32, PathBuf)> = std::fs::read_dir(&turns)
        .ok()?
        .flatten()
        .filter_map(|entry| {
            let n = entry.file_name().to_str()?.parse::<u32>().ok()?;
            Some((n, entry.path()))
        })
        .collect();
    numbered.sort();
    numbered.into_iter().rev().find_map(|(_, dir)| {
        let restore = TurnFiles::new(dir).restore;
        real_dir(&restore).map(|_| restore)
    })
}
