//! The environment a load run records in its `load.json`: when, the host, the filesystem of its
//! directory, the versions it ran with and the command line.

use std::path::Path;

use triebench_record::load::LoadEnv;
use triebench_record::time as naming;

use crate::fs_capture::fs_info_for_dir;
use crate::versions;

/// The environment of a load run: host, the filesystem of `dir` (when given), versions; what
/// idle CPUs did is the caller's to fill in (`None` here).
pub fn capture_env(dir: Option<&Path>, command: String) -> LoadEnv {
    LoadEnv {
        generated_at: naming::now(),
        host: triebench_record::host::capture_host(),
        fs: dir.and_then(|d| fs_info_for_dir("load", d).ok()),
        versions: versions::capture(),
        command,
        cpu_idle: None,
        net: None,
    }
}
