//! The `report` step: saved criterion runs, or run folders from several machines, to a result
//! folder.

use std::path::{Path, PathBuf};

use triebench_report::merged::{run_merged_report, MergedArgs};
use triebench_report::read::field_records::holds_records;
use triebench_report::read::run_folders::is_run_folder;
use triebench_report::{
    run_published_report, run_report as write_report, ReportArgs, DEFAULT_REPORTS_ROOT,
};

use crate::error::PlanError;

/// Which runs to report, against which, and where.
#[derive(Debug, Clone)]
pub struct ReportOptions {
    /// The run every slowdown is relative to (`None`: with run folders, the first).
    pub baseline: Option<String>,
    /// Criterion baseline names, or run folders (paths).
    pub runs: Vec<String>,
    /// The output folder (`None`: under [`DEFAULT_REPORTS_ROOT`]).
    pub out: Option<PathBuf>,
    /// Criterion's output directory (`None`: where criterion writes).
    pub criterion_dir: Option<PathBuf>,
    /// The label in the default folder name.
    pub label: Option<String>,
}

/// Writes the report of criterion baselines, or of run folders merged, and prints its folder;
/// or, for one folder of field and SmallBank run records (`triebench field --out`, `triebench
/// smallbank --out`), its `report.md` with "Against published figures", and prints that file.
pub fn report(args: &ReportOptions) -> Result<(), PlanError> {
    if let [one] = args.runs.as_slice() {
        let dir = Path::new(one);
        if !is_run_folder(dir) && holds_records(dir) {
            if args.baseline.is_some() || args.criterion_dir.is_some() || args.label.is_some() {
                return Err(PlanError::Usage(
                    "a folder of field and SmallBank runs takes no --baseline, --criterion-dir \
                     or --label (only --out)"
                        .into(),
                ));
            }
            let path = run_published_report(dir, args.out.as_deref())?;
            if args.out.is_none() {
                // The folder's env.json, as `grow-report` writes one beside its curves.
                super::grow::write_env(dir)?;
            }
            println!("report written to {}", path.display());
            return Ok(());
        }
    }
    let folders = args
        .runs
        .iter()
        .filter(|r| is_run_folder(Path::new(r)))
        .count();
    let folder = if folders > 0 {
        if folders != args.runs.len() || args.criterion_dir.is_some() {
            return Err(PlanError::Usage(
                "--runs takes either run folders (directories with manifest.json) or criterion \
                 baseline names, not both; run folders need no --criterion-dir"
                    .into(),
            ));
        }
        run_merged_report(&MergedArgs {
            folders: args.runs.iter().map(PathBuf::from).collect(),
            baseline: args.baseline.clone(),
            out: args.out.clone(),
            label: args.label.clone(),
            results_root: PathBuf::from(DEFAULT_REPORTS_ROOT),
        })?
    } else {
        let Some(baseline) = args.baseline.clone() else {
            return Err(PlanError::Usage(
                "--baseline NAME is required with criterion baseline names (e.g. --baseline tmpfs)"
                    .into(),
            ));
        };
        write_report(&ReportArgs {
            baseline,
            runs: args.runs.clone(),
            out: args.out.clone(),
            criterion_dir: args.criterion_dir.clone(),
            label: args.label.clone(),
            results_root: PathBuf::from(DEFAULT_REPORTS_ROOT),
        })?
    };
    println!("report written to {}", folder.display());
    Ok(())
}
