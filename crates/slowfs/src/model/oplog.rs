//! The op log: every change and sync a mount passed through, in the order it reached the
//! backing directory, so crash states can be rebuilt from it offline ([`super::replay`]).
//!
//! On disk a log is a directory holding `ops.jsonl` (one [`LogOp`] per line) and `data.bin`
//! (the bytes of every write, back to back; a write names its range in it). Paths are relative
//! to the mount's root. The mount records an operation under the log's lock, together with the
//! operation itself, so the log's order is the order the backing directory saw.

use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

/// The operations file in a log directory.
pub const OPS_FILE: &str = "ops.jsonl";
/// The write data file in a log directory.
pub const DATA_FILE: &str = "data.bin";
/// Marks whose label starts with this are notes (such as `@open`: the store finished opening),
/// not acknowledged commits.
pub const NOTE_PREFIX: &str = "@";

/// One logged operation. Paths are relative to the mount's root (`""` is the root).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "kebab-case")]
pub enum LogOp {
    /// `len` bytes written at `offset`; the bytes are `data.bin[data_at..data_at + len]`.
    Write {
        /// The file.
        path: String,
        /// Where in the file.
        offset: u64,
        /// How many bytes.
        len: u64,
        /// Where the bytes are in `data.bin`.
        data_at: u64,
    },
    /// The file's size set (truncate, extend, `O_TRUNC`, fallocate).
    SetLen {
        /// The file.
        path: String,
        /// Its new size.
        len: u64,
    },
    /// A completed fsync or fdatasync of a file (or a write through an `O_SYNC` handle).
    Fsync {
        /// The file.
        path: String,
    },
    /// The write just before went through an `O_SYNC`/`O_DSYNC` handle: synced with it (and
    /// everything unsynced before it in that file), as an fsync would.
    WriteSynced {
        /// The file.
        path: String,
    },
    /// An fsync that failed with an injected `EIO`: what it should have synced is lost.
    FsyncFailed {
        /// The file.
        path: String,
    },
    /// A completed fsync of a directory: the names in it are durable.
    FsyncDir {
        /// The directory.
        path: String,
    },
    /// A new, empty regular file (create, mknod).
    Create {
        /// The new name.
        path: String,
    },
    /// A new directory.
    Mkdir {
        /// The new name.
        path: String,
    },
    /// A new symbolic link.
    Symlink {
        /// The new name.
        path: String,
        /// What it points to.
        target: String,
    },
    /// A second name for a file.
    Link {
        /// The existing name.
        from: String,
        /// The new name.
        to: String,
    },
    /// A rename (replacing `to` if it exists).
    Rename {
        /// The old name.
        from: String,
        /// The new name.
        to: String,
    },
    /// A name removed.
    Unlink {
        /// The name.
        path: String,
    },
    /// A directory removed.
    Rmdir {
        /// The directory.
        path: String,
    },
    /// A label the workload wrote to the control file (`mark LABEL`): for crash-test, an
    /// acknowledged commit's root.
    Mark {
        /// The label.
        label: String,
    },
    /// An injected fault (informational: the call failed and changed nothing).
    Fault {
        /// `fsync`, `fsyncdir` or `write`.
        call: String,
        /// The file.
        path: String,
        /// The errno returned.
        errno: i32,
    },
}

impl LogOp {
    /// Whether this is a sync-family call: a crash point.
    pub fn is_sync(&self) -> bool {
        matches!(
            self,
            LogOp::Fsync { .. }
                | LogOp::FsyncDir { .. }
                | LogOp::FsyncFailed { .. }
                | LogOp::WriteSynced { .. }
        )
    }

    /// Whether this is an fsync-family call the process made (what `--fail-fsync` counts): a
    /// sync, a failed sync or a directory sync, not a write through an `O_SYNC` handle.
    pub fn is_fsync_call(&self) -> bool {
        self.is_sync() && !matches!(self, LogOp::WriteSynced { .. })
    }

