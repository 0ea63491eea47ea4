//! An engines run as the report holds it: the file `triebench engines` wrote
//! ([`triebench_record::engines::EnginesRecord`]) and the filesystem it is shown under.

pub use triebench_record::engines::{
    CommitFigures, EngineResult, EnginesRecord, FieldFigures, ProofFigures,
};

/// One engines run on one filesystem.
#[derive(Debug, Clone, PartialEq)]
pub struct EnginesRun {
    /// The filesystem's name in the report (`tmpfs`, `disk`, ...).
    pub fs: String,
    /// What was measured.
    pub record: EnginesRecord,
}
