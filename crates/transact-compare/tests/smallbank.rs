//! SmallBank through Transact 0.4.7's executor on Transact's own durable states, run by the
//! real `transact-runner` block by block beside triebench's trie (the parent, as
//! `triebench smallbank --transact` runs it): every block's changes and root must agree, and
//! the chain must end where Transact's in-memory MerkleState's does.

use std::path::{Path, PathBuf};

use triebench_smallbank::{run, Family, SmallbankOptions, SmallbankResult, TransactStore};

fn options(dir: &Path, transact: TransactStore) -> SmallbankOptions {
    SmallbankOptions {
        family: Family::Smallbank,
        profile: "btree".into(),
        dir: Some(dir.join("state")),
        accounts: 30,
        transactions: 270,
        block_size: 25,
        seed: 7,
        trace: None,
        transact,
    }
}

fn runner() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_transact-runner"))
}

fn on(implementation: &str) -> SmallbankResult {
    on_removing(implementation, false)
}

fn on_removing(implementation: &str, remove_pruned: bool) -> SmallbankResult {
    let dir = tempfile::tempdir().unwrap();
    let transact = TransactStore::Runner {
        implementation: implementation.into(),
        runner: runner(),
        remove_pruned,
    };
    let mut blocks = 0;
    let result = run(&options(dir.path(), transact), &mut |p| blocks = p.block)
        .unwrap_or_else(|e| panic!("{implementation}: {e}"));
    assert_eq!(
        blocks, 12,
        "{implementation}: 300 transactions in blocks of 25"
    );
    assert_eq!(result.transact_state, implementation);
    assert_eq!(
        result.valid_transactions + result.invalid_transactions,
        300,
        "{implementation}"
    );
    assert!(
        result.transact.commit_s > 0.0,
        "{implementation}: {result:?}"
    );
    result
}

/// The chain's end on Transact's in-memory MerkleState, in this process.
fn in_memory() -> SmallbankResult {
    let dir = tempfile::tempdir().unwrap();
    run(&options(dir.path(), TransactStore::Memory), &mut |_| {}).unwrap()
}

#[test]
fn transact_lmdb_and_sqlite_agree_with_triebench_block_by_block() {
    let reference = in_memory();
    for implementation in [
        "transact-0.4.7:btree",
        "transact-0.4.7:lmdb",
        "transact-0.4.7:sqlite-wal-full",
        "transact-0.4.7:sqlite-rollback",
    ] {
        let result = on(implementation);
        assert_eq!(result.final_root, reference.final_root, "{implementation}");
        assert_eq!(
            result.valid_transactions, reference.valid_transactions,
            "{implementation}"
        );
        if implementation != "transact-0.4.7:btree" {
            assert!(
                result.transact_state_bytes > 0,
                "{implementation}: {result:?}"
            );
        }
    }
}

#[test]
fn transact_postgres_agrees_on_a_server_the_run_starts() {
    // Without POSTGRES_URL the run starts a PostgreSQL server of Transact's own under the
    // run's directory (the kv crate's managed server, as triebench's postgres profile has).
    if std::env::var_os("POSTGRES_URL").is_some() {
        eprintln!("POSTGRES_URL is set: the run uses that server");
    }
    let result = on("transact-0.4.7:postgres");
    assert_eq!(result.final_root, in_memory().final_root);
    assert!(result.transact_state_bytes > 0, "{result:?}");
}

#[test]
fn transact_0_3_7_is_refused_with_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    let transact = TransactStore::Runner {
        implementation: "transact-0.3.7:lmdb".into(),
        runner: runner(),
        remove_pruned: false,
    };
    let err = run(&options(dir.path(), transact), &mut |_| {})
        .unwrap_err()
        .to_string();
    assert!(err.contains("Transact 0.4.7's executor"), "{err}");
}

#[test]
fn an_unknown_state_names_the_valid_ones() {
    let dir = tempfile::tempdir().unwrap();
    let transact = TransactStore::Runner {
        implementation: "transact-0.4.7:rocksdb".into(),
        runner: runner(),
        remove_pruned: false,
    };
    let err = run(&options(dir.path(), transact), &mut |_| {})
        .unwrap_err()
        .to_string();
    assert!(err.contains("transact-0.4.7:lmdb"), "{err}");
}

#[test]
fn transact_sqlite_with_its_marked_rows_removed_agrees_and_keeps_less() {
    // Transact's SQL prune only marks rows; remove_pruned_entries after each prune deletes
    // them: the same chain, in a smaller file.
    let kept = on("transact-0.4.7:sqlite-wal-full");
    let removed = on_removing("transact-0.4.7:sqlite-wal-full", true);
    assert!(removed.transact_removes_pruned);
    assert!(!kept.transact_removes_pruned);
    assert_eq!(removed.final_root, kept.final_root);
    assert!(
        removed.transact_state_bytes < kept.transact_state_bytes,
        "removed {} bytes, kept {}",
        removed.transact_state_bytes,
        kept.transact_state_bytes
    );
}

#[test]
fn removing_pruned_rows_is_refused_for_a_state_whose_prune_deletes() {
    let dir = tempfile::tempdir().unwrap();
    let transact = TransactStore::Runner {
        implementation: "transact-0.4.7:lmdb".into(),
        runner: runner(),
        remove_pruned: true,
    };
    let err = run(&options(dir.path(), transact), &mut |_| {})
        .unwrap_err()
        .to_string();
    assert!(err.contains("prune deletes already"), "{err}");
}
