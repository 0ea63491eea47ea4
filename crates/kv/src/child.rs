//! [`no_inherited_files`]: the servers this crate starts (redis-server, initdb, postgres) get
//! standard input and output and nothing else of this process.
//!
//! A child inherits every descriptor of its parent not marked close-on-exec. Most are (Rust's
//! and SQLite's files, LMDB's lock file), but not all: LMDB opens its data file without the
//! flag, which the store sets only just after opening (`lmdb`), and a library in a user's
//! process may leave its own files open to children. A server started then would hold such a
//! file for its whole life (a removed store's data kept on disk, a filesystem that cannot be
//! unmounted), so the child marks everything past standard error close-on-exec itself.

use std::process::Command;

/// Marks every descriptor but standard input, output and error close-on-exec in the child
/// `command` starts, between fork and exec, so the program it runs inherits none of them.
/// Where the kernel cannot (before Linux 5.11, or elsewhere) the child starts as before.
pub(crate) fn no_inherited_files(command: &mut Command) {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: the closure runs between fork and exec and makes one raw system call,
        // which is async-signal-safe; a failure is ignored (the descriptors stay as they were).
        unsafe {
            command.pre_exec(|| {
                libc::syscall(
                    libc::SYS_close_range,
                    3u32,
                    u32::MAX,
                    libc::CLOSE_RANGE_CLOEXEC,
                );
                Ok(())
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = command;
}
