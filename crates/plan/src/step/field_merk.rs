//! Merk's side of a `merk` field run (the `field` step's): where its store goes ([`MerkDir`]),
//! `merk-runner` run on the commits ours ran with the two digests compared ([`merk_side`]),
//! and ours ÷ Merk's as the step prints it ([`within_run`]).

use std::path::{Path, PathBuf};

use triebench_measure::merk_runner::run_merk_runner;
use triebench_measure::MeasureError;
use triebench_record::field::FieldResult;
use triebench_record::merk_side::MerkSide;

use crate::error::PlanError;

/// Where Merk's store goes: `DIR/merk` under the run's directory (the same filesystem as
/// ours), refused when an earlier run left it; without a directory, in a temporary one. It is
/// removed when the run ends, whatever the outcome.
pub struct MerkDir {
    path: PathBuf,
    /// The temporary directory holding `path`, when there is no `--dir`.
    _temp: Option<tempfile::TempDir>,
}

impl MerkDir {
    /// `DIR/merk`, refused if it exists; a temporary directory's `merk` without `DIR`.
    pub fn new(dir: Option<&Path>) -> Result<Self, PlanError> {
        let Some(dir) = dir else {
            let temp = tempfile::Builder::new()
                .prefix("triebench-merk-")
                .tempdir()
                .map_err(|source| PlanError::Write {
                    path: std::env::temp_dir(),
                    source,
                })?;
            return Ok(MerkDir {
                path: temp.path().join("merk"),
                _temp: Some(temp),
            });
        };
        let path = dir.join("merk");
        if path.symlink_metadata().is_ok() {
            return Err(PlanError::Usage(format!(
                "{} exists (left by an earlier run?): Merk's store goes there; remove it or \
                 give another --dir",
                path.display()
            )));
        }
        Ok(MerkDir { path, _temp: None })
    }
}

impl Drop for MerkDir {
    fn drop(&mut self) {
        if self.path.symlink_metadata().is_ok() {
            if let Err(e) = std::fs::remove_dir_all(&self.path) {
                eprintln!("field: cannot remove {}: {e}", self.path.display());
            }
        }
    }
}

/// Runs Merk's own code on the commits `ours` ran and checks that they were the same.
pub fn merk_side(runner: &Path, dir: &MerkDir, ours: &FieldResult) -> Result<MerkSide, PlanError> {
    eprintln!(
        "field merk: Merk's own code on the same commits ({}), its store in {}",
        runner.display(),
        dir.path.display()
    );
    let side = run_merk_runner(runner, ours.scale, ours.seed, &dir.path)?;
    let ours_sha = ours.commits_sha256.clone().unwrap_or_default();
    if side.commits_sha256 != ours_sha {
        return Err(MeasureError::MerkCommitsDiffer {
            ours: ours_sha,
            merk: side.commits_sha256,
        }
        .into());
    }
    Ok(side)
}

/// Ours ÷ Merk's, `–` where either is missing.
pub fn within_run(ours: Option<f64>, merk: f64) -> String {
    match ours {
        Some(o) if merk > 0.0 => format!("{:.3}×", o / merk),
        _ => "–".into(),
    }
}
