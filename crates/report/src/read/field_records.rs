//! The field and SmallBank run records under a results folder ([`FieldRuns`]). `triebench
//! field --out` and `triebench smallbank --out` take any file name, so a record is known by its
//! shape: a JSON object with `workload`, `commits_per_s` and `leaves_per_s` is a field run, one
//! with `triebench`, `transact` and `block_size` a SmallBank run; every other JSON file
//! (`env.json`, `grow.json`, ...) is passed over. A file of either shape that does not read as
//! its record fails the report naming it. Searched up to three levels down; links are not
//! followed.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::ReportError;
use crate::model::field_runs::{FieldResult, FieldRuns, Found, SmallbankResult};

/// Levels below the folder searched.
const DEPTH: u32 = 3;

/// Files that are never records.
const NOT_RECORDS: [&str; 2] = ["env.json", crate::read::anchors::FILE_NAME];

fn json_files(dir: &Path, depth: u32, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if meta.is_dir() && depth > 0 {
            json_files(&path, depth - 1, out);
        } else if meta.is_file() && name.ends_with(".json") && !NOT_RECORDS.contains(&name) {
            out.push(path);
        }
    }
}

/// The folder of `file`, relative to `dir` (`.` for the folder itself).
fn folder(dir: &Path, file: &Path) -> String {
    let parent = file.parent().unwrap_or(dir);
    match parent.strip_prefix(dir) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
        Ok(rel) => rel.display().to_string(),
        Err(_) => parent.display().to_string(),
    }
}

/// What a JSON value is, by its keys.
enum Shape {
    Field,
    Smallbank,
    Other,
}

fn shape(value: &Value) -> Shape {
    let Some(object) = value.as_object() else {
        return Shape::Other;
    };
    let has = |keys: &[&str]| keys.iter().all(|k| object.contains_key(*k));
    if has(&["workload", "commits_per_s", "leaves_per_s"]) {
        Shape::Field
    } else if has(&["triebench", "transact", "block_size"]) {
        Shape::Smallbank
    } else {
        Shape::Other
    }
}

fn bad(path: &Path, what: &str, e: impl std::fmt::Display) -> ReportError {
    ReportError::File {
        path: path.to_path_buf(),
        reason: format!("looks like a {what} run record but does not read as one: {e}"),
    }
}

/// Every field and SmallBank run record under `dir`.
pub fn read(dir: &Path) -> Result<FieldRuns, ReportError> {
    let mut files = Vec::new();
    json_files(dir, DEPTH, &mut files);
    let mut runs = FieldRuns::default();
    for path in files {
        let text = std::fs::read_to_string(&path).map_err(|e| ReportError::File {
            path: path.clone(),
            reason: e.to_string(),
        })?;
        // A file that is not JSON at all is none of ours.
        let Ok(value) = serde_json::from_str::<Value>(&text) else {
            continue;
        };
        let folder = folder(dir, &path);
        match shape(&value) {
            Shape::Field => {
                let record: FieldResult =
                    serde_json::from_value(value).map_err(|e| bad(&path, "field", e))?;
                runs.field.push(Found { folder, record });
            }
            Shape::Smallbank => {
                let record: SmallbankResult =
                    serde_json::from_value(value).map_err(|e| bad(&path, "SmallBank", e))?;
                runs.smallbank.push(Found { folder, record });
            }
            Shape::Other => {}
        }
    }
    sort(&mut runs);
    Ok(runs)
}

/// Field runs by workload, folder, profile; SmallBank runs by folder, profile.
fn sort(runs: &mut FieldRuns) {
    runs.field.sort_by(|a, b| {
        (&a.record.workload, &a.folder, &a.record.profile).cmp(&(
            &b.record.workload,
            &b.folder,
            &b.record.profile,
        ))
    });
    runs.smallbank
        .sort_by(|a, b| (&a.folder, &a.record.profile).cmp(&(&b.folder, &b.record.profile)));
}

/// The field and SmallBank records saved for `runs` in a criterion directory
/// (`triebench-runs/field/<run>/`, [`triebench_record::layout::field_dir`]), each found in the
/// folder named after its run; other runs' records are left out.
pub fn read_runs(criterion_dir: &Path, runs: &[String]) -> Result<FieldRuns, ReportError> {
    let mut found = FieldRuns::default();
    for run in runs {
        // Only the run's folder is read: another run's records, bad or not, are not this
        // report's. Records in folders below it are not the run's own.
        let one = read(&triebench_record::layout::field_dir(criterion_dir, run))?;
        found.field.extend(own_records(one.field, run));
        found.smallbank.extend(own_records(one.smallbank, run));
    }
    sort(&mut found);
    Ok(found)
}

/// The records found in a run's own folder (`.`, not one below it), named after the run.
fn own_records<'r, T: 'r>(
    found: Vec<Found<T>>,
    run: &'r str,
) -> impl Iterator<Item = Found<T>> + 'r {
    found
        .into_iter()
        .filter(|f| f.folder == ".")
        .map(move |f| Found {
            folder: run.to_string(),
            ..f
        })
}

/// Whether `dir` holds at least one field or SmallBank run record, or a file of their shape
/// that fails to read (how `triebench report --runs DIR` tells such a folder from a criterion
/// baseline's name; a bad record then fails the report naming the file).
pub fn holds_records(dir: &Path) -> bool {
    dir.is_dir() && read(dir).map_or(true, |runs| !runs.is_empty())
}
