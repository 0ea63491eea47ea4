//! A short SmallBank playlist end to end on real stores: every block's root must equal
//! Transact's MerkleState's (the run stops with `RootMismatch` otherwise), on btree, LMDB,
//! SQLite (WAL, full sync) and a PostgreSQL server the kv crate starts in the directory.

use triebench_smallbank::{run, SmallbankError, SmallbankOptions, SmallbankResult};

fn options(profile: &str, dir: Option<&std::path::Path>) -> SmallbankOptions {
    SmallbankOptions {
        profile: profile.into(),
        dir: dir.map(|d| d.join("state")),
        accounts: 30,
        transactions: 270,
        block_size: 25,
        seed: 7,
        trace: None,
    }
}

fn run_on(profile: &str) -> SmallbankResult {
    let dir = tempfile::tempdir().unwrap();
    let dir_arg = (profile != "btree").then_some(dir.path());
    let mut last = 0;
    let result = run(&options(profile, dir_arg), &mut |p| last = p.block)
        .unwrap_or_else(|e| panic!("{profile}: {e}"));
    assert_eq!(last, 12, "{profile}: progress after every block");
    assert_eq!(
        result.blocks, 12,
        "{profile}: 300 transactions in blocks of 25"
    );
    assert_eq!(
        result.valid_transactions + result.invalid_transactions,
        300,
        "{profile}"
    );
    // The 30 account creations are all valid; most payments are.
    assert!(result.valid_transactions > 200, "{profile}: {result:?}");
    assert!(result.changes_per_block > 1.0, "{profile}: {result:?}");
    if profile != "btree" {
        assert!(result.state_bytes > 0, "{profile}: {result:?}");
    }
    result
}

#[test]
fn same_roots_as_transact_on_btree() {
    let a = run_on("btree");
    // Seeded: the same seed gives the same chain, another seed another.
    assert_eq!(a.final_root, run_on("btree").final_root);
    let other = run(
        &SmallbankOptions {
            seed: 8,
            ..options("btree", None)
        },
        &mut |_| {},
    )
    .unwrap();
    assert_ne!(a.final_root, other.final_root);
}

#[test]
fn same_roots_as_transact_on_lmdb() {
    assert_eq!(run_on("lmdb").final_root, run_on("btree").final_root);
}

#[test]
fn same_roots_as_transact_on_sqlite() {
    assert_eq!(
        run_on("sqlite-wal-full").final_root,
        run_on("btree").final_root
    );
}

#[test]
fn same_roots_as_transact_on_postgres() {
    assert_eq!(run_on("postgres").final_root, run_on("btree").final_root);
}

#[test]
fn an_unknown_profile_is_named() {
    let err = run(&options("no-such-profile", None), &mut |_| {}).unwrap_err();
    assert!(matches!(err, SmallbankError::Open { .. }), "{err:?}");
    let text = err.to_string();
    assert!(text.contains("no-such-profile"), "{text}");
    assert!(text.contains("lmdb"), "the valid names are listed: {text}");
}

#[test]
fn a_directory_under_a_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, b"x").unwrap();
    let mut opts = options("lmdb", None);
    opts.dir = Some(file.join("state"));
    let err = run(&opts, &mut |_| {}).unwrap_err();
    assert!(matches!(err, SmallbankError::Directory { .. }), "{err:?}");
    assert!(err.to_string().contains("a-file"), "{err}");
}

#[test]
fn a_file_profile_without_a_directory_says_so() {
    let err = run(&options("lmdb", None), &mut |_| {}).unwrap_err();
    assert!(matches!(err, SmallbankError::Open { .. }), "{err:?}");
}

#[test]
fn too_few_accounts_are_refused() {
    let mut opts = options("btree", None);
    opts.accounts = 1;
    let err = run(&opts, &mut |_| {}).unwrap_err();
    assert!(matches!(err, SmallbankError::Options(_)), "{err:?}");
}
