//! The index's paths as the worktree walk looks them up: in name order, by binary search.

use std::ops::Range;

use gix::bstr::ByteSlice;

/// The index's paths in name order, to find what is tracked in and below a directory by binary
/// search (git writes its entries sorted; an index written otherwise is sorted here).
pub(super) struct Tracked<'a> {
    state: &'a gix::index::State,
    order: Option<Vec<u32>>,
}

impl<'a> Tracked<'a> {
    pub(super) fn new(state: &'a gix::index::State) -> Tracked<'a> {
        let e = state.entries();
        let sorted = e.windows(2).all(|w| w[0].path(state) <= w[1].path(state));
        let order = (!sorted).then(|| {
            let mut o: Vec<u32> = (0..e.len() as u32).collect();
            o.sort_by(|a, b| e[*a as usize].path(state).cmp(e[*b as usize].path(state)));
            o
        });
        Tracked { state, order }
    }

    pub(super) fn all(&self) -> Range<usize> {
        0..self.state.entries().len()
    }

    pub(super) fn path(&self, i: usize) -> &'a [u8] {
        let j = self.order.as_ref().map_or(i, |o| o[i] as usize);
        self.state.entries()[j].path(self.state).as_bytes()
    }

    /// How many paths at the start of `r` satisfy `pred` (which holds for a prefix of it).
    fn partition(&self, r: Range<usize>, pred: impl Fn(&[u8]) -> bool) -> usize {
        let (mut lo, mut hi) = (r.start, r.end);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if pred(self.path(mid)) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo - r.start
    }

    /// The positions in `within` of the paths below `prefix` (a directory and its `/`).
    pub(super) fn under(&self, within: Range<usize>, prefix: &[u8]) -> Range<usize> {
        let lo = within.start + self.partition(within.clone(), |p| p < prefix);
        let hi = lo + self.partition(lo..within.end, |p| p.starts_with(prefix));
        lo..hi
    }

    pub(super) fn contains(&self, within: Range<usize>, path: &[u8]) -> bool {
        let lo = within.start + self.partition(within.clone(), |p| p < path);
        lo < within.end && self.path(lo) == path
    }
}
