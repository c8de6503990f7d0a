//! The work queue of a worktree walk: jobs shared by the walking thread and the helpers, with a
//! count of queued and running jobs so helpers know when everything is done.

use std::ops::Range;
use std::sync::{Condvar, Mutex};

use super::files::Kind;

pub(super) enum Job {
    Tracked(Range<usize>),
    IgnoredDir(Vec<u8>),
    Untracked(Vec<u8>, Kind),
}

/// Jobs for the helpers; `pending` counts queued and running jobs.
pub(super) struct Queue {
    inner: Mutex<QueueState>,
    ready: Condvar,
}

struct QueueState {
    jobs: Vec<Job>,
    pending: usize,
    walking: bool,
}

impl Queue {
    fn lock(&self) -> std::sync::MutexGuard<'_, QueueState> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(super) fn push(&self, job: Job) {
        let mut q = self.lock();
        q.jobs.push(job);
        q.pending += 1;
        drop(q);
        self.ready.notify_one();
    }

    pub(super) fn next(&self) -> Option<Job> {
        let mut q = self.lock();
        loop {
            if let Some(job) = q.jobs.pop() {
                return Some(job);
            }
            if !q.walking && q.pending == 0 {
                return None;
            }
            q = self.ready.wait(q).unwrap_or_else(|p| p.into_inner());
        }
    }

    pub(super) fn done(&self) {
        let mut q = self.lock();
        q.pending -= 1;
        let finished = q.pending == 0 && !q.walking;
        drop(q);
        if finished {
            self.ready.notify_all();
        }
    }

    pub(super) fn walk_finished(&self) {
        self.lock().walking = false;
        self.ready.notify_all();
    }
}

impl Queue {
    pub(super) fn new() -> Queue {
        Queue {
            inner: Mutex::new(QueueState {
                jobs: Vec::new(),
                pending: 0,
                walking: true,
            }),
            ready: Condvar::new(),
        }
    }
}
