//! The `root` step: replays a JSON Lines commit file from the empty root on a backend and
//! prints each new state root.

use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::PathBuf;

use triebench_kv::{BackendSpec, Profile, Store, StoreVisitor, TempStoreDir};
use triebench_measure::make_dir::make_dir;
use triebench_measure::outputs::writable_file;
use triebench_measure::phases::measure;
use triebench_record::phases::{save_json, PhaseRow};
use triebench_report::render::phase_lines::describe;
use triebench_workloads::commit_file::{read_checked, replay};

use crate::error::PlanError;
use crate::flamegraph::profiled;

/// What to replay, on which backend, and what to time.
#[derive(Debug, Clone)]
pub struct RootOptions {
    /// The commit file; `None` or `-` reads standard input.
    pub file: Option<PathBuf>,
    /// Backend profile name.
    pub backend: String,
    /// Directory for file-backed profiles (`None`: a fresh temporary one, removed on exit).
    pub dir: Option<PathBuf>,
    /// Where the phase breakdown goes, when asked for.
    pub phases: Option<PathBuf>,
    /// A flamegraph SVG of the replay, when asked for.
    pub flamegraph: Option<PathBuf>,
}

/// Replays a commit file on whichever store the backend spec opens.
struct ReplayVisitor<R> {
    input: R,
    profile: Profile,
    /// Where to write the phase breakdown, if asked.
    phases: Option<PathBuf>,
}

impl<R: BufRead> StoreVisitor for ReplayVisitor<R> {
    type Output = Result<usize, PlanError>;

    fn visit<S: Store + 'static>(self, store: S) -> Self::Output {
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

/// Replays the commit file on the backend, printing each new root (all at the end with
/// `phases`, whose breakdown it writes).
pub fn root(args: &RootOptions) -> Result<(), PlanError> {
    let profile: Profile = args.backend.parse()?;
    // The whole input is read and checked before a store exists: a bad commit file must not
    // first create an explicit --dir store (for PostgreSQL, a whole initdb).
    let text = match &args.file {
        Some(path) if path.as_os_str() != "-" => {
            let file = File::open(path).map_err(|source| PlanError::Input {
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
    let dir = match args.dir.clone() {
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
    let phases = args.phases.clone();
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
