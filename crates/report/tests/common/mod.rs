//! Helpers shared by the report integration tests.

use std::path::Path;

/// Copies the tree at `from` into `to` (which exists), e.g. the captured criterion fixtures into
/// a scratch directory a test may damage.
pub fn copy_dir(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).into_iter().flatten().flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            std::fs::create_dir_all(&target).ok();
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).ok();
        }
    }
}
