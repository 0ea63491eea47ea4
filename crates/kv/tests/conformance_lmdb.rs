//! The conformance suite on the `lmdb` and `lmdb-async` profiles.
#![cfg(feature = "lmdb")]

use triebench_kv::conformance::{Capabilities, TABLES};
use triebench_kv::lmdb::{LmdbOptions, LmdbStore};

const CAPS: Capabilities = Capabilities {
    persistent: true,
    snapshot_reads: true,
    deferred_duplicate_check: false,
};

mod lmdb_default {
    use super::*;
    triebench_kv::conformance_tests!(CAPS, |dir: &std::path::Path| {
        LmdbStore::open(
            dir,
            TABLES,
            LmdbOptions {
                map_size: 1 << 30,
                transact_flags: false,
            },
        )
    });
}

mod lmdb_async {
    use super::*;
    triebench_kv::conformance_tests!(CAPS, |dir: &std::path::Path| {
        LmdbStore::open(
            dir,
            TABLES,
            LmdbOptions {
                map_size: 1 << 30,
                transact_flags: true,
            },
        )
    });
}
