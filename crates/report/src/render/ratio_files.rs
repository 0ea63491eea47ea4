//! `ratios.csv`, `ratios.json` and `SCHEMA.md`, which documents both and `env.json`.

use serde::{Deserialize, Serialize};

use crate::analysis::missing::MissingItem;
use crate::analysis::ratios::RatioRow;

/// Version of the `ratios.json` / `ratios.csv` layout; bumped on incompatible changes.
pub const SCHEMA_VERSION: u32 = 1;

/// The whole of `ratios.json`.
///
/// ```json
/// {"schema_version": 1, "generated_at": "2025-01-01T00:00:00Z", "baseline": "tmpfs",
///  "runs": ["tmpfs", "ext4"], "confidence": 0.95, "resamples": 10000, "seed": 8391...,
///  "rows": [RatioRow, ...], "missing": [MissingItem, ...]}
/// ```
/// See [`RatioRow`] for a row (also [`CSV_COLUMNS`], the same fields flattened) and
/// [`MissingItem`] for the missing list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RatiosFile {
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// When the report was generated (UTC).
    pub generated_at: String,
    /// The baseline run.
    pub baseline: String,
    /// All runs, baseline first (absent runs included).
    pub runs: Vec<String>,
    /// Confidence level of every interval.
    pub confidence: f64,
    /// Bootstrap rounds per interval.
    pub resamples: usize,
    /// Base seed of the bootstrap generator.
    pub seed: u64,
    /// Every ratio.
    pub rows: Vec<RatioRow>,
    /// Everything missing.
    pub missing: Vec<MissingItem>,
}

/// The columns of `ratios.csv`, in order: [`RatioRow`]'s fields.
pub const CSV_COLUMNS: [&str; 20] = [
    "comparison",
    "benchmark",
    "group",
    "function",
    "value",
    "scenario",
    "profile",
    "durable",
    "run",
    "reference_run",
    "reference_profile",
    "mean_ns",
    "reference_mean_ns",
    "ratio",
    "ci_low",
    "ci_high",
    "samples",
    "reference_samples",
    "status",
    "confidence",
];

/// A CSV cell: quoted when it needs it, neutralised when it would start a formula.
fn field(text: &str) -> String {
    super::csv_cell::cell(text)
}

fn opt<T: ToString>(v: &Option<T>) -> String {
    v.as_ref().map(ToString::to_string).unwrap_or_default()
}

/// `ratios.csv`: a header of [`CSV_COLUMNS`], then one line per row; absent values are empty.
pub fn to_csv(rows: &[RatioRow], confidence: f64) -> String {
    let mut out = CSV_COLUMNS.join(",");
    out.push('\n');
    for r in rows {
        let cells = [
            r.comparison.as_str().to_string(),
            r.benchmark.clone(),
            r.group.clone(),
            opt(&r.function),
            opt(&r.value),
            opt(&r.scenario),
            opt(&r.profile),
            opt(&r.durable),
            r.run.clone(),
            r.reference_run.clone(),
            opt(&r.reference_profile),
            opt(&r.mean_ns),
            opt(&r.reference_mean_ns),
            opt(&r.ratio),
            opt(&r.ci_low),
            opt(&r.ci_high),
            opt(&r.samples),
            opt(&r.reference_samples),
            r.status.as_str().to_string(),
            confidence.to_string(),
        ];
        out.push_str(&cells.iter().map(|c| field(c)).collect::<Vec<_>>().join(","));
        out.push('\n');
    }
    out
}

