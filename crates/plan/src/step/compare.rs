//! The `compare` step: did it get slower? Two result folders, run folders, criterion
//! directories or baselines, benchmark by benchmark, with a verdict per benchmark.

use std::io::Write;
use std::path::PathBuf;

use triebench_report::analysis::compare::{compare, CompareOptions};
use triebench_report::atomic_file::write_atomically;
use triebench_report::read::side::read_side;
use triebench_report::render::compare_markdown;
use triebench_report::ReportError;

use crate::error::PlanError;

/// What to compare, and how strictly.
#[derive(Debug, Clone)]
pub struct CompareSides {
    /// The side before (`A`).
    pub a: String,
    /// The side after (`B`).
    pub b: String,
    /// Criterion's output directory, for `criterion:NAME` sides.
    pub criterion_dir: Option<PathBuf>,
    /// Changes within this many percent are "no change".
    pub threshold: f64,
    /// The bootstrap interval's confidence.
    pub confidence: f64,
    /// Fail when anything is slower by more than this many percent.
    pub fail_above: Option<f64>,
    /// Print JSON instead of Markdown.
    pub json: bool,
    /// Also write `compare.md` and `compare.json` here.
    pub out: Option<PathBuf>,
}

/// Compares two sides, prints the comparison (Markdown, or JSON when asked), writes it to
/// the output folder when given, and fails when anything regressed beyond `fail_above`.
pub fn compare_sides(args: &CompareSides) -> Result<(), PlanError> {
    let dir = args.criterion_dir.as_deref();
    let a = read_side(&args.a, dir)?;
    let b = read_side(&args.b, dir)?;
    let options = CompareOptions {
        threshold: args.threshold / 100.0,
        confidence: args.confidence,
        fail_above: args.fail_above.map(|p| p / 100.0),
        ..CompareOptions::default()
    };
    let comparison = compare(&a, &b, options);
    let markdown = compare_markdown::render(&comparison);
    let json = serde_json::to_string_pretty(&comparison)
        .map(|s| s + "\n")
        .map_err(|source| ReportError::Json {
            what: "comparison",
            source,
        })?;
    if let Some(out) = &args.out {
        triebench_measure::make_dir::make_dir("--out", out)?;
        write_text(&out.join("compare.md"), &markdown)?;
        write_text(&out.join("compare.json"), &json)?;
    }
    let shown = if args.json { json } else { markdown };
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(shown.as_bytes())
        .and_then(|()| stdout.flush())
        .map_err(|source| PlanError::Write {
            path: PathBuf::from("(standard output)"),
            source,
        })?;
    let regressions = comparison.regressions();
    if let (Some(limit), false) = (args.fail_above, regressions.is_empty()) {
        let names: Vec<String> = regressions
            .iter()
            .take(5)
            .map(|r| {
                format!(
                    "{} on {} ({:+.1}%)",
                    r.benchmark,
                    r.run,
                    r.change_pct.unwrap_or(0.0)
                )
            })
            .collect();
        return Err(PlanError::Regressed(format!(
            "{} benchmark(s) slower by more than {limit}%: {}{}",
            regressions.len(),
            names.join(", "),
            if regressions.len() > 5 { ", ..." } else { "" }
        )));
    }
    Ok(())
}

/// Writes `text` to `path` whole or not at all.
fn write_text(path: &std::path::Path, text: &str) -> Result<(), PlanError> {
    write_atomically(path, text.as_bytes()).map_err(|source| {
        PlanError::Report(ReportError::Write {
            path: path.to_path_buf(),
            source,
        })
    })
}
