//! The filesystem-lab sections of `report.md`: each run's cost per operation class, the I/O
//! profile per backend (the why behind each ratio), predicted against measured slowdowns, and
//! the prediction for real AWS EFS beside the published slowdowns.

use std::fmt::Write as _;

use crate::analysis::lab::AWS_EFS;
use crate::analysis::predict::{Prediction, PUBLISHED_EFS, PUBLISHED_EFS_US};
use crate::model::bench_id::SUITE;
use crate::model::results::ResultSet;
use crate::render::fmt::{ratio, time_ns};
use crate::render::table::{esc, header, row};
use crate::{model::io_profile::IoProfileFile, OpClass};

/// The run ebs-like predictions are compared against when it was measured.
const EBS_RUN: &str = "ebs-sim";

fn us(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.1}")
    }
}

fn per_commit(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.2}")
    }
}

/// Renders the lab sections (nothing when there is neither an I/O profile nor a latency).
pub fn render(out: &mut String, results: &ResultSet, io: Option<&IoProfileFile>, p: &[Prediction]) {
    latencies(out, results);
    match io {
        Some(io) => {
            io_profile(out, io);
            predicted_vs_measured(out, results, p);
            aws_efs(out, results, p);
        }
        None => out.push_str(
            "## I/O profile and predictions\n\nNo I/O profile: run `triebench io-profile --dir \
             <slowfs mount>` (scripts/bench-fs.sh does when `scripts/fs-lab.sh iolab` names a \
             mount) to count what each backend asks of the filesystem and predict slowdowns.\n\n",
        ),
    }
}

fn latencies(out: &mut String, results: &ResultSet) {
    if !results
        .runs
        .iter()
        .any(|r| r.fs.as_ref().is_some_and(|f| f.latency_us.is_some()))
    {
        return;
    }
    out.push_str("## Cost per operation on each filesystem\n\n");
    out.push_str(
        "Median µs of 31 operations each in the run's directory, measured by `triebench \
         capture-fs` before the run: a lookup of an absent name (metadata), a 4 KiB `pread` \
         after dropping the page cache (read), a 4 KiB `pwrite` (write), an `fdatasync` after a \
         4 KiB write (sync); and what each further separate run of dirty data adds to an \
         `fdatasync` (16 scattered 4 KiB writes vs one). The predictor charges each counted \
         operation, and each run of written data where the scenario fsyncs, this less the \
         baseline's.\n\n",
    );
    let mut cells = vec!["run".to_string()];
    cells.extend(OpClass::ALL.iter().map(|c| format!("{} µs", c.name())));
    cells.push("flush per run µs".to_string());
    out.push_str(&header(&cells));
    for r in &results.runs {
        let Some(lat) = r.fs.as_ref().and_then(|f| f.latency_us) else {
            let mut cells = vec![esc(&r.name)];
            cells.extend((0..=OpClass::ALL.len()).map(|_| "not probed".to_string()));
            out.push_str(&row(&cells));
            continue;
        };
        let mut cells = vec![esc(&r.name)];
        cells.extend(OpClass::ALL.iter().map(|&c| us(*lat.get(c))));
        cells.push(
            r.fs.as_ref()
                .and_then(|f| f.flush_extent_us)
                .map(us)
                .unwrap_or_else(|| "not probed".to_string()),
        );
        out.push_str(&row(&cells));
    }
    let mut cells = vec![format!("{AWS_EFS} (not run)")];
    cells.extend(OpClass::ALL.iter().map(|&c| us(*PUBLISHED_EFS_US.get(c))));
    cells.push("0 (write-through)".to_string());
    out.push_str(&row(&cells));
    out.push('\n');
}

