//! The `lmdb` and `lmdb-async` profiles, on LMDB through `lmdb-rkv`.
//!
//! - `lmdb`: default flags. Every commit writes its pages and fsyncs the data file before
//!   returning: durable against power loss. Files: `<dir>/lmdb/data.mdb` and `lock.mdb`.
//! - `lmdb-async`: the flags Transact uses (`WRITEMAP | MAPASYNC | NORDAHEAD | NOSUBDIR`), so
//!   the published runs can be reproduced. Commits write into the shared memory map and the
//!   kernel flushes it when it pleases: a crashed process loses nothing, a power loss can lose
//!   recent commits. File: `<dir>/triebench.lmdb` (plus `-lock`).
//!
//! Both add `NOTLS`, so a thread may hold several readers at once (the trait allows it).
//! Readers are LMDB read transactions: true snapshots, never blocked by the writer. LMDB itself
//! admits one write transaction at a time; a second `writer()` waits for the first.
//!
//! The map size bounds the database; a transaction that outgrows it fails with
//! [`KvError::MapFull`] and is rolled back. Opening a file that is not an LMDB database, one
//! whose meta pages are damaged ([`meta`]: checked before liblmdb reads any page), or one
//! truncated below the pages its metadata claims, is [`KvError::Corrupt`] (LMDB itself would
//! crash with SIGBUS on the missing pages). liblmdb has no checksums: damage inside the data
//! pages is not detected, and may give wrong data, an `MDB_CORRUPTED` error
//! ([`KvError::Corrupt`]) or a crash (SIGSEGV) of the process. An empty data file is a store
//! never synced (a power cut before its first sync leaves one): LMDB initialises it as a new
//! store.
//!
//! With WRITEMAP (`lmdb-async`) a writer first reserves disk blocks for the pages it may dirty
//! ([`space`]), so a full disk is [`KvError::DiskFull`] rather than a SIGBUS; both profiles
//! reserve the lock file's blocks before LMDB maps it, for the same reason. Opening makes the
//! reservation the first writer would (the committed pages plus a [`space::HEADROOM`]): it is
//! a cost of the store, not of its first commit, and on tmpfs, which allocates and zeroes
//! every reserved page, it is large (2 MiB: 0.55 ms on the 2-vCPU development VM against
//! 5 µs for the commits after it, where ext4 only marks the extent), so a first commit that
//! paid it measured tmpfs slower than the disk. On a full disk the store opens without it
//! (it can still be read) and its first writer reports the [`KvError::DiskFull`].
//!
//! Opening is serialised between processes by an exclusive `flock` on the store's directory,
//! held from measuring the data file to the end of the truncation check: without it, a process
//! opening a store another process is creating could measure the file before LMDB wrote its
//! first pages and then find more pages in use than it measured, and call the store corrupt.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use lmdb::{
    Cursor, Database, DatabaseFlags, Environment, EnvironmentFlags, RoTransaction, RwTransaction,
    Transaction, WriteFlags,
};

mod accounting;
pub mod compact;
mod create;
pub mod meta;
pub mod space;

use crate::error::{KvError, KvResult};
use crate::range::KeyRange;
use crate::store::{check_table, validate_tables, ReadTx, Store, Table, WriteTx};

const BACKEND: &str = "lmdb";

/// How to open an LMDB store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LmdbOptions {
    /// Maximum database size in bytes (address space reserved for the memory map).
    pub map_size: usize,
    /// Use Transact's flags (`lmdb-async`) instead of the defaults (`lmdb`).
    pub transact_flags: bool,
}

impl Default for LmdbOptions {
    /// Profile `lmdb`: LMDB's own flags (a commit survives power loss) and a map of
    /// [`DEFAULT_LMDB_MAP_SIZE`](crate::DEFAULT_LMDB_MAP_SIZE) bytes.
    fn default() -> Self {
        LmdbOptions {
            map_size: crate::profile::DEFAULT_LMDB_MAP_SIZE,
            transact_flags: false,
        }
    }
}

