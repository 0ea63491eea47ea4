//! A batch's opened nodes grouped by depth, so that they can be finished a level at a time.
//!
//! A node's encoding needs its children's hashes, and nothing else of the batch: the nodes of
//! one level are independent of each other once the level below is finished. Finishing the
//! deepest level first, then the next, lets each level's nodes be encoded and hashed side by
//! side (see `update`), in an order that does not depend on how many threads did it.

use crate::scratch::reusable;

/// The nodes of a batch's arena, by depth: `level(d)` lists, in ascending arena order, the
/// nodes `d` tokens below the root. Kept in the per-thread pool between batches.
#[derive(Default)]
pub(crate) struct Levels {
    /// Each node's depth.
    depth: Vec<u32>,
    /// How many nodes each depth holds.
    widths: Vec<usize>,
    /// Where each level starts in `order`, and where the last one ends.
    starts: Vec<usize>,
    /// Node indices, level by level.
    order: Vec<u32>,
}

impl Levels {
    /// Counts the arena's nodes per depth from each node's parent (`parents[i]`; node 0 is the
    /// root and its entry is ignored) and, if a level holds at least `wide` nodes, groups them
    /// by depth and returns `true`; `false` leaves no level (the caller then needs none), but
    /// [`depths`](Self::depths) and [`widths`](Self::widths) stay. `None`, leaving nothing, if
    /// a node's parent does not come before it (the arena opens every node after its parent).
    pub(crate) fn sort(
        &mut self,
        parents: impl ExactSizeIterator<Item = u32>,
        wide: usize,
    ) -> Option<bool> {
        self.depth.clear();
        self.depth.reserve(parents.len());
        let mut counts = std::mem::take(&mut self.widths);
        counts.clear();
        for (i, parent) in parents.enumerate() {
            let depth = if i == 0 {
                0
            } else {
                match self.depth.get(parent as usize) {
                    Some(&d) if (parent as usize) < i => d + 1,
                    _ => {
                        self.depth.clear();
                        self.order.clear();
                        self.starts.clear();
                        self.widths = counts;
                        self.widths.clear();
                        return None;
                    }
                }
            };
            self.depth.push(depth);
            let d = depth as usize;
            if counts.len() <= d {
                counts.resize(d + 1, 0);
            }
            counts[d] += 1;
        }
        self.widths = counts;
        self.starts.clear();
        self.order.clear();
        if self.widths.iter().all(|&count| count < wide) {
            return Some(false);
        }
        // Counts to starts, then each node placed at its level's next free slot.
        let mut next = Vec::with_capacity(self.widths.len());
        let mut at = 0;
        for &count in &self.widths {
            next.push(at);
            self.starts.push(at);
            at += count;
        }
        self.starts.push(at);
        self.order.clear();
        self.order.resize(at, 0);
        for (i, &depth) in self.depth.iter().enumerate() {
            let slot = &mut next[depth as usize];
            self.order[*slot] = i as u32;
            *slot += 1;
        }
        Some(true)
    }

    /// The same vectors emptied, or dropped where one huge batch made them too large to keep
    /// (see [`reusable`]).
    pub(crate) fn reusable(self) -> Levels {
        Levels {
            depth: reusable(self.depth),
            widths: reusable(self.widths),
            starts: reusable(self.starts),
            order: reusable(self.order),
        }
    }

    /// Each node's depth, from the last [`sort`](Self::sort) that did not fail.
    pub(crate) fn depths(&self) -> &[u32] {
        &self.depth
    }

    /// How many nodes each depth holds (the root's, 1, first), from the same sort.
    pub(crate) fn widths(&self) -> &[usize] {
        &self.widths
    }

    /// Levels, the root's included.
    pub(crate) fn count(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    /// The nodes at depth `depth`, in ascending arena order.
    pub(crate) fn level(&self, depth: usize) -> &[u32] {
        match (self.starts.get(depth), self.starts.get(depth + 1)) {
            (Some(&start), Some(&end)) => &self.order[start..end],
            _ => &[],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_are_grouped_by_depth_in_arena_order() {
        // 0 -> 1 -> 3, 0 -> 2 -> 4 -> 5, 1 -> 6
        let parents = [0, 0, 0, 1, 2, 4, 1];
        let mut levels = Levels::default();
        assert_eq!(
            levels.sort(parents.into_iter(), 4),
            Some(false),
            "no level of 4"
        );
        assert_eq!(levels.count(), 0);
        assert_eq!(levels.depths(), &[0, 1, 1, 2, 2, 3, 2]);
        assert_eq!(levels.widths(), &[1, 2, 3, 1]);
        assert_eq!(levels.sort(parents.into_iter(), 3), Some(true));
        assert_eq!(levels.count(), 4);
        assert_eq!(levels.level(0), &[0]);
        assert_eq!(levels.level(1), &[1, 2]);
        assert_eq!(levels.level(2), &[3, 4, 6]);
        assert_eq!(levels.level(3), &[5]);
        assert_eq!(levels.level(4), &[] as &[u32]);
        // Reused: the earlier batch leaves nothing behind.
        assert_eq!(levels.sort([0, 0].into_iter(), 1), Some(true));
        assert_eq!(levels.count(), 2);
        assert_eq!(levels.level(1), &[1]);
    }

    #[test]
    fn a_parent_after_its_child_is_refused() {
        let mut levels = Levels::default();
        assert_eq!(levels.sort([0, 2, 0].into_iter(), 1), None);
        assert_eq!(levels.count(), 0);
    }
}
