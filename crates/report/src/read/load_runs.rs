//! The load folders `scripts/bench-fs.sh` leaves beside the run sidecars
//! (`<criterion-dir>/triebench-runs/load/<run>/<profile>/load.json`), for the report's
//! "sustained commits/s" section.

use std::fs;
use std::path::{Path, PathBuf};

use crate::error::ReportError;
use crate::model::load::{LoadFile, LOAD_FILE, LOAD_RUNS_DIR, SCHEMA_VERSION};

/// One load folder found: which run (filesystem), which profile, what it measured.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadEntry {
    /// The run (filesystem) name.
    pub run: String,
    /// The backend profile.
    pub profile: String,
    /// Its `load.json`.
    pub file: LoadFile,
}

/// Where bench-fs.sh puts the load folder of `run` and `profile`.
pub fn load_dir(criterion_dir: &Path, run: &str, profile: &str) -> PathBuf {
    let mut p = criterion_dir.to_path_buf();
    p.extend(LOAD_RUNS_DIR);
    p.join(run).join(profile)
}

/// Reads one `load.json`.
pub fn read_load_file(path: &Path) -> Result<LoadFile, ReportError> {
    let bad = |reason: String| ReportError::LoadFile {
        path: path.to_path_buf(),
        reason,
    };
    let text = triebench_record::copy_tree::read_text(path).map_err(|e| bad(e.to_string()))?;
    let file: LoadFile = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
    if file.schema_version > SCHEMA_VERSION {
        return Err(bad(format!(
            "schema_version {} is newer than this version's {SCHEMA_VERSION}; use the triebench \
             that wrote it",
            file.schema_version
        )));
    }
    Ok(file)
}

fn sorted_dirs(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut out: Vec<(String, PathBuf)> = fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().is_dir())
        .filter_map(|e| Some((e.file_name().into_string().ok()?, e.path())))
        .collect();
    out.sort();
    out
}

/// Every load folder under `criterion_dir` (none when bench-fs.sh ran no load), runs in
/// `run_order` first (the report's order), then any others by name.
pub fn read_all(criterion_dir: &Path, run_order: &[String]) -> Result<Vec<LoadEntry>, ReportError> {
    let mut root = criterion_dir.to_path_buf();
    root.extend(LOAD_RUNS_DIR);
    let mut runs = sorted_dirs(&root);
    runs.sort_by_key(|(name, _)| {
        run_order
            .iter()
            .position(|r| r == name)
            .unwrap_or(usize::MAX)
    });
    let mut out = Vec::new();
    for (run, run_dir) in runs {
        for (profile, dir) in sorted_dirs(&run_dir) {
            let path = dir.join(LOAD_FILE);
            if path.is_file() {
                out.push(LoadEntry {
                    run: run.clone(),
                    profile,
                    file: read_load_file(&path)?,
                });
            }
        }
    }
    Ok(out)
}
