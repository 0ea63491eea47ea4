//! "Can these figures be trusted?", the report's opening section (in `report.md`, and so in
//! `report.html`, which is converted from it): the host of each run (CPU, cores, SHA-512
//! speed), how busy it was while the run measured, what idle CPUs did, and every anomaly
//! [`trust::find`](crate::analysis::trust::find) found in the report's own data, each kind with why it matters and each row
//! with the command that measures it again.

use std::fmt::Write as _;

use crate::analysis::ratios::Comparison;
use crate::analysis::trust::{Anomaly, Flag, BUSY_SHARE, MIN_SAMPLES, WIDE};
use crate::model::bench_id::{BenchKey, FLOOR_SHA512};
use crate::model::cpu_idle::CpuIdleRecord;
use crate::model::env::HostInfo;
use crate::model::results::{ResultSet, RunResults};
use crate::render::fmt;
use crate::render::table::{esc, header, row};

/// The section's heading.
pub const HEADING: &str = "Can these figures be trusted?";

/// The anomaly kinds in the order the section lists them: a key, a title, and why it matters.
const KINDS: [(&str, &str, &str); 5] = [
    (
        "busy",
        "The machine was busy",
        "other processes used, or the hypervisor stole, more than a tenth of the CPU while these \
         profiles were measured: their times include waiting for a CPU, which is the machine's \
         state, not the storage's cost, and a ratio against a quieter run mixes the two.",
    ),
    (
        "inversion",
        "Faster on the slower filesystem",
        "the same work cannot take less time where every write costs more; a ratio wholly on the \
         wrong side of 1 means something other than the filesystem differs between the runs \
         (one-time set-up inside the timed work, a store's state, the machine's load), and the \
         profile's slowdown on this filesystem is not its cost there. Where the filesystem is \
         off the commit's path (a server keeping its data in memory: `redis`, \
         `redis-uncached`, `redis-replica-wait`; or one writing without waiting: \
         `postgres-async`), the ratio should be 1 and its distance from 1 is run-to-run drift: \
         no ratio in this report can show a smaller difference.",
    ),
    (
        "negative",
        "Commits cheaper than their own storage floor",
        "the floor is the store's own writes of that commit without the trie; a commit that \
         costs less than its floor means floor and commit were not measured alike (minutes \
         apart on a noisy disk, another store state), so neither that floor nor what is \
         \"above\" it is a figure.",
    ),
    (
        "wide",
        "Intervals too wide to say anything",
        "the 95% interval reaches further than a quarter of the figure itself: the runs \
         disagreed with each other, and the point shown could be off by as much.",
    ),
    (
        "few",
        "Too few samples",
        "an interval from so few samples rests on an assumption of normal noise that few \
         samples cannot check; one slow outlier moves the mean unseen.",
    ),
];

fn kind_key(a: &Anomaly) -> &'static str {
    match a {
        Anomaly::BusyHost { .. } => "busy",
        Anomaly::Inversion { .. } => "inversion",
        Anomaly::NegativeAboveFloor { .. } => "negative",
        Anomaly::WideMean { .. } | Anomaly::WideRatio { .. } => "wide",
        Anomaly::FewSamples { .. } => "few",
    }
}

fn bench(key: &BenchKey) -> String {
    format!("`{}`", esc(&key.full_id()))
}

/// Where a flag is (run and benchmark) and the figure that raised it.
fn describe(a: &Anomaly) -> (String, String) {
    match a {
        Anomaly::BusyHost {
            what,
            others,
            steal,
            load_1m,
            ..
        } => (
            format!("`{}`", esc(what)),
            format!(
                "others used {:.0}% of the CPU, {:.0}% stolen; load average {:.2}",
                others * 100.0,
                steal * 100.0,
                load_1m
            ),
        ),
        Anomaly::Inversion {
            run,
            baseline,
            key,
            run_slower,
            ratio,
            low,
            high,
        } => (
            bench(key),
            format!(
                "`{}` ÷ `{}` {}; `{}` is the slower filesystem",
                esc(run),
                esc(baseline),
                fmt::ratio_ci(*ratio, *low, *high),
                esc(if *run_slower { run } else { baseline })
            ),
        ),
        Anomaly::NegativeAboveFloor { profile, above, .. } => (
            format!("`{}` `update` commit", esc(profile)),
            format!(
                "floor {} · update {} · above {} [{} – {}]",
                fmt::time_ns(above.floor_ns),
                fmt::time_ns(above.update_ns),
                fmt::time_ns(above.above.point),
                fmt::time_ns(above.above.lower),
                fmt::time_ns(above.above.upper)
            ),
        ),
        Anomaly::WideMean { key, mean, .. } => (
            bench(key),
            format!(
                "mean {} [{} – {}] (−{:.0}% / +{:.0}%)",
                fmt::time_ns(mean.point),
                fmt::time_ns(mean.lower),
                fmt::time_ns(mean.upper),
                100.0 * (1.0 - mean.lower / mean.point),
                100.0 * (mean.upper / mean.point - 1.0)
            ),
        ),
        Anomaly::WideRatio {
            comparison,
            run,
            reference_run,
            key,
            ratio,
            low,
            high,
        } => (
            bench(key),
            format!(
                "{} {}",
                match comparison {
                    Comparison::SlowdownVsBaseline =>
                        format!("`{}` ÷ `{}`", esc(run), esc(reference_run)),
                    Comparison::OverheadVsBtree => "÷ `btree`".to_string(),
                },
                fmt::ratio_ci(*ratio, *low, *high)
            ),
        ),
        Anomaly::FewSamples { key, samples, .. } => (
            bench(key),
            format!("{samples} sample(s), fewer than {MIN_SAMPLES}"),
        ),
    }
}

