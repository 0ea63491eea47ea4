//! A batch's arena cut into subtrees that can be finished side by side.
//!
//! A batch applies its changes in address order ([`AddressOrder`]), so its arena holds the
//! opened nodes in preorder: every node's subtree is the run of arena indices that starts at
//! the node. [`Subtrees::cut`] checks that (it is never assumed), cuts the tree at the
//! shallowest depth holding at least [`CUTS_MIN`] nodes, and groups adjacent cut subtrees into
//! tasks. A task's nodes need nothing from outside its range, so `update` finishes each task on
//! its own thread, then the nodes above the cut (the "tops") on the calling thread, merging
//! the tasks' output in so that the outcome is the one a reverse sweep of the whole arena
//! gives. One fork and one join per batch: finishing a level at a time on every thread, as
//! this crate did before, paid a hand-over per level (35 for 70-digit addresses), which a
//! 1,000-key commit's levels of ~1,000 nodes could not repay, and waited at each level for its
//! slowest chunk.

use std::ops::Range;

use crate::scratch::reusable;
use crate::StateChange;

/// The fewest nodes at the cut's depth: fewer subtrees than this share out too unevenly.
const CUTS_MIN: usize = 16;

/// The fewest nodes in a task: a smaller one costs more to hand over than it saves.
const TASK_MIN_NODES: usize = 512;

/// The order a batch applies its changes in: by address, changes to one address in the batch's
/// order (so that the later one still wins). Kept in the per-thread pool between batches.
#[derive(Default)]
pub(crate) struct AddressOrder {
    /// Each change's first eight address bytes (big-endian, zero-padded) and its index.
    keyed: Vec<(u64, u32)>,
}

impl AddressOrder {
    /// Sorts the indices of `changes` by address, ties (one address changed twice) by index.
    pub(crate) fn sort(&mut self, changes: &[StateChange]) -> impl Iterator<Item = usize> + '_ {
        let address = |i: u32| match changes.get(i as usize) {
            Some(StateChange::Set { address, .. } | StateChange::Delete { address }) => {
                address.as_bytes()
            }
            None => &[],
        };
        self.keyed.clear();
        self.keyed
            .extend((0..changes.len() as u32).map(|i| (first_bytes(address(i)), i)));
        if self.keyed.len() > 1 {
            self.keyed.sort_unstable_by(|a, b| {
                a.0.cmp(&b.0)
                    .then_with(|| address(a.1).cmp(address(b.1)))
                    .then(a.1.cmp(&b.1))
            });
        }
        self.keyed.iter().map(|&(_, i)| i as usize)
    }

    /// The same vector emptied, or dropped where one huge batch made it too large to keep.
    pub(crate) fn reusable(self) -> AddressOrder {
        AddressOrder {
            keyed: reusable(self.keyed),
        }
    }
}

/// The first eight bytes of `address` as a big-endian number, zero-padded: numbers compare as
/// the addresses' first eight bytes do, a shorter address first.
fn first_bytes(address: &[u8]) -> u64 {
    let mut bytes = [0u8; 8];
    let n = address.len().min(8);
    bytes[..n].copy_from_slice(&address[..n]);
    u64::from_be_bytes(bytes)
}

/// A batch's arena cut into tasks (runs of whole subtrees) and tops (the nodes above them).
/// Kept in the per-thread pool between batches.
#[derive(Default)]
pub(crate) struct Subtrees {
    /// Each node's depth.
    depth: Vec<u32>,
    /// How many nodes each depth holds.
    widths: Vec<usize>,
    /// The path from the root to the node last seen, while reading the arena.
    path: Vec<u32>,
    tasks: Vec<Range<usize>>,
    tops: Vec<usize>,
}

impl Subtrees {
    /// Cuts the arena whose node `i` has parent `parents[i]` (node 0 is the root; its entry is
    /// ignored) into tasks of about `task_nodes` nodes (at least [`TASK_MIN_NODES`]). `false`,
    /// leaving no task, when the arena is not in preorder (each node's parent on the path from
    /// the root to the node before it), no depth holds [`CUTS_MIN`] nodes, or fewer than two
    /// tasks come of it: the caller then finishes the batch in one sweep.
    pub(crate) fn cut(&mut self, parents: impl Iterator<Item = u32>, task_nodes: usize) -> bool {
        self.tasks.clear();
        self.tops.clear();
        if !self.read(parents) {
            return false;
        }
        let Some(cut_depth) = (1..self.widths.len()).find(|&d| self.widths[d] >= CUTS_MIN) else {
            return false;
        };
        let task_nodes = task_nodes.max(TASK_MIN_NODES);
        let n = self.depth.len();
        // The open task's first node.
        let mut open: Option<usize> = None;
        for (i, &depth) in self.depth.iter().enumerate().skip(1) {
            let depth = depth as usize;
            if depth < cut_depth {
                self.tasks.extend(open.take().map(|start| start..i));
                self.tops.push(i);
            } else if depth == cut_depth {
                match open {
                    Some(start) if i - start < task_nodes => {}
                    Some(start) => {
                        self.tasks.push(start..i);
                        open = Some(i);
                    }
                    None => open = Some(i),
                }
            }
        }
        self.tasks.extend(open.map(|start| start..n));
        if self.tasks.len() < 2 {
            self.tasks.clear();
            self.tops.clear();
            return false;
        }
        true
    }

