//! Typed errors of the storage layer. Messages say what went wrong and what to do about it.

use std::path::PathBuf;

/// Result of a storage operation.
pub type KvResult<T> = Result<T, KvError>;

/// Everything a store can report. Backends map their native errors onto these variants.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum KvError {
    /// `insert` found the key already present (put-if-absent semantics).
    #[error("duplicate entry in table `{table}`: key {key} already exists")]
    DuplicateEntry {
        /// Table name.
        table: String,
        /// The key, hex-encoded.
        key: String,
    },

    /// A precondition of a write transaction
    /// ([`WriteTx::require_absent`](crate::WriteTx::require_absent),
    /// [`require_value`](crate::WriteTx::require_value)) did not hold; nothing was applied.
    #[error(
        "a precondition of the transaction did not hold ({detail}); nothing of it was applied"
    )]
    PreconditionFailed {
        /// Which key, where the backend knows it, and what it found.
        detail: String,
    },

    /// A table name that the store was not opened with.
    #[error("unknown table `{name}`; this store declares: {known}")]
    UnknownTable {
        /// The name asked for.
        name: String,
        /// The declared names, comma-separated.
        known: String,
    },

    /// A table handle from another store.
    #[error("table handle {index} does not belong to this store, which declares {count} tables")]
    BadTableHandle {
        /// The handle's index.
        index: usize,
        /// How many tables this store declares.
        count: usize,
    },

    /// The list of tables given at open is unusable.
    #[error("invalid table declaration: {0}")]
    InvalidTables(String),

    /// A profile name that does not exist.
    #[error("unknown backend profile `{name}`; valid profiles: {valid}")]
    UnknownProfile {
        /// The name given.
        name: String,
        /// Every valid name, comma-separated.
        valid: String,
    },

    /// A profile that exists but whose backend was not compiled in.
    #[error("backend profile `{profile}` is not compiled in: rebuild with `--features {feature}`")]
    ProfileNotEnabled {
        /// The profile's name.
        profile: &'static str,
        /// The cargo feature that enables it.
        feature: &'static str,
    },

    /// A file-backed profile was opened without a directory.
    #[error("backend profile `{profile}` stores files and needs a directory (--dir)")]
    DirectoryRequired {
        /// The profile's name.
        profile: &'static str,
    },

    /// A filesystem operation failed (missing or unwritable directory, full disk, ...).
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        /// What was being done, e.g. "create directory".
        action: &'static str,
        /// The path involved.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },

    /// The filesystem holding the store is full: the commit (or the store's opening) failed
    /// and left nothing half-written.
    #[error(
        "the disk holding {} is full ({}): {detail}; free space there or use another \
         directory (nothing was half-written: a failed commit is rolled back)",
        dir.display(),
        match free_bytes { Some(b) => format!("{b} bytes free"), None => "free space unknown".to_string() }
    )]
    DiskFull {
        /// The store's directory.
        dir: PathBuf,
        /// Bytes available to this user there when the error was seen.
        free_bytes: Option<u64>,
        /// What the backend said.
        detail: String,
    },

    /// LMDB's memory map has no room left for this transaction.
    #[error(
        "LMDB map is full ({map_size} bytes): reopen with a larger map size \
         (BackendSpec::lmdb_map_size, or TRIEBENCH_LMDB_MAP_SIZE=<bytes>); \
         the failed transaction was rolled back"
    )]
    MapFull {
        /// The map size in force.
        map_size: usize,
    },

    /// The database files exist but are not a valid database of this backend.
    #[error("{backend} database at {} is corrupt or not a {backend} database: {detail}", path.display())]
    Corrupt {
        /// Backend name.
        backend: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// What the backend said.
        detail: String,
    },

    /// The database files are this backend's but laid out by another triebench version (say,
    /// SQLite tables from before their key index held only each key's first 8 bytes): refused,
    /// left as they are.
    #[error(
        "{backend} store at {} is laid out otherwise than this build reads: {detail}; re-create \
         it (a store is a benchmark's output: run the fill again)",
        path.display()
    )]
    OtherLayout {
        /// Backend name.
        backend: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// What was found and what this build reads.
        detail: String,
    },

    /// `redis-server` is needed (no `REDIS_URL` given) but not on PATH.
    #[error(
        "redis-server not found on PATH: install the Debian/Ubuntu package `redis-server` \
         (scripts/setup.sh does), or set REDIS_URL=redis://host:port to use an existing server"
    )]
    RedisServerMissing,

    /// A managed redis-server did not start or answer in time.
    #[error("redis-server failed to start: {0}")]
    RedisServerStart(String),

    /// No PostgreSQL server binaries (`initdb`, `postgres`) were found.
    #[error(
        "PostgreSQL not found (initdb/postgres on PATH, in TRIEBENCH_PG_BIN or in \
         /usr/lib/postgresql/<version>/bin): install the Debian/Ubuntu package `postgresql` \
         (scripts/setup.sh does), or set POSTGRES_URL=postgres://user@host/db to use an existing server"
    )]
    PostgresMissing,

    /// A managed PostgreSQL server did not initialise or start.
    #[error("postgres failed to start: {0}")]
    PostgresStart(String),

    /// `TRIEBENCH_SERVER_DIRS` names no directory managed servers' private directories (their
    /// unix sockets) can be made in.
    #[error("TRIEBENCH_SERVER_DIRS={}: {why}; unset it to use /tmp", path.display())]
    BadServerDirs {
        /// The path the variable gave.
        path: PathBuf,
        /// Why it cannot be used.
        why: String,
    },

    /// Something already at a path the store creates under its directory is not what the
    /// store would have made (a symbolic link, a hard link, a file of another kind or owner):
    /// it is not followed or used, since it may have been planted to turn the store's writes,
    /// ownership changes or permissions (made as root) against another file.
    #[error(
        "refusing to use {}: {found}; it was not created by triebench and may have been planted \
         (it is not followed); remove it, or use a --dir only you can write to",
        path.display()
    )]
    Planted {
        /// The path that was refused.
        path: PathBuf,
        /// What was found there, e.g. "a symbolic link".
        found: String,
    },

    /// Running as root, an LMDB or SQLite store was to be opened in a directory another user
    /// can write to (or replace): these backends open their files by name, so a link planted
    /// there would turn root's writes against another file.
    #[error(
        "refusing to keep a store in {} as root: it {why} (owner uid {owner}, mode {mode:04o}), \
         so a link planted there could redirect root's writes; use a directory that root owns and \
         no one else can write to, e.g. a path that does not exist yet (triebench creates it, \
         mode 0700)",
        dir.display()
    )]
    SharedStoreDir {
        /// The store's directory.
        dir: PathBuf,
        /// Its owner's uid.
        owner: u32,
        /// Its permission bits.
        mode: u32,
        /// Why it is refused, e.g. "belongs to another user".
        why: &'static str,
    },

    /// A compaction was asked of a profile whose backend has none here (only LMDB's data file
    /// keeps the pages its commits copied).
    #[error(
        "backend profile `{profile}` cannot be compacted: only `lmdb` and `lmdb-async` can (their \
         data file keeps every page a commit copied)"
    )]
    CompactionUnsupported {
        /// The profile asked.
        profile: &'static str,
    },

    /// Any other backend failure, with the backend's own message.
    #[error("{backend}: {message}")]
    Backend {
        /// Backend name.
        backend: &'static str,
        /// The backend's message.
        message: String,
    },
}

