//! `triebench root`: replays a JSON Lines commit file from the empty root on a backend and
//! prints each new state root.

use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::PathBuf;

use clap::Args;
use triebench_kv::{BackendSpec, Profile, Store, StoreVisitor, TempStoreDir};
use triebench_measure::phases::measure;
use triebench_record::phases::{save_json, PhaseRow};
use triebench_workloads::commit_file::{read_checked, replay};

use crate::error::CliError;
use triebench_measure::make_dir::make_dir;
use triebench_measure::outputs::writable_file;
use triebench_plan::flamegraph::profiled;
use triebench_report::render::phase_lines::describe;

#[derive(Debug, Args)]
pub struct RootArgs {
    /// The commit file; `-` or nothing reads standard input.
    pub file: Option<PathBuf>,
    /// Backend profile (`triebench profiles` lists them).
    #[arg(long, value_name = "NAME", default_value = "btree")]
    pub backend: String,
    /// Directory for the data of file-backed profiles [default: a fresh temporary directory,
    /// removed on exit].
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Time each phase of the replay (node reads, hashing, encoding, storage writes, commit)
    /// and write `{"total_ns", "phases": {name: ns}, ...}` to FILE; the breakdown is also
    /// printed on standard error. The roots are then printed all at once, at the end.
    #[arg(long, value_name = "FILE")]
    pub phases: Option<PathBuf>,
    /// Sample the replay into a flamegraph SVG.
    #[arg(long, value_name = "FILE")]
    pub flamegraph: Option<PathBuf>,
    #[command(flatten)]
    pub net: crate::commands::net_arg::NetArgs,
}

/// Replays a commit file on whichever store the backend spec opens.
pub struct ReplayVisitor<R> {
    input: R,
    profile: Profile,
    /// Where to write the phase breakdown, if asked.
    phases: Option<PathBuf>,
}

impl<R: BufRead> StoreVisitor for ReplayVisitor<R> {
    type Output = Result<usize, CliError>;

    fn visit<S: Store>(self, store: S) -> Self::Output {
        let stdout = io::stdout();
        let mut out = stdout.lock();
        let Some(path) = self.phases else {
            return Ok(replay(&store, self.input, &mut out)?);
        };
        // Roots are printed at the end here: a write per root to a pipe wakes its reader,
        // and on a busy machine the scheduler often ran the reader then, outside every phase
        // (up to 20% of the total in CI). Without --phases a root is printed per commit.
        let mut out = io::BufWriter::new(out);
        let (commits, totals, total_ns) = measure(|| replay(&store, self.input, &mut out));
        let commits = commits?;
        let row = PhaseRow {
            profile: self.profile.name().to_string(),
            scenario: "root".to_string(),
            commits: commits as u64,
            total_ns,
            phases: totals.ns_by_name(),
            spans: totals.spans_by_name(),
        };
        eprint!("{}", describe(&row));
        save_json(&row, &path)?;
        Ok(commits)
    }
}

pub fn run_root(args: RootArgs) -> Result<(), CliError> {
    args.net.apply()?;
    let profile: Profile = args.backend.parse()?;
    // The whole input is read and checked before a store exists: a bad commit file must not
    // first create an explicit --dir store (for PostgreSQL, a whole initdb).
    let text = match &args.file {
        Some(path) if path.as_os_str() != "-" => {
            let file = File::open(path).map_err(|source| CliError::Input {
                path: path.clone(),
                source,
            })?;
            read_checked(BufReader::new(file))?
        }
        _ => read_checked(io::stdin().lock())?,
    };
    // Keeps a temporary directory alive until the store is closed.
    let mut _temp = None;
    // Outputs, checked (their folders made) before the store is.
    if let Some(path) = &args.phases {
        writable_file("--phases", path)?;
    }
    if let Some(path) = &args.flamegraph {
        writable_file("--flamegraph", path)?;
    }
    let dir = match args.dir {
        Some(dir) => {
            if profile.needs_dir() {
                make_dir("--dir", &dir)?;
            } else {
                eprintln!("note: backend `{profile}` keeps nothing on disk; --dir is ignored");
            }
            Some(dir)
        }
        None if profile.needs_dir() => {
            for stale in TempStoreDir::remove_stale(&std::env::temp_dir(), "triebench-root-") {
                eprintln!("note: removed {}, left by a killed run", stale.display());
            }
            let temp = TempStoreDir::create("triebench-root-")?;
            temp.remove_on_signal()?;
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
    let phases = args.phases;
    profiled(args.flamegraph.as_deref(), || {
        spec.open(
            tables,
            ReplayVisitor {
                input: text.as_bytes(),
                profile,
                phases,
            },
        )??;
        Ok(())
    })
}
