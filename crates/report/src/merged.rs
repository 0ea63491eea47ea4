//! A report over run folders from several machines (`triebench report --runs DIR...`).
//!
//! Data flow: each folder's own files are read first, as a report of it alone would read them,
//! and the baseline is picked (so an error names the user's file, and nothing is written yet).
//! The output folder is checked ([`crate::out_folder`]: never one of the run folders, inside
//! one or holding one) and written fresh beside its final place: the folders are merged
//! ([`crate::read::run_folders::merge`]) into its `criterion/`, each run renamed
//! `<host>.<filesystem>`; the usual report is written from that directory, and a "Machines"
//! section (`crate::render::machines_section`) is added to `report.md`; the folder is then
//! renamed into place. A failure on the way leaves a previous report folder as it was. The
//! merged criterion directory stays in the result folder, so the report can be re-made from it
//! alone (`triebench report --criterion-dir <out>/criterion --baseline ... --out <elsewhere>`).

use std::path::{Path, PathBuf};

use crate::error::ReportError;
use crate::model::merged_run::MergedRun;
use crate::model::naming;
use crate::out_folder::OutFolder;
use crate::read::{env, run_folders};
use crate::{render, report_into, ReportArgs};

/// What to merge and where the report goes.
#[derive(Debug, Clone)]
pub struct MergedArgs {
    /// Run folders, in column order.
    pub folders: Vec<PathBuf>,
    /// The baseline: a merged run name (`<host>.<filesystem>`) or a filesystem name matching
    /// exactly one folder; default the first folder.
    pub baseline: Option<String>,
    /// Output folder; default `<results_root>/<date>-<host>-<label>`.
    pub out: Option<PathBuf>,
    /// Folder label; default `merged`.
    pub label: Option<String>,
    /// Where result folders go when `out` is not given.
    pub results_root: PathBuf,
}

/// Merges the run folders and writes one report over them; returns the result folder.
pub fn run_merged_report(args: &MergedArgs) -> Result<PathBuf, ReportError> {
    let label = args.label.clone().unwrap_or_else(|| "merged".to_string());
    let out_dir = match &args.out {
        Some(dir) => dir.clone(),
        None => args.results_root.join(naming::folder_name(
            &naming::today(),
            &env::hostname(),
            &label,
        )),
    };
    // Each folder's own files are read first, as its report would read them: an error names
    // the user's file (not its merged copy), and nothing has been written yet.
    let runs = run_folders::read(&args.folders)?;
    for run in &runs {
        crate::check_run(
            &run.folder.join(triebench_record::run_folder::CRITERION),
            &run.manifest.filesystem,
        )?;
    }
    let baseline = pick_baseline(args, &runs)?;
    let inputs: Vec<&Path> = args.folders.iter().map(PathBuf::as_path).collect();
    let out = OutFolder::prepare(&out_dir, &inputs)?;
    merge_and_report(&runs, baseline, label, &out, args)?;
    out.finish()
}

/// Merges the runs into the fresh folder's `criterion/` and writes the report there.
fn merge_and_report(
    runs: &[MergedRun],
    baseline: String,
    label: String,
    out: &OutFolder,
    args: &MergedArgs,
) -> Result<(), ReportError> {
    let criterion_dir = out.path().join(triebench_record::run_folder::CRITERION);
    run_folders::merge(runs, &criterion_dir)?;
    report_into(
        &ReportArgs {
            baseline,
            runs: runs.iter().map(|m| m.label.clone()).collect(),
            out: Some(out.target().to_path_buf()),
            criterion_dir: Some(criterion_dir.clone()),
            label: Some(label),
            results_root: args.results_root.clone(),
        },
        &out.target().join(triebench_record::run_folder::CRITERION),
        out.path(),
        &render::machines_section::render(runs),
    )
}

/// The merged run name the baseline argument names.
fn pick_baseline(args: &MergedArgs, merged: &[MergedRun]) -> Result<String, ReportError> {
    let Some(wanted) = &args.baseline else {
        return merged
            .first()
            .map(|m| m.label.clone())
            .ok_or_else(|| ReportError::RunFolder {
                path: PathBuf::from("."),
                reason: "no run folder given".into(),
            });
    };
    let matching: Vec<&str> = merged
        .iter()
        .filter(|m| &m.label == wanted || &m.manifest.filesystem == wanted)
        .map(|m| m.label.as_str())
        .collect();
    match matching.as_slice() {
        [one] => Ok(one.to_string()),
        _ => Err(ReportError::BaselineNotFound {
            name: wanted.clone(),
            dir: PathBuf::from("(run folders)"),
            available: merged.iter().map(|m| m.label.clone()).collect(),
        }),
    }
}