/// Where a store's files are under its directory.
struct StoreFiles {
    /// What LMDB opens: the `lmdb` subdirectory, or `lmdb-async`'s single data file.
    env_path: PathBuf,
    /// The data file.
    data_file: PathBuf,
    /// The lock file.
    lock_file: PathBuf,
}

impl StoreFiles {
    /// The files of a store in `dir`, with Transact's flags (`lmdb-async`: one file, no
    /// subdirectory) or LMDB's own.
    fn under(dir: &Path, transact_flags: bool) -> Self {
        if transact_flags {
            let file = dir.join("triebench.lmdb");
            StoreFiles {
                env_path: file.clone(),
                data_file: file,
                lock_file: dir.join("triebench.lmdb-lock"),
            }
        } else {
            let sub = dir.join("lmdb");
            StoreFiles {
                data_file: sub.join("data.mdb"),
                lock_file: sub.join("lock.mdb"),
                env_path: sub,
            }
        }
    }
}

/// An LMDB environment with one named database per declared table.
#[derive(Debug)]
pub struct LmdbStore {
    env: Environment,
    dbs: Vec<Database>,
    names: Vec<String>,
    map_size: usize,
    dir: PathBuf,
    /// Blocks reserved ahead of WRITEMAP writes (`lmdb-async` only).
    space: Option<space::Reservation>,
    page_size: u64,
}

impl LmdbStore {
    /// Opens (creating if needed) the store under `dir`.
    ///
    /// As root, a `dir` (or its `lmdb` subdirectory) another user can write to is refused
    /// ([`KvError::SharedStoreDir`]).
    pub fn open(dir: &Path, tables: &[&str], options: LmdbOptions) -> KvResult<Self> {
        let names = validate_tables(tables)?;
        crate::store_dir::create_store_dir(dir)?;
        let mut flags = EnvironmentFlags::NO_TLS;
        if options.transact_flags {
            flags |= EnvironmentFlags::WRITE_MAP
                | EnvironmentFlags::MAP_ASYNC
                | EnvironmentFlags::NO_READAHEAD
                | EnvironmentFlags::NO_SUB_DIR;
        }
        let StoreFiles {
            env_path,
            data_file,
            lock_file,
        } = StoreFiles::under(dir, options.transact_flags);
        // Held until the truncation check is done (see the module docs).
        let _creating = DirLock::exclusive(dir)?;
        if !options.transact_flags {
            match std::fs::symlink_metadata(&env_path) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    create::create_atomically(dir, &env_path, &names, options.map_size)?
                }
                _ => crate::store_dir::create_store_dir(&env_path)?,
            }
        }
        space::reserve_lock_file(&lock_file, dir)?;
        // Measured before LMDB opens it: with WRITEMAP, opening extends the file to the map size.
        let existing_len = match std::fs::metadata(&data_file) {
            Ok(meta) => Some(meta.len()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(KvError::io("inspect", &data_file, e)),
        };
        if let Some(len) = existing_len.filter(|&len| len > 0) {
            // Before liblmdb reads a page: it trusts the meta pages' page numbers.
            meta::check(&data_file, len)?;
        }
        let max_dbs = u32::try_from(names.len()).unwrap_or(u32::MAX);
        let env = Environment::new()
            .set_flags(flags)
            .set_max_dbs(max_dbs)
            .set_map_size(options.map_size)
            .open_with_permissions(&env_path, crate::store_dir::LMDB_FILE_MODE)
            .map_err(|e| open_error(e, &env_path))?;
        close_data_file_on_exec(&env, &data_file)?;
        if let Some(len) = existing_len.filter(|&len| len > 0) {
            check_not_truncated(&env, len, &data_file)?;
        }
        let mut dbs = Vec::with_capacity(names.len());
        for name in &names {
            let db = env
                .create_db(Some(name), DatabaseFlags::empty())
                .map_err(|e| open_error(e, &env_path))?;
            dbs.push(db);
        }
        let page_size = u64::from(
            env.stat()
                .map_err(|e| KvError::backend(BACKEND, e))?
                .page_size(),
        );
        let space = if options.transact_flags {
            Some(space::Reservation::open(&data_file, dir)?)
        } else {
            None
        };
        let store = LmdbStore {
            env,
            dbs,
            names,
            map_size: options.map_size,
            dir: dir.to_path_buf(),
            space,
            page_size,
        };
        // The first writer's reservation, made while opening (see the module docs). On a full
        // disk the store still opens (to be read): the first writer then reports the DiskFull.
        match store.reserve(store.committed_bytes()?) {
            Ok(()) | Err(KvError::DiskFull { .. }) => Ok(store),
            Err(e) => Err(e),
        }
    }

    fn db(&self, table: Table) -> KvResult<Database> {
        Ok(self.dbs[check_table(table, self.dbs.len())?])
    }

    /// Bytes of the data file the committed pages use.
    fn committed_bytes(&self) -> KvResult<u64> {
        let info = self.env.info().map_err(|e| self.error(e))?;
        Ok((info.last_pgno() as u64 + 1) * self.page_size)
    }

    /// Reserves blocks for the first `end` bytes of a WRITEMAP data file (no-op otherwise).
    fn reserve(&self, end: u64) -> KvResult<()> {
        match &self.space {
            Some(space) => space.ensure(end, self.map_size as u64),
            None => Ok(()),
        }
    }

    fn error(&self, err: lmdb::Error) -> KvError {
        match err {
            lmdb::Error::MapFull => KvError::MapFull {
                map_size: self.map_size,
            },
            // LMDB reports a short write (a full disk) as EIO.
            lmdb::Error::Other(errno) if errno == libc::ENOSPC => {
                KvError::disk_full(&self.dir, err)
            }
            lmdb::Error::Other(errno) if errno == libc::EIO => {
                KvError::disk_full_if_low(&self.dir, err)
                    .unwrap_or_else(|| KvError::backend(BACKEND, err))
            }
            lmdb::Error::Corrupted | lmdb::Error::PageNotFound => KvError::Corrupt {
                backend: BACKEND,
                path: self.dir.clone(),
                detail: err.to_string(),
            },
            other => KvError::backend(BACKEND, other),
        }
    }
}

