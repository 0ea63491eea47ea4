//! `triebench-report`: files in, report out. From measurements (criterion's saved baselines and
//! the run records `triebench-measure` writes, one run per filesystem; run sidecars; I/O
//! profiles) to a shareable result folder. Used by `triebench report`; it runs no workload and
//! opens no store.
//!
//! A pipeline in one direction; each stage imports only the stages above it:
//!
//! - [`model`]: the vocabulary every stage shares (bench ids, results, filesystems, I/O
//!   profiles, names).
//! - [`read`]: criterion's output, run records, sidecars, the host, into the model.
//! - [`analysis`]: slowdowns (vs the baseline filesystem) and overheads (vs `btree`) with
//!   bootstrap intervals, what is missing, predicted slowdowns.
//! - [`render`]: `report.md` (with the lab's sections as a renderer of their own), CSV/JSON,
//!   plots.
//! - `error`: [`ReportError`]; [`atomic_file`]: output files written whole or not at all;
//!   [`out_folder`]: the output folder written fresh and renamed into place.
//!
//! [`run_report`] wires the stages, reading every input before it writes anything (a bad file
//! leaves an existing folder as it was), and writes the folder:
//!
//! ```text
//! runs/reports/<date>-<host>-<label>/   (DEFAULT_REPORTS_ROOT, or --out)
//!   report.md  report.html  ratios.csv  ratios.json  SCHEMA.md  env.json  slowdown.{svg,png}  time-<run>.{svg,png}
//!   io-profile.{json,csv}  predictions.json      (when `triebench io-profile` was run)
//!   sustained.{svg,png}                          (when bench-fs.sh ran `triebench load`)
//!   phases-<run>.{json,svg,png}                  (when `triebench phases` ran for <run>)
//!   plots/net-suite.{svg,png}                    (when a run's headline went through `--net-rtt`)
//!   plots/engines.{svg,png}                      (when `triebench engines` ran for a run)
//! ```
//!
//! [`run_published_report`] writes `report.md` for a folder of field and SmallBank run records
//! ("Against published figures").
//!
//! [`merged::run_merged_report`] does the same over run folders from several machines
//! (`triebench export-run`), adding `criterion/` (the merged runs) and a "Machines" section.

pub mod analysis;
pub mod atomic_file;
pub(crate) mod error;
pub mod merged;
pub mod model;
pub mod out_folder;
pub mod read;
pub mod render;

use std::path::{Path, PathBuf};

pub use error::ReportError;
pub use model::fs::FsInfo;
pub use model::results::ResultSet;
pub use read::criterion_reader::CriterionIndex;
pub use triebench_record::{OpClass, PerClass};

use analysis::{lab, missing, ratios, stats};
use atomic_file::write_text;
use model::{naming, results};
use read::{cpu_idle, env, fs_info, io_profile_file, versions};
use render::{lab_csv, markdown, plots, ratio_files};

/// Writes `<dir>/grow-report.md` (the section "How cost grows with state") and its plots in
/// `<dir>/plots/` from every growth curve under `dir` (see `read::grow_files`); returns the
/// markdown file's path.
pub fn run_grow_report(dir: &Path) -> Result<PathBuf, ReportError> {
    let curves = read::grow_files::read_curves(dir)?;
    if curves.is_empty() {
        return Err(ReportError::File {
            path: dir.to_path_buf(),
            reason: "no grow.json here or in the folders below (run `triebench grow --out`)".into(),
        });
    }
    let md = render::grow_section::write(&curves, &dir.join("plots"), "plots")?;
    let path = dir.join("grow-report.md");
    write_text(&path, &format!("# Growth curves\n\n{md}"))?;
    Ok(path)
}

/// Writes `<dir>/engines-report.md` (the section "Engines side by side") and its plot in
/// `<dir>/plots/` from every engines run in `dir` and the folders right below it (see
/// `read::engines_files`); returns the markdown file's path.
pub fn run_engines_report(dir: &Path) -> Result<PathBuf, ReportError> {
    let runs = read::engines_files::read_dir(dir)?;
    if runs.iter().all(|r| r.record.results.is_empty()) {
        return Err(ReportError::File {
            path: dir.to_path_buf(),
            reason: "no engines.json with results here or in the folders right below (run \
                     `triebench engines --out`)"
                .into(),
        });
    }
    let md = render::engines_section::write(&runs, &dir.join("plots"), "plots")?;
    let path = dir.join("engines-report.md");
    write_text(&path, &format!("# Engines\n\n{md}"))?;
    Ok(path)
}

