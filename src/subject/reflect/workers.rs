//! The range's commits walked and diffed at once: each commit's tree diff goes to workers on
//! every core as soon as its first parent's tree is known, so the diffs do not wait for the walk
//! to end; then the lines of the changed files are counted path by path (`blobs.rs`) and each
//! commit's facts assembled.
//!
//! gix's walk of `base..head` yields nothing until it has painted the whole boundary between the
//! two (a third of the walk's time), so the first-parent chain from HEAD, where most of a range
//! lies, is decoded and handed out ahead of it; the walk then finds those commits decoded.

use std::collections::{HashMap, HashSet};
use std::sync::{Mutex, mpsc};

use crate::error::{Error, Result};

use super::cache::FactsCache;
use super::diff::{CommitFacts, FileChange, assemble, diff_trees, tree_of};
use super::walk::{RangeCommit, Walker};

/// Commits handed to a worker at a time: neighbours share trees, so a worker's pack cache
/// serves the parent of the commit it just read, and each run of commits starts its trees'
/// delta chains afresh (on 10,000 commits runs of 512 cost 15% less CPU than runs of 128).
const CHUNK: usize = 512;

/// How far (in committer time) before the base the chain ahead of the walk goes at most, when
/// the base is not on it: a bound on work the walk may then not need, generous for clock skew.
const AHEAD_SLOP_SECONDS: i64 = 86_400;

/// One diff to compute: the commit, its first parent's tree (`None` for a root commit) and its
/// own tree.
type Job = (gix::ObjectId, Option<gix::ObjectId>, gix::ObjectId);

/// What [`walk_and_diff`] found.
pub(super) struct Diffed {
    /// The commits of the range in history order.
    pub(super) commits: Vec<RangeCommit>,
    /// Beside each commit, its diff against its first parent (`None` for merges, which
    /// `git log` does not diff either), from the cache or computed.
    pub(super) per_commit: Vec<Option<CommitFacts>>,
    /// The (history) indices of the commits computed here, not taken from the cache.
    pub(super) fresh: Vec<usize>,
}

/// The commits of `base..head` and their diffs (see [`Diffed`]).
pub(super) fn walk_and_diff(
    repo: &gix::Repository,
    head: gix::ObjectId,
    base: gix::ObjectId,
    range: &str,
    cache: &mut FactsCache,
) -> Result<Diffed> {
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 8);
    let (walked, computed) = walk_while_diffing(repo, (head, base, range), cache, workers);
    let Walked {
        commits,
        mut cached,
    } = walked?;
    let changed = in_history_order(&commits, computed)?;
    let lines =
        super::blobs::lines_of(&changed, (0..workers).map(|_| worker_repo(repo)).collect())?;
    // Each commit's facts, assembled on every core (in runs of neighbouring commits).
    let fresh: Vec<usize> = (0..changed.len())
        .filter(|&h| changed[h].is_some())
        .collect();
    let mut per_commit = assemble_all(changed.into_iter().zip(lines).collect(), workers);
    if per_commit.len() != commits.len() {
        return Err(Error::WorkerStopped(
            "a worker assembling the facts of commits",
        ));
    }
    for (slot, commit) in per_commit.iter_mut().zip(&commits) {
        if slot.is_none() {
            *slot = cached.remove(&commit.id);
        }
    }
    Ok(Diffed {
        commits,
        per_commit,
        fresh,
    })
}

/// What each diffing worker returns: the files each commit it diffed changed.
type DiffedBatch = Result<Vec<(gix::ObjectId, Vec<FileChange>)>>;

/// Walk the range on this core while the other `workers - 1` diff the commits it queues; then
/// diff too.
fn walk_while_diffing(
    repo: &gix::Repository,
    (head, base, range): (gix::ObjectId, gix::ObjectId, &str),
    cache: &mut FactsCache,
    workers: usize,
) -> (Result<Walked>, Vec<DiffedBatch>) {
    let (jobs, queue) = mpsc::channel::<Vec<Job>>();
    let queue = Mutex::new(queue);
    std::thread::scope(|scope| {
        // One core walks while the others diff; then it diffs too.
        let handles: Vec<_> = (1..workers)
            .map(|_| {
                let repo = worker_repo(repo);
                let queue = &queue;
                scope.spawn(move || diff_jobs(&repo, queue))
            })
            .collect();
        // The walk runs here while the workers diff; the queue closes when `jobs` is dropped.
        let walked = feed(repo, head, base, range, cache, jobs);
        let mut computed = vec![diff_jobs(&worker_repo(repo), &queue)];
        computed.extend(handles.into_iter().map(|h| {
            h.join()
                .unwrap_or_else(|_| Err(Error::WorkerStopped("a worker diffing commits")))
        }));
        (walked, computed)
    })
}