/// Sets the data file's descriptor close-on-exec. LMDB opens its other files so, but leaves the
/// data file inheritable on purpose (callers may keep it across `fork`): every process spawned
/// while a store is open (a server, `mount`) would otherwise hold the file open until it exits,
/// and with it the filesystem under test (an unmount then fails as busy).
#[cfg(unix)]
fn close_data_file_on_exec(env: &Environment, data_file: &Path) -> KvResult<()> {
    let mut fd: lmdb_sys::mdb_filehandle_t = -1;
    // SAFETY: `env.env()` is the live environment `env` owns; mdb_env_get_fd only writes the
    // descriptor into `fd`.
    let rc = unsafe { lmdb_sys::mdb_env_get_fd(env.env(), &mut fd) };
    if rc != 0 {
        return Err(open_error(lmdb::Error::from_err_code(rc), data_file));
    }
    // SAFETY: fcntl on a descriptor the environment keeps open; only FD_CLOEXEC changes.
    let set = unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFD);
        flags >= 0 && libc::fcntl(fd, libc::F_SETFD, flags | libc::FD_CLOEXEC) == 0
    };
    if set {
        Ok(())
    } else {
        Err(KvError::io(
            "set close-on-exec on",
            data_file,
            std::io::Error::last_os_error(),
        ))
    }
}

/// Elsewhere (Windows) handles are not inherited unless asked for.
#[cfg(not(unix))]
fn close_data_file_on_exec(_env: &Environment, _data_file: &Path) -> KvResult<()> {
    Ok(())
}

