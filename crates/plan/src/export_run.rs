//! A run folder: one filesystem run copied out of the criterion directory into a folder that can
//! move to another machine, where `triebench report --runs FOLDER...` merges it with others.
//!
//! Layout of `<parent>/<host>-<run>-<date>/`:
//!
//! ```text
//! manifest.json                        host, filesystem (run name), scale, git commit, date
//! env.json                             host name, os, kernel, arch, CPUs, memory, rustc
//! criterion/<bench id path>/<run>/     criterion's baseline files, per benchmark
//! criterion/triebench-runs/records/<run>/              the run records (the headline's)
//! criterion/triebench-runs/<run>.json  the filesystem capture
//! criterion/triebench-runs/load/<run>/                  load searches, when run
//! criterion/triebench-runs/{phases,headline}/<run>.json phase breakdown, CPU idle record
//! criterion/triebench-runs/grow/<run>/<profile>/       growth curves, when run
//! criterion/triebench-runs/engines/<run>.json          the engines side by side, when run
//! criterion/triebench-runs/field/<run>/                 field and SmallBank records, when run
//! ```
//!
//! `criterion/` mirrors the criterion directory, so the report reads it as one. The manifest and
//! `env.json` are written from [`Manifest`] and [`Machine`], the types the reader parses.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Serialize;
use triebench_measure::versions;
use triebench_record::layout::{
    cpu_idle_path, engines_path, field_dir, fs_sidecar_path, grow_dir, phases_path, records_dir,
    SIDECAR_DIR,
};
use triebench_record::load::LOAD_RUNS_DIR;
use triebench_record::run_folder::{Machine, Manifest, CRITERION, FORMAT, MANIFEST};
use triebench_record::time::today;

use crate::error::PlanError;

/// One export: which run, from where, to where, as whom.
#[derive(Debug, Clone)]
pub struct ExportRun<'a> {
    /// The run (criterion baseline) name.
    pub run: &'a str,
    /// The criterion directory it was measured into.
    pub criterion_dir: &'a Path,
    /// The directory the run folder goes in.
    pub parent: &'a Path,
    /// The host name the folder carries.
    pub host: &'a str,
    /// The run's scale.
    pub scale: &'a str,
}

/// Writes the run folder (replacing one of the same name) and returns its path.
pub fn export_run(e: &ExportRun<'_>) -> Result<PathBuf, PlanError> {
    let date = today();
    let folder = e.parent.join(format!("{}-{}-{date}", e.host, e.run));
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| PlanError::Export {
            name: e.run.to_string(),
            path,
            source,
        }
    };
    let files = run_files(e.criterion_dir, e.run).map_err(io(e.criterion_dir))?;
    if files.is_empty() {
        return Err(PlanError::NothingToExport {
            name: e.run.to_string(),
            criterion_dir: e.criterion_dir.to_path_buf(),
        });
    }
    // Written in a staging folder beside it and renamed into place at the end, so a failed
    // export leaves no half-written run folder (the staging folder goes with the error).
    fs::create_dir_all(e.parent).map_err(io(e.parent))?;
    let staging = tempfile::Builder::new()
        .prefix(".new-export-")
        .tempdir_in(e.parent)
        .map_err(io(e.parent))?;
    let tree = staging.path().join(CRITERION);
    fs::create_dir_all(tree.join(SIDECAR_DIR)).map_err(io(&tree))?;
    for file in files {
        let Ok(rel) = file.strip_prefix(e.criterion_dir) else {
            continue;
        };
        let target = tree.join(rel);
        if let Some(dir) = target.parent() {
            fs::create_dir_all(dir).map_err(io(dir))?;
        }
        triebench_record::copy_tree::copy_file(&file, &target)
            .map_err(|e| io(&target)(e.into()))?;
    }
    write_json(
        &staging.path().join("env.json"),
        &Machine::this_host(e.host, &rustc_version()),
        e.run,
    )?;
    let manifest = Manifest {
        format: FORMAT,
        host: e.host.to_string(),
        filesystem: e.run.to_string(),
        scale: e.scale.to_string(),
        git_commit: versions::capture().git_commit,
        date,
        criterion: CRITERION.to_string(),
    };
    write_json(&staging.path().join(MANIFEST), &manifest, e.run)?;
    // Readable as a run folder always was (0755, not the staging folder's 0700): it holds
    // results to share, no store.
    fs::set_permissions(staging.path(), fs::Permissions::from_mode(0o755))
        .map_err(io(staging.path()))?;
    if folder.exists() {
        fs::remove_dir_all(&folder).map_err(io(&folder))?;
    }
    fs::rename(staging.path(), &folder).map_err(io(&folder))?;
    // Renamed away: nothing is left for the guard to remove.
    let _ = staging.keep();
    Ok(folder)
}

