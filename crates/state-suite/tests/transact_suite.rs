//! Hyperledger Transact 0.4.7's own merkle-state test suite, run against `triebench-transact-state` on
//! every backend compiled in.
//!
//! The suite's module comes from the published crate's source (see `build.rs`). Its fourteen
//! functions generic over a state (`Read + Write (+ Prune, MerkleRadixLeafReader)`) run here
//! once per profile; its six functions that take Transact's own `Database` (Transact's tree
//! over its databases) have nothing of ours to run on and are compiled but not called.
//! `test_produce_same_state` compares our state with Transact's `MerkleState` over its
//! in-memory database.

#[allow(dead_code, unused_imports, unexpected_cfgs, clippy::all)]
mod suite {
    include!(concat!(env!("OUT_DIR"), "/transact_merkle_suite.rs"));

    /// Transact's SQL states delete pruned rows in a second step; ours delete in the prune.
    impl<S: triebench_kv::Store> AutoCleanPrunedData for triebench_transact_state::TransactState<S> {
        fn remove_pruned_entries(&self) -> Result<(), InternalError> {
            Ok(())
        }
    }

    /// One test per generic suite function, on states `$open()` makes.
    macro_rules! suite_on {
        ($name:ident, $open:expr) => {
            mod $name {
                use super::*;
                use triebench_kv::AnyStore;
                use triebench_transact_state::TransactState;

                fn state() -> (Option<tempfile::TempDir>, TransactState<AnyStore>, String) {
                    let (dir, state) = $open();
                    let root = state.initial_root();
                    (dir, state, root)
                }

                #[test]
                fn merkle_trie_empty_changes() {
                    let (_dir, s, root) = state();
                    test_merkle_trie_empty_changes(root, s);
                }
                #[test]
                fn merkle_trie_delete() {
                    let (_dir, s, root) = state();
                    test_merkle_trie_delete(root, s);
                }
                #[test]
                fn merkle_trie_multithread_read() {
                    let (_dir, s, root) = state();
                    test_merkle_trie_multithread_read(root, s);
                }
                #[test]
                fn merkle_trie_update() {
                    let (_dir, s, root) = state();
                    test_merkle_trie_update(root, s);
                }
                #[test]
                fn merkle_trie_update_same_address_space() {
                    let (_dir, s, root) = state();
                    test_merkle_trie_update_same_address_space(root, s);
                }
                #[test]
                fn merkle_trie_update_same_address_space_with_no_children() {
                    let (_dir, s, root) = state();
                    test_merkle_trie_update_same_address_space_with_no_children(root, s);
                }
                #[test]
                fn merkle_trie_prune_parent() {
                    let (_dir, s, root) = state();
                    test_merkle_trie_prune_parent(root, s);
                }
                #[test]
                fn merkle_trie_prune_successors() {
                    let (_dir, s, root) = state();
                    test_merkle_trie_prune_successors(root, s);
                }
                #[test]
                fn merkle_trie_prune_duplicate_leaves() {
                    let (_dir, s, root) = state();
                    test_merkle_trie_prune_duplicate_leaves(root, s);
                }
                #[test]
                fn merkle_trie_prune_successor_duplicate_leaves() {
                    let (_dir, s, root) = state();
                    test_merkle_trie_prune_successor_duplicate_leaves(root, s);
                }
                #[test]
                fn merkle_trie_prune_deep_successor_tree() {
                    let (_dir, s, root) = state();
                    test_merkle_trie_prune_deep_successor_tree(root, s);
                }
                #[test]
                fn merkle_trie_prune_late_pruning() {
                    let (_dir, s, root) = state();
                    test_merkle_trie_prune_late_pruning(root, s);
                }
                #[test]
                fn leaf_iteration() {
                    let (_dir, s, root) = state();
                    test_leaf_iteration(root, s);
                }
                #[test]
                fn produce_same_state_as_transact_merkle_state() {
                    let (_dir, s, root) = state();
                    let db = Box::new(transact::database::btree::BTreeDatabase::new(
                        &transact::state::merkle::INDEXES,
                    ));
                    let theirs = MerkleState::new(db.clone());
                    let their_root = MerkleRadixTree::new(db, None).unwrap().get_merkle_root();
                    test_produce_same_state(root, s, their_root, theirs);
                }
            }
        };
    }

    /// A state of `profile` in a new directory.
    fn in_dir(
        profile: &str,
    ) -> (
        Option<tempfile::TempDir>,
        triebench_transact_state::TransactState<triebench_kv::AnyStore>,
    ) {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let state = triebench_transact_state::open(profile, Some(dir.path()))
            .unwrap_or_else(|e| panic!("open {profile}: {e}"));
        (Some(dir), state)
    }

    suite_on!(btree, || (
        None,
        triebench_transact_state::open("btree", None).unwrap()
    ));
    #[cfg(feature = "lmdb")]
    suite_on!(lmdb, || in_dir("lmdb"));
    #[cfg(feature = "lmdb")]
    suite_on!(lmdb_async, || in_dir("lmdb-async"));
    #[cfg(feature = "sqlite-db")]
    suite_on!(sqlite_wal, || in_dir("sqlite-wal"));
    #[cfg(feature = "sqlite-db")]
    suite_on!(sqlite_wal_full, || in_dir("sqlite-wal-full"));
    #[cfg(feature = "sqlite-db")]
    suite_on!(sqlite_rollback, || in_dir("sqlite-rollback"));
    #[cfg(feature = "sqlite-db")]
    suite_on!(sqlite_wal_mmap, || in_dir("sqlite-wal-mmap"));
    #[cfg(feature = "redis-db")]
    suite_on!(redis, || in_dir("redis"));
    #[cfg(feature = "redis-db")]
    suite_on!(redis_aof, || in_dir("redis-aof"));
    #[cfg(feature = "postgres-db")]
    suite_on!(postgres, shared_postgres::state);

    /// One managed PostgreSQL server for the whole binary (an `initdb` per test would take
    /// seconds each); each state is a schema of its own on it. The server follows this process
    /// out when the binary exits.
    #[cfg(feature = "postgres-db")]
    mod shared_postgres {
        use std::sync::OnceLock;

        use triebench_kv::postgres::{PgOptions, PgServer, PgStore};
        use triebench_kv::AnyStore;
        use triebench_transact_state::TransactState;

        static SERVER: OnceLock<(PgServer, tempfile::TempDir)> = OnceLock::new();

        pub fn state() -> (Option<tempfile::TempDir>, TransactState<AnyStore>) {
            let (server, _) = SERVER.get_or_init(|| {
                let dir = tempfile::tempdir().expect("a temporary directory");
                let server = PgServer::start(dir.path()).expect("start PostgreSQL");
                (server, dir)
            });
            let dir = tempfile::tempdir().expect("a temporary directory");
            let options = PgOptions {
                url: Some(server.url()),
                ..PgOptions::default()
            };
            let store = PgStore::open(dir.path(), triebench_merkle::TABLES, options)
                .expect("open a PostgreSQL store");
            let state = TransactState::from_store(AnyStore::from(store)).expect("the empty root");
            (Some(dir), state)
        }
    }
}
