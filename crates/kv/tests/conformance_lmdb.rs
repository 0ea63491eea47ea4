//! The conformance suite on the `lmdb` and `lmdb-async` profiles.
#![cfg(feature = "lmdb")]

use triebench_kv::lmdb::{LmdbOptions, LmdbStore};
use triebench_kv_conformance::{Capabilities, TABLES};

const CAPS: Capabilities = Capabilities {
    persistent: true,
    snapshot_reads: true,
    deferred_duplicate_check: false,
};

mod lmdb_default {
    use super::*;
    triebench_kv_conformance::conformance_tests!(CAPS, |dir: &std::path::Path| {
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
    triebench_kv_conformance::conformance_tests!(CAPS, |dir: &std::path::Path| {
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
