//! Versions of what produced the numbers: SQLite, LMDB, redis-server and triebench itself.

use std::path::Path;
use std::process::Command;

use triebench_kv::versions::{lmdb, sqlite};
pub use triebench_record::Versions;

fn command_output(program: &str, args: &[&str], dir: Option<&Path>) -> Option<String> {
    let mut cmd = Command::new(program);
    cmd.args(args);
    if let Some(d) = dir {
        cmd.current_dir(d);
    }
    let out = cmd.output().ok()?;
    if !out.status.success() {
        return None;
    }
    Some(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn redis_server() -> String {
    command_output("redis-server", &["--version"], None)
        .and_then(|s| s.lines().next().map(str::to_string))
        .unwrap_or_else(|| "not found".to_string())
}

/// Captures the versions. Git is asked in the checkout this binary was built from (the
/// crate's source directory), never in the current directory: run from inside another
/// repository, that one's commit would be recorded. `unknown` when the checkout is gone.
pub fn capture() -> Versions {
    let source_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let git = |args: &[&str]| command_output("git", args, Some(source_dir));
    let commit = git(&["rev-parse", "HEAD"]);
    let dirty = commit
        .as_ref()
        .and_then(|_| git(&["status", "--porcelain", "--untracked-files=no"]))
        .map(|s| !s.is_empty());
    Versions {
        sqlite: sqlite(),
        lmdb: lmdb(),
        redis_server: redis_server(),
        triebench: env!("CARGO_PKG_VERSION").to_string(),
        git_commit: commit.unwrap_or_else(|| "unknown".to_string()),
        git_dirty: dirty,
    }
}

/// Writes `dir/env.json` (replaced whole): when, on which machine, with which software versions
/// and by which command a result folder's figures were made; the one writer of that file for
/// the growth curves and the crash lab's folders.
pub fn write_env_json(dir: &Path) -> std::io::Result<()> {
    let env = serde_json::json!({
        "generated_at": triebench_record::time::now(),
        "host": triebench_record::host::capture_host(),
        "versions": capture(),
        "command": std::env::args().collect::<Vec<_>>().join(" "),
    });
    let text = serde_json::to_string_pretty(&env).map_err(std::io::Error::other)?;
    triebench_record::file::write_atomically(&dir.join("env.json"), (text + "\n").as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_libraries_built_in_report_their_versions() {
        let v = capture();
        if triebench_kv::Profile::Lmdb.is_enabled() {
            assert!(v.lmdb.starts_with("LMDB 0."), "{}", v.lmdb);
        } else {
            assert_eq!(v.lmdb, "not built");
        }
        if triebench_kv::Profile::SqliteWal.is_enabled() {
            assert!(v.sqlite.starts_with("3."), "{}", v.sqlite);
        } else {
            assert_eq!(v.sqlite, "not built");
        }
        assert_eq!(v.triebench, env!("CARGO_PKG_VERSION"));
    }
}
