//! Writers of a result folder, from the model and its analysis.
//!
//! - `trust_section`: the report's opening, "Can these figures be trusted?" (hosts, load,
//!   idle CPUs, every anomaly with its rerun); `summary_section`: the figures that hold across
//!   hosts (above-floor ÷ `btree`'s) before the host-dependent suite ÷ `btree`.
//! - [`report_md`] assembles `report.md` from renderers over the same model: [`markdown`] (the
//!   measurement tables), `context_markdown` (what the run was: intro, filesystems, profiles,
//!   missing, environment) and `lab_markdown` (the filesystem lab). All use `table` and `fmt`.
//! - [`compare_markdown`]: `triebench compare`'s Markdown; [`dashboard_export`]: a side as
//!   github-action-benchmark's or Bencher's JSON.
//! - [`ratio_files`]: `ratios.csv`, `ratios.json` and `SCHEMA.md`; `lab_csv`: `io-profile.csv`.
//! - `transact_section`: triebench vs Transact's own code, when both were measured.
//! - `floor_section`: each backend's `update` commit against its storage floor.
//! - `plots`: the slowdown and time plots, drawn by [`chart`] on `axes` with the embedded
//!   [`font`]. Every plot (these, the load, growth, network and phase plots) is written as SVG
//!   and PNG by one function, `plot_pair::write_both`, and starts from its frame and grid.
//! - [`load_files`], `load_plots`: a `triebench load` folder (load.json, timeseries.csv,
//!   matrix, plots over time); [`load_section`]: the report's sustained commits/s section.
//! - `html`: `report.html`, the same report as one self-contained page (sortable tables, a
//!   filesystem and profile picker, plots as inline SVG with their numbers on hover).
//! - `machines_section`: which machine and filesystem each column of a merged report is.
//! - [`crash_section`]: "What each profile loses", from crash-test results.
//! - `crash_models_section`: "Crash states explored", per profile and crash model.
//! - `grow_section`: "How cost grows with state", from growth curves, plotted by
//!   `grow_plots` (log-log over the leaf count); [`grow_lines`]: a curve as `grow` prints it
//!   while it runs.
//! - [`field_runs_section`]: a folder's field and SmallBank runs, as measured.
//! - [`published_section`]: "Against published figures", field and SmallBank runs beside the
//!   figures their workloads' authors published.
//! - `phase_section`: "Where a commit's time goes", drawn by `phase_chart` (stacked bars);
//!   [`phase_lines`]: one breakdown as `phases` and `load --phases` print it.
//! - [`engines_section`]: "Engines side by side" (table and plot), from `triebench engines`
//!   runs, and one result as `engines` prints it.

pub(crate) mod axes;
pub mod chart;
pub mod compare_markdown;
pub(crate) mod context_markdown;
pub(crate) mod crash_models_section;
pub mod crash_section;
pub mod csv_cell;
pub mod dashboard_export;
pub mod engines_section;
pub mod field_runs_section;
pub(crate) mod floor_section;
pub(crate) mod fmt;
pub mod font;
pub mod grow_lines;
pub(crate) mod grow_plots;
pub(crate) mod grow_section;
pub(crate) mod html;
pub(crate) mod lab_csv;
pub(crate) mod lab_markdown;
pub mod load_files;
pub(crate) mod load_plots;
pub mod load_section;
pub(crate) mod machines_section;
pub mod markdown;
pub(crate) mod net_plots;
pub(crate) mod net_section;
pub(crate) mod phase_chart;
pub mod phase_lines;
pub(crate) mod phase_section;
pub(crate) mod plot_pair;
pub(crate) mod plots;
pub mod published_section;
pub mod ratio_files;
pub(crate) mod summary_section;
pub(crate) mod table;
pub(crate) mod transact_section;
pub(crate) mod trust_section;

/// The whole of `report.md`, section by section: whether its figures can be trusted, the
/// summary (figures that hold across hosts first), what the run was, the headline measurements
/// (each backend against its storage floor after the floors, then the scenarios),
/// the filesystem lab's sections (from `lab_markdown`, a renderer of its own), the other
/// groups, then what is missing, the environment and the files.
pub fn report_md(input: &markdown::ReportInput<'_>) -> String {
    let mut out = String::new();
    input.title(&mut out);
    trust_section::render(&mut out, input.results, &input.env.host, input.flags);
    summary_section::render(&mut out, input.results, input.ratios);
    input.intro(&mut out);
    input.filesystems(&mut out);
    input.profiles(&mut out);
    input.headline_sections(&mut out);
    floor_section::render(&mut out, input.results);
    input.scenario_sections(&mut out);
    lab_markdown::render(&mut out, input.results, input.io_profile, input.predictions);
    transact_section::render(&mut out, input.results, input.resamples);
    load_section::render(&mut out, input.load);
    crash_section::render(&mut out, input.crash);
    crash_models_section::render(&mut out, input.crash_models);
    phase_section::render(&mut out, input.phases, input.span_cost);
    input.other_groups(&mut out);
    input.missing_section(&mut out);
    input.environment(&mut out);
    input.files_section(&mut out);
    out
}
