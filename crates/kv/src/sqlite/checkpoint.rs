//! Checkpoints that keep up with readers (WAL modes).
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
//! The store therefore installs its own WAL hook in place of the auto-checkpoint. It does
//! exactly what SQLite's does (a `PASSIVE` checkpoint from [`AUTOCHECKPOINT_FRAMES`] frames on)
//! and, when that checkpoint leaves frames behind in a log of [`STARVED_FRAMES`] or more,
//! flags the commit. After `COMMIT` returns, the writer then runs a `RESTART` checkpoint,
//! which waits up to [`RESTART_WAIT`] for the readers on older snapshots to finish (new
//! readers read the database file and do not hold it up), so the next commit starts the log
//! over. Without readers the `PASSIVE` checkpoint always finishes and nothing changes. Neither
//! checkpoint's failure is the commit's (it has happened): a reader that holds its snapshot
//! longer than the wait only lets the log grow until the next flagged commit tries again.

use std::cell::Cell;
use std::ffi::c_int;
use std::time::Duration;

use rusqlite::hooks::{CheckpointMode, Wal};
use rusqlite::Connection;

use super::mode::BUSY_TIMEOUT;

/// SQLite's default `wal_autocheckpoint`: a commit that leaves this many frames checkpoints.
pub(super) const AUTOCHECKPOINT_FRAMES: c_int = 1000;

/// A log this long whose `PASSIVE` checkpoint left frames behind is starved: four times what
/// the auto-checkpoint lets it grow to (16 MiB of 4 KiB pages).
pub(super) const STARVED_FRAMES: c_int = 4 * AUTOCHECKPOINT_FRAMES;

/// How long the `RESTART` checkpoint waits for readers on older snapshots. Readers that read
/// and let go finish within it; one that holds its snapshot longer costs each flagged commit
/// this much at most.
pub(super) const RESTART_WAIT: Duration = Duration::from_millis(50);

thread_local! {
    /// Set by [`after_commit`] on the committing thread, taken by [`restart_if_starved`].
    static STARVED: Cell<bool> = const { Cell::new(false) };
}

/// The WAL hook of every connection (see the module docs): SQLite's auto-checkpoint, plus a
/// flag when it finds the log starved.
pub(super) fn after_commit(wal: &Wal, frames: c_int) -> rusqlite::Result<()> {
    if frames >= AUTOCHECKPOINT_FRAMES {
        // As SQLite's own hook does, a failed checkpoint is not reported: the commit stands.
        if let Ok((log, copied)) = wal.checkpoint_v2(CheckpointMode::PASSIVE) {
            if log >= STARVED_FRAMES && copied < log {
                STARVED.set(true);
            }
        }
    }
    Ok(())
}

/// Runs after a commit on `conn`: if its checkpoint found the log starved, waits briefly for
/// older readers and checkpoints everything, so the next commit starts the log over. Fails only
/// if the busy timeout cannot be set back.
pub(super) fn restart_if_starved(conn: &Connection) -> rusqlite::Result<()> {
    if !STARVED.replace(false) {
        return Ok(());
    }
    conn.busy_timeout(RESTART_WAIT)?;
    // SQLITE_BUSY (a reader held on past the wait) leaves the log as it is, for the next
    // flagged commit to try again.
    let _ = conn.query_row("PRAGMA wal_checkpoint(RESTART)", [], |_| Ok(()));
    conn.busy_timeout(BUSY_TIMEOUT)
}