/// Maps an error from opening the environment: not-an-LMDB-file is corruption, errno is I/O.
fn open_error(err: lmdb::Error, path: &Path) -> KvError {
    match err {
        lmdb::Error::Invalid
        | lmdb::Error::Corrupted
        | lmdb::Error::PageNotFound
        | lmdb::Error::VersionMismatch => KvError::Corrupt {
            backend: BACKEND,
            path: path.to_path_buf(),
            detail: err.to_string(),
        },
        lmdb::Error::Other(libc::ENOSPC) => KvError::disk_full(
            path.parent().unwrap_or(path),
            "cannot write the new store's first pages: no space left on device",
        ),
        lmdb::Error::Other(errno) => KvError::io(
            "open LMDB environment",
            path,
            std::io::Error::from_raw_os_error(errno),
        ),
        other => KvError::backend(BACKEND, format!("opening {}: {other}", path.display())),
    }
}

/// An exclusive `flock` on a directory, released when dropped (the descriptor closes).
struct DirLock {
    _dir: std::fs::File,
}

impl DirLock {
    /// Waits for and takes the lock on `dir`.
    fn exclusive(dir: &Path) -> KvResult<DirLock> {
        use std::os::fd::AsRawFd;
        let file = std::fs::File::open(dir).map_err(|e| KvError::io("open directory", dir, e))?;
        loop {
            // SAFETY: flock on a descriptor we own; it is released when `file` closes.
            if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } == 0 {
                return Ok(DirLock { _dir: file });
            }
            let err = std::io::Error::last_os_error();
            if err.kind() != std::io::ErrorKind::Interrupted {
                return Err(KvError::io("lock directory", dir, err));
            }
        }
    }
}

/// Refuses a data file shorter than the pages its metadata says are in use.
fn check_not_truncated(env: &Environment, file_len: u64, path: &Path) -> KvResult<()> {
    let info = env.info().map_err(|e| KvError::backend(BACKEND, e))?;
    let page_size = env
        .stat()
        .map_err(|e| KvError::backend(BACKEND, e))?
        .page_size();
    let needed = (info.last_pgno() as u64 + 1) * u64::from(page_size);
    if file_len < needed {
        return Err(KvError::Corrupt {
            backend: BACKEND,
            path: PathBuf::from(path),
            detail: format!(
                "file is {file_len} bytes but its metadata uses {needed} bytes (truncated?)"
            ),
        });
    }
    Ok(())
}

/// A transaction on an [`LmdbStore`]: the reader ([`LmdbReader`], an LMDB snapshot) and the
/// writer ([`LmdbWriter`], aborted when dropped uncommitted) share their reads.
pub struct LmdbTxn<'s, T> {
    store: &'s LmdbStore,
    txn: T,
    /// Writers on a WRITEMAP store: the most bytes of the data file this transaction may
    /// use (committed pages plus an estimate per write), reserved before each write.
    may_use: space::Estimate,
}

/// A read transaction on an [`LmdbStore`].
pub type LmdbReader<'s> = LmdbTxn<'s, RoTransaction<'s>>;

/// The write transaction on an [`LmdbStore`].
pub type LmdbWriter<'s> = LmdbTxn<'s, RwTransaction<'s>>;

