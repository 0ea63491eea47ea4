//! Merk's own code on a `merk` field run's commits: `merk-runner` (crates/merk-compare, a
//! workspace of its own, built on a nightly Rust) started with the run's scale, seed and a
//! directory for its RocksDB store, its one JSON line read back as a [`MerkSide`]. It runs
//! after our side, on the same machine and filesystem, in the same `triebench field` run.

use std::path::Path;
use std::process::Command;

use triebench_record::excerpt::excerpt;
use triebench_record::merk_side::MerkSide;

use crate::error::MeasureError;

/// Runs `runner --scale SCALE --seed SEED --dir DIR` and returns what it measured. Its
/// standard error is kept for the message when it fails.
pub fn run_merk_runner(
    runner: &Path,
    scale: u64,
    seed: u64,
    dir: &Path,
) -> Result<MerkSide, MeasureError> {
    let failed = |what: String| MeasureError::MerkRunner {
        runner: runner.to_path_buf(),
        what,
    };
    let output = Command::new(runner)
        .arg("--scale")
        .arg(scale.to_string())
        .arg("--seed")
        .arg(seed.to_string())
        .arg("--dir")
        .arg(dir)
        .output()
        .map_err(|e| failed(format!("cannot start it: {e}")))?;
    if !output.status.success() {
        let said = String::from_utf8_lossy(&output.stderr);
        return Err(failed(match last_line(&said) {
            Some(line) => format!("it exited with {}: {}", output.status, line.trim()),
            None => format!("it exited with {} and said nothing", output.status),
        }));
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = last_line(&stdout)
        .ok_or_else(|| failed("it printed nothing, not Merk's figures".into()))?;
    serde_json::from_str(line).map_err(|e| {
        failed(format!(
            "it printed `{}`, not Merk's figures ({e})",
            excerpt(line)
        ))
    })
}

/// The last line of `text` that is not blank: what the runner said last.
fn last_line(text: &str) -> Option<&str> {
    text.lines().rev().find(|l| !l.trim().is_empty())
}
