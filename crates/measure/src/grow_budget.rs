//! What a bounded growth run (`triebench grow --memory`) holds in its own memory, per profile,
//! and the fill batch that fits the bound: the run is sized to `--memory` before it starts, or
//! refused with one line naming what it needs, rather than killed by the kernel halfway.
//!
//! The process's own memory is what the page cache cannot give back: its baseline (code and
//! heap once the store is open), each backend's node cache, the state a backend keeps in the
//! process (btree; a managed redis-server holds it in its own, which is charged to the same
//! cgroup), a few bytes per leaf of the run's own bookkeeping, and, above all, one fill batch
//! in flight: the trie's arena, encodings and hashes of the batch and the store's dirty pages
//! (LMDB keeps a write transaction's pages in heap memory until it commits, then writes them
//! to the page cache, where they stay dirty until the commit's sync). The figures below were
//! measured with `grow` on the VM (release build, `docs/findings/grow.md`, section "A memory
//! bound"): peak anonymous memory of the cgroup over the fill, divided by the batch's leaves.
//! Each per-batch-leaf figure then gained `SUBTREE_PARTS_PER_LEAF`: since a batch's subtrees
//! are hashed side by side, their output is held twice while it is merged.

use triebench_kv::Profile;

/// Fill batches smaller than this are refused rather than run: the 100-key commits timed at
/// each checkpoint hold as much, and a smaller batch makes the fill a crawl.
pub const MIN_FILL_BATCH: u64 = 100;

/// The page cache a bounded run leaves at least to the store's files: the reads of one commit's
/// paths (35 levels of nodes per key) stay mostly in memory.
pub const MIN_PAGE_CACHE: u64 = 16 << 20;

/// The least baseline a bounded run assumes for itself: ~11 MiB of heap once a store is open
/// (measured on lmdb, btree and sqlite-wal) and the pages of its own code, charged to the
/// cgroup as page cache.
pub const MIN_BASELINE: u64 = 24 << 20;

/// The process's own memory a profile needs, by what it grows with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Footprint {
    /// Bytes held per leaf of a fill batch in flight (trie outcome and the store's dirty
    /// pages), released when the batch is committed.
    pub per_batch_leaf: u64,
    /// Bytes held per leaf of the state for the whole run (an in-memory store, the run's own
    /// bookkeeping).
    pub per_state_leaf: u64,
    /// Fixed bytes beside the baseline: a node cache's budget, a managed server's buffers.
    pub fixed: u64,
    /// What the figures rest on, as the refusal and the docs say it.
    pub basis: &'static str,
}

/// What a batch's subtrees hashed side by side add per batch leaf: the parts' copy of the
/// trie's output (~30 encodings, additions and hashes per leaf) while a wave of them is merged,
/// and the parts kept for the next batch (`merkle`'s `update`). Measured as peak RSS of
/// unbounded `grow` runs to 12,000 leaves, release builds before and after: +2.3-2.8 MiB at
/// 300-leaf batches, +7.5-8.7 MiB at 1,200 (btree, sqlite-wal), +9.5-11 MiB at 5,000; a wave
/// bounds it for larger batches (+20 MiB at 50,000).
const SUBTREE_PARTS_PER_LEAF: u64 = 8 << 10;

/// The run's own bookkeeping per leaf: a value length (4 bytes) and, at each checkpoint, the
/// what-if's copy of every address (35 bytes in a 24-byte vector, allocated) and its length.
const BOOKKEEPING_PER_LEAF: u64 = 96;

/// A fill batch leaf in flight on LMDB: the trie's ~30 new nodes, their hashes and arena
/// entries (~10 KiB), and above all the B-tree pages their random keys dirty (32 bytes; 64 when
/// measured, with hex keys), ~30 pages of 4 KiB held in the heap until the commit (`lmdb`;
/// `lmdb-async` dirties them in its map), up to the size of the whole store. Measured: peak anonymous memory 29, 47 and 74 MiB
/// for fill batches of 150, 300 and 600 leaves to 12,000 leaves, ~120 KiB per batch leaf.
const BATCH_LEAF_LMDB: u64 = (128 << 10) + SUBTREE_PARTS_PER_LEAF;

