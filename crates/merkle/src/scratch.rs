//! Buffers kept between batches in the per-thread pool (see `update`): [`reusable`], which
//! decides whether a buffer is kept, and [`StoreScratch`], the index vectors that storing a
//! batch's new nodes works in, so a run of commits does not allocate them afresh each time.

use std::ops::Range;

/// What `write::store_nodes` sorts and groups a batch's additions with. Each vector is cleared
/// and refilled per batch; between batches they are kept in the per-thread pool (see `update`),
/// so a run of single-key commits allocates none of them, and a large batch does not map and
/// fault in fresh pages for each.
#[derive(Default)]
pub(crate) struct StoreScratch {
    /// Hash prefix with the addition's index in its low bits, sorted: the additions in key
    /// order.
    pub keyed: Vec<u64>,
    /// Scratch space sorting `keyed` (see `prefix_sort`).
    pub sort_tmp: Vec<u64>,
    /// Bucket counts sorting `keyed` (see `prefix_sort`).
    pub sort_counts: Vec<u32>,
    /// Per addition, its group (additions with the same hash).
    pub group_of: Vec<u32>,
    /// Per group, how many additions it has.
    pub group_len: Vec<u64>,
    /// Per group, its first addition in key order (whose hash is the group's).
    pub group_first: Vec<u32>,
    /// Per arena node, the addition made at it (`u32::MAX` for none).
    pub addition_of: Vec<u32>,
    /// Per group: decided absent (`Some(true)`) or present (`Some(false)`).
    pub decided: Vec<Option<bool>>,
    /// Per group: known absent because a child of it is.
    pub forced: Vec<bool>,
    /// Per group: what the store answered, present (`Some(true)`) or absent.
    pub answered: Vec<Option<bool>>,
    /// The groups asked in a round of existence checks.
    pub ask: Vec<u32>,
    /// The additions to store, one per absent group, in key order, each with its encoding's
    /// range: read here, in the loop that finds them, the ranges are not read again one
    /// cache miss at a time while the store copies the nodes.
    pub puts: Vec<(u32, Range<usize>)>,
}

/// Buffers larger than this are dropped rather than kept in the pool, so that one huge batch
/// does not hold its memory for the life of the thread.
const POOL_MAX_BYTES: usize = 4 << 20;

/// Empties `v`, or drops it if it is too large to keep.
pub(crate) fn reusable<T>(mut v: Vec<T>) -> Vec<T> {
    if v.capacity().saturating_mul(std::mem::size_of::<T>()) > POOL_MAX_BYTES {
        return Vec::new();
    }
    v.clear();
    v
}

impl StoreScratch {
    /// The same vectors emptied, or dropped where one huge batch made them too large to keep.
    pub(crate) fn reusable(self) -> StoreScratch {
        StoreScratch {
            keyed: reusable(self.keyed),
            sort_tmp: reusable(self.sort_tmp),
            sort_counts: reusable(self.sort_counts),
            group_of: reusable(self.group_of),
            group_len: reusable(self.group_len),
            group_first: reusable(self.group_first),
            addition_of: reusable(self.addition_of),
            decided: reusable(self.decided),
            forced: reusable(self.forced),
            answered: reusable(self.answered),
            ask: reusable(self.ask),
            puts: reusable(self.puts),
        }
    }
}
