//! The phases a commit or a read spends its time in, named once for every crate: the names are
//! [`triebench_record::vocabulary::PHASES`] (the report reads phase files with that table and
//! no storage crate); [`Phase`] reads its name there by [`Phase::index`].
//!
//! The trie (`triebench-merkle`) and the storage boundary open a `tracing` span named after a
//! phase around each step; a collector (`triebench-measure`'s `phases`) sums the time per phase.
//! Spans are static callsites at level TRACE: when no subscriber listens, entering one costs a
//! relaxed atomic load of the global max level (the `phases` bench measures it).
//!
//! Phases nest (a node read contains the storage read it makes), so a collector counts each
//! span's *self* time: the moments when it is the innermost phase open. The self times of all
//! phases of a run then add up to the time spent inside the outermost spans, with nothing counted
//! twice.

use triebench_record::vocabulary::PHASES;

/// One phase of a commit or read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Phase {
    /// The trie's own bookkeeping in a commit or read: walking the batch, building the change
    /// log, everything inside `MerkleTrie::commit`/`get` not in a deeper phase.
    Trie,
    /// Validating and copying a node the trie loaded (the storage read itself excluded).
    NodeDecode,
    /// Re-encoding changed nodes.
    Encode,
    /// SHA-512 over node encodings.
    Hash,
    /// Backend reads: get, scan, count (for a server, the round trip of each).
    StorageRead,
    /// Backend writes staged in the open transaction: insert, put, delete.
    StorageWrite,
    /// Making the transaction durable and visible: the backend's commit (fsync where the
    /// profile does; for a server, the commit's round trip).
    Commit,
}

impl Phase {
    /// Every phase, in the order a commit meets them (reports list them in this order), which is
    /// the order of [`PHASES`] (one entry per phase, so the array's length is the table's).
    pub const ALL: [Phase; PHASES.len()] = [
        Phase::Trie,
        Phase::StorageRead,
        Phase::NodeDecode,
        Phase::Encode,
        Phase::Hash,
        Phase::StorageWrite,
        Phase::Commit,
    ];

    /// The span name (and the name in phase files): its entry in [`PHASES`].
    pub const fn name(self) -> &'static str {
        PHASES[self.index()]
    }

    /// The phase a span name stands for, `None` for spans that are not phases.
    pub fn from_name(name: &str) -> Option<Phase> {
        Phase::ALL.into_iter().find(|p| p.name() == name)
    }

    /// Position in [`Phase::ALL`], for fixed arrays indexed by phase.
    pub const fn index(self) -> usize {
        match self {
            Phase::Trie => 0,
            Phase::StorageRead => 1,
            Phase::NodeDecode => 2,
            Phase::Encode => 3,
            Phase::Hash => 4,
            Phase::StorageWrite => 5,
            Phase::Commit => 6,
        }
    }
}

impl std::fmt::Display for Phase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Span name of [`Phase::Trie`].
pub const TRIE: &str = Phase::Trie.name();
/// Span name of [`Phase::NodeDecode`].
pub const NODE_DECODE: &str = Phase::NodeDecode.name();
/// Span name of [`Phase::Encode`].
pub const ENCODE: &str = Phase::Encode.name();
/// Span name of [`Phase::Hash`].
pub const HASH: &str = Phase::Hash.name();
/// Span name of [`Phase::StorageRead`].
pub const STORAGE_READ: &str = Phase::StorageRead.name();
/// Span name of [`Phase::StorageWrite`].
pub const STORAGE_WRITE: &str = Phase::StorageWrite.name();
/// Span name of [`Phase::Commit`].
pub const COMMIT: &str = Phase::Commit.name();

/// Opens the span of a phase and enters it until the end of the enclosing block:
/// `triebench_kv::phase_span!(triebench_kv::phase::HASH);`. A static callsite at level TRACE.
#[macro_export]
macro_rules! phase_span {
    ($name:expr) => {
        let _phase_guard =
            $crate::phase::__tracing::span!($crate::phase::__tracing::Level::TRACE, $name)
                .entered();
    };
}

/// The `tracing` crate [`phase_span!`] expands to, so callers need no dependency of their own.
#[doc(hidden)]
pub use tracing as __tracing;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_indices_follow_all() {
        for (i, p) in Phase::ALL.into_iter().enumerate() {
            assert_eq!(Phase::from_name(p.name()), Some(p));
            assert_eq!(p.index(), i);
        }
        assert_eq!(Phase::from_name("other"), None);
    }
}
