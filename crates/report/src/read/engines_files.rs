//! Engines runs (`engines.json`, written by `triebench engines`) found under a results folder
//! (the folder itself or `<fs>/engines.json`) or in a criterion directory
//! (`triebench-runs/engines/<run>.json`).

use std::path::{Path, PathBuf};

use triebench_record::{engines, layout};

use crate::error::ReportError;
use crate::model::engines::EnginesRun;

/// Every engines run in `dir` and in the folders right below it, labelled by the folder it is
/// in below `dir` (the filesystem's name in a results folder) or else its recorded filesystem
/// type; sorted by label.
pub fn read_dir(dir: &Path) -> Result<Vec<EnginesRun>, ReportError> {
    let mut files: Vec<(Option<String>, PathBuf)> = vec![(None, dir.join(engines::FILE_NAME))];
    if let Ok(entries) = std::fs::read_dir(dir) {
        let mut below: Vec<(Option<String>, PathBuf)> = entries
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .map(|e| {
                (
                    Some(e.file_name().to_string_lossy().into_owned()),
                    e.path().join(engines::FILE_NAME),
                )
            })
            .collect();
        below.sort();
        files.extend(below);
    }
    let mut out = Vec::new();
    for (label, file) in files {
        if let Some(record) = engines::read(&file)? {
            out.push(EnginesRun {
                fs: label.unwrap_or_else(|| record.fs_type.clone()),
                record,
            });
        }
    }
    out.sort_by(|a, b| a.fs.cmp(&b.fs));
    Ok(out)
}

/// The main job's engines runs of `runs` in a criterion directory, each labelled by its run;
/// runs without one add none.
pub fn read_runs(criterion_dir: &Path, runs: &[String]) -> Result<Vec<EnginesRun>, ReportError> {
    let mut out = Vec::new();
    for run in runs {
        if let Some(record) = engines::read(&layout::engines_path(criterion_dir, run))? {
            out.push(EnginesRun {
                fs: run.clone(),
                record,
            });
        }
    }
    Ok(out)
}
