//! [`NomtOptions`]: how a [`NomtEngine`](super::NomtEngine) sizes NOMT, sized for benchmark
//! states rather than NOMT's production defaults.

use std::path::Path;

use crate::EngineError;

/// Bytes in one NOMT page, and so in one hash-table bucket (NOMT's `PAGE_SIZE`).
pub const NOMT_PAGE_BYTES: u64 = 4096;

/// NOMT's options as a [`NomtEngine`](super::NomtEngine) sets them.
///
/// NOMT keeps its Merkle pages (each holds six levels of its binary trie, 126 nodes) in a hash
/// table file, `ht`, of a fixed number of 4 KiB buckets chosen when the directory is created
/// and preallocated in full by default: [`buckets`](Self::buckets) sets the disk cost
/// ([`hash_table_bytes`](Self::hash_table_bytes)) whatever the state holds. NOMT's own default
/// is 64,000 buckets (250 MiB); a state of random keys uses about 0.15-0.3 buckets per leaf
/// (the top pages fill first: about 170 pages at 1,000 leaves, 270,000 at a million) and NOMT
/// fails a commit (`BucketExhaustion`) as the table approaches full, its speed dropping beyond
/// 90 % occupancy. [`for_leaves`](Self::for_leaves) sizes the table for a state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NomtOptions {
    /// Hash-table buckets (4 KiB pages) of a new directory; an existing directory keeps the
    /// count it was created with. Default 8,192: a 32 MiB `ht` file, room for about 25,000
    /// leaves of random keys.
    pub buckets: u32,
    /// Whether NOMT allocates the whole hash-table file when it creates it (its default, and
    /// what it does in production: no fragmentation later). `false` leaves it sparse: its
    /// apparent size is the same, its blocks on disk only the buckets written.
    pub preallocate: bool,
    /// The Merkle page cache's bound in MiB (NOMT's default 256), beside the permanently
    /// cached top two levels of pages (about 16 MiB at most).
    pub page_cache_mib: usize,
    /// The value b-tree's leaf cache bound in MiB (NOMT's default 256).
    pub leaf_cache_mib: usize,
    /// Threads that hash a commit's Merkle pages (NOMT's default 1; at most 64).
    pub commit_concurrency: usize,
    /// io_uring instances on Linux, I/O threads elsewhere (NOMT's default 3).
    pub io_workers: usize,
}

impl Default for NomtOptions {
    fn default() -> Self {
        NomtOptions {
            buckets: 8_192,
            preallocate: true,
            page_cache_mib: 64,
            leaf_cache_mib: 64,
            commit_concurrency: 1,
            io_workers: 3,
        }
    }
}

impl NomtOptions {
    /// The smallest hash table [`for_leaves`](Self::for_leaves) gives: 1,024 buckets (4 MiB).
    pub const MIN_BUCKETS: u32 = 1_024;

    /// The default options with a hash table for a state of up to `leaves` random keys at
    /// under half occupancy: one bucket per two leaves, at least
    /// [`MIN_BUCKETS`](Self::MIN_BUCKETS) (so 1,000 leaves take a 4 MiB table, a million
    /// 2 GiB).
    pub fn for_leaves(leaves: u64) -> Self {
        let buckets = (leaves / 2).clamp(u64::from(Self::MIN_BUCKETS), u64::from(u32::MAX));
        NomtOptions {
            buckets: u32::try_from(buckets).unwrap_or(u32::MAX),
            ..NomtOptions::default()
        }
    }

    /// The size of the `ht` file these options create: the buckets and NOMT's one byte of
    /// metadata per bucket, in whole pages.
    pub fn hash_table_bytes(&self) -> u64 {
        let buckets = u64::from(self.buckets);
        (buckets + buckets.div_ceil(NOMT_PAGE_BYTES)) * NOMT_PAGE_BYTES
    }

    /// NOMT's options for a database in `dir`, after checking what NOMT would assert on or
    /// divide by.
    pub(super) fn to_nomt(&self, dir: &Path) -> Result<nomt::Options, EngineError> {
        let invalid = |what: &str| EngineError::Library {
            engine: super::NAME,
            message: format!("invalid options: {what} must be at least 1"),
        };
        if self.buckets == 0 {
            return Err(invalid("buckets"));
        }
        if self.page_cache_mib == 0 {
            return Err(invalid("page_cache_mib"));
        }
        if self.leaf_cache_mib == 0 {
            return Err(invalid("leaf_cache_mib"));
        }
        if self.commit_concurrency == 0 {
            return Err(invalid("commit_concurrency"));
        }
        if self.io_workers == 0 {
            return Err(invalid("io_workers"));
        }
        let mut options = nomt::Options::new();
        options.path(dir);
        options.hashtable_buckets(self.buckets);
        options.preallocate_ht(self.preallocate);
        options.page_cache_size(self.page_cache_mib);
        options.leaf_cache_size(self.leaf_cache_mib);
        options.commit_concurrency(self.commit_concurrency);
        options.io_workers(self.io_workers);
        Ok(options)
    }
}