/// The files each new commit changed, in history order (a commit diffed ahead of the walk that
/// is not in the range is dropped).
fn in_history_order(
    commits: &[RangeCommit],
    computed: Vec<DiffedBatch>,
) -> Result<Vec<Option<Vec<FileChange>>>> {
    let at: HashMap<gix::ObjectId, usize> =
        commits.iter().enumerate().map(|(h, c)| (c.id, h)).collect();
    let mut changed: Vec<Option<Vec<FileChange>>> = (0..commits.len()).map(|_| None).collect();
    for batch in computed {
        for (id, files) in batch? {
            if let Some(&h) = at.get(&id) {
                changed[h] = Some(files);
            }
        }
    }
    Ok(changed)
}

/// Each new commit's facts from its files and their lines, assembled on `workers` cores in runs
/// of neighbouring commits.
fn assemble_all(
    mut work: Vec<(Option<Vec<FileChange>>, Vec<super::diff::LineFacts>)>,
    workers: usize,
) -> Vec<Option<CommitFacts>> {
    let run = work.len().div_ceil(workers).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = work
            .chunks_mut(run)
            .map(|part| {
                scope.spawn(move || {
                    part.iter_mut()
                        .map(|(files, lines)| {
                            files
                                .take()
                                .map(|files| assemble(files, std::mem::take(lines)))
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    })
}

/// What the walk found: the commits in history order, and the diffs the cache already had.
struct Walked {
    commits: Vec<RangeCommit>,
    cached: HashMap<gix::ObjectId, CommitFacts>,
}

/// Hands each commit's diff out once its first parent's tree is known: at once for a root
/// commit or a parent seen before, when the parent is seen (usually next), or after the walk
/// for a parent outside the range.
struct Dispatch<'c> {
    cache: &'c mut FactsCache,
    jobs: mpsc::Sender<Vec<Job>>,
    chunk: Vec<Job>,
    trees: HashMap<gix::ObjectId, gix::ObjectId>,
    /// Children waiting for their first parent to be seen: `(commit, own tree)`.
    waiting: HashMap<gix::ObjectId, Vec<(gix::ObjectId, gix::ObjectId)>>,
    /// The commits handed out or waiting (each is offered once even if seen twice).
    offered: HashSet<gix::ObjectId>,
    cached: HashMap<gix::ObjectId, CommitFacts>,
}

impl Dispatch<'_> {
    /// A commit seen (ahead of the walk or by it).
    fn offer(&mut self, c: &RangeCommit) {
        self.trees.insert(c.id, c.tree);
        if !c.merge() && self.offered.insert(c.id) {
            if let Some(facts) = self.cache.get(&c.id) {
                self.cached.insert(c.id, facts);
            } else {
                match c.parents.first() {
                    None => self.chunk.push((c.id, None, c.tree)),
                    Some(p) => match self.trees.get(p) {
                        Some(&parent_tree) => self.chunk.push((c.id, Some(parent_tree), c.tree)),
                        None => self.waiting.entry(*p).or_default().push((c.id, c.tree)),
                    },
                }
            }
        }
        for (child, tree) in self.waiting.remove(&c.id).unwrap_or_default() {
            self.chunk.push((child, Some(c.tree), tree));
        }
        self.send(true);
    }

    fn send(&mut self, full_only: bool) {
        if !self.chunk.is_empty() && (!full_only || self.chunk.len() >= CHUNK) {
            // The workers only stop early on an error, which the join reports.
            let _ = self.jobs.send(std::mem::replace(
                &mut self.chunk,
                Vec::with_capacity(CHUNK),
            ));
        }
    }
}

/// Walk the range, handing out each non-merge commit the cache does not know (see
/// [`Dispatch`]), the first-parent chain from HEAD ahead of the walk.
fn feed(
    repo: &gix::Repository,
    head: gix::ObjectId,
    base: gix::ObjectId,
    range: &str,
    cache: &mut FactsCache,
    jobs: mpsc::Sender<Vec<Job>>,
) -> Result<Walked> {
    let walker = Walker::new(repo, head);
    let mut dispatch = Dispatch {
        cache,
        jobs,
        chunk: Vec::with_capacity(CHUNK),
        trees: HashMap::new(),
        waiting: HashMap::new(),
        offered: HashSet::new(),
        cached: HashMap::new(),
    };
    // Ahead of the walk: HEAD's first parents down to the base, or to a day before its time
    // when it is not among them (the walk then drops what is outside the range).
    let base_time = walker.decode(base).map(|c| c.time).ok();
    let mut chain: Vec<RangeCommit> = Vec::new();
    let mut on_chain: HashSet<gix::ObjectId> = HashSet::new();
    let mut next = Some(head);
    while let Some(id) = next.filter(|&id| id != base && !on_chain.contains(&id)) {
        let c = walker.decode(id)?;
        dispatch.offer(&c);
        next = c
            .parents
            .first()
            .copied()
            .filter(|_| base_time.is_none_or(|t| c.time >= t - AHEAD_SLOP_SECONDS));
        on_chain.insert(id);
        chain.push(c);
    }
    // A chain without a merge that ends at the base is the whole range, in history order: every
    // ancestor of its commits is on it or an ancestor of the base. Else the walk finds the rest.
    let commits = if next == Some(base) && chain.iter().all(|c| c.parents.len() == 1) {
        chain
    } else {
        let mut ahead: HashMap<gix::ObjectId, RangeCommit> =
            chain.into_iter().map(|c| (c.id, c)).collect();
        walker.commits(head, base, range, |id| match ahead.remove(&id) {
            Some(c) => Ok(c),
            None => {
                let c = walker.decode(id)?;
                dispatch.offer(&c);
                Ok(c)
            }
        })?
    };
    // First parents outside the range: the boundary, read once each (for commits of the range).
    let in_range: HashSet<gix::ObjectId> = commits.iter().map(|c| c.id).collect();
    for (parent, children) in std::mem::take(&mut dispatch.waiting) {
        let children: Vec<_> = children
            .into_iter()
            .filter(|(child, _)| in_range.contains(child))
            .collect();
        if children.is_empty() {
            continue;
        }
        let parent_tree = tree_of(repo, parent)?;
        for (child, tree) in children {
            dispatch.chunk.push((child, Some(parent_tree), tree));
            dispatch.send(true);
        }
    }
    dispatch.send(false);
    Ok(Walked {
        commits,
        cached: dispatch.cached,
    })
}

/// A worker's own handle on the repository.
fn worker_repo(repo: &gix::Repository) -> gix::Repository {
    let mut repo = repo.clone();
    // No object cache: a commit's parent tree is the previous commit's, already decoded through
    // the pack cache; copies into an object cache only cost memory.
    repo.object_cache_size(None);
    // Delta bases by memory, not a 64-entry list: a file's versions form long delta chains, and
    // neighbouring commits decode the same bases.
    repo.objects.set_pack_cache(|| {
        Box::new(gix::odb::pack::cache::lru::MemoryCappedHashmap::new(
            24 * 1024 * 1024,
        ))
    });
    repo
}

/// Diff the trees of the chunks of the queue until it closes.
fn diff_jobs(
    repo: &gix::Repository,
    queue: &Mutex<mpsc::Receiver<Vec<Job>>>,
) -> Result<Vec<(gix::ObjectId, Vec<FileChange>)>> {
    let mut state = gix::diff::tree::State::default();
    let mut done = Vec::new();
    loop {
        // The lock is held only to take a chunk; a poisoned lock means a worker panicked while
        // taking one, and the queue is still sound.
        let next = queue
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .recv();
        let Ok(chunk) = next else {
            return Ok(done);
        };
        // In the order the pack stores the trees' deltas: each tree then builds on the one just
        // read, which the pack cache holds, not on a chain of versions not read yet.
        let chunk: Vec<Job> = if newest_first(repo, &chunk) {
            chunk
        } else {
            chunk.into_iter().rev().collect()
        };
        for (w, parent, tree) in chunk {
            done.push((w, diff_trees(repo, parent, tree, &mut state)?));
        }
    }
}

/// Neighbouring commits whose trees' delta chains are compared to choose the order of a run.
const SAMPLED_PAIRS: usize = 8;

/// Whether a run of commits (newest first) is best diffed newest first: when the pack's delta
/// chains run from newer trees to older ones, as `git gc`, `git repack` and a clone mostly store
/// a long history (the newest version whole, each older one a delta on it). `git fast-import`
/// stores them the other way (each version a delta on the one before), as `git repack` does on
/// some short histories, and then the oldest go first: the order against the chains inflates a
/// tree's whole chain each time (2.1-2.4x the instructions on 10,000 commits). Judged by the
/// chains' lengths at a few neighbouring commits, not by who wrote the pack.
fn newest_first(repo: &gix::Repository, chunk: &[Job]) -> bool {
    let (mut newer_shorter, mut older_shorter) = (0, 0);
    for pair in chunk
        .iter()
        .take(SAMPLED_PAIRS + 1)
        .collect::<Vec<_>>()
        .windows(2)
    {
        match chain_lengths(repo, pair[0].2, pair[1].2) {
            Some((newer, older)) if newer < older => newer_shorter += 1,
            Some((newer, older)) if newer > older => older_shorter += 1,
            _ => {}
        }
    }
    newer_shorter > older_shorter
}

/// The delta chain lengths of two versions of a tree: the root trees', or when those are equal
/// (a small root is often stored whole), the first subtree the two versions differ in.
fn chain_lengths(
    repo: &gix::Repository,
    newer: gix::ObjectId,
    older: gix::ObjectId,
) -> Option<(u32, u32)> {
    let deltas = |id: gix::ObjectId| repo.find_header(id).ok()?.num_deltas();
    let roots = (deltas(newer)?, deltas(older)?);
    if roots.0 != roots.1 {
        return Some(roots);
    }
    let (newer, older) = (repo.find_tree(newer).ok()?, repo.find_tree(older).ok()?);
    let older = older.decode().ok()?;
    let subtree = newer.decode().ok()?.entries.iter().find_map(|entry| {
        let other = older
            .entries
            .iter()
            .find(|o| o.filename == entry.filename)?;
        (entry.mode.is_tree() && other.mode.is_tree() && entry.oid != other.oid)
            .then(|| (entry.oid.to_owned(), other.oid.to_owned()))
    })?;
    Some((deltas(subtree.0)?, deltas(subtree.1)?))
}
