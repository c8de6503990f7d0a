//! The files of one turn in the local tier (`turns/NNN/`): the protocol's and the guard's.

use std::path::PathBuf;

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
