//! Two processes creating the same new LMDB store at the same moment both open it (before the
//! fix, about 1 race in 10 told one of them the store was `Corrupt`: its truncation check
//! measured a file still being created). Real processes: this test binary re-run as children.
#![cfg(feature = "lmdb")]

use std::path::Path;
use std::process::{Command, Stdio};

use triebench_kv::lmdb::{LmdbOptions, LmdbStore};
use triebench_kv_conformance::TABLES;

/// Set in the children: the store directory to open.
const CHILD_ENV: &str = "TRIEBENCH_LMDB_RACE_DIR";
/// Races run per profile.
const RACES: usize = 25;

fn open(dir: &Path, transact_flags: bool) -> Result<LmdbStore, triebench_kv::KvError> {
    LmdbStore::open(
        dir,
        TABLES,
        LmdbOptions {
            map_size: 1 << 30,
            transact_flags,
        },
    )
}

#[test]
fn concurrent_creation_never_reports_corruption() {
    let exe = std::env::current_exe().expect("test executable");
    for transact_flags in [false, true] {
        for race in 0..RACES {
            let root = tempfile::tempdir().expect("temp dir");
            let dir = root.path().join("store");
            let children: Vec<_> = (0..2)
                .map(|_| {
                    Command::new(&exe)
                        .args([
                            "--exact",
                            &crate::test_name(module_path!(), "race_child"),
                            "--nocapture",
                        ])
                        .env(CHILD_ENV, &dir)
                        .env("TRIEBENCH_LMDB_RACE_ASYNC", transact_flags.to_string())
                        .stdout(Stdio::piped())
                        .stderr(Stdio::piped())
                        .spawn()
                        .expect("spawn child")
                })
                .collect();
            for child in children {
                let out = child.wait_with_output().expect("wait child");
                let stdout = String::from_utf8_lossy(&out.stdout);
                assert!(
                    out.status.success() && stdout.contains("child: opened"),
                    "race {race} (transact flags {transact_flags}): {stdout}\n{}",
                    String::from_utf8_lossy(&out.stderr)
                );
            }
        }
    }
}

/// The child half: opens the store named by the environment; does nothing in a normal run.
#[test]
fn race_child() {
    let Some(dir) = std::env::var_os(CHILD_ENV) else {
        return;
    };
    let transact_flags = std::env::var("TRIEBENCH_LMDB_RACE_ASYNC").is_ok_and(|v| v == "true");
    match open(Path::new(&dir), transact_flags) {
        Ok(_) => println!("child: opened"),
        Err(e) => panic!("child: {e}"),
    }
}
