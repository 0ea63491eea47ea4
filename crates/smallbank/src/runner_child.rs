//! [`RunnerChild`]: the parent's half of [`runner_protocol`](crate::runner_protocol):
//! `transact-runner smallbank` started with the run's request, asked for one block at a time.

use std::io::{BufRead, BufReader, Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::thread::JoinHandle;

use crate::error::SmallbankError;
use crate::runner_protocol::{RunnerReply, RunnerRequest, NEXT, SUBCOMMAND};
use crate::side::BlockOutcome;

/// A running `transact-runner smallbank`, its store open and its executor started.
pub struct RunnerChild {
    path: PathBuf,
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    stderr: Option<JoinHandle<String>>,
    /// The Transact store's empty root.
    pub initial_root: String,
    /// Whether its commits reach stable storage before they return.
    pub fsyncs_per_commit: bool,
}

impl RunnerChild {
    /// Starts `runner` on `request`, with `env` added to its environment (a PostgreSQL
    /// server's URL), and waits for it to say it is ready.
    pub fn start(
        runner: &Path,
        request: &RunnerRequest,
        env: &[(&str, String)],
    ) -> Result<Self, SmallbankError> {
        let json = serde_json::to_string(request)
            .map_err(|e| SmallbankError::Runner(format!("encoding the request: {e}")))?;
        let mut command = Command::new(runner);
        command
            .arg(SUBCOMMAND)
            .arg(json)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (name, value) in env {
            command.env(name, value);
        }
        let mut child = command
            .spawn()
            .map_err(|source| SmallbankError::RunnerStart {
                path: runner.to_path_buf(),
                source,
            })?;
        let (Some(stdin), Some(stdout), Some(mut stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(SmallbankError::Runner(
                "transact-runner started without its pipes".into(),
            ));
        };
        // Drained on a thread, so a chatty runner cannot fill the pipe and stall.
        let stderr = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        let mut runner_child = RunnerChild {
            path: runner.to_path_buf(),
            child,
            stdin: Some(stdin),
            stdout: BufReader::new(stdout),
            stderr: Some(stderr),
            initial_root: String::new(),
            fsyncs_per_commit: false,
        };
        match runner_child.read_reply()? {
            RunnerReply::Ready {
                initial_root,
                fsyncs_per_commit,
            } => {
                runner_child.initial_root = initial_root;
                runner_child.fsyncs_per_commit = fsyncs_per_commit;
                Ok(runner_child)
            }
            other => Err(runner_child.unexpected(&other)),
        }
    }

    /// Asks for the next block and returns what it came to.
    pub fn block(&mut self) -> Result<BlockOutcome, SmallbankError> {
        let asked = match self.stdin.as_mut() {
            Some(stdin) => writeln!(stdin, "{NEXT}").and_then(|()| stdin.flush()),
            None => Ok(()),
        };
        if let Err(e) = asked {
            return Err(self.stopped(&format!("cannot ask for a block: {e}")));
        }
        match self.read_reply()? {
            RunnerReply::Block(outcome) => Ok(outcome),
            other => Err(self.unexpected(&other)),
        }
    }

    /// Ends the runner: closes its input, so it stops its executor and exits, and waits.
    pub fn finish(mut self) -> Result<(), SmallbankError> {
        drop(self.stdin.take());
        let status = self.child.wait().map_err(|e| {
            SmallbankError::Runner(format!("waiting for {}: {e}", self.path.display()))
        })?;
        if status.success() {
            Ok(())
        } else {
            Err(self.stopped(&format!("it exited with {status}")))
        }
    }

    fn read_reply(&mut self) -> Result<RunnerReply, SmallbankError> {
        let mut line = String::new();
        match self.stdout.read_line(&mut line) {
            Ok(0) => Err(self.stopped("it stopped without a reply")),
            Ok(_) => serde_json::from_str(&line).map_err(|e| {
                SmallbankError::Runner(format!(
                    "{} replied `{}`, not a reply ({e})",
                    self.path.display(),
                    line.trim()
                ))
            }),
            Err(e) => Err(self.stopped(&format!("cannot read its reply: {e}"))),
        }
    }

    fn unexpected(&mut self, reply: &RunnerReply) -> SmallbankError {
        match reply {
            RunnerReply::Failed { message } => SmallbankError::Runner(format!(
                "Transact's side ({}) failed: {message}",
                self.path.display()
            )),
            other => SmallbankError::Runner(format!(
                "{} replied out of turn: {other:?}",
                self.path.display()
            )),
        }
    }

    /// The runner is gone or going: an error with what it said on its standard error.
    fn stopped(&mut self, what: &str) -> SmallbankError {
        drop(self.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
        let said = self
            .stderr
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default();
        let said = said.trim();
        SmallbankError::Runner(if said.is_empty() {
            format!("{}: {what}", self.path.display())
        } else {
            format!("{}: {what}; it said: {said}", self.path.display())
        })
    }
}

impl Drop for RunnerChild {
    fn drop(&mut self) {
        // A run that stopped early (a root mismatch) leaves the runner waiting for input.
        drop(self.stdin.take());
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
