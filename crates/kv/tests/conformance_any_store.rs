//! The conformance suite through [`AnyStore`], the run-time choice of backend: every call goes
//! through its enum readers and writers, so a forwarding mistake there fails here.

use triebench_kv::{AnyStore, BackendSpec};
use triebench_kv_conformance::{Capabilities, TABLES};

fn open(profile: &str, dir: &std::path::Path) -> triebench_kv::KvResult<AnyStore> {
    BackendSpec::parse(profile, Some(dir.to_path_buf()))?.open_any(TABLES)
}

mod btree {
    use super::*;
    triebench_kv_conformance::conformance_tests!(
        Capabilities {
            persistent: false,
            snapshot_reads: true,
            deferred_duplicate_check: false,
        },
        |dir: &std::path::Path| open("btree", dir)
    );
}

#[cfg(feature = "lmdb")]
mod lmdb {
    use super::*;
    triebench_kv_conformance::conformance_tests!(
        Capabilities {
            persistent: true,
            snapshot_reads: true,
            deferred_duplicate_check: false,
        },
        |dir: &std::path::Path| open("lmdb", dir)
    );
}

#[cfg(feature = "sqlite-db")]
mod sqlite {
    use super::*;
    triebench_kv_conformance::conformance_tests!(
        Capabilities {
            persistent: true,
            snapshot_reads: true,
            deferred_duplicate_check: false,
        },
        |dir: &std::path::Path| open("sqlite-wal-full", dir)
    );
}
