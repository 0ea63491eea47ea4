//! The conformance suite on the `btree` profile.

use triebench_kv::btree::BTreeStore;
use triebench_kv_conformance::{Capabilities, TABLES};

triebench_kv_conformance::conformance_tests!(
    Capabilities {
        persistent: false,
        snapshot_reads: true,
        deferred_duplicate_check: false,
    },
    |_dir: &std::path::Path| BTreeStore::open(TABLES)
);
