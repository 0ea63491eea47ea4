//! Firewood's benchmark workloads (`benchmark/` in ava-labs/firewood), as its README specifies
//! them, with its batch of 10,000 and keys SHA-256 of the row number
//! ([`firewood_key`]), values 32 bytes:
//!
//! * `create`: rows inserted in batches, one commit per batch (scale N: N commits, N × 10,000
//!   rows);
//! * `tenkrandom`: on the created rows, per commit 2,500 deletes of the oldest rows, 2,500
//!   inserts of new rows and 5,000 updates of random rows between them (scale N: N × 10,000
//!   rows created, then N commits);
//! * `zipf`: on the created rows, per commit 10,000 updates drawn from a Zipf distribution with
//!   exponent s = 1.2 over the rows (a row drawn twice is updated once: its last draw), so hot
//!   rows are updated again and again (scale N: N × 10,000 rows, then N commits);
//! * `single`: on the created rows, one update of one random row per commit (scale N: N ×
//!   10,000 rows, then N × 1,000 commits).

use crate::field::address::{firewood_address, firewood_key};
use crate::field::commit::{FieldCommit, Phase};
use crate::rng::XorShift64Star;

/// Rows per batch, as Firewood's benchmark runs it.
pub const BATCH: u64 = 10_000;
/// `tenkrandom`'s deletes (and inserts) per commit.
pub const TENK_DELETES: u64 = 2_500;
/// `tenkrandom`'s updates per commit.
pub const TENK_UPDATES: usize = 5_000;
/// `zipf`'s exponent.
pub const ZIPF_S: f64 = 1.2;
/// `single`'s commits per unit of scale.
pub const SINGLE_COMMITS_PER_SCALE: u64 = 1_000;

/// Which of Firewood's workloads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Firewood {
    /// Rows in batches.
    Create,
    /// 2,500 deletes, 2,500 inserts, 5,000 updates per commit.
    Tenkrandom,
    /// 10,000 Zipf-drawn updates per commit.
    Zipf,
    /// One update per commit.
    Single,
}

/// A value for `row` at `version`: 32 bytes that change with the version.
fn value(row: u64, version: u64) -> Vec<u8> {
    let mut bytes = firewood_key(row).to_vec();
    bytes[..8].copy_from_slice(&version.to_le_bytes());
    bytes
}

fn entry(row: u64, version: u64) -> (String, Vec<u8>) {
    (firewood_address(&firewood_key(row)), value(row, version))
}

/// Firewood's workload `which` at `scale` (at least 1), seeded.
#[derive(Debug)]
pub struct FirewoodCommits {
    which: Firewood,
    scale: u64,
    rng: XorShift64Star,
    /// Create batches done.
    created: u64,
    /// Timed commits done.
    timed: u64,
    /// tenkrandom's window: rows `low..high` are held.
    low: u64,
    high: u64,
    /// zipf's cumulative weights, rank 1 first.
    zipf_cdf: Vec<f64>,
}

impl FirewoodCommits {
    /// The commits of `which` at `scale` (0 is taken as 1).
    pub fn new(which: Firewood, scale: u64, seed: u64) -> Self {
        let scale = scale.max(1);
        FirewoodCommits {
            which,
            scale,
            rng: XorShift64Star::new(seed),
            created: 0,
            timed: 0,
            low: 0,
            high: scale * BATCH,
            zipf_cdf: Vec::new(),
        }
    }

    fn timed_commits(&self) -> u64 {
        match self.which {
            Firewood::Create => self.scale,
            Firewood::Tenkrandom | Firewood::Zipf => self.scale,
            Firewood::Single => self.scale * SINGLE_COMMITS_PER_SCALE,
        }
    }

    fn create_batch(&mut self) -> FieldCommit {
        let first = self.created * BATCH;
        self.created += 1;
        FieldCommit {
            inserts: (first..first + BATCH).map(|row| entry(row, 0)).collect(),
            ..FieldCommit::default()
        }
    }

    fn tenkrandom(&mut self, version: u64) -> FieldCommit {
        let deletes = (self.low..self.low + TENK_DELETES)
            .map(|row| firewood_address(&firewood_key(row)))
            .collect();
        let inserts = (self.high..self.high + TENK_DELETES)
            .map(|row| entry(row, version))
            .collect();
        // Updates of rows that stay: between the deleted and the inserted ones. The window
        // holds scale × 10,000 rows, so at least 7,500 are there to pick 5,000 from.
        let kept = (self.low + TENK_DELETES) as u32..self.high as u32;
        let updates = self
            .rng
            .choose_multiple(kept, TENK_UPDATES)
            .into_iter()
            .map(|row| entry(u64::from(row), version))
            .collect();
        self.low += TENK_DELETES;
        self.high += TENK_DELETES;
        FieldCommit {
            inserts,
            updates,
            deletes,
            reads: Vec::new(),
        }
    }

    fn zipf(&mut self, version: u64) -> FieldCommit {
        if self.zipf_cdf.is_empty() {
            let mut total = 0.0;
            self.zipf_cdf = (1..=self.high)
                .map(|rank| {
                    total += (rank as f64).powf(-ZIPF_S);
                    total
                })
                .collect();
        }
        let total = self.zipf_cdf.last().copied().unwrap_or(1.0);
        let mut drawn = std::collections::BTreeMap::new();
        for draw in 0..BATCH {
            let u = (self.rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * total;
            let rank = self.zipf_cdf.partition_point(|&c| c < u) as u64;
            // Row `rank` (0-based rank): the last draw of a row in a commit wins.
            drawn.insert(rank.min(self.high - 1), draw);
        }
        FieldCommit {
            updates: drawn.into_keys().map(|row| entry(row, version)).collect(),
            ..FieldCommit::default()
        }
    }
}

impl Iterator for FirewoodCommits {
    type Item = (Phase, FieldCommit);

    fn next(&mut self) -> Option<Self::Item> {
        if self.which == Firewood::Create {
            if self.created >= self.scale {
                return None;
            }
            self.timed += 1;
            return Some((Phase::Timed, self.create_batch()));
        }
        if self.created < self.scale {
            return Some((Phase::Setup, self.create_batch()));
        }
        if self.timed >= self.timed_commits() {
            return None;
        }
        self.timed += 1;
        let version = self.timed;
        let commit = match self.which {
            Firewood::Tenkrandom => self.tenkrandom(version),
            Firewood::Zipf => self.zipf(version),
            _ => {
                let row = u64::from(self.rng.below(self.high as u32));
                FieldCommit {
                    updates: vec![entry(row, version)],
                    ..FieldCommit::default()
                }
            }
        };
        Some((Phase::Timed, commit))
    }
}
