//! `triebench load`: sustained commits per second with readers running. Preloads a
//! production-shaped state, then runs an open-loop writer and closed-loop readers for every
//! readers × rate cell, or searches the saturation point (`--saturate`), and writes `load.json`,
//! `timeseries.csv` and plots; `--compare A B` sets two `load.json` side by side.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use triebench_plan::step::load::{compare, load, LoadOptions};
use triebench_plan::step::load_args::{parse_duration, parse_list};
use triebench_record::CpuIdle;

use crate::error::CliError;

#[derive(Debug, Args)]
pub struct LoadArgs {
    /// Backend profile (`triebench profiles` lists them).
    #[arg(long, value_name = "NAME", default_value = "btree")]
    pub backend: String,
    /// Directory for the store [default: a fresh temporary directory, removed on exit, or by
    /// the next run if this one is killed].
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Leaves preloaded before the runs (not timed).
    #[arg(long, value_name = "N", default_value_t = 100_000)]
    pub state_size: u64,
    /// Changes per commit (80% updates, 10% inserts, 10% deletes).
    #[arg(long, value_name = "K", default_value_t = 10)]
    pub commit_size: usize,
    /// Reader threads (1024 at most); a comma-separated list runs a matrix row per entry.
    #[arg(long, value_name = "C,..", default_value = "2")]
    pub readers: String,
    /// Offered commits per second; a list runs a matrix column per entry.
    #[arg(
        long,
        value_name = "R,..",
        default_value = "100",
        allow_hyphen_values = true
    )]
    pub rate: String,
    /// Length of each run (of each search step with --saturate): `10s`, `500ms`, `2m`.
    #[arg(long, value_name = "S", value_parser = parse_duration)]
    pub duration: Option<Duration>,
    /// Output folder.
    #[arg(long, value_name = "DIR", default_value = "load-out")]
    pub out: PathBuf,
    /// Search the highest rate that holds the p99 bound (grow, then bisect), with the first
    /// --readers entry, instead of running the matrix. A rate that fails on its p99 alone over
    /// fewer than 400 commits runs again (3 runs at most) and is judged over all its runs.
    #[arg(long)]
    pub saturate: bool,
    /// A run holds when commit p99 stays within this bound (and it achieves 95% of the rate).
    #[arg(long, value_name = "T", default_value = "100ms", value_parser = parse_duration)]
    pub p99_bound: Duration,
    /// Time limit of a saturation search, preload excluded; no step starts past it.
    #[arg(long, value_name = "T", default_value = "120s", value_parser = parse_duration)]
    pub budget: Duration,
    /// Smallest value, bytes (sizes are drawn log-uniformly between the two bounds).
    #[arg(long, value_name = "B", default_value_t = 32)]
    pub value_min: usize,
    /// Largest value, bytes.
    #[arg(long, value_name = "B", default_value_t = 1024)]
    pub value_max: usize,
    /// Seed of keys and values.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Skip the plots (load.json and timeseries.csv only).
    #[arg(long)]
    pub no_plots: bool,
    /// Print every figure of two load.json files (or folders holding one) side by side with
    /// the ratio B ÷ A, and run nothing.
    #[arg(long, num_args = 2, value_names = ["A", "B"])]
    pub compare: Vec<PathBuf>,
    /// Time each phase of the writer's commits (node reads, hashing, encoding, storage
    /// writes, commit) over every run and write `{"total_ns", "phases": {name: ns}, ...}` to
    /// FILE, also printed on standard error. `total_ns` is the writer's time in its commits
    /// (its waits for each commit's turn left out). Needs `--readers 0`.
    #[arg(long, value_name = "FILE")]
    pub phases: Option<PathBuf>,
    /// Sample the whole run (preload, writer, readers) into a flamegraph SVG.
    #[arg(long, value_name = "FILE")]
    pub flamegraph: Option<PathBuf>,
    /// What idle CPUs do while the load runs, as for `headline`: `poll` (hold
    /// /dev/cpu_dma_latency at 0 µs when root) or `os`. Recorded in load.json.
    #[arg(long, value_name = "MODE", default_value = "poll")]
    pub cpu_idle: CpuIdle,
    #[command(flatten)]
    pub net: crate::commands::net_arg::NetArgs,
}

pub fn run_load_command(args: LoadArgs) -> Result<(), CliError> {
    args.net.apply()?;
    if let [a, b] = args.compare.as_slice() {
        return Ok(compare(a, b)?);
    }
    let options = LoadOptions {
        backend: args.backend,
        dir: args.dir,
        state_size: args.state_size,
        commit_size: args.commit_size,
        readers: parse_list("--readers", &args.readers)?,
        rates: parse_list("--rate", &args.rate)?,
        duration: args.duration,
        out: args.out,
        saturate: args.saturate,
        p99_bound: args.p99_bound,
        budget: args.budget,
        value_min: args.value_min,
        value_max: args.value_max,
        seed: args.seed,
        plots: !args.no_plots,
        phases: args.phases,
        flamegraph: args.flamegraph,
        cpu_idle: args.cpu_idle,
    };
    Ok(load(&options)?)
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Debug, Parser)]
    struct LoadCli {
        #[command(flatten)]
        args: LoadArgs,
    }

    /// The main job's load step fills in what it does not set from `LoadOptions::default()`,
    /// which must be what `triebench load` with no flags runs.
    #[test]
    fn the_flags_defaults_are_the_steps_defaults() {
        let args = LoadCli::parse_from(["load"]).args;
        let d = LoadOptions::default();
        assert_eq!(args.backend, d.backend);
        assert_eq!(args.dir, d.dir);
        assert_eq!(args.state_size, d.state_size);
        assert_eq!(args.commit_size, d.commit_size);
        assert_eq!(
            parse_list::<usize>("--readers", &args.readers).unwrap(),
            d.readers
        );
        assert_eq!(parse_list::<f64>("--rate", &args.rate).unwrap(), d.rates);
        assert_eq!(args.duration, d.duration);
        assert_eq!(args.out, d.out);
        assert_eq!(args.saturate, d.saturate);
        assert_eq!(args.p99_bound, d.p99_bound);
        assert_eq!(args.budget, d.budget);
        assert_eq!((args.value_min, args.value_max), (d.value_min, d.value_max));
        assert_eq!(args.seed, d.seed);
        assert_eq!(!args.no_plots, d.plots);
        assert_eq!(args.phases, d.phases);
        assert_eq!(args.flamegraph, d.flamegraph);
        assert_eq!(args.cpu_idle, d.cpu_idle);
    }
}
