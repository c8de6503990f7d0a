//! The range's commits walked and diffed at once: the walk hands each commit's tree diff to
//! workers on every core as soon as its first parent's tree is known, so the diffs do not wait
//! for the walk to end; then the lines of the changed files are counted path by path
//! (`blobs.rs`) and each commit's facts assembled.

use std::collections::HashMap;
use std::sync::{Mutex, mpsc};

use crate::error::{Error, Result};

use super::cache::FactsCache;
use super::diff::{CommitFacts, FileChange, assemble, diff_trees, tree_of};
use super::walk::{RangeCommit, commits};

/// Commits handed to a worker at a time: neighbours share trees, so a worker's object cache
/// serves the parent of the commit it just read.
const CHUNK: usize = 256;

/// One diff to compute: the commit's index in the walk, its first parent's tree (`None` for a
/// root commit) and its own tree.
type Job = (usize, Option<gix::ObjectId>, gix::ObjectId);

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
    let (jobs, queue) = mpsc::channel::<Vec<Job>>();
    let queue = Mutex::new(queue);
    let (walked, computed) = std::thread::scope(|scope| {
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
            h.join().unwrap_or_else(|_| {
                Err(Error::Other(
                    "a worker diffing commits stopped unexpectedly".into(),
                ))
            })
        }));
        (walked, computed)
    });
    let Walked {
        commits,
        order,
        mut by_walk,
    } = walked?;
    // History index by walk index.
    let mut at = vec![0; order.len()];
    for (h, &w) in order.iter().enumerate() {
        at[w] = h;
    }
    // The files each new commit changed, in history order; then their lines, path by path.
    let mut changed: Vec<Option<Vec<FileChange>>> = (0..order.len()).map(|_| None).collect();
    for batch in computed {
        for (w, files) in batch? {
            changed[at[w]] = Some(files);
        }
    }
    let lines =
        super::blobs::lines_of(&changed, (0..workers).map(|_| worker_repo(repo)).collect())?;
    let mut fresh = Vec::new();
    for (h, (files, lines)) in changed.into_iter().zip(lines).enumerate() {
        if let Some(files) = files {
            fresh.push(h);
            by_walk[order[h]] = Some(assemble(files, lines));
        }
    }
    let per_commit = order.iter().map(|&w| by_walk[w].take()).collect();
    Ok(Diffed {
        commits,
        per_commit,
        fresh,
    })
}

/// What the walk found: the commits in history order, the walk index of each, and the diffs
/// the cache already had, by walk index.
struct Walked {
    commits: Vec<RangeCommit>,
    order: Vec<usize>,
    by_walk: Vec<Option<CommitFacts>>,
}

/// Walk the range, sending each non-merge commit the cache does not know to the workers once
/// its first parent's tree is known: at once for a root commit or a parent already walked,
/// when the parent is walked (usually next), or after the walk for a parent outside the range.
fn feed(
    repo: &gix::Repository,
    head: gix::ObjectId,
    base: gix::ObjectId,
    range: &str,
    cache: &mut FactsCache,
    jobs: mpsc::Sender<Vec<Job>>,
) -> Result<Walked> {
    let mut trees: HashMap<gix::ObjectId, gix::ObjectId> = HashMap::new();
    // Children waiting for their first parent to be walked: `(walk index, own tree)`.
    let mut waiting: HashMap<gix::ObjectId, Vec<(usize, gix::ObjectId)>> = HashMap::new();
    let mut by_walk: Vec<Option<CommitFacts>> = Vec::new();
    let mut chunk: Vec<Job> = Vec::with_capacity(CHUNK);
    let send = |chunk: &mut Vec<Job>, full_only: bool| {
        if !chunk.is_empty() && (!full_only || chunk.len() >= CHUNK) {
            // The workers only stop early on an error, which the join reports.
            let _ = jobs.send(std::mem::replace(chunk, Vec::with_capacity(CHUNK)));
        }
    };
    let (commits, order) = commits(repo, head, base, range, |w, c| {
        trees.insert(c.id, c.tree);
        by_walk.push(None);
        if !c.merge() {
            if let Some(facts) = cache.get(&c.id) {
                by_walk[w] = Some(facts);
            } else {
                match c.parents.first() {
                    None => chunk.push((w, None, c.tree)),
                    Some(p) => match trees.get(p) {
                        Some(&parent_tree) => chunk.push((w, Some(parent_tree), c.tree)),
                        None => waiting.entry(*p).or_default().push((w, c.tree)),
                    },
                }
            }
        }
        for (child, tree) in waiting.remove(&c.id).unwrap_or_default() {
            chunk.push((child, Some(c.tree), tree));
        }
        send(&mut chunk, true);
        Ok(())
    })?;
    // First parents outside the range: the boundary, read once each.
    for (parent, children) in waiting {
        let parent_tree = tree_of(repo, parent)?;
        for (child, tree) in children {
            chunk.push((child, Some(parent_tree), tree));
            send(&mut chunk, true);
        }
    }
    send(&mut chunk, false);
    Ok(Walked {
        commits,
        order,
        by_walk,
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
) -> Result<Vec<(usize, Vec<FileChange>)>> {
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
        for (w, parent, tree) in chunk.into_iter().rev() {
            done.push((w, diff_trees(repo, parent, tree, &mut state)?));
        }
    }
}
