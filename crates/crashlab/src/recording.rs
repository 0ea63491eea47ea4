//! One recorded round of crash-state exploration: a fresh, empty store directory mounted
//! through slowfs with an op log (and any faults), a short workload run on it in this process
//! (open the store, commit random batches, writing `mark ROOT` to the control file after each
//! acknowledged commit), unmounted; and the check of one materialised crash state of it.

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};

use triebench_kv::{BackendSpec, Profile, Store, StoreVisitor};
use triebench_merkle::MerkleTrie;
use triebench_slowfs::model::oplog::{read_log, LoadedLog};
use triebench_slowfs::model::Failure;
use triebench_slowfs::CONTROL_FILE;

use crate::batches::BatchGen;
use crate::check::check;
use crate::error::CrashError;
use crate::owners::restore_owners;
use crate::power::PowerMount;

/// What each commit of a recorded workload returned: its root, or its error.
pub(crate) type Outcomes = Vec<Result<String, String>>;

/// The note marked in the op log once the store is open (before the first commit).
pub(crate) const OPEN_NOTE: &str = "@open";

/// Writes `mark LABEL` to the mount's control file: the op log records it in order.
fn mark(control: &Path, label: &str) -> std::io::Result<()> {
    std::fs::OpenOptions::new()
        .write(true)
        .open(control)
        .and_then(|mut c| c.write_all(format!("mark {label}").as_bytes()))
}

/// Whether crash points start only after the store opened: a managed PostgreSQL's `initdb`
/// (hundreds of fsyncs over a 40 MB cluster) is the server's bootstrap, not the store under
/// test, and a state there costs seconds.
pub(crate) fn from_open(profile: Profile) -> bool {
    matches!(
        profile,
        Profile::Postgres | Profile::PostgresAsync | Profile::PostgresUncached
    )
}

/// Commits `commits` batches on the store, marking each acknowledged root in the op log
/// through the control file; a failed commit is recorded and the next one tried.
struct Workload {
    commits: u64,
    seed: u64,
    control: PathBuf,
}

impl StoreVisitor for Workload {
    type Output = Result<Outcomes, CrashError>;

    fn visit<S: Store + 'static>(self, store: S) -> Self::Output {
        let fail = CrashError::Workload;
        let mut trie = MerkleTrie::new(&store).map_err(|e| fail(e.to_string()))?;
        mark(&self.control, OPEN_NOTE)
            .map_err(|e| fail(format!("cannot mark the open store: {e}")))?;
        let mut batches = BatchGen::new(self.seed, Vec::new());
        let mut out = Vec::new();
        for i in 0..self.commits {
            let batch = batches.next_batch();
            match trie.commit(&batch) {
                Ok(root) => {
                    mark(&self.control, &root)
                        .map_err(|e| fail(format!("cannot mark a commit: {e}")))?;
                    trie.set_root(&root).map_err(|e| fail(e.to_string()))?;
                    out.push(Ok(root));
                }
                Err(e) => {
                    out.push(Err(e.to_string()));
                    // The generator assumed the batch committed: start it again from the
                    // leaves the trie has, so later batches are valid whatever the store did.
                    // A store that cannot even be read now refuses everything after.
                    match trie.leaves("") {
                        Ok(leaves) => {
                            batches = BatchGen::new(
                                self.seed ^ (i + 1),
                                leaves.into_iter().map(|(a, _)| a),
                            )
                        }
                        Err(e) => {
                            let left = self.commits - i - 1;
                            out.extend((0..left).map(|_| Err(format!("unreadable: {e}"))));
                            break;
                        }
                    }
                }
            }
        }
        Ok(out)
    }
}

/// One recorded round: the op log, what each commit returned, and the mount point's path
/// (unmounted, where states are written and the store reopened).
pub(crate) struct Recorded {
    pub(crate) log: LoadedLog,
    pub(crate) outcomes: Outcomes,
    pub(crate) mount: PowerMount,
    /// The recording's backing directory: the owners and modes states get back.
    pub(crate) backing: PathBuf,
    _work: tempfile::TempDir,
}

/// Records one round: a fresh backing directory mounted with an op log (and `faults`), the
/// workload run on it, unmounted.
pub(crate) fn record_round(
    profile: Profile,
    commits: u64,
    seed: u64,
    faults: &[&str],
) -> Result<Recorded, CrashError> {
    let work = tempfile::Builder::new()
        .prefix("triebench-explore-")
        .tempdir()
        .map_err(CrashError::TempDir)?;
    let backing = work.path().join("backing");
    let log_dir = work.path().join("log");
    std::fs::create_dir(&backing).map_err(CrashError::TempDir)?;
    let mut mount = PowerMount::new(&backing)?;
    let mut args: Vec<OsString> = vec!["--op-log".into(), log_dir.clone().into()];
    args.extend(faults.iter().map(OsString::from));
    mount.set_mount_args(args);
    mount.mount()?;
    let dir = mount.mountpoint().to_path_buf();
    let spec = BackendSpec::new(profile, Some(dir.clone()))?;
    let outcomes = spec.open(
        triebench_merkle::TABLES,
        Workload {
            commits,
            seed,
            control: dir.join(CONTROL_FILE),
        },
    );
    mount.unmount()?;
    crate::cleanup::remove_orphaned_server_dirs();
    let outcomes = outcomes.map_err(CrashError::RecordingOpen)??;
    let log = read_log(&log_dir).map_err(CrashError::OpLog)?;
    // The recording mount exists only on Linux (slowfs's FUSE side), where it must be gone.
    #[cfg(target_os = "linux")]
    if triebench_slowfs::mount::is_mount_point(&dir).unwrap_or(true) {
        return Err(CrashError::StillMounted(dir));
    }
    Ok(Recorded {
        log,
        outcomes,
        mount,
        backing,
        _work: work,
    })
}

/// Gives the state in `dir` the owners and modes of the recording in `backing`, reopens the
/// store there and checks `roots`: a [`Failure`] for anything lost or wrong.
pub(crate) fn check_state(
    profile: Profile,
    dir: &Path,
    backing: &Path,
    roots: &[String],
    seed: u64,
) -> Result<(), Failure> {
    restore_owners(dir, backing).map_err(|e| Failure {
        kind: "harness".into(),
        detail: format!("cannot restore the state's owners and modes: {e}"),
    })?;
    let outcome = check(profile, dir, roots, seed);
    crate::cleanup::remove_orphaned_server_dirs();
    let (round, _) = outcome.map_err(|e| {
        let kind = match e {
            CrashError::NoLongerOpens(_) => "unopenable",
            CrashError::CommitAfterRecovery(_) | CrashError::CommitNotReadBack(_) => {
                "no-further-commit"
            }
            _ => "unreadable",
        };
        Failure {
            kind: kind.into(),
            detail: e.to_string(),
        }
    })?;
    if let Some((root, why)) = round.first_corruption() {
        return Err(Failure {
            kind: "corrupt".into(),
            detail: format!("root {root}: {why}"),
        });
    }
    if round.lost() > 0 {
        return Err(Failure {
            kind: "lost".into(),
            detail: format!(
                "{} of {} acknowledged roots lost (the newest {} of them)",
                round.lost(),
                round.acknowledged(),
                round.lost_tail()
            ),
        });
    }
    Ok(())
}