impl KvError {
    /// Builds a [`KvError::Io`] from an action, a path and an OS error.
    pub fn io(action: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        KvError::Io {
            action,
            path: path.into(),
            source,
        }
    }

    /// Builds a [`KvError::DiskFull`] for `dir` when it has less than 16 MiB free, for
    /// backends whose full-disk failure does not say so itself (an EIO, a server that exits).
    pub fn disk_full_if_low(dir: &std::path::Path, detail: impl std::fmt::Display) -> Option<Self> {
        free_bytes(dir)
            .is_some_and(|free| free < LOW_SPACE)
            .then(|| KvError::disk_full(dir, detail))
    }

    /// Builds a [`KvError::DiskFull`] for `dir`, measuring its free space now.
    pub fn disk_full(dir: &std::path::Path, detail: impl std::fmt::Display) -> Self {
        KvError::DiskFull {
            dir: dir.to_path_buf(),
            free_bytes: free_bytes(dir),
            detail: detail.to_string(),
        }
    }

    /// Builds a [`KvError::Backend`] from anything printable.
    pub fn backend(backend: &'static str, message: impl std::fmt::Display) -> Self {
        KvError::Backend {
            backend,
            message: message.to_string(),
        }
    }

    /// Builds a [`KvError::PreconditionFailed`] for `key` of `table`, which `found`.
    pub fn precondition(table: crate::Table, key: &[u8], found: &str) -> Self {
        KvError::PreconditionFailed {
            detail: format!(
                "key {} of table #{} {found}",
                hex::encode(key),
                table.index()
            ),
        }
    }

    /// Builds a [`KvError::DuplicateEntry`].
    pub fn duplicate(table: &str, key: &[u8]) -> Self {
        KvError::DuplicateEntry {
            table: table.to_string(),
            key: hex::encode(key),
        }
    }
}

/// Below this much free space, a failed write is taken for a full disk.
pub const LOW_SPACE: u64 = 16 << 20;

/// Bytes available to an unprivileged writer on the filesystem holding `dir` (statvfs).
pub fn free_bytes(dir: &std::path::Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    // SAFETY: statvfs is plain old data that the kernel fills.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is a valid NUL-terminated path and `st` a valid out-pointer.
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
        return None;
    }
    Some(st.f_bavail as u64 * st.f_frsize as u64)
}