/// A fill batch leaf in flight on a store that writes through a page cache of its own or a
/// server (sqlite, postgres, redis): the trie's outcome and the statements' buffers. Measured
/// on `sqlite-wal`: 10 and 26 MiB for batches of 300 and 1,200 leaves, ~18 KiB per leaf.
const BATCH_LEAF_OTHER: u64 = (24 << 10) + SUBTREE_PARTS_PER_LEAF;

/// A fill batch leaf in flight on btree: the trie's outcome (the nodes then move into the
/// maps, counted per state leaf). Measured: 118 and 125 MiB for batches of 300 and 1,200
/// leaves to 12,000 leaves, ~8 KiB per leaf.
const BATCH_LEAF_BTREE: u64 = (12 << 10) + SUBTREE_PARTS_PER_LEAF;

/// A leaf of state held in memory by btree (nodes and keys in B-tree maps) or redis. Measured
/// on btree: 118 and 225 MiB at 12,000 and 24,000 leaves, ~9.1 KiB per leaf.
const STATE_LEAF_IN_MEMORY: u64 = 9 << 10;

/// The profile's footprint.
pub fn footprint(profile: Profile) -> Footprint {
    match profile {
        Profile::Lmdb | Profile::LmdbAsync => Footprint {
            per_batch_leaf: BATCH_LEAF_LMDB,
            per_state_leaf: BOOKKEEPING_PER_LEAF,
            fixed: 0,
            basis: "measured on lmdb",
        },
        Profile::Btree => Footprint {
            per_batch_leaf: BATCH_LEAF_BTREE,
            per_state_leaf: STATE_LEAF_IN_MEMORY + BOOKKEEPING_PER_LEAF,
            fixed: 0,
            basis: "measured on btree",
        },
        p if p.name().starts_with("redis") => Footprint {
            per_batch_leaf: BATCH_LEAF_OTHER,
            per_state_leaf: STATE_LEAF_IN_MEMORY + BOOKKEEPING_PER_LEAF,
            // The client's node cache (redis::cache::DEFAULT_BUDGET), filled as the state grows.
            fixed: if p.name().contains("uncached") {
                0
            } else {
                512 << 20
            },
            basis: "assumed as btree's state in the server plus the client's 512 MiB node cache",
        },
        p if p.name().starts_with("postgres") => Footprint {
            per_batch_leaf: BATCH_LEAF_OTHER,
            per_state_leaf: BOOKKEEPING_PER_LEAF,
            // The node cache (content_cache::DEFAULT_BUDGET) and the server's shared buffers.
            fixed: if p.name().contains("uncached") {
                128 << 20
            } else {
                (256 << 20) + (128 << 20)
            },
            basis: "the client's 256 MiB node cache and the server's 128 MiB shared buffers",
        },
        _ => Footprint {
            per_batch_leaf: BATCH_LEAF_OTHER,
            per_state_leaf: BOOKKEEPING_PER_LEAF,
            // SQLite's page cache of 4 MiB per connection (sqlite::connect's cache_size).
            fixed: 8 << 20,
            basis: "measured on sqlite-wal",
        },
    }
}

/// How a bounded run is sized.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Budget {
    /// Leaves per fill commit: the one asked for, or fewer to fit.
    pub fill_batch: u64,
    /// Bytes the run holds besides its fill batch at the last checkpoint (baseline, fixed,
    /// state).
    pub held: u64,
    /// Bytes a fill batch of `fill_batch` leaves holds in flight.
    pub batch_bytes: u64,
    /// Bytes left to the page cache at the largest state, at least [`MIN_PAGE_CACHE`].
    pub page_cache: u64,
    /// The profile's footprint the sizing used.
    pub footprint: Footprint,
}

/// Why a bound is too small: the one line a refusal prints.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "--memory {limit_mib} MiB is below what this run needs: ~{baseline_mib} MiB for the process \
     as it starts, ~{fixed_mib} MiB of caches and buffers, ~{state_mib} MiB for {max_leaves} \
     leaves held in memory, ~{batch_mib} MiB for a fill batch of {MIN_FILL_BATCH} leaves and \
     {cache_mib} MiB of page cache ({basis}); give at least {need_mib}M"
)]
pub struct TooSmall {
    /// The bound, MiB.
    pub limit_mib: u64,
    /// The process's baseline, MiB.
    pub baseline_mib: u64,
    /// Caches and buffers, MiB.
    pub fixed_mib: u64,
    /// State held in memory, MiB.
    pub state_mib: u64,
    /// Leaves at the last checkpoint.
    pub max_leaves: u64,
    /// The smallest fill batch in flight, MiB.
    pub batch_mib: u64,
    /// The least page cache, MiB.
    pub cache_mib: u64,
    /// What the figures rest on.
    pub basis: &'static str,
    /// The least bound that fits, MiB.
    pub need_mib: u64,
}