/// Writes `<dir>/net-report.md` (the section "Time against distance to the database server")
/// and its plot in `<dir>/plots/` from every headline run record and `load.json` under `dir`
/// (see `read::net_files`); returns the markdown file's path.
pub fn run_net_report(dir: &Path) -> Result<PathBuf, ReportError> {
    let runs = read::net_files::read_net_runs(dir)?;
    if runs.headline.is_empty() && runs.load.is_empty() {
        return Err(ReportError::File {
            path: dir.to_path_buf(),
            reason: "no headline.json or load.json here or in the folders below (run \
                     `triebench headline` or `triebench load --out` with --net-rtt)"
                .into(),
        });
    }
    let md = render::net_section::write(&runs, &dir.join("plots"), "plots")?;
    let path = dir.join("net-report.md");
    write_text(
        &path,
        &format!("# Round trips to the database server\n\n{md}"),
    )?;
    Ok(path)
}

/// Writes `report.md` for a folder of field and SmallBank run records (`triebench field --out`,
/// `triebench smallbank --out`; see `read::field_records`): the runs, then the section "Against
/// published figures" with the built-in list of published figures, or the folder's own
/// `anchors.json`. Written into `out` when given (created if missing), else into `dir`;
/// returns the file's path. Errors when the folder holds no such record, when one does not
/// read, or when a published figure lacks its source.
pub fn run_published_report(dir: &Path, out: Option<&Path>) -> Result<PathBuf, ReportError> {
    let runs = read::field_records::read(dir)?;
    if runs.is_empty() {
        return Err(ReportError::File {
            path: dir.to_path_buf(),
            reason: "no field or SmallBank run record here or in the folders below (run \
                     `triebench field --out` or `triebench smallbank --out`)"
                .into(),
        });
    }
    let (anchors, anchors_from) = read::anchors::load(dir)?;
    let published = analysis::published::compare(&runs, &anchors);
    let mut md = format!(
        "# Field and SmallBank runs against published figures\n\nMade by `triebench report --runs \
         {}` from the run records below it.\n\n",
        dir.display()
    );
    md.push_str(&render::field_runs_section::write(&runs));
    md.push_str(&render::published_section::write(
        &published,
        &anchors_from.display().to_string(),
    ));
    let into = out.unwrap_or(dir);
    std::fs::create_dir_all(into).map_err(|source| ReportError::Write {
        path: into.to_path_buf(),
        source,
    })?;
    let path = into.join("report.md");
    write_text(&path, &md)?;
    Ok(path)
}

/// Baseline names criterion manages itself; not taken as runs unless asked for by name.
const CRITERION_OWN: [&str; 2] = ["new", "base"];

/// What `triebench report` was asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportArgs {
    /// The baseline run (filesystem) every slowdown is relative to.
    pub baseline: String,
    /// The other runs to compare; empty = every saved baseline but criterion's `new`/`base`.
    pub runs: Vec<String>,
    /// Output folder; default `<results_root>/<date>-<host>-<label>`.
    pub out: Option<PathBuf>,
    /// Criterion's output directory; default [`default_criterion_dir`].
    pub criterion_dir: Option<PathBuf>,
    /// Folder label; default the run names joined with `-`.
    pub label: Option<String>,
    /// Where result folders go when `out` is not given (the CLI passes [`DEFAULT_REPORTS_ROOT`]).
    pub results_root: PathBuf,
}

/// Where the CLI writes a report when no `--out` is given: `runs/reports/<date>-<host>-<label>/`,
/// beside the run folders and ignored by git, so a user's runs never land in the checkout's
/// `results/` (which holds only the folders the docs cite, and which the docs check refuses to
/// find anything else in).
pub const DEFAULT_REPORTS_ROOT: &str = "runs/reports";

/// Criterion's output directory, found as criterion finds it (`read::criterion_home`):
/// `$CRITERION_HOME`, else `$CARGO_TARGET_DIR/criterion`, else the workspace's target directory
/// as cargo resolves it plus `criterion`, else `target/criterion`.
pub fn default_criterion_dir() -> PathBuf {
    read::criterion_home::criterion_home()
}

