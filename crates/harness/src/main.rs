//! `triebench`: the command line of the triebench workspace.
//!
//! `triebench root` replays a JSON Lines commit file on a backend and prints each state root;
//! `triebench profiles` lists the backend profiles; `report`, `capture-fs` and `io-profile` make
//! result folders (see their `--help`). Errors print as `error: {message}` and exit with status 1.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use triebench_harness::commit_file::{replay, ReplayError};
use triebench_harness::iolab::{io_profile, IoLabError};
use triebench_harness::report::{self, ReportArgs, ReportError};
use triebench_kv::{BackendSpec, KvError, Profile, Store, StoreVisitor};

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
    Root(RootArgs),
    /// List the backend profiles with their durability per commit.
    Profiles,
    /// Turn saved criterion runs (one baseline per filesystem) into a result folder: report.md
    /// with slowdown ratios and 95% bootstrap CIs, ratios.csv/json, env.json and plots.
    Report(ReportCliArgs),
    /// Record which filesystem a run's directory is on and what it charges per operation class
    /// (median µs of a metadata lookup, a 4 KiB read, a 4 KiB write, an fdatasync), for
    /// `report` (scripts/bench-fs.sh calls this before each run).
    CaptureFs(CaptureFsArgs),
    /// Count what every scenario asks of the filesystem, per backend profile, on a slowfs
    /// mount (profile `none`; `scripts/fs-lab.sh iolab` prints the lab's): operations per
    /// class, fsyncs and bytes, per scenario and per commit. `report` shows them and predicts
    /// each filesystem's slowdown from them.
    IoProfile(IoProfileArgs),
}

