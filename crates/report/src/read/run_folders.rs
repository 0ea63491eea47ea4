//! Run folders from several machines, merged into one criterion directory the report reads.
//!
//! `triebench export-run` leaves one self-contained folder per filesystem run: `manifest.json`
//! (host, filesystem, scale, commit), `env.json` (the machine) and `criterion/`, a copy of that
//! run's criterion baseline files and sidecars laid out as in `<target>/criterion`. Folders copied
//! from other machines may share a filesystem name (two hosts' `tmpfs`), so [`merge`] renames each
//! run to `<host>.<filesystem>` while copying it into one directory: every column of the report
//! then names its machine and its filesystem, and the rest of the report reads it unchanged.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use triebench_record::copy_tree::{copy_tree, read_text, Limits};

use crate::error::ReportError;
use crate::model::merged_run::MergedRun;
use crate::read::fs_info::SIDECAR_DIR;
use triebench_record::run_folder::{Machine, Manifest, CRITERION, MANIFEST};

/// Whether `dir` is a run folder (it holds a `manifest.json`).
pub fn is_run_folder(dir: &Path) -> bool {
    dir.join(MANIFEST).is_file()
}

/// Reads every run folder's manifest and machine, in the order given, before anything is
/// written: each must hold a `criterion/` directory, and two folders of the same host and
/// filesystem are refused (one would hide the other in the merged directory).
pub fn read(folders: &[PathBuf]) -> Result<Vec<MergedRun>, ReportError> {
    let mut runs: Vec<MergedRun> = Vec::new();
    for folder in folders {
        let manifest: Manifest = read_json(&folder.join(MANIFEST))?;
        if !folder.join(CRITERION).is_dir() {
            return Err(bad(folder, "it has no criterion/ directory".into()));
        }
        let machine: Machine = read_json(&folder.join("env.json")).unwrap_or_default();
        let label = format!("{}.{}", file_safe(&manifest.host), manifest.filesystem);
        if let Some(same) = runs.iter().find(|m| m.label == label) {
            return Err(bad(
                folder,
                format!(
                    "it is run `{label}` again (also {}); pass each host's filesystem once",
                    same.folder.display()
                ),
            ));
        }
        runs.push(MergedRun {
            label,
            folder: folder.clone(),
            manifest,
            machine,
        });
    }
    Ok(runs)
}

/// Copies every run's criterion directory into the criterion directory `into`, each run
/// renamed to its label, `<host>.<filesystem>`.
pub fn merge(runs: &[MergedRun], into: &Path) -> Result<(), ReportError> {
    for run in runs {
        copy_run(
            &run.folder.join(CRITERION),
            into,
            &run.manifest.filesystem,
            &run.label,
        )
        .map_err(|e| {
            bad(
                &run.folder,
                format!("cannot copy it into {}: {e}", into.display()),
            )
        })?;
    }
    Ok(())
}

/// Copies `from` (a run folder's `criterion/`) into `into`, renaming every directory named
/// `name` below a benchmark, the sidecar `triebench-runs/<name>.json`, the load runs of `name`
/// and its files `triebench-runs/<kind>/<name>.json` (phases, headline) to `label`.
fn copy_run(from: &Path, into: &Path, name: &str, label: &str) -> std::io::Result<()> {
    let in_sidecars = |dir: &Path| dir.file_name().is_some_and(|f| f == SIDECAR_DIR);
    let json = format!("{name}.json");
    // Plain files and directories only, never through a link, bounded (`copy_tree`).
    copy_tree(from, into, Limits::default(), &mut |dir, file_name| {
        let sidecar_level = in_sidecars(dir) || dir.parent().is_some_and(in_sidecars);
        if file_name == name {
            label.into()
        } else if file_name.to_str() == Some(json.as_str()) && sidecar_level {
            format!("{label}.json").into()
        } else {
            file_name.to_os_string()
        }
    })
    .map_err(std::io::Error::from)
}

/// A host name as a run name may hold it (letters, digits, `.`, `_`, `-`).
fn file_safe(host: &str) -> String {
    host.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .collect()
}

fn read_json<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<T, ReportError> {
    let text = read_text(path).map_err(|e| bad(path, e.to_string()))?;
    serde_json::from_str(&text).map_err(|e| bad(path, e.to_string()))
}

fn bad(path: &Path, reason: String) -> ReportError {
    ReportError::RunFolder {
        path: path.to_path_buf(),
        reason,
    }
}