/// The runs of a report: the baseline, then the requested runs (or every saved baseline but
/// criterion's own), without repeats.
fn resolve_runs(args: &ReportArgs, index: &CriterionIndex) -> Vec<String> {
    let requested: Vec<String> = if args.runs.is_empty() {
        index
            .baselines()
            .into_iter()
            .filter(|b| !CRITERION_OWN.contains(&b.as_str()))
            .collect()
    } else {
        args.runs.clone()
    };
    let mut runs = vec![args.baseline.clone()];
    for r in requested {
        if !runs.contains(&r) {
            runs.push(r);
        }
    }
    runs
}

/// Loads the runs' measurements and sidecars.
pub fn load_results(index: &CriterionIndex, runs: &[String]) -> Result<ResultSet, ReportError> {
    let mut out = Vec::with_capacity(runs.len());
    for name in runs {
        let present = index.has_baseline(name);
        let (fs, cpu_idle) = if present && fs_info::validate_run_name(name).is_ok() {
            (
                fs_info::read_sidecar(index.root(), name)?,
                cpu_idle::load(index.root(), name)?,
            )
        } else {
            (None, None)
        };
        out.push(results::RunResults {
            name: name.clone(),
            present,
            fs,
            // The sidecar, else what the run record says (a run folder may carry only that).
            cpu_idle: cpu_idle.or_else(|| index.cpu_idle(name).cloned()),
            host: index.host(name).cloned(),
            host_load: index.host_load(name).cloned(),
            benches: index.load_all(name)?,
        });
    }
    Ok(ResultSet {
        runs: out,
        available: index.baselines(),
    })
}

fn command_line(args: &ReportArgs, criterion_dir: &Path, runs: &[String], label: &str) -> String {
    let mut cmd = format!("triebench report --baseline {}", args.baseline);
    if runs.len() > 1 {
        cmd.push_str(" --runs ");
        cmd.push_str(&runs[1..].join(" "));
    }
    cmd.push_str(&format!(" --criterion-dir {}", criterion_dir.display()));
    cmd.push_str(&format!(" --label {label}"));
    cmd
}

fn to_json<T: serde::Serialize>(what: &'static str, value: &T) -> Result<String, ReportError> {
    serde_json::to_string_pretty(value)
        .map(|s| s + "\n")
        .map_err(|source| ReportError::Json { what, source })
}

/// What a report reads from a criterion directory for its runs.
struct Inputs {
    results: ResultSet,
    io: Option<model::io_profile::IoProfileFile>,
    crash: Option<model::crash::CrashFile>,
    crash_models: Option<model::crash_models::CrashModelsFile>,
    load: Vec<read::load_runs::LoadEntry>,
    phases: Vec<model::phases::PhaseRunFile>,
    grow: Vec<model::grow::GrowCurve>,
    /// The runs' engines runs (`triebench-runs/engines/<run>.json`).
    engines: Vec<model::engines::EnginesRun>,
    /// The field and SmallBank records saved for the runs (`triebench-runs/field/<run>/`).
    field: model::field_runs::FieldRuns,
    /// The runs' headline records, when one of them went through the delay proxy.
    net: Option<model::net::NetRuns>,
}

/// Reads everything the report of `runs` needs, before anything is written: a bad file fails
/// the report naming that file, and leaves a result folder written before as it was.
fn read_inputs(index: &CriterionIndex, runs: &[String]) -> Result<Inputs, ReportError> {
    let dir = index.root();
    Ok(Inputs {
        results: load_results(index, runs)?,
        io: io_profile_file::load_io_profile(dir)?,
        crash: read::crash::load_crash(dir)?,
        crash_models: read::crash_models::load_crash_models(dir)?,
        load: read::load_runs::read_all(dir, runs)?,
        phases: read::phase_files::load_all(dir, runs).map_err(|e| ReportError::Sidecar {
            path: dir.join(read::fs_info::SIDECAR_DIR),
            reason: e.to_string(),
        })?,
        grow: read::grow_files::read_runs(dir, runs)?,
        engines: read::engines_files::read_runs(dir, runs)?,
        field: read::field_records::read_runs(dir, runs)?,
        net: read::net_files::read_report_runs(dir, runs)?,
    })
}

