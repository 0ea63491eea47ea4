//! The conformance suite on the five SQLite profiles.

#![cfg(feature = "sqlite-db")]

mod wal {
    use triebench_kv::sqlite::{SqliteMode, SqliteStore};
    use triebench_kv_conformance::{Capabilities, TABLES};

    triebench_kv_conformance::conformance_tests!(
        Capabilities {
            persistent: true,
            snapshot_reads: true,
            deferred_duplicate_check: false,
        },
        |dir: &std::path::Path| SqliteStore::open(dir, TABLES, SqliteMode::Wal)
    );
}

mod wal_full {
    use triebench_kv::sqlite::{SqliteMode, SqliteStore};
    use triebench_kv_conformance::{Capabilities, TABLES};

    triebench_kv_conformance::conformance_tests!(
        Capabilities {
            persistent: true,
            snapshot_reads: true,
            deferred_duplicate_check: false,
        },
        |dir: &std::path::Path| SqliteStore::open(dir, TABLES, SqliteMode::WalFull)
    );
}

mod wal_mmap {
    use triebench_kv::sqlite::{SqliteMode, SqliteStore};
    use triebench_kv_conformance::{Capabilities, TABLES};

    triebench_kv_conformance::conformance_tests!(
        Capabilities {
            persistent: true,
            snapshot_reads: true,
            deferred_duplicate_check: false,
        },
        |dir: &std::path::Path| SqliteStore::open(dir, TABLES, SqliteMode::WalMmap)
    );
}

mod wal_full_mmap {
    use triebench_kv::sqlite::{SqliteMode, SqliteStore};
    use triebench_kv_conformance::{Capabilities, TABLES};

    triebench_kv_conformance::conformance_tests!(
        Capabilities {
            persistent: true,
            snapshot_reads: true,
            deferred_duplicate_check: false,
        },
        |dir: &std::path::Path| SqliteStore::open(dir, TABLES, SqliteMode::WalFullMmap)
    );
}

/// Rollback-mode readers read per statement (no snapshot): see the `sqlite` module docs.
mod rollback {
    use triebench_kv::sqlite::{SqliteMode, SqliteStore};
    use triebench_kv_conformance::{Capabilities, TABLES};

    triebench_kv_conformance::conformance_tests!(
        Capabilities {
            persistent: true,
            snapshot_reads: false,
            deferred_duplicate_check: false,
        },
        |dir: &std::path::Path| SqliteStore::open(dir, TABLES, SqliteMode::Rollback)
    );
}
