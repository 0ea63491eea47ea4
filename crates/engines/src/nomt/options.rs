//! [`NomtOptions`]: how a [`NomtEngine`](super::NomtEngine) sizes NOMT, sized for benchmark
//! states rather than NOMT's production defaults.

use std::path::Path;

use crate::EngineError;

/// Bytes in one NOMT page, and so in one hash-table bucket (NOMT's `PAGE_SIZE`).
pub const NOMT_PAGE_BYTES: u64 = 4096;

/// NOMT's options as a [`NomtEngine`](super::NomtEngine) sets them.
///
/// NOMT keeps its Merkle pages (each six levels of its binary trie, 126 nodes) in a hash table
/// file, `ht`, of a fixed number of 4 KiB buckets chosen when the directory is created and
/// preallocated in full by default: [`buckets`](Self::buckets) sets that file's disk cost
/// ([`hash_table_bytes`](Self::hash_table_bytes)) whatever the state holds. NOMT stores a page
/// only if more than about 20 leaves lie under it (it rebuilds the others from the values when
/// it needs them), beside the root page and its 64 children: 65 pages from about 1,000 to
/// about 30,000 random keys, 163 at 50,000, 4,161 from 200,000 to about 2 million, then the
/// next layer fills (about 120,000 at 5 million, 266,000 at 10 million;
/// [`expected_pages`](Self::expected_pages)). NOMT slows beyond 90 % occupancy and hangs if a
/// commit fills the table (the engine refuses commits from 90 %). NOMT's own default is 64,000
/// buckets (250 MiB); here 8,192 (32 MiB), under half full up to about 2 million random keys;
/// [`for_leaves`](Self::for_leaves) sizes it for a state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NomtOptions {
    /// Hash-table buckets (4 KiB pages) of a new directory, a power of two (NOMT probes by
    /// triangular numbers, which reach every bucket only then: with 70 buckets and 65 pages
    /// a commit was seen to spin forever); an existing directory keeps the count it was
    /// created with. Default 8,192: a 32 MiB `ht` file, under half full up to
    /// about 2 million random keys.
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

    /// The leaves under a page above which NOMT stores it (its `PAGE_ELISION_THRESHOLD`).
    const ELISION_THRESHOLD: u64 = 20;

    /// The default options with a hash table at most half full for a state of `leaves` random
    /// keys: twice [`expected_pages`](Self::expected_pages) rounded up to a power of two, at
    /// least [`MIN_BUCKETS`](Self::MIN_BUCKETS) (4 MiB up to about 60,000 leaves, 64 MiB at a
    /// million, 1 GiB at 5 million), at most 2^31 buckets (8 TiB).
    pub fn for_leaves(leaves: u64) -> Self {
        let buckets = (2.0 * Self::expected_pages(leaves)).ceil();
        let buckets = if buckets >= f64::from(1u32 << 31) {
            1u32 << 31
        } else {
            // In range: checked above, and not negative.
            (buckets as u32).next_power_of_two()
        };
        NomtOptions {
            buckets: buckets.max(Self::MIN_BUCKETS),
            ..NomtOptions::default()
        }
    }

    /// The pages NOMT is expected to store for `leaves` random keys: the root page, each of
    /// its 64 children with two leaves or more under it, and each page further down with more
    /// than about 20 (a Poisson tail per layer of 64^d pages). It matched NOMT's own count at
    /// 300 (62), 1,000 (65), 50,000 (167 against 163) and 200,000 leaves (4,161).
    pub fn expected_pages(leaves: u64) -> f64 {
        let mut pages = 1.0 + 64.0 * poisson_at_least(leaves as f64 / 64.0, 2);
        let mut layer = 64.0 * 64.0;
        // Eight layers of pages cover 48 levels: 2^48 leaves.
        for _ in 2..8 {
            pages += layer * poisson_at_least(leaves as f64 / layer, Self::ELISION_THRESHOLD);
            layer *= 64.0;
        }
        pages
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
        if !self.buckets.is_power_of_two() {
            return Err(EngineError::Library {
                engine: super::NAME,
                message: format!(
                    "invalid options: {} buckets; a power of two is needed (NOMT probes its \
                     hash table by triangular numbers, which reach every bucket only then)",
                    self.buckets
                ),
            });
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

/// P(X >= k) for X ~ Poisson(`mean`).
fn poisson_at_least(mean: f64, k: u64) -> f64 {
    let mut below = 0.0;
    let mut term = (-mean).exp();
    for i in 0..k {
        below += term;
        term *= mean / (i + 1) as f64;
    }
    (1.0 - below).max(0.0)
}
