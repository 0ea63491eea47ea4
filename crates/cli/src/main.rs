//! `triebench`: the command line of the triebench workspace.
//!
//! `triebench root` replays a JSON Lines commit file on a backend and prints each state root;
//! `triebench profiles` lists the backend profiles; `report`, `capture-fs` and `io-profile` make
//! result folders (see their `--help`). Errors print as `error: {message}` and exit with status 1;
//! a `load` stopped by Ctrl-C prints `stopped: {where its results are}` and exits with 130.
//!
//! Each subcommand is one file in [`commands`]: its arguments, converted into the options of
//! the library step that does the work (`triebench-plan`'s steps, `triebench-crashlab`'s
//! rounds), and one call into it. Nothing in this crate measures, records or renders.

mod commands;
mod error;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use error::CliError;

use commands::{
    bench, capture_fs, compare, crash_child, crash_mount, crash_test, engines, engines_report,
    export, export_run, field, grow, grow_report, headline, io_profile, load, net_report, phases,
    profiles, report, root, smallbank,
};

/// Benchmarks of a Transact-compatible Merkle-Radix trie over pluggable key-value backends.
#[derive(Debug, Parser)]
#[command(name = "triebench", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Replay a JSON Lines commit file from the empty root and print each new state root.
    ///
    /// Each non-blank line of the file is one commit:
    ///
    ///     {"set": {"<address hex>": "<value hex>", ...}, "delete": ["<address hex>", ...]}
    ///
    /// Both keys are optional; any other key is an error. Addresses are lowercase hex
    /// of even length (production addresses are 70 characters); values are hex bytes.
    /// Within a line the sets apply first, then the deletes, as one commit: an address
    /// both set and deleted on one line ends up deleted. Each commit's root is printed
    /// on its own line. The first bad line (invalid JSON or hex, an invalid address, a
    /// delete of an absent address) stops the replay with an error naming the line.
    #[command(verbatim_doc_comment)]
    Root(root::RootArgs),
    /// List the backend profiles with their durability per commit.
    Profiles,
    /// Turn saved criterion runs (one baseline per filesystem) into a result folder: report.md
    /// with slowdown ratios and 95% bootstrap CIs, ratios.csv/json, env.json and plots.
    Report(report::ReportCliArgs),
    /// Record which filesystem a run's directory is on and what it charges per operation class
    /// (median µs of a metadata lookup, a 4 KiB read, a 4 KiB write, an fdatasync), for
    /// `report` (scripts/bench-fs.sh calls this before each run).
    CaptureFs(capture_fs::CaptureFsArgs),
    /// Count what every scenario asks of the filesystem, per backend profile, on a slowfs
    /// mount (profile `none`; `scripts/fs-lab.sh iolab` prints the lab's): operations per
    /// class, fsyncs and bytes, per scenario and per commit. `report` shows them and predicts
    /// each filesystem's slowdown from them.
    IoProfile(io_profile::IoProfileArgs),
    /// Sustained commits per second with readers running: preload a production-shaped state,
    /// run an open-loop writer (latency from each commit's intended start) and closed-loop
    /// readers per readers × rate cell, or search the saturation point (`--saturate`); writes
    /// load.json, timeseries.csv and plots. `--compare A B` sets two load.json side by side.
    Load(load::LoadArgs),
    /// Kill a process committing random batches at random moments (SIGKILL; with --power-loss,
    /// cut power on a slowfs mount first) and check that every root it acknowledged survived:
    /// it opens, its leaves read back and recompute it. Prints one summary line; --out DIR
    /// writes DIR/crash.json (rounds, acknowledged, lost, corrupt, per profile and mode).
    CrashTest(crash_test::CrashTestArgs),
    /// The process crash-test starts and kills (internal).
    #[command(hide = true)]
    CrashChild(crash_child::CrashChildArgs),
    /// The power-loss mount crash-test serves in a process of its own (internal).
    #[command(hide = true)]
    CrashMount(crash_mount::CrashMountArgs),
    /// Where a commit's time goes, per backend profile, on one filesystem: every scenario once
    /// per profile with the phase spans timed (node reads, hashing, encoding, storage writes,
    /// commit), saved where `report` finds it (scripts/bench-fs.sh calls this per filesystem).
    Phases(phases::PhasesArgs),
    /// The headline on one filesystem: every scenario and the suite on every profile, each run
    /// on a fresh store, with ten samples per run of a scenario that repeats a step (`update`'s
    /// commits and reads), so a slow profile needs one run where criterion needs eleven, and
    /// each profile's storage floor (300 of `update`'s commits per round, replayed without the
    /// trie, taken in the same rounds as `update`), and each fresh store's set-up time
    /// (`setup/open`, outside the scenarios' timings), and first the fsync and SHA-512 floors
    /// and a phase span's cost; saved as criterion baselines named by --run
    /// (scripts/bench-fs.sh calls this per filesystem).
    Headline(headline::HeadlineArgs),
    /// The main job, per filesystem NAME=DIR: capture-fs, the headline (or criterion's benches),
    /// the phase breakdown, optionally the load search, then the I/O profile on the lab's slowfs
    /// mount, the report and a run folder per filesystem. Prints the plan first and each step's
    /// time at the end (docs/bench.md).
    Bench(bench::BenchArgs),
    /// Copy one run out of the criterion directory into a self-contained run folder
    /// (HOST-NAME-DATE, with manifest.json and env.json) that `report --runs` merges with
    /// folders from other machines; prints its path.
    ExportRun(export_run::ExportRunArgs),
    /// Did it get slower? Two result folders, run folders, criterion directories or criterion
    /// baselines (`criterion:NAME`) benchmark by benchmark: both means, the ratio B / A with
    /// its bootstrap interval, and a verdict (slower / faster / no change) against a noise
    /// threshold; `--fail-above 5%` exits with status 1 when anything regressed beyond it.
    Compare(compare::CompareArgs),
    /// A result folder, run folder, criterion directory or `criterion:NAME` as the JSON a CI
    /// dashboard reads: github-action-benchmark's `customSmallerIsBetter` or Bencher's metric
    /// format, named `<run>/<benchmark>` (stable across runs).
    Export(export::ExportArgs),
    /// How cost grows with state: fill a production-shaped state in large batches and, at
    /// 10^3, 10^4, ... leaves, measure fill rate, commit latency (1 and 100 keys), warm and
    /// cold reads, bytes on disk and written, RSS, and the path-compression what-if; prints a
    /// table and writes grow.json plus a CSV per checkpoint (docs/grow.md). --memory runs it
    /// in a memory cgroup.
    Grow(grow::GrowArgs),
    /// Turn the growth curves (grow.json) under a folder into grow-report.md, the section "How
    /// cost grows with state", with its log-log plots in plots/.
    GrowReport(grow_report::GrowReportArgs),
    /// Turn the headline run records and load.json files under a folder (runs at several
    /// --net-rtt) into net-report.md: suite time, `update` against its storage floor and the
    /// writer under load per round trip added, with a plot of suite time against it in plots/.
    NetReport(net_report::NetReportArgs),
    /// SmallBank end to end: Transact 0.4.7's seeded SmallBank playlist in blocks, executed by
    /// Transact's own scheduler, executor and handler over triebench's state on --profile,
    /// each block committed and the previous root pruned, beside Transact's MerkleState (in
    /// memory) in the same process; every block's root must be the same on both. Prints
    /// tx/s, blocks/s and per-block execute/commit p50/p99 for both; --out writes JSON,
    /// --trace the run as a commit file `triebench root` replays.
    Smallbank(smallbank::SmallbankArgs),
    /// The field's published workloads as their authors specify them, over Transact addresses:
    /// Firewood's create, tenkrandom, zipf and single, IAVL-bench's bank shape; sized by
    /// --scale. Prints commits/s, leaves/s and p50/p99 per commit; --out writes JSON.
    Field(field::FieldArgs),
    /// Authenticated state engines side by side: our trie and a Jellyfish Merkle tree (JMT),
    /// each on each --profiles store in --dir, roots checked batch by batch against the
    /// engine's own reference first (a wrong root stops the run). Then Transact's `update`
    /// workload and a growth fill of --leaves; prints per engine and profile commits/s, p50/p99
    /// per commit, bytes written per commit, bytes on disk and nodes per leaf, warm and cold
    /// reads, proof size and prove/verify time; --out writes JSON and the report's section.
    Engines(engines::EnginesArgs),
    /// Turn the engines runs (engines.json) in a folder and the folders right below it (one
    /// per filesystem) into engines-report.md, the section "Engines side by side", with its
    /// plot in plots/.
    EnginesReport(engines_report::EnginesReportArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Root(args) => root::run_root(args),
        Command::Smallbank(args) => smallbank::run_smallbank(args),
        Command::Field(args) => field::run_field(args),
        Command::Engines(args) => engines::run_engines(args),
        Command::EnginesReport(args) => engines_report::run_engines_report(args),
        Command::Profiles => profiles::run_profiles(),
        Command::Report(args) => report::run_report(args),
        Command::CaptureFs(args) => capture_fs::run_capture_fs(args),
        Command::IoProfile(args) => io_profile::run_io_profile(args),
        Command::Load(args) => load::run_load_command(args),
        Command::CrashTest(args) if args.model.is_some() || args.fsync_eio => {
            crash_test::run_explore(args)
        }
        Command::CrashTest(args) if args.failover => crash_test::run_failover(args),
        Command::CrashTest(args) => crash_test::run_crash_test(args),
        Command::CrashChild(args) => crash_child::run_crash_child(args),
        Command::CrashMount(args) => crash_mount::run_crash_mount(args),
        Command::Phases(args) => phases::run_phases(args),
        Command::Headline(args) => headline::run_headline(args),
        Command::Bench(args) => bench::run_bench(args),
        Command::ExportRun(args) => export_run::run_export_run(args),
        Command::Compare(args) => compare::run_compare(args),
        Command::Export(args) => export::run_export(args),
        Command::Grow(args) => grow::run_grow(args),
        Command::GrowReport(args) => grow_report::run_grow_report(args),
        Command::NetReport(args) => net_report::run_net_report(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err @ CliError::Interrupted(_)) => {
            eprintln!("stopped: {err}");
            ExitCode::from(130)
        }
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::FAILURE
        }
    }
}
