//! Fixtures of the security tests (issue 34): a throwaway unprivileged user who tries to reach
//! a managed server, run as a child process of the test binary that drops to that user before
//! doing anything; the listening TCP ports of a process; file modes.
//!
//! Creating a user needs root. Without root the tests that need one skip (print `skipped:
//! <reason>`), except under `CI=true`, where they fail: CI runs them as root.
//!
//! [`servers`]: what the tests of managed servers share (private directories, nothing left
//! running, one-key writes).
#![allow(dead_code)]

pub mod servers;

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Set in the child: what it should try (test-specific).
pub const CHILD_ENV: &str = "TRIEBENCH_SECURITY_CHILD";

/// The one place that decides between skipping and failing: prints `skipped: <reason>`, or
/// panics under `CI=true`.
pub fn skip_or_fail(reason: &str) {
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("cannot run this security test under CI=true: {reason}");
    }
    println!("skipped: {reason}");
    eprintln!("skipped: {reason}");
}

pub fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// A local user created for one test (`useradd`), removed (`userdel`) on drop.
pub struct Stranger {
    pub name: String,
    pub uid: u32,
    pub gid: u32,
    /// A copy of the test binary the stranger can run (the build tree may be private).
    exe_dir: tempfile::TempDir,
}

impl Stranger {
    /// Creates a fresh user, or `None` (after [`skip_or_fail`]) when not root.
    pub fn create() -> Option<Stranger> {
        if !is_root() {
            skip_or_fail("creating a second local user needs root");
            return None;
        }
        static SEQ: AtomicUsize = AtomicUsize::new(0);
        let name = format!(
            "tbsec{}x{}",
            std::process::id(),
            SEQ.fetch_add(1, Ordering::Relaxed)
        );
        let ok = Command::new("useradd")
            .args([
                "--system",
                "--no-create-home",
                "--shell",
                "/usr/sbin/nologin",
            ])
            .arg(&name)
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "useradd {name} failed");
        let out = Command::new("id")
            .arg("-u")
            .arg(&name)
            .output()
            .expect("id -u");
        let uid = String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .expect("uid");
        let out = Command::new("id")
            .arg("-g")
            .arg(&name)
            .output()
            .expect("id -g");
        let gid = String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .expect("gid");
        let exe_dir = tempfile::Builder::new()
            .prefix("tbsec-exe-")
            .tempdir_in("/tmp")
            .expect("temp dir");
        std::fs::set_permissions(exe_dir.path(), std::fs::Permissions::from_mode(0o755))
            .expect("chmod");
        let exe = exe_dir.path().join("child");
        std::fs::copy(std::env::current_exe().expect("test executable"), &exe).expect("copy");
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        Some(Stranger {
            name,
            uid,
            gid,
            exe_dir,
        })
    }

    /// Runs this test binary's test `child_test` (its full name: [`crate::test_name`]) as the stranger, with [`CHILD_ENV`] set to
    /// `arg`; returns its standard output. Panics if the child did not run as the stranger.
    pub fn run(&self, child_test: &str, arg: &str) -> String {
        let (uid, gid) = (self.uid, self.gid);
        let mut command = Command::new(self.exe_dir.path().join("child"));
        command
            .args(["--exact", child_test, "--nocapture", "--test-threads=1"])
            .env(CHILD_ENV, arg)
            .env("HOME", "/tmp")
            .current_dir("/")
            .stdin(Stdio::null())
            .stderr(Stdio::inherit());
        // SAFETY: only async-signal-safe calls between fork and exec.
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
        let out = command.output().expect("run the child as the stranger");
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            stdout.contains(&format!("child uid {uid}")),
            "the child did not run as {} (uid {uid}): {stdout}",
            self.name
        );
        stdout
    }
}

impl Drop for Stranger {
    fn drop(&mut self) {
        let _ = Command::new("userdel")
            .arg(&self.name)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

/// Prints the child's uid (what [`Stranger::run`] checks), and returns its argument when this
/// process is the child.
pub fn child_arg() -> Option<String> {
    let arg = std::env::var(CHILD_ENV).ok()?;
    // SAFETY: getuid has no preconditions.
    println!("child uid {}", unsafe { libc::getuid() });
    Some(arg)
}

/// The TCP ports process `pid` listens on (IPv4 and IPv6), from `/proc`.
pub fn listening_tcp_ports(pid: u32) -> Vec<u16> {
    let mut inodes = Vec::new();
    if let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) {
        for fd in fds.flatten() {
            if let Ok(target) = std::fs::read_link(fd.path()) {
                let t = target.to_string_lossy().into_owned();
                if let Some(inode) = t.strip_prefix("socket:[").and_then(|r| r.strip_suffix(']')) {
                    inodes.push(inode.to_string());
                }
            }
        }
    }
    let mut ports = Vec::new();
    for table in ["tcp", "tcp6"] {
        let Ok(text) = std::fs::read_to_string(format!("/proc/{pid}/net/{table}")) else {
            continue;
        };
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
            if fields.len() > 9 && fields[3] == "0A" && inodes.iter().any(|i| i == fields[9]) {
                if let Some(port) = fields[1]
                    .rsplit_once(':')
                    .and_then(|(_, p)| u16::from_str_radix(p, 16).ok())
                {
                    ports.push(port);
                }
            }
        }
    }
    ports
}

/// The permission bits of `path` (not following a link).
pub fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path)
        .unwrap_or_else(|e| panic!("stat {}: {e}", path.display()))
        .permissions()
        .mode()
        & 0o7777
}

/// A directory under a fresh temp dir whose path is `len` bytes or longer.
pub fn long_dir(parent: &Path, len: usize) -> PathBuf {
    let mut dir = parent.to_path_buf();
    while dir.as_os_str().len() < len {
        dir.push("a-long-directory-name-for-the-store");
    }
    dir
}

/// Whether process `pid` runs (a zombie does not count).
pub fn alive(pid: u32) -> bool {
    std::fs::read_link(format!("/proc/{pid}/cwd")).is_ok()
        || std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
            !s.rsplit_once(')')
                .is_some_and(|(_, r)| r.trim_start().starts_with('Z'))
        })
}

/// Starts this test binary's test `owner_child` (its full name: [`crate::test_name`]) in a child
/// process (with `env` = `dir`), reads
/// the `server <pid> <private dir>` line it prints once its managed server runs, kills the
/// owner with SIGKILL and waits until the server has followed it (however long that takes; a
/// hang is the test command's timeout to catch). Returns the server's private directory.
pub fn kill_owner_of_a_server(owner_child: &str, env: &str, dir: &Path) -> String {
    use std::io::{BufRead, BufReader};
    let mut child = Command::new(std::env::current_exe().expect("test executable"))
        .args(["--exact", owner_child, "--nocapture"])
        .env(env, dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn owner");
    let stdout = child.stdout.take().expect("stdout");
    let mut found = None;
    for line in BufReader::new(stdout).lines() {
        let line = line.expect("read owner");
        if let Some(rest) = line.strip_prefix("server ") {
            let (pid, private) = rest.split_once(' ').expect("pid and dir");
            found = Some((pid.parse::<u32>().expect("pid"), private.to_string()));
            break;
        }
        assert!(!line.starts_with("failed"), "{line}");
    }
    let (pid, private) = found.expect("the owner printed its server");
    child.kill().expect("SIGKILL the owner");
    child.wait().expect("reap the owner");
    // The server shuts down once its owner is gone (PR_SET_PDEATHSIG).
    while alive(pid) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    private
}
