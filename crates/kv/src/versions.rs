//! The versions of the storage libraries linked into this build, for a run record to say what
//! produced its numbers.

/// SQLite's version (`3.x.y`), or `not built` without the `sqlite-db` feature.
pub fn sqlite() -> String {
    #[cfg(feature = "sqlite-db")]
    return rusqlite::version().to_string();
    #[cfg(not(feature = "sqlite-db"))]
    return "not built".to_string();
}

/// LMDB's version string (`LMDB 0.9.x: ...`), or `not built` without the `lmdb` feature.
pub fn lmdb() -> String {
    #[cfg(feature = "lmdb")]
    {
        // SAFETY: mdb_version accepts null out-pointers and returns a pointer to a static,
        // NUL-terminated string owned by the library.
        let text = unsafe {
            let p = lmdb_sys::mdb_version(
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            );
            if p.is_null() {
                return "unknown".to_string();
            }
            std::ffi::CStr::from_ptr(p)
        };
        text.to_string_lossy().into_owned()
    }
    #[cfg(not(feature = "lmdb"))]
    "not built".to_string()
}