    /// Whether this changes names (the ones the `metadata` model may lose).
    pub fn is_metadata(&self) -> bool {
        matches!(
            self,
            LogOp::Create { .. }
                | LogOp::Mkdir { .. }
                | LogOp::Symlink { .. }
                | LogOp::Link { .. }
                | LogOp::Rename { .. }
                | LogOp::Unlink { .. }
                | LogOp::Rmdir { .. }
        )
    }

    /// One short line for traces.
    pub fn describe(&self) -> String {
        match self {
            LogOp::Write {
                path, offset, len, ..
            } => format!("write {path} [{offset}, +{len})"),
            LogOp::SetLen { path, len } => format!("setlen {path} {len}"),
            LogOp::Fsync { path } => format!("fsync {path}"),
            LogOp::WriteSynced { path } => format!("(O_SYNC) {path}"),
            LogOp::FsyncFailed { path } => format!("fsync {path} -> EIO"),
            LogOp::FsyncDir { path } => format!("fsyncdir /{path}"),
            LogOp::Create { path } => format!("create {path}"),
            LogOp::Mkdir { path } => format!("mkdir {path}"),
            LogOp::Symlink { path, target } => format!("symlink {path} -> {target}"),
            LogOp::Link { from, to } => format!("link {from} {to}"),
            LogOp::Rename { from, to } => format!("rename {from} {to}"),
            LogOp::Unlink { path } => format!("unlink {path}"),
            LogOp::Rmdir { path } => format!("rmdir {path}"),
            LogOp::Mark { label } => format!("mark {label}"),
            LogOp::Fault { call, path, errno } => format!("{call} {path} -> errno {errno}"),
        }
    }
}

/// A read log: its operations and the bytes its writes point into.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadedLog {
    /// Every operation, in order.
    pub ops: Vec<LogOp>,
    /// `data.bin`.
    pub data: Vec<u8>,
}

impl LoadedLog {
    /// The labels of the marks among the first `k` operations, in order, notes left out.
    pub fn marks_before(&self, k: usize) -> Vec<String> {
        self.ops[..k.min(self.ops.len())]
            .iter()
            .filter_map(|op| match op {
                LogOp::Mark { label } if !label.starts_with(NOTE_PREFIX) => Some(label.clone()),
                _ => None,
            })
            .collect()
    }

    /// The index of the first mark labelled `label`: a note (a label starting with
    /// [`NOTE_PREFIX`]) such as "the store is open now", which [`LoadedLog::marks_before`]
    /// leaves out.
    pub fn mark_at(&self, label: &str) -> Option<usize> {
        self.ops
            .iter()
            .position(|op| matches!(op, LogOp::Mark { label: l } if l == label))
    }

    /// Appends an operation (for logs built in memory, such as tests'); write bytes go to
    /// `data`, and a write's `data_at`/`len` are filled in.
    pub fn push(&mut self, mut op: LogOp, bytes: Option<&[u8]>) {
        if let (LogOp::Write { len, data_at, .. }, Some(b)) = (&mut op, bytes) {
            *data_at = self.data.len() as u64;
            *len = b.len() as u64;
            self.data.extend_from_slice(b);
        }
        self.ops.push(op);
    }
}

/// Reads the log in `dir`.
///
/// # Errors
/// A missing file, a line that is not a [`LogOp`], or a write pointing past `data.bin`.
pub fn read_log(dir: &Path) -> io::Result<LoadedLog> {
    let data = fs::read(dir.join(DATA_FILE))?;
    let mut ops = Vec::new();
    for (i, line) in BufReader::new(File::open(dir.join(OPS_FILE))?)
        .lines()
        .enumerate()
    {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let op: LogOp = serde_json::from_str(&line).map_err(|e| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{} line {}: {e}", OPS_FILE, i + 1),
            )
        })?;
        if let LogOp::Write { len, data_at, .. } = &op {
            if data_at.saturating_add(*len) > data.len() as u64 {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "{} line {}: write data past the end of {DATA_FILE}",
                        OPS_FILE,
                        i + 1
                    ),
                ));
            }
        }
        ops.push(op);
    }
    Ok(LoadedLog { ops, data })
}

#[derive(Debug)]
struct Writer {
    ops: BufWriter<File>,
    data: BufWriter<File>,
    data_len: u64,
}

