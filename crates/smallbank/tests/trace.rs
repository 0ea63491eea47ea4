//! The replayable trace: `fixtures/smallbank/trace.jsonl` replays to the roots recorded beside
//! it on real stores, and the generator still makes it (its first 15 blocks, a shorter run of
//! the same playlist); a fresh trace replays to the run's own roots.

use std::io::BufReader;
use std::path::{Path, PathBuf};

use triebench_kv::{BackendSpec, StoreVisitor};
use triebench_merkle::TABLES;
use triebench_smallbank::{roots_path, run, SmallbankOptions, TransactStore};
use triebench_workloads::commit_file::replay;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/smallbank/trace.jsonl")
}

struct Replay<'a>(&'a Path);

impl StoreVisitor for Replay<'_> {
    type Output = String;
    fn visit<S: triebench_kv::Store>(self, store: S) -> String {
        let file = std::fs::File::open(self.0).unwrap();
        let mut out = Vec::new();
        replay(&store, BufReader::new(file), &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }
}

/// The roots `triebench root` prints for `trace` on `profile`.
fn replayed(trace: &Path, profile: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let dir_arg = (profile != "btree").then(|| dir.path().join("store"));
    let spec = BackendSpec::parse(profile, dir_arg).unwrap();
    spec.open(TABLES, Replay(trace)).unwrap()
}

fn recorded(trace: &Path) -> String {
    std::fs::read_to_string(roots_path(trace)).unwrap()
}

#[test]
fn the_fixture_replays_to_its_roots_in_memory_and_on_lmdb() {
    let expected = recorded(&fixture());
    assert_eq!(expected.lines().count(), 110);
    for profile in ["btree", "lmdb"] {
        assert_eq!(replayed(&fixture(), profile), expected, "{profile}");
    }
}

/// SQLite and PostgreSQL sync every commit: their replay takes the fixture's first 25 blocks
/// (the account creations and 15 blocks of transactions), to keep the test short.
#[test]
fn the_fixtures_first_blocks_replay_to_their_roots_on_sqlite_and_postgres() {
    let dir = tempfile::tempdir().unwrap();
    let head = dir.path().join("head.jsonl");
    let text = std::fs::read_to_string(fixture()).unwrap();
    let lines: Vec<&str> = text.lines().take(25).collect();
    std::fs::write(&head, lines.join("\n") + "\n").unwrap();
    let all = recorded(&fixture());
    let expected: String = all.lines().take(25).map(|r| format!("{r}\n")).collect();
    for profile in ["sqlite-wal-full", "postgres"] {
        assert_eq!(replayed(&head, profile), expected, "{profile}");
    }
}

#[test]
fn the_generator_still_makes_the_fixture() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("trace.jsonl");
    // The fixture's playlist cut short: its first 15 blocks (10 of account creations, 5 of
    // transactions) are the same draws.
    run(
        &SmallbankOptions {
            family: triebench_smallbank::Family::Smallbank,
            profile: "btree".into(),
            dir: None,
            accounts: 1000,
            transactions: 500,
            block_size: 100,
            seed: 1,
            trace: Some(trace.clone()),
            transact: TransactStore::Memory,
        },
        &mut |_| {},
    )
    .unwrap();
    let fixture_text = std::fs::read_to_string(fixture()).unwrap();
    let fixture_lines: Vec<&str> = fixture_text.lines().take(15).collect();
    let ours = std::fs::read_to_string(&trace).unwrap();
    assert_eq!(ours.lines().collect::<Vec<_>>(), fixture_lines);
    let fixture_roots = recorded(&fixture());
    let roots: Vec<&str> = fixture_roots.lines().take(15).collect();
    assert_eq!(recorded(&trace).lines().collect::<Vec<_>>(), roots);
}

#[test]
fn a_fresh_trace_replays_to_the_runs_roots() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("t.jsonl");
    let result = run(
        &SmallbankOptions {
            family: triebench_smallbank::Family::Smallbank,
            profile: "lmdb".into(),
            dir: Some(dir.path().join("state")),
            accounts: 20,
            transactions: 200,
            block_size: 30,
            seed: 3,
            trace: Some(trace.clone()),
            transact: TransactStore::Memory,
        },
        &mut |_| {},
    )
    .unwrap();
    let roots = recorded(&trace);
    assert_eq!(roots.lines().count() as u64, result.blocks);
    assert_eq!(roots.lines().last(), Some(result.final_root.as_str()));
    assert_eq!(replayed(&trace, "sqlite-wal-full"), roots);
}
