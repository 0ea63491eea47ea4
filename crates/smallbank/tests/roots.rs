//! A short SmallBank playlist end to end on real stores: every block's root must equal
//! Transact's MerkleState's (the run stops with `RootMismatch` otherwise), on btree, LMDB,
//! SQLite (WAL, full sync) and a PostgreSQL server the kv crate starts in the directory.

use triebench_smallbank::{
    run, Family, SmallbankError, SmallbankOptions, SmallbankResult, TransactStore,
};

fn options(profile: &str, dir: Option<&std::path::Path>) -> SmallbankOptions {
    SmallbankOptions {
        family: Family::Smallbank,
        profile: profile.into(),
        dir: dir.map(|d| d.join("state")),
        accounts: 30,
        transactions: 270,
        block_size: 25,
        seed: 7,
        trace: None,
        transact: TransactStore::Memory,
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

/// Transact's command family through the same executor: every block's root equal to
/// Transact's on btree and on a real LMDB file, each transaction valid (a read and a write of a
/// created key), every block changing what it wrote.
#[test]
fn the_command_family_gives_transacts_roots_on_btree_and_lmdb() {
    let command = |profile: &str, dir: Option<&std::path::Path>| SmallbankOptions {
        family: Family::Command,
        accounts: 20,
        transactions: 180,
        block_size: 20,
        ..options(profile, dir)
    };
    let on_btree = run(&command("btree", None), &mut |_| {}).expect("btree");
    assert_eq!(on_btree.family, "command");
    assert_eq!(on_btree.blocks, 10);
    assert_eq!(on_btree.valid_transactions, 200, "{on_btree:?}");
    assert_eq!(on_btree.invalid_transactions, 0);
    // A block of 20 writes to 20 keys drawn from 20 changes at most 20 leaves, at least one.
    assert!(
        (1.0..=20.0).contains(&on_btree.changes_per_block),
        "{on_btree:?}"
    );
    let dir = tempfile::tempdir().unwrap();
    let on_lmdb = run(&command("lmdb", Some(dir.path())), &mut |_| {}).expect("lmdb");
    assert_eq!(on_lmdb.final_root, on_btree.final_root);
    // Not SmallBank's chain.
    assert_ne!(on_btree.final_root, run_on("btree").final_root);
}

#[test]
fn families_are_named_and_an_unknown_one_lists_them() {
    assert_eq!("command".parse::<Family>().unwrap(), Family::Command);
    let err = "xo".parse::<Family>().unwrap_err().to_string();
    assert!(
        err.contains("unknown family `xo`; the families are smallbank, command"),
        "{err}"
    );
    // The command family needs one key, SmallBank two accounts.
    let too_few = SmallbankOptions {
        accounts: 1,
        ..options("btree", None)
    };
    let err = run(&too_few, &mut |_| {}).unwrap_err().to_string();
    assert!(err.contains("at least 2 for smallbank"), "{err}");
    let one_key = SmallbankOptions {
        family: Family::Command,
        accounts: 1,
        transactions: 5,
        ..options("btree", None)
    };
    assert!(run(&one_key, &mut |_| {}).is_ok());
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