    /// Reads each node's depth and the nodes per depth, checking the preorder on the way: each
    /// node's parent must lie on the path from the root to the node before it (a node's
    /// subtree is then the run of indices that starts at it). `false` where it does not.
    fn read(&mut self, parents: impl Iterator<Item = u32>) -> bool {
        self.depth.clear();
        self.widths.clear();
        self.path.clear();
        for (i, parent) in parents.enumerate() {
            let Ok(node) = u32::try_from(i) else {
                return false;
            };
            if i > 0 {
                // Up the path to the parent; every node leaves the path once, so this is
                // linear in all.
                while self.path.last().is_some_and(|&top| top != parent) {
                    self.path.pop();
                }
                if self.path.is_empty() {
                    return false;
                }
            }
            let depth = self.path.len();
            self.path.push(node);
            self.depth.push(depth as u32);
            if self.widths.len() <= depth {
                self.widths.resize(depth + 1, 0);
            }
            self.widths[depth] += 1;
        }
        true
    }

    /// The tasks, ascending: runs of adjacent whole subtrees, each at the cut's depth.
    pub(crate) fn tasks(&self) -> &[Range<usize>] {
        &self.tasks
    }

    /// The nodes above the cut, the root's children and deeper, ascending (the root is not
    /// listed).
    pub(crate) fn tops(&self) -> &[usize] {
        &self.tops
    }

    /// The same vectors emptied, or dropped where one huge batch made them too large to keep.
    pub(crate) fn reusable(self) -> Subtrees {
        Subtrees {
            depth: reusable(self.depth),
            widths: reusable(self.widths),
            path: reusable(self.path),
            tasks: reusable(self.tasks),
            tops: reusable(self.tops),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(address: &str) -> StateChange {
        StateChange::Set {
            address: address.to_string(),
            value: Vec::new(),
        }
    }

    #[test]
    fn changes_sort_by_address_and_one_address_keeps_its_order() {
        let changes = [
            set("ab0000000001"),
            set("0f"),
            set("ab00000000"),
            StateChange::Delete {
                address: "0f".to_string(),
            },
            set("ab0000000000"),
            set(""),
        ];
        let mut order = AddressOrder::default();
        let sorted: Vec<usize> = order.sort(&changes).collect();
        assert_eq!(sorted, [5, 1, 3, 2, 4, 0]);
    }

    /// The parents of `fan` chains of `len` nodes hung from node `top`, in preorder, the first
    /// chain's top at index `first`.
    fn chains_under(top: u32, first: u32, fan: u32, len: u32) -> impl Iterator<Item = u32> {
        (0..fan * len).map(move |i| if i % len == 0 { top } else { first + i - 1 })
    }

    /// A root with `fan` children, each the top of a chain of `len` nodes, in preorder.
    fn chains(fan: u32, len: u32) -> Vec<u32> {
        std::iter::once(0)
            .chain(chains_under(0, 1, fan, len))
            .collect()
    }

    fn cut(subtrees: &mut Subtrees, parents: &[u32], task_nodes: usize) -> bool {
        subtrees.cut(parents.iter().copied(), task_nodes)
    }

    #[test]
    fn subtrees_at_the_first_depth_wide_enough_are_grouped_into_tasks() {
        // 0 -> 1 -> (32 chains of 40): the cut is at depth 2, under the one top.
        let parents: Vec<u32> = [0, 0]
            .into_iter()
            .chain(chains_under(1, 2, 32, 40))
            .collect();
        let mut subtrees = Subtrees::default();
        assert!(cut(&mut subtrees, &parents, 600));
        assert_eq!(subtrees.tops(), &[1]);
        // 40-node subtrees, 15 to a task of 600.
        assert_eq!(subtrees.tasks(), &[2..602, 602..1202, 1202..1282]);
    }

    #[test]
    fn a_narrow_or_unordered_arena_is_not_cut() {
        let mut subtrees = Subtrees::default();
        assert!(!cut(&mut subtrees, &chains(15, 100), 512), "15 subtrees");
        assert!(cut(&mut subtrees, &chains(16, 100), 512));
        assert!(!cut(&mut subtrees, &chains(16, 10), 512), "one task");
        // The same chains level by level: a subtree is not a run of indices.
        let level_order: Vec<u32> = std::iter::once(0)
            .chain((0..1600u32).map(|i| i.saturating_sub(15)))
            .collect();
        assert!(!cut(&mut subtrees, &level_order, 512));
        assert!(subtrees.tasks().is_empty() && subtrees.tops().is_empty());
    }

    #[test]
    fn depths_are_read_in_preorder_only() {
        let mut subtrees = Subtrees::default();
        // 1 under 0, 2 under 1, 3 under 2, then 4 under 1 and 5 under 4.
        assert!(subtrees.read([0, 0, 1, 2, 1, 4].into_iter()));
        assert_eq!(subtrees.depth, [0, 1, 2, 3, 2, 3]);
        assert_eq!(subtrees.widths, [1, 1, 2, 2]);
        // 5 under 3: 3 left the path when 4 came.
        assert!(!subtrees.read([0, 0, 1, 2, 1, 3].into_iter()));
        // A parent after its child.
        assert!(!subtrees.read([0, 2, 0].into_iter()));
    }
}