impl<T: Transaction> ReadTx for LmdbTxn<'_, T> {
    fn get_with<R, F>(&self, table: Table, key: &[u8], f: F) -> KvResult<Option<R>>
    where
        F: FnOnce(&[u8]) -> R,
    {
        match self.txn.get(self.store.db(table)?, &key) {
            Ok(value) => Ok(Some(f(value))),
            Err(lmdb::Error::NotFound) => Ok(None),
            Err(e) => Err(self.store.error(e)),
        }
    }

    fn count(&self, table: Table) -> KvResult<u64> {
        let stat = self
            .txn
            .stat(self.store.db(table)?)
            .map_err(|e| self.store.error(e))?;
        Ok(stat.entries() as u64)
    }

    fn scan<F>(&self, table: Table, range: &KeyRange, mut visit: F) -> KvResult<()>
    where
        F: FnMut(&[u8], &[u8]) -> ControlFlow<()>,
    {
        let mut cursor = self
            .txn
            .open_ro_cursor(self.store.db(table)?)
            .map_err(|e| self.store.error(e))?;
        // LMDB rejects zero-length lookup keys, so an open start uses iter_start.
        let iter = if range.start.is_empty() {
            cursor.iter_start()
        } else {
            cursor.iter_from(&range.start)
        };
        for item in iter {
            let (key, value) = match item {
                Ok(pair) => pair,
                Err(lmdb::Error::NotFound) => break,
                Err(e) => return Err(self.store.error(e)),
            };
            if range.is_past_end(key) || visit(key, value).is_break() {
                break;
            }
        }
        Ok(())
    }
}

impl LmdbWriter<'_> {
    /// Reserves room for one more write of `bytes` before LMDB dirties any page for it.
    fn reserve_for(&mut self, bytes: usize) -> KvResult<()> {
        if self.store.space.is_some() {
            let may_use = self.may_use.add(bytes, self.store.page_size);
            self.store.reserve(may_use)?;
        }
        Ok(())
    }
}

impl WriteTx for LmdbWriter<'_> {
    fn insert(&mut self, table: Table, key: &[u8], value: &[u8]) -> KvResult<()> {
        let db = self.store.db(table)?;
        self.reserve_for(key.len() + value.len())?;
        match self.txn.put(db, &key, &value, WriteFlags::NO_OVERWRITE) {
            Ok(()) => Ok(()),
            Err(lmdb::Error::KeyExist) => {
                Err(KvError::duplicate(&self.store.names[table.index()], key))
            }
            Err(e) => Err(self.store.error(e)),
        }
    }

    fn put(&mut self, table: Table, key: &[u8], value: &[u8]) -> KvResult<()> {
        let db = self.store.db(table)?;
        self.reserve_for(key.len() + value.len())?;
        self.txn
            .put(db, &key, &value, WriteFlags::empty())
            .map_err(|e| self.store.error(e))
    }

    fn delete(&mut self, table: Table, key: &[u8]) -> KvResult<()> {
        let db = self.store.db(table)?;
        self.reserve_for(0)?;
        match self.txn.del(db, &key, None) {
            Ok(()) | Err(lmdb::Error::NotFound) => Ok(()),
            Err(e) => Err(self.store.error(e)),
        }
    }

    fn commit(self) -> KvResult<()> {
        let store = self.store;
        self.txn.commit().map_err(|e| store.error(e))
    }
}

impl Store for LmdbStore {
    type Reader<'s> = LmdbReader<'s>;
    type Writer<'s> = LmdbWriter<'s>;

    fn reader(&self) -> KvResult<LmdbReader<'_>> {
        let txn = self.env.begin_ro_txn().map_err(|e| self.error(e))?;
        Ok(LmdbTxn {
            store: self,
            txn,
            may_use: space::Estimate::default(),
        })
    }

    fn writer(&self) -> KvResult<LmdbWriter<'_>> {
        let txn = self.env.begin_rw_txn().map_err(|e| self.error(e))?;
        // Read under the write lock, so no other writer moves the committed end meanwhile.
        let may_use = if self.space.is_some() {
            let committed = self.committed_bytes()?;
            self.reserve(committed)?;
            space::Estimate::new(committed)
        } else {
            space::Estimate::default()
        };
        Ok(LmdbTxn {
            store: self,
            txn,
            may_use,
        })
    }

    fn table_names(&self) -> &[String] {
        &self.names
    }

    fn space(&self) -> KvResult<Option<triebench_record::space::StoreSpace>> {
        self.account_space().map(Some)
    }
}
