//! One crash round's process work: start the child ([`crate::child`], through the binary's
//! hidden `crash-child` command), collect the roots it acknowledges, kill it with SIGKILL, and
//! make sure nothing it started stays behind.

use std::borrow::Cow;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::child::READY;
use crate::error::CrashError;

/// How long a child may take to open its store (a managed redis-server replays its AOF; a
/// standby profile starts two servers and copies the primary): long enough for a host loaded
/// far past its cores (at 60 s, `postgres-sync-standby` missed it in a CI run at load average
/// 22 on two cores), short of the test runner's 15-minute kill, so a hung child still fails
/// with this message.
const READY_TIMEOUT: Duration = Duration::from_secs(300);
/// How long processes working in the directory get to die after their owner was killed.
const LEFTOVER_GRACE: Duration = Duration::from_secs(5);

/// What the child printed.
enum Line {
    Ready,
    Root(String),
}

/// A running crash-test child.
pub(crate) struct RunningChild {
    child: Child,
    lines: Receiver<Line>,
    reader: JoinHandle<()>,
    stderr: JoinHandle<String>,
    roots: Vec<String>,
}

impl RunningChild {
    /// Starts `triebench crash-child` on `profile` in `dir`, resuming from `from`.
    pub(crate) fn start(
        profile: &str,
        dir: &Path,
        seed: u64,
        from: Option<&str>,
    ) -> Result<RunningChild, CrashError> {
        let exe = std::env::current_exe().map_err(CrashError::NoBinary)?;
        let mut command = Command::new(exe);
        command
            .arg("crash-child")
            .arg("--backend")
            .arg(profile)
            .arg("--dir")
            .arg(dir)
            .arg("--seed")
            .arg(seed.to_string());
        if let Some(root) = from {
            command.arg("--from").arg(root);
        }
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(CrashError::ChildStart)?;
        let (Some(stdout), Some(mut stderr)) = (child.stdout.take(), child.stderr.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(CrashError::ChildPipes);
        };
        let (tx, lines) = mpsc::channel();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let msg = if line == READY {
                    Line::Ready
                } else {
                    Line::Root(line)
                };
                if tx.send(msg).is_err() {
                    break;
                }
            }
        });
        let stderr = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        Ok(RunningChild {
            child,
            lines,
            reader,
            stderr,
            roots: Vec::new(),
        })
    }

    /// Waits until the child has opened its store and starts committing.
    pub(crate) fn wait_ready(&mut self) -> Result<(), CrashError> {
        let deadline = Instant::now() + READY_TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(Line::Ready) => return Ok(()),
                Ok(Line::Root(root)) => self.roots.push(root),
                Err(RecvTimeoutError::Timeout) => {
                    let secs = READY_TIMEOUT.as_secs();
                    return Err(self.failed(format!("did not open its store within {secs} s")));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(self.failed("exited before committing"))
                }
            }
        }
    }

    /// Whether the child is still running.
    pub(crate) fn check_alive(&mut self) -> Result<(), CrashError> {
        match self.child.try_wait() {
            Ok(None) => Ok(()),
            _ => Err(self.failed("exited by itself")),
        }
    }

    /// Kills the child with SIGKILL, reaps it, and returns every root it acknowledged.
    pub(crate) fn kill(mut self) -> Vec<String> {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = self.reader.join();
        while let Ok(line) = self.lines.try_recv() {
            if let Line::Root(root) = line {
                self.roots.push(root);
            }
        }
        let _ = self.stderr.join();
        self.roots
    }

    fn failed(&mut self, what: impl Into<Cow<'static, str>>) -> CrashError {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let stderr = std::mem::replace(&mut self.stderr, std::thread::spawn(String::new));
        let text = stderr.join().unwrap_or_default();
        CrashError::ChildFailed {
            what: what.into(),
            stderr: text.trim().to_string(),
        }
    }
}

/// Makes this process the reaper of orphans it leaves behind (`PR_SET_CHILD_SUBREAPER`): a
/// server started by a killed child (a postmaster) is re-parented here rather than to PID 1,
/// which may reap late; until reaped, its zombie still counts as alive to a server checking its
/// lock file (`kill(pid, 0)`), and the next round's server would refuse to start.
/// Linux only; elsewhere orphans go to launchd/init as before.
pub(crate) fn adopt_orphans() {
    // SAFETY: prctl with integer arguments only; failure (an old kernel) only loses the adoption.
    #[cfg(target_os = "linux")]
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    };
}

/// Reaps zombies re-parented to this process by [`adopt_orphans`], and only those: a child this
/// process started itself (the slowfs mount) is waited for by its own `Child`, and is never a
/// zombie while running.
fn reap_adopted_zombies(known: &[u32]) {
    let me = std::process::id();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return;
    };
    for pid in entries
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| !known.contains(pid))
    {
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // `pid (comm) state ppid ...`: comm may hold spaces and parentheses, so split at the last ')'.
        let mut fields = stat
            .rsplit_once(')')
            .map(|(_, rest)| rest)
            .unwrap_or("")
            .split_whitespace();
        let (Some(state), Some(ppid)) = (fields.next(), fields.next()) else {
            continue;
        };
        if state == "Z" && ppid.parse::<u32>() == Ok(me) {
            let mut status = 0;
            // SAFETY: waitpid on a zombie child of ours; WNOHANG never blocks.
            unsafe { libc::waitpid(pid as i32, &mut status, libc::WNOHANG) };
        }
    }
}

/// Processes (other than this one) whose working directory is under one of `dirs`, such as a
/// managed redis-server (it changes into its `--dir`).
fn processes_in(dirs: &[PathBuf]) -> Vec<i32> {
    let me = std::process::id() as i32;
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| pid != me)
        .filter(|pid| {
            std::fs::read_link(format!("/proc/{pid}/cwd"))
                .map(|cwd| dirs.iter().any(|d| cwd.starts_with(d)))
                .unwrap_or(false)
        })
        .collect()
}

/// Waits for processes working in `dirs` to exit (a managed server dies with its owner);
/// kills and counts any still there after a grace period. Zombies adopted by this process are
/// reaped on the way, except the processes in `known` (children this process waits for itself).
pub(crate) fn reap_leftovers(dirs: &[PathBuf], known: &[u32]) -> u64 {
    let deadline = Instant::now() + LEFTOVER_GRACE;
    loop {
        reap_adopted_zombies(known);
        let left = processes_in(dirs);
        if left.is_empty() {
            // One that exited since the reap above is a zombie, which `processes_in` cannot
            // see (its cwd is gone) but whose pid is still taken: a PostgreSQL restarted on the
            // store refuses a postmaster.pid naming it ("lock file already exists").
            reap_adopted_zombies(known);
            return 0;
        }
        if Instant::now() >= deadline {
            for pid in &left {
                // SAFETY: kill(2) on a pid we found; at worst it has exited meanwhile.
                unsafe { libc::kill(*pid, libc::SIGKILL) };
            }
            std::thread::sleep(Duration::from_millis(100));
            return left.len() as u64;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
