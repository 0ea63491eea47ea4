//! The field workload runs (`triebench field --out`) and SmallBank runs (`triebench smallbank
//! --out`) found under a results folder, each with the folder it was found in (`tmpfs`,
//! `disk`, `.`), which is how a results folder says where it ran. The record types are
//! `triebench-record`'s.

pub use triebench_record::field::FieldResult;
pub use triebench_record::merk_side::MerkSide;
pub use triebench_record::smallbank::SmallbankResult;

/// One run record and the folder it lies in, relative to the folder read (`.` for itself).
#[derive(Debug, Clone, PartialEq)]
pub struct Found<T> {
    /// The folder, relative (`tmpfs`, `disk`, `scale-10/tmpfs`, `.`).
    pub folder: String,
    /// The record.
    pub record: T,
}

/// Every field and SmallBank run under a folder, sorted by workload, folder, profile.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FieldRuns {
    /// Field workload runs.
    pub field: Vec<Found<FieldResult>>,
    /// SmallBank runs.
    pub smallbank: Vec<Found<SmallbankResult>>,
}

impl FieldRuns {
    /// Whether no run was found.
    pub fn is_empty(&self) -> bool {
        self.field.is_empty() && self.smallbank.is_empty()
    }
}
