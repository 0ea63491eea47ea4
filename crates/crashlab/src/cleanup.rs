//! What a killed store leaves behind that is not a process: a managed server's private socket
//! directory (issue 34), removed once its owner is gone.

/// Removes the socket directories of managed servers whose owner is gone; nothing in a build
/// without a managed-server backend.
pub(crate) fn remove_orphaned_server_dirs() {
    #[cfg(any(feature = "redis-db", feature = "postgres-db"))]
    triebench_kv::remove_orphaned_server_dirs();
}
