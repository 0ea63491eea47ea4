//! What each SQLite profile asks of the database: the journal and sync pragmas per mode, the
//! memory map of the modes that read through one, and the busy timeout every connection gets.
//! Kept apart so connection opening, error messages and the store all read the same settings.

use std::time::Duration;

/// How long a connection waits for a lock held by another connection before failing with a
/// "database is locked" error.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// How much of the database file a `sqlite-wal-mmap` or `sqlite-wal-full-mmap` connection maps
/// (`PRAGMA mmap_size`), in bytes: 1 GiB, well above the stores the benchmarks make (a
/// 100,000-leaf state is ~0.5 GB); pages past it are read as in the other modes.
pub const MMAP_BYTES: i64 = 1 << 30;

/// The journal and sync configuration of a SQLite store, one per profile. The default is
/// [`WalFull`](SqliteMode::WalFull), the fastest mode in which a commit survives power loss.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SqliteMode {
    /// Profile `sqlite-wal`: `journal_mode=WAL`, `synchronous=NORMAL`; fsync only at checkpoints.
    Wal,
    /// Profile `sqlite-wal-full`: `journal_mode=WAL`, `synchronous=FULL`; the WAL is fsynced at
    /// every commit.
    #[default]
    WalFull,
    /// Profile `sqlite-rollback`: `journal_mode=DELETE`, `synchronous=FULL`; atomic commit via a
    /// rollback journal, several fsyncs per commit.
    Rollback,
    /// Profile `sqlite-wal-mmap`: [`Wal`](SqliteMode::Wal) whose connections read the database
    /// file through a memory map of [`MMAP_BYTES`] instead of copying pages in with `pread`.
    /// Writes still go through the WAL and `pwrite`, so what a commit survives is unchanged.
    WalMmap,
    /// Profile `sqlite-wal-full-mmap`: [`WalFull`](SqliteMode::WalFull) reading through the same
    /// memory map as [`WalMmap`](SqliteMode::WalMmap): the WAL is fsynced at every commit, so a
    /// commit survives power loss, as in `sqlite-wal-full`.
    WalFullMmap,
}

impl SqliteMode {
    /// The `journal_mode` pragma value, lower case as SQLite reports it back.
    pub(super) fn journal_mode(self) -> &'static str {
        match self {
            SqliteMode::Wal
            | SqliteMode::WalFull
            | SqliteMode::WalMmap
            | SqliteMode::WalFullMmap => "wal",
            SqliteMode::Rollback => "delete",
        }
    }

    /// The `synchronous` pragma value, as a name and as the number SQLite reports back.
    pub(super) fn synchronous(self) -> (&'static str, i64) {
        match self {
            SqliteMode::Wal | SqliteMode::WalMmap => ("NORMAL", 1),
            SqliteMode::WalFull | SqliteMode::Rollback | SqliteMode::WalFullMmap => ("FULL", 2),
        }
    }

    /// The `mmap_size` pragma value in bytes, for the modes that read through a memory map.
    pub(super) fn mmap_bytes(self) -> Option<i64> {
        matches!(self, SqliteMode::WalMmap | SqliteMode::WalFullMmap).then_some(MMAP_BYTES)
    }

    /// Whether readers see a snapshot (true for the WAL modes; rollback-mode readers see the
    /// latest commit at each statement, see the module docs).
    pub fn snapshot_reads(self) -> bool {
        !matches!(self, SqliteMode::Rollback)
    }
}
