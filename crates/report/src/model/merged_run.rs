//! A run folder once merged into a multi-machine report: its label and what it says about
//! itself.

use std::path::PathBuf;

use triebench_record::run_folder::{Machine, Manifest};

/// One run folder, merged.
#[derive(Debug, Clone)]
pub struct MergedRun {
    /// Its run name in the merged directory: `<host>.<filesystem>`.
    pub label: String,
    /// Where it came from.
    pub folder: PathBuf,
    /// Its manifest.
    pub manifest: Manifest,
    /// Its machine.
    pub machine: Machine,
}