/// Every file of run `run` under `criterion_dir`: the JSON files of each directory named `run`
/// outside the sidecars (one per benchmark, criterion's), its run records, the filesystem
/// sidecar, the load searches, the phase breakdown, the CPU idle record, the growth curves, the
/// engines run and the field records.
fn run_files(criterion_dir: &Path, run: &str) -> std::io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    baselines(criterion_dir, run, &mut files)?;
    all_files(&records_dir(criterion_dir, run), &mut files)?;
    for file in [
        fs_sidecar_path(criterion_dir, run),
        phases_path(criterion_dir, run),
        cpu_idle_path(criterion_dir, run),
        engines_path(criterion_dir, run),
    ] {
        if file.is_file() {
            files.push(file);
        }
    }
    let mut load = criterion_dir.to_path_buf();
    load.extend(LOAD_RUNS_DIR);
    all_files(&load.join(run), &mut files)?;
    all_files(&grow_dir(criterion_dir, run), &mut files)?;
    all_files(&field_dir(criterion_dir, run), &mut files)?;
    Ok(files)
}

/// The JSON files of every directory named `run` below `dir`, the sidecars left out.
fn baselines(dir: &Path, run: &str, files: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if !dir.is_dir() {
        return Ok(());
    }
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        if !entry.file_type()?.is_dir() || entry.file_name() == SIDECAR_DIR {
            continue;
        }
        let path = entry.path();
        if entry.file_name() == run {
            for file in fs::read_dir(&path)? {
                let file = file?.path();
                if file.is_file() && file.extension().is_some_and(|x| x == "json") {
                    files.push(file);
                }
            }
        }
        baselines(&path, run, files)?;
    }
    Ok(())
}

/// Every file below `dir` (none when it does not exist).
fn all_files(dir: &Path, files: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if !dir.is_dir() {
        return Ok(());
    }
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            all_files(&entry.path(), files)?;
        } else {
            files.push(entry.path());
        }
    }
    Ok(())
}

/// `rustc --version`, or empty when there is no `rustc` to ask.
fn rustc_version() -> String {
    Command::new("rustc")
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}

fn write_json<T: Serialize>(path: &Path, value: &T, run: &str) -> Result<(), PlanError> {
    let text = serde_json::to_string_pretty(value).map_err(|source| PlanError::Encode {
        path: path.to_path_buf(),
        source,
    })?;
    fs::write(path, text + "\n").map_err(|source| PlanError::Export {
        name: run.to_string(),
        path: path.to_path_buf(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use triebench_report::read::run_folders;

    fn touch(path: &Path) {
        fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        fs::write(path, "{}").expect("write");
    }

    /// Every file below `dir`, relative to it, sorted.
    fn listing(dir: &Path) -> Vec<String> {
        let mut files = Vec::new();
        all_files(dir, &mut files).expect("list");
        let mut names: Vec<String> = files
            .iter()
            .filter_map(|f| f.strip_prefix(dir).ok())
            .map(|f| f.display().to_string())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_run_folder_holds_that_run_alone_and_the_reader_accepts_it() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let c = tmp.path().join("criterion");
        for file in [
            "scenario/suite/btree/t/estimates.json",
            "scenario/suite/btree/t/sample.json",
            "scenario/suite/btree/t/raw.csv",
            "scenario/suite/btree/other/estimates.json",
            "floor/fsync_4k/t/estimates.json",
            "triebench-runs/t.json",
            "triebench-runs/other.json",
            "triebench-runs/records/t/headline.json",
            "triebench-runs/records/other/headline.json",
            "triebench-runs/headline/t.json",
            "triebench-runs/phases/t.json",
            "triebench-runs/load/t/btree/load.json",
            "triebench-runs/load/other/btree/load.json",
            "triebench-runs/engines/t.json",
            "triebench-runs/engines/other.json",
            "triebench-runs/field/t/lmdb-merk.json",
            "triebench-runs/field/other/lmdb-merk.json",
        ] {
            touch(&c.join(file));
        }
        let parent = tmp.path().join("runs");
        let folder = export_run(&ExportRun {
            run: "t",
            criterion_dir: &c,
            parent: &parent,
            host: "h",
            scale: "quick",
        })
        .expect("export");
        assert_eq!(
            folder.file_name().and_then(|n| n.to_str()),
            Some(format!("h-t-{}", today()).as_str())
        );
        assert_eq!(
            listing(&folder.join(CRITERION)),
            [
                "floor/fsync_4k/t/estimates.json",
                "scenario/suite/btree/t/estimates.json",
                "scenario/suite/btree/t/sample.json",
                "triebench-runs/engines/t.json",
                "triebench-runs/field/t/lmdb-merk.json",
                "triebench-runs/headline/t.json",
                "triebench-runs/load/t/btree/load.json",
                "triebench-runs/phases/t.json",
                "triebench-runs/records/t/headline.json",
                "triebench-runs/t.json",
            ]
        );
        let runs = run_folders::read(std::slice::from_ref(&folder)).expect("the reader accepts it");
        assert_eq!(runs[0].label, "h.t");
        assert_eq!(runs[0].manifest.format, FORMAT);
        assert_eq!(runs[0].manifest.scale, "quick");
        assert_eq!(runs[0].machine.hostname, "h");
        // Exported again, the folder is replaced, not added to.
        fs::write(folder.join("stale.json"), "{}").expect("write");
        export_run(&ExportRun {
            run: "t",
            criterion_dir: &c,
            parent: &parent,
            host: "h",
            scale: "quick",
        })
        .expect("export again");
        assert!(!folder.join("stale.json").exists());
    }
}