/// Reads what a report of run `run` in `criterion_dir` would read, and writes nothing: how a
/// merged report checks each run folder's own files before copying them, so an error names
/// the user's file rather than its copy.
pub(crate) fn check_run(criterion_dir: &Path, run: &str) -> Result<(), ReportError> {
    let index = CriterionIndex::open(criterion_dir)?;
    // A run folder may be anyone's: every profile its benchmarks name must be one triebench
    // knows (a made-up one would reach the tables and ratios.csv as it is).
    for key in index.benchmarks(run) {
        let Some(named) = key.profile() else {
            continue;
        };
        let (_, profile) = model::bench_id::split_implementation(&named);
        if triebench_record::vocabulary::profile(profile).is_none() {
            return Err(ReportError::RunFolder {
                path: criterion_dir.to_path_buf(),
                reason: format!(
                    "benchmark `{}` names the profile `{profile}`, which is not one triebench \
                     knows (`triebench profiles` lists them)",
                    key.group
                ),
            });
        }
    }
    read_inputs(&index, &[run.to_string()]).map(drop)
}

/// Writes the report folder for `args` and returns its path.
///
/// Errors when the criterion directory or the baseline does not exist (listing the baselines
/// that do), or when a file it reads is unreadable, before anything is written; runs, cells
/// and floors that are absent are reported as missing, not errors. The folder is written
/// fresh beside the output path and renamed into place ([`out_folder`]): an output folder that
/// is, holds or lies inside the criterion directory, or an existing folder a report did not
/// write, is refused before anything is written.
pub fn run_report(args: &ReportArgs) -> Result<PathBuf, ReportError> {
    let read = read_report(args)?;
    let out_dir = match &args.out {
        Some(dir) => dir.clone(),
        None => args.results_root.join(naming::folder_name(
            &naming::today(),
            &env::hostname(),
            &read.label,
        )),
    };
    let out = out_folder::OutFolder::prepare(&out_dir, &[&read.criterion_dir])?;
    let shown = read.criterion_dir.clone();
    write_report(args, read, &shown, out.path(), "")?;
    out.finish()
}

/// Writes the report of `args` into the existing folder `into` (a merged report's fresh
/// folder), naming `shown` as its criterion directory; `extra` (Markdown) ends the report
/// (report.md and report.html alike).
pub(crate) fn report_into(
    args: &ReportArgs,
    shown: &Path,
    into: &Path,
    extra: &str,
) -> Result<(), ReportError> {
    let read = read_report(args)?;
    write_report(args, read, shown, into, extra)
}

/// Everything a report reads, read before anything is written.
struct ReadReport {
    criterion_dir: PathBuf,
    index: CriterionIndex,
    runs: Vec<String>,
    label: String,
    inputs: Inputs,
}

/// Opens the criterion directory, checks the baseline and reads the runs' files.
fn read_report(args: &ReportArgs) -> Result<ReadReport, ReportError> {
    let criterion_dir = args
        .criterion_dir
        .clone()
        .unwrap_or_else(default_criterion_dir);
    let index = CriterionIndex::open(&criterion_dir)?;
    if !index.has_baseline(&args.baseline) {
        return Err(ReportError::BaselineNotFound {
            name: args.baseline.clone(),
            dir: criterion_dir,
            available: index.baselines(),
        });
    }
    let runs = resolve_runs(args, &index);
    let inputs = read_inputs(&index, &runs)?;
    let label = args.label.clone().unwrap_or_else(|| runs.join("-"));
    Ok(ReadReport {
        criterion_dir,
        index,
        runs,
        label,
        inputs,
    })
}

