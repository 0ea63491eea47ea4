//! Writers of a result folder, from the model and its analysis.
//!
//! - [`markdown`]: `report.md`, its sections in order; the lab's sections come from
//!   [`lab_markdown`], a renderer of its own over the same model. Both use [`table`] and [`fmt`].
//! - [`export`]: `ratios.csv`, `ratios.json` and `SCHEMA.md`; [`lab_csv`]: `io-profile.csv`.
//! - [`transact_section`]: triebench vs Transact's own code, when both were measured.
//! - [`plots`]: the slowdown and time plots, drawn by [`chart`] on [`axes`] with the embedded
//!   [`font`].

pub mod axes;
pub mod chart;
pub mod export;
pub mod fmt;
pub mod font;
pub mod lab_csv;
pub mod lab_markdown;
pub mod markdown;
pub mod plots;
pub mod table;
pub mod transact_section;

/// The whole of `report.md`: the main sections, then the filesystem lab's (from
/// [`lab_markdown`], a renderer of its own), then the closing ones.
pub fn report_md(input: &markdown::ReportInput<'_>) -> String {
    let mut out = String::new();
    input.leading_sections(&mut out);
    lab_markdown::render(&mut out, input.results, input.io_profile, input.predictions);
    transact_section::render(&mut out, input.results, input.resamples);
    input.closing_sections(&mut out);
    out
}
