//! The checkout this binary was built from: where `cargo bench` runs criterion's benches, where
//! `scripts/fs-lab.sh` names the lab's counting mount, and where the default `disk` run goes.
//! Found as `env.json`'s git commit is (the crate's source directory at build time), never from
//! the current directory.

use std::path::{Path, PathBuf};

/// The checkout this binary was built from, as recorded at build time (it may be gone).
pub fn built_from() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The checkout, when it is still there (a `Cargo.toml` and the bench crate's `benches/`).
pub fn checkout() -> Option<PathBuf> {
    let root = built_from();
    (root.join("Cargo.toml").is_file() && root.join("crates/bench/benches").is_dir())
        .then(|| root.canonicalize().unwrap_or(root))
}

/// The default `disk` run's directory: `<checkout>/target/bench-disk` (so on the disk holding
/// the checkout, as `scripts/bench-fs.sh` always chose), else `target/bench-disk` under the
/// current directory when the checkout is gone.
pub fn default_disk_dir() -> PathBuf {
    checkout()
        .unwrap_or_default()
        .join("target")
        .join("bench-disk")
}