fn io_profile(out: &mut String, io: &IoProfileFile) {
    out.push_str("## I/O profile: what each backend asks of the filesystem (the why)\n\n");
    let _ = writeln!(
        out,
        "Counted by slowfs (profile `{}`) at `{}` on {}: each scenario run once on a fresh \
         store, counters read after opening and before closing it (what the benches time), \
         summed over the ten scenarios and divided by their commits. `sync` includes the flush \
         on every close; `fsyncs` are fsync/fdatasync calls only; writes/fsync is how much an \
         fsync has to flush on a page-cache filesystem. Every profile × scenario is in \
         `io-profile.csv`.\n",
        esc(&io.slowfs_profile),
        esc(&io.mount),
        esc(&io.generated_at)
    );
    out.push_str(&header(
        &[
            "profile",
            "commits",
            "fsyncs/commit",
            "sync ops/commit",
            "writes/commit",
            "KiB written/commit",
            "reads/commit",
            "KiB read/commit",
            "metadata ops/commit",
            "writes/fsync",
            "write runs/commit",
        ]
        .map(str::to_string),
    ));
    for r in io.rows.iter().filter(|r| r.scenario == SUITE) {
        let c = &r.counts;
        out.push_str(&row(&[
            format!("`{}`", esc(&r.profile)),
            r.commits.to_string(),
            per_commit(r.per_commit(c.fsyncs)),
            per_commit(r.per_commit(c.ops.sync)),
            per_commit(r.per_commit(c.ops.write)),
            per_commit(r.per_commit(c.bytes_written) / 1024.0),
            per_commit(r.per_commit(c.ops.read)),
            per_commit(r.per_commit(c.bytes_read) / 1024.0),
            per_commit(r.per_commit(c.ops.metadata)),
            if c.fsyncs == 0 {
                "–".to_string()
            } else {
                per_commit(c.ops.write as f64 / c.fsyncs as f64)
            },
            per_commit(r.per_commit(c.write_extents)),
        ]));
    }
    out.push('\n');
}

/// Measured and predicted time of one profile on one target: the suite when the target
/// measured it, else the sum over the scenarios it measured.
struct Compared {
    scenarios: usize,
    suite: bool,
    measured_ns: f64,
    predicted_ns: f64,
}

fn compare(p: &[Prediction], target: &str, profile: &str) -> Option<Compared> {
    let measured =
        |x: &&Prediction| x.target == target && x.profile == profile && x.measured_ns.is_some();
    if let Some(suite) = p.iter().filter(measured).find(|x| x.scenario == SUITE) {
        return Some(Compared {
            scenarios: 1,
            suite: true,
            measured_ns: suite.measured_ns.unwrap_or_default(),
            predicted_ns: suite.predicted_ns,
        });
    }
    let parts: Vec<&Prediction> = p.iter().filter(measured).collect();
    (!parts.is_empty()).then(|| Compared {
        scenarios: parts.len(),
        suite: false,
        measured_ns: parts.iter().filter_map(|x| x.measured_ns).sum(),
        predicted_ns: parts.iter().map(|x| x.predicted_ns).sum(),
    })
}

fn cell(c: &Compared) -> String {
    let scope = if c.suite {
        String::new()
    } else {
        format!(" [Σ {} scenarios]", c.scenarios)
    };
    format!(
        "{} · {} ({:+.0}%){scope}",
        time_ns(c.measured_ns),
        time_ns(c.predicted_ns),
        (c.predicted_ns / c.measured_ns - 1.0) * 100.0
    )
}

