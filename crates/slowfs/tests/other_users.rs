//! A slowfs mounted by root serves other users as a kernel filesystem would: a process running
//! as `nobody` (as a managed PostgreSQL server does) creates, writes and reads its own files,
//! they are owned by it in the backing directory, and the kernel refuses what the modes refuse.
#![cfg(target_os = "linux")] // slowfs mounts through Linux FUSE

mod common;

use std::ffi::CString;
use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Output};

use common::Mounted;

/// The uid and gid of `nobody`, if the user exists.
fn nobody() -> Option<(u32, u32)> {
    let name = CString::new("nobody").ok()?;
    // SAFETY: getpwnam with a valid NUL-terminated name; the record is read at once.
    let pw = unsafe { libc::getpwnam(name.as_ptr()) };
    // SAFETY: a non-null result points to a valid passwd record.
    (!pw.is_null()).then(|| unsafe { ((*pw).pw_uid, (*pw).pw_gid) })
}

/// Runs `script` with `sh -c` in `dir` as `uid`/`gid`.
fn run_as(uid: u32, gid: u32, dir: &Path, script: &str) -> Output {
    let mut command = Command::new("sh");
    command.arg("-c").arg(script).current_dir(dir);
    // SAFETY: between fork and exec only async-signal-safe calls (setgroups, setgid, setuid).
    unsafe {
        command.pre_exec(move || {
            if libc::setgroups(0, std::ptr::null()) == -1
                || libc::setgid(gid) == -1
                || libc::setuid(uid) == -1
            {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    command.output().expect("run sh as nobody")
}

#[test]
fn another_user_owns_what_it_creates_and_is_refused_what_modes_refuse() {
    if !rustix::process::geteuid().is_root() {
        common::skip_or_fail("serving other users needs a mount made by root");
        return;
    }
    let Some((uid, gid)) = nobody() else {
        common::skip_or_fail("there is no user `nobody`");
        return;
    };
    let Some(m) = Mounted::start(&["--profile", "none"]) else {
        return;
    };
    fs::set_permissions(m.backing(), fs::Permissions::from_mode(0o755)).expect("chmod backing");
    let shared = m.mnt().join("shared");
    fs::create_dir(&shared).expect("mkdir through the mount");
    std::os::unix::fs::chown(&shared, Some(uid), Some(gid)).expect("chown through the mount");
    fs::create_dir(m.mnt().join("roots")).expect("mkdir");

    let out = run_as(
        uid,
        gid,
        &shared,
        "mkdir d && echo hello > d/f && ln -s f d/l && mkfifo d/p && cat d/l",
    );
    assert!(
        out.status.success(),
        "as nobody through the mount: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "hello\n");
    let backing = m.backing().join("shared/d");
    for name in ["", "f", "l", "p"] {
        let meta = fs::symlink_metadata(backing.join(name)).expect("backing node");
        assert_eq!(
            (meta.uid(), meta.gid()),
            (uid, gid),
            "owner of shared/d/{name} in the backing directory"
        );
    }

    let refused = run_as(uid, gid, &m.mnt().join("roots"), "touch x");
    assert!(
        !refused.status.success(),
        "nobody wrote into root's 0755 directory through the mount"
    );
    assert!(!m.backing().join("roots/x").exists());
}