/// Writes the report's files into `out_dir`, naming `criterion_dir` as where they came from;
/// `extra` (Markdown, may be empty) ends the report.
fn write_report(
    args: &ReportArgs,
    read: ReadReport,
    criterion_dir: &Path,
    out_dir: &Path,
    extra: &str,
) -> Result<(), ReportError> {
    let ReadReport {
        index,
        runs,
        label,
        inputs:
            Inputs {
                results,
                io,
                crash,
                crash_models,
                load,
                phases,
                grow,
                engines,
                field,
                net,
            },
        ..
    } = read;
    let ratios = ratios::compute(&results, stats::RESAMPLES);
    let missing = missing::find(&results);
    let predictions = io
        .as_ref()
        .map(|io| lab::predictions(&results, io))
        .unwrap_or_default();

    let generated_at = naming::now();
    let env_info = env::EnvInfo {
        generated_at: generated_at.clone(),
        host: env::capture_host(),
        filesystems: results
            .runs
            .iter()
            .map(|r| (r.name.clone(), r.fs.clone()))
            .collect(),
        versions: index
            .versions(&args.baseline)
            .cloned()
            .unwrap_or_else(versions::unrecorded),
        criterion_dir: criterion_dir.display().to_string(),
        baseline: args.baseline.clone(),
        runs: runs.clone(),
    };
    let plot_files = plots::write_all(&results, &ratios, out_dir)?;
    render::load_section::write_plot(&load, out_dir)?;
    render::phase_section::write_plots(&phases, out_dir)?;
    let span_cost = analysis::phases::span_cost(&results);
    let flags = analysis::trust::find(&results, &ratios, &criterion_dir.display().to_string());

    let mut report = render::report_md(&markdown::ReportInput {
        results: &results,
        ratios: &ratios,
        missing: &missing,
        plots: &plot_files,
        env: &env_info,
        command: command_line(args, criterion_dir, &runs, &label),
        resamples: stats::RESAMPLES,
        io_profile: io.as_ref(),
        predictions: &predictions,
        load: &load,
        crash: crash.as_ref(),
        crash_models: crash_models.as_ref(),
        phases: &phases,
        span_cost: span_cost.as_ref(),
        flags: &flags,
    });
    if !grow.is_empty() {
        report.push('\n');
        report.push_str(&render::grow_section::write(
            &grow,
            &out_dir.join("plots"),
            "plots",
        )?);
    }
    if !engines.is_empty() {
        report.push('\n');
        report.push_str(&render::engines_section::write(
            &engines,
            &out_dir.join("plots"),
            "plots",
        )?);
    }
    if !field.is_empty() {
        // The published figures: the built-in list, or an anchors.json beside the records.
        let (anchors, anchors_from) = read::anchors::load(
            &index
                .root()
                .join(read::fs_info::SIDECAR_DIR)
                .join(triebench_record::layout::FIELD_DIR),
        )?;
        let published = analysis::published::compare(&field, &anchors);
        report.push('\n');
        report.push_str(&render::field_runs_section::write(&field));
        report.push_str(&render::published_section::write(
            &published,
            &anchors_from.display().to_string(),
        ));
    }
    if let Some(net) = &net {
        report.push('\n');
        report.push_str(&render::net_section::write(
            net,
            &out_dir.join("plots"),
            "plots",
        )?);
    }
    if !extra.is_empty() {
        report.push('\n');
        report.push_str(extra);
    }
    write_text(&out_dir.join("report.md"), &report)?;
    let criterion_html = index.root().join("report").join("index.html");
    write_text(
        &out_dir.join("report.html"),
        &render::html::report_html(&render::html::HtmlInput {
            markdown: &report,
            results: &results,
            ratios: &ratios,
            dir: out_dir,
            phases: &phases,
            criterion_html: criterion_html.is_file().then_some(criterion_html.as_path()),
        }),
    )?;
    write_text(
        &out_dir.join("ratios.csv"),
        &ratio_files::to_csv(&ratios.rows, stats::CONFIDENCE),
    )?;
    let ratios_file = ratio_files::RatiosFile {
        schema_version: ratio_files::SCHEMA_VERSION,
        generated_at,
        baseline: args.baseline.clone(),
        runs,
        confidence: stats::CONFIDENCE,
        resamples: stats::RESAMPLES,
        seed: stats::SEED,
        rows: ratios.rows.clone(),
        missing,
    };
    write_text(
        &out_dir.join("ratios.json"),
        &to_json("ratios", &ratios_file)?,
    )?;
    write_text(
        &out_dir.join("env.json"),
        &to_json("environment", &env_info)?,
    )?;
    write_text(&out_dir.join("SCHEMA.md"), &ratio_files::schema_markdown())?;
    for file in &phases {
        let path = out_dir.join(format!("phases-{}.json", file.run));
        write_text(&path, &to_json("phase run", file)?)?;
    }
    if let Some(io) = &io {
        write_text(
            &out_dir.join(model::io_profile::FILE_NAME),
            &to_json("I/O profile", io)?,
        )?;
        write_text(
            &out_dir.join("io-profile.csv"),
            &lab_csv::io_profile_csv(io),
        )?;
        write_text(
            &out_dir.join("predictions.json"),
            &to_json("predictions", &predictions)?,
        )?;
    }
    Ok(())
}
