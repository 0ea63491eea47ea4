//! [`CrashError`]: every way a crash-lab run fails, one variant per cause, each printed as the
//! one line `triebench crash-test` shows.

use std::borrow::Cow;
use std::io;
use std::path::PathBuf;

use triebench_kv::KvError;
use triebench_merkle::MerkleError;
use triebench_record::RecordError;
use triebench_slowfs::SlowfsError;

/// Why a crash-lab run could not run, or what it found wrong.
#[derive(Debug, thiserror::Error)]
pub enum CrashError {
    /// A bad profile, or a backend that failed to open (before any round).
    #[error(transparent)]
    Backend(#[from] KvError),
    /// A folder the caller was given (`--dir`, `--out`) could not be made or written; the
    /// caller's [`Folders`](crate::Folders) said why.
    #[error("{0}")]
    Folder(String),
    /// No temporary directory could be made.
    #[error("cannot create a temporary directory (set TMPDIR or pass --dir): {0}")]
    TempDir(#[source] io::Error),
    /// The result file in the output folder is not one this version can add to.
    #[error("{0}; move it away or choose another --out")]
    Unmergeable(#[source] RecordError),
    /// A result file could not be read or written.
    #[error("{0}")]
    Results(#[source] RecordError),
    /// `env.json` could not be written beside the results.
    #[error("cannot write {}: {source}", dir.display())]
    WriteEnv {
        /// The output folder.
        dir: PathBuf,
        /// What failed.
        source: io::Error,
    },

    /// The child's loop: the trie or the store failed, resuming or committing.
    #[error("trie error: {0}")]
    Commit(#[source] MerkleError),
    /// The child's loop: an acknowledgement could not be delivered (the parent went away).
    #[error("cannot acknowledge a root: {0}")]
    Ack(#[source] io::Error),
    /// The crash-test child's loop stopped (it never stops by itself).
    #[error("the crash-test child stopped: {0}")]
    ChildStopped(#[source] Box<CrashError>),
    /// The triebench binary, which runs the child and the mount, cannot be found.
    #[error("cannot find the triebench binary: {0}")]
    NoBinary(#[source] io::Error),
    /// The child process could not be started.
    #[error("cannot start the crash-test child: {0}")]
    ChildStart(#[source] io::Error),
    /// The child started without its output pipes.
    #[error("the child has no output pipes")]
    ChildPipes,
    /// The child failed before it was killed (`what`: did not open, exited); its stderr.
    #[error("the crash-test child {what}; its stderr: {stderr}")]
    ChildFailed {
        /// What it did.
        what: Cow<'static, str>,
        /// What it wrote to stderr, trimmed.
        stderr: String,
    },

    /// The store does not open after a crash.
    #[error("the store no longer opens: {0}")]
    NoLongerOpens(#[source] KvError),
    /// The reopened store cannot be read at all.
    #[error("the reopened store cannot be read: {0}")]
    Unreadable(#[source] MerkleError),
    /// The commit after recovery failed.
    #[error("a commit after recovery failed: {0}")]
    CommitAfterRecovery(#[source] MerkleError),
    /// The store cannot be read after the commit after recovery.
    #[error("the store cannot be read: {0}")]
    UnreadableAfterCommit(#[source] MerkleError),
    /// The commit after recovery does not read back.
    #[error("the commit after recovery (root {0}) does not read back")]
    CommitNotReadBack(String),

    /// Power-loss rounds on a system without FUSE.
    #[error(
        "--power-loss needs a slowfs mount, which is Linux only (FUSE); process-crash rounds \
         (without --power-loss) run here"
    )]
    NoFuse,
    /// The power-loss mount could not be made.
    #[error("--power-loss needs a slowfs (FUSE) mount and could not make one: {0}")]
    Mount(String),
    /// The cut could not be sent to the mount.
    #[error("the power cut failed: {0}")]
    Cut(#[source] io::Error),
    /// The mount did not go away.
    #[error("the slowfs mount on {} did not go away within 20 s", .0.display())]
    Unmount(PathBuf),
    /// The mount server (`crash-mount`) failed.
    #[error(transparent)]
    Serve(#[from] SlowfsError),
    /// The mount server on a system without FUSE.
    #[error("crash-mount serves a slowfs mount, which is Linux only (FUSE)")]
    ServeNoFuse,

    /// The recorded workload of a crash-state round failed (`what` says where).
    #[error("the recorded workload failed: {0}")]
    Workload(String),
    /// The store did not open on the recording mount.
    #[error("the store did not open on the recording mount: {0}")]
    RecordingOpen(#[source] KvError),
    /// The op log could not be read.
    #[error("cannot read the op log: {0}")]
    OpLog(#[source] io::Error),
    /// The recording mount stayed mounted.
    #[error("{} is still mounted after the recording", .0.display())]
    StillMounted(PathBuf),
    /// `--only-round 0`.
    #[error("--only-round counts from 1")]
    OnlyRoundZero,
    /// A commit failed while recording without a fault.
    #[error("a commit failed on the recording mount, with no fault injected: {0}")]
    RecordingCommit(String),
    /// A crash state could not be written.
    #[error("cannot write a crash state: {0}")]
    WriteState(#[source] io::Error),
    /// `--fsync-eio` found no fsync after half the workload.
    #[error("{0}: no fsync after half the commits; nothing to fail")]
    NoFsyncToFail(String),

    /// `--failover` on a profile without a standby.
    #[error(
        "--failover needs a profile with a standby ({with}); {profile} has none it fails over to"
    )]
    NoStandby {
        /// The profile asked for.
        profile: String,
        /// The profiles with one.
        with: String,
    },
    /// A failover round's directory exists already.
    #[error("{} exists already; choose an empty --dir", .0.display())]
    RoundDirExists(PathBuf),
    /// A failover round failed.
    #[error("round {round}: {source}")]
    Round {
        /// The round, from 1.
        round: u64,
        /// Why.
        source: Box<CrashError>,
    },
    /// Server processes outlived a failover round.
    #[error("round {round}: {count} server processes outlived the round")]
    Outlived {
        /// The round, from 1.
        round: u64,
        /// How many were killed.
        count: u64,
    },
    /// A failover round's directory could not be removed.
    #[error("cannot remove {}: {source}", dir.display())]
    RemoveRoundDir {
        /// The directory.
        dir: PathBuf,
        /// The OS error.
        source: io::Error,
    },
    /// The replicated pair could not be opened.
    #[error("cannot open the pair ({}): {reason}", dir.display())]
    PairOpen {
        /// The round's directory.
        dir: PathBuf,
        /// Why.
        reason: String,
    },
    /// This build has no backend for the profile's pair.
    #[error("--failover is not built for {0} in this binary (features postgres-db, redis-db)")]
    PairNotBuilt(String),
    /// The pair made no commit before the primary was lost.
    #[error("the pair in {} made no commit: {reason}", dir.display())]
    NoCommit {
        /// The round's directory.
        dir: PathBuf,
        /// The committer's error.
        reason: String,
    },
    /// The standby could not be promoted.
    #[error("the failover failed ({}): {source}", dir.display())]
    Promote {
        /// The round's directory.
        dir: PathBuf,
        /// Why.
        source: KvError,
    },
    /// Acknowledged roots were damaged on the promoted standby.
    #[error("{0} acknowledged roots were damaged on the promoted standby")]
    DamagedOnStandby(u64),
}

impl CrashError {
    /// A result-file error from `triebench-record`, with the advice for a file that is there
    /// but cannot be added to.
    pub(crate) fn results(e: RecordError) -> CrashError {
        match e {
            e @ RecordError::Unmergeable { .. } => CrashError::Unmergeable(e),
            e => CrashError::Results(e),
        }
    }
}
