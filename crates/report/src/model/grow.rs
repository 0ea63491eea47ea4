//! A growth curve as the report holds it: the file `triebench grow` wrote
//! ([`triebench_record::grow::GrowRecord`]) and the filesystem it is shown under.

pub use triebench_record::grow::{Checkpoint, GrowRecord};

/// One profile's curve on one filesystem.
#[derive(Debug, Clone, PartialEq)]
pub struct GrowCurve {
    /// The filesystem's name in the report (`tmpfs`, `disk`, `efs-sim`, `memory-256M`...).
    pub fs: String,
    /// What was measured.
    pub record: GrowRecord,
}

impl GrowCurve {
    /// `<profile> on <fs>`, the curve's legend text.
    pub fn label(&self) -> String {
        format!("{} on {}", self.record.profile, self.fs)
    }

    /// The checkpoint with the most leaves.
    pub fn last(&self) -> Option<&Checkpoint> {
        self.record.checkpoints.iter().max_by_key(|c| c.leaves)
    }
}