/// The log a mount writes while it serves.
#[derive(Debug)]
pub struct OpLog {
    dir: PathBuf,
    writer: Mutex<Writer>,
}

impl OpLog {
    /// Starts a log in `dir` (created if missing; an earlier log there is replaced).
    ///
    /// # Errors
    /// The directory or its files cannot be created.
    pub fn create(dir: &Path) -> io::Result<OpLog> {
        fs::create_dir_all(dir)?;
        let ops = BufWriter::new(File::create(dir.join(OPS_FILE))?);
        let data = BufWriter::new(File::create(dir.join(DATA_FILE))?);
        Ok(OpLog {
            dir: dir.to_path_buf(),
            writer: Mutex::new(Writer {
                ops,
                data,
                data_len: 0,
            }),
        })
    }

    /// Where the log is.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Runs `apply` (the operation on the backing directory) and, if it succeeds, appends what
    /// `entries` returns, all under the log's lock: the log's order is the order of the
    /// operations. A write's bytes come with it (`Some`).
    ///
    /// # Errors
    /// `apply`'s error (nothing is logged), or a failed append (as `EIO`).
    pub fn logged<'d, T>(
        &self,
        apply: impl FnOnce() -> io::Result<T>,
        entries: impl FnOnce(&T) -> Vec<(LogOp, Option<&'d [u8]>)>,
    ) -> io::Result<T> {
        let mut w = self.writer.lock().unwrap_or_else(|p| p.into_inner());
        let out = apply()?;
        for (op, bytes) in entries(&out) {
            append(&mut w, op, bytes).map_err(|_| io::Error::from_raw_os_error(libc::EIO))?;
        }
        Ok(out)
    }

    /// Appends `op` on its own (a mark, a fault) and flushes the log.
    ///
    /// # Errors
    /// The append failed.
    pub fn note(&self, op: LogOp) -> io::Result<()> {
        let mut w = self.writer.lock().unwrap_or_else(|p| p.into_inner());
        append(&mut w, op, None)?;
        w.ops.flush()?;
        w.data.flush()
    }

    /// Writes out everything buffered.
    ///
    /// # Errors
    /// The flush failed.
    pub fn flush(&self) -> io::Result<()> {
        let mut w = self.writer.lock().unwrap_or_else(|p| p.into_inner());
        w.ops.flush()?;
        w.data.flush()
    }
}

impl Drop for OpLog {
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

fn append(w: &mut Writer, mut op: LogOp, bytes: Option<&[u8]>) -> io::Result<()> {
    if let (LogOp::Write { len, data_at, .. }, Some(b)) = (&mut op, bytes) {
        *data_at = w.data_len;
        *len = b.len() as u64;
        w.data.write_all(b)?;
        w.data_len += b.len() as u64;
    }
    let line = serde_json::to_string(&op).map_err(io::Error::other)?;
    w.ops.write_all(line.as_bytes())?;
    w.ops.write_all(b"\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_log_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let log = OpLog::create(dir.path()).unwrap();
        log.logged(
            || Ok(()),
            |_| {
                vec![
                    (LogOp::Create { path: "f".into() }, None),
                    (
                        LogOp::Write {
                            path: "f".into(),
                            offset: 3,
                            len: 0,
                            data_at: 0,
                        },
                        Some(&b"abc"[..]),
                    ),
                ]
            },
        )
        .unwrap();
        assert!(log
            .logged(
                || Err::<(), _>(io::Error::other("no")),
                |_| vec![(LogOp::Unlink { path: "f".into() }, None)]
            )
            .is_err());
        log.note(LogOp::Mark { label: "r1".into() }).unwrap();
        drop(log);
        let back = read_log(dir.path()).unwrap();
        assert_eq!(back.ops.len(), 3, "the failed unlink is not logged");
        assert_eq!(
            back.ops[1],
            LogOp::Write {
                path: "f".into(),
                offset: 3,
                len: 3,
                data_at: 0
            }
        );
        assert_eq!(back.data, b"abc");
        assert_eq!(back.marks_before(3), vec!["r1".to_string()]);
        assert_eq!(back.marks_before(2), Vec::<String>::new());
    }
}