fn mib_up(bytes: u64) -> u64 {
    bytes.div_ceil(1 << 20)
}

/// Sizes a run of `profile` to `max_leaves` in `limit` bytes for a process whose memory is
/// `baseline` bytes before the fill: the fill batch is `fill_batch`, or as many leaves as fit
/// in half of what the held memory and the least page cache leave (the other half goes to the
/// page cache), or the run is refused.
pub fn fit(
    profile: Profile,
    limit: u64,
    baseline: u64,
    max_leaves: u64,
    fill_batch: u64,
) -> Result<Budget, TooSmall> {
    let f = footprint(profile);
    let state = max_leaves.saturating_mul(f.per_state_leaf);
    let held = baseline.saturating_add(f.fixed).saturating_add(state);
    let least_batch = MIN_FILL_BATCH.min(fill_batch.max(1)) * f.per_batch_leaf;
    let need = held
        .saturating_add(least_batch)
        .saturating_add(MIN_PAGE_CACHE);
    if limit < need {
        return Err(TooSmall {
            limit_mib: limit >> 20,
            baseline_mib: mib_up(baseline),
            fixed_mib: mib_up(f.fixed),
            state_mib: mib_up(state),
            max_leaves,
            batch_mib: mib_up(least_batch),
            cache_mib: MIN_PAGE_CACHE >> 20,
            basis: f.basis,
            need_mib: mib_up(need),
        });
    }
    let spare = limit - held - MIN_PAGE_CACHE;
    let fits = (spare / 2 / f.per_batch_leaf).max(MIN_FILL_BATCH);
    let batch = fill_batch.min(fits).max(1);
    let batch_bytes = batch * f.per_batch_leaf;
    Ok(Budget {
        fill_batch: batch,
        held,
        batch_bytes,
        page_cache: limit - held - batch_bytes,
        footprint: f,
    })
}

/// This process's resident memory now, bytes; 0 where it cannot be read.
pub fn own_rss() -> u64 {
    triebench_record::proc_stats::rss_bytes(&[std::process::id()])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_roomy_bound_keeps_the_batch_and_a_tight_one_shrinks_it() {
        let roomy = fit(Profile::Lmdb, 4 << 30, 20 << 20, 20_000, 1000).unwrap();
        assert_eq!(roomy.fill_batch, 1000);
        let tight = fit(Profile::Lmdb, 128 << 20, 20 << 20, 20_000, 50_000).unwrap();
        assert!(tight.fill_batch < 50_000 && tight.fill_batch >= MIN_FILL_BATCH);
        assert!(tight.held + tight.batch_bytes + MIN_PAGE_CACHE <= 128 << 20);
        assert!(tight.page_cache >= MIN_PAGE_CACHE);
    }

    #[test]
    fn a_bound_below_the_need_is_refused_with_the_least_that_fits() {
        let e = fit(Profile::Lmdb, 16 << 20, 20 << 20, 20_000, 50_000).unwrap_err();
        let line = e.to_string();
        assert!(line.starts_with("--memory 16 MiB is below"), "{line}");
        assert!(!line.contains('\n'));
        let need = e.need_mib << 20;
        assert!(fit(Profile::Lmdb, need, 20 << 20, 20_000, 50_000).is_ok());
        assert!(fit(Profile::Lmdb, need - (1 << 20), 20 << 20, 20_000, 50_000).is_err());
    }

    #[test]
    fn state_held_in_memory_counts_per_leaf() {
        let small = fit(Profile::Btree, 256 << 20, 20 << 20, 1000, 1000);
        let large = fit(Profile::Btree, 256 << 20, 20 << 20, 1_000_000, 1000);
        assert!(small.is_ok());
        assert!(large.unwrap_err().state_mib > 8000);
    }
}
