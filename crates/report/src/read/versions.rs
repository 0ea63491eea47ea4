//! The versions `env.json` states: those the baseline run's record names (what its numbers were
//! measured with), else triebench's and the checkout's, with the libraries `unknown` (a run
//! of criterion's own output records no versions).

use std::path::Path;
use std::process::Command;

pub use crate::model::env::Versions;

fn command_output(program: &str, args: &[&str], dir: &Path) -> Option<String> {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    Some(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The versions a report states when its runs recorded none. Git is asked in the checkout
/// this binary was built from (the crate's source directory), never in the current directory;
/// `unknown` when the checkout is gone.
pub fn unrecorded() -> Versions {
    let source_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let git = |args: &[&str]| command_output("git", args, source_dir);
    let commit = git(&["rev-parse", "HEAD"]);
    let dirty = commit
        .as_ref()
        .and_then(|_| git(&["status", "--porcelain", "--untracked-files=no"]))
        .map(|s| !s.is_empty());
    let unknown = || "unknown".to_string();
    Versions {
        sqlite: unknown(),
        lmdb: unknown(),
        redis_server: unknown(),
        triebench: env!("CARGO_PKG_VERSION").to_string(),
        git_commit: commit.unwrap_or_else(unknown),
        git_dirty: dirty,
    }
}