/// The text of `SCHEMA.md`.
pub fn schema_markdown() -> String {
    format!(
        r#"# Schema of this result folder (version {SCHEMA_VERSION})

All times are **mean nanoseconds per iteration**: criterion's `sample.json` holds, per sample,
`iters` and total `times`; the per-iteration time of a sample is `times / iters`, and the mean
is over samples (criterion's `estimates.json` mean). A ratio is `mean_ns / reference_mean_ns`.
Its interval is a percentile bootstrap: each round resamples both sample sets with replacement
and recomputes the ratio of means (`resamples` rounds, seeded SplitMix64, so re-running gives
the same numbers).

## ratios.csv / ratios.json

`ratios.json` is `{{"schema_version", "generated_at", "baseline", "runs", "confidence",
"resamples", "seed", "rows": [...], "missing": [...]}}`. `ratios.csv` holds the same rows, one
per line, columns:

| column | meaning |
|---|---|
| comparison | `slowdown_vs_baseline` (benchmark on `run` ÷ same benchmark on the baseline run) or `overhead_vs_btree` (scenario on `profile` ÷ same scenario on `btree`, same run) |
| benchmark | criterion id `group/function/value` |
| group, function, value | criterion's `group_id`, `function_id`, `value_str` |
| scenario | for `scenario/*` groups: one of Transact's ten scenarios or `suite` |
| profile | backend profile, when the benchmark names one |
| durable | `true` when the profile fsyncs every commit (survives power loss) |
| run | the run measured (a criterion baseline: one filesystem) |
| reference_run, reference_profile | what it is divided by |
| mean_ns, reference_mean_ns | the two mean times per iteration (ns) |
| ratio, ci_low, ci_high | the ratio and its bootstrap interval |
| samples, reference_samples | criterion samples on each side |
| status | `ok`, `missing_run`, `missing_measurement`, `missing_reference` |
| confidence | the interval's level (CSV only; JSON has it at the top) |

Absent values are empty in CSV and `null` in JSON. `missing` lists what the report lacks:
`{{"kind": "run" | "cell" | "profile" | "scenario" | "floor" | "fs_info", "run", "what",
"detail"}}`.

## env.json

`{{"generated_at", "host": {{"hostname", "cpu_model", "cores", "physical_cores", "ram_bytes",
"kernel", "os"}}, "filesystems": {{RUN: {{"name", "dir", "fs_type", "mount_point", "device",
"mount_options", "statfs": {{"magic", "block_size", "total_bytes", "available_bytes"}},
"latency_us": {{"metadata", "read", "write", "sync"}}, "flush_extent_us"}} | null}},
"versions": {{"sqlite", "lmdb", "redis_server", "triebench", "git_commit", "git_dirty"}},
"criterion_dir", "baseline", "runs"}}`. The host is the machine that generated the report;
filesystems come from each run's `triebench-runs/RUN.json` sidecar (written by
`triebench capture-fs`). `latency_us` is the median cost per operation class in the run's
directory (µs): a lookup of an absent name, a 4 KiB `pread` after dropping the page cache, a
4 KiB `pwrite`, an `fdatasync` after a 4 KiB write; `flush_extent_us` is what each further
separate run of dirty data adds to an `fdatasync` (16 scattered 4 KiB writes vs one).

## io-profile.json / io-profile.csv (when `triebench io-profile` was run)

What each backend profile asks of the filesystem, counted by a slowfs mount (profile `none`)
around one run of each scenario on a fresh store: `{{"schema", "generated_at", "mount",
"slowfs_profile", "rows": [{{"profile", "scenario", "commits", "counts": {{"ops": {{"metadata",
"read", "write", "sync"}}, "bytes_read", "bytes_written", "fsyncs", "write_extents"}}}}]}}`;
`scenario` `suite` is the sum of the ten. `write_extents` counts writes that do not continue the
previous write to their file. `sync` ops include the flush on every close; `fsyncs` are fsync,
fdatasync and fsyncdir calls only. `io-profile.csv` has the same rows plus per-commit columns.

## predictions.json (when there is an I/O profile)

`[{{"target", "profile", "scenario", "baseline_ns", "predicted_ns", "measured_ns"}}]`:
predicted = `baseline_ns` + Σ over classes of ops × (target's `latency_us` − the baseline run's,
at least 0) × 1000, + (when the scenario fsyncs) `write_extents` × (target's `flush_extent_us` −
the baseline's, at least 0) × 1000. `target` is a run (with `measured_ns` when that run measured the scenario)
or `aws-efs (published latencies)` (metadata 250, read 250, write 2700, sync 2700 µs).

## Plots

`slowdown.svg/png`: the suite's slowdown per profile on each run versus the baseline run (log
scale, 95% interval whiskers). `time-RUN.svg/png`: mean time per scenario per profile on RUN
(log scale, criterion's 95% interval of the mean). Profiles marked `[fsync]` are durable.
"#
    )
}
