//! Growth curves (`grow.json`, written by `triebench grow`) found under a results folder: the
//! folder itself, `<fs>/grow.json` or `<fs>/<profile>/grow.json`.

use std::path::{Path, PathBuf};

use crate::error::ReportError;
use crate::model::grow::GrowCurve;
use triebench_record::{grow, layout};

fn candidates(dir: &Path, depth: u32, out: &mut Vec<PathBuf>) {
    let file = dir.join(grow::FILE_NAME);
    if file.is_file() {
        out.push(file);
    }
    if depth == 0 {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut dirs: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect();
    dirs.sort();
    for d in dirs {
        candidates(&d, depth - 1, out);
    }
}

/// Every growth curve under `dir` (two levels down at most), labelled by the folder above its
/// profile's (the filesystem's name in a results folder) or else its recorded filesystem
/// type; sorted by label, then profile.
pub fn read_curves(dir: &Path) -> Result<Vec<GrowCurve>, ReportError> {
    let mut files = Vec::new();
    candidates(dir, 2, &mut files);
    let mut out = Vec::new();
    for file in files {
        let Some(record) = grow::read(&file)? else {
            continue;
        };
        // <dir>/<fs>/<profile>/grow.json: the filesystem's folder names it.
        let rel: Vec<String> = file
            .strip_prefix(dir)
            .map(|r| {
                r.components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        let fs = if rel.len() == 3 {
            rel[0].clone()
        } else {
            record.fs_type.clone()
        };
        out.push(GrowCurve { fs, record });
    }
    out.sort_by(|a, b| (&a.fs, &a.record.profile).cmp(&(&b.fs, &b.record.profile)));
    Ok(out)
}

/// The main job's growth curves of `runs` in a criterion directory
/// (`triebench-runs/grow/<run>/<profile>/grow.json`), each labelled by its run; runs without
/// curves add none.
pub fn read_runs(criterion_dir: &Path, runs: &[String]) -> Result<Vec<GrowCurve>, ReportError> {
    let mut out = Vec::new();
    for run in runs {
        let dir = layout::grow_dir(criterion_dir, run);
        let mut files = Vec::new();
        candidates(&dir, 1, &mut files);
        for file in files {
            if let Some(record) = grow::read(&file)? {
                out.push(GrowCurve {
                    fs: run.clone(),
                    record,
                });
            }
        }
    }
    Ok(out)
}
