//! What compacting a store did ([`BackendSpec::compact`](crate::BackendSpec::compact)).

/// A compaction's effect on the store's data file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Compaction {
    /// The data file's size before, bytes.
    pub bytes_before: u64,
    /// Its size after: the entries packed into full pages, bytes.
    pub bytes_after: u64,
}
