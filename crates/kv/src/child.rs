//! How this crate starts its servers (redis-server, initdb, postgres).
//!
//! [`no_inherited_files`]: they get standard input and output and nothing else of this process.
//!
//! A child inherits every descriptor of its parent not marked close-on-exec. Most are (Rust's
//! and SQLite's files, LMDB's lock file), but not all: LMDB opens its data file without the
//! flag, which the store sets only just after opening (`lmdb`), and a library in a user's
//! process may leave its own files open to children. A server started then would hold such a
//! file for its whole life (a removed store's data kept on disk, a filesystem that cannot be
//! unmounted), so the child marks everything past standard error close-on-exec itself.

use std::process::{Child, Command};

/// Starts `command` (a long-lived server) from a thread that lasts as long as the process, in
/// a process group of its own.
///
/// A terminal sends Ctrl-C to its whole foreground process group: a server in the owner's
/// group would get it too and shut down under the owner, which then fails where it meant to
/// stop cleanly (a load run that keeps the runs made). In a group of its own the server is
/// stopped by its owner, on drop, or by the death signal below.
///
/// The servers are started with `PR_SET_PDEATHSIG`, so that they do not outlive a killed owner;
/// but Linux sends that signal when the *thread* that forked the server exits, not the process.
/// A store opened on a short-lived thread (a worker, a test, a request handler) would lose its
/// server the moment that thread ended. So every server is forked by one launcher thread that
/// never exits, and the signal comes only when the whole process is gone.
pub(crate) fn spawn_lasting(mut command: Command) -> std::io::Result<Child> {
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    #[cfg(target_os = "linux")]
    {
        use std::sync::mpsc::{channel, Sender};
        use std::sync::{Mutex, OnceLock};

        type Request = (Command, Sender<std::io::Result<Child>>);
        static LAUNCHER: OnceLock<Mutex<Sender<Request>>> = OnceLock::new();

        let launcher = LAUNCHER.get_or_init(|| {
            let (requests, inbox) = channel::<Request>();
            // If the thread cannot be started, the requests fail below and say so.
            let _ = std::thread::Builder::new()
                .name("triebench-server-launcher".into())
                .spawn(move || {
                    for (mut command, reply) in inbox {
                        let _ = reply.send(command.spawn());
                    }
                });
            Mutex::new(requests)
        });
        let gone = || std::io::Error::other("the server launcher thread is gone");
        let (reply, answer) = channel();
        launcher
            .lock()
            .map_err(|_| gone())?
            .send((command, reply))
            .map_err(|_| gone())?;
        answer.recv().map_err(|_| gone())?
    }
    #[cfg(not(target_os = "linux"))]
    {
        command.spawn()
    }
}

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
