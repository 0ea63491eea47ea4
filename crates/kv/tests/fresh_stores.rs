//! `FreshStores::try_run`: a run that succeeds leaves nothing behind; a failed run keeps the
//! directory its error names (a server's log) and removes the rest; a shared PostgreSQL server
//! that died during a run is named in the error, with its log kept to be read.

use std::path::{Path, PathBuf};

use triebench_kv::{FreshStores, Profile, Store, StoreVisitor};

/// The directories under `parent` whose names start with `prefix`.
fn dirs_named(parent: &Path, prefix: &str) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(parent)
        .expect("read parent")
        .map(|e| e.expect("entry").path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(prefix))
        })
        .collect();
    found.sort();
    found
}

/// Fails naming a file in its own store's directory when `name_it`, else with a bare message.
struct FailNaming<'a> {
    parent: &'a Path,
    name_it: bool,
}

impl StoreVisitor for FailNaming<'_> {
    type Output = Result<(), String>;

    fn visit<S: Store + 'static>(self, _store: S) -> Result<(), String> {
        let mine = dirs_named(self.parent, "triebench-");
        match (self.name_it, mine.as_slice()) {
            (true, [dir]) => Err(format!("see {}", dir.join("server.log").display())),
            (true, other) => Err(format!("expected one store directory, found {other:?}")),
            (false, _) => Err("failed without naming a file".to_string()),
        }
    }
}

/// Succeeds.
struct Succeed;

impl StoreVisitor for Succeed {
    type Output = Result<u8, String>;

    fn visit<S: Store + 'static>(self, _store: S) -> Result<u8, String> {
        Ok(7)
    }
}

#[test]
fn a_failed_run_keeps_only_the_directory_its_error_names() {
    let parent = tempfile::tempdir().expect("temp dir");
    let stores = FreshStores::new(Profile::Btree, parent.path()).expect("stores");

    assert_eq!(stores.try_run(&["main"], Succeed).expect("open"), Ok(7));
    assert!(dirs_named(parent.path(), "").is_empty());

    let bare = FailNaming {
        parent: parent.path(),
        name_it: false,
    };
    assert!(stores.try_run(&["main"], bare).expect("open").is_err());
    assert!(dirs_named(parent.path(), "").is_empty());

    let naming = FailNaming {
        parent: parent.path(),
        name_it: true,
    };
    let err = stores
        .try_run(&["main"], naming)
        .expect("open")
        .expect_err("fails");
    let kept = dirs_named(parent.path(), "triebench-");
    assert_eq!(kept.len(), 1, "{err}");
    assert!(err.contains(&kept[0].display().to_string()), "{err}");
}

#[cfg(feature = "postgres-db")]
mod postgres {
    use super::*;
    use std::time::Duration;

    /// Kills the shared server's postmaster under `parent`, waits until it has exited, then fails.
    struct KillServer<'a> {
        parent: &'a Path,
    }

    impl StoreVisitor for KillServer<'_> {
        type Output = Result<(), String>;

        fn visit<S: Store + 'static>(self, _store: S) -> Result<(), String> {
            let [server] = dirs_named(self.parent, "triebench-pg-")
                .try_into()
                .map_err(|found: Vec<PathBuf>| {
                    format!("expected one server directory, found {found:?}")
                })?;
            let pid_file = server.join("pgdata/postmaster.pid");
            let text = std::fs::read_to_string(&pid_file).map_err(|e| e.to_string())?;
            let pid: i32 = text
                .lines()
                .next()
                .and_then(|l| l.trim().parse().ok())
                .ok_or("no pid in postmaster.pid")?;
            // SAFETY: a signal to the postmaster the stores under test started.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            // Dead once it is a zombie (its parent, this process, has not reaped it yet); waited
            // for however long SIGKILL takes (a hang is the test command's timeout to catch).
            while std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .is_ok_and(|stat| !stat.contains(") Z "))
            {
                std::thread::sleep(Duration::from_millis(20));
            }
            Err("the store stopped answering".to_string())
        }
    }

    #[test]
    fn a_shared_server_that_died_is_named_and_its_log_kept() {
        if std::env::var_os("POSTGRES_URL").is_some() {
            // The stores would use that server, not one of their own.
            return;
        }
        let parent = tempfile::tempdir().expect("temp dir");
        let stores = FreshStores::new(Profile::Postgres, parent.path()).expect("stores");
        let visit = KillServer {
            parent: parent.path(),
        };
        let err = stores
            .try_run(&["main"], visit)
            .expect_err("a dead server is the store's error");
        drop(stores);
        let msg = err.to_string();
        assert!(
            msg.contains("the store stopped answering") && msg.contains("has exited"),
            "{msg}"
        );
        let [server] = dirs_named(parent.path(), "triebench-pg-")
            .try_into()
            .expect("the server's directory is kept");
        let log = server.join("postgres.log");
        assert!(
            log.is_file() && msg.contains(&log.display().to_string()),
            "{msg}"
        );
    }
}
