//! Checkpoints that keep up with readers and leave no long log behind (WAL modes).
//!
//! SQLite's own auto-checkpoint runs after a commit that leaves 1000 or more frames in the WAL,
//! in `PASSIVE` mode: it copies back what no reader still needs and never waits. The log starts
//! over only when a commit begins with every frame copied back and no reader on it. With
//! readers running back to back, some reader always holds a snapshot from before the latest
//! commit, so the checkpoint never copies the last frames, the log never starts over and it
//! grows without bound, slowing every read and commit (checkpoint starvation; SQLite's
//! `wal.html`, "Avoiding Excessively Large WAL Files"). A 10,000-leaf `triebench load` run
//! with two readers grew the WAL to ~330 MB in a minute.
//!
//! And a log that did start over is cut back to `journal_size_limit` (16 MiB here) by the
//! commit that starts it over: the next one, however small. After a 50,000-leaf fill commit on
//! a 10^5-leaf state left 266 MB of WAL, the next 1-key commit spent 0.27 s truncating it, most
//! of the growth run's slowest 1-key commit (findings/grow.md).
//!
//! The store therefore installs its own WAL hook in place of the auto-checkpoint. It does
//! exactly what SQLite's does (a `PASSIVE` checkpoint from [`AUTOCHECKPOINT_FRAMES`] frames on)
//! and, when the log is [`LONG_FRAMES`] or more, flags the commit. After `COMMIT` returns, the
//! writer then runs a `TRUNCATE` checkpoint, which waits up to [`TRUNCATE_WAIT`] for the
//! readers on the log to finish (new readers read the database file and do not hold it up),
//! copies back what the `PASSIVE` one could not and cuts the log to zero bytes. So the commit
//! that made the log long pays for cutting it, and the next commit starts an empty log. Neither
//! checkpoint's failure is the commit's (it has happened): a reader that holds its snapshot
//! longer than the wait only leaves the log as it is until the next flagged commit tries again.

use std::cell::Cell;
use std::ffi::c_int;
use std::time::Duration;

use rusqlite::hooks::{CheckpointMode, Wal};
use rusqlite::Connection;

use super::mode::BUSY_TIMEOUT;

/// SQLite's default `wal_autocheckpoint`: a commit that leaves this many frames checkpoints.
pub(super) const AUTOCHECKPOINT_FRAMES: c_int = 1000;

/// A log this long is cut to zero bytes after the commit that left it: four times what the
/// auto-checkpoint lets it grow to between commits (16 MiB of 4 KiB pages, the
/// `journal_size_limit` SQLite would otherwise cut it to at the next commit). Whether its
/// `PASSIVE` checkpoint copied it all (a large commit) or left frames behind (starved by
/// readers), it is cut after the commit that made it long.
pub(super) const LONG_FRAMES: c_int = 4 * AUTOCHECKPOINT_FRAMES;

/// How long the `TRUNCATE` checkpoint waits for readers on the log. Readers that read and let
/// go finish within it; one that holds its snapshot longer costs each flagged commit this much
/// at most.
pub(super) const TRUNCATE_WAIT: Duration = Duration::from_millis(50);

thread_local! {
    /// Set by [`after_commit`] on the committing thread, taken by [`truncate_if_long`].
    static LONG: Cell<bool> = const { Cell::new(false) };
}

/// The WAL hook of every connection (see the module docs): SQLite's auto-checkpoint, plus a
/// flag when the log is long.
pub(super) fn after_commit(wal: &Wal, frames: c_int) -> rusqlite::Result<()> {
    if frames >= AUTOCHECKPOINT_FRAMES {
        // As SQLite's own hook does, a failed checkpoint is not reported: the commit stands.
        if let Ok((log, _)) = wal.checkpoint_v2(CheckpointMode::PASSIVE) {
            if log >= LONG_FRAMES {
                LONG.set(true);
            }
        }
    }
    Ok(())
}

/// Runs after a commit on `conn`: if it left the log long, waits briefly for readers on it,
/// checkpoints everything and cuts the log to zero bytes, so the next commit starts an empty
/// one. Fails only if the busy timeout cannot be set back.
pub(super) fn truncate_if_long(conn: &Connection) -> rusqlite::Result<()> {
    if !LONG.replace(false) {
        return Ok(());
    }
    conn.busy_timeout(TRUNCATE_WAIT)?;
    // SQLITE_BUSY (a reader held on past the wait) leaves the log as it is, for the next
    // flagged commit to try again.
    let _ = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
    conn.busy_timeout(BUSY_TIMEOUT)
}