#[derive(Debug, Args)]
struct IoProfileArgs {
    /// The root of a slowfs mount (it serves `.slowfs-stats`).
    #[arg(long, value_name = "DIR")]
    dir: PathBuf,
    /// Backend profiles to count, comma-separated [default: every profile built in].
    #[arg(long, value_name = "A,B", value_delimiter = ',')]
    profiles: Vec<String>,
    /// Output file [default: CRITERION_DIR/triebench-runs/io-profile.json, where report
    /// finds it].
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Criterion's output directory [default: $CARGO_TARGET_DIR/criterion or target/criterion].
    #[arg(long, value_name = "DIR")]
    criterion_dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
struct ReportCliArgs {
    /// The run (criterion baseline name) every slowdown is relative to, e.g. `tmpfs`.
    #[arg(long, value_name = "NAME")]
    baseline: String,
    /// Runs to compare (repeatable); default every saved baseline.
    #[arg(long = "runs", value_name = "NAME", num_args = 1..)]
    runs: Vec<String>,
    /// Output folder [default: results/DATE-HOST-LABEL].
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Criterion's output directory [default: $CARGO_TARGET_DIR/criterion or target/criterion].
    #[arg(long, value_name = "DIR")]
    criterion_dir: Option<PathBuf>,
    /// Label in the default folder name [default: the run names joined with `-`].
    #[arg(long)]
    label: Option<String>,
}

#[derive(Debug, Args)]
struct CaptureFsArgs {
    /// The run name (the criterion baseline it will be saved as).
    name: String,
    /// The directory the run will use as TMPDIR.
    dir: PathBuf,
    /// Criterion's output directory [default: $CARGO_TARGET_DIR/criterion or target/criterion].
    #[arg(long, value_name = "DIR")]
    criterion_dir: Option<PathBuf>,
    /// Skip the latency probe (about a second on a local disk, longer on slow storage).
    #[arg(long)]
    no_latency: bool,
}

#[derive(Debug, Args)]
struct RootArgs {
    /// The commit file; `-` or nothing reads standard input.
    file: Option<PathBuf>,
    /// Backend profile (`triebench profiles` lists them).
    #[arg(long, value_name = "NAME", default_value = "btree")]
    backend: String,
    /// Directory for the data of file-backed profiles [default: a fresh temporary directory,
    /// removed on exit].
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
}

/// Everything the CLI reports.
#[derive(Debug, thiserror::Error)]
enum CliError {
    /// A bad profile, or a backend that failed to open.
    #[error(transparent)]
    Backend(#[from] KvError),
    /// A bad line or a failed commit.
    #[error(transparent)]
    Replay(#[from] ReplayError),
    /// The commit file could not be opened.
    #[error("cannot open {}: {source}", path.display())]
    Input {
        /// The file given.
        path: PathBuf,
        /// The OS error.
        source: io::Error,
    },
    /// No temporary directory could be made for a file-backed profile.
    #[error("cannot create a temporary directory (set TMPDIR or pass --dir): {0}")]
    TempDir(#[source] io::Error),
    /// A report could not be written.
    #[error(transparent)]
    Report(#[from] ReportError),
    /// Standard output failed.
    #[error("cannot write output: {0}")]
    Write(#[source] io::Error),
    /// An I/O profile could not be taken.
    #[error(transparent)]
    IoLab(#[from] IoLabError),
}

/// Replays a commit file on whichever store the backend spec opens.
struct ReplayVisitor<R> {
    input: R,
}

impl<R: BufRead> StoreVisitor for ReplayVisitor<R> {
    type Output = Result<usize, ReplayError>;

    fn visit<S: Store>(self, store: S) -> Self::Output {
        let stdout = io::stdout();
        let mut out = stdout.lock();
        replay(&store, self.input, &mut out)
    }
}

fn run_root(args: RootArgs) -> Result<(), CliError> {
    let profile: Profile = args.backend.parse()?;
    // Keeps a temporary directory alive until the store is closed.
    let mut _temp = None;
    let dir = match args.dir {
        Some(dir) => {
            if !profile.needs_dir() {
                eprintln!("note: backend `{profile}` keeps nothing on disk; --dir is ignored");
            }
            Some(dir)
        }
        None if profile.needs_dir() => {
            let temp = tempfile::Builder::new()
                .prefix("triebench-root-")
                .tempdir()
                .map_err(CliError::TempDir)?;
            eprintln!(
                "note: no --dir given; backend `{profile}` uses the temporary directory {} \
                 (removed on exit)",
                temp.path().display()
            );
            let path = temp.path().to_path_buf();
            _temp = Some(temp);
            Some(path)
        }
        None => None,
    };
    let spec = BackendSpec::new(profile, dir)?;
    let tables = triebench_merkle::TABLES;
    match args.file {
        Some(path) if path.as_os_str() != "-" => {
            let file = File::open(&path).map_err(|source| CliError::Input { path, source })?;
            spec.open(
                tables,
                ReplayVisitor {
                    input: BufReader::new(file),
                },
            )??;
        }
        _ => {
            let stdin = io::stdin();
            spec.open(
                tables,
                ReplayVisitor {
                    input: stdin.lock(),
                },
            )??;
        }
    }
    Ok(())
}

fn run_profiles() -> Result<(), CliError> {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let mut print = || -> io::Result<()> {
        writeln!(
            out,
            "{:<16} {:<14} {:<13} {:<6} description",
            "profile", "durability", "fsync/commit", "built"
        )?;
        for profile in Profile::ALL {
            writeln!(
                out,
                "{:<16} {:<14} {:<13} {:<6} {}",
                profile.name(),
                profile.durability().name(),
                if profile.fsyncs_each_commit() {
                    "yes"
                } else {
                    "no"
                },
                if profile.is_enabled() { "yes" } else { "no" },
                profile.describe()
            )?;
        }
        out.flush()
    };
    print().map_err(CliError::Write)
}

fn run_report(args: ReportCliArgs) -> Result<(), CliError> {
    let folder = report::run_report(&ReportArgs {
        baseline: args.baseline,
        runs: args.runs,
        out: args.out,
        criterion_dir: args.criterion_dir,
        label: args.label,
        results_root: PathBuf::from("results"),
    })?;
    println!("report written to {}", folder.display());
    Ok(())
}

fn run_capture_fs(args: CaptureFsArgs) -> Result<(), CliError> {
    let (sidecar, info) = report::capture_fs(
        &args.name,
        &args.dir,
        args.criterion_dir.as_deref(),
        !args.no_latency,
    )?;
    println!(
        "run `{}`: {} is on {} ({}, mounted at {}); recorded in {}",
        args.name,
        args.dir.display(),
        info.device,
        info.fs_type,
        info.mount_point,
        sidecar.display()
    );
    if let Some(lat) = info.latency_us {
        println!(
            "run `{}`: median µs per operation: metadata {:.1}, read {:.1}, write {:.1}, sync {:.1}",
            args.name, lat.metadata, lat.read, lat.write, lat.sync
        );
    }
    Ok(())
}

fn run_io_profile(args: IoProfileArgs) -> Result<(), CliError> {
    let profiles = if args.profiles.is_empty() {
        Profile::enabled()
    } else {
        let mut chosen = Vec::new();
        for name in &args.profiles {
            let profile: Profile = name.trim().parse()?;
            BackendSpec::new(profile, Some(args.dir.clone()))?;
            chosen.push(profile);
        }
        chosen
    };
    let out = args.out.unwrap_or_else(|| {
        args.criterion_dir
            .unwrap_or_else(report::default_criterion_dir)
            .join(report::fs_info::SIDECAR_DIR)
            .join(io_profile::FILE_NAME)
    });
    let file = io_profile::collect(&args.dir, &profiles, |row| {
        let c = &row.counts;
        eprintln!(
            "io-profile: {:<16} {:<44} {:>5} commits: {:>7} fsyncs {:>8} writes {:>10} bytes \
             written {:>8} reads {:>8} metadata",
            row.profile,
            row.scenario,
            row.commits,
            c.fsyncs,
            c.ops.write,
            c.bytes_written,
            c.ops.read,
            c.ops.metadata
        );
    })?;
    file.save(&out)?;
    println!("I/O profile written to {}", out.display());
    Ok(())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Root(args) => run_root(args),
        Command::Profiles => run_profiles(),
        Command::Report(args) => run_report(args),
        Command::CaptureFs(args) => run_capture_fs(args),
        Command::IoProfile(args) => run_io_profile(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::FAILURE
        }
    }
}
