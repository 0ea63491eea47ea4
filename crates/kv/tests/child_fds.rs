//! The servers the crate starts inherit no file of this process: a descriptor left without
//! close-on-exec (as LMDB leaves its data file for a moment after opening it) stays here.
//! One test in its own binary: the descriptor it leaves open would reach any child another
//! test started meanwhile.
#![cfg(all(
    target_os = "linux",
    any(feature = "redis-db", feature = "postgres-db")
))]

use std::os::fd::{AsRawFd, OwnedFd};
use std::path::Path;

/// Whether process `pid` holds `file` open.
fn holds(pid: u32, file: &Path) -> bool {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .expect("the server's descriptors")
        .filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
        .any(|target| target == file)
}

#[test]
fn servers_inherit_no_file_of_the_process() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("inheritable");
    let fd: OwnedFd = std::fs::File::create(&file).expect("create").into();
    // SAFETY: fcntl on a descriptor this test owns; it clears close-on-exec.
    assert_eq!(unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETFD, 0) }, 0);

    #[cfg(feature = "redis-db")]
    {
        let server = triebench_kv::redis::RedisServer::start(&dir.path().join("redis"), false)
            .expect("redis-server starts");
        assert!(
            !holds(server.pid(), &file),
            "redis-server holds {}",
            file.display()
        );
    }
    #[cfg(feature = "postgres-db")]
    if std::env::var_os("POSTGRES_URL").is_none() {
        let server = triebench_kv::postgres::PgServer::start(&dir.path().join("pg"))
            .expect("postgres starts");
        assert!(
            !holds(server.pid(), &file),
            "postgres holds {}",
            file.display()
        );
    }
    drop(fd);
}
