//! Hash maps keyed by node hashes (or arena indices) with foldhash's fast hasher instead of
//! std's SipHash: a commit that re-adds 31,000 stored nodes spent 13% of its time in SipHash
//! over their 64-byte keys (existence answers, duplicate counts). foldhash is seeded per
//! process, so a crafted key set cannot aim at one bucket across runs.

/// A `HashMap` with foldhash's hasher.
pub(crate) type FastMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

/// A `HashSet` with foldhash's hasher.
pub(crate) type FastSet<K> = std::collections::HashSet<K, foldhash::fast::RandomState>;