fn predicted_vs_measured(out: &mut String, results: &ResultSet, p: &[Prediction]) {
    let targets: Vec<&str> = results.runs[1..]
        .iter()
        .map(|r| r.name.as_str())
        .filter(|name| {
            p.iter()
                .any(|x| x.target == *name && x.measured_ns.is_some())
        })
        .collect();
    out.push_str("## Predicted vs measured\n\n");
    if targets.is_empty() {
        out.push_str(
            "No prediction: the baseline run, or every other run, has no latency probe \
             (re-capture with `triebench capture-fs`), or no run measured a scenario the \
             baseline did.\n\n",
        );
        return;
    }
    let base = results.run_names().first().cloned().unwrap_or_default();
    let _ = writeln!(
        out,
        "Each cell: measured · predicted (prediction error), for `scenario/suite`, or, where a \
         run did not measure the suite, summed over the scenarios it did measure (`[Σ N \
         scenarios]`). Predicted = time on `{}` + Σ per class (operations counted × (that \
         run's cost − `{}`'s cost)) + runs of written data × (flush per run − the \
         baseline's) where the scenario fsyncs. Every scenario is in `predictions.json`.\n",
        esc(&base),
        esc(&base)
    );
    let mut cells = vec!["profile".to_string()];
    cells.extend(targets.iter().map(|t| esc(t)));
    out.push_str(&header(&cells));
    for profile in results.scenario_profiles() {
        let mut cells = vec![format!("`{}`", esc(&profile))];
        for t in &targets {
            cells.push(
                compare(p, t, &profile)
                    .map(|c| cell(&c))
                    .unwrap_or_else(|| "–".to_string()),
            );
        }
        out.push_str(&row(&cells));
    }
    out.push('\n');
}

fn aws_efs(out: &mut String, results: &ResultSet, p: &[Prediction]) {
    let rows: Vec<&Prediction> = p
        .iter()
        .filter(|x| x.target == AWS_EFS && x.scenario == SUITE)
        .collect();
    if rows.is_empty() {
        return;
    }
    let base = results.run_names().first().cloned().unwrap_or_default();
    let has_ebs = results.runs.iter().any(|r| r.name == EBS_RUN && r.present);
    out.push_str("## Real AWS EFS, predicted from its published latencies (`scenario/suite`)\n\n");
    let _ = writeln!(
        out,
        "Predicted EFS time = time on `{}` + operations × (published EFS latency − `{}`'s \
         cost); EFS latencies: metadata {} µs, read {} µs, write {} µs, sync {} µs. The \
         published slowdown is Transact 0.3.7's suite on an AWS t2.medium, EFS over EBS; ours \
         divides by {}.\n",
        esc(&base),
        esc(&base),
        PUBLISHED_EFS_US.metadata,
        PUBLISHED_EFS_US.read,
        PUBLISHED_EFS_US.write,
        PUBLISHED_EFS_US.sync,
        if has_ebs {
            format!("the `{EBS_RUN}` run's measured time")
        } else {
            format!("the `{}` time (no `{EBS_RUN}` run)", esc(&base))
        }
    );
    out.push_str(&header(
        &[
            "profile",
            &format!("measured on {}", esc(&base)),
            "predicted on EFS",
            "predicted slowdown",
            "published EFS slowdown",
        ]
        .map(|s| s.to_string()),
    ));
    for x in rows {
        let reference = if has_ebs {
            results
                .runs
                .iter()
                .find(|r| r.name == EBS_RUN)
                .and_then(|r| {
                    r.benches
                        .get(&crate::model::bench_id::BenchKey::new(
                            &format!("scenario/{SUITE}"),
                            Some(&x.profile),
                            None,
                        ))
                        .map(|m| m.mean.point)
                })
        } else {
            Some(x.baseline_ns)
        };
        let published = PUBLISHED_EFS
            .iter()
            .find(|s| s.profile == x.profile)
            .map(|s| {
                format!(
                    "{} ({}: {} s → {} s)",
                    ratio(s.slowdown()),
                    s.published_as,
                    s.ebs_s,
                    s.efs_s
                )
            })
            .unwrap_or_else(|| "–".to_string());
        out.push_str(&row(&[
            format!("`{}`", esc(&x.profile)),
            time_ns(x.baseline_ns),
            time_ns(x.predicted_ns),
            reference
                .map(|r| ratio(x.predicted_ns / r))
                .unwrap_or_else(|| "–".to_string()),
            published,
        ]));
    }
    out.push('\n');
}
