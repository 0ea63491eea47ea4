//! What each SQLite profile asks of the database: the journal and sync pragmas per mode, and the
//! busy timeout every connection gets. Kept apart so connection opening, error messages and the
//! store all read the same settings.

use std::time::Duration;

/// How long a connection waits for a lock held by another connection before failing with a
/// "database is locked" error.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// The journal and sync configuration of a SQLite store, one per profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SqliteMode {
    /// Profile `sqlite-wal`: `journal_mode=WAL`, `synchronous=NORMAL`; fsync only at checkpoints.
    Wal,
    /// Profile `sqlite-wal-full`: `journal_mode=WAL`, `synchronous=FULL`; the WAL is fsynced at
    /// every commit.
    WalFull,
    /// Profile `sqlite-rollback`: `journal_mode=DELETE`, `synchronous=FULL`; atomic commit via a
    /// rollback journal, several fsyncs per commit.
    Rollback,
}

impl SqliteMode {
    /// The `journal_mode` pragma value, lower case as SQLite reports it back.
    pub(super) fn journal_mode(self) -> &'static str {
        match self {
            SqliteMode::Wal | SqliteMode::WalFull => "wal",
            SqliteMode::Rollback => "delete",
        }
    }

    /// The `synchronous` pragma value, as a name and as the number SQLite reports back.
    pub(super) fn synchronous(self) -> (&'static str, i64) {
        match self {
            SqliteMode::Wal => ("NORMAL", 1),
            SqliteMode::WalFull | SqliteMode::Rollback => ("FULL", 2),
        }
    }

    /// Whether readers see a snapshot (true for the WAL modes; rollback-mode readers see the
    /// latest commit at each statement, see the module docs).
    pub fn snapshot_reads(self) -> bool {
        !matches!(self, SqliteMode::Rollback)
    }
}