/// A run's CPU and cores: its run record's host, else the report's own (said so).
fn host_cells(run: &RunResults, report_host: &HostInfo) -> (String, String) {
    match &run.host {
        Some(h) => (esc(&h.cpu_model), h.cores.to_string()),
        None => (
            format!(
                "{} (the report's host; no run record)",
                esc(&report_host.cpu_model)
            ),
            report_host.cores.to_string(),
        ),
    }
}

fn sha512_cell(results: &ResultSet, run: &str) -> String {
    match results.get(run, &BenchKey::new("floor", Some(FLOOR_SHA512), None)) {
        Some(m) => format!(
            "{} [{}–{}]",
            fmt::time_ns(m.mean.point),
            fmt::time_ns(m.mean.lower),
            fmt::time_ns(m.mean.upper)
        ),
        None => "not measured (`triebench headline` measures it)".to_string(),
    }
}

fn load_cell(run: &RunResults) -> String {
    let Some(load) = &run.host_load else {
        return "not recorded".to_string();
    };
    let Some(worst) = load.worst() else {
        return "not recorded".to_string();
    };
    format!(
        "load average up to {:.2} on {} CPUs; others used up to {:.0}% of the CPU, {:.0}% \
         stolen (worst: `{}`, {} stretches)",
        load.peak_load().unwrap_or(0.0),
        load.cores,
        worst.others() * 100.0,
        worst.steal * 100.0,
        esc(&worst.what),
        load.spans.len()
    )
}

/// Appends the section: the runs' hosts and load, then every flag by kind.
pub fn render(out: &mut String, results: &ResultSet, report_host: &HostInfo, flags: &[Flag]) {
    let _ = writeln!(
        out,
        "## {HEADING}\n\n\
         Before the figures, what could make them wrong: the machine each run was taken on \
         and how busy it was, and every figure in this report's own data that does not hold \
         up, each with why it matters and the command that measures it again (into a fresh \
         run name, `<run>-recheck`, so this report's runs stay as they are).\n"
    );
    out.push_str(&header(
        &[
            "run",
            "CPU",
            "cores",
            "SHA-512 of 8 KiB",
            "idle CPUs",
            "load while it measured",
        ]
        .map(str::to_string),
    ));
    for run in results.runs.iter().filter(|r| r.present) {
        let (cpu, cores) = host_cells(run, report_host);
        out.push_str(&row(&[
            format!("`{}`", esc(&run.name)),
            cpu,
            cores,
            sha512_cell(results, &run.name),
            esc(&CpuIdleRecord::describe_or_unrecorded(
                run.cpu_idle.as_ref(),
            )),
            load_cell(run),
        ]));
    }
    let _ = writeln!(
        out,
        "\nThe trie hashes every node it writes, so SHA-512's speed sets `btree`'s time and with \
         it every ratio against `btree` (the same binary took 8.8 µs per 8 KiB on the project's \
         VM and 28.8 µs on a 16-core Intel Xeon host; see the summary below for what moved). \
         *Load* is sampled from `/proc` per stretch of a run (the small benchmarks, then each \
         profile): *others* is CPU used by processes other than triebench and the servers it \
         started, *stolen* the hypervisor's, both as shares of all CPUs' time.\n"
    );
    if flags.is_empty() {
        let _ = writeln!(
            out,
            "**Nothing in this data is flagged**: no profile is faster on the slower filesystem \
             beyond its interval, no commit costs less than its storage floor, every interval \
             lies within ±{:.0}% of its figure, every mean rests on {MIN_SAMPLES} or more \
             samples, and where load was recorded others took at most {:.0}% of the CPU.\n",
            WIDE * 100.0,
            BUSY_SHARE * 100.0
        );
        return;
    }
    let _ = writeln!(
        out,
        "**{} figure(s) flagged.** Read the tables below with these in mind.\n",
        flags.len()
    );
    for (key, title, why) in KINDS {
        let of_kind: Vec<&Flag> = flags
            .iter()
            .filter(|f| kind_key(&f.anomaly) == key)
            .collect();
        if of_kind.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            "### {title} ({})\n\nWhy it matters, for every row: {why}\n",
            of_kind.len()
        );
        out.push_str(&header(
            &["run", "where", "figure", "measure it again"].map(str::to_string),
        ));
        for f in of_kind {
            let (place, figure) = describe(&f.anomaly);
            let run = match &f.anomaly {
                Anomaly::BusyHost { run, .. }
                | Anomaly::Inversion { run, .. }
                | Anomaly::NegativeAboveFloor { run, .. }
                | Anomaly::WideMean { run, .. }
                | Anomaly::WideRatio { run, .. }
                | Anomaly::FewSamples { run, .. } => run,
            };
            out.push_str(&row(&[
                format!("`{}`", esc(run)),
                place,
                figure,
                format!("`{}`", esc(&f.rerun)),
            ]));
        }
        out.push('\n');
    }
}
