//! `triebench compare A B`: did it get slower? Two result folders, run folders, criterion
//! directories or criterion baselines (`criterion:NAME`), benchmark by benchmark, with bootstrap
//! intervals and a verdict; Markdown on stdout (or JSON with `--json`), both into `--out DIR`;
//! exit status 1 with `--fail-above` when a row regressed beyond it.

use std::path::PathBuf;

use clap::Args;
use triebench_plan::step::compare::{compare_sides, CompareSides};
use triebench_report::analysis::compare::DEFAULT_THRESHOLD;

use crate::commands::criterion_dir_arg::CriterionDirArg;
use crate::error::CliError;

#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Side A, the reference: a result folder (ratios.json: means only), a run folder
    /// (export-run), a criterion directory, or `criterion:NAME` (a saved baseline).
    #[arg(value_name = "A")]
    pub a: String,
    /// Side B, compared with A (ratio = B / A; above 1, B is slower).
    #[arg(value_name = "B")]
    pub b: String,
    /// Changes within this are noise, in percent.
    #[arg(long, value_name = "PERCENT", default_value_t = DEFAULT_THRESHOLD * 100.0, value_parser = parse_percent_points)]
    pub threshold: f64,
    /// Confidence level of the bootstrap intervals (significance = 1 - confidence).
    #[arg(long, default_value_t = 0.95, value_parser = parse_confidence)]
    pub confidence: f64,
    /// Exit with status 1 when any row is slower by more than this, in percent (e.g. `5%`).
    #[arg(long, value_name = "PERCENT", value_parser = parse_percent_points)]
    pub fail_above: Option<f64>,
    /// Print JSON instead of Markdown.
    #[arg(long)]
    pub json: bool,
    /// Also write compare.md and compare.json into DIR (created if absent).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub criterion: CriterionDirArg,
}

/// `5`, `5%` or `2.5%` as percentage points.
fn parse_percent_points(text: &str) -> Result<f64, String> {
    let number = text.trim().trim_end_matches('%');
    match number.parse::<f64>() {
        Ok(x) if x.is_finite() && (0.0..=1000.0).contains(&x) => Ok(x),
        _ => Err(format!(
            "`{text}` is not a percentage between 0 and 1000 (e.g. 5%)"
        )),
    }
}

fn parse_confidence(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if x > 0.0 && x < 1.0 => Ok(x),
        _ => Err(format!(
            "`{text}` is not a confidence level between 0 and 1 (e.g. 0.95)"
        )),
    }
}

pub fn run_compare(args: CompareArgs) -> Result<(), CliError> {
    Ok(compare_sides(&CompareSides {
        a: args.a,
        b: args.b,
        criterion_dir: args.criterion.criterion_dir,
        threshold: args.threshold,
        confidence: args.confidence,
        fail_above: args.fail_above,
        json: args.json,
        out: args.out,
    })?)
}
